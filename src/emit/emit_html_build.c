/*
 * The stage inspector of a build (strata debug -f html): the page of
 * emit_html.h, from what the text debug view reads.  For a profile
 * build, each message's entries coloured by layer, the entries left out
 * in the message they would have joined, and the rewrite passes as
 * stages; for a SillyTavern build, each message's items coloured by
 * source, the items left out where they would have been, the four
 * stages and the world-info records.  Then tokens per layer against the
 * budget and where the cached prefix ends.
 */
/* memmem(): linear however repetitive the text (a piece not found in a
 * huge message must not cost its length times the message's) */
#define _GNU_SOURCE
#include "emit/emit_html.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/hash.h"
#include "base/map.h"
#include "base/util.h"
#include "data/json.h"
#include "diag/run.h"
#include "pipeline/budget.h"
#include "pipeline/rewrite.h"
#include "profile/profile.h"
#include "prompt/chat.h"
#include "tavern/titem.h"
#include "tavern/wi.h"
#include "tavern/world.h"

/* With more messages than this, only the first and last few are open. */
#define OPEN_ALL 12
#define OPEN_ENDS 3
#define MAX_PASSES 8

static const char *const stage_words[TAVERN_NSTAGES] = {
	"as read",
	"after the regex scripts that run before macros",
	"after macro substitution",
	"after the regex scripts that run after macros",
};

/* A piece of a message's text, coloured by its layer or source. */
struct piece {
	const char *s;
	size_t len;
	const char *hue;
	const char *label;      /* title: key, layer, where */
};

/* Tokens per layer or source, in order of first appearance. */
struct sums {
	struct emit_html_names names;
	size_t *tok, cap;
};

struct page {
	struct run *run;
	const struct chat *c;
	struct buf *out;
	struct arena *a;
	struct emit_counter count;
	const char *approx;             /* "~" before estimated counts */
	size_t *mtok;                   /* tokens of each message's text */
	size_t *ovh;                    /* SillyTavern builds: each
	                                 * message's overhead, else 0 */
	size_t cut;                     /* messages [0, cut) are the prefix */
	/* profile builds: the entry passes' names */
	const char *pass[MAX_PASSES];
	size_t npass;
	/* what was left out, by where it goes (slot 2i: before message i,
	 * 2i + 1: after it, 2n: at the end): items or entries */
	size_t *slot_start, *slot_of;
};

static void
esc(struct page *p, const char *s)
{
	emit_html_escs(p->out, s);
}

static void
sums_add(struct sums *s, const char *name, size_t tok)
{
	size_t i;

	for (i = 0; i < s->names.n; i++)
		if (strcmp(s->names.v[i], name) == 0)
			break;
	if (i == s->names.n) {
		emit_html_names_add(&s->names, name);
		if (s->names.n > s->cap) {
			s->cap = s->names.cap;
			s->tok = xreallocarray(s->tok, s->cap, sizeof(*s->tok));
		}
		s->tok[i] = 0;
	}
	s->tok[i] += tok;
}

static void
sums_free(struct sums *s)
{
	emit_html_names_free(&s->names);
	free(s->tok);
}

/* The first occurrence of n[0..nlen) in h[0..hlen), or NULL. */
static const char *
find(const char *h, size_t hlen, const char *n, size_t nlen)
{
	if (!nlen || nlen > hlen)
		return NULL;
	return memmem(h, hlen, n, nlen);
}

/* A link to where a piece came from, shown as path:line.  A text read
 * from inside a file (a card's JSON in a PNG chunk: "card.png[ccv3]")
 * links to the file. */
static void
put_where(struct page *p, bool has, uint32_t src, struct span sp)
{
	const char *where = emit_where(p->run, has, src, sp);
	const struct source *s = has ? run_source(p->run, src) : NULL;
	size_t len;

	if (!where || !s)
		return;
	/* --inject, --user: no file to point at */
	if (*where == '-') {
		buf_puts(p->out, "<span class=\"src mono\">");
		esc(p, where);
		buf_puts(p->out, "</span>");
		return;
	}
	len = strlen(s->path);
	if (!s->file && len && s->path[len - 1] == ']' &&
	    strrchr(s->path, '['))
		len = (size_t)(strrchr(s->path, '[') - s->path);
	buf_puts(p->out, "<a class=\"src mono\" href=\"");
	emit_html_url(p->out, s->path, len);
	buf_puts(p->out, "\">");
	esc(p, where);
	buf_puts(p->out, "</a>");
}

static void
put_chip(struct page *p, const char *name)
{
	buf_printf(p->out, "<span class=\"chip %s\">", emit_html_hue(name));
	esc(p, name);
	buf_puts(p->out, "</span>");
}

/*
 * A SillyTavern build counts a message as its budget does (the build's
 * tokenizer, tavern/plug.c): the text, and per message 3 tokens, its
 * role and, with a name, the name and 1 more.  The page keeps the two
 * apart everywhere: a message's text (as the debug view counts it) and
 * its overhead, which together are what the budget counts.
 */
static size_t
tavern_overhead(const struct page *p, const struct message *m)
{
	const char *role = names_role(m->role);
	size_t n = 3 + emit_count(&p->count, role, strlen(role));

	if (m->name && *m->name)
		n += emit_count(&p->count, m->name, strlen(m->name)) + 1;
	return n;
}

/* The text, with each piece found in it (in order) coloured. */
static void
put_text(struct page *p, const char *s, size_t len, const struct piece *v,
    size_t n)
{
	size_t k, at = 0;
	const char *f;

	buf_puts(p->out, "<pre class=\"text\">");
	for (k = 0; k < n; k++) {
		f = find(s + at, len - at, v[k].s, v[k].len);
		if (!f)
			continue;
		emit_html_esc(p->out, s + at, (size_t)(f - (s + at)));
		buf_printf(p->out, "<span class=\"pc %s\" title=\"", v[k].hue);
		esc(p, v[k].label);
		buf_puts(p->out, "\">");
		emit_html_esc(p->out, f, v[k].len);
		buf_puts(p->out, "</span>");
		at = (size_t)(f - s) + v[k].len;
	}
	emit_html_esc(p->out, s + at, len - at);
	buf_puts(p->out, "</pre>\n");
}

/* The SillyTavern source an item counts under. */
static const char *
item_source(const struct tavern_item *it)
{
	return emit_html_source(it->id, it->source);
}

static const char *
position(struct arena *a, const struct tavern_item *it)
{
	if (it->place)
		return it->place;
	return it->depth < 0 ? "relative" : arena_printf(a, "in-chat @%lld",
	    (long long)it->depth);
}

static bool
same(const struct etext *x, const struct etext *y)
{
	return x->len == y->len && (x->s == y->s || memcmp(x->s, y->s,
	    x->len) == 0);
}

/* --- where left-out things go --- */

/* Sort the things 0..n by their slots into p->slot_of, counting sort,
 * keeping their order within a slot. */
