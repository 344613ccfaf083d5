/*
 * strata regex: run SillyTavern regex scripts on standard input, as one
 * call of SillyTavern would (placement, prompt/markdown/edit, depth), and
 * print the result -- for debugging scripts.  Macros are not expanded
 * yet: they stay as written.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "data/load.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "emit/emit.h"
#include "text/regex.h"

const char cmd_regex_help[] =
    "usage: strata regex [options] FILE...\n"
    "\n"
    "Run the SillyTavern regex scripts of each FILE on standard input and\n"
    "print the result.  A FILE is a script or an array of scripts, a\n"
    "settings.json (extension_settings.regex: global), a preset\n"
    "(extensions.regex_scripts) or a card (data.extensions.regex_scripts:\n"
    "scoped); scripts run global, preset, scoped.  Macros stay as written.\n"
    "\n"
    "  -p, --placement WHERE      user_input, ai_output (default),\n"
    "                             slash_command, world_info, reasoning,\n"
    "                             or the number\n"
    "      --prompt               a prompt-building call (promptOnly scripts)\n"
    "      --markdown             a display call (markdownOnly scripts)\n"
    "      --edit                 an edit (runOnEdit scripts only)\n"
    "  -d, --depth N              the message depth (default: none)\n"
    "  -h, --help                 show this help\n";

static const char *const placements[] = {
	"md_display", "user_input", "ai_output", "slash_command", "send_as",
	"world_info", "reasoning",
};

static bool
parse_int(const char *s, int *out)
{
	char *end;
	long v;

	v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < INT_MIN + 1 || v > INT_MAX)
		return false;
	*out = (int)v;
	return true;
}

/* The scripts of one file, by what the file is. */
static bool
add_file(struct run *run, struct regex_set *set, const char *path)
{
	struct node *root;
	const struct node *v;

	if (!load_file(run, path, LOAD_GUESS, NULL, span_make(0, 0), &root,
	    NULL))
		return false;
	if (root->kind == NODE_TABLE &&
	    (v = tree_get(tree_get(root, "extension_settings"), "regex")))
		return regex_set_add(run, set, REGEX_GLOBAL, v);
	if (root->kind == NODE_TABLE && (v = tree_get(tree_get(
	    tree_get(root, "data"), "extensions"), "regex_scripts")))
		return regex_set_add(run, set, REGEX_SCOPED, v);
	if (root->kind == NODE_TABLE &&
	    (v = tree_get(tree_get(root, "extensions"), "regex_scripts")))
		return regex_set_add(run, set, REGEX_PRESET, v);
	return regex_set_add(run, set, REGEX_GLOBAL, root);
}

enum { OPT_PROMPT = 256, OPT_MARKDOWN, OPT_EDIT };

/* The options (cmd.h: completions and docs are made from them). */
static const struct option regex_longopts[] = {
	{ "placement", required_argument, NULL, 'p' },
	{ "depth", required_argument, NULL, 'd' },
	{ "prompt", no_argument, NULL, OPT_PROMPT },
	{ "markdown", no_argument, NULL, OPT_MARKDOWN },
	{ "edit", no_argument, NULL, OPT_EDIT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};
const struct cmd_opts cmd_regex_opts = { "p:d:h", regex_longopts };

int
cmd_regex(int argc, char **argv)
{
	struct run run;
	struct regex_set set;
	struct source *in;
	struct buf out = BUF_INIT;
	int ch, depth = REGEX_NO_DEPTH, placement = REGEX_AI_OUTPUT, i, n;
	unsigned call = 0;
	size_t k;
	bool ok = true;

	while ((ch = getopt_long(argc, argv, cmd_regex_opts.shortopts,
	    cmd_regex_opts.longopts, NULL)) != -1) {
		switch (ch) {
		case 'p':
			for (k = 0; k < LEN(placements); k++)
				if (strcmp(optarg, placements[k]) == 0)
					break;
			if (k < LEN(placements)) {
				placement = (int)k;
			} else if (!parse_int(optarg, &n) || n < 0) {
				fprintf(stderr, "%s: unknown placement '%s'\n",
				    argv[0], optarg);
				cmd_usage("regex");
				return EXIT_USAGE;
			} else {
				placement = n;
			}
			break;
		case 'd':
			if (!parse_int(optarg, &depth)) {
				fprintf(stderr, "%s: --depth needs an integer, "
				    "not '%s'\n", argv[0], optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_PROMPT:
			call |= REGEX_PROMPT;
			break;
		case OPT_MARKDOWN:
			call |= REGEX_MARKDOWN;
			break;
		case OPT_EDIT:
			call |= REGEX_EDIT;
			break;
		case 'h':
			fputs(cmd_regex_help, stdout);
			return EXIT_OK;
		default:
			cmd_usage("regex");
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		cmd_usage("regex");
		return EXIT_USAGE;
	}
	run_init(&run);
	run.diag.color = emit_color(STDERR_FILENO, NULL);
	regex_set_init(&set);
	for (i = optind; i < argc; i++)
		if (!add_file(&run, &set, argv[i]))
			ok = false;
	if (ok && (in = run_read(&run, "-", NULL, span_make(0, 0))) != NULL &&
	    regex_apply(&run, &set, (enum regex_placement)placement, call,
	    depth, in->text, in->len, &out, NULL))
		fwrite(out.data ? out.data : "", 1, out.len, stdout);
	buf_free(&out);
	regex_set_free(&set);
	i = diag_status(&run);
	run_free(&run);
	return i;
}
