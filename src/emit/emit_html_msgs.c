/*
 * The stage inspector's messages (emit_html_int.h): each message with
 * its pieces coloured by layer or source, and what was left out in the
 * place it would have taken.
 */
#include "emit/emit_html_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "pipeline/budget.h"
#include "prompt/chat.h"
#include "prompt/item.h"

/* The SillyTavern source an item counts under. */
const char *
page_item_source(const struct item *it)
{
	return emit_html_source(it->id, item_source_name(it->source));
}

const char *
page_position(struct arena *a, const struct item *it)
{
	if (it->place)
		return it->place;
	return it->depth < 0 ? "relative" : arena_printf(a, "in-chat @%lld",
	    (long long)it->depth);
}

bool
page_same(const struct etext *x, const struct etext *y)
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
void
page_tavern_slots(struct page *p)
{
	const struct item_report *r = p->c->items;
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
		const struct item *it = &r->items[i];

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
void
page_profile_slots(struct page *p)
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
			enum origin o = c->msgs[j].origin;

			if ((e->placement == PLACE_SYSTEM &&
			    c->msgs[j].role == e->role && (o == ORIGIN_SYSTEM ||
			    o == ORIGIN_DEVELOPER)) ||
			    (e->placement == PLACE_USER && o == ORIGIN_TURN)) {
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
put_item_line(struct page *p, const struct item *it, bool gone)
{
	const char *src = page_item_source(it);

	buf_printf(p->out, "<span><span class=\"sw %s\"></span>"
	    "<b class=\"key\">", emit_html_hue(src));
	page_esc(p, it->id);
	buf_puts(p->out, "</b></span><span>");
	page_esc(p, src);
	buf_puts(p->out, " · ");
	page_esc(p, names_role(it->role));
	buf_puts(p->out, " · ");
	page_esc(p, page_position(p->a, it));
	buf_puts(p->out, "</span>");
	if (it->counted)
		buf_printf(p->out, "<span class=\"num\">%zu tokens</span>",
		    it->tokens);
	if (gone && it->reason) {
		buf_puts(p->out, "<span class=\"why\">out: ");
		page_esc(p, entry_status_name(it->reason));
		buf_puts(p->out, "</span>");
	}
	if (it->note) {
		buf_puts(p->out, "<span class=\"num\">");
		page_esc(p, it->note);
		buf_puts(p->out, "</span>");
	}
	page_put_item_where(p, it);
}

/* Item i, out of the request or a marker, where it would have been. */
static void
put_out_item(struct page *p, size_t i)
{
	const struct item *it = &p->c->items->items[i];

	buf_printf(p->out, "<li class=\"out f%s\" data-role=\"", it->reason ?
	    " gone" : "");
	page_esc(p, names_role(it->role));
	buf_puts(p->out, "\" data-layers=\"");
	page_esc(p, emit_html_slug(p->a, page_item_source(it)));
	buf_puts(p->out, "\"><ul class=\"pieces\"><li>");
	put_item_line(p, it, true);
	buf_puts(p->out, "</li></ul>");
	/* the text that stayed out, as it would have been sent */
	if (*it->text[ITEM_STAGE_REGEX_POST]) {
		buf_puts(p->out, "<details><summary>text</summary><pre "
		    "class=\"text\">");
		page_esc(p, it->text[ITEM_STAGE_REGEX_POST]);
		buf_puts(p->out, "</pre></details>");
	}
	buf_puts(p->out, "</li>\n");
}

const struct budget_cut *
page_cut_of(const struct page *p, const char *key)
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

void
page_put_budget_cut(struct page *p, const struct budget_cut *k)
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
			page_put_budget_cut(p, k);
		} else {
			buf_puts(p->out, "<span class=\"why\">budget: "
			    "dropped");
			put_budget_left(p, k);
		}
		buf_puts(p->out, "</li></ul></li>\n");
	}
}

