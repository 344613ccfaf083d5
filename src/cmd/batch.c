/*
 * strata batch: one request per JSON Lines input line, for evaluations
 * and dataset generation.  The profile and its files are loaded once
 * (assemble_load(), assemble_prime()); each line is then built in a
 * scratch arena that is cleared after it, and the sources it added are
 * dropped, so memory stays flat however many lines there are.  Output is
 * written line by line, in input order.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/arena.h"
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
    "\"vars\": {NAME: VALUE}, \"inject\": [\"KEY[@ATTR=V...]=TEXT\", ...]},\n"
    "all optional but user; a missing id is line-N, N the line number\n"
    "(a given id of that form must be its own line's).  Each line builds\n"
    "as strata build builds it.  One output line each.\n"
    "\n"
    "  -f, --format FORMAT        openai-batch (default) | anthropic-batch |\n"
    "                             openai | anthropic | gemini | messages |\n"
    "                             json\n"
    "  -s, --set KEY=VALUE        override a profile key (dotted path)\n"
    "  -v, --var NAME=VALUE       a template variable for every line\n"
    "      --id-prefix TEXT       put TEXT before every custom_id\n"
    "      --shard K/N            build only lines K, K+N, K+2N, ... (1-based)\n"
    "  -o, --output PREFIX        write PREFIX-001.jsonl, PREFIX-002.jsonl, ...,\n"
    "                             each within the provider's batch limits\n"
    "      --split-requests N     at most N requests per file (with -o)\n"
    "      --split-bytes SIZE     at most SIZE bytes per file (with -o; K, M,\n"
    "                             G: powers of 1024, KB, MB, GB: of 1000)\n"
    "      --strict               stop at the first bad line\n"
    "      --allow-history-files DIR\n"
    "                             let history parts name files inside DIR\n"
    "      --progress, --no-progress\n"
    "                             a progress line on stderr (lines, rate,\n"
    "                             errors), or none; by default there is one\n"
    "                             when stderr is a terminal\n"
    "  -h, --help                 show this help\n";

/* The providers' documented limits on one batch: OpenAI Batch API input
 * files hold at most 50,000 requests and 200 MB; an Anthropic Message
 * Batch at most 100,000 requests and 256 MB.  Bytes are counted in
 * powers of 1000, the smaller reading of "MB". */
#define OPENAI_BATCH_REQUESTS 50000
#define OPENAI_BATCH_BYTES 200000000ull
#define ANTHROPIC_BATCH_REQUESTS 100000
#define ANTHROPIC_BATCH_BYTES 256000000ull

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
	/* custom_id: the prefix, and every id of the run (keys in idarena,
	 * values the line number). */
	const char *id_prefix;
	struct arena idarena;
	struct map ids;
	unsigned long shard_k, shard_n; /* 0/0: every line */
	/* -o: the files, each within max_requests and max_bytes (0: no
	 * limit); without -o the limits only warn. */
	const char *outprefix;
	FILE *outf;
	char *part, *final;             /* the file being written */
	unsigned files;
	uint64_t max_requests, max_bytes, file_requests, file_bytes;
	uint64_t all_requests, all_bytes;
	bool warned;
	const struct source *linesrc;   /* the line being built */
	const char *lineid;             /* and its id */
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
    const char **id, struct span *idspan)
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
	*idspan = n ? n->span : doc->span;
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

/* Is id a custom_id the Anthropic Message Batches API takes:
 * ^[a-zA-Z0-9_-]{1,64}$ */
static bool
anthropic_id(const char *id)
{
	size_t n = strlen(id), i;

	if (n < 1 || n > 64)
		return false;
	for (i = 0; i < n; i++)
		if (!((id[i] >= 'a' && id[i] <= 'z') ||
		    (id[i] >= 'A' && id[i] <= 'Z') ||
		    (id[i] >= '0' && id[i] <= '9') || id[i] == '_' ||
		    id[i] == '-'))
			return false;
	return true;
}

/* Is id (as the line gave it) line-N for an N other than lineno?  Only
 * line N may carry id line-N, the one strata gives it without one: so a
 * given id never equals another line's made one, in any shard, though
 * each shard sees only its own lines. */
static bool
line_form(const char *id, size_t lineno)
{
	const char *p = id + 5;
	size_t n = 0;

	if (strncmp(id, "line-", 5) != 0 || *p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > ((size_t)-1 - 9) / 10)
			return true;    /* more than any line number */
		n = n * 10 + (size_t)(*p - '0');
	}
	return !*p && (n != lineno || id[5] == '0');
}

