/*
 * The stage inspector's stages of a message (emit_html_int.h): the
 * rewrite passes of its entries in a profile build, then the token
 * budget when it truncated an entry or gave it its fallback; the four
 * stages of its item in a SillyTavern build.
 */
#include "emit/emit_html_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/map.h"
#include "pipeline/budget.h"
#include "pipeline/rewrite.h"
#include "prompt/chat.h"
#include "tavern/titem.h"

static const char *const stage_words[TAVERN_NSTAGES] = {
	"as read",
	"after the regex scripts that run before macros",
	"after macro substitution",
	"after the regex scripts that run after macros",
};

static void
stage_open(struct page *p, size_t i, size_t k, const char *label,
    const char *words, bool changed)
{
	buf_printf(p->out, "<section class=\"stage%s\" id=\"m%zu-s%zu\" "
	    "data-label=\"", changed ? " changed" : "", i + 1, k);
	page_esc(p, label);
	buf_puts(p->out, "\"><h4>");
	page_esc(p, label);
	buf_puts(p->out, " <small>");
	page_esc(p, words);
	buf_puts(p->out, "</small></h4>\n");
}

/* "what: names", or that the build did not name them. */
static void
put_by(struct page *p, const char *what, const char *names)
{
	buf_printf(p->out, "<p class=\"by\">%s: ", what);
	if (names)
		page_esc(p, names);
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

void
page_tavern_stages(struct page *p, size_t i)
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
			page_esc(p, t[0]);
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
		if (!page_same(&e->stages[k], &e->raw))
			return true;
	return false;
}

/* The budget's truncation or fallback of entry e (which is in a
 * message), or NULL: then what was sent is its last pass's text. */
static const struct budget_cut *
entry_cut(const struct page *p, const struct entry *e)
{
	const struct budget_cut *k = page_cut_of(p, e->key);

	return k && (k->fate == BUDGET_TRUNCATED || k->fate ==
	    BUDGET_FALLBACK) ? k : NULL;
}

/* Entry e's text after stage k: 0 raw, 1..npass the passes (an entry
 * some passes skip keeps its text through them). */
static const struct etext *
entry_at(const struct entry *e, size_t k)
{
	if (k == 0 || !e->nstages)
		return &e->raw;
	return k <= e->nstages ? &e->stages[k - 1] : &e->stages[e->nstages - 1];
}

/* Text a cut to b: the bytes both begin and end with as they are, the
 * rest of a struck out and the rest of b inserted.  A truncation keeps
 * one end of the text and puts the marker at the other, a fallback
 * replaces the text whole: a word diff would pair words that only
 * happen to be alike. */
static void
put_cut_diff(struct page *p, const char *a, size_t alen, const char *b,
    size_t blen)
{
	size_t pre = 0, suf = 0;

	while (pre < alen && pre < blen && a[pre] == b[pre])
		pre++;
	/* never inside a UTF-8 sequence */
	while (pre > 0 && ((pre < alen && (a[pre] & 0xC0) == 0x80) ||
	    (pre < blen && (b[pre] & 0xC0) == 0x80)))
		pre--;
	while (suf < alen - pre && suf < blen - pre &&
	    a[alen - 1 - suf] == b[blen - 1 - suf])
		suf++;
	while (suf > 0 && ((a[alen - suf] & 0xC0) == 0x80 ||
	    (b[blen - suf] & 0xC0) == 0x80))
		suf--;
	emit_html_esc(p->out, a, pre);
	if (alen - pre - suf) {
		buf_puts(p->out, "<del>");
		emit_html_esc(p->out, a + pre, alen - pre - suf);
		buf_puts(p->out, "</del>");
	}
	if (blen - pre - suf) {
		buf_puts(p->out, "<ins>");
		emit_html_esc(p->out, b + pre, blen - pre - suf);
		buf_puts(p->out, "</ins>");
	}
	emit_html_esc(p->out, a + alen - suf, suf);
}

/* The budget stage of entry e: what was sent, the change from its last
 * pass marked, and how and why the budget cut it. */