static void
slots(struct page *p, const size_t *slot, size_t n)
{
	size_t nslots = 2 * p->c->n + 1, i;
	size_t *fill = xcalloc(nslots + 1, sizeof(*fill));

	p->slot_start = xcalloc(nslots + 1, sizeof(*p->slot_start));
	p->slot_of = xcalloc(n ? n : 1, sizeof(*p->slot_of));
	for (i = 0; i < n; i++)
		if (slot[i] < nslots)
			p->slot_start[slot[i] + 1]++;
	for (i = 0; i < nslots; i++)
		p->slot_start[i + 1] += p->slot_start[i];
	for (i = 0; i < n; i++)
		if (slot[i] < nslots)
			p->slot_of[p->slot_start[slot[i]] +
			    fill[slot[i]]++] = i;
	free(fill);
}

/* A SillyTavern item out of the request (or a marker) goes by the
 * in-request item nearest it in the build's order: an in-chat item
 * before the next one's message, a relative one after the last one's. */
static void
tavern_slots(struct page *p)
{
	const struct tavern_report *r = p->c->tavern;
	size_t i, end = 2 * p->c->n, n = r->n ? r->n : 1;
	size_t *slot = xcalloc(n, sizeof(*slot));
	size_t *before = xcalloc(n, sizeof(*before));
	size_t after = end;

	/* before[i]: the slot before the message of the next in-request
	 * item after i; after: the slot after the last one before i */
	before[n - 1] = end;
	for (i = r->n; i-- > 0;) {
		if (i + 1 < r->n)
			before[i] = r->items[i + 1].message >= 0 ?
			    2 * (size_t)r->items[i + 1].message :
			    before[i + 1];
	}
	for (i = 0; i < r->n; i++) {
		const struct tavern_item *it = &r->items[i];

		slot[i] = SIZE_MAX;
		if (it->message >= 0) {
			after = 2 * (size_t)it->message + 1;
			continue;
		}
		if (it->depth >= 0)
			slot[i] = before[i] != end ? before[i] : after;
		else
			slot[i] = after != end ? after : before[i];
	}
	slots(p, slot, r->n);
	free(before);
	free(slot);
}

/* An entry left out goes into the message it would have joined: the
 * one its replacement is in, else the first of its role and placement;
 * else at the end. */
static void
profile_slots(struct page *p)
{
	const struct chat *c = p->c;
	size_t i, j, *slot = xcalloc(c->stack.nall ? c->stack.nall : 1,
	    sizeof(*slot));

	for (i = 0; i < c->stack.nall; i++) {
		const struct entry *e = c->stack.all[i];

		slot[i] = SIZE_MAX;
		if (e->status == ENTRY_ACTIVE)
			continue;
		slot[i] = 2 * c->n;
		if (e->replaced_by && e->replaced_by->message >= 0) {
			slot[i] = 2 * (size_t)e->replaced_by->message + 1;
			continue;
		}
		for (j = 0; j < c->n; j++) {
			const char *o = c->msgs[j].origin;

			if ((e->placement == PLACE_SYSTEM &&
			    c->msgs[j].role == e->role && (strcmp(o,
			    "system") == 0 || strcmp(o, "developer") == 0)) ||
			    (e->placement == PLACE_USER && strcmp(o,
			    "turn") == 0)) {
				slot[i] = 2 * j + 1;
				break;
			}
		}
	}
	slots(p, slot, c->stack.nall);
	free(slot);
}

/* --- one message --- */

static void
put_item_line(struct page *p, const struct tavern_item *it, bool gone)
{
	const char *src = item_source(it);

	buf_printf(p->out, "<span><span class=\"sw %s\"></span>"
	    "<b class=\"key\">", emit_html_hue(src));
	esc(p, it->id);
	buf_puts(p->out, "</b></span><span>");
	esc(p, src);
	buf_puts(p->out, " · ");
	esc(p, it->role);
	buf_puts(p->out, " · ");
	esc(p, position(p->a, it));
	buf_puts(p->out, "</span>");
	if (it->counted)
		buf_printf(p->out, "<span class=\"num\">%zu tokens</span>",
		    it->tokens);
	if (gone && it->reason) {
		buf_puts(p->out, "<span class=\"why\">out: ");
		esc(p, it->reason);
		buf_puts(p->out, "</span>");
	}
	if (it->note) {
		buf_puts(p->out, "<span class=\"num\">");
		esc(p, it->note);
		buf_puts(p->out, "</span>");
	}
}

/* Item i, out of the request or a marker, where it would have been. */
static void
put_out_item(struct page *p, size_t i)
{
	const struct tavern_item *it = &p->c->tavern->items[i];

	buf_printf(p->out, "<li class=\"out f%s\" data-role=\"", it->reason ?
	    " gone" : "");
	esc(p, it->role);
	buf_puts(p->out, "\" data-layers=\"");
	esc(p, emit_html_slug(p->a, item_source(it)));
	buf_puts(p->out, "\"><ul class=\"pieces\"><li>");
	put_item_line(p, it, true);
	buf_puts(p->out, "</li></ul>");
	/* the text that stayed out, as it would have been sent */
	if (*it->text[TAVERN_STAGE_REGEX_POST]) {
		buf_puts(p->out, "<details><summary>text</summary><pre "
		    "class=\"text\">");
		esc(p, it->text[TAVERN_STAGE_REGEX_POST]);
		buf_puts(p->out, "</pre></details>");
	}
	buf_puts(p->out, "</li>\n");
}

/* What the token budget did to entry key, or NULL. */
static const struct budget_cut *
cut_of(const struct page *p, const char *key)
{
	const struct budget_report *b = p->c->budget;
	size_t i;

	for (i = 0; b && i < b->ncuts; i++)
		if (b->cuts[i].key && strcmp(b->cuts[i].key, key) == 0)
			return &b->cuts[i];
	return NULL;
}

/* What the cut needed and what was left of the budget; closes the
 * span. */
static void
put_budget_left(struct page *p, const struct budget_cut *k)
{
	const struct budget_report *b = p->c->budget;
	const char *ap = b->exact ? "" : "~";

	buf_printf(p->out, "; %s needed %s%zu, %s%zu left of the "
	    "%lld-token budget", k->key ? "in place it" : "the newest turn cut",
	    ap, k->need, ap, k->left, (long long)b->budget);
	if (!b->exact)
		buf_printf(p->out, " (%lld after the %d%% margin)",
		    (long long)b->room, b->margin);
	buf_puts(p->out, "</span>");
}

static void
put_budget_cut(struct page *p, const struct budget_cut *k)
{
	const char *ap = p->c->budget->exact ? "" : "~";

	buf_puts(p->out, "<span class=\"why\">budget: ");
	if (k->fate == BUDGET_DROPPED)
		buf_printf(p->out, "dropped, %s%zu tokens", ap, k->was);
	else if (k->fate == BUDGET_FALLBACK)
		buf_printf(p->out, "its fallback, %s%zu of %s%zu tokens", ap,
		    k->now, ap, k->was);
	else
		buf_printf(p->out, "truncated (%s cut) to %s%zu of %s%zu "
		    "tokens", k->how ? k->how : "", ap, k->now, ap, k->was);
	put_budget_left(p, k);
}

