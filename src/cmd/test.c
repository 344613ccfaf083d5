/*
 * strata test: golden prompt tests for a project.  A case is a directory
 * holding case.toml, or a file NAME.toml, in the suite directory; it
 * names a profile and the build options, and an expected build result
 * (-f json) and/or assertions.  Each case is built in a run of its own
 * (with -j, in a child process of its own); a failure prints the layer
 * diff of strata diff (review/diff.h).  Results are printed in case
 * order whatever -j, as lines, TAP, and optionally JUnit XML.
 */
#include <dirent.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/util.h"
#include "base/vec.h"
#include "cmd/cmd.h"
#include "data/json.h"
#include "data/load.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "emit/emit.h"
#include "pipeline/assemble.h"
#include "profile/paths.h"
#include "review/diff.h"

const char cmd_test_help[] =
    "usage: strata test [DIR] [options]\n"
    "\n"
    "Build every case of a prompt test suite (DIR, else strata-tests/,\n"
    "else tests/prompts/) and compare: a case is DIR/NAME/case.toml or\n"
    "DIR/NAME.toml.  Prints a line per case and the layer diff of each\n"
    "failure (naming the file and line to look at), then 'N passed, M\n"
    "failed'; exit status 1 on any failure, 2 when no case is selected.\n"
    "\n"
    "      --update               rewrite the expected files\n"
    "      --filter PATTERN       only the cases whose name matches (glob)\n"
    "  -j, --jobs N               run N cases at a time\n"
    "      --junit FILE           also write JUnit XML to FILE\n"
    "      --tap                  print TAP instead of lines\n"
    "  -h, --help                 show this help\n";

struct tcase {
	char *name;             /* on the heap */
	char *file;             /* its case.toml or NAME.toml */
	char *dir;              /* where its paths are relative to */
	char *expect_default;   /* the expected file when none is named */
};

/* Why a case failed: the JUnit failure message. */
enum why { WHY_NONE, WHY_BUILD, WHY_DIFFERS, WHY_ASSERT };

struct result {
	bool ok, updated;
	enum why why;
	struct buf report;      /* why it failed, or what was updated */
};

struct suite {
	VEC(struct tcase) cases;
	bool update;
};

static int
by_name(const void *a, const void *b)
{
	return strcmp(((const struct tcase *)a)->name,
	    ((const struct tcase *)b)->name);
}

static char *
join(const char *a, const char *b)
{
	struct buf p = BUF_INIT;

	buf_printf(&p, "%s/%s", a, b);
	return buf_detach(&p);
}

static bool
is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The cases of dir, by name, those matching filter. */
static bool
discover(struct suite *s, const char *dir, const char *filter)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d) {
		fprintf(stderr, "%s: cannot read %s\n", progname, dir);
		return false;
	}
	while ((de = readdir(d))) {
		struct tcase c;
		size_t len = strlen(de->d_name);
		char *path;

		if (de->d_name[0] == '.')
			continue;
		path = join(dir, de->d_name);
		memset(&c, 0, sizeof(c));
		if (len > 5 && strcmp(de->d_name + len - 5, ".toml") == 0 &&
		    is_file(path)) {
			c.name = xstrndup(de->d_name, len - 5);
			c.file = path;
			c.dir = xstrndup(dir, strlen(dir));
			c.expect_default = xmalloc(len + 8);
			snprintf(c.expect_default, len + 8, "%s.expect.json",
			    c.name);
		} else {
			c.file = join(path, "case.toml");
			if (!is_file(c.file)) {
				free(c.file);
				free(path);
				continue;
			}
			c.name = xstrndup(de->d_name, len);
			c.dir = path;
			c.expect_default = xstrndup("expect.json", 11);
		}
		if (filter && fnmatch(filter, c.name, 0) != 0 &&
		    !strstr(c.name, filter)) {
			free(c.name);
			free(c.file);
			free(c.dir);
			free(c.expect_default);
			continue;
		}
		vec_push(&s->cases, c);
	}
	closedir(d);
	if (s->cases.n)
		qsort(s->cases.v, s->cases.n, sizeof(*s->cases.v), by_name);
	return true;
}

