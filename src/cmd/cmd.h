/*
 * cmd: the subcommands.  Each cmd_<verb>() parses its own options from
 * argv (argv[0] is the verb) and returns an exit status (diag.h); each
 * cmd_<verb>_help is the text `strata help VERB` prints.  main.c holds
 * only the table that maps verbs to these.
 */
#ifndef CMD_H
#define CMD_H

#include <stdbool.h>

struct response;
struct run;

struct options;

int cmd_build(int argc, char **argv);
int cmd_debug(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_decide(int argc, char **argv);
int cmd_score(int argc, char **argv);
int cmd_reply(int argc, char **argv);
int cmd_session(int argc, char **argv);
int cmd_card(int argc, char **argv);

extern const char cmd_build_help[];
extern const char cmd_debug_help[];
extern const char cmd_check_help[];
extern const char cmd_decide_help[];
extern const char cmd_score_help[];
extern const char cmd_reply_help[];
extern const char cmd_session_help[];
extern const char cmd_card_help[];

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
/* strata reply --session (session.c): append r to the session at path
 * (replace the last reply when swipe) and end the turn. */
bool cmd_reply_session(struct run *run, const char *path,
    const struct response *r, const char *char_name, const char *now,
    bool swipe);

#endif
