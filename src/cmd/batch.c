/*
 * strata batch: one request per JSON Lines input line, for evaluations
 * and dataset generation.  The profile and its files are loaded once
 * (assemble_load(), assemble_prime()); each line is then built in a
 * scratch arena that is cleared after it, and the sources it added are
 * dropped, so memory stays flat however many lines there are.  Output is
 * written line by line, in input order.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/map.h"
#include "base/util.h"
#include "base/vec.h"
#include "cmd/cmd.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "emit/emit.h"
#include "pipeline/turn.h"

const char cmd_batch_help[] =
    "usage: strata batch PROFILE [FILE|-] [options]\n"
    "\n"
    "Build one request per JSON Lines input line (no FILE, or -: standard\n"
    "input): {\"id\", \"user\", \"history\", \"context\": {NAME: TEXT},\n"
    "\"vars\": {NAME: VALUE}, \"inject\": [\"KEY=TEXT\", ...]}, all optional\n"
    "but user; a missing id is the line number.  One output line each.\n"
    "\n"
    "  -f, --format FORMAT        openai-batch (default) | anthropic-batch |\n"
    "                             openai | anthropic | gemini | messages |\n"
    "                             json\n"
    "  -s, --set KEY=VALUE        override a profile key (dotted path)\n"
    "  -v, --var NAME=VALUE       a template variable for every line\n"
    "      --strict               stop at the first bad line\n"
    "      --allow-history-files DIR\n"
    "                             let history parts name files inside DIR\n"
    "      --progress             a progress line on stderr (a terminal)\n"
    "  -h, --help                 show this help\n";

enum wrap { WRAP_NONE, WRAP_OPENAI, WRAP_ANTHROPIC };

struct batch {
	struct run *run;
	const struct options *opt;
	const struct assembly *as;
	struct turn_prime prime;
	const char *path;               /* for messages */
	enum wrap wrap;
	bool strict, progress;
	size_t lines, bad;
	struct buf body, out;
	VEC(struct turn_kv) ctxs, vars, injs;
};

/* The pretty JSON the emitters print, on one line: whitespace outside
 * strings dropped (inside them it is escaped already). */
static void
compact(struct buf *out, const char *s, size_t n)
{
	size_t i, start = 0;
	bool str = false;

	for (i = 0; i < n; i++) {
		char ch = s[i];

		if (str) {
			if (ch == '\\')
				i++;
			else if (ch == '"')
				str = false;
		} else if (ch == '"') {
			str = true;
		} else if (ch == ' ' || ch == '\n' || ch == '\t' ||
		    ch == '\r') {
			buf_put(out, s + start, i - start);
			start = i + 1;
		}
	}
	buf_put(out, s + start, n - start);
}

static bool
pairs(struct batch *b, const struct source *src, const struct node *t,
    const char *key, bool scalars, struct turn_kv **v, size_t *n,
    size_t *cap)
{
	size_t i;
	bool ok = true;

	*n = 0;
	if (!t)
		return true;
	if (t->kind != NODE_TABLE) {
		diag_error(b->run, src, t->span, MSG_BATCH_TYPE, key,
		    "an object", tree_kind_article(t->kind));
		return false;
	}
	for (i = 0; i < t->u.table.n; i++) {
		const struct member *m = &t->u.table.items[i];
		const struct node *val = m->value;
		struct turn_kv kv;

		kv.name = m->key;
		kv.namelen = m->keylen;
		if (val->kind == NODE_STRING) {
			kv.text = val->u.str.s;
			kv.textlen = val->u.str.len;
		} else if (scalars && (val->kind == NODE_INT ||
		    val->kind == NODE_FLOAT || val->kind == NODE_BOOL)) {
			kv.text = src->text + val->span.off;
			kv.textlen = val->span.len;
		} else {
			diag_error(b->run, src, val->span, MSG_BATCH_TYPE, key,
			    scalars ? "a string, number or boolean" :
			    "a string", tree_kind_article(val->kind));
			ok = false;
			continue;
		}
		*v = vec_grow(*v, cap, *n + 1, sizeof(**v));
		(*v)[(*n)++] = kv;
	}
	return ok;
}

static bool
strings(struct batch *b, const struct source *src, const struct node *a,
    struct turn_kv **v, size_t *n, size_t *cap)
{
	size_t i;
	bool ok = true;

	*n = 0;
	if (!a)
		return true;
	if (a->kind != NODE_ARRAY) {
		diag_error(b->run, src, a->span, MSG_BATCH_TYPE, "inject",
		    "an array", tree_kind_article(a->kind));
		return false;
	}
	for (i = 0; i < a->u.array.n; i++) {
		const struct node *s = a->u.array.items[i];
		struct turn_kv kv = { NULL, NULL, 0, 0 };

		if (s->kind != NODE_STRING) {
			diag_error(b->run, src, s->span, MSG_BATCH_TYPE,
			    "inject", "a string KEY=TEXT",
			    tree_kind_article(s->kind));
			ok = false;
			continue;
		}
		kv.text = s->u.str.s;
		kv.textlen = s->u.str.len;
		*v = vec_grow(*v, cap, *n + 1, sizeof(**v));
		(*v)[(*n)++] = kv;
	}
	return ok;
}