/* A case's settings, read from its file. */
struct spec {
	const char *profile, *user, *history, *format, *expect;
	const char *now, *seed;         /* --now and --seed: pinned time and
	                                 * randomness */
	const struct node *contexts, *vars, *sets, *injects;
	const struct node *contains, *not_contains;
	int64_t max_tokens, max_message_tokens;
	const char *stable_with;
	/* Where each assertion is written, for the report. */
	const struct source *src;
	struct span at_contains, at_not_contains, at_max_tokens,
	    at_max_message_tokens, at_stable;
};

static bool
str_key(struct run *run, const struct source *src, const struct node *n,
    const char *key, const char **out)
{
	if (n->kind != NODE_STRING) {
		diag_error(run, src, n->span, MSG_TEST_TYPE, key, "a string",
		    tree_kind_article(n->kind));
		return false;
	}
	*out = n->u.str.s;
	return true;
}

static bool
table_key(struct run *run, const struct source *src, const struct node *n,
    const char *key, const struct node **out)
{
	size_t i;
	bool ok = true;

	if (n->kind != NODE_TABLE) {
		diag_error(run, src, n->span, MSG_TEST_TYPE, key,
		    "a table of NAME = \"TEXT\"", tree_kind_article(n->kind));
		return false;
	}
	for (i = 0; i < n->u.table.n; i++) {
		const struct node *v = n->u.table.items[i].value;

		if (v->kind == NODE_TABLE || v->kind == NODE_ARRAY) {
			diag_error(run, src, v->span, MSG_TEST_TYPE, key,
			    "a table of NAME = \"TEXT\"",
			    tree_kind_article(v->kind));
			ok = false;
		}
	}
	*out = n;
	return ok;
}

/* An array of strings: a lone string is the common slip. */
static bool
list_key(struct run *run, const struct source *src, const struct node *n,
    const char *key, const struct node **out)
{
	size_t i;
	bool ok = true;

	if (n->kind != NODE_ARRAY) {
		diag_error(run, src, n->span, MSG_TEST_TYPE, key,
		    "an array of strings (write [\"...\"] even for one)",
		    tree_kind_article(n->kind));
		return false;
	}
	for (i = 0; i < n->u.array.n; i++) {
		const struct node *v = n->u.array.items[i];

		if (v->kind != NODE_STRING) {
			diag_error(run, src, v->span, MSG_TEST_TYPE, key,
			    "an array of strings", tree_kind_article(v->kind));
			ok = false;
		}
	}
	*out = n;
	return ok;
}

static bool
int_key(struct run *run, const struct source *src, const struct node *n,
    const char *key, int64_t *out)
{
	if (n->kind != NODE_INT || n->u.i < 1) {
		diag_error(run, src, n->span, MSG_TEST_TYPE, key,
		    "a positive integer", n->kind == NODE_INT ? "zero or "
		    "less" : tree_kind_article(n->kind));
		return false;
	}
	*out = n->u.i;
	return true;
}

static bool
read_spec(struct run *run, const struct tcase *tc, struct spec *sp)
{
	struct node *root;
	struct source *src;
	size_t i;
	bool ok = true;

	memset(sp, 0, sizeof(*sp));
	if (!load_file(run, tc->file, LOAD_TOML, NULL, span_make(0, 0), &root,
	    &src))
		return false;
	sp->src = src;
	for (i = 0; i < root->u.table.n; i++) {
		const struct member *m = &root->u.table.items[i];
		const struct node *v = m->value;
		const char *k = m->key;

		if (strcmp(k, "contains") == 0)
			sp->at_contains = m->keyspan;
		else if (strcmp(k, "not_contains") == 0)
			sp->at_not_contains = m->keyspan;
		else if (strcmp(k, "max_tokens") == 0)
			sp->at_max_tokens = m->keyspan;
		else if (strcmp(k, "max_message_tokens") == 0)
			sp->at_max_message_tokens = m->keyspan;
		else if (strcmp(k, "prefix_stable_with") == 0)
			sp->at_stable = m->keyspan;
		if (strcmp(k, "profile") == 0)
			ok = str_key(run, src, v, k, &sp->profile) && ok;
		else if (strcmp(k, "user") == 0)
			ok = str_key(run, src, v, k, &sp->user) && ok;
		else if (strcmp(k, "history") == 0)
			ok = str_key(run, src, v, k, &sp->history) && ok;
		else if (strcmp(k, "format") == 0)
			ok = str_key(run, src, v, k, &sp->format) && ok;
		else if (strcmp(k, "now") == 0)
			ok = str_key(run, src, v, k, &sp->now) && ok;
		else if (strcmp(k, "seed") == 0)
			ok = str_key(run, src, v, k, &sp->seed) && ok;
		else if (strcmp(k, "expect") == 0)
			ok = str_key(run, src, v, k, &sp->expect) && ok;
		else if (strcmp(k, "prefix_stable_with") == 0)
			ok = str_key(run, src, v, k, &sp->stable_with) && ok;
		else if (strcmp(k, "context") == 0 || strcmp(k, "vars") == 0 ||
		    strcmp(k, "set") == 0)
			ok = table_key(run, src, v, k, k[0] == 'c' ?
			    &sp->contexts : k[0] == 'v' ? &sp->vars :
			    &sp->sets) && ok;
		else if (strcmp(k, "inject") == 0 ||
		    strcmp(k, "contains") == 0 ||
		    strcmp(k, "not_contains") == 0)
			ok = list_key(run, src, v, k, k[0] == 'i' ?
			    &sp->injects : k[0] == 'c' ? &sp->contains :
			    &sp->not_contains) && ok;
		else if (strcmp(k, "max_tokens") == 0 ||
		    strcmp(k, "max_message_tokens") == 0)
			ok = int_key(run, src, v, k, k[4] == 't' ?
			    &sp->max_tokens : &sp->max_message_tokens) && ok;
		else {
			diag_error(run, src, m->keyspan, MSG_TEST_KEY,
			    diag_shown(run, k, m->keylen));
			ok = false;
		}
	}
	if (ok && !sp->profile) {
		diag_error(run, src, span_make(0, 0), MSG_TEST_NO_PROFILE);
		ok = false;
	}
	return ok;
}

