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
static void
bad_format(const char *arg)
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
	free(opt->images);
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
		{ "image", required_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	size_t cap[5] = { 0 };  /* of contexts, vars, sets, injects, images */
	enum out_format f;
	int ch;

	memset(opt, 0, sizeof(*opt));
	while ((ch = getopt_long(argc, argv, "u:H:c:v:s:i:f:h", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'u':
			opt->user = optarg;
			break;
		case 'H':
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
				bad_format(optarg);
				return EXIT_USAGE;
			}
			opt->format = optarg;
			break;
		case 'I':
			cmd_push(&opt->images, &opt->nimages, &cap[4],
			    "--image", optarg);
			break;
		case 'j':
			if (!debug)
				goto usage;
			opt->json = true;
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
	run.diag.color = emit_color(STDERR_FILENO);
	if (assemble(&run, opt, &chat)) {
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
