/*
 * strata build: print the request body.  Also holds the option parsing
 * build and debug share, and the driver both use: assemble, emit into a
 * buffer, and write stdout only when everything succeeded.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/assemble.h"
#include "base/buf.h"
#include "cmd/cmd.h"
#include "diag/diag.h"
#include "emit/emit.h"
#include "diag/run.h"
#include "base/util.h"

const char cmd_build_help[] =
    "usage: strata build [PROFILE] [options]\n"
    "\n"
    "Print the request body the profile composes (no PROFILE: the\n"
    "embedded default).\n"
    "\n"
    "  -u, --user TEXT|-          the current user message (- reads stdin)\n"
    "  -H, --history FILE|-       earlier messages: a JSON array of\n"
    "                             {role, content[, name]}\n"
    "  -c, --context NAME=FILE|-  content of the [[context]] NAME\n"
    "  -v, --var NAME=VALUE       a template variable ({{NAME}})\n"
    "  -s, --set KEY=VALUE        override a profile key (dotted path)\n"
    "  -i, --inject KEY=TEXT      add a turn-scope entry (priority 100)\n"
    "  -f, --format FORMAT        openai | anthropic | gemini | messages |\n"
    "                             text | json\n"
    "  -h, --help                 show this help\n";

static void
push(struct kv **arr, size_t *n, const char *optname, const char *arg)
{
	*arr = xreallocarray(*arr, *n + 1, sizeof(**arr));
	(*arr)[*n].opt = optname;
	(*arr)[*n].arg = arg;
	(*n)++;
}

/* Long options without a short form. */
enum {
	OPT_CARD = 256,
	OPT_PRESET,
	OPT_CHAT,
	OPT_SETTINGS,
	OPT_WORLD,
	OPT_REGEX,
	OPT_PERSONA_NAME,
	OPT_PERSONA,
	OPT_GREETING,
	OPT_TYPE,
	OPT_NOW,
	OPT_SEED,
};

static void
push_path(const char *const **arr, size_t *n, const char *path)
{
	const char **v = xreallocarray((void *)*arr, *n + 1, sizeof(*v));

	v[(*n)++] = path;
	*arr = v;
}

void
cmd_options_free(struct options *opt)
{
	free(opt->contexts);
	free(opt->vars);
	free(opt->sets);
	free(opt->injects);
	free((void *)opt->tavern.worlds);
	free((void *)opt->tavern.regex);
	memset(opt, 0, sizeof(*opt));
}

int
cmd_options(int argc, char **argv, const char *verb, bool debug,
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
		{ "help", no_argument, NULL, 'h' },
		{ "card", required_argument, NULL, OPT_CARD },
		{ "preset", required_argument, NULL, OPT_PRESET },
		{ "chat", required_argument, NULL, OPT_CHAT },
		{ "settings", required_argument, NULL, OPT_SETTINGS },
		{ "world", required_argument, NULL, OPT_WORLD },
		{ "regex", required_argument, NULL, OPT_REGEX },
		{ "persona-name", required_argument, NULL, OPT_PERSONA_NAME },
		{ "persona", required_argument, NULL, OPT_PERSONA },
		{ "greeting", required_argument, NULL, OPT_GREETING },
		{ "type", required_argument, NULL, OPT_TYPE },
		{ "now", required_argument, NULL, OPT_NOW },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ NULL, 0, NULL, 0 },
	};
	struct tavern_input *tv = &opt->tavern;
	enum out_format f;
	const char *clash;
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
			push(&opt->contexts, &opt->ncontexts, "--context",
			    optarg);
			break;
		case 'v':
			push(&opt->vars, &opt->nvars, "--var", optarg);
			break;
		case 's':
			push(&opt->sets, &opt->nsets, "--set", optarg);
			break;
		case 'i':
			push(&opt->injects, &opt->ninjects, "--inject",
			    optarg);
			break;
		case 'f':
			if (!names_format_parse(optarg, &f)) {
				fprintf(stderr, "%s: unknown format '%s' "
				    "(expected openai, anthropic, gemini, "
				    "messages, text or json)\n", progname,
				    optarg);
				return EXIT_USAGE;
			}
			opt->format = optarg;
			break;
		case 'j':
			if (!debug)
				goto usage;
			opt->json = true;
			break;
		case OPT_CARD:
			tv->card = optarg;
			break;
		case OPT_PRESET:
			tv->preset = optarg;
			break;
		case OPT_CHAT:
			tv->chat = optarg;
			break;
		case OPT_SETTINGS:
			tv->settings = optarg;
			break;
		case OPT_WORLD:
			push_path(&tv->worlds, &tv->nworlds, optarg);
			break;
		case OPT_REGEX:
			push_path(&tv->regex, &tv->nregex, optarg);
			break;
		case OPT_PERSONA_NAME:
			tv->persona_name = optarg;
			break;
		case OPT_PERSONA:
			tv->persona = optarg;
			break;
		case OPT_GREETING:
			tv->greeting = optarg;
			break;
		case OPT_TYPE:
			tv->type = optarg;
			break;
		case OPT_NOW:
			tv->now = optarg;
			break;
		case OPT_SEED:
			tv->seed = optarg;
			break;
		case 'h':
			fputs(debug ? cmd_debug_help : cmd_build_help, stdout);
			return EXIT_OK;
		default:
			goto usage;
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "%s: %s takes one profile\n", progname, verb);
		goto usage;
	}
	if (optind < argc)
		opt->profile = argv[optind];
	clash = assemble_stdin_clash(opt);
	if (clash) {
		fprintf(stderr, "%s: %s -: standard input is already used by "
		    "another option\n", progname, clash);
		goto usage;
	}
	return -1;
usage:
	cmd_usage(verb);
	return EXIT_USAGE;
}

int
cmd_run(const struct options *opt, bool debug)
{
	struct run run;
	struct chat chat;
	struct buf out = BUF_INIT;
	emit_fn *fn;
	int status;

	run_init(&run);
	run.diag.color = isatty(STDERR_FILENO) && !(getenv("NO_COLOR") &&
	    *getenv("NO_COLOR"));
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
cmd_build(int argc, char **argv)
{
	struct options opt;
	int status = cmd_options(argc, argv, "build", false, &opt);

	if (status < 0)
		status = cmd_run(&opt, false);
	cmd_options_free(&opt);
	return status;
}