/* NAME=VALUE arguments from a table (values relative to dir when
 * paths). */
static void
kvs(struct run *run, const struct node *t, const char *dir, bool paths,
    const char *optname, struct kv **arr, size_t *n, size_t *cap)
{
	size_t i;

	for (i = 0; t && i < t->u.table.n; i++) {
		const struct member *m = &t->u.table.items[i];
		const struct node *v = m->value;
		const char *val = v->kind == NODE_STRING ? v->u.str.s :
		    arena_strndup(&run->arena, run_source(run, v->src)->text +
		    v->span.off, v->span.len);

		cmd_push(arr, n, cap, optname, arena_printf(&run->arena,
		    "%s=%s", m->key, paths ? paths_join(&run->arena, dir, val) :
		    val));
	}
}

/* Build the case into a -f json document; NULL after reporting. */
static struct node *
build_case(struct run *run, const struct tcase *tc, const struct spec *sp)
{
	struct options opt;
	struct chat chat;
	struct buf b = BUF_INIT;
	bool built;
	struct node *doc = NULL;
	size_t cap[4] = { 0 }, i;

	memset(&opt, 0, sizeof(opt));
	opt.profile = paths_join(&run->arena, tc->dir, sp->profile);
	opt.user = sp->user;
	opt.now = sp->now;
	opt.tavern.now = sp->now;
	opt.tavern.seed = sp->seed;
	opt.history = sp->history ? paths_join(&run->arena, tc->dir,
	    sp->history) : NULL;
	kvs(run, sp->contexts, tc->dir, true, "--context", &opt.contexts,
	    &opt.ncontexts, &cap[0]);
	kvs(run, sp->vars, tc->dir, false, "--var", &opt.vars, &opt.nvars,
	    &cap[1]);
	kvs(run, sp->sets, tc->dir, false, "--set", &opt.sets, &opt.nsets,
	    &cap[2]);
	for (i = 0; sp->injects && i < sp->injects->u.array.n; i++) {
		const struct node *v = sp->injects->u.array.items[i];

		if (v->kind == NODE_STRING)
			cmd_push(&opt.injects, &opt.ninjects, &cap[3],
			    "--inject", v->u.str.s);
	}
	built = assemble(run, &opt, &chat, NULL);
	if (built)
		emit_shape(run, &chat);
	if (built && emit_json(run, &chat, &b) && run->diag.errors == 0) {
		struct source *src = run_source_mem(run, tc->name, b.data,
		    b.len);

		if (json_parse(run, src, &doc) && sp->format)
			tree_set(&run->arena, doc, "provider", 8, 0,
			    span_make(0, 0), tree_str(&run->arena,
			    sp->format));
	}
	buf_free(&b);
	free(opt.contexts);
	free(opt.vars);
	free(opt.sets);
	free(opt.injects);
	return doc;
}