/* The history the budget dropped, where it was. */
static void
put_history_cuts(struct page *p)
{
	const struct budget_report *b = p->c->budget;
	size_t i;

	for (i = 0; b && i < b->ncuts; i++) {
		const struct budget_cut *k = &b->cuts[i];

		if (k->key)
			continue;
		buf_printf(p->out, "<li class=\"out f gone\" data-layers="
		    "\"history\"><ul class=\"pieces\"><li><span><span "
		    "class=\"sw Ln\"></span><b class=\"key\">history "
		    "message%s %zu", k->first < k->last ? "s" : "", k->first);
		if (k->first < k->last)
			buf_printf(p->out, "–%zu", k->last);
		buf_printf(p->out, "</b></span><span>%zu turn%s, oldest first"
		    "</span>", k->turns, k->turns == 1 ? "" : "s");
		if (k->counted) {
			put_budget_cut(p, k);
		} else {
			buf_puts(p->out, "<span class=\"why\">budget: "
			    "dropped");
			put_budget_left(p, k);
		}
		buf_puts(p->out, "</li></ul></li>\n");
	}
}

static void
put_entry_line(struct page *p, const struct entry *e, bool gone)
{
	buf_printf(p->out, "<li%s><span><span class=\"sw %s\"></span>"
	    "<b class=\"key\">", gone ? " class=\"gone\"" : "",
	    emit_html_hue(e->layer));
	esc(p, e->key);
	buf_puts(p->out, "</b></span><span>");
	esc(p, e->layer);
	buf_printf(p->out, " · %s · %s · ", names_role(e->role),
	    names_scope(e->scope));
	if (e->base)
		buf_puts(p->out, "base");
	else
		buf_printf(p->out, "priority %d", e->priority);
	buf_puts(p->out, "</span>");
	if (!gone)
		buf_printf(p->out, "<span class=\"num\">%zu bytes, %s%zu "
		    "tokens</span>", e->len, p->approx, emit_count(&p->count,
		    e->content, e->len));
	if (gone) {
		buf_puts(p->out, "<span class=\"why\">out: ");
		buf_puts(p->out, e->status == ENTRY_MISSING ?
		    "missing context" : entry_status_name(e->status));
		if (e->status == ENTRY_REPLACED && e->replaced_by) {
			buf_puts(p->out, " by ");
			esc(p, e->replaced_by->key);
		}
		buf_puts(p->out, "</span>");
	}
	/* dropped, truncated or replaced by its fallback to fit */
	if ((gone && e->status == ENTRY_BUDGET) || !gone) {
		const struct budget_cut *k = cut_of(p, e->key);

		if (k)
			put_budget_cut(p, k);
	}
	put_where(p, e->has_src, e->src, e->span);
	buf_puts(p->out, "</li>\n");
}

/* A profile build's entries that are out, in slot s. */
static void
put_gone_entries(struct page *p, size_t s)
{
	size_t k;

	for (k = p->slot_start[s]; k < p->slot_start[s + 1]; k++)
		put_entry_line(p, p->c->stack.all[p->slot_of[k]], true);
}

static void
stage_open(struct page *p, size_t i, size_t k, const char *label,
    const char *words, bool changed)
{
	buf_printf(p->out, "<section class=\"stage%s\" id=\"m%zu-s%zu\" "
	    "data-label=\"", changed ? " changed" : "", i + 1, k);
	esc(p, label);
	buf_puts(p->out, "\"><h4>");
	esc(p, label);
	buf_puts(p->out, " <small>");
	esc(p, words);
	buf_puts(p->out, "</small></h4>\n");
}

/* "what: names", or that the build did not name them. */
static void
put_by(struct page *p, const char *what, const char *names)
{
	buf_printf(p->out, "<p class=\"by\">%s: ", what);
	if (names)
		esc(p, names);
	else
		buf_puts(p->out, "<span class=\"same\">not named by the "
		    "build</span>");
	buf_puts(p->out, "</p>\n");
}

/* The macros a macro stage replaced: the distinct {{...}} of the text
 * before it that the text after it no longer has.  Two hash sets keep
 * it linear however many macros a text holds. */
static void
put_macros(struct page *p, const char *s, const char *after)
{
	struct buf b = BUF_INIT;
	struct map still, seen;
	const char *m, *e;
	bool added;

	map_init(&still, NULL);
	map_init(&seen, NULL);
	for (m = strstr(after, "{{"); m; m = strstr(e, "{{")) {
		e = strstr(m + 2, "}}");
		if (!e)
			break;
		e += 2;
		map_intern(&still, m, (size_t)(e - m), NULL);
	}
	for (m = strstr(s, "{{"); m; m = strstr(e, "{{")) {
		e = strstr(m + 2, "}}");
		if (!e)
			break;
		e += 2;
		map_intern(&seen, m, (size_t)(e - m), &added);
		if (!added || map_find(&still, m, (size_t)(e - m)))
			continue;
		if (b.len)
			buf_puts(&b, ", ");
		buf_put(&b, m, (size_t)(e - m));
	}
	buf_putc(&b, '\0');
	put_by(p, "Macros", b.len > 1 ? b.data : NULL);
	buf_free(&b);
	map_free(&still);
	map_free(&seen);
}

/* The regex scripts that changed message i at stage k (its items'),
 * or NULL when the build did not say. */
static const char *
stage_by(struct page *p, size_t i, enum tavern_stage k)
{
	const struct tavern_report *r = p->c->tavern;
	struct buf b = BUF_INIT;
	const char *s = NULL;
	uint32_t j;

	for (j = 0; j < r->msg_nitems[i]; j++) {
		const char *by = r->items[r->msg_items[i][j]].by[k];

		if (!by || (b.len && strstr(b.data, by)))
			continue;
		if (b.len)
			buf_puts(&b, ", ");
		buf_puts(&b, by);
		buf_putc(&b, '\0');
		b.len--;
	}
	if (b.len)
		s = arena_strndup(p->a, b.data, b.len);
	buf_free(&b);
	return s;
}

static void
tavern_stages(struct page *p, size_t i)
{
	const char *t[TAVERN_NSTAGES];
	size_t k;
	bool any = false;

	for (k = 0; k < TAVERN_NSTAGES; k++) {
		t[k] = emit_tavern_stage(p->a, p->c, i, k);
		if (k && strcmp(t[k], t[k - 1]))
			any = true;
	}
	if (!any) {
		buf_puts(p->out, "<p class=\"same\">No regex script or macro "
		    "changed this message.</p>\n");
		return;
	}
	buf_puts(p->out, "<div class=\"stages\">\n");
	for (k = 0; k < TAVERN_NSTAGES; k++) {
		bool changed = k && strcmp(t[k], t[k - 1]);

		stage_open(p, i, k, tavern_stage_name((enum tavern_stage)k),
		    stage_words[k], changed);
		if (changed && k == TAVERN_STAGE_MACROS)
			put_macros(p, t[k - 1], t[k]);
		else if (changed)
			put_by(p, "Regex scripts", stage_by(p, i,
			    (enum tavern_stage)k));
		if (k == 0) {
			buf_puts(p->out, "<pre class=\"text\">");
			esc(p, t[0]);
			buf_puts(p->out, "</pre>\n");
		} else if (!changed) {
			buf_printf(p->out, "<p class=\"same\">Unchanged from "
			    "%s.</p>\n", tavern_stage_name(
			    (enum tavern_stage)(k - 1)));
		} else {
			buf_puts(p->out, "<pre class=\"text\">");
			emit_html_diff(p->out, t[k - 1], strlen(t[k - 1]),
			    t[k], strlen(t[k]), EMIT_HTML_BOTH);
			buf_puts(p->out, "</pre>\n");
		}
		buf_puts(p->out, "</section>\n");
	}
	buf_puts(p->out, "</div>\n");
}

