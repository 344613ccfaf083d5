/*
 * Printing a review: text by layer (with unified diffs of entry texts,
 * word-level for one-line texts), a --stat summary, or JSON.  The diffs
 * are a longest common subsequence over lines (or words), with a cap on
 * the table so a huge entry falls back to "all removed, all added".
 */
#include "review/diff.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "base/vec.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"

#define LCS_MAX 4000000         /* cells of the table, at most */
#define CONTEXT 3               /* lines of context around a change */

struct piece {
	const char *s;
	size_t len;
};

struct op {
	char kind;              /* ' ', '-' or '+' */
	struct piece p;
};

struct colors {
	const char *del, *ins, *hunk, *head, *off;
};

static struct colors
colors(bool on)
{
	struct colors c = { "", "", "", "", "" };

	if (on) {
		c.del = "\033[31m";
		c.ins = "\033[32m";
		c.hunk = "\033[36m";
		c.head = "\033[1m";
		c.off = "\033[m";
	}
	return c;
}

/* Lines (without their newline), or words and the spaces between. */
static struct piece *
split(const char *s, size_t len, bool words, size_t *n)
{
	struct piece *v = NULL;
	size_t cap = 0, i = 0;

	*n = 0;
	while (s && i < len) {
		size_t j = i;

		if (words) {
			bool sp = s[i] == ' ' || s[i] == '\t';

			while (j < len && (s[j] == ' ' || s[j] == '\t') == sp)
				j++;
		} else {
			while (j < len && s[j] != '\n')
				j++;
		}
		v = vec_grow(v, &cap, *n + 1, sizeof(*v));
		v[*n].s = s + i;
		v[(*n)++].len = j - i;
		i = words || j == len ? j : j + 1;
	}
	return v;
}

static bool
eq(const struct piece *a, const struct piece *b)
{
	return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
}

/* The edit script from a to b; *n its length.  On the heap. */
static struct op *
script(const struct piece *a, size_t na, const struct piece *b, size_t nb,
    size_t *n)
{
	struct op *ops = xreallocarray(NULL, na + nb + 1, sizeof(*ops));
	uint32_t *t = NULL;
	size_t i = 0, j = 0, w = nb + 1;

	*n = 0;
	if (na && nb && na * nb <= LCS_MAX) {
		t = xreallocarray(NULL, (na + 1) * w, sizeof(*t));
		for (i = na + 1; i-- > 0;)
			for (j = nb + 1; j-- > 0;) {
				uint32_t *c = &t[i * w + j];

				if (i == na || j == nb)
					*c = 0;
				else if (eq(&a[i], &b[j]))
					*c = t[(i + 1) * w + j + 1] + 1;
				else
					*c = t[(i + 1) * w + j] >
					    t[i * w + j + 1] ?
					    t[(i + 1) * w + j] :
					    t[i * w + j + 1];
			}
		i = j = 0;
		while (i < na && j < nb) {
			if (eq(&a[i], &b[j])) {
				ops[(*n)++] = (struct op){ ' ', a[i] };
				i++;
				j++;
			} else if (t[(i + 1) * w + j] >= t[i * w + j + 1]) {
				ops[(*n)++] = (struct op){ '-', a[i++] };
			} else {
				ops[(*n)++] = (struct op){ '+', b[j++] };
			}
		}
		free(t);
	}
	while (i < na)
		ops[(*n)++] = (struct op){ '-', a[i++] };
	while (j < nb)
		ops[(*n)++] = (struct op){ '+', b[j++] };
	return ops;
}

void
review_count(const char *a, size_t alen, const char *b, size_t blen,
    size_t *added, size_t *removed)
{
	size_t na, nb, n, i;
	struct piece *pa = split(a, alen, false, &na);
	struct piece *pb = split(b, blen, false, &nb);
	struct op *ops = script(pa, na, pb, nb, &n);

	*added = *removed = 0;
	for (i = 0; i < n; i++) {
		if (ops[i].kind == '+')
			(*added)++;
		else if (ops[i].kind == '-')
			(*removed)++;
	}
	free(ops);
	free(pa);
	free(pb);
}

static void
indent_text(struct buf *out, char mark, const char *s, size_t len,
    const char *on, const char *off)
{
	size_t i = 0;

	while (s && i < len) {
		size_t j = i;

		while (j < len && s[j] != '\n')
			j++;
		buf_printf(out, "    %s%c%.*s%s\n", on, mark, (int)(j - i),
		    s + i, off);
		i = j + 1;
	}
}

