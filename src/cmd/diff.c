/*
 * strata diff: what changed between two build results, by layer
 * (review/diff.h).  OLD and NEW are files saved with -f json, or with
 * --profiles two profiles built here with the same inputs.  The exit
 * status is diff(1)'s: 0 same, 1 different, 2 trouble.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "emit/emit.h"
#include "pipeline/assemble.h"
#include "review/diff.h"

const char cmd_diff_help[] =
    "usage: strata diff [options] OLD NEW\n"
    "       strata diff [options] --profiles A B [build options]\n"
    "\n"
    "Compare two build results saved with 'strata build -f json' (- reads\n"
    "one from stdin), or build profiles A and B with the same inputs:\n"
    "entries, tools, parameters, message sizes, and where the prompt\n"
    "cache prefix ends.  Exit status 0: same, 1: different, 2: trouble.\n"
    "\n"
    "      --stat                 one line per changed entry, tool, param\n"
    "      --json                 the changes as JSON\n"
    "      --profiles             OLD and NEW are profiles to build\n"
    "  -u, -H, -c, -v, -s, -i     build options, as for strata build: --user,\n"
    "                             --history, --context, --var, --set, --inject\n"
    "  -f, --format FORMAT        the provider whose cache order counts;\n"
    "                             html: the changes as an inspector page\n"
    "  -h, --help                 show this help\n";

enum { DIFF_TROUBLE = 2 };

/* Build profile path with opt into a -f json document. */
static struct node *
built(struct run *run, struct options *opt, const char *path)
{
	struct chat chat;
	struct buf b = BUF_INIT;
	struct node *doc = NULL;
	struct source *src;

	opt->profile = path;
	if (!assemble(run, opt, &chat, NULL))
		return NULL;
	emit_shape(run, &chat);
	if (emit_json(run, &chat, &b) && run->diag.errors == 0) {
		src = run_source_mem(run, path, b.data, b.len);
		if (!json_parse(run, src, &doc))
			doc = NULL;
	}
	buf_free(&b);
	return doc;
}

static struct node *
saved(struct run *run, const char *path)
{
	struct source *src = run_read(run, path, NULL, span_make(0, 0));
	struct node *doc;

	return src && json_parse(run, src, &doc) ? doc : NULL;
}

/* The provider named with -f counts for the cache order. */
static void
provider(struct run *run, struct node *doc, const char *format)
{
	if (doc && format)
		tree_set(&run->arena, doc, "provider", strlen("provider"), 0,
		    span_make(0, 0), tree_str(&run->arena, format));
}

static int
compare(struct options *opt, bool profiles, const char *a, const char *b,
    int mode)
{
	struct run run;
	struct review r;
	struct buf out = BUF_INIT;
	struct node *old, *new;
	const char *format = opt->format;
	int status = DIFF_TROUBLE;

	run_init(&run);
	run.diag.color = emit_color(STDERR_FILENO, NULL);
	if (profiles) {
		opt->format = NULL;
		old = built(&run, opt, a);
		new = old ? built(&run, opt, b) : NULL;
	} else {
		old = saved(&run, a);
		new = old ? saved(&run, b) : NULL;
	}
	provider(&run, old, format);
	provider(&run, new, format);
	if (old && new && review_compare(&run, old, new, &r)) {
		if (mode == 'j')
			review_json(&run, &r, &out);
		else if (mode == 'h')
			review_html(&run, &r, old, new, a, b, &out);
		else if (mode == 's')
			review_stat(&run, &r, emit_color(STDOUT_FILENO, NULL),
			    &out);
		else
			review_text(&run, &r, emit_color(STDOUT_FILENO, NULL),
			    &out);
		status = review_differ(&r) ? 1 : 0;
		if ((mode == 'j' || mode == 'h' || status) && out.len &&
		    fwrite(out.data, 1, out.len, stdout) != out.len)
			status = DIFF_TROUBLE;
	}
	buf_free(&out);
	run_free(&run);
	return status;
}