/* Has any pass changed entry e. */
static bool
entry_changed(const struct entry *e)
{
	size_t k;

	for (k = 0; k < e->nstages; k++)
		if (!same(&e->stages[k], &e->raw))
			return true;
	return false;
}

static void
profile_stages(struct page *p, const struct message *m, size_t i)
{
	size_t k, j, n = 0;
	bool changed;

	for (j = 0; j < m->nentries; j++)
		if (entry_changed(m->entries[j]))
			n++;
	if (!n) {
		if (m->nentries)
			buf_puts(p->out, "<p class=\"same\">No rewrite pass "
			    "changed this message's entries.</p>\n");
		return;
	}
	buf_puts(p->out, "<div class=\"stages\">\n");
	for (k = 0; k <= p->npass; k++) {
		changed = false;
		for (j = 0; k && j < m->nentries; j++) {
			const struct entry *e = m->entries[j];

			if (k <= e->nstages && !same(&e->stages[k - 1], k >
			    1 ? &e->stages[k - 2] : &e->raw))
				changed = true;
		}
		stage_open(p, i, k, k ? p->pass[k - 1] : "raw", k ?
		    "after this rewrite pass" : "as collected", changed);
		for (j = 0; j < m->nentries; j++) {
			const struct entry *e = m->entries[j];
			const struct etext *now, *was;

			if (!entry_changed(e))
				continue;
			now = k == 0 ? &e->raw : k <= e->nstages ?
			    &e->stages[k - 1] : &e->stages[e->nstages - 1];
			was = k <= 1 ? &e->raw : k - 1 <= e->nstages ?
			    &e->stages[k - 2] : now;
			buf_printf(p->out, "<h5><span class=\"sw %s\"></span>",
			    emit_html_hue(e->layer));
			esc(p, e->key);
			buf_puts(p->out, "</h5>\n");
			if (k && same(now, was)) {
				buf_puts(p->out, "<p class=\"same\">Unchanged."
				    "</p>\n");
				continue;
			}
			if (k && p->pass[k - 1] == rewrite_placeholders.name)
				put_macros(p, arena_strndup(p->a, was->s,
				    was->len), arena_strndup(p->a, now->s,
				    now->len));
			buf_puts(p->out, "<pre class=\"text\">");
			if (k == 0)
				emit_html_esc(p->out, now->s, now->len);
			else
				emit_html_diff(p->out, was->s, was->len,
				    now->s, now->len, EMIT_HTML_BOTH);
			buf_puts(p->out, "</pre>\n");
		}
		buf_puts(p->out, "</section>\n");
	}
	buf_puts(p->out, "</div>\n");
}

/* The layers a message holds, space-separated slugs. */
static const char *
message_layers(struct page *p, const struct message *m, size_t i)
{
	struct emit_html_names l = { NULL, 0, 0 };
	struct buf b = BUF_INIT;
	const char *s;
	size_t k;

	if (p->c->tavern) {
		const struct tavern_report *r = p->c->tavern;

		for (k = 0; k < r->msg_nitems[i]; k++)
			emit_html_names_add(&l, item_source(
			    &r->items[r->msg_items[i][k]]));
	} else {
		for (k = 0; k < m->nentries; k++)
			emit_html_names_add(&l, m->entries[k]->layer);
		if (!m->nentries)
			emit_html_names_add(&l, strcmp(m->origin, "turn") ?
			    "history" : "turn");
	}
	for (k = 0; k < l.n; k++) {
		if (k)
			buf_putc(&b, ' ');
		buf_puts(&b, emit_html_slug(p->a, l.v[k]));
	}
	buf_putc(&b, '\0');
	s = arena_strdup(p->a, b.data);
	/* the chips, while the names are at hand */
	for (k = 0; k < l.n; k++)
		put_chip(p, l.v[k]);
	emit_html_names_free(&l);
	buf_free(&b);
	return s;
}

static void
put_message(struct page *p, size_t i)
{
	const struct chat *c = p->c;
	const struct message *m = &c->msgs[i];
	const struct tavern_report *r = c->tavern;
	struct piece *v;
	size_t k, n = 0;
	bool open = c->n <= OPEN_ALL || i < OPEN_ENDS || i >= c->n - OPEN_ENDS;
	const char *layers;

	buf_printf(p->out, "<li class=\"msg f r-%s\" id=\"m%zu\" "
	    "data-role=\"%s\" data-layers=\"", names_role(m->role), i + 1,
	    names_role(m->role));
	/* the summary is written aside: the layers it finds go first */
	{
		struct buf head = BUF_INIT, *save = p->out;

		p->out = &head;
		buf_printf(&head, "\"><details%s><summary><span class=\"n\">"
		    "#%zu</span><span class=\"role\">%s</span>", open ?
		    " open" : "", i + 1, names_role(m->role));
		if (m->name) {
			buf_puts(&head, "<span>");
			esc(p, m->name);
			buf_puts(&head, "</span>");
		}
		buf_puts(&head, "<span class=\"num\">");
		esc(p, m->origin);
		if (strcmp(m->origin, "in-chat") == 0 && m->nentries)
			buf_printf(&head, ", depth %d", m->entries[0]->depth);
		buf_printf(&head, "</span><span class=\"num\">%zu bytes"
		    "</span><span class=\"num\">%s%zu tokens", m->len,
		    p->approx, p->mtok[i]);
		if (p->ovh[i])
			buf_printf(&head, " + %zu overhead", p->ovh[i]);
		buf_puts(&head, "</span>");
		layers = message_layers(p, m, i);
		buf_puts(&head, "</summary>\n<div>\n");
		p->out = save;
		buf_puts(p->out, layers);
		buf_put(p->out, head.data, head.len);
		buf_free(&head);
	}
	/* the text, its pieces coloured */
	n = r ? r->msg_nitems[i] : m->nentries;
	v = xcalloc(n ? n : 1, sizeof(*v));
	for (k = 0; k < n; k++) {
		if (r) {
			const struct tavern_item *it =
			    &r->items[r->msg_items[i][k]];

			v[k].s = it->text[TAVERN_STAGE_REGEX_POST];
			v[k].len = strlen(v[k].s);
			v[k].hue = emit_html_hue(item_source(it));
			v[k].label = arena_printf(p->a, "%s (%s)", it->id,
			    item_source(it));
		} else {
			const struct entry *e = m->entries[k];
			const char *w = emit_where(p->run, e->has_src, e->src,
			    e->span);

			v[k].s = e->content ? e->content : "";
			v[k].len = e->content ? e->len : 0;
			v[k].hue = emit_html_hue(e->layer);
			v[k].label = arena_printf(p->a, "%s (%s)%s%s", e->key,
			    e->layer, w ? " " : "", w ? w : "");
		}
	}
	put_text(p, m->content, m->len, v, n);
	free(v);
	if (m->x) {
		struct buf b = BUF_INIT;

		emit_extra_text(&b, m);
		if (m->x->call_id)
			buf_printf(&b, "result of %s %s%s\n", m->x->call_name,
			    m->x->call_id, m->x->is_error ? ", an error" : "");
		if (b.len) {
			buf_puts(p->out, "<pre class=\"text num\">");
			emit_html_esc(p->out, b.data, b.len);
			buf_puts(p->out, "</pre>\n");
		}
		buf_free(&b);
	}
	/* the pieces, and what is out that would have joined them */
	buf_puts(p->out, "<ul class=\"pieces\">\n");
	if (r) {
		for (k = 0; k < r->msg_nitems[i]; k++) {
			buf_puts(p->out, "<li>");
			put_item_line(p, &r->items[r->msg_items[i][k]], false);
			buf_puts(p->out, "</li>\n");
		}
	} else {
		for (k = 0; k < m->nentries; k++)
			put_entry_line(p, m->entries[k], false);
		put_gone_entries(p, 2 * i + 1);
		if (!m->nentries && (m->has_src || strcmp(m->origin, "turn"))) {
			buf_printf(p->out, "<li><span><span class=\"sw Ln\">"
			    "</span>%s</span><span class=\"num\">%zu bytes"
			    "</span>", strcmp(m->origin, "turn") ?
			    "history message" : "user text", m->has_src &&
			    !strcmp(m->origin, "turn") ? (size_t)m->span.len :
			    m->len);
			put_where(p, m->has_src, m->src, m->span);
			buf_puts(p->out, "</li>\n");
		}
	}
	buf_puts(p->out, "</ul>\n");
	if (r)
		tavern_stages(p, i);
	else
		profile_stages(p, m, i);
	buf_puts(p->out, "</div></details></li>\n");
}

