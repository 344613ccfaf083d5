/*
 * What build and debug share: their options, and the driver both use --
 * assemble, emit into a buffer, and write stdout only when everything
 * succeeded.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/util.h"
#include "base/vec.h"
#include "cmd/cmd.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "emit/emit.h"
#include "pipeline/assemble.h"

void
cmd_push(struct kv **arr, size_t *n, size_t *cap, const char *optname,
    const char *arg)
{
	*arr = vec_grow(*arr, cap, *n + 1, sizeof(**arr));
	(*arr)[*n].opt = optname;
	(*arr)[*n].arg = arg;
	(*n)++;
}

/* "unknown format 'x' (expected a, b or c)", from the one list. */
bool
cmd_color_word(const char *arg)
{
	if (strcmp(arg, "auto") == 0 || strcmp(arg, "always") == 0 ||
	    strcmp(arg, "never") == 0)
		return true;
	fprintf(stderr, "%s: --color: unknown word '%s' (expected auto, "
	    "always or never)\n", progname, arg);
	return false;
}

bool
cmd_profile_format(const char *arg)
{
	if (strcmp(arg, "toml") == 0 || strcmp(arg, "yaml") == 0)
		return true;
	fprintf(stderr, "%s: --profile-format: unknown format '%s' (expected "
	    "toml or yaml)\n", progname, arg);
	return false;
}

void
cmd_bad_format(const char *arg)
{
	struct buf b = BUF_INIT;
	size_t i;

	buf_printf(&b, "%s: unknown format '%s' (expected ", progname, arg);
	for (i = 0; names_formats[i]; i++)
		buf_printf(&b, "%s%s", i == 0 ? "" : names_formats[i + 1] ?
		    ", " : " or ", names_formats[i]);
	buf_puts(&b, ")\n");
	fputs(b.data, stderr);
	buf_free(&b);
}

static void
options_free(struct options *opt)
{
	free(opt->contexts);
	free(opt->vars);
	free(opt->sets);
	free(opt->injects);
	memset(opt, 0, sizeof(*opt));
}

/* After the options: the profile, and stdin claimed once at most. */
static bool
operands(int argc, char **argv, const char *verb, struct options *opt)
{
	const char *clash;

	if (argc - optind > 1) {
		fprintf(stderr, "%s: %s takes one profile\n", progname, verb);
		return false;
	}
	if (optind < argc)
		opt->profile = argv[optind];
	clash = assemble_stdin_clash(opt);
	if (clash) {
		fprintf(stderr, "%s: %s -: standard input is already used by "
		    "another option\n", progname, clash);
		return false;
	}
	return true;
}

/* An option that may be given once was given again: a usage error. */
static int
once(const char *verb, const char *name)
{
	fprintf(stderr, "%s %s: %s may be given once (one user message, "
	    "one history file)\n", progname, verb, name);
	cmd_usage(verb);
	return EXIT_USAGE;
}

/* Fill *opt (arrays on the heap: options_free()); returns -1 to go on,
 * else the exit status to return (after --help, or a usage error already
 * printed). */
static int
parse_options(int argc, char **argv, const char *verb, bool debug,
    struct options *opt)
{
	static const struct option longopts[] = {
		{ "user", required_argument, NULL, 'u' },
		{ "history", required_argument, NULL, 'H' },
		{ "context", required_argument, NULL, 'c' },
		{ "var", required_argument, NULL, 'v' },
		{ "set", required_argument, NULL, 's' },
		{ "inject", required_argument, NULL, 'i' },
		{ "format", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "color", required_argument, NULL, 'C' },
		{ "profile-format", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	size_t cap[4] = { 0 };  /* of contexts, vars, sets, injects */
	enum out_format f;
	int ch;

	memset(opt, 0, sizeof(*opt));
	while ((ch = getopt_long(argc, argv, "u:H:c:v:s:i:f:h", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'u':
			if (opt->user)
				return once(verb, "--user");
			opt->user = optarg;
			break;
		case 'H':
			if (opt->history)
				return once(verb, "--history");
			opt->history = optarg;
			break;
		case 'c':
			cmd_push(&opt->contexts, &opt->ncontexts, &cap[0],
			    "--context", optarg);
			break;
		case 'v':
			cmd_push(&opt->vars, &opt->nvars, &cap[1], "--var",
			    optarg);
			break;
		case 's':
			cmd_push(&opt->sets, &opt->nsets, &cap[2], "--set",
			    optarg);
			break;
		case 'i':
			cmd_push(&opt->injects, &opt->ninjects, &cap[3],
			    "--inject", optarg);
			break;
		case 'f':
			if (!names_format_parse(optarg, &f)) {
				cmd_bad_format(optarg);
				return EXIT_USAGE;
			}
			opt->format = optarg;
			break;
		case 'j':
			if (!debug) {
				fprintf(stderr, "%s %s: unrecognized option "
				    "'--json' (did you mean debug --json?)\n",
				    progname, verb);
				goto usage;
			}
			opt->json = true;
			break;
		case 'C':
			if (!cmd_color_word(optarg))
				return EXIT_USAGE;
			opt->color = optarg;
			break;
		case 'P':
			if (!cmd_profile_format(optarg))
				return EXIT_USAGE;
			opt->profile_format = optarg;
			break;
		case 'h':
			fputs(debug ? cmd_debug_help : cmd_build_help, stdout);
			return EXIT_OK;
		default:
			goto usage;
		}
	}
	if (operands(argc, argv, verb, opt))
		return -1;
usage:
	cmd_usage(verb);
	return EXIT_USAGE;
}

static int
run_pipeline(const struct options *opt, bool debug)
{
	struct run run;
	struct chat chat;
	struct buf out = BUF_INIT;
	emit_fn *fn;
	int status;

	run_init(&run);
	run.diag.color = emit_color(STDERR_FILENO, opt->color);
	if (assemble(&run, opt, &chat)) {
		chat.color = emit_color(STDOUT_FILENO, opt->color);
		if (debug)
			fn = opt->json ? emit_json : emit_debug;
		else
			fn = emit_for(chat.format);
		if (fn(&run, &chat, &out) && run.diag.errors == 0 &&
		    out.len && fwrite(out.data, 1, out.len, stdout) != out.len)
			diag_system(&run);
	}
	status = diag_status(&run);
	buf_free(&out);
	run_free(&run);
	return status;
}

int
cmd_pipeline(int argc, char **argv, const char *verb, bool debug)
{
	struct options opt;
	int status = parse_options(argc, argv, verb, debug, &opt);

	if (status < 0)
		status = run_pipeline(&opt, debug);
	options_free(&opt);
	return status;
}