static void
put_budget_stage(struct page *p, const struct entry *e)
{
	const struct budget_cut *k = entry_cut(p, e);
	const struct etext *was = entry_at(e, p->npass);

	if (!k) {
		buf_puts(p->out, "<p class=\"same\">Unchanged: sent as the last "
		    "pass left it.</p>\n");
		return;
	}
	buf_puts(p->out, "<p class=\"by\">");
	page_put_budget_cut(p, k);
	buf_puts(p->out, "</p>\n<pre class=\"text\">");
	put_cut_diff(p, was->s, was->len, e->content ? e->content : "",
	    e->content ? e->len : 0);
	buf_puts(p->out, "</pre>\n");
}

/* Pass k's panel for entry e (k 0: its raw text). */
static void
put_pass_stage(struct page *p, const struct entry *e, size_t k)
{
	const struct etext *now = entry_at(e, k);
	const struct etext *was = k ? entry_at(e, k - 1) : now;

	if (k && page_same(now, was)) {
		buf_puts(p->out, "<p class=\"same\">Unchanged.</p>\n");
		return;
	}
	if (k && p->pass[k - 1] == rewrite_placeholders.name)
		put_macros(p, arena_strndup(p->a, was->s, was->len),
		    arena_strndup(p->a, now->s, now->len));
	buf_puts(p->out, "<pre class=\"text\">");
	if (k == 0)
		emit_html_esc(p->out, now->s, now->len);
	else
		emit_html_diff(p->out, was->s, was->len, now->s, now->len,
		    EMIT_HTML_BOTH);
	buf_puts(p->out, "</pre>\n");
}

/*
 * A profile build's message: its entries that a pass changed or the
 * budget cut, through the stages raw, each pass, and "budget" when the
 * budget truncated one or gave it its fallback: the text that was sent,
 * which the passes' stages alone would not show.
 */
void
page_profile_stages(struct page *p, const struct message *m, size_t i)
{
	size_t k, j, n = 0, ncut = 0, nstage;
	bool changed;

	for (j = 0; j < m->nentries; j++) {
		bool cut = entry_cut(p, m->entries[j]) != NULL;

		ncut += cut;
		if (cut || entry_changed(m->entries[j]))
			n++;
	}
	if (!n) {
		if (m->nentries)
			buf_puts(p->out, "<p class=\"same\">No rewrite pass "
			    "changed this message's entries.</p>\n");
		return;
	}
	nstage = p->npass + 1 + (ncut > 0);
	buf_puts(p->out, "<div class=\"stages\">\n");
	for (k = 0; k < nstage; k++) {
		bool budget = k > p->npass;

		changed = budget;
		for (j = 0; k && !budget && j < m->nentries; j++) {
			const struct entry *e = m->entries[j];

			if (!page_same(entry_at(e, k), entry_at(e, k - 1)))
				changed = true;
		}
		if (budget)
			stage_open(p, i, k, "budget", "what was sent, after the "
			    "token budget", true);
		else
			stage_open(p, i, k, k ? p->pass[k - 1] : "raw", k ?
			    "after this rewrite pass" : "as collected",
			    changed);
		for (j = 0; j < m->nentries; j++) {
			const struct entry *e = m->entries[j];

			if (!entry_changed(e) && !entry_cut(p, e))
				continue;
			buf_printf(p->out, "<h5><span class=\"sw %s\"></span>",
			    emit_html_hue(e->layer));
			page_esc(p, e->key);
			buf_puts(p->out, "</h5>\n");
			if (budget)
				put_budget_stage(p, e);
			else
				put_pass_stage(p, e, k);
		}
		buf_puts(p->out, "</section>\n");
	}
	buf_puts(p->out, "</div>\n");
}

/* The layers a message holds, space-separated slugs. */
const char *
page_message_layers(struct page *p, const struct message *m, size_t i)
{
	struct emit_html_names l = { NULL, 0, 0 };
	struct buf b = BUF_INIT;
	const char *s;
	size_t k;

	if (p->c->tavern) {
		const struct tavern_report *r = p->c->tavern;

		for (k = 0; k < r->msg_nitems[i]; k++)
			emit_html_names_add(&l, page_item_source(
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
		page_put_chip(p, l.v[k]);
	emit_html_names_free(&l);
	buf_free(&b);
	return s;
}
