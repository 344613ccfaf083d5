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
#include "emit/emit_html_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "diag/run.h"
#include "pipeline/rewrite.h"
#include "profile/profile.h"
#include "prompt/chat.h"
#include "tavern/titem.h"

void
page_esc(struct page *p, const char *s)
{
	emit_html_escs(p->out, s);
}

void
page_sums_add(struct sums *s, const char *name, size_t tok)
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

void
page_sums_free(struct sums *s)
{
	emit_html_names_free(&s->names);
	free(s->tok);
}

/* The first occurrence of n[0..nlen) in h[0..hlen), or NULL. */
const char *
page_find(const char *h, size_t hlen, const char *n, size_t nlen)
{
	if (!nlen || nlen > hlen)
		return NULL;
	return memmem(h, hlen, n, nlen);
}

/* A link to source s, shown as where.  A text read from inside a file
 * (a card's JSON in a PNG chunk: "card.png[ccv3]") links to the file. */
static void
put_link(struct page *p, const struct source *s, const char *where)
{
	size_t len;

	/* --inject, --user: no file to point at */
	if (*where == '-') {
		buf_puts(p->out, "<span class=\"src mono\">");
		page_esc(p, where);
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
	page_esc(p, where);
	buf_puts(p->out, "</a>");
}

/* A link to where a piece came from, shown as path:line. */
void
page_put_where(struct page *p, bool has, uint32_t src, struct span sp)
{
	const char *where = emit_where(p->run, has, src, sp);
	const struct source *s = has ? run_source(p->run, src) : NULL;

	if (where && s)
		put_link(p, s, where);
}

/* A SillyTavern item's link, shown as emit_tavern_where() says it
 * (path:line, a card's field after it); nothing when it has no source. */
void
page_put_item_where(struct page *p, const struct tavern_item *it)
{
	const char *where = emit_tavern_where(p->run, it);
	const struct source *s = it->has_src ? run_source(p->run, it->src) :
	    NULL;

	if (where && s)
		put_link(p, s, where);
}

void
page_put_chip(struct page *p, const char *name)
{
	buf_printf(p->out, "<span class=\"chip %s\">", emit_html_hue(name));
	page_esc(p, name);
	buf_puts(p->out, "</span>");
}

/*
 * A SillyTavern build counts a message as its budget does (the build's
 * tokenizer, tavern/tbuild_item.c): the text, and per message 3 tokens, its
 * role and, with a name, the name and 1 more.  The page keeps the two
 * apart everywhere: a message's text (as the debug view counts it) and
 * its overhead, which together are what the budget counts.
 */
size_t
page_tavern_overhead(const struct page *p, const struct message *m)
{
	const char *role = names_role(m->role);
	size_t n = 3 + emit_count(&p->count, role, strlen(role));

	if (m->name && *m->name)
		n += emit_count(&p->count, m->name, strlen(m->name)) + 1;
	return n;
}

/* The text, with each piece found in it (in order) coloured. */
void
page_put_text(struct page *p, const char *s, size_t len, const struct piece *v,
    size_t n)
{
	size_t k, at = 0;
	const char *f;

	buf_puts(p->out, "<pre class=\"text\">");
	for (k = 0; k < n; k++) {
		f = page_find(s + at, len - at, v[k].s, v[k].len);
		if (!f)
			continue;
		emit_html_esc(p->out, s + at, (size_t)(f - (s + at)));
		buf_printf(p->out, "<span class=\"pc %s\" title=\"", v[k].hue);
		page_esc(p, v[k].label);
		buf_puts(p->out, "\">");
		emit_html_esc(p->out, f, v[k].len);
		buf_puts(p->out, "</span>");
		at = (size_t)(f - s) + v[k].len;
	}
	emit_html_esc(p->out, s + at, len - at);
	buf_puts(p->out, "</pre>\n");
}

static void
put_header(struct page *p, const struct emit_html_names *roles,
    const struct emit_html_names *layers)
{
	const struct chat *c = p->c;

	buf_puts(p->out, "<header class=\"top\">\n<h1>Stage inspector: ");
	page_esc(p, c->profile->src->path);
	buf_puts(p->out, "</h1>\n<p class=\"meta\">");
	buf_printf(p->out, "%s build · format %s · model ", c->tavern ?
	    "SillyTavern" : "profile", names_format(c->format));
	page_esc(p, c->model ? c->model : "-");
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
			p.ovh[i] = page_tavern_overhead(&p, &c->msgs[i]);
		emit_html_names_add(&roles, names_role(c->msgs[i].role));
	}
	/* the messages before the new turn (the last user message) */
	t = c->n;
	while (t > 0 && c->msgs[t - 1].role != ROLE_USER)
		t--;
	p.cut = t > 0 ? t - 1 : 0;
	if (c->tavern) {
		for (i = 0; i < c->tavern->n; i++)
			emit_html_names_add(&layers, page_item_source(
			    &c->tavern->items[i]));
		page_tavern_slots(&p);
	} else {
		rewrite_plan_for(c->profile, &plan);
		for (k = 0; k < plan.n && p.npass < MAX_PASSES; k++)
			if (plan.passes[k]->entry)
				p.pass[p.npass++] = plan.passes[k]->name;
		for (i = 0; i < c->stack.nall; i++)
			emit_html_names_add(&layers, c->stack.all[i]->layer);
		emit_html_names_add(&layers, "history");
		emit_html_names_add(&layers, "turn");
		page_profile_slots(&p);
	}
	emit_html_head(out, arena_printf(p.a, "strata debug: %s",
	    c->profile->src->path));
	put_header(&p, &roles, &layers);
	buf_puts(out, "<main>\n");
	page_put_tokens(&p);
	page_put_messages(&p);
	if (c->tavern)
		page_put_items(&p);
	else
		page_put_excluded(&p);
	page_put_wi(&p);
	page_put_cleanups(&p);
	page_put_cache(&p);
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