/* Read line src into *t and its id into b->out's custom id; false after
 * reporting when the line is not a request. */
static bool
request(struct batch *b, const struct source *src, struct turn *t,
    const char **id)
{
	static const char *const keys[] = { "id", "user", "history",
		"context", "vars", "inject", NULL };
	struct run *run = b->run;
	struct node *doc, *n;
	size_t i;
	bool ok = true;

	if (!json_parse_range(run, src, 0, src->len, &doc))
		return false;
	if (doc->kind != NODE_TABLE) {
		diag_error(run, src, doc->span, MSG_BATCH_NOT_OBJECT,
		    tree_kind_article(doc->kind));
		return false;
	}
	for (i = 0; i < doc->u.table.n; i++) {
		const struct member *m = &doc->u.table.items[i];

		if (names_index(keys, m->key, m->keylen) < 0) {
			diag_error(run, src, m->keyspan, MSG_BATCH_KEY,
			    diag_shown(run, m->key, m->keylen));
			ok = false;
		}
	}
	n = tree_get(doc, "id");
	if (n && n->kind == NODE_STRING)
		*id = n->u.str.s;
	else if (n && n->kind == NODE_INT)
		*id = arena_strndup(&run->arena, src->text + n->span.off,
		    n->span.len);
	else if (n) {
		diag_error(run, src, n->span, MSG_BATCH_TYPE, "id",
		    "a string or an integer", tree_kind_article(n->kind));
		ok = false;
	}
	n = tree_get(doc, "user");
	if (!n) {
		diag_error(run, src, doc->span, MSG_BATCH_NO_USER);
		ok = false;
	} else if (n->kind != NODE_STRING) {
		diag_error(run, src, n->span, MSG_BATCH_TYPE, "user",
		    "a string", tree_kind_article(n->kind));
		ok = false;
	} else {
		t->user = n->u.str.s;
		t->userlen = n->u.str.len;
	}
	n = tree_get(doc, "history");
	if (n && n->kind == NODE_ARRAY) {
		t->history = src->text + n->span.off;
		t->historylen = n->span.len;
	} else if (n) {
		diag_error(run, src, n->span, MSG_BATCH_TYPE, "history",
		    "an array", tree_kind_article(n->kind));
		ok = false;
	}
	ok = pairs(b, src, tree_get(doc, "context"), "context", false,
	    &b->ctxs.v, &b->ctxs.n, &b->ctxs.cap) && ok;
	ok = pairs(b, src, tree_get(doc, "vars"), "vars", true, &b->vars.v,
	    &b->vars.n, &b->vars.cap) && ok;
	ok = strings(b, src, tree_get(doc, "inject"), &b->injs.v, &b->injs.n,
	    &b->injs.cap) && ok;
	t->contexts = b->ctxs.v;
	t->ncontexts = b->ctxs.n;
	t->vars = b->vars.v;
	t->nvars = b->vars.n;
	t->injects = b->injs.v;
	t->ninjects = b->injs.n;
	return ok;
}

/* Build line number lineno (text s[0..n)) into b->out; false after
 * reporting. */
