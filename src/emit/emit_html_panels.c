/*
 * The stage inspector's panels (emit_html_int.h): tokens per layer
 * against the budget, what was left out, the SillyTavern items, the
 * world-info records, the clean-ups and the cache prefix.
 */
#include "emit/emit_html_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/hash.h"
#include "base/util.h"
#include "data/json.h"
#include "pipeline/budget.h"
#include "prompt/chat.h"
#include "tavern/titem.h"
#include "tavern/wi.h"

static void
put_bar_legend(struct page *p, const struct sums *s)
{
	size_t i;

	buf_puts(p->out, "<ul class=\"legend\">\n");
	for (i = 0; i < s->names.n; i++) {
		buf_printf(p->out, "<li><span class=\"sw %s\"></span>",
		    emit_html_hue(s->names.v[i]));
		page_esc(p, s->names.v[i]);
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
		f = page_find(m->content + at, m->len - at, v[k].s, v[k].len);
		if (!f)
			continue;
		if (last != SIZE_MAX) {
			part = emit_count(&p->count, m->content + from,
			    at - from);
			if (part > p->mtok[i] - used)
				part = p->mtok[i] - used;
			page_sums_add(s, name[last], part);
			used += part;
			from = at;
		}
		at = (size_t)(f - m->content) + v[k].len;
		last = k;
	}
	page_sums_add(s, last == SIZE_MAX ? name[0] : name[last], p->mtok[i] -
	    used);
}

/* A SillyTavern build: each message's text by its items' sources, then
 * the overheads: what the budget counts. */
static void
sum_items(struct page *p, struct sums *s)
{
	const struct chat *c = p->c;
	const struct tavern_report *r = c->tavern;
	size_t i, k;

	for (i = 0; i < c->n; i++) {
		size_t n = r->msg_nitems[i];
		struct piece *v = xcalloc(n + 1, sizeof(*v));
		const char **name = xcalloc(n + 1, sizeof(*name));

		for (k = 0; k < n; k++) {
			const struct tavern_item *it =
			    &r->items[r->msg_items[i][k]];

			/* a joined item's text is counted in the one it
			 * joined */
			v[k].s = it->joined ? "" :
			    it->text[TAVERN_STAGE_REGEX_POST];
			v[k].len = strlen(v[k].s);
			name[k] = page_item_source(it);
		}
		if (!n)
			name[0] = "chat";
		share(p, s, i, v, name, n);
		free(v);
		free(name);
	}
	for (i = 0; i < c->n; i++)
		page_sums_add(s, "overhead", p->ovh[i]);
}

/* A profile build with no budget: each message's text by its entries'
 * layers, as the bar by message counts it. */
static void
sum_entries(struct page *p, struct sums *s)
{
	const struct chat *c = p->c;
	size_t i, k;

	for (i = 0; i < c->n; i++) {
		const struct message *m = &c->msgs[i];
		struct piece *v = xcalloc(m->nentries + 1, sizeof(*v));
		const char **name = xcalloc(m->nentries + 1, sizeof(*name));

		for (k = 0; k < m->nentries; k++) {
			v[k].s = m->entries[k]->content ?
			    m->entries[k]->content : "";
			v[k].len = m->entries[k]->content ?
			    m->entries[k]->len : 0;
			name[k] = m->entries[k]->layer;
		}
		if (!m->nentries)
			name[0] = strcmp(m->origin, "turn") ? "history" :
			    "turn";
		share(p, s, i, v, name, m->nentries);
		free(v);
		free(name);
	}
}