static void
put_slot(struct page *p, size_t s)
{
	size_t k;

	if (p->c->tavern) {
		for (k = p->slot_start[s]; k < p->slot_start[s + 1]; k++)
			put_out_item(p, p->slot_of[k]);
		return;
	}
	if (p->slot_start[s] == p->slot_start[s + 1])
		return;
	buf_puts(p->out, "<li class=\"out\"><ul class=\"pieces\">\n");
	put_gone_entries(p, s);
	buf_puts(p->out, "</ul></li>\n");
}

/* --- the page's sections --- */

static void
put_cut(struct page *p)
{
	buf_printf(p->out, "<li class=\"cut\" id=\"cache-cut\"><span>cache "
	    "prefix ends: message%s 1", p->cut > 1 ? "s" : "");
	if (p->cut > 1)
		buf_printf(p->out, "–%zu", p->cut);
	buf_printf(p->out, " above, the new turn below</span></li>\n");
}

static void
put_messages(struct page *p)
{
	size_t i;

	buf_printf(p->out, "<section id=\"messages\" aria-labelledby="
	    "\"h-messages\">\n<h2 id=\"h-messages\">Messages (%zu)</h2>\n"
	    "<ol class=\"msgs\">\n", p->c->n);
	for (i = 0; i < p->c->n; i++) {
		if (i == emit_first_turn(p->c) && !p->c->tavern)
			put_history_cuts(p);
		put_slot(p, 2 * i);
		if (p->cut && i == p->cut)
			put_cut(p);
		put_message(p, i);
		/* a profile build lists these inside the message */
		if (p->c->tavern)
			put_slot(p, 2 * i + 1);
	}
	put_slot(p, 2 * p->c->n);
	buf_puts(p->out, "</ol>\n</section>\n");
}

static void
put_bar_legend(struct page *p, const struct sums *s)
{
	size_t i;

	buf_puts(p->out, "<ul class=\"legend\">\n");
	for (i = 0; i < s->names.n; i++) {
		buf_printf(p->out, "<li><span class=\"sw %s\"></span>",
		    emit_html_hue(s->names.v[i]));
		esc(p, s->names.v[i]);
		buf_printf(p->out, " <span class=\"num\">%s%zu</span></li>\n",
		    p->approx, s->tok[i]);
	}
	buf_puts(p->out, "</ul>\n");
}

/*
 * Message i's tokens, shared among the layers or sources of its pieces
 * (name[k] for the piece v[k].s, found in the text in order): each
 * piece gets the tokens of the text from the end of the piece before to
 * its own end, the last piece found the rest, so the shares add up to
 * the message's count exactly (a share is capped by what is left, as
 * counting in parts can give a token more than counting the whole).
 * Text before the first piece is the first one's; each byte is counted
 * once, so this stays linear in the text.
 */
static void
share(struct page *p, struct sums *s, size_t i, const struct piece *v,
    const char *const *name, size_t n)
{
	const struct message *m = &p->c->msgs[i];
	size_t k, at = 0, from = 0, used = 0, part, last = SIZE_MAX;
	const char *f;

	for (k = 0; k < n; k++) {
		f = find(m->content + at, m->len - at, v[k].s, v[k].len);
		if (!f)
			continue;
		if (last != SIZE_MAX) {
			part = emit_count(&p->count, m->content + from,
			    at - from);
			if (part > p->mtok[i] - used)
				part = p->mtok[i] - used;
			sums_add(s, name[last], part);
			used += part;
			from = at;
		}
		at = (size_t)(f - m->content) + v[k].len;
		last = k;
	}
	sums_add(s, last == SIZE_MAX ? name[0] : name[last], p->mtok[i] -
	    used);
}