void
page_put_entry_line(struct page *p, const struct entry *e, bool gone)
{
	buf_printf(p->out, "<li%s><span><span class=\"sw %s\"></span>"
	    "<b class=\"key\">", gone ? " class=\"gone\"" : "",
	    emit_html_hue(e->layer));
	page_esc(p, e->key);
	buf_puts(p->out, "</b></span><span>");
	page_esc(p, e->layer);
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
			page_esc(p, e->replaced_by->key);
		}
		buf_puts(p->out, "</span>");
	}
	/* dropped, truncated or replaced by its fallback to fit */
	if ((gone && e->status == ENTRY_BUDGET) || !gone) {
		const struct budget_cut *k = page_cut_of(p, e->key);

		if (k)
			page_put_budget_cut(p, k);
	}
	page_put_where(p, e->has_src, e->src, e->span);
	buf_puts(p->out, "</li>\n");
}

/* A profile build's entries that are out, in slot s. */
static void
put_gone_entries(struct page *p, size_t s)
{
	size_t k;

	for (k = p->slot_start[s]; k < p->slot_start[s + 1]; k++)
		page_put_entry_line(p, p->c->stack.all[p->slot_of[k]], true);
}

static void
put_message(struct page *p, size_t i)
{
	const struct chat *c = p->c;
	const struct message *m = &c->msgs[i];
	const struct item_report *r = c->items;
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
			page_esc(p, m->name);
			buf_puts(&head, "</span>");
		}
		buf_puts(&head, "<span class=\"num\">");
		page_esc(p, names_origin(m->origin));
		if (m->origin == ORIGIN_IN_CHAT && m->nentries)
			buf_printf(&head, ", depth %d", m->entries[0]->depth);
		buf_printf(&head, "</span><span class=\"num\">%zu bytes"
		    "</span><span class=\"num\">%s%zu tokens", m->len,
		    p->approx, p->mtok[i]);
		if (p->ovh[i])
			buf_printf(&head, " + %zu overhead", p->ovh[i]);
		buf_puts(&head, "</span>");
		layers = page_message_layers(p, m, i);
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
			const struct item *it =
			    &r->items[r->msg_items[i][k]];

			const char *w = emit_tavern_where(p->run, it);

			/* a joined item's text is in the one it joined */
			v[k].s = it->joined ? "" :
			    it->text[ITEM_STAGE_REGEX_POST];
			v[k].len = strlen(v[k].s);
			v[k].hue = emit_html_hue(page_item_source(it));
			v[k].label = arena_printf(p->a, "%s (%s)%s%s", it->id,
			    page_item_source(it), w ? " " : "", w ? w : "");
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
	page_put_text(p, m->content, m->len, v, n);
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
			page_put_entry_line(p, m->entries[k], false);
		put_gone_entries(p, 2 * i + 1);
		if (!m->nentries && (m->has_src || m->origin != ORIGIN_TURN)) {
			buf_printf(p->out, "<li><span><span class=\"sw Ln\">"
			    "</span>%s</span><span class=\"num\">%zu bytes"
			    "</span>", m->origin != ORIGIN_TURN ?
			    "history message" : "user text", m->has_src &&
			    m->origin == ORIGIN_TURN ? (size_t)m->span.len :
			    m->len);
			page_put_where(p, m->has_src, m->src, m->span);
			buf_puts(p->out, "</li>\n");
		}
	}
	buf_puts(p->out, "</ul>\n");
	if (r)
		page_tavern_stages(p, i);
	else
		page_profile_stages(p, m, i);
	buf_puts(p->out, "</div></details></li>\n");
}

static void
put_slot(struct page *p, size_t s)
{
	size_t k;

	if (p->c->dialect == DIALECT_TAVERN) {
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

void
page_put_messages(struct page *p)
{
	size_t i;

	buf_printf(p->out, "<section id=\"messages\" aria-labelledby="
	    "\"h-messages\">\n<h2 id=\"h-messages\">Messages (%zu)</h2>\n"
	    "<ol class=\"msgs\">\n", p->c->n);
	for (i = 0; i < p->c->n; i++) {
		if (i == emit_first_turn(p->c) &&
		    p->c->dialect != DIALECT_TAVERN)
			put_history_cuts(p);
		put_slot(p, 2 * i);
		if (p->cut && i == p->cut)
			put_cut(p);
		put_message(p, i);
		/* a profile build lists these inside the message */
		if (p->c->dialect == DIALECT_TAVERN)
			put_slot(p, 2 * i + 1);
	}
	put_slot(p, 2 * p->c->n);
	buf_puts(p->out, "</ol>\n</section>\n");
}
