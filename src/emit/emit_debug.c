/*
 * The debug view for a person: for each output message, every entry that
 * reached it (priority, key, layer, role, scope, bytes, estimated tokens,
 * source path:line), then every entry that did not, with its reason.
 * Colour only on a terminal, and never when NO_COLOR is set.
 */
#include "emit/emit.h"

#include "profile/profile.h"

#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/hash.h"
#include "prompt/chat.h"
#include "diag/run.h"
#include "diag/source.h"
#include "base/util.h"
#include "pipeline/budget.h"
#include "text/tokenizer.h"

struct colors {
	const char *bold, *dim, *warn, *off;
};

/* Where an entry or message came from, or "-". */
static const char *
where(struct run *run, bool has, uint32_t src, struct span sp)
{
	const char *s = emit_where(run, has, src, sp);

	return s ? s : "-";
}

/* The status as a reason to leave an entry out. */
static const char *
reason(enum entry_status s)
{
	return s == ENTRY_MISSING ? "missing context" : entry_status_name(s);
}

/* Pad a UTF-8 string to width columns (wide characters take two). */
static void
pad(struct buf *out, const char *s, size_t width)
{
	size_t n = utf8_width(s, strlen(s));

	buf_puts(out, s);
	while (n++ < width)
		buf_putc(out, ' ');
}

/* The state of one view: the run, the colours, the key column's width. */
struct view {
	struct run *run;
	struct buf *out;
	struct colors st;
	size_t keyw;
	const struct chat *chat;
	struct emit_counter count;
	const char *approx;             /* "~" before estimated counts */
};

static void
put_entry(struct view *v, const struct entry *e)
{
	struct buf *out = v->out;

	if (e->base)
		buf_printf(out, "  %11s  ", "base");
	else
		buf_printf(out, "  %11d  ", e->priority);
	pad(out, e->key, v->keyw);
	buf_printf(out, "  %-8s %-9s %-7s %8zu %7zu  %s\n", e->layer,
	    names_role(e->role), names_scope(e->scope), e->len,
	    emit_count(&v->count, e->content, e->len),
	    where(v->run, e->has_src, e->src, e->span));
}

/* Message i: its line, its entries, and the history message or user
 * text it holds. */
static void
put_message(struct view *v, const struct message *m, size_t i)
{
	struct buf *out = v->out;
	const struct colors *st = &v->st;
	bool turn = m->origin == ORIGIN_TURN;
	size_t k, len = m->len;

	const char *depth = "";

	if (m->origin == ORIGIN_IN_CHAT && m->nentries)
		depth = arena_printf(&v->run->arena, ", depth %d",
		    m->entries[0]->depth);
	buf_printf(out, "\n%smessage %zu: %s%s%s (%s%s)  %zu bytes  "
	    "%s%zu tokens%s\n", st->bold, i + 1, names_role(m->role),
	    m->name ? " " : "", m->name ? m->name : "", names_origin(m->origin), depth,
	    m->len, v->approx, emit_count(&v->count, m->content, m->len),
	    st->off);
	if (m->nentries) {
		buf_printf(out, "  %s%11s  ", st->dim, "priority");
		pad(out, "key", v->keyw);
		buf_printf(out, "  %-8s %-9s %-7s %8s %7s  source%s\n",
		    "layer", "role", "scope", "bytes", v->count.exact ?
		    "tokens" : "~tokens", st->off);
	}
	for (k = 0; k < m->nentries; k++)
		put_entry(v, m->entries[k]);
	if (m->x && m->x->call_id)
		buf_printf(out, "  %11s  result of %s %s%s\n", "",
		    m->x->call_name, m->x->call_id, m->x->is_error ?
		    ", an error" : "");
	if (m->x) {
		struct buf b = BUF_INIT;
		const char *s, *nl;

		emit_extra_text(&b, m);
		for (s = b.data; s && s < b.data + b.len; s = nl + 1) {
			nl = memchr(s, '\n', (size_t)(b.data + b.len - s));
			buf_printf(out, "  %11s  %.*s\n", "", (int)(nl - s), s);
		}
		buf_free(&b);
		/* Reasoning a provider cannot take is left out: say so. */
		if ((s = emit_reasoning_fate(v->chat, m)))
			buf_printf(out, "  %11s  reasoning (%zu bytes%s) for "
			    "%s: %s\n", "", m->x->reasoning_len,
			    m->x->replay ? ", signed" : "",
			    names_format(v->chat->format), s);
	}
	if (v->chat->dialect == DIALECT_TAVERN) {
		emit_debug_tavern_items(out, v->chat, i);
		return;
	}
	if (m->nentries && !turn)
		return;
	if (turn && m->has_src)
		len = m->span.len;
	if (m->has_src || !turn)
		buf_printf(out, "  %11s  %s(%s)%s %zu bytes from %s\n", "",
		    st->dim, turn ? "user text" : "history message", st->off,
		    len, where(v->run, m->has_src, m->src, m->span));
}