static void
put_tokens(struct page *p)
{
	const struct chat *c = p->c;
	const struct tavern_report *r = c->tavern;
	struct sums s = { { NULL, 0, 0 }, NULL, 0 };
	size_t i, k, total = 0, all = 0, before = 0, scale, rest = 0;
	const struct budget_report *b = c->budget;
	long budget = r ? r->budget : b && b->on ? (long)b->budget : 0;

	if (r) {
		/* each message's text by its items' sources, then the
		 * overheads: what the budget counts */
		for (i = 0; i < c->n; i++) {
			size_t n = r->msg_nitems[i];
			struct piece *v = xcalloc(n + 1, sizeof(*v));
			const char **name = xcalloc(n + 1, sizeof(*name));

			for (k = 0; k < n; k++) {
				const struct tavern_item *it =
				    &r->items[r->msg_items[i][k]];

				v[k].s = it->text[TAVERN_STAGE_REGEX_POST];
				v[k].len = strlen(v[k].s);
				name[k] = item_source(it);
			}
			if (!n)
				name[0] = "chat";
			share(p, &s, i, v, name, n);
			free(v);
			free(name);
		}
		for (i = 0; i < c->n; i++)
			sums_add(&s, "overhead", p->ovh[i]);
	} else if (b && b->on) {
		/* the budget's own count, per-message overheads and all */
		for (i = 0; i < b->nlayers; i++)
			sums_add(&s, b->layers[i].layer, b->layers[i].tokens);
	} else {
		/* each message's text by its entries' layers, as the bar
		 * by message counts it */
		for (i = 0; i < c->n; i++) {
			const struct message *m = &c->msgs[i];
			struct piece *v = xcalloc(m->nentries + 1,
			    sizeof(*v));
			const char **name = xcalloc(m->nentries + 1,
			    sizeof(*name));

			for (k = 0; k < m->nentries; k++) {
				v[k].s = m->entries[k]->content ?
				    m->entries[k]->content : "";
				v[k].len = m->entries[k]->content ?
				    m->entries[k]->len : 0;
				name[k] = m->entries[k]->layer;
			}
			if (!m->nentries)
				name[0] = strcmp(m->origin, "turn") ?
				    "history" : "turn";
			share(p, &s, i, v, name, m->nentries);
			free(v);
			free(name);
		}
	}
	for (i = 0; i < s.names.n; i++)
		total += s.tok[i];
	for (i = 0; i < c->n; i++) {
		all += p->mtok[i] + p->ovh[i];
		if (i < p->cut)
			before += p->mtok[i] + p->ovh[i];
	}
	/* A profile build's budget counts more than the messages' texts:
	 * the tools, headings and separators, the overheads.  The bar by
	 * message ends with that rest, so both bars show what it counts. */
	if (!r && b && b->on && total > all) {
		rest = total - all;
		all = total;
	}
	buf_puts(p->out, "<section id=\"tokens\" aria-labelledby=\"h-tokens\">"
	    "\n<h2 id=\"h-tokens\">Tokens</h2>\n");
	if (r)
		buf_printf(p->out, "<p class=\"meta\">%s%zu in the request "
		    "of a %ld-token budget (the prompts use %ld), as "
		    "SillyTavern's budget counts: each message's text (%s) "
		    "and its overhead (3 tokens, the role, a name and 1)."
		    "</p>\n", p->approx, total, r->budget, r->used,
		    emit_counter_name(&p->count));
	else if (b && b->on) {
		buf_printf(p->out, "<p class=\"meta\">%s%zu used of a "
		    "%lld-token budget (", b->exact ? "" : "~", b->used,
		    (long long)b->budget);
		esc(p, b->from);
		buf_printf(p->out, "), %s%zu of them protected; ", b->exact ?
		    "" : "~", b->protected_tokens);
		if (b->exact)
			buf_printf(p->out, "counted with %s, exactly.</p>\n",
			    b->counter);
		else
			buf_printf(p->out, "estimated, so %d%% is kept free: "
			    "fitted to %lld.</p>\n", b->margin,
			    (long long)b->room);
	} else {
		buf_printf(p->out, "<p class=\"meta\">%s%zu tokens by layer; "
		    "no token budget", p->approx, total);
		if (b && b->none) {
			buf_puts(p->out, ": ");
			esc(p, b->none);
		}
		buf_puts(p->out, ".</p>\n");
	}
	scale = budget > 0 && (size_t)budget > total ? (size_t)budget : total;
	/* a budget twenty times the use would leave nothing to see */
	if (budget > 0 && total && total * 20 < (size_t)budget)
		scale = total;
	buf_printf(p->out, "<h3>By %s</h3>\n<div class=\"bar\" role=\"img\" "
	    "aria-label=\"tokens by %s\">", r ? "source" : "layer", r ?
	    "source" : "layer");
	for (i = 0; i < s.names.n && scale; i++) {
		buf_printf(p->out, "<span class=\"%s\" style=\"width:%.2f%%\" "
		    "title=\"", emit_html_hue(s.names.v[i]), 100.0 *
		    (double)s.tok[i] / (double)scale);
		esc(p, s.names.v[i]);
		buf_printf(p->out, ": %s%zu tokens\"></span>", p->approx,
		    s.tok[i]);
	}
	buf_puts(p->out, "</div>\n");
	if (budget > 0 && scale == total && total < (size_t)budget)
		buf_printf(p->out, "<p class=\"num\">The bar's full width is "
		    "the tokens used, %.1f%% of the %ld-token budget.</p>\n",
		    100.0 * (double)total / (double)budget, budget);
	else if (budget > 0)
		buf_printf(p->out, "<p class=\"num\">The bar's full width is "
		    "the %ld-token budget%s.</p>\n", budget, (size_t)budget <
		    total ? " (overflowed)" : "");
	put_bar_legend(p, &s);
	buf_puts(p->out, "<h3>By message, and the cached prefix</h3>\n"
	    "<div class=\"bar\" role=\"img\" aria-label=\"tokens by "
	    "message\">");
	for (i = 0; i < c->n && all; i++) {
		const struct message *m = &c->msgs[i];
		const char *hue = "Ln";

		if (r && r->msg_nitems[i])
			hue = emit_html_hue(item_source(
			    &r->items[r->msg_items[i][0]]));
		else if (!r && m->nentries)
			hue = emit_html_hue(m->entries[0]->layer);
		buf_printf(p->out, "<span class=\"%s\" style=\"width:%.2f%%\" "
		    "title=\"message %zu: %s, %s%zu tokens", hue, 100.0 *
		    (double)(p->mtok[i] + p->ovh[i]) / (double)all, i + 1,
		    names_role(m->role), p->approx, p->mtok[i]);
		if (p->ovh[i])
			buf_printf(p->out, " + %zu overhead", p->ovh[i]);
		buf_puts(p->out, "\"></span>");
	}
	if (rest)
		buf_printf(p->out, "<span class=\"%s\" style=\"width:%.2f%%\" "
		    "title=\"besides the texts, the budget counts the tools, "
		    "headings, separators and overheads: %s%zu tokens\">"
		    "</span>", emit_html_hue("overhead"), 100.0 *
		    (double)rest / (double)all, p->approx, rest);
	if (p->cut && all)
		buf_printf(p->out, "<span class=\"mark\" style=\"left:%.2f%%\" "
		    "title=\"the cached prefix ends here\"></span>", 100.0 *
		    (double)before / (double)all);
	buf_puts(p->out, "</div>\n");
	if (p->cut)
		buf_printf(p->out, "<p class=\"num\">The line across the bar: "
		    "the cached prefix, messages 1–%zu (%s%zu of %s%zu "
		    "tokens), ends there; <a href=\"#cache\">cache prefix</a>."
		    "</p>\n",
		    p->cut, p->approx, before, p->approx, all);
	buf_puts(p->out, "</section>\n");
	sums_free(&s);
}

static void
put_cache(struct page *p)
{
	const struct chat *c = p->c;
	uint64_t f = HASH_FNV_INIT;
	size_t i, bytes = 0, t = p->cut, len;
	bool anthropic = c->format == FORMAT_ANTHROPIC;

	buf_puts(p->out, "<section id=\"cache\" aria-labelledby=\"h-cache\">"
	    "\n<h2 id=\"h-cache\">Cache prefix</h2>\n<p>");
	if (t == 0) {
		buf_printf(p->out, "%sNo message comes before the new turn."
		    "</p>\n</section>\n", anthropic && c->tools.n ? "The "
		    "tools only. " : "");
		return;
	}
	for (i = 0; i < t; i++) {
		f = emit_fingerprint_fold(f, emit_fingerprint(
		    names_role(c->msgs[i].role), c->msgs[i].content,
		    c->msgs[i].len));
		bytes += c->msgs[i].len;
	}
	buf_printf(p->out, "%s<a href=\"#m1\">message%s 1</a>", anthropic &&
	    c->tools.n ? "The tools, then " : "", t > 1 ? "s" : "");
	if (t > 1)
		buf_printf(p->out, "–<a href=\"#m%zu\">%zu</a>", t, t);
	buf_printf(p->out, ", %zu bytes, <code>fnv1a64:%016" PRIx64 "</code>;"
	    " <a href=\"#m%zu\">message %zu</a> is the new turn.</p>\n",
	    bytes, f, t + 1, t + 1);
	if (anthropic && c->profile->cache_auto) {
		buf_puts(p->out, "<p>cache_control (cache = \"auto\"): ");
		i = 0;
		if (c->tools.n)
			buf_printf(p->out, "%sthe last tool", i++ ? ", " : "");
		if (emit_system_text(p->run, c, &len))
			buf_printf(p->out, "%sthe system prompt", i++ ? ", " :
			    "");
		if (t > emit_first_turn(c))
			buf_printf(p->out, "%sthe last message before the "
			    "turn", i++ ? ", " : "");
		buf_puts(p->out, i ? ".</p>\n" : "none.</p>\n");
	}
	buf_puts(p->out, "</section>\n");
}

