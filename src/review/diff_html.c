/*
 * A review as an inspector page (strata diff -f html): where the cached
 * prefix breaks, the changes grouped by layer with their texts diffed
 * inline, then the two builds' messages side by side.  Messages are
 * aligned on their role and text (a longest common subsequence, capped
 * like the text diff), so a message added in the middle does not make
 * every later one look changed.  The page frame is emit/emit_html.h.
 */
#include "review/diff.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"
#include "emit/emit_html.h"

#define ALIGN_MAX 4000000u      /* cells of the alignment table, at most */
#define OPEN_SAME 12            /* this many messages or fewer: all open */
#define OPEN_ENDS 3             /* else the first and last this many */

static const char *const kinds[] = {
	"added", "removed", "changed", "moved", "skipped", "unskipped",
	"param", "message",
};

/* A message of one side, read from its -f json document. */
struct msg {
	const char *role, *content;
	const char **layers;    /* of its entries, or its items' sources */
	size_t len, nlayers;
	int64_t bytes, tokens;
};

/* One row of the side-by-side view: old[o] and/or new[n] (-1: none). */
struct row {
	long o, n;
};

struct page {
	struct run *run;
	struct arena *a;
	struct buf *out;
	const struct review *r;
	struct msg *old, *new;
	size_t nold, nnew;
	struct emit_html_names roles, layers;
};

static void
esc(struct page *p, const char *s)
{
	emit_html_escs(p->out, s);
}

static const char *
str(const struct node *t, const char *key, size_t *len)
{
	const struct node *n = tree_get(t, key);

	if (!n || n->kind != NODE_STRING) {
		if (len)
			*len = 0;
		return NULL;
	}
	if (len)
		*len = n->u.str.len;
	return n->u.str.s;
}

static int64_t
num(const struct node *t, const char *key)
{
	const struct node *n = tree_get(t, key);

	return n && n->kind == NODE_INT ? n->u.i : -1;
}

/* The layer of entry key, or the source of item id, in doc. */
static const char *
layer_of(const struct node *doc, const char *list, const char *idkey,
    const char *field, const char *id)
{
	const struct node *v = tree_get(doc, list);
	const char *s;
	size_t i;

	if (!v || v->kind != NODE_ARRAY)
		return NULL;
	for (i = 0; i < v->u.array.n; i++) {
		s = str(v->u.array.items[i], idkey, NULL);
		if (s && strcmp(s, id) == 0)
			return str(v->u.array.items[i], field, NULL);
	}
	return NULL;
}

/* The messages of doc, each with its layers (of its entries, or the
 * sources of its SillyTavern items) as slugs, noting roles and layers
 * for the filter bar. */
static struct msg *
messages(struct page *p, const struct node *doc, size_t *n)
{
	const struct node *v = tree_get(doc, "messages"), *m, *ids;
	struct msg *out;
	size_t i, k;

	*n = v && v->kind == NODE_ARRAY ? v->u.array.n : 0;
	out = arena_array(p->a, *n ? *n : 1, sizeof(*out));
	for (i = 0; i < *n; i++) {
		struct emit_html_names l = { NULL, 0, 0 };
		bool items;

		m = v->u.array.items[i];
		out[i].role = str(m, "role", NULL);
		if (!out[i].role)
			out[i].role = "?";
		out[i].content = str(m, "content", &out[i].len);
		if (!out[i].content)
			out[i].content = "";
		out[i].bytes = num(m, "bytes");
		out[i].tokens = num(m, "tokens");
		emit_html_names_add(&p->roles, out[i].role);
		ids = tree_get(m, "items");
		items = ids && ids->kind == NODE_ARRAY;
		if (!items)
			ids = tree_get(m, "entries");
		for (k = 0; ids && ids->kind == NODE_ARRAY &&
		    k < ids->u.array.n; k++) {
			const struct node *id = ids->u.array.items[k];
			const char *layer;

			if (id->kind != NODE_STRING)
				continue;
			layer = items ? layer_of(doc, "items", "id", "origin",
			    id->u.str.s) : layer_of(doc, "entries", "key",
			    "layer", id->u.str.s);
			/* saved before items had an origin */
			if (!layer && items)
				layer = layer_of(doc, "items", "id", "source",
				    id->u.str.s);
			if (layer && items)
				layer = emit_html_source(id->u.str.s, layer);
			if (layer)
				emit_html_names_add(&l, layer);
		}
		if (!l.n)
			emit_html_names_add(&l, "history");
		out[i].layers = arena_array(p->a, l.n, sizeof(*l.v));
		out[i].nlayers = l.n;
		for (k = 0; k < l.n; k++) {
			out[i].layers[k] = l.v[k];
			emit_html_names_add(&p->layers, l.v[k]);
		}
		emit_html_names_free(&l);
	}
	return out;
}

