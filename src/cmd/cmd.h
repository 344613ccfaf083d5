/*
 * cmd: the subcommands.  Each cmd_<verb>() parses its own options from
 * argv (argv[0] is the verb) and returns an exit status (diag.h); each
 * cmd_<verb>_help is the text `strata help VERB` prints.  main.c holds
 * only the table that maps verbs to these; options.c what build and
 * debug share.  Option arrays are on the heap, owned by the command that
 * parsed them; argv's strings are borrowed.
 */
#ifndef CMD_H
#define CMD_H

#include <stdbool.h>
#include <stddef.h>

struct kv;
struct options;

int cmd_build(int argc, char **argv);
int cmd_debug(int argc, char **argv);
int cmd_check(int argc, char **argv);

extern const char cmd_build_help[];
extern const char cmd_debug_help[];
extern const char cmd_check_help[];

/* Print "usage: ..." for verb to stderr (main.c). */
void cmd_usage(const char *verb);

/*
 * The options build and debug share (options.c).  Fills *opt (arrays
 * on the heap: cmd_options_free); returns -1 to go on, else the exit
 * status to return (after --help, or a usage error already printed).
 */
int cmd_options(int argc, char **argv, const char *verb, bool debug,
    struct options *opt);
void cmd_options_free(struct options *opt);
/* Run the pipeline and print the request (debug: the debug view, or
 * with --json the json format) when all went well (options.c). */
int cmd_run(const struct options *opt, bool debug);
/* Append NAME=VALUE argument arg of option optname to *arr (on the
 * heap, *cap its room: a zeroed array is empty). */
void cmd_push(struct kv **arr, size_t *n, size_t *cap, const char *optname,
    const char *arg);

#endif
