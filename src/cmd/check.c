/*
 * strata check: everything the build would reject, without building --
 * syntax, keys, types, files, tool schemas, skill front matter, extends
 * chains, unknown placeholders -- plus warnings for unused variables and
 * injections that replace one another.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/assemble.h"
#include "cmd/cmd.h"
#include "diag/diag.h"
#include "emit/emit.h"
#include "diag/run.h"
#include "base/util.h"

const char cmd_check_help[] =
    "usage: strata check [PROFILE...] [-f FORMAT] [-s KEY=VALUE]\n"
    "\n"
    "Check each profile (no PROFILE: the embedded default) and everything\n"
    "it names, without building.  Prints diagnostics on stderr; exits 1 if\n"
    "any profile has an error.\n"
    "\n"
    "  -f, --format FORMAT        check for this output format (openai,\n"
    "                             anthropic, gemini, messages, text, json,\n"
    "                             review)\n"
    "  -s, --set KEY=VALUE        override a profile key before checking\n"
    "      --profile-format toml|yaml\n"
    "                             the profiles' format, whatever their names\n"
    "                             (PROFILE - reads standard input)\n"
    "      --color=WHEN           colour messages: auto (default), always,\n"
    "                             never\n"
    "  -h, --help                 show this help\n";

/* The options (cmd.h: completions and docs are made from them). */
static const struct option check_longopts[] = {
	{ "set", required_argument, NULL, 's' },
	{ "format", required_argument, NULL, 'f' },
	{ "color", required_argument, NULL, 'C' },
	{ "profile-format", required_argument, NULL, 'P' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};
const struct cmd_opts cmd_check_opts = { "s:f:h", check_longopts };

int
cmd_check(int argc, char **argv)
{
	struct options opt;
	struct kv *sets = NULL;
	const char *format = NULL, *color = NULL, *pformat = NULL;
	enum out_format f;
	size_t nsets = 0, cap = 0;
	int ch, i, status = EXIT_OK, s;

	while ((ch = getopt_long(argc, argv, cmd_check_opts.shortopts,
	    cmd_check_opts.longopts, NULL)) != -1) {
		switch (ch) {
		case 's':
			cmd_push(&sets, &nsets, &cap, "--set", optarg);
			break;
		case 'f':
			if (!names_format_parse(optarg, &f)) {
				cmd_bad_format(optarg);
				free(sets);
				return EXIT_USAGE;
			}
			format = optarg;
			break;
		case 'C':
			if (!cmd_color_word(optarg)) {
				free(sets);
				return EXIT_USAGE;
			}
			color = optarg;
			break;
		case 'P':
			if (!cmd_profile_format(optarg)) {
				free(sets);
				return EXIT_USAGE;
			}
			pformat = optarg;
			break;
		case 'h':
			fputs(cmd_check_help, stdout);
			free(sets);
			return EXIT_OK;
		default:
			cmd_usage("check");
			free(sets);
			return EXIT_USAGE;
		}
	}
	for (i = optind; i <= argc; i++) {
		struct run run;
		struct chat chat;

		if (i == argc && argc > optind)
			break;
		memset(&opt, 0, sizeof(opt));
		opt.profile = i < argc ? cmd_find_profile(argv[i]) : NULL;
		opt.sets = sets;
		opt.format = format;
		opt.profile_format = pformat;
		opt.nsets = nsets;
		opt.check_only = true;
		run_init(&run);
		run.diag.color = emit_color(STDERR_FILENO, color);
		if (assemble(&run, &opt, &chat, NULL)) {
			emit_shape(&run, &chat);
			emit_check(&run, &chat);
		}
		s = diag_status(&run);
		if (s > status)
			status = s;
		run_free(&run);
	}
	free(sets);
	return status;
}