/* Old and new line: [-removed-]{+added+} words within the line. */
static void
word_diff(struct buf *out, const char *mark, const char *old, size_t oldlen,
    const char *new, size_t newlen, const struct colors *k)
{
	size_t na, nb, n, i;
	struct piece *pa = split(old, oldlen, true, &na);
	struct piece *pb = split(new, newlen, true, &nb);
	struct op *ops = script(pa, na, pb, nb, &n);

	buf_printf(out, "    %s", mark);
	for (i = 0; i < n; i++) {
		char kind = ops[i].kind;

		if (kind == ' ') {
			buf_put(out, ops[i].p.s, ops[i].p.len);
			continue;
		}
		buf_printf(out, "%s%s", kind == '-' ? k->del : k->ins,
		    kind == '-' ? "[-" : "{+");
		for (; i < n && ops[i].kind == kind; i++)
			buf_put(out, ops[i].p.s, ops[i].p.len);
		buf_printf(out, "%s%s", kind == '-' ? "-]" : "+}", k->off);
		i--;
	}
	buf_putc(out, '\n');
	free(ops);
	free(pa);
	free(pb);
}

/* Hunks of a line diff, CONTEXT lines around each change. */
static void
line_diff(struct buf *out, const struct review_change *c,
    const struct colors *k)
{
	size_t na, nb, n, i, lo, hi, ai, bi;
	struct piece *pa = split(c->old, c->oldlen, false, &na);
	struct piece *pb = split(c->new, c->newlen, false, &nb);
	struct op *ops = script(pa, na, pb, nb, &n);
	size_t *apos = xreallocarray(NULL, n + 1, sizeof(*apos));
	size_t *bpos = xreallocarray(NULL, n + 1, sizeof(*bpos));

	for (i = 0, ai = bi = 1; i < n; i++) {
		apos[i] = ai;
		bpos[i] = bi;
		ai += ops[i].kind != '+';
		bi += ops[i].kind != '-';
	}
	for (i = 0; i < n;) {
		size_t ac = 0, bc = 0, j;

		if (ops[i].kind == ' ') {
			i++;
			continue;
		}
		lo = i > CONTEXT ? i - CONTEXT : 0;
		/* Extend the hunk while changes are close together. */
		for (hi = i; hi < n; hi++) {
			if (ops[hi].kind != ' ')
				continue;
			for (j = hi; j < n && j < hi + 2 * CONTEXT + 1 &&
			    ops[j].kind == ' '; j++)
				;
			if (j == n || j == hi + 2 * CONTEXT + 1)
				break;
		}
		hi = hi + CONTEXT < n ? hi + CONTEXT : n;
		for (j = lo; j < hi; j++) {
			ac += ops[j].kind != '+';
			bc += ops[j].kind != '-';
		}
		buf_printf(out, "    %s@@ -%zu,%zu +%zu,%zu @@%s\n", k->hunk,
		    ac ? apos[lo] : apos[lo] - 1, ac, bc ? bpos[lo] :
		    bpos[lo] - 1, bc, k->off);
		for (j = lo; j < hi; j++) {
			/* One line replaced by one line: the words that
			 * changed, on a line marked '~'. */
			if (ops[j].kind == '-' && j + 1 < hi &&
			    ops[j + 1].kind == '+' && (j == lo ||
			    ops[j - 1].kind != '-') && (j + 2 >= hi ||
			    ops[j + 2].kind != '+')) {
				word_diff(out, "~", ops[j].p.s, ops[j].p.len,
				    ops[j + 1].p.s, ops[j + 1].p.len, k);
				j++;
				continue;
			}
			buf_printf(out, "    %s%c%.*s%s\n", ops[j].kind == '-' ?
			    k->del : ops[j].kind == '+' ? k->ins : "",
			    ops[j].kind, (int)ops[j].p.len, ops[j].p.s,
			    ops[j].kind == ' ' ? "" : k->off);
		}
		i = hi;
	}
	free(apos);
	free(bpos);
	free(ops);
	free(pa);
	free(pb);
}

static bool
one_line(const char *s, size_t len)
{
	return !s || !memchr(s, '\n', len);
}

static const char *const kinds[] = { "added", "removed", "changed", "moved",
	"skipped", "unskipped", "param", "message" };