static bool
msg_eq(const struct msg *x, const struct msg *y)
{
	return x->len == y->len && strcmp(x->role, y->role) == 0 &&
	    memcmp(x->content, y->content, x->len) == 0;
}

/* Align the two sides: equal messages share a row; between them, the
 * others pair up in order, the rest stand alone. */
static struct row *
align(struct page *p, size_t *nrows)
{
	size_t n = p->nold, m = p->nnew, i, j, pre = 0, suf = 0, gi, gj;
	struct row *v = arena_array(p->a, n + m + 1, sizeof(*v));
	uint32_t *t = NULL;

	*nrows = 0;
	while (pre < n && pre < m && msg_eq(&p->old[pre], &p->new[pre]))
		pre++;
	while (suf < n - pre && suf < m - pre && msg_eq(&p->old[n - 1 - suf],
	    &p->new[m - 1 - suf]))
		suf++;
	for (i = 0; i < pre; i++)
		v[(*nrows)++] = (struct row){ (long)i, (long)i };
	n -= pre + suf;
	m -= pre + suf;
	if (n && m && (n + 1) * (m + 1) <= ALIGN_MAX) {
		t = xcalloc((n + 1) * (m + 1), sizeof(*t));
		for (i = n; i-- > 0;)
			for (j = m; j-- > 0;)
				t[i * (m + 1) + j] = msg_eq(&p->old[pre + i],
				    &p->new[pre + j]) ? t[(i + 1) * (m + 1) +
				    j + 1] + 1 : t[(i + 1) * (m + 1) + j] >
				    t[i * (m + 1) + j + 1] ? t[(i + 1) *
				    (m + 1) + j] : t[i * (m + 1) + j + 1];
	}
	i = j = 0;
	while (i < n || j < m) {
		if (t && i < n && j < m && msg_eq(&p->old[pre + i],
		    &p->new[pre + j])) {
			v[(*nrows)++] = (struct row){ (long)(pre + i),
			    (long)(pre + j) };
			i++;
			j++;
			continue;
		}
		/* a gap: the messages up to the next common one */
		gi = i;
		gj = j;
		while (i < n || j < m) {
			if (t && i < n && j < m && msg_eq(&p->old[pre + i],
			    &p->new[pre + j]))
				break;
			if (!t) {
				i = n;
				j = m;
			} else if (j >= m || (i < n && t[(i + 1) * (m + 1) +
			    j] >= t[i * (m + 1) + j + 1])) {
				i++;
			} else {
				j++;
			}
		}
		while (gi < i || gj < j) {
			v[(*nrows)++] = (struct row){ gi < i ? (long)(pre +
			    gi) : -1, gj < j ? (long)(pre + gj) : -1 };
			if (gi < i)
				gi++;
			if (gj < j)
				gj++;
		}
	}
	free(t);
	for (i = 0; i < suf; i++)
		v[(*nrows)++] = (struct row){ (long)(p->nold - suf + i),
		    (long)(p->nnew - suf + i) };
	return v;
}

static void
put_prefix(struct page *p)
{
	const struct review *r = p->r;

	buf_puts(p->out, "<section id=\"prefix\" aria-labelledby=\"h-prefix\">"
	    "\n<h2 id=\"h-prefix\">Cache prefix</h2>\n<p>");
	if (r->prefix_same) {
		buf_puts(p->out, "Unchanged: the new build reuses the whole "
		    "cached prefix.");
	} else if (r->prefix_tool) {
		buf_puts(p->out, "Breaks at tool <code>");
		esc(p, r->prefix_tool);
		buf_puts(p->out, "</code>: nothing after it is reused.");
	} else {
		buf_printf(p->out, "Breaks in <a href=\"#new-%zu\">message %zu"
		    "</a> of the new build", r->prefix_msg + 1,
		    r->prefix_msg + 1);
		if (r->prefix_entry) {
			buf_puts(p->out, ", in entry <code>");
			esc(p, r->prefix_entry);
			buf_puts(p->out, "</code>");
		}
		buf_printf(p->out, ", at byte %zu: what comes before is "
		    "reused from the cache, the rest is not.", r->prefix_byte);
	}
	buf_puts(p->out, " <span class=\"num\">(cache order of ");
	esc(p, r->provider ? r->provider : "openai");
	buf_puts(p->out, ")</span></p>\n</section>\n");
}