/* --profiles builds twice: standard input cannot serve both builds. */
static bool
stdin_used(const struct options *opt)
{
	size_t i;

	if ((opt->user && strcmp(opt->user, "-") == 0) ||
	    (opt->history && strcmp(opt->history, "-") == 0))
		return true;
	for (i = 0; i < opt->ncontexts; i++) {
		const char *eq = strchr(opt->contexts[i].arg, '=');

		if (eq && strcmp(eq + 1, "-") == 0)
			return true;
	}
	return false;
}

/* The options (cmd.h: completions and docs are made from them). */
static const struct option diff_longopts[] = {
	{ "stat", no_argument, NULL, 's' + 256 },
	{ "json", no_argument, NULL, 'j' + 256 },
	{ "profiles", no_argument, NULL, 'p' + 256 },
	{ "user", required_argument, NULL, 'u' },
	{ "history", required_argument, NULL, 'H' },
	{ "context", required_argument, NULL, 'c' },
	{ "var", required_argument, NULL, 'v' },
	{ "set", required_argument, NULL, 's' },
	{ "inject", required_argument, NULL, 'i' },
	{ "format", required_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};
const struct cmd_opts cmd_diff_opts = { "u:H:c:v:s:i:f:h", diff_longopts };

int
cmd_diff(int argc, char **argv)
{
	struct options opt;
	size_t cap[4] = { 0 };
	enum out_format f;
	bool profiles = false, building = false, html = false;
	int ch, mode = 't', status = DIFF_TROUBLE;

	memset(&opt, 0, sizeof(opt));
	while ((ch = getopt_long(argc, argv, cmd_diff_opts.shortopts,
	    cmd_diff_opts.longopts,
	    NULL)) != -1) {
		/* ch > 255 is a long option of its own: never a build option. */
		building = building || (ch < 256 && strchr("uHcvsi", ch));
		switch (ch) {
		case 's' + 256:
		case 'j' + 256:
			mode = ch - 256;
			break;
		case 'p' + 256:
			profiles = true;
			break;
		case 'u':
			opt.user = optarg;
			break;
		case 'H':
			opt.history = optarg;
			break;
		case 'c':
			cmd_push(&opt.contexts, &opt.ncontexts, &cap[0],
			    "--context", optarg);
			break;
		case 'v':
			cmd_push(&opt.vars, &opt.nvars, &cap[1], "--var",
			    optarg);
			break;
		case 's':
			cmd_push(&opt.sets, &opt.nsets, &cap[2], "--set",
			    optarg);
			break;
		case 'i':
			cmd_push(&opt.injects, &opt.ninjects, &cap[3],
			    "--inject", optarg);
			break;
		case 'f':
			/* the inspector page, not a provider */
			if (strcmp(optarg, "html") == 0) {
				html = true;
				break;
			}
			if (!names_format_parse(optarg, &f)) {
				fprintf(stderr, "%s: unknown format '%s'\n",
				    progname, optarg);
				goto out;
			}
			opt.format = optarg;
			break;
		case 'h':
			fputs(cmd_diff_help, stdout);
			status = EXIT_OK;
			goto out;
		default:
			goto usage;
		}
	}
	if (html && mode != 't') {
		fprintf(stderr, "%s: diff: -f html is a page of its own; it "
		    "goes with neither --stat nor --json\n", progname);
		goto usage;
	}
	if (argc - optind != 2 || (building && !profiles))
		goto usage;
	if (html)
		mode = 'h';
	if (!profiles && strcmp(argv[optind], "-") == 0 &&
	    strcmp(argv[optind + 1], "-") == 0) {
		fprintf(stderr, "%s: diff: only one of OLD and NEW can be -\n",
		    progname);
		goto out;
	}
	if (profiles && stdin_used(&opt)) {
		fprintf(stderr, "%s: diff --profiles: builds twice, so no "
		    "input can be - (standard input)\n", progname);
		goto out;
	}
	status = compare(&opt, profiles, argv[optind], argv[optind + 1],
	    mode);
	goto out;
usage:
	cmd_usage("diff");
out:
	free(opt.contexts);
	free(opt.vars);
	free(opt.sets);
	free(opt.injects);
	return status;
}