static void
section(struct buf *out, const struct review *r, enum review_what what,
    const char *title, const struct colors *k)
{
	size_t i;
	bool any = false;

	for (i = 0; i < r->n; i++) {
		const struct review_change *c = &r->v[i];

		if (c->what != what || c->kind == REVIEW_PARAM ||
		    c->kind == REVIEW_MESSAGE)
			continue;
		if (!any)
			buf_printf(out, "%s%s:%s\n", k->head, title, k->off);
		any = true;
		buf_printf(out, "  %-9s %s", c->kind == REVIEW_SKIPPED ?
		    "skipped" : c->kind == REVIEW_UNSKIPPED ? "unskipped" :
		    kinds[c->kind], c->name);
		if (c->layer)
			buf_printf(out, " (%s)", c->layer);
		if (c->kind == REVIEW_SKIPPED)
			buf_printf(out, ": now %s", c->detail);
		else if (c->kind == REVIEW_UNSKIPPED)
			buf_printf(out, ": no longer %s", c->detail);
		else if (c->detail)
			buf_printf(out, ": %s", c->detail);
		buf_putc(out, '\n');
		if (what == REVIEW_TOOL)
			continue;
		if (c->kind == REVIEW_ADDED)
			indent_text(out, '+', c->new, c->newlen, k->ins,
			    k->off);
		else if (c->kind == REVIEW_REMOVED)
			indent_text(out, '-', c->old, c->oldlen, k->del,
			    k->off);
		else if (c->kind == REVIEW_CHANGED &&
		    one_line(c->old, c->oldlen) &&
		    one_line(c->new, c->newlen))
			word_diff(out, "", c->old, c->oldlen, c->new,
			    c->newlen, k);
		else if (c->kind == REVIEW_CHANGED)
			line_diff(out, c, k);
	}
}

static void
delta(struct buf *out, const char *what, int64_t o, int64_t n)
{
	if (o < 0)
		buf_printf(out, "%" PRId64 " %s (new)", n, what);
	else if (n < 0)
		buf_printf(out, "%" PRId64 " %s (gone)", o, what);
	else
		buf_printf(out, "%" PRId64 " -> %" PRId64 " %s (%+" PRId64
		    ")", o, n, what, n - o);
}

static void
prefix_line(struct buf *out, const struct review *r)
{
	if (r->prefix_same)
		buf_puts(out, "prefix: unchanged\n");
	else if (r->prefix_tool)
		buf_printf(out, "prefix: breaks at tool %s\n", r->prefix_tool);
	else {
		buf_printf(out, "prefix: breaks at message %zu",
		    r->prefix_msg + 1);
		if (r->prefix_entry)
			buf_printf(out, ", entry %s", r->prefix_entry);
		buf_printf(out, ", byte %zu\n", r->prefix_byte);
	}
}

void
review_text(struct run *run, const struct review *r, bool color,
    struct buf *out)
{
	struct colors k = colors(color);
	size_t i;
	bool any = false;

	(void)run;
	section(out, r, REVIEW_ENTRY, "entries", &k);
	section(out, r, REVIEW_ITEM, "items", &k);
	section(out, r, REVIEW_TOOL, "tools", &k);
	for (i = 0; i < r->n; i++) {
		const struct review_change *c = &r->v[i];

		if (c->kind != REVIEW_PARAM)
			continue;
		if (!any)
			buf_printf(out, "%sparams:%s\n", k.head, k.off);
		any = true;
		buf_printf(out, "  %s: %.*s -> %.*s\n", c->name,
		    c->old ? (int)c->oldlen : 6, c->old ? c->old : "(none)",
		    c->new ? (int)c->newlen : 6, c->new ? c->new : "(none)");
	}
	any = false;
	for (i = 0; i < r->n; i++) {
		const struct review_change *c = &r->v[i];

		if (c->kind != REVIEW_MESSAGE)
			continue;
		if (!any)
			buf_printf(out, "%smessages:%s\n", k.head, k.off);
		any = true;
		buf_printf(out, "  message %zu (%s): ", c->index + 1, c->role);
		delta(out, "bytes", c->oldbytes, c->newbytes);
		buf_puts(out, ", ");
		delta(out, "tokens", c->oldtokens, c->newtokens);
		buf_putc(out, '\n');
	}
	if (review_differ(r))
		prefix_line(out, r);
}

void
review_stat(struct run *run, const struct review *r, bool color,
    struct buf *out)
{
	struct colors k = colors(color);
	size_t i, add, del, nent = 0, nitem = 0, ntool = 0, nparam = 0;