static const struct node *
messages_of(const struct node *doc)
{
	return tree_get(doc, "messages");
}

static bool
any_contains(const struct node *doc, const char *s)
{
	const struct node *ms = messages_of(doc);
	size_t i;

	for (i = 0; ms && i < ms->u.array.n; i++) {
		const struct node *c = tree_get(ms->u.array.items[i],
		    "content");

		if (c && c->kind == NODE_STRING && strstr(c->u.str.s, s))
			return true;
	}
	return false;
}

/* "case.toml:LINE: " of an assertion's key. */
static void
at(const struct spec *sp, struct span where, struct buf *why)
{
	unsigned line, col;

	source_linecol(sp->src, where.off, &line, &col);
	buf_printf(why, "%s:%u: ", sp->src->path, line);
}

static void
assertions(const struct node *doc, const struct spec *sp, struct buf *why)
{
	const struct node *ms = messages_of(doc);
	int64_t total = 0;
	size_t i;

	for (i = 0; sp->contains && i < sp->contains->u.array.n; i++) {
		const struct node *s = sp->contains->u.array.items[i];

		if (s->kind == NODE_STRING && !any_contains(doc, s->u.str.s)) {
			at(sp, sp->at_contains, why);
			buf_printf(why, "contains: no message holds \"%s\"\n",
			    s->u.str.s);
		}
	}
	for (i = 0; sp->not_contains && i < sp->not_contains->u.array.n;
	    i++) {
		const struct node *s = sp->not_contains->u.array.items[i];

		if (s->kind == NODE_STRING && any_contains(doc, s->u.str.s)) {
			at(sp, sp->at_not_contains, why);
			buf_printf(why, "not_contains: a message holds "
			    "\"%s\"\n", s->u.str.s);
		}
	}
	for (i = 0; ms && i < ms->u.array.n; i++) {
		const struct node *t = tree_get(ms->u.array.items[i],
		    "tokens");
		int64_t n = t && t->kind == NODE_INT ? t->u.i : 0;

		total += n;
		if (sp->max_message_tokens && n > sp->max_message_tokens) {
			at(sp, sp->at_max_message_tokens, why);
			buf_printf(why, "max_message_tokens: message %zu has "
			    "%lld tokens (at most %lld)\n", i + 1, (long long)n,
			    (long long)sp->max_message_tokens);
		}
	}
	if (sp->max_tokens && total > sp->max_tokens) {
		at(sp, sp->at_max_tokens, why);
		buf_printf(why, "max_tokens: the prompt has %lld tokens (at "
		    "most %lld)\n", (long long)total,
		    (long long)sp->max_tokens);
	}
}

/* The index of the last user message, or the count. */
static size_t
last_user(const struct node *doc)
{
	const struct node *ms = messages_of(doc);
	size_t i = ms ? ms->u.array.n : 0;

	while (i-- > 0) {
		const struct node *r = tree_get(ms->u.array.items[i], "role");

		if (r && r->kind == NODE_STRING &&
		    strcmp(r->u.str.s, "user") == 0)
			return i;
	}
	return ms ? ms->u.array.n : 0;
}

static const struct tcase *
find_case(const struct suite *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->cases.n; i++)
		if (strcmp(s->cases.v[i].name, name) == 0)
			return &s->cases.v[i];
	return NULL;
}

static void
stable(struct run *run, const struct suite *s, const struct node *doc,
    const struct spec *sp, struct buf *why)
{
	const struct tcase *oc = find_case(s, sp->stable_with);
	struct spec osp;
	struct node *odoc;
	struct review r;
	size_t end;

	if (!oc) {
		at(sp, sp->at_stable, why);
		buf_printf(why, "prefix_stable_with: no case named '%s'\n",
		    sp->stable_with);
		return;
	}
	if (!read_spec(run, oc, &osp) || !(odoc = build_case(run, oc,
	    &osp))) {
		at(sp, sp->at_stable, why);
		buf_printf(why, "prefix_stable_with: case '%s' does not "
		    "build\n", oc->name);
		return;
	}
	if (!review_compare(run, odoc, doc, &r))
		return;
	end = last_user(doc);
	if (last_user(odoc) < end)
		end = last_user(odoc);
	if (!r.prefix_same && (r.prefix_tool || r.prefix_msg < end)) {
		at(sp, sp->at_stable, why);
		buf_printf(why, "prefix_stable_with %s: ", oc->name);
		if (r.prefix_tool)
			buf_printf(why, "breaks at tool %s\n", r.prefix_tool);
		else
			buf_printf(why, "breaks at message %zu%s%s, byte %zu\n",
			    r.prefix_msg + 1, r.prefix_entry ? ", entry " : "",
			    r.prefix_entry ? r.prefix_entry : "",
			    r.prefix_byte);
	}
}