/* The line's custom_id, --id-prefix and all, checked against the batch
 * API's rules: never empty, unique within the run, and for Anthropic
 * ^[a-zA-Z0-9_-]{1,64}$; a given one (given) not the form of another
 * line's made id.  *id becomes the full id. */
static bool
custom_id(struct batch *b, const struct source *src, struct span at,
    size_t lineno, bool given, const char **id)
{
	struct run *run = b->run;
	const char *given_id = *id;
	const char *full = b->id_prefix ? arena_printf(&run->arena, "%s%s",
	    b->id_prefix, *id) : *id;
	size_t len = strlen(full);
	struct map_item *it;
	bool added;

	*id = full;
	if (b->wrap == WRAP_NONE)
		return true;    /* bare bodies carry no id */
	if (given && line_form(given_id, lineno)) {
		diag_error(run, src, at, MSG_BATCH_ID_LINE,
		    diag_shown(run, given_id, strlen(given_id)), lineno);
		return false;
	}
	if (len == 0) {
		diag_error(run, src, at, MSG_BATCH_ID_EMPTY);
		return false;
	}
	if (b->wrap == WRAP_ANTHROPIC && !anthropic_id(full)) {
		diag_error(run, src, at, MSG_BATCH_ID_ANTHROPIC,
		    diag_shown(run, full, len), len);
		return false;
	}
	it = map_intern(&b->ids, full, len, &added);
	if (!added) {
		diag_error(run, src, at, MSG_BATCH_ID_TWICE,
		    diag_shown(run, full, len),
		    (size_t)(uintptr_t)it->value);
		return false;
	}
	/* The map borrows its keys: keep them past the line's arena. */
	it->key = arena_strndup(&b->idarena, full, len);
	it->value = (void *)(uintptr_t)lineno;
	return true;
}

/* Build line number lineno (text s[0..n)) into b->out; false after
 * reporting. */