static bool
one(struct batch *b, size_t lineno, const char *s, size_t n)
{
	struct run *run = b->run;
	const char *where = arena_printf(&run->arena, "%s:%zu", b->path,
	    lineno);
	const char *id = arena_printf(&run->arena, "%zu", lineno);
	const struct source *src = run_source_mem(run, where, s, n);
	struct turn t;
	struct chat chat;

	memset(&t, 0, sizeof(t));
	t.where = where;
	if (!request(b, src, &t, &id) ||
	    !assemble_mem(run, b->opt, b->as, &b->prime, &t, &chat)) {
		diag_plain(run, DIAG_NOTE, MSG_BATCH_SKIPPED, where,
		    diag_shown(run, id, strlen(id)));
		return false;
	}
	buf_reset(&b->body);
	if (!emit_for(chat.format)(run, &chat, &b->body)) {
		diag_plain(run, DIAG_NOTE, MSG_BATCH_SKIPPED, where,
		    diag_shown(run, id, strlen(id)));
		return false;
	}
	if (b->wrap != WRAP_NONE) {
		buf_puts(&b->out, "{\"custom_id\":");
		json_write_string(&b->out, id, strlen(id));
		buf_puts(&b->out, b->wrap == WRAP_OPENAI ?
		    ",\"method\":\"POST\",\"url\":\"/v1/chat/completions\","
		    "\"body\":" : ",\"params\":");
	}
	compact(&b->out, b->body.data, b->body.len);
	if (b->wrap != WRAP_NONE)
		buf_putc(&b->out, '}');
	buf_putc(&b->out, '\n');
	return true;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
progress(const struct batch *b, double start, bool last)
{
	double t = now() - start;

	fprintf(stderr, "\r%s: %zu lines, %zu errors, %.0f lines/s%s",
	    progname, b->lines, b->bad, t > 0 ? (double)b->lines / t : 0.0,
	    last ? "\n" : "");
}

static void
lines(struct batch *b, FILE *in)
{
	struct run *run = b->run;
	struct arena keep, scratch;
	size_t nsrc = run->sources.n, lineno = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	double start = now(), shown = start;
	bool stop = false;

	arena_init(&scratch);
	while (!stop && (len = getline(&line, &cap, in)) >= 0) {
		size_t n = (size_t)len;
		unsigned errors = run->diag.errors;
		unsigned warnings = run->diag.warnings;

		lineno++;
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			n--;
		if (strspn(line, " \t") == n)
			continue;       /* a blank line is no request */
		b->lines++;
		keep = run->arena;
		run->arena = scratch;
		buf_reset(&b->out);
		/* Each line's messages are capped on their own, so every bad
		 * line is reported however many there were before. */
		run->diag.errors = run->diag.warnings = 0;
		run->diag.capped = false;
		if (!one(b, lineno, line, n) || run->diag.errors != 0) {
			b->bad++;
			stop = b->strict;
		} else if (fwrite(b->out.data, 1, b->out.len, stdout) !=
		    b->out.len) {
			diag_system(run);
			stop = true;
		}
		run->diag.errors += errors;
		run->diag.warnings += warnings;
		arena_clear(&run->arena);
		scratch = run->arena;
		run->arena = keep;
		sources_truncate(&run->sources, nsrc);
		if (b->progress && (b->lines & 1023) == 0 &&
		    now() - shown > 0.25) {
			shown = now();
			progress(b, start, false);
		}
	}
	if (ferror(in)) {
		diag_plain(run, DIAG_ERROR, MSG_CANNOT_READ, b->path);
		diag_system(run);
	}
	if (b->progress)
		progress(b, start, true);
	free(line);
	arena_free(&scratch);
}

static int
batch(struct batch *b, const char *file)
{
	struct run run;
	struct assembly as;
	struct map cache;
	FILE *in = stdin;
	int status;

	run_init(&run);
	run.diag.color = emit_color(STDERR_FILENO, NULL);
	map_init(&cache, NULL);
	run.readcache = &cache;
	b->run = &run;
	b->as = &as;
	b->path = file && strcmp(file, "-") ? file : "<stdin>";
	if (file && strcmp(file, "-") && !(in = fopen(file, "r"))) {
		diag_plain(&run, DIAG_ERROR, MSG_CANNOT_READ, file);
		diag_system(&run);
	} else if (assemble_load(&run, b->opt, &as) &&
	    assemble_prime(&run, b->opt, &as, &b->prime)) {
		lines(b, in);
	}
	if (in && in != stdin)
		fclose(in);
	status = diag_status(&run);
	if (status == EXIT_OK && b->bad)
		status = EXIT_INPUT;
	map_free(&cache);
	run_free(&run);
	return status;
}

int
cmd_batch(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "set", required_argument, NULL, 's' },
		{ "var", required_argument, NULL, 'v' },
		{ "strict", no_argument, NULL, 'S' },
		{ "allow-history-files", required_argument, NULL, 'A' },
		{ "progress", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct options opt;
	struct batch b;
	size_t cap[2] = { 0 };
	enum out_format f;
	const char *format = "openai-batch";
	int ch, status = EXIT_USAGE;

	memset(&opt, 0, sizeof(opt));
	memset(&b, 0, sizeof(b));
	while ((ch = getopt_long(argc, argv, "f:s:v:h", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'f':
			format = optarg;
			break;
		case 's':
			cmd_push(&opt.sets, &opt.nsets, &cap[0], "--set",
			    optarg);
			break;
		case 'v':
			cmd_push(&opt.vars, &opt.nvars, &cap[1], "--var",
			    optarg);
			break;
		case 'S':
			b.strict = true;
			break;
		case 'A':
			opt.allow_history_files = optarg;
			break;
		case 'P':
			b.progress = isatty(STDERR_FILENO);
			break;
		case 'h':
			fputs(cmd_batch_help, stdout);
			status = EXIT_OK;
			goto out;
		default:
			goto usage;
		}
	}
	if (strcmp(format, "openai-batch") == 0) {
		b.wrap = WRAP_OPENAI;
		opt.format = "openai";
	} else if (strcmp(format, "anthropic-batch") == 0) {
		b.wrap = WRAP_ANTHROPIC;
		opt.format = "anthropic";
	} else if (names_format_parse(format, &f) && f != FORMAT_TEXT) {
		opt.format = format;
	} else {
		fprintf(stderr, "%s: unknown batch format '%s' (expected "
		    "openai-batch, anthropic-batch or a JSON build format)\n",
		    progname, format);
		goto out;
	}
	if (optind >= argc || argc - optind > 2)
		goto usage;
	opt.profile = argv[optind];
	b.opt = &opt;
	status = batch(&b, optind + 1 < argc ? argv[optind + 1] : NULL);
	goto out;
usage:
	cmd_usage("batch");
out:
	buf_free(&b.body);
	buf_free(&b.out);
	free(b.ctxs.v);
	free(b.vars.v);
	free(b.injs.v);
	free(opt.sets);
	free(opt.vars);
	return status;
}
