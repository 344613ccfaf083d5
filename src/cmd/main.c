/*
 * main: global options and the command table.  No pipeline logic lives
 * here; each verb is a cmd_<verb>() in its own file.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "version.h"
#include "cmd/cmd.h"
#include "diag/diag.h"
#include "base/util.h"

static int cmd_help(int argc, char **argv);
static int cmd_completion(int argc, char **argv);

static const char cmd_completion_help[] =
    "usage: strata completion bash|zsh|fish\n"
    "\n"
    "Print the shell completion script for strata: every command and\n"
    "every option of each, made from the table the commands parse with.\n"
    "meson install puts them where bash-completion, zsh and fish look.\n"
    "\n"
    "  -h, --help         show this help\n";

static const struct option completion_longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};
static const struct cmd_opts cmd_completion_opts = { "h",
	completion_longopts };

static const struct option help_longopts[] = {
	{ NULL, 0, NULL, 0 },
};
static const struct cmd_opts cmd_help_opts = { "", help_longopts };

static const struct cmd_command commands[] = {
	{ "build", cmd_build, "[PROFILE] [options]",
	  "print the request body (stdout)", cmd_build_help,
	  &cmd_pipeline_opts },
	{ "debug", cmd_debug, "[PROFILE] [options]",
	  "show each entry, its source, and why it is in or out",
	  cmd_debug_help,
	  &cmd_pipeline_opts },
	{ "batch", cmd_batch, "PROFILE [FILE|-]",
	  "one request per JSON Lines input line", cmd_batch_help,
	  &cmd_batch_opts },
	{ "diff", cmd_diff, "OLD NEW [options]",
	  "what changed between two build results, by layer",
	  cmd_diff_help,
	  &cmd_diff_opts },
	{ "test", cmd_test, "[DIR] [options]",
	  "run a suite of prompt test cases", cmd_test_help,
	  &cmd_test_opts },
	{ "check", cmd_check, "[PROFILE...] [opts]",
	  "validate profiles and everything they name", cmd_check_help,
	  &cmd_check_opts },
	{ "decide", cmd_decide, "[FILE|-] [options]",
	  "read a planner's answer: the decision as JSON", cmd_decide_help,
	  &cmd_decide_opts },
	{ "score", cmd_score, "[FILE|-] [options]",
	  "read an importance answer: the score", cmd_score_help,
	  &cmd_score_opts },
	{ "reply", cmd_reply, "[options] [TEXT|-]",
	  "read a provider's response: the assistant message",
	  cmd_reply_help,
	  &cmd_reply_opts },
	{ "session", cmd_session, "FILE ACTION [opts]",
	  "show, undo, set variables in a conversation file",
	  cmd_session_help,
	  &cmd_session_opts },
	{ "card", cmd_card, "FILE [options]",
	  "print a character card as V3 JSON, or put it in a PNG",
	  cmd_card_help,
	  &cmd_card_opts },
	{ "regex", cmd_regex, "FILE... [options]",
	  "run SillyTavern regex scripts over standard input",
	  cmd_regex_help,
	  &cmd_regex_opts },
	{ "wi", cmd_wi, "FILE... [options]",
	  "lint, convert and run SillyTavern world info", cmd_wi_help,
	  &cmd_wi_opts },
	{ "templates", cmd_templates, "ACTION [ARG]",
	  "the built-in agent templates, and where each comes from",
	  cmd_templates_help,
	  &cmd_templates_opts },
	{ "completion", cmd_completion, "SHELL",
	  "print the bash, zsh or fish completion script",
	  cmd_completion_help, &cmd_completion_opts },
	{ "help", cmd_help, "[COMMAND]", "show help for strata or a command",
	  NULL, &cmd_help_opts },
};

static const struct cmd_command *
find(const char *name)
{
	size_t i;

	for (i = 0; i < LEN(commands); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static void
overview(FILE *f)
{
	size_t i;

	fprintf(f, "usage: %s [--help | --version] COMMAND [ARGS]\n\n"
	    "commands:\n", progname);
	for (i = 0; i < LEN(commands); i++)
		fprintf(f, "  %-10s %-21s %s\n", commands[i].name,
		    commands[i].args, commands[i].summary);
	fprintf(f, "\nRun '%s help COMMAND' for a command's options; "
	    "see strata(1).\n", progname);
}

void
cmd_usage(const char *verb)
{
	const struct cmd_command *c = find(verb);

	if (c)
		fprintf(stderr, "usage: %s %s %s\n"
		    "Run '%s help %s' for more.\n", progname, c->name,
		    c->args, progname, c->name);
	else
		overview(stderr);
}

static int
cmd_help(int argc, char **argv)
{
	if (argc > 2) {
		cmd_usage("help");
		return EXIT_USAGE;
	}
	if (argc < 2) {
		overview(stdout);
		return EXIT_OK;
	}
	if (!find(argv[1])) {
		fprintf(stderr, "%s: unknown command '%s'\n", progname,
		    argv[1]);
		overview(stderr);
		return EXIT_USAGE;
	}
	if (find(argv[1])->help)
		fputs(find(argv[1])->help, stdout);
	else
		overview(stdout);
	return EXIT_OK;
}

static int
cmd_completion(int argc, char **argv)
{
	int ch;

	while ((ch = getopt_long(argc, argv, cmd_completion_opts.shortopts,
	    cmd_completion_opts.longopts, NULL)) != -1) {
		if (ch != 'h') {
			cmd_usage("completion");
			return EXIT_USAGE;
		}
		fputs(cmd_completion_help, stdout);
		return EXIT_OK;
	}
	if (argc - optind != 1) {
		cmd_usage("completion");
		return EXIT_USAGE;
	}
	return cmd_completion_script(argv[optind], commands, LEN(commands));
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static char verb[64];
	const struct cmd_command *c;
	int ch, status;

	while ((ch = getopt_long(argc, argv, "+hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			overview(stdout);
			return EXIT_OK;
		case 'V':
			/* The meson.build version; in a git checkout, the
			 * commit it was built from. */
			if (*STRATA_COMMIT)
				printf("%s %s (commit %s)\n", progname,
				    STRATA_VERSION, STRATA_COMMIT);
			else
				printf("%s %s\n", progname, STRATA_VERSION);
			return EXIT_OK;
		default:
			overview(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		overview(stderr);
		return EXIT_USAGE;
	}
	c = find(argv[optind]);
	if (!c) {
		fprintf(stderr, "%s: unknown command '%s'\n", progname,
		    argv[optind]);
		overview(stderr);
		return EXIT_USAGE;
	}
	/* Each command parses its own options: optind = 0 makes glibc's
	 * getopt start afresh. */
	argc -= optind;
	argv += optind;
	optind = 0;
	/* getopt's own messages then read "strata build: ...". */
	snprintf(verb, sizeof(verb), "%s %s", progname, c->name);
	argv[0] = verb;
	status = c->fn(argc, argv);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: error: cannot write standard output\n",
		    progname);
		return EXIT_SYSTEM;
	}
	return status;
}
