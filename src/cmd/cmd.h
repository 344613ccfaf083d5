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

int cmd_build(int argc, char **argv);
int cmd_debug(int argc, char **argv);
int cmd_check(int argc, char **argv);

extern const char cmd_build_help[];
extern const char cmd_debug_help[];
extern const char cmd_check_help[];

/* Print "usage: ..." for verb to stderr (main.c). */
void cmd_usage(const char *verb);

/*
 * build and debug (options.c): parse the options they share, run the
 * pipeline, and print the request -- for debug the debug view, or with
 * --json the json format -- when all went well.  Returns the exit
 * status.
 */
int cmd_pipeline(int argc, char **argv, const char *verb, bool debug);
/* Append NAME=VALUE argument arg of option optname to *arr (on the
 * heap, *cap its room: a zeroed array is empty). */
void cmd_push(struct kv **arr, size_t *n, size_t *cap, const char *optname,
    const char *arg);

#endif