/* The entry called key in a -f json document. */
static const struct node *
entry_of(const struct node *doc, const char *key)
{
	const struct node *es = doc ? tree_get(doc, "entries") : NULL;
	size_t i;

	for (i = 0; es && es->kind == NODE_ARRAY && i < es->u.array.n; i++) {
		const struct node *k = tree_get(es->u.array.items[i], "key");

		if (k && k->kind == NODE_STRING && strcmp(k->u.str.s, key) == 0)
			return es->u.array.items[i];
	}
	return NULL;
}

/* "FILE:LINE: KEY changed" for each entry that changed: where to look.
 * The file is the prompt file (or profile) the entry came from, as the
 * build read it. */
static void
changed_at(const struct review *r, const struct node *old,
    const struct node *new, struct buf *out)
{
	static const char *const kinds[] = {
		[REVIEW_ADDED] = "added", [REVIEW_REMOVED] = "removed",
		[REVIEW_CHANGED] = "changed", [REVIEW_MOVED] = "moved",
		[REVIEW_SKIPPED] = "skipped now",
		[REVIEW_UNSKIPPED] = "no longer skipped",
	};
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct review_change *c = &r->v[i];
		const struct node *e, *src;

		if (c->what != REVIEW_ENTRY || c->kind > REVIEW_UNSKIPPED ||
		    !c->name)
			continue;
		e = entry_of(c->kind == REVIEW_REMOVED ? old : new, c->name);
		src = e ? tree_get(e, "source") : NULL;
		if (src && src->kind == NODE_STRING)
			buf_printf(out, "%s: %s %s\n", src->u.str.s, c->name,
			    kinds[c->kind]);
		else
			buf_printf(out, "(no file): %s %s\n", c->name,
			    kinds[c->kind]);
	}
}

static void
run_case(const struct suite *s, const struct tcase *tc, struct result *res)
{
	struct run run;
	struct spec sp;
	struct node *doc, *want;
	struct buf got = BUF_INIT;
	const char *expect;
	struct review r;
	struct buf diags = BUF_INIT;

	run_init(&run);
	/* The messages go into the report (and so into TAP and JUnit)
	 * when the case fails for them; else to stderr as usual. */
	run.diag.to = &diags;
	res->ok = false;
	if (!read_spec(&run, tc, &sp) || !(doc = build_case(&run, tc, &sp))) {
		res->why = WHY_BUILD;
		buf_puts(&res->report, "the case does not build:\n");
		buf_put(&res->report, diags.data, diags.len);
		diags.len = 0;
		goto out;
	}
	expect = sp.expect ? sp.expect : tc->expect_default;
	expect = paths_join(&run.arena, tc->dir, expect);
	assertions(doc, &sp, &res->report);
	if (sp.stable_with)
		stable(&run, s, doc, &sp, &res->report);
	json_write(&got, doc, 2);
	buf_putc(&got, '\n');
	if (s->update && (sp.expect || is_file(expect) || (!sp.contains &&
	    !sp.not_contains && !sp.max_tokens && !sp.max_message_tokens &&
	    !sp.stable_with))) {
		if (!file_replace(expect, got.data, got.len)) {
			buf_printf(&res->report, "cannot write %s\n", expect);
			goto out;
		}
		res->updated = true;
		buf_printf(&res->report, "updated %s\n", expect);
	} else if (sp.expect || is_file(expect)) {
		struct source *src = run_read(&run, expect, NULL,
		    span_make(0, 0));

		if (!src || !json_parse(&run, src, &want)) {
			res->why = WHY_BUILD;
			buf_printf(&res->report, "cannot read the expected "
			    "result %s:\n", expect);
			buf_put(&res->report, diags.data, diags.len);
			diags.len = 0;
		} else if (review_compare(&run, want, doc, &r) &&
		    review_differ(&r)) {
			res->why = WHY_DIFFERS;
			buf_printf(&res->report, "differs from %s:\n",
			    expect);
			review_text(&run, &r, false, &res->report);
			changed_at(&r, want, doc, &res->report);
		}
	} else if (!sp.contains && !sp.not_contains && !sp.max_tokens &&
	    !sp.max_message_tokens && !sp.stable_with) {
		buf_printf(&res->report, "nothing to check: no %s and no "
		    "assertions (run with --update)\n", expect);
	}
	res->ok = res->updated || res->report.len == 0;
	if (!res->ok && res->why == WHY_NONE)
		res->why = WHY_ASSERT;
out:
	if (diags.len)
		fwrite(diags.data, 1, diags.len, stderr);
	buf_free(&diags);
	buf_free(&got);
	run_free(&run);
}

