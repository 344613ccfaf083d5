/*
 * strata check: read each profile and report everything wrong with it,
 * without building.
 */
#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

#include "cmd.h"
#include "diag.h"
#include "load.h"
#include "run.h"
#include "util.h"

static const char help[] =
    "usage: strata check [PROFILE...]\n"
    "\n"
    "Read each profile (TOML for .toml, YAML for .yaml or .yml) and report\n"
    "every error in it.  Prints nothing and exits 0 when all are good.\n";

int
cmd_help_of(const char *verb)
{
	(void)verb;
	fputs(help, stdout);
	return EXIT_OK;
}

int
cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct run run;
	int ch, i, status;

	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			fputs(help, stdout);
			return EXIT_OK;
		default:
			cmd_usage("check");
			return EXIT_USAGE;
		}
	}
	run_init(&run);
	run.diag.color = isatty(2);
	for (i = optind; i < argc; i++) {
		struct node *tree;

		load_file(&run, argv[i], LOAD_GUESS, NULL, span_make(0, 0),
		    &tree, NULL);
	}
	status = diag_status(&run);
	run_free(&run);
	return status;
}