/* A profile build: every entry that did not reach the output. */
static void
put_excluded(struct page *p)
{
	const struct stack *st = &p->c->stack;
	size_t i, n = 0;

	for (i = 0; i < st->nall; i++)
		if (st->all[i]->status != ENTRY_ACTIVE)
			n++;
	buf_printf(p->out, "<section id=\"left-out\" aria-labelledby="
	    "\"h-left-out\">\n<h2 id=\"h-left-out\">Not included (%zu)</h2>\n",
	    n);
	if (!n) {
		buf_puts(p->out, "<p class=\"empty\">Every entry reached the "
		    "output.</p>\n</section>\n");
		return;
	}
	buf_puts(p->out, "<p class=\"meta\">Each is also shown, struck out, in "
	    "the message it would have joined.</p>\n<ul class=\"pieces\">\n");
	for (i = 0; i < st->nall; i++)
		if (st->all[i]->status != ENTRY_ACTIVE)
			put_entry_line(p, st->all[i], true);
	buf_puts(p->out, "</ul>\n</section>\n");
}

/* A SillyTavern build: every prompt and message with why it is in or
 * out. */
static void
put_items(struct page *p)
{
	const struct tavern_report *r = p->c->tavern;
	size_t i;

	buf_printf(p->out, "<section id=\"items\" aria-labelledby=\"h-items\">"
	    "\n<h2 id=\"h-items\">Prompts and messages (%zu)</h2>\n<p "
	    "class=\"meta\">Generation type ", r->n);
	esc(p, r->type);
	buf_printf(p->out, "; budget %ld tokens, the prompts use %ld.</p>\n"
	    "<div class=\"tw\"><table class=\"items\">\n<thead><tr><th "
	    "scope=\"col\">Identifier</th><th scope=\"col\">Source</th>"
	    "<th scope=\"col\">Role</th><th scope=\"col\">Position</th>"
	    "<th scope=\"col\" class=\"num\">Tokens</th><th scope=\"col\">"
	    "In or out</th></tr></thead>\n<tbody>\n", r->budget, r->used);
	for (i = 0; i < r->n; i++) {
		const struct tavern_item *it = &r->items[i];

		buf_printf(p->out, "<tr class=\"f item%s\" data-role=\"",
		    it->message < 0 ? " off" : "");
		esc(p, it->role);
		buf_puts(p->out, "\" data-layers=\"");
		esc(p, emit_html_slug(p->a, item_source(it)));
		buf_printf(p->out, "\"><td><span class=\"sw %s\"></span>",
		    emit_html_hue(item_source(it)));
		esc(p, it->id);
		buf_puts(p->out, "</td><td>");
		esc(p, item_source(it));
		buf_puts(p->out, "</td><td>");
		esc(p, it->role);
		buf_puts(p->out, "</td><td>");
		esc(p, position(p->a, it));
		buf_puts(p->out, "</td><td class=\"num\">");
		if (it->counted)
			buf_printf(p->out, "%zu", it->tokens);
		else
			buf_puts(p->out, "–");
		buf_puts(p->out, "</td><td>");
		if (it->reason) {
			buf_puts(p->out, "<span class=\"why\">out: ");
			esc(p, it->reason);
			buf_puts(p->out, "</span>");
		} else if (it->message >= 0) {
			buf_printf(p->out, "<a href=\"#m%ld\">message %ld</a>",
			    it->message + 1, it->message + 1);
		}
		if (it->note) {
			buf_puts(p->out, it->reason || it->message >= 0 ?
			    " " : "");
			buf_puts(p->out, "<span class=\"num\">");
			esc(p, it->note);
			buf_puts(p->out, "</span>");
		}
		buf_puts(p->out, "</td></tr>\n");
	}
	buf_puts(p->out, "</tbody></table></div>\n</section>\n");
}

static void
put_wi(struct page *p)
{
	const struct wi_result *r = p->c->world_info;
	struct buf b = BUF_INIT;
	size_t i;

	if (!r)
		return;
	wi_result_summary(&b, r);
	buf_printf(p->out, "<section id=\"world-info\" aria-labelledby="
	    "\"h-wi\">\n<h2 id=\"h-wi\">World info (%zu considered, %zu "
	    "activated)</h2>\n<p class=\"meta\">", r->nrecords, r->nactivated);
	emit_html_esc(p->out, b.data, b.len);
	buf_puts(p->out, ".</p>\n");
	buf_free(&b);
	if (r->nrecords) {
		buf_puts(p->out, "<div class=\"tw\"><table class=\"wi\">\n"
		    "<thead><tr><th scope=\"col\">Entry</th><th scope=\"col\">"
		    "Comment</th><th scope=\"col\">Outcome</th><th scope="
		    "\"col\">Key</th><th scope=\"col\">Matched in</th><th "
		    "scope=\"col\" class=\"num\">Pass</th><th scope=\"col\">"
		    "Group</th><th scope=\"col\" class=\"num\">Budget</th>"
		    "<th scope=\"col\">Source</th></tr></thead>\n<tbody>\n");
	}
	for (i = 0; i < r->nrecords; i++) {
		const struct wi_record *w = &r->records[i];

		buf_printf(p->out, "<tr class=\"f wi-entry%s\" data-layers="
		    "\"world-info\"><td class=\"mono\">", w->activated ? "" :
		    " off");
		esc(p, w->world);
		buf_printf(p->out, ".%lld <span class=\"num\">",
		    (long long)w->entry->uid);
		esc(p, wi_source_name(w->source));
		buf_puts(p->out, "</span></td><td>");
		esc(p, w->entry->comment);
		buf_printf(p->out, "</td><td>%s", w->activated ?
		    "<span class=\"yes\">✓</span> " : "");
		esc(p, wi_reason_name(w->reason));
		if (w->roll >= 0)
			buf_printf(p->out, " <span class=\"num\">rolled %.2f "
			    "against %g</span>", w->roll,
			    w->entry->probability);
		if (w->regex_limit)
			buf_puts(p->out, " <span class=\"why\">regex match "
			    "limit</span>");
		buf_puts(p->out, "</td><td>");
		if (w->key) {
			buf_puts(p->out, "<code>");
			esc(p, w->key);
			buf_puts(p->out, "</code>");
		}
		buf_puts(p->out, "</td><td>");
		if (w->key) {
			esc(p, wi_where_name(w->where));
			if (w->where == WI_IN_CARD)
				buf_printf(p->out, " (%s)", wi_match_name(
				    (int)w->where_index));
			else if (w->where == WI_IN_RECURSION)
				buf_printf(p->out, " from pass %zu",
				    w->where_index);
			else if (w->where == WI_IN_MESSAGE && !w->where_index)
				buf_puts(p->out, ": the newest");
			else if (w->where == WI_IN_MESSAGE)
				buf_printf(p->out, ": %zu before the newest",
				    w->where_index);
			else
				buf_printf(p->out, " %zu", w->where_index);
		}
		buf_printf(p->out, "</td><td class=\"num\">%d", w->pass);
		if (w->level)
			buf_printf(p->out, " <span class=\"num\">level %d"
			    "</span>", w->level);
		buf_puts(p->out, "</td><td>");
		if (w->group) {
			esc(p, w->group);
			if ((w->reason == WI_GROUP_LOST || w->reason ==
			    WI_GROUP_TAKEN) && w->winner >= 0)
				buf_printf(p->out, " <span class=\"num\">lost "
				    "to uid %lld</span>", (long long)w->winner);
		}
		buf_puts(p->out, "</td><td class=\"num\">");
		if (w->reason == WI_BUDGET)
			buf_printf(p->out, w->tokens >= 0 ? "%lld tokens" :
			    "already spent", (long long)w->tokens);
		buf_puts(p->out, "</td><td>");
		put_where(p, true, w->entry->src, w->entry->span);
		buf_puts(p->out, "</td></tr>\n");
	}
	if (r->nrecords)
		buf_puts(p->out, "</tbody></table></div>\n");
	buf_puts(p->out, "<details><summary>Timed effects to save "
	    "(timedWorldInfo)</summary><pre class=\"text\">");
	json_write(&b, wi_timed_to_node(p->a, &r->timed), -1);
	emit_html_esc(p->out, b.data, b.len);
	buf_puts(p->out, "</pre></details>\n</section>\n");
	buf_free(&b);
}