	(void)run;
	for (i = 0; i < r->n; i++) {
		const struct review_change *c = &r->v[i];

		if (c->kind == REVIEW_MESSAGE)
			continue;
		if (c->kind == REVIEW_PARAM) {
			nparam++;
			buf_printf(out, " param %s: %.*s -> %.*s\n", c->name,
			    c->old ? (int)c->oldlen : 6, c->old ? c->old :
			    "(none)", c->new ? (int)c->newlen : 6, c->new ?
			    c->new : "(none)");
			continue;
		}
		if (c->what == REVIEW_TOOL) {
			ntool++;
			buf_printf(out, " tool %s: %s%s%s\n", c->name,
			    kinds[c->kind], c->detail ? ", " : "",
			    c->detail ? c->detail : "");
			continue;
		}
		if (c->what == REVIEW_ITEM)
			nitem++;
		else
			nent++;
		review_count(c->old, c->old ? c->oldlen : 0, c->new,
		    c->new ? c->newlen : 0, &add, &del);
		buf_printf(out, " %s (%s): %s", c->name, c->layer,
		    kinds[c->kind]);
		if (add || del)
			buf_printf(out, ", %s+%zu%s %s-%zu%s", k.ins, add,
			    k.off, k.del, del, k.off);
		if (c->detail && c->kind != REVIEW_ADDED)
			buf_printf(out, ", %s", c->detail);
		buf_putc(out, '\n');
	}
	/* a SillyTavern build has items where a profile build has
	 * entries */
	if (nitem)
		buf_printf(out, " %zu item%s,", nitem, nitem == 1 ? "" : "s");
	buf_printf(out, " %zu entr%s, %zu tool%s, %zu parameter%s changed; ",
	    nent, nent == 1 ? "y" : "ies", ntool, ntool == 1 ? "" : "s",
	    nparam, nparam == 1 ? "" : "s");
	prefix_line(out, r);
}

static struct node *
text_or_null(struct arena *a, const char *s, size_t len)
{
	return s ? tree_strref(a, s, len) : tree_new(a, NODE_NULL, 0,
	    span_make(0, 0));
}

void
review_json(struct run *run, const struct review *r, struct buf *out)
{
	struct arena *a = &run->arena;
	struct node *doc = tree_table(a), *ch, *ms, *p;
	size_t i, add, del;

	tree_put(a, doc, "same", tree_bool(a, !review_differ(r)));
	tree_put(a, doc, "provider", tree_str(a, r->provider));
	ch = tree_put(a, doc, "changes", tree_array(a));
	ms = tree_put(a, doc, "messages", tree_array(a));
	for (i = 0; i < r->n; i++) {
		const struct review_change *c = &r->v[i];
		struct node *o = tree_table(a);

		if (c->kind == REVIEW_MESSAGE) {
			tree_put(a, o, "index", tree_int(a,
			    (int64_t)c->index + 1));
			tree_put(a, o, "role", tree_str(a, c->role));
			tree_put(a, o, "old_bytes", tree_int(a, c->oldbytes));
			tree_put(a, o, "new_bytes", tree_int(a, c->newbytes));
			tree_put(a, o, "old_tokens", tree_int(a,
			    c->oldtokens));
			tree_put(a, o, "new_tokens", tree_int(a,
			    c->newtokens));
			tree_push(a, ms, o);
			continue;
		}
		tree_put(a, o, "what", tree_str(a, c->what == REVIEW_ENTRY ?
		    "entry" : c->what == REVIEW_ITEM ? "item" :
		    c->what == REVIEW_TOOL ? "tool" : "param"));
		tree_put(a, o, "change", tree_str(a, kinds[c->kind]));
		tree_put(a, o, "name", tree_str(a, c->name));
		if (c->layer)
			tree_put(a, o, "layer", tree_str(a, c->layer));
		if (c->detail)
			tree_put(a, o, "detail", tree_str(a, c->detail));
		if (c->what != REVIEW_TOOL) {
			tree_put(a, o, "old", text_or_null(a, c->old,
			    c->oldlen));
			tree_put(a, o, "new", text_or_null(a, c->new,
			    c->newlen));
		}
		if (c->what == REVIEW_ENTRY || c->what == REVIEW_ITEM) {
			review_count(c->old, c->old ? c->oldlen : 0, c->new,
			    c->new ? c->newlen : 0, &add, &del);
			tree_put(a, o, "lines_added", tree_int(a,
			    (int64_t)add));
			tree_put(a, o, "lines_removed", tree_int(a,
			    (int64_t)del));
		}
		tree_push(a, ch, o);
	}
	p = tree_put(a, doc, "prefix", tree_table(a));
	tree_put(a, p, "unchanged", tree_bool(a, r->prefix_same));
	if (!r->prefix_same && r->prefix_tool)
		tree_put(a, p, "tool", tree_str(a, r->prefix_tool));
	else if (!r->prefix_same) {
		tree_put(a, p, "message", tree_int(a,
		    (int64_t)r->prefix_msg + 1));
		tree_put(a, p, "entry", r->prefix_entry ? tree_str(a,
		    r->prefix_entry) : tree_new(a, NODE_NULL, 0,
		    span_make(0, 0)));
		tree_put(a, p, "byte", tree_int(a, (int64_t)r->prefix_byte));
	}
	json_write(out, doc, 2);
	buf_putc(out, '\n');
}