/* In a child: run case i and write "ok byte, updated byte, report". */
static pid_t
spawn(const struct suite *s, size_t i, int *fd)
{
	int p[2];
	pid_t pid;

	if (pipe(p) < 0)
		die("pipe:");
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		die("fork:");
	if (pid == 0) {
		struct result res = { false, false, WHY_NONE, BUF_INIT };
		char flags[3];
		size_t off = 0;

		close(p[0]);
		run_case(s, &s->cases.v[i], &res);
		flags[0] = res.ok ? '1' : '0';
		flags[1] = res.updated ? '1' : '0';
		flags[2] = (char)('0' + res.why);
		if (write(p[1], flags, 3) != 3)
			_exit(3);
		while (off < res.report.len) {
			ssize_t w = write(p[1], res.report.data + off,
			    res.report.len - off);

			if (w <= 0)
				_exit(3);
			off += (size_t)w;
		}
		_exit(0);
	}
	close(p[1]);
	*fd = p[0];
	return pid;
}

static void
collect_child(pid_t pid, int fd, struct result *res)
{
	char chunk[4096];
	ssize_t n;
	struct buf b = BUF_INIT;
	int st;

	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		buf_put(&b, chunk, (size_t)n);
	close(fd);
	waitpid(pid, &st, 0);
	res->ok = b.len >= 3 && b.data[0] == '1' && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0;
	res->updated = b.len >= 3 && b.data[1] == '1';
	res->why = b.len >= 3 ? (enum why)(b.data[2] - '0') : WHY_BUILD;
	if (b.len > 3)
		buf_put(&res->report, b.data + 3, b.len - 3);
	else if (!res->ok && b.len < 3)
		buf_puts(&res->report, "the case crashed\n");
	buf_free(&b);
}

static void
run_all(const struct suite *s, struct result *res, long jobs)
{
	size_t i, next = 0, n = s->cases.n;
	pid_t *pids;
	int *fds;

	if (jobs <= 1) {
		for (i = 0; i < n; i++)
			run_case(s, &s->cases.v[i], &res[i]);
		return;
	}
	pids = xreallocarray(NULL, n + 1, sizeof(*pids));
	fds = xreallocarray(NULL, n + 1, sizeof(*fds));
	for (i = 0; i < n; i++) {
		while (next < n && next < i + (size_t)jobs) {
			pids[next] = spawn(s, next, &fds[next]);
			next++;
		}
		collect_child(pids[i], fds[i], &res[i]);
	}
	free(pids);
	free(fds);
}

static void
indented(FILE *f, const char *prefix, const struct buf *b)
{
	size_t i = 0;

	while (i < b->len) {
		size_t j = i;

		while (j < b->len && b->data[j] != '\n')
			j++;
		fprintf(f, "%s%.*s\n", prefix, (int)(j - i), b->data + i);
		i = j + 1;
	}
}

static void
xml_text(FILE *f, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '&')
			fputs("&amp;", f);
		else if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c < 0x20 && c != '\n' && c != '\t')
			fputc('?', f);
		else
			fputc(c, f);
	}
}

static bool
junit(const char *path, const struct suite *s, const struct result *res,
    size_t failed)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f) {
		fprintf(stderr, "%s: cannot write %s\n", progname, path);
		return false;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<testsuites tests=\"%zu\" failures=\"%zu\">\n"
	    "<testsuite name=\"strata\" tests=\"%zu\" failures=\"%zu\" "
	    "errors=\"0\" skipped=\"0\">\n", s->cases.n, failed, s->cases.n,
	    failed);
	for (i = 0; i < s->cases.n; i++) {
		fputs("<testcase classname=\"strata\" name=\"", f);
		xml_text(f, s->cases.v[i].name, strlen(s->cases.v[i].name));
		if (res[i].ok) {
			fputs("\"/>\n", f);
			continue;
		}
		fprintf(f, "\">\n<failure message=\"%s\">",
		    res[i].why == WHY_BUILD ? "does not build" :
		    res[i].why == WHY_DIFFERS ? "prompt differs" :
		    "assertion failed");
		xml_text(f, res[i].report.data ? res[i].report.data : "",
		    res[i].report.len);
		fputs("</failure>\n</testcase>\n", f);
	}
	fputs("</testsuite>\n</testsuites>\n", f);
	return fclose(f) == 0;
}

