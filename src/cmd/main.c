/*
 * main: global options and the command table.  No pipeline logic lives
 * here; each verb is a cmd_<verb>() in its own file.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "cmd/cmd.h"
#include "diag/diag.h"
#include "base/util.h"
#include "base/buf.h"

/* A usage error quotes the argument as a human view does (SECURITY). */
static void
unknown(const char *arg)
{
	struct buf b = BUF_INIT;

	buf_put_term(&b, arg, strlen(arg));
	fprintf(stderr, "%s: unknown command '%s'\n", progname,
	    b.data ? b.data : "");
	buf_free(&b);
}

static int cmd_help(int argc, char **argv);

static const struct command {
	const char *name;
	int (*fn)(int, char **);
	const char *args;
	const char *summary;
	const char *help;
} commands[] = {
	{ "build", cmd_build, "[PROFILE] [options]",
	  "print the request body (stdout)", cmd_build_help },
	{ "debug", cmd_debug, "[PROFILE] [options]",
	  "show each entry, its source, and why it is in or out",
	  cmd_debug_help },
	{ "batch", cmd_batch, "PROFILE [FILE|-]",
	  "one request per JSON Lines input line", cmd_batch_help },
	{ "diff", cmd_diff, "OLD NEW [options]",
	  "what changed between two build results, by layer",
	  cmd_diff_help },
	{ "test", cmd_test, "[DIR] [options]",
	  "run a suite of prompt test cases", cmd_test_help },
	{ "check", cmd_check, "[PROFILE...] [opts]",
	  "validate profiles and everything they name", cmd_check_help },
	{ "decide", cmd_decide, "[FILE|-] [options]",
	  "read a planner's answer: the decision as JSON", cmd_decide_help },
	{ "score", cmd_score, "[FILE|-] [options]",
	  "read an importance answer: the score", cmd_score_help },
	{ "reply", cmd_reply, "[FILE|-] [options]",
	  "read a provider's response: the assistant message",
	  cmd_reply_help },
	{ "session", cmd_session, "FILE ACTION [opts]",
	  "show, undo, set variables in a conversation file",
	  cmd_session_help },
	{ "card", cmd_card, "FILE [options]",
	  "print a character card as V3 JSON, or put it in a PNG",
	  cmd_card_help },
	{ "regex", cmd_regex, "FILE... [options]",
	  "run SillyTavern regex scripts over standard input",
	  cmd_regex_help },
	{ "wi", cmd_wi, "FILE... [options]",
	  "lint, convert and run SillyTavern world info", cmd_wi_help },
	{ "templates", cmd_templates, "ACTION [ARG]",
	  "the built-in agent templates, and where each comes from",
	  cmd_templates_help },
	{ "help", cmd_help, "[COMMAND]", "show help for strata or a command",
	  NULL },
};

static const struct command *
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
		fprintf(f, "  %-7s %-21s %s\n", commands[i].name,
		    commands[i].args, commands[i].summary);
	fprintf(f, "\nRun '%s help COMMAND' for a command's options; "
	    "see strata(1).\n", progname);
}

void
cmd_usage(const char *verb)
{
	const struct command *c = find(verb);

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
		unknown(argv[1]);
		overview(stderr);
		return EXIT_USAGE;
	}
	if (find(argv[1])->help)
		fputs(find(argv[1])->help, stdout);
	else
		overview(stdout);
	return EXIT_OK;
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
	const struct command *c;
	int ch, status;

	while ((ch = getopt_long(argc, argv, "+hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			overview(stdout);
			return EXIT_OK;
		case 'V':
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
		unknown(argv[optind]);
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