/* Every entry that did not reach the output, with its reason. */
static void
put_excluded(struct view *v, const struct stack *stack)
{
	size_t i, n = 0;

	for (i = 0; i < stack->nall; i++)
		if (stack->all[i]->status != ENTRY_ACTIVE)
			n++;
	buf_printf(v->out, "\n%snot included%s: %zu\n", v->st.bold,
	    v->st.off, n);
	for (i = 0; i < stack->nall; i++) {
		const struct entry *e = stack->all[i];

		if (e->status == ENTRY_ACTIVE)
			continue;
		buf_puts(v->out, "  ");
		pad(v->out, e->key, v->keyw);
		buf_printf(v->out, "  %-8s %s%-16s%s %s\n", e->layer,
		    v->st.warn, reason(e->status), v->st.off,
		    where(v->run, e->has_src, e->src, e->span));
	}
}

/* The token budget (pipeline/budget.h): its arithmetic and each cut,
 * when the profile asked for one or something was cut; and that there is
 * none, and why, whenever there is none. */
static void
put_budget(struct view *v, const struct chat *c)
{
	const struct budget_report *r = c->budget;
	const char *approx;
	size_t i;

	if (!r || (!r->shown && r->on))
		return;
	buf_printf(v->out, "\n%sbudget%s: ", v->st.bold, v->st.off);
	if (!r->on) {
		buf_printf(v->out, "none: %s\n", r->none);
		return;
	}
	approx = r->exact ? "" : "~";
	buf_printf(v->out, "%lld tokens (%s)\n", (long long)r->budget,
	    r->from);
	if (r->exact)
		buf_printf(v->out, "  counted with %s, exactly\n",
		    r->counter);
	else
		buf_printf(v->out, "  estimated (%s), so %d%% is kept free: "
		    "fitted to %lld\n", TOKENIZER_ESTIMATE, r->margin,
		    (long long)r->room);
	buf_printf(v->out, "  used %s%zu, protected %s%zu:", approx, r->used,
	    approx, r->protected_tokens);
	for (i = 0; i < r->nlayers; i++)
		buf_printf(v->out, "%s %s %zu", i ? "," : "",
		    r->layers[i].layer, r->layers[i].tokens);
	buf_printf(v->out, "\n  cut: %zu\n", r->ncuts);
	for (i = 0; i < r->ncuts; i++) {
		const struct budget_cut *k = &r->cuts[i];

		if (!k->key) {
			buf_printf(v->out, "  %11d  history message%s %zu",
			    k->priority, k->first < k->last ? "s" : "",
			    k->first);
			if (k->first < k->last)
				buf_printf(v->out, "-%zu", k->last);
			buf_printf(v->out, " (%zu turn%s)  %sdropped, oldest "
			    "first", k->turns, k->turns == 1 ? "" : "s",
			    v->st.warn);
			if (k->counted)
				buf_printf(v->out, ": %s%zu tokens", approx,
				    k->was);
			buf_printf(v->out, "%s\n", v->st.off);
			continue;
		}
		if (k->base)
			buf_printf(v->out, "  %11s  ", "base");
		else
			buf_printf(v->out, "  %11d  ", k->priority);
		pad(v->out, k->key, v->keyw);
		buf_printf(v->out, "  %-8s %s", k->layer, v->st.warn);
		if (k->fate == BUDGET_DROPPED)
			buf_printf(v->out, "dropped: %s%zu tokens", approx,
			    k->was);
		else if (k->fate == BUDGET_FALLBACK)
			buf_printf(v->out, "fallback: %s%zu of %zu tokens",
			    approx, k->now, k->was);
		else
			buf_printf(v->out, "truncated (%s cut) to %s%zu of %zu "
			    "tokens", k->how, approx, k->now, k->was);
		buf_printf(v->out, "%s  %s\n", v->st.off, where(v->run,
		    k->has_src, k->src, k->span));
	}
}