static void
put_text(struct page *p, const char *s, size_t len, const char *tag)
{
	buf_puts(p->out, "<pre class=\"text\">");
	if (tag)
		buf_printf(p->out, "<%s>", tag);
	emit_html_esc(p->out, s, len);
	if (tag)
		buf_printf(p->out, "</%s>", tag);
	buf_puts(p->out, "</pre>\n");
}

/* The group a change is listed under and filtered by: an entry's
 * layer, an item's source (the Author's Note a source of its own, as in
 * the messages' layers), "tools" or "params". */
static const char *
group_of(const struct review_change *c)
{
	if (c->what == REVIEW_ENTRY && c->layer)
		return c->layer;
	if (c->what == REVIEW_ITEM && c->layer)
		return emit_html_source(c->name, c->layer);
	return c->what == REVIEW_TOOL ? "tools" : "params";
}

static void
put_change(struct page *p, const struct review_change *c)
{
	buf_puts(p->out, "<li class=\"f changed\" data-layers=\"");
	esc(p, emit_html_slug(p->a, group_of(c)));
	buf_printf(p->out, "\"><div><span class=\"kind k-%s\">%s</span> "
	    "<b>", kinds[c->kind], kinds[c->kind]);
	esc(p, c->name);
	buf_puts(p->out, "</b>");
	if (c->detail) {
		buf_puts(p->out, " <span class=\"num\">");
		if (c->kind == REVIEW_SKIPPED)
			buf_puts(p->out, "now ");
		else if (c->kind == REVIEW_UNSKIPPED)
			buf_puts(p->out, "no longer ");
		esc(p, c->detail);
		buf_puts(p->out, "</span>");
	}
	buf_puts(p->out, "</div>\n");
	if (c->kind == REVIEW_PARAM) {
		buf_puts(p->out, "<pre class=\"text\">");
		if (c->old && c->new)
			emit_html_diff(p->out, c->old, c->oldlen, c->new,
			    c->newlen, EMIT_HTML_BOTH);
		else if (c->new) {
			buf_puts(p->out, "<del>(none)</del> <ins>");
			emit_html_esc(p->out, c->new, c->newlen);
			buf_puts(p->out, "</ins>");
		} else if (c->old) {
			buf_puts(p->out, "<del>");
			emit_html_esc(p->out, c->old, c->oldlen);
			buf_puts(p->out, "</del> <ins>(none)</ins>");
		}
		buf_puts(p->out, "</pre>\n");
	} else if (c->what == REVIEW_TOOL) {
		/* named in the line above */
	} else if (c->kind == REVIEW_ADDED && c->new && c->newlen) {
		put_text(p, c->new, c->newlen, "ins");
	} else if (c->kind == REVIEW_REMOVED && c->old && c->oldlen) {
		put_text(p, c->old, c->oldlen, "del");
	} else if (c->kind == REVIEW_CHANGED && c->old && c->new) {
		buf_puts(p->out, "<pre class=\"text\">");
		emit_html_diff(p->out, c->old, c->oldlen, c->new, c->newlen,
		    EMIT_HTML_BOTH);
		buf_puts(p->out, "</pre>\n");
	}
	buf_puts(p->out, "</li>\n");
}

/* The changes, grouped by layer; then tools; then parameters. */
static void
put_changes(struct page *p)
{
	const struct review *r = p->r;
	struct emit_html_names groups = { NULL, 0, 0 };
	size_t i, g, n = 0;

	for (i = 0; i < r->n; i++) {
		const struct review_change *c = &r->v[i];

		if (c->kind == REVIEW_MESSAGE)
			continue;
		n++;
		emit_html_names_add(&groups, group_of(c));
	}
	buf_printf(p->out, "<section id=\"changes\" aria-labelledby="
	    "\"h-changes\">\n<h2 id=\"h-changes\">Changes by layer (%zu)"
	    "</h2>\n", n);
	if (!n)
		buf_puts(p->out, "<p class=\"empty\">No entry, item, tool or "
		    "parameter changed.</p>\n");
	for (g = 0; g < groups.n; g++) {
		buf_printf(p->out, "<h3><span class=\"sw %s\"></span>",
		    emit_html_hue(groups.v[g]));
		esc(p, groups.v[g]);
		buf_puts(p->out, "</h3>\n<ul class=\"changes\">\n");
		for (i = 0; i < r->n; i++) {
			const struct review_change *c = &r->v[i];
			if (c->kind != REVIEW_MESSAGE &&
			    strcmp(group_of(c), groups.v[g]) == 0)
				put_change(p, c);
		}
		buf_puts(p->out, "</ul>\n");
	}
	buf_puts(p->out, "</section>\n");
	emit_html_names_free(&groups);
}

