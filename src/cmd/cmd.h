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

#include "pipeline/assemble.h"

struct kv;
struct option;
struct response;
struct run;

/*
 * A command's options: its getopt_long() arguments, the one table that
 * the parser, `strata help`, the shell completions (completion.c) and
 * the tests that check strata(1) all read.
 */
struct cmd_opts {
	const char *shortopts;
	const struct option *longopts;  /* ends with a NULL name */
};

/* The command table (main.c). */
struct cmd_command {
	const char *name;
	int (*fn)(int, char **);
	const char *args;
	const char *summary;
	const char *help;
	const struct cmd_opts *opts;    /* NULL: none */
};

int cmd_build(int argc, char **argv);
int cmd_debug(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_decide(int argc, char **argv);
int cmd_score(int argc, char **argv);
int cmd_reply(int argc, char **argv);
int cmd_session(int argc, char **argv);
int cmd_card(int argc, char **argv);
int cmd_regex(int argc, char **argv);
int cmd_wi(int argc, char **argv);
int cmd_templates(int argc, char **argv);
int cmd_batch(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_test(int argc, char **argv);

extern const char cmd_build_help[];
extern const char cmd_debug_help[];
extern const char cmd_check_help[];
extern const char cmd_decide_help[];
extern const char cmd_score_help[];
extern const char cmd_reply_help[];
extern const char cmd_session_help[];
extern const char cmd_card_help[];
extern const char cmd_regex_help[];
extern const char cmd_wi_help[];
extern const char cmd_templates_help[];
extern const char cmd_batch_help[];
extern const char cmd_diff_help[];
extern const char cmd_test_help[];

extern const struct cmd_opts cmd_pipeline_opts;   /* build and debug */
extern const struct cmd_opts cmd_check_opts;
extern const struct cmd_opts cmd_decide_opts;
extern const struct cmd_opts cmd_score_opts;
extern const struct cmd_opts cmd_reply_opts;
extern const struct cmd_opts cmd_session_opts;
extern const struct cmd_opts cmd_card_opts;
extern const struct cmd_opts cmd_regex_opts;
extern const struct cmd_opts cmd_wi_opts;
extern const struct cmd_opts cmd_templates_opts;
extern const struct cmd_opts cmd_batch_opts;
extern const struct cmd_opts cmd_diff_opts;
extern const struct cmd_opts cmd_test_opts;

/* strata completion SHELL (completion.c): the bash, zsh or fish
 * completion script for the n commands of table v, on stdout.  Returns
 * the exit status. */
int cmd_completion_script(const char *shell, const struct cmd_command *v,
    size_t n);

/* Print "usage: ..." for verb to stderr (main.c). */
void cmd_usage(const char *verb);

/*
 * build and debug (pipeline.c): parse the options they share, run the
 * pipeline, and print the request -- for debug the debug view, or with
 * --json the json format -- when all went well.  Returns the exit
 * status.
 */
int cmd_pipeline(int argc, char **argv, const char *verb, bool debug);
/*
 * What the command line of build and debug says (options.c): the build
 * request the pipeline reads, and apart from it what only the command
 * reads -- the view, --dry-run, the colours, --params.  The build never
 * writes into either: what it leaves comes back in a struct
 * assemble_out.
 */
struct cmd_pipeline_args {
	struct options build;
	bool json;              /* debug --json */
	bool html;              /* debug -f html: the stage inspector */
	const char *stage;      /* debug --stage: a tavern stage, or NULL */
	bool dry_run;           /* --session: write nothing */
	bool log_debug;         /* --log-level debug: the trace on stderr */
	const char *color;      /* --color: auto, always, never, or NULL */
	const char *params;     /* --params FILE|-, or NULL */
};
/* Fill *args from build's or debug's command line (options.c; arrays on
 * the heap: cmd_options_free()).  -1 to go on, else the exit status
 * (after printing usage or help). */
int cmd_parse_options(int argc, char **argv, const char *verb, bool debug,
    struct cmd_pipeline_args *args);
void cmd_options_free(struct options *opt);
/* build --params (params.c): the parameters file's build, printed. */
int cmd_params(const struct cmd_pipeline_args *args);
/* Build (or debug) what args names in run, print it, write what the
 * build keeps; the exit status.  The caller owns run. */
int cmd_pipeline_run(struct run *run, const struct cmd_pipeline_args *args,
    bool debug);
/* Append NAME=VALUE argument arg of option optname to *arr (on the
 * heap, *cap its room: a zeroed array is empty). */
void cmd_push(struct kv **arr, size_t *n, size_t *cap, const char *optname,
    const char *arg);
/*
 * The profile a command line names: name itself when it is a file here
 * (or a path: it starts with '/' or '.'); else the first of NAME,
 * NAME.toml, NAME.yaml, NAME.yml in $STRATA_PATH's directories, then
 * $XDG_DATA_HOME/strata/profiles (~/.local/share/strata/profiles), then
 * BINDIR/../share/strata/profiles, then DATADIR/strata/profiles where
 * meson installed the examples.  A NAME.toml, .yaml or .yml found
 * nowhere is name (whose loading then says it cannot be read); another
 * name found nowhere is reported (the places looked) and the program
 * exits with status 1, before anything is written.  A found path is in a static buffer.
 */
const char *cmd_find_profile(const char *name);
/* Is arg a --profile-format (toml, yaml)?  Else says so. */
bool cmd_profile_format(const char *arg);
/* Is arg a --color word (auto, always, never)?  Else says so. */
bool cmd_color_word(const char *arg);
/* "strata: unknown format 'x' (expected ...)" on stderr. */
void cmd_bad_format(const char *arg);
/* strata reply --session (session.c): append r to the session at path
 * (replace the last reply when swipe) and end the turn. */
bool cmd_reply_session(struct run *run, const char *path,
    const struct response *r, const char *char_name, const char *now,
    bool swipe);

#endif