static void
put_cleanups(struct page *p)
{
	const struct chat *c = p->c;
	size_t i;

	if (!c->ncleanups)
		return;
	buf_printf(p->out, "<section id=\"cleanups\" aria-labelledby="
	    "\"h-cleanups\">\n<h2 id=\"h-cleanups\">History clean-up (%zu)"
	    "</h2>\n<ul class=\"pieces\">\n", c->ncleanups);
	for (i = 0; i < c->ncleanups; i++) {
		const struct cleanup_note *n = &c->cleanups[i];

		buf_printf(p->out, "<li><span>message %zu</span><b>",
		    n->message);
		esc(p, n->rule);
		buf_puts(p->out, "</b><span>");
		esc(p, n->change);
		buf_puts(p->out, "</span>");
		put_where(p, n->has_src, n->src, n->span);
		buf_puts(p->out, "</li>\n");
	}
	buf_puts(p->out, "</ul>\n</section>\n");
}

static void
put_header(struct page *p, const struct emit_html_names *roles,
    const struct emit_html_names *layers)
{
	const struct chat *c = p->c;

	buf_puts(p->out, "<header class=\"top\">\n<h1>Stage inspector: ");
	esc(p, c->profile->src->path);
	buf_puts(p->out, "</h1>\n<p class=\"meta\">");
	buf_printf(p->out, "%s build · format %s · model ", c->tavern ?
	    "SillyTavern" : "profile", names_format(c->format));
	esc(p, c->model ? c->model : "-");
	buf_printf(p->out, " · style %s · %zu messages</p>\n"
	    "<p class=\"meta\">", names_style(c->profile->style), c->n);
	if (p->count.exact)
		buf_printf(p->out, "Tokens: %s, exact, of each text alone "
		    "(%s).", emit_counter_name(&p->count), c->tavern ?
		    "SillyTavern's per-message overhead apart: + N overhead" :
		    "no per-message overhead");
	else
		buf_puts(p->out, "Tokens are estimates (~): a CJK character "
		    "counts as one, other text as one per four characters.");
	buf_puts(p->out, "</p>\n<nav aria-label=\"Sections\"><p class=\"meta\">"
	    "<a href=\"#tokens\">Tokens</a> · <a href=\"#messages\">Messages"
	    "</a> · ");
	if (c->tavern)
		buf_puts(p->out, "<a href=\"#items\">Prompts and messages</a>"
		    " · ");
	else
		buf_puts(p->out, "<a href=\"#left-out\">Not included</a> · ");
	if (c->world_info)
		buf_puts(p->out, "<a href=\"#world-info\">World info</a> · ");
	if (c->ncleanups)
		buf_puts(p->out, "<a href=\"#cleanups\">Clean-up</a> · ");
	buf_puts(p->out, "<a href=\"#cache\">Cache prefix</a></p></nav>\n"
	    "</header>\n");
	emit_html_filters(p->out, p->a, roles, layers, "messages", false);
}

bool
emit_html(struct run *run, const struct chat *c, struct buf *out)
{
	struct page p;
	struct emit_html_names roles = { NULL, 0, 0 }, layers = { NULL, 0, 0 };
	struct rewrite_plan plan;
	size_t i, k, t;

	memset(&p, 0, sizeof(p));
	p.run = run;
	p.c = c;
	p.out = out;
	p.a = &run->arena;
	emit_counter_init(&p.count, c);
	p.approx = p.count.exact ? "" : "~";
	p.mtok = xcalloc(c->n ? c->n : 1, sizeof(*p.mtok));
	p.ovh = xcalloc(c->n ? c->n : 1, sizeof(*p.ovh));
	for (i = 0; i < c->n; i++) {
		p.mtok[i] = emit_count(&p.count, c->msgs[i].content,
		    c->msgs[i].len);
		if (c->tavern)
			p.ovh[i] = tavern_overhead(&p, &c->msgs[i]);
		emit_html_names_add(&roles, names_role(c->msgs[i].role));
	}
	/* the messages before the new turn (the last user message) */
	t = c->n;
	while (t > 0 && c->msgs[t - 1].role != ROLE_USER)
		t--;
	p.cut = t > 0 ? t - 1 : 0;
	if (c->tavern) {
		for (i = 0; i < c->tavern->n; i++)
			emit_html_names_add(&layers, item_source(
			    &c->tavern->items[i]));
		tavern_slots(&p);
	} else {
		rewrite_plan_for(c->profile, &plan);
		for (k = 0; k < plan.n && p.npass < MAX_PASSES; k++)
			if (plan.passes[k]->entry)
				p.pass[p.npass++] = plan.passes[k]->name;
		for (i = 0; i < c->stack.nall; i++)
			emit_html_names_add(&layers, c->stack.all[i]->layer);
		emit_html_names_add(&layers, "history");
		emit_html_names_add(&layers, "turn");
		profile_slots(&p);
	}
	emit_html_head(out, arena_printf(p.a, "strata debug: %s",
	    c->profile->src->path));
	put_header(&p, &roles, &layers);
	buf_puts(out, "<main>\n");
	put_tokens(&p);
	put_messages(&p);
	if (c->tavern)
		put_items(&p);
	else
		put_excluded(&p);
	put_wi(&p);
	put_cleanups(&p);
	put_cache(&p);
	buf_puts(out, "</main>\n");
	emit_html_foot(out);
	emit_html_names_free(&roles);
	emit_html_names_free(&layers);
	free(p.mtok);
	free(p.ovh);
	free(p.slot_start);
	free(p.slot_of);
	return true;
}