static void
put_side(struct page *p, const struct msg *m, const struct msg *other,
    enum emit_html_side side)
{
	buf_puts(p->out, "<div>");
	if (!m) {
		buf_printf(p->out, "<p class=\"empty\">(not in the %s build)"
		    "</p></div>\n", side == EMIT_HTML_OLD ? "old" : "new");
		return;
	}
	buf_puts(p->out, "<pre class=\"text\">");
	if (!other) {
		/* the whole message came or went */
		buf_puts(p->out, side == EMIT_HTML_OLD ? "<del>" : "<ins>");
		emit_html_esc(p->out, m->content, m->len);
		buf_puts(p->out, side == EMIT_HTML_OLD ? "</del>" : "</ins>");
	} else if (msg_eq(m, other)) {
		emit_html_esc(p->out, m->content, m->len);
	} else if (side == EMIT_HTML_OLD) {
		emit_html_diff(p->out, m->content, m->len, other->content,
		    other->len, side);
	} else {
		emit_html_diff(p->out, other->content, other->len,
		    m->content, m->len, side);
	}
	buf_puts(p->out, "</pre></div>\n");
}

static void
put_size(struct page *p, const char *what, int64_t o, int64_t n)
{
	buf_puts(p->out, "<span class=\"num\">");
	if (o >= 0 && n >= 0 && o != n)
		buf_printf(p->out, "%" PRId64 " → %" PRId64 " %s (%+" PRId64
		    ")", o, n, what, n - o);
	else
		buf_printf(p->out, "%" PRId64 " %s", n >= 0 ? n : o, what);
	buf_puts(p->out, "</span>");
}

static void
put_messages(struct page *p, const char *oldname, const char *newname)
{
	const struct review *r = p->r;
	size_t nrows, i, k;
	struct row *rows = align(p, &nrows);
	bool cut = false;

	buf_printf(p->out, "<section id=\"messages\" aria-labelledby="
	    "\"h-messages\">\n<h2 id=\"h-messages\">Messages side by side "
	    "(%zu and %zu)</h2>\n<div class=\"side-h\"><div>old: ",
	    p->nold, p->nnew);
	esc(p, oldname);
	buf_puts(p->out, "</div><div>new: ");
	esc(p, newname);
	buf_puts(p->out, "</div></div>\n<ol class=\"msgs\">\n");
	for (i = 0; i < nrows; i++) {
		const struct msg *o = rows[i].o >= 0 ? &p->old[rows[i].o] :
		    NULL, *n = rows[i].n >= 0 ? &p->new[rows[i].n] : NULL;
		const struct msg *m = n ? n : o;
		bool changed = !o || !n || !msg_eq(o, n);
		/* as on a build's page, the first and last messages are
		 * open; and every one that changed */
		bool open = changed || nrows <= OPEN_SAME || i < OPEN_ENDS ||
		    i + OPEN_ENDS >= nrows;

		if (!cut && !r->prefix_same && !r->prefix_tool && n &&
		    (size_t)rows[i].n >= r->prefix_msg) {
			cut = true;
			buf_printf(p->out, "<li class=\"cut\" id=\"cache-cut\">"
			    "<span>the cached prefix breaks in new message "
			    "%zu, byte %zu</span></li>\n", r->prefix_msg + 1,
			    r->prefix_byte);
		}
		buf_printf(p->out, "<li class=\"msg f r-%s%s\"", m->role,
		    changed ? " changed" : "");
		if (n)
			buf_printf(p->out, " id=\"new-%ld\"", rows[i].n + 1);
		buf_puts(p->out, " data-role=\"");
		esc(p, m->role);
		buf_puts(p->out, "\" data-layers=\"");
		for (k = 0; k < m->nlayers; k++) {
			if (k)
				buf_putc(p->out, ' ');
			esc(p, emit_html_slug(p->a, m->layers[k]));
		}
		buf_printf(p->out, "\"><details%s><summary><span class=\"n\">",
		    open ? " open" : "");
		if (o)
			buf_printf(p->out, "#%ld", rows[i].o + 1);
		buf_puts(p->out, o && n ? " → " : "");
		if (n)
			buf_printf(p->out, "#%ld", rows[i].n + 1);
		buf_puts(p->out, "</span><span class=\"role\">");
		esc(p, m->role);
		buf_puts(p->out, "</span>");
		put_size(p, "bytes", o ? o->bytes : -1, n ? n->bytes : -1);
		put_size(p, "tokens", o ? o->tokens : -1, n ? n->tokens : -1);
		buf_printf(p->out, "<span class=\"kind k-%s\">%s</span>", !o ?
		    "added" : !n ? "removed" : changed ? "changed" : "same",
		    !o ? "added" : !n ? "removed" : changed ? "changed" :
		    "same");
		for (k = 0; k < m->nlayers; k++) {
			buf_printf(p->out, "<span class=\"chip %s\">",
			    emit_html_hue(m->layers[k]));
			esc(p, m->layers[k]);
			buf_puts(p->out, "</span>");
		}
		buf_puts(p->out, "</summary>\n<div class=\"sides\">\n");
		put_side(p, o, n, EMIT_HTML_OLD);
		put_side(p, n, o, EMIT_HTML_NEW);
		buf_puts(p->out, "</div></details></li>\n");
	}
	buf_puts(p->out, "</ol>\n</section>\n");
}