/* What the history clean-up changed (pipeline/cleanup.c), if anything. */
static void
put_cleanups(struct view *v, const struct chat *c)
{
	size_t i;

	if (!c->ncleanups)
		return;
	buf_printf(v->out, "\n%shistory clean-up%s: %zu\n", v->st.bold,
	    v->st.off, c->ncleanups);
	for (i = 0; i < c->ncleanups; i++) {
		const struct cleanup_note *n = &c->cleanups[i];

		buf_printf(v->out, "  message %-4zu %-10s %s\n  %11s  %s%s%s\n",
		    n->message, n->rule, n->change, "", v->st.dim,
		    where(v->run, n->has_src, n->src, n->span), v->st.off);
	}
}

/* Where the prefix a provider caches ends: every message before the new
 * turn (the last user message), with its size and the prefix
 * fingerprint -json gives that message; for Anthropic the tools come
 * first, and with [output] cache = "auto" where the breakpoints go. */
static void
put_cache(struct view *v, const struct chat *c)
{
	uint64_t f = HASH_FNV_INIT;
	size_t t = c->n, i, bytes = 0;
	bool anthropic = c->format == FORMAT_ANTHROPIC;

	while (t > 0 && c->msgs[t - 1].role != ROLE_USER)
		t--;
	if (t > 0)
		t--;
	buf_printf(v->out, "\n%scache prefix%s: ", v->st.bold, v->st.off);
	if (t == 0) {
		buf_printf(v->out, "%sno message before the new turn\n",
		    anthropic && c->tools.n ? "the tools only; " : "");
		return;
	}
	for (i = 0; i < t; i++) {
		f = emit_fingerprint_fold(f, emit_fingerprint(
		    names_role(c->msgs[i].role), c->msgs[i].content,
		    c->msgs[i].len));
		bytes += c->msgs[i].len;
	}
	buf_printf(v->out, "%smessage%s 1%s", anthropic && c->tools.n ?
	    "the tools, then " : "", t > 1 ? "s" : "", t > 1 ? "-" : "");
	if (t > 1)
		buf_printf(v->out, "%zu", t);
	buf_printf(v->out, ", %zu bytes, fnv1a64:%016" PRIx64 "; message "
	    "%zu is the new turn\n", bytes, f, t + 1);
	if (anthropic && c->profile->cache_auto) {
		const char *marks[3];
		size_t n = 0;

		if (c->tools.n)
			marks[n++] = "the last tool";
		if (emit_system_text(v->run, c, &bytes))
			marks[n++] = "the system prompt";
		if (t > emit_first_turn(c))
			marks[n++] = "the last message before the turn";
		buf_puts(v->out, "  cache_control (cache = \"auto\"): ");
		for (i = 0; i < n; i++)
			buf_printf(v->out, "%s%s", i ? ", " : "", marks[i]);
		buf_puts(v->out, n ? "\n" : "none\n");
	}
}

bool
emit_debug(struct run *run, const struct chat *c, struct buf *out)
{
	struct view v = { run, out, { "", "", "", "" }, 12, c, { false, 0 }, "~" };
	size_t i, n;

	if (c->dialect == DIALECT_TAVERN && c->stage)
		return emit_debug_stage(run, c, out);
	if (c->color) {
		v.st.bold = "\033[1m";
		v.st.dim = "\033[2m";
		v.st.warn = "\033[33m";
		v.st.off = "\033[0m";
	}
	for (i = 0; i < c->stack.nall; i++) {
		n = utf8_width(c->stack.all[i]->key,
		    strlen(c->stack.all[i]->key));
		if (n > v.keyw)
			v.keyw = n;
	}
	buf_printf(out, "%sprofile%s %s  format %s  model %s  style %s\n",
	    v.st.bold, v.st.off, c->profile->src->path,
	    names_format(c->format), c->model ? c->model : "-",
	    names_style(c->profile->style));
	emit_counter_init(&v.count, c);
	v.approx = v.count.exact ? "" : "~";
	if (v.count.exact)
		buf_printf(out, "%stokens: %s, exact, of each text alone "
		    "(no per-message overhead)%s\n", v.st.dim,
		    emit_counter_name(&v.count), v.st.off);
	else
		buf_printf(out, "%stokens are estimates: a CJK character "
		    "counts as one, other text as one per four characters%s\n",
		    v.st.dim, v.st.off);
	for (i = 0; i < c->n; i++)
		put_message(&v, &c->msgs[i], i);
	put_cleanups(&v, c);
	put_excluded(&v, &c->stack);
	put_budget(&v, c);
	emit_debug_wi(run, c, out, v.st.bold, v.st.off);
	put_cache(&v, c);
	if (c->dialect == DIALECT_TAVERN)
		emit_debug_tavern(run, c, out);
	return true;
}
