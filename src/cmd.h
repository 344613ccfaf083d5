/*
 * cmd: the subcommands.  Each cmd_<verb>() parses its own options from
 * argv (argv[0] is the verb) and returns an exit status (diag.h); each
 * cmd_<verb>_help is the text `strata help VERB` prints.  main.c holds
 * only the table that maps verbs to these.
 */
#ifndef CMD_H
#define CMD_H

#include <stdbool.h>

struct options;

int cmd_build(int argc, char **argv);
int cmd_debug(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_wi(int argc, char **argv);

extern const char cmd_build_help[];
extern const char cmd_debug_help[];
extern const char cmd_check_help[];
extern const char cmd_wi_help[];

/* Print "usage: ..." for verb to stderr (main.c). */
void cmd_usage(const char *verb);

/*
 * The options build and debug share (cmd_build.c).  Fills *opt (arrays
 * on the heap: cmd_options_free); returns -1 to go on, else the exit
 * status to return (after --help, or a usage error already printed).
 */
int cmd_options(int argc, char **argv, const char *verb, bool debug,
    struct options *opt);
void cmd_options_free(struct options *opt);
/* Run the pipeline and print with emitter fn when all went well. */
int cmd_run(const struct options *opt, bool debug);

#endif