void
review_html(struct run *run, const struct review *r, const struct node *old,
    const struct node *new, const char *oldname, const char *newname,
    struct buf *out)
{
	struct page p;
	size_t i, nent = 0, nitem = 0, ntool = 0, nparam = 0;

	memset(&p, 0, sizeof(p));
	p.run = run;
	p.a = &run->arena;
	p.out = out;
	p.r = r;
	p.old = messages(&p, old, &p.nold);
	p.new = messages(&p, new, &p.nnew);
	for (i = 0; i < r->n; i++) {
		if (r->v[i].kind == REVIEW_MESSAGE)
			continue;
		if (r->v[i].what == REVIEW_ENTRY)
			nent++;
		else if (r->v[i].what == REVIEW_ITEM)
			nitem++;
		else if (r->v[i].what == REVIEW_TOOL)
			ntool++;
		else
			nparam++;
	}
	emit_html_head(out, arena_printf(p.a, "strata diff: %s → %s",
	    oldname, newname));
	buf_puts(out, "<header class=\"top\">\n<h1>Diff: ");
	esc(&p, oldname);
	buf_puts(out, " → ");
	esc(&p, newname);
	buf_printf(out, "</h1>\n<p class=\"meta\">%s · ", review_differ(r) ?
	    "different" : "the same");
	if (nitem)
		buf_printf(out, "%zu item%s, ", nitem, nitem == 1 ? "" : "s");
	buf_printf(out, "%zu entr%s, %zu tool%s, %zu parameter%s changed · "
	    "%zu and %zu messages</p>\n", nent, nent == 1 ? "y" : "ies",
	    ntool, ntool == 1 ? "" : "s", nparam, nparam == 1 ? "" : "s",
	    p.nold, p.nnew);
	buf_puts(out, "<nav aria-label=\"Sections\"><p class=\"meta\"><a "
	    "href=\"#prefix\">Cache prefix</a> · <a href=\"#changes\">Changes "
	    "by layer</a> · <a href=\"#messages\">Messages side by side</a>"
	    "</p></nav>\n</header>\n");
	/* the groups of the changes (layers, tools, params) join the
	 * layers of the messages */
	for (i = 0; i < r->n; i++)
		if (r->v[i].kind != REVIEW_MESSAGE)
			emit_html_names_add(&p.layers, group_of(&r->v[i]));
	emit_html_filters(out, p.a, &p.roles, &p.layers, "messages", true);
	buf_puts(out, "<main class=\"wide\">\n");
	put_prefix(&p);
	put_changes(&p);
	put_messages(&p, oldname, newname);
	buf_puts(out, "</main>\n");
	emit_html_foot(out);
	emit_html_names_free(&p.roles);
	emit_html_names_free(&p.layers);
}