/* What the tokens are counted against, and how, in words. */
static void
put_tokens_meta(struct page *p, size_t total)
{
	const struct tavern_report *r = p->c->tavern;
	const struct budget_report *b = p->c->budget;

	if (r) {
		buf_printf(p->out, "<p class=\"meta\">%s%zu in the request "
		    "of a %ld-token budget (the prompts use %ld), as "
		    "SillyTavern's budget counts: each message's text (%s) "
		    "and its overhead (3 tokens, the role, a name and 1)."
		    "</p>\n", p->approx, total, r->budget, r->used,
		    emit_counter_name(&p->count));
	} else if (b && b->on) {
		buf_printf(p->out, "<p class=\"meta\">%s%zu used of a "
		    "%lld-token budget (", b->exact ? "" : "~", b->used,
		    (long long)b->budget);
		page_esc(p, b->from);
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
			page_esc(p, b->none);
		}
		buf_puts(p->out, ".</p>\n");
	}
}

/* The bar by layer or source, against the budget, and its legend. */
static void
put_layer_bar(struct page *p, const struct sums *s, size_t total, long budget)
{
	bool tavern = p->c->tavern != NULL;
	size_t i, scale;

	scale = budget > 0 && (size_t)budget > total ? (size_t)budget : total;
	/* a budget twenty times the use would leave nothing to see */
	if (budget > 0 && total && total * 20 < (size_t)budget)
		scale = total;
	buf_printf(p->out, "<h3>By %s</h3>\n<div class=\"bar\" role=\"img\" "
	    "aria-label=\"tokens by %s\">", tavern ? "source" : "layer",
	    tavern ? "source" : "layer");
	for (i = 0; i < s->names.n && scale; i++) {
		buf_printf(p->out, "<span class=\"%s\" style=\"width:%.2f%%\" "
		    "title=\"", emit_html_hue(s->names.v[i]), 100.0 *
		    (double)s->tok[i] / (double)scale);
		page_esc(p, s->names.v[i]);
		buf_printf(p->out, ": %s%zu tokens\"></span>", p->approx,
		    s->tok[i]);
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
	put_bar_legend(p, s);
}

/* The bar by message (all tokens wide, rest of them counted besides
 * the texts), with the line where the cached prefix (before tokens)
 * ends. */
static void
put_message_bar(struct page *p, size_t all, size_t before, size_t rest)
{
	const struct chat *c = p->c;
	const struct tavern_report *r = c->tavern;
	size_t i;

	buf_puts(p->out, "<h3>By message, and the cached prefix</h3>\n"
	    "<div class=\"bar\" role=\"img\" aria-label=\"tokens by "
	    "message\">");
	for (i = 0; i < c->n && all; i++) {
		const struct message *m = &c->msgs[i];
		const char *hue = "Ln";

		if (r && r->msg_nitems[i])
			hue = emit_html_hue(page_item_source(
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
}

/* Tokens: what they are counted against, the bar by layer or source
 * (a profile build with a budget: the budget's own count, per-message
 * overheads and all) and the bar by message. */
void
page_put_tokens(struct page *p)
{
	const struct chat *c = p->c;
	const struct tavern_report *r = c->tavern;
	struct sums s = { { NULL, 0, 0 }, NULL, 0 };
	size_t i, total = 0, all = 0, before = 0, rest = 0;
	const struct budget_report *b = c->budget;
	long budget = r ? r->budget : b && b->on ? (long)b->budget : 0;

	if (r)
		sum_items(p, &s);
	else if (b && b->on)
		for (i = 0; i < b->nlayers; i++)
			page_sums_add(&s, b->layers[i].layer,
			    b->layers[i].tokens);
	else
		sum_entries(p, &s);
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
	put_tokens_meta(p, total);
	put_layer_bar(p, &s, total, budget);
	put_message_bar(p, all, before, rest);
	buf_puts(p->out, "</section>\n");
	page_sums_free(&s);
}

void
page_put_cache(struct page *p)
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
void
page_put_excluded(struct page *p)
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
			page_put_entry_line(p, st->all[i], true);
	buf_puts(p->out, "</ul>\n</section>\n");
}

/* A SillyTavern build: every prompt and message with why it is in or
 * out. */
void
page_put_items(struct page *p)
{
	const struct tavern_report *r = p->c->tavern;
	size_t i;

	buf_printf(p->out, "<section id=\"items\" aria-labelledby=\"h-items\">"
	    "\n<h2 id=\"h-items\">Prompts and messages (%zu)</h2>\n<p "
	    "class=\"meta\">Generation type ", r->n);
	page_esc(p, r->type);
	buf_printf(p->out, "; budget %ld tokens, the prompts use %ld.</p>\n"
	    "<div class=\"tw\"><table class=\"items\">\n<thead><tr><th "
	    "scope=\"col\">Identifier</th><th scope=\"col\">Source</th>"
	    "<th scope=\"col\">Role</th><th scope=\"col\">Position</th>"
	    "<th scope=\"col\" class=\"num\">Tokens</th><th scope=\"col\">"
	    "In or out</th><th scope=\"col\">File</th></tr></thead>\n"
	    "<tbody>\n", r->budget, r->used);
	for (i = 0; i < r->n; i++) {
		const struct tavern_item *it = &r->items[i];

		buf_printf(p->out, "<tr class=\"f item%s\" data-role=\"",
		    it->message < 0 ? " off" : "");
		page_esc(p, it->role);
		buf_puts(p->out, "\" data-layers=\"");
		page_esc(p, emit_html_slug(p->a, page_item_source(it)));
		buf_printf(p->out, "\"><td><span class=\"sw %s\"></span>",
		    emit_html_hue(page_item_source(it)));
		page_esc(p, it->id);
		buf_puts(p->out, "</td><td>");
		page_esc(p, page_item_source(it));
		buf_puts(p->out, "</td><td>");
		page_esc(p, it->role);
		buf_puts(p->out, "</td><td>");
		page_esc(p, page_position(p->a, it));
		buf_puts(p->out, "</td><td class=\"num\">");
		if (it->counted)
			buf_printf(p->out, "%zu", it->tokens);
		else
			buf_puts(p->out, "–");
		buf_puts(p->out, "</td><td>");
		if (it->reason) {
			buf_puts(p->out, "<span class=\"why\">out: ");
			page_esc(p, entry_status_name(it->reason));
			buf_puts(p->out, "</span>");
		} else if (it->message >= 0) {
			buf_printf(p->out, "<a href=\"#m%ld\">message %ld</a>",
			    it->message + 1, it->message + 1);
		}
		if (it->note) {
			buf_puts(p->out, it->reason || it->message >= 0 ?
			    " " : "");
			buf_puts(p->out, "<span class=\"num\">");
			page_esc(p, it->note);
			buf_puts(p->out, "</span>");
		}
		buf_puts(p->out, "</td><td>");
		page_put_item_where(p, it);
		buf_puts(p->out, "</td></tr>\n");
	}
	buf_puts(p->out, "</tbody></table></div>\n</section>\n");
}

void
page_put_wi(struct page *p)
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
		page_esc(p, w->world);
		buf_printf(p->out, ".%lld <span class=\"num\">",
		    (long long)w->entry->uid);
		page_esc(p, wi_source_name(w->source));
		buf_puts(p->out, "</span></td><td>");
		page_esc(p, w->entry->comment);
		buf_printf(p->out, "</td><td>%s", w->activated ?
		    "<span class=\"yes\">✓</span> " : "");
		page_esc(p, wi_reason_name(w->reason));
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
			page_esc(p, w->key);
			buf_puts(p->out, "</code>");
		}
		buf_puts(p->out, "</td><td>");
		if (w->key) {
			page_esc(p, wi_where_name(w->where));
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
			page_esc(p, w->group);
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
		page_put_where(p, true, w->entry->src, w->entry->span);
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

void
page_put_cleanups(struct page *p)
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
		page_esc(p, n->rule);
		buf_puts(p->out, "</b><span>");
		page_esc(p, n->change);
		buf_puts(p->out, "</span>");
		page_put_where(p, n->has_src, n->src, n->span);
		buf_puts(p->out, "</li>\n");
	}
	buf_puts(p->out, "</ul>\n</section>\n");
}