static bool
one(struct batch *b, size_t lineno, const char *s, size_t n)
{
	struct run *run = b->run;
	const char *where = arena_printf(&run->arena, "%s:%zu", b->path,
	    lineno);
	const char *made = arena_printf(&run->arena, "line-%zu", lineno);
	const char *id = made;
	struct source *src = run_source_mem(run, b->path, s, n);
	struct turn t;
	struct chat chat;
	struct span idspan;

	src->line_base = lineno > 0 ? (unsigned)lineno - 1 : 0;
	memset(&t, 0, sizeof(t));
	t.where = where;
	b->linesrc = src;
	b->lineid = id;
	if (!request(b, src, &t, &id, &idspan) ||
	    !custom_id(b, src, idspan, lineno, id != made, &id) ||
	    !assemble_mem(run, b->opt, b->as, &b->prime, &t, &chat)) {
		diag_plain(run, DIAG_NOTE, MSG_BATCH_SKIPPED, where,
		    diag_shown(run, id, strlen(id)));
		return false;
	}
	b->lineid = id;
	emit_shape(run, &chat);
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

/* Close the file being written: rename the part into place. */
static bool
close_file(struct batch *b)
{
	bool ok = true;

	if (!b->outf)
		return true;
	if (fclose(b->outf) != 0 || rename(b->part, b->final) != 0) {
		diag_plain(b->run, DIAG_ERROR, MSG_CANNOT_WRITE, b->final);
		diag_system(b->run);
		remove(b->part);
		ok = false;
	}
	if (ok)
		printf("%s\n", b->final);     /* what to upload */
	b->outf = NULL;
	free(b->part);
	free(b->final);
	b->part = b->final = NULL;
	return ok;
}

static bool
open_file(struct batch *b)
{
	struct buf p = BUF_INIT;

	b->files++;
	buf_printf(&p, "%s-%03u.jsonl", b->outprefix, b->files);
	b->final = buf_detach(&p);
	buf_printf(&p, "%s.part", b->final);
	b->part = buf_detach(&p);
	b->file_requests = b->file_bytes = 0;
	if (!(b->outf = fopen(b->part, "w"))) {
		diag_plain(b->run, DIAG_ERROR, MSG_CANNOT_WRITE, b->part);
		diag_system(b->run);
		free(b->part);
		free(b->final);
		b->part = b->final = NULL;
		return false;
	}
	return true;
}

/* Write the line in b->out: to standard output, or with -o to the
 * current file, starting the next one where this line would go over a
 * limit.  False on a write error (reported), or, with *toobig set, for
 * a line bigger than a whole file may be (reported at src). */
static bool
put(struct batch *b, const struct source *src, bool *toobig)
{
	uint64_t len = b->out.len;
	FILE *f = stdout;

	*toobig = false;
	if (b->outprefix && b->max_bytes && len > b->max_bytes) {
		diag_error(b->run, src, span_make(0, 0),
		    MSG_BATCH_LINE_TOO_BIG, (unsigned long long)len,
		    (unsigned long long)b->max_bytes);
		*toobig = true;
		return false;
	}
	if (b->outprefix) {
		if (b->outf && ((b->max_requests &&
		    b->file_requests + 1 > b->max_requests) ||
		    (b->max_bytes && b->file_bytes + len > b->max_bytes)) &&
		    !close_file(b))
			return false;
		if (!b->outf && !open_file(b))
			return false;
		f = b->outf;
	}
	if (fwrite(b->out.data, 1, b->out.len, f) != b->out.len) {
		if (b->outprefix)
			diag_plain(b->run, DIAG_ERROR, MSG_CANNOT_WRITE,
			    b->part);
		diag_system(b->run);
		return false;
	}
	b->file_requests++;
	b->file_bytes += len;
	b->all_requests++;
	b->all_bytes += len;
	/* One standard output that no single batch can take. */
	if (!b->outprefix && !b->warned && b->wrap != WRAP_NONE) {
		bool openai = b->wrap == WRAP_OPENAI;
		uint64_t mr = openai ? OPENAI_BATCH_REQUESTS :
		    ANTHROPIC_BATCH_REQUESTS;
		uint64_t mb = openai ? OPENAI_BATCH_BYTES :
		    ANTHROPIC_BATCH_BYTES;
		const char *who = openai ? "OpenAI Batch API's" :
		    "Anthropic Message Batches API's";

		if (b->all_requests > mr || b->all_bytes > mb) {
			b->warned = true;
			diag_plain(b->run, DIAG_WARNING, MSG_BATCH_OVER_LIMIT,
			    (unsigned long long)(b->all_requests > mr ? mr :
			    mb), b->all_requests > mr ? "requests" : "bytes",
			    who);
		}
	}
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
	bool stop = false, toobig;

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
		/* --shard K/N: lines K, K+N, ...; made ids stay line-N of
		 * the whole input, and a given id may not take that form
		 * (line_form()), so shards never share one. */
		if (b->shard_n && (lineno - 1) % b->shard_n != b->shard_k - 1)
			continue;
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
		} else if (!put(b, b->linesrc, &toobig)) {
			if (toobig) {
				diag_plain(run, DIAG_NOTE, MSG_BATCH_SKIPPED,
				    b->linesrc->path, diag_shown(run,
				    b->lineid, strlen(b->lineid)));
				b->bad++;
				stop = b->strict;
			} else {
				stop = true;
			}
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
	if (!close_file(b) && !stop)
		stop = true;
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

/* --shard K/N, 1 <= K <= N. */
static bool
shard(const char *arg, unsigned long *k, unsigned long *n)
{
	char *end;

	errno = 0;
	*k = strtoul(arg, &end, 10);
	if (!errno && end != arg && *end == '/' && end[1] >= '0' &&
	    end[1] <= '9' && arg[0] >= '0' && arg[0] <= '9') {
		const char *p = end + 1;

		*n = strtoul(p, &end, 10);
		if (!errno && !*end && *k >= 1 && *n >= 1 && *k <= *n &&
		    *n <= 1000000)
			return true;
	}
	fprintf(stderr, "%s: batch: --shard takes K/N, 1 <= K <= N (shard K "
	    "of N), not '%s'\n", progname, arg);
	*k = *n = 0;
	return false;
}

/* A count, or with bytes a size with an optional K, M, G (powers of
 * 1024) or KB, MB, GB (powers of 1000). */
static bool
size_arg(const char *name, const char *arg, bool bytes, uint64_t *out)
{
	static const struct { const char *suffix; uint64_t mul; } units[] = {
		{ "", 1 }, { "K", 1024 }, { "M", 1024 * 1024 },
		{ "G", 1024 * 1024 * 1024 }, { "KB", 1000 },
		{ "MB", 1000 * 1000 }, { "GB", 1000 * 1000 * 1000 },
	};
	unsigned long long v;
	char *end;
	size_t i;

	errno = 0;
	v = arg[0] >= '0' && arg[0] <= '9' ? strtoull(arg, &end, 10) : 0;
	if (!errno && v > 0 && end != arg)
		for (i = 0; i < (bytes ? LEN(units) : 1); i++)
			if (strcmp(end, units[i].suffix) == 0 &&
			    v <= UINT64_MAX / units[i].mul) {
				*out = v * units[i].mul;
				return true;
			}
	fprintf(stderr, "%s: batch: %s takes %s, not '%s'\n", progname, name,
	    bytes ? "a size above 0 (bytes, or with K, M, G, KB, MB or GB)" :
	    "a number above 0", arg);
	return false;
}

/* What one file may hold: the provider's limits, lowered by
 * --split-requests and --split-bytes; above them is refused, since the
 * API would refuse the file. */
static bool
limits(struct batch *b, uint64_t requests, uint64_t bytes)
{
	uint64_t mr = b->wrap == WRAP_OPENAI ? OPENAI_BATCH_REQUESTS :
	    b->wrap == WRAP_ANTHROPIC ? ANTHROPIC_BATCH_REQUESTS : 0;
	uint64_t mb = b->wrap == WRAP_OPENAI ? OPENAI_BATCH_BYTES :
	    b->wrap == WRAP_ANTHROPIC ? ANTHROPIC_BATCH_BYTES : 0;
	const char *who = b->wrap == WRAP_OPENAI ? "the OpenAI Batch API" :
	    "the Anthropic Message Batches API";

	if (mr && requests > mr) {
		fprintf(stderr, "%s: batch: --split-requests %llu is over the "
		    "%llu requests %s takes in one batch\n", progname,
		    (unsigned long long)requests, (unsigned long long)mr,
		    who);
		return false;
	}
	if (mb && bytes > mb) {
		fprintf(stderr, "%s: batch: --split-bytes %llu is over the "
		    "%llu bytes %s takes in one batch\n", progname,
		    (unsigned long long)bytes, (unsigned long long)mb, who);
		return false;
	}
	b->max_requests = requests ? requests : mr;
	b->max_bytes = bytes ? bytes : mb;
	return true;
}

/* The options (cmd.h: completions and docs are made from them). */
static const struct option batch_longopts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "set", required_argument, NULL, 's' },
	{ "var", required_argument, NULL, 'v' },
	{ "strict", no_argument, NULL, 'S' },
	{ "allow-history-files", required_argument, NULL, 'A' },
	{ "progress", no_argument, NULL, 'P' },
	{ "no-progress", no_argument, NULL, 'N' },
	{ "id-prefix", required_argument, NULL, 'I' },
	{ "shard", required_argument, NULL, 'K' },
	{ "output", required_argument, NULL, 'o' },
	{ "split-requests", required_argument, NULL, 'R' },
	{ "split-bytes", required_argument, NULL, 'B' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};
const struct cmd_opts cmd_batch_opts = { "f:s:v:o:h", batch_longopts };

int
cmd_batch(int argc, char **argv)
{
	struct options opt;
	struct batch b;
	size_t cap[2] = { 0 };
	enum out_format f;
	const char *format = "openai-batch";
	uint64_t split_requests = 0, split_bytes = 0;
	int ch, status = EXIT_USAGE;

	memset(&opt, 0, sizeof(opt));
	memset(&b, 0, sizeof(b));
	map_init(&b.ids, NULL);
	arena_init(&b.idarena);
	/* The progress line goes to a terminal only, never into a log. */
	b.progress = isatty(STDERR_FILENO);
	while ((ch = getopt_long(argc, argv, cmd_batch_opts.shortopts,
	    cmd_batch_opts.longopts,
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
		case 'N':
			b.progress = false;
			break;
		case 'I':
			b.id_prefix = optarg;
			break;
		case 'K':
			if (!shard(optarg, &b.shard_k, &b.shard_n))
				goto out;
			break;
		case 'o':
			if (!*optarg) {
				fprintf(stderr, "%s: batch: -o takes a file "
				    "name prefix\n", progname);
				goto out;
			}
			b.outprefix = optarg;
			break;
		case 'R':
			if (!size_arg("--split-requests", optarg, false,
			    &split_requests))
				goto out;
			break;
		case 'B':
			if (!size_arg("--split-bytes", optarg, true,
			    &split_bytes))
				goto out;
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
	if ((split_requests || split_bytes) && !b.outprefix) {
		fprintf(stderr, "%s: batch: --split-requests and --split-bytes "
		    "write numbered files: give -o PREFIX\n", progname);
		goto out;
	}
	if (!limits(&b, split_requests, split_bytes))
		goto out;
	if (optind >= argc || argc - optind > 2)
		goto usage;
	opt.profile = cmd_find_profile(argv[optind]);
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
	map_free(&b.ids);
	arena_free(&b.idarena);
	free(opt.sets);
	free(opt.vars);
	return status;
}