static const char *
default_dir(void)
{
	struct stat st;

	if (stat("strata-tests", &st) == 0 && S_ISDIR(st.st_mode))
		return "strata-tests";
	return "tests/prompts";
}

/* The options (cmd.h: completions and docs are made from them). */
static const struct option test_longopts[] = {
	{ "update", no_argument, NULL, 'U' },
	{ "filter", required_argument, NULL, 'F' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "junit", required_argument, NULL, 'J' },
	{ "tap", no_argument, NULL, 'T' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};
const struct cmd_opts cmd_test_opts = { "j:h", test_longopts };

int
cmd_test(int argc, char **argv)
{
	struct suite s;
	struct result *res = NULL;
	const char *filter = NULL, *junit_path = NULL, *dir;
	long jobs = 1;
	bool tap = false;
	size_t i, failed = 0;
	int ch, status = EXIT_USAGE;
	char *end;

	memset(&s, 0, sizeof(s));
	while ((ch = getopt_long(argc, argv, cmd_test_opts.shortopts,
	    cmd_test_opts.longopts, NULL)) != -1) {
		switch (ch) {
		case 'U':
			s.update = true;
			break;
		case 'F':
			filter = optarg;
			break;
		case 'j':
			jobs = strtol(optarg, &end, 10);
			if (*end || jobs < 1 || jobs > 256) {
				fprintf(stderr, "%s: test: -j takes a number "
				    "from 1 to 256\n", progname);
				return EXIT_USAGE;
			}
			break;
		case 'J':
			junit_path = optarg;
			break;
		case 'T':
			tap = true;
			break;
		case 'h':
			fputs(cmd_test_help, stdout);
			return EXIT_OK;
		default:
			cmd_usage("test");
			return EXIT_USAGE;
		}
	}
	if (argc - optind > 1) {
		cmd_usage("test");
		return EXIT_USAGE;
	}
	dir = optind < argc ? argv[optind] : default_dir();
	if (!discover(&s, dir, filter)) {
		status = EXIT_INPUT;
		goto out;
	}
	if (s.cases.n == 0) {
		if (filter)
			fprintf(stderr, "%s: test: no case in %s matches "
			    "--filter '%s'\n", progname, dir, filter);
		else
			fprintf(stderr, "%s: test: no test case in %s (a case "
			    "is NAME.toml or NAME/case.toml)\n", progname,
			    dir);
		status = EXIT_USAGE;
		goto out;
	}
	res = xreallocarray(NULL, s.cases.n + 1, sizeof(*res));
	memset(res, 0, (s.cases.n + 1) * sizeof(*res));
	run_all(&s, res, jobs);
	if (tap)
		printf("TAP version 13\n1..%zu\n", s.cases.n);
	for (i = 0; i < s.cases.n; i++) {
		const char *name = s.cases.v[i].name;

		failed += !res[i].ok;
		if (tap) {
			printf("%sok %zu - %s\n", res[i].ok ? "" : "not ",
			    i + 1, name);
			indented(stdout, "# ", &res[i].report);
		} else {
			printf("%-4s %s\n", res[i].updated ? "upd" :
			    res[i].ok ? "ok" : "FAIL", name);
			indented(stdout, "    ", &res[i].report);
		}
	}
	if (!tap)
		printf("%zu passed, %zu failed\n", s.cases.n - failed, failed);
	status = failed ? EXIT_INPUT : EXIT_OK;
	if (junit_path && !junit(junit_path, &s, res, failed))
		status = EXIT_SYSTEM;
out:
	for (i = 0; i < s.cases.n; i++) {
		free(s.cases.v[i].name);
		free(s.cases.v[i].file);
		free(s.cases.v[i].dir);
		free(s.cases.v[i].expect_default);
		if (res)
			buf_free(&res[i].report);
	}
	free(s.cases.v);
	free(res);
	return status;
}
