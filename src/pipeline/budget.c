/*
 * The budget stage: count once, fit by priority, cut what does not fit,
 * and write down every cut (budget.h).
 */
#include "pipeline/budget.h"

#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/map.h"
#include "base/util.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"
#include "layers/agent.h"
#include "layers/compose.h"
#include "pipeline/stages.h"
#include "profile/schema.h"
#include "text/tokenizer.h"

/* Chat Completions' accounting (OpenAI's cookbook): every message costs
 * 3 tokens besides its text, a name 1 more, and the reply is primed
 * with 3.  strata uses the same for every provider. */
#define MSG_OVERHEAD 3
#define NAME_OVERHEAD 1
#define PRIMING 3
/* Tool definitions: their text (name, description, the parameters'
 * JSON), plus this much each and once for the list; OpenAI does not
 * document the figures, these are strata's allowance. */
#define TOOL_OVERHEAD 8
#define TOOLS_OVERHEAD 12

/* ---- the fitting, on plain items -------------------------------------- */

static int
by_rank(const void *a, const void *b)
{
	const struct budget_item *x = *(struct budget_item *const *)a;
	const struct budget_item *y = *(struct budget_item *const *)b;

	if (x->priority != y->priority)
		return x->priority < y->priority ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* x before y in (priority, seq) order? */
static bool
before(const struct budget_item *x, const struct budget_item *y)
{
	return x->priority < y->priority || (x->priority == y->priority &&
	    x->seq < y->seq);
}

static void
place(struct budget_item *it, size_t *left, bool *closed,
    budget_cost_fn *cost, void *ctx)
{
	if (it->protect) {
		it->fate = BUDGET_KEPT;
		it->kept = it->cost;
		return;
	}
	it->kept = 0;
	it->fate = BUDGET_DROPPED;
	if (it->turn && *closed)
		return;
	if (it->cost == SIZE_MAX && cost)
		it->cost = cost(ctx, it);
	if (it->cost <= *left) {
		it->fate = BUDGET_KEPT;
		it->kept = it->cost;
	} else if (it->turn) {
		*closed = true;
	} else if (it->fallback != SIZE_MAX && it->fallback <= *left) {
		it->fate = BUDGET_FALLBACK;
		it->kept = it->fallback;
	} else if (it->cut != CUT_DROP && *left > it->extra) {
		it->fate = BUDGET_TRUNCATED;
		it->kept = *left;
	}
	*left -= it->kept;
}

bool
budget_order(struct budget_item *v, size_t n, size_t room, size_t *used,
    size_t *need, budget_cost_fn *cost, void *ctx)
{
	struct budget_item **ents, **turns;
	size_t i, ne = 0, nt = 0, a = 0, b = 0, sum = 0, left;
	bool closed = false;

	for (i = 0; i < n; i++)
		if (v[i].protect)
			sum += v[i].cost;
	*need = sum;
	*used = 0;
	if (sum > room)
		return false;
	ents = xmalloc((n + 1) * sizeof(*ents));
	turns = xmalloc((n + 1) * sizeof(*turns));
	for (i = 0; i < n; i++) {
		if (v[i].turn)
			turns[nt++] = &v[i];
		else
			ents[ne++] = &v[i];
	}
	/* The entries sorted; the turns come in their order already. */
	qsort(ents, ne, sizeof(*ents), by_rank);
	left = room - sum;
	while (a < ne || b < nt) {
		struct budget_item *it = b == nt || (a < ne &&
		    before(ents[a], turns[b])) ? ents[a++] : turns[b++];

		if (it->protect) {
			it->fate = BUDGET_KEPT;
			it->kept = it->cost;
			continue;
		}
		place(it, &left, &closed, cost, ctx);
	}
	*used = room - left;
	free(ents);
	free(turns);
	return true;
}

/* ---- counting --------------------------------------------------------- */

struct counter {
	bool exact;
	enum tokenizer_kind kind;
};

static size_t
count(const struct counter *k, const char *s, size_t len)
{
	if (!len)
		return 0;
	return k->exact ? tokenizer_count(k->kind, s, len) :
	    tokenizer_estimate(s, len);
}

/* An entry as the stage sees it: the part a cut may shorten (body), the
 * parts it keeps (a context block's [tag] lines), what composing adds. */
struct eitem {
	struct entry *e;
	const struct pcut *pc;
	size_t pre, post;               /* bytes kept at either end */
	size_t bodytok;                 /* tokens of the body */
	const char *fallback;
	size_t fallbacklen, fallbacktok;
};

/* A history turn: messages [first, end) of in->hist. */
struct titem {
	size_t first, end;
};

/* Message m's cost: its text, its name, its calls, the overhead. */
static size_t
message_cost(const struct counter *k, const struct message *m)
{
	size_t n = MSG_OVERHEAD + count(k, m->content, m->len), i;

	if (m->name)
		n += NAME_OVERHEAD + count(k, m->name, strlen(m->name));
	for (i = 0; m->x && i < m->x->ncalls; i++) {
		const struct tool_call *tc = &m->x->calls[i];
		struct buf b = BUF_INIT;

		if (tc->args)
			json_write(&b, tc->args, -1);
		n += count(k, tc->name, strlen(tc->name)) + count(k,
		    b.data ? b.data : "", b.len);
		buf_free(&b);
	}
	return n;
}

/* A tool definition's cost. */
static size_t
tool_cost(const struct counter *k, const struct tool *t)
{
	struct buf b = BUF_INIT;
	size_t n = TOOL_OVERHEAD + count(k, t->name, strlen(t->name));

	if (t->description)
		n += count(k, t->description, strlen(t->description));
	if (t->parameters) {
		json_write(&b, t->parameters, -1);
		n += count(k, b.data, b.len);
	}
	buf_free(&b);
	return n;
}

/* ---- the budget and its source ---------------------------------------- */

/* [output.params] num_ctx (Ollama's window), or 0. */
static int64_t
num_ctx(const struct profile *p)
{
	const struct node *n = p->params ? tree_get(p->params, "num_ctx") :
	    NULL;

	return n && n->kind == NODE_INT && n->u.i > 0 ? n->u.i : 0;
}

/* Decide r->budget and r->from, or r->none; false after an error. */
static bool
decide(struct run *run, const struct profile *p, const char *model,
    struct budget_report *r)
{
	struct arena *a = &run->arena;
	const struct budget_model *bm = budget_model(model);
	int64_t ctx = 0, reply;
	const char *ctxfrom = NULL, *replyfrom;

	if (p->budget.max_tokens) {
		r->on = true;
		r->budget = p->budget.max_tokens;
		r->from = "budget.max_tokens";
		return true;
	}
	if (p->context) {
		ctx = p->context;
		ctxfrom = "[output] context";
	} else if (num_ctx(p)) {
		ctx = num_ctx(p);
		ctxfrom = "[output.params] num_ctx";
	} else if (bm) {
		ctx = bm->context;
		ctxfrom = arena_printf(a, "%s's context window (the model "
		    "table)", bm->prefix);
	}
	if (!ctx) {
		r->none = model ? arena_printf(a, "model '%s' is not in the "
		    "model table; give budget.max_tokens, --budget or "
		    "[output] context", model) : "no model; give "
		    "budget.max_tokens, --budget or [output] context";
		return true;
	}
	if (p->max_tokens) {
		reply = p->max_tokens;
		replyfrom = "[output] max_tokens";
	} else {
		reply = bm && bm->reply < ctx / 4 ? bm->reply : ctx / 4;
		replyfrom = bm && bm->reply < ctx / 4 ? "the model's largest "
		    "reply" : "a quarter of the window for the reply";
	}
	if (reply >= ctx) {
		const struct node *n = p->context_node;

		diag_plain(run, DIAG_ERROR, MSG_BUDGET_NO_ROOM,
		    (long long)reply, (long long)ctx);
		(void)n;
		return false;
	}
	r->on = true;
	r->budget = ctx - reply;
	r->from = arena_printf(a, "%s, %lld, less %s, %lld", ctxfrom,
	    (long long)ctx, replyfrom, (long long)reply);
	return true;
}

/* ---- the stage -------------------------------------------------------- */

struct stage {
	struct run *run;
	const struct profile *p;
	struct counter k;
	struct map cuts;                /* entry key -> struct pcut */
	size_t sep, sectsep;
};

/* Is layer named in [budget] protect (default: persona)? */
static bool
protected_layer(const struct profile *p, const char *layer)
{
	const struct node *l = p->budget.protect;
	size_t i;

	if (!l)
		return strcmp(layer, "persona") == 0;
	for (i = 0; i < l->u.array.n; i++)
		if (l->u.array.items[i]->kind == NODE_STRING &&
		    strcmp(l->u.array.items[i]->u.str.s, layer) == 0)
			return true;
	return false;
}

static void
index_cuts(struct stage *s)
{
	struct arena *a = &s->run->arena;
	const struct profile *p = s->p;
	size_t i, len;
	const char *id;

	map_init(&s->cuts, a);
	for (i = 0; i < p->ninjects; i++)
		map_put(&s->cuts, p->injects[i].key.s,
		    strlen(p->injects[i].key.s),
		    (void *)&p->injects[i].cut);
	for (i = 0; i < p->ncontexts; i++) {
		const char *k = arena_printf(a, "context.%s",
		    p->contexts[i].name.s);

		map_put(&s->cuts, k, strlen(k), (void *)&p->contexts[i].cut);
	}
	for (i = 0; i < p->nskills; i++) {
		const char *k;

		id = schema_entry_id(p->skills[i].node, &len);
		if (!id)
			continue;
		k = arena_printf(a, "skill.%.*s", (int)len, id);
		map_put(&s->cuts, k, strlen(k), (void *)&p->skills[i].cut);
	}
}

/* A context block's first and last lines ([tag] ... [/tag]) stay. */
static void
block_ends(const struct entry *e, size_t *pre, size_t *post)
{
	const char *s = e->content, *nl, *last;

	*pre = *post = 0;
	if (strcmp(e->layer, "context") || e->len < 4 || s[0] != '[')
		return;
	nl = memchr(s, '\n', e->len);
	for (last = s + e->len; nl && last > nl && last[-1] != '\n'; last--)
		;
	last = nl && last > nl ? last - 1 : NULL;
	if (!nl || !last || last == nl || s + e->len - last < 4 ||
	    last[1] != '[' || last[2] != '/')
		return;
	*pre = (size_t)(nl - s) + 1;
	*post = (size_t)(s + e->len - last);
}

/* Fill item it for live entry e; seq is its place in the stack. */
static void
entry_item(struct stage *s, struct entry *e, struct eitem *ei,
    struct budget_item *it)
{
	const struct profile *p = s->p;
	const struct pcut *pc = NULL;
	size_t wrap = 0, body;

	if (strcmp(e->layer, "inject") == 0 || strcmp(e->layer,
	    "context") == 0 || strcmp(e->layer, "skill") == 0)
		pc = map_get(&s->cuts, e->key, strlen(e->key));
	memset(ei, 0, sizeof(*ei));
	ei->e = e;
	ei->pc = pc;
	memset(it, 0, sizeof(*it));
	it->priority = e->priority;
	it->seq = e->pos;
	it->ref = ei;
	it->protect = pc && pc->has_protect ? pc->protect : e->base ||
	    e->priority <= p->budget.protect_priority ||
	    protected_layer(p, e->layer);
	it->cut = pc && pc->has_cut ? pc->cut : p->budget.cut;
	block_ends(e, &ei->pre, &ei->post);
	body = e->len - ei->pre - ei->post;
	ei->bodytok = count(&s->k, e->content + ei->pre, body);
	wrap = count(&s->k, e->content, ei->pre) + count(&s->k,
	    e->content + e->len - ei->post, ei->post);
	if (e->placement == PLACE_SYSTEM && !e->base && p->style !=
	    STYLE_PLAIN) {
		/* The heading compose_entries() gives it. */
		struct buf b = BUF_INIT;
		size_t at;

		compose_entries(&b, p->style, &e, 1, &at);
		wrap += count(&s->k, b.data, at) + count(&s->k, b.data + at +
		    e->len, b.len - at - e->len);
		buf_free(&b);
	}
	wrap += p->style == STYLE_SECTIONS && e->placement == PLACE_SYSTEM ?
	    s->sectsep : s->sep;
	if (e->placement == PLACE_DEPTH)
		wrap += MSG_OVERHEAD;
	it->cost = wrap + ei->bodytok;
	it->fallback = SIZE_MAX;
	if (pc && pc->fallback.s) {
		ei->fallback = pc->fallback.s;
		ei->fallbacklen = pc->fallback.len;
		ei->fallbacktok = count(&s->k, ei->fallback,
		    ei->fallbacklen);
		it->fallback = wrap + ei->fallbacktok;
	}
	it->extra = wrap + count(&s->k, p->budget.marker.s,
	    p->budget.marker.len) + 1;
}

/* The byte where text s[0..len) is cut so that keep tokens of it stay:
 * at its start (tail: the beginning stays) or its end (head).  *kept:
 * the whole tokens that stay.  The one text a build truncates is
 * encoded here, a second time. */
static size_t
cut_at(const struct counter *k, const char *s, size_t len, size_t keep,
    enum cut_how how, size_t *kept)
{
	size_t at = 0, i, n, back;

	if (k->exact) {
		struct tokenizer_ids ids = TOKENIZER_IDS_INIT;
		size_t tl;

		tokenizer_encode(k->kind, s, len, &ids);
		if (keep > ids.len)
			keep = ids.len;
		back = at;
		if (how == CUT_TAIL) {
			for (i = 0; i < keep; i++)
				if (tokenizer_token(k->kind, ids.v[i], &tl))
					at += tl;
			/* A token may end inside a character: the partial
			 * token goes. */
			back = at;
			while (at > 0 && at < len &&
			    ((unsigned char)s[at] & 0xc0) == 0x80)
				at--;
		} else {
			at = len;
			for (i = 0; i < keep; i++)
				if (tokenizer_token(k->kind,
				    ids.v[ids.len - 1 - i], &tl))
					at -= tl;
			back = at;
			while (at < len &&
			    ((unsigned char)s[at] & 0xc0) == 0x80)
				at++;
		}
		*kept = keep - (keep && back != at);
		tokenizer_ids_free(&ids);
		return at;
	}
	/* The estimate, counted as tokenizer_estimate() counts: whole
	 * characters while the count stays in. */
	{
		size_t wide = 0, other = 0, j;
		uint32_t c;

		if (how == CUT_TAIL) {
			for (i = 0; i < len; i += n) {
				n = utf8_decode(s + i, len - i, &c);
				if (!n) {
					n = 1;
					c = 0xfffd;
				}
				*(tokenizer_wide(c) ? &wide : &other) += 1;
				if (wide + (other + 3) / 4 > keep) {
					*(tokenizer_wide(c) ? &wide : &other) -= 1;
					break;
				}
			}
			*kept = wide + (other + 3) / 4;
			return i > len ? len : i;
		}
		at = len;
		while (at > 0) {
			j = at - 1;
			while (j > 0 && at - j < 4 &&
			    ((unsigned char)s[j] & 0xc0) == 0x80)
				j--;
			n = utf8_decode(s + j, at - j, &c);
			if (n != at - j) {
				j = at - 1;
				c = 0xfffd;
			}
			*(tokenizer_wide(c) ? &wide : &other) += 1;
			if (wide + (other + 3) / 4 > keep) {
				*(tokenizer_wide(c) ? &wide : &other) -= 1;
				break;
			}
			at = j;
		}
		*kept = wide + (other + 3) / 4;
		return at;
	}
}

/* Entry ei's text as the item's fate leaves it. */
static void
apply_entry(struct stage *s, struct budget_item *it, struct budget_report *r,
    struct budget_cut *cut)
{
	struct eitem *ei = it->ref;
	struct entry *e = ei->e;
	const struct pbudget *pb = &s->p->budget;
	size_t body = e->len - ei->pre - ei->post, keep, at;
	struct buf b = BUF_INIT;

	memset(cut, 0, sizeof(*cut));
	cut->fate = it->fate;
	cut->key = e->key;
	cut->layer = e->layer;
	cut->priority = e->priority;
	cut->base = e->base;
	cut->was = ei->bodytok;
	cut->counted = true;
	cut->has_src = e->has_src;
	cut->src = e->src;
	cut->span = e->span;
	if (it->fate == BUDGET_DROPPED) {
		e->status = ENTRY_BUDGET;
		return;
	}
	buf_put(&b, e->content, ei->pre);
	if (it->fate == BUDGET_FALLBACK) {
		buf_put(&b, ei->fallback, ei->fallbacklen);
		cut->now = ei->fallbacktok;
	} else {
		keep = it->kept - it->extra;
		cut->how = it->cut == CUT_HEAD ? "head" : "tail";
		at = cut_at(&s->k, e->content + ei->pre, body, keep, it->cut,
		    &cut->now);
		if (it->cut == CUT_TAIL) {
			buf_put(&b, e->content + ei->pre, at);
			buf_putc(&b, '\n');
			buf_put(&b, pb->marker.s, pb->marker.len);
		} else {
			buf_put(&b, pb->marker.s, pb->marker.len);
			buf_putc(&b, '\n');
			buf_put(&b, e->content + ei->pre + at, body - at);
		}
	}
	buf_put(&b, e->content + e->len - ei->post, ei->post);
	e->len = b.len;
	e->content = arena_strndup(&s->run->arena, b.data ? b.data : "",
	    b.len);
	buf_free(&b);
	(void)r;
}

/* Tokens per layer, in the order the layers first appear. */
static void
add_layer(struct arena *a, struct budget_report *r, size_t *cap,
    const char *layer, size_t tokens)
{
	size_t i;

	for (i = 0; i < r->nlayers; i++)
		if (strcmp(r->layers[i].layer, layer) == 0) {
			r->layers[i].tokens += tokens;
			return;
		}
	if (r->nlayers == *cap) {
		struct budget_layer *v = arena_array(a, *cap * 2 + 8,
		    sizeof(*v));

		if (r->nlayers)
			memcpy(v, r->layers, r->nlayers * sizeof(*v));
		r->layers = v;
		*cap = *cap * 2 + 8;
	}
	r->layers[r->nlayers].layer = layer;
	r->layers[r->nlayers++].tokens = tokens;
}

/* The history's pinned head (keep_first, grown over the results of its
 * last calls) and its turns: each starts at a user message. */
static size_t
history_turns(const struct inputs *in, int64_t keep_first,
    struct titem **out, size_t *nout)
{
	size_t pin = keep_first > 0 && (uint64_t)keep_first < in->nhist ?
	    (size_t)keep_first : keep_first > 0 ? in->nhist : 0;
	size_t i, n = 0;
	struct titem *t;

	while (pin > 0 && pin < in->nhist && in->hist[pin].role == ROLE_TOOL)
		pin++;
	t = xmalloc((in->nhist - pin + 1) * sizeof(*t));
	for (i = pin; i < in->nhist; i++) {
		if (i == pin || (in->hist[i].role == ROLE_USER)) {
			if (n)
				t[n - 1].end = i;
			t[n].first = i;
			n++;
		}
	}
	if (n)
		t[n - 1].end = in->nhist;
	*out = t;
	*nout = n;
	return pin;
}

static void
push_cut(struct arena *a, struct budget_report *r, size_t *cap,
    const struct budget_cut *c)
{
	if (r->ncuts == *cap) {
		struct budget_cut *v = arena_array(a, *cap * 2 + 8,
		    sizeof(*v));

		if (r->ncuts)
			memcpy(v, r->cuts, r->ncuts * sizeof(*v));
		r->cuts = v;
		*cap = *cap * 2 + 8;
	}
	r->cuts[r->ncuts++] = *c;
}

/* What protected entries and fixed costs need, in words, for the error. */
static const char *
protected_list(struct arena *a, struct budget_item *v, size_t n,
    size_t fixed_turn, size_t fixed_tools, size_t fixed_over)
{
	struct buf b = BUF_INIT;
	const char *s;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!v[i].protect || !v[i].cost)
			continue;
		if (v[i].turn)
			buf_printf(&b, "%sthe pinned history messages %zu",
			    b.len ? ", " : "", v[i].cost);
		else
			buf_printf(&b, "%s%s %zu", b.len ? ", " : "",
			    ((struct eitem *)v[i].ref)->e->key, v[i].cost);
	}
	if (fixed_turn)
		buf_printf(&b, "%sthe user's message %zu", b.len ? ", " : "",
		    fixed_turn);
	if (fixed_tools)
		buf_printf(&b, "%sthe tools %zu", b.len ? ", " : "",
		    fixed_tools);
	if (fixed_over)
		buf_printf(&b, "%smessage overheads %zu", b.len ? ", " : "",
		    fixed_over);
	s = arena_strndup(a, b.data ? b.data : "", b.len);
	buf_free(&b);
	return s;
}

/* The cuts in the order they were weighed: by priority, the entries
 * before the history at a tie, then as the stack offered them (the
 * sort is stable by the original index). */
static int
by_weighed(const void *a, const void *b)
{
	const struct budget_cut *x = a, *y = b;

	if (x->priority != y->priority)
		return x->priority < y->priority ? -1 : 1;
	if (!x->key != !y->key)
		return x->key ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void
sort_cuts(struct budget_report *r)
{
	size_t i;

	for (i = 0; i < r->ncuts; i++)
		r->cuts[i].seq = i;
	qsort(r->cuts, r->ncuts, sizeof(*r->cuts), by_weighed);
}

struct turn_ctx {
	const struct counter *k;
	const struct inputs *in;
};

/* A turn's cost, counted when the fitting weighs it. */
static size_t
turn_cost(void *ctx, struct budget_item *it)
{
	const struct turn_ctx *tc = ctx;
	const struct titem *t = it->ref;
	size_t k, n = 0;

	for (k = t->first; k < t->end; k++)
		n += message_cost(tc->k, &tc->in->hist[k]);
	return n;
}

/* The history's items: the pinned head (protected), then the turns
 * newest first, into v; returns how many. */
static size_t
turn_items(struct stage *s, struct budget_item *v, const struct inputs *in,
    size_t pin, struct titem *turns, size_t nturns)
{
	size_t nv = 0, i, k;

	if (pin) {
		struct budget_item *it = &v[nv++];

		memset(it, 0, sizeof(*it));
		it->protect = true;
		it->turn = true;
		it->priority = INT_MIN;
		for (k = 0; k < pin; k++)
			it->cost += message_cost(&s->k, &in->hist[k]);
	}
	for (i = nturns; i-- > 0;) {
		struct budget_item *it = &v[nv++];

		memset(it, 0, sizeof(*it));
		it->turn = true;
		it->priority = s->p->budget.history_priority;
		it->seq = SIZE_MAX / 2 + (nturns - 1 - i);
		it->cost = SIZE_MAX;    /* counted when weighed */
		it->fallback = SIZE_MAX;
		it->ref = &turns[i];
	}
	return nv;
}

/* The turns the budget dropped, as one cut of the history: messages
 * (pin, first_kept] go; the pinned head and the newest stay. */
static void
drop_turns(struct stage *s, struct budget_report *r, size_t *cap,
    const struct budget_item *v, size_t nv, struct inputs *in, size_t pin,
    size_t first_kept, size_t hturns)
{
	struct budget_cut cut;
	size_t was = 0, i;
	bool counted_all = true;

	memset(&cut, 0, sizeof(cut));
	for (i = 0; i < nv; i++)
		if (v[i].turn && !v[i].protect && v[i].fate != BUDGET_KEPT) {
			if (v[i].cost == SIZE_MAX)
				counted_all = false;
			else
				was += v[i].cost;
		}
	cut.fate = BUDGET_DROPPED;
	cut.layer = "history";
	cut.priority = s->p->budget.history_priority;
	cut.first = pin + 1;
	cut.last = first_kept;
	cut.turns = hturns;
	cut.was = was;
	cut.counted = counted_all;
	push_cut(&s->run->arena, r, cap, &cut);
	r->history_cut = first_kept - pin;
	/* The kept messages: the pinned head, then the newest. */
	memmove(in->hist + pin, in->hist + first_kept,
	    (in->nhist - first_kept) * sizeof(*in->hist));
	in->nhist -= first_kept - pin;
}

bool
budget_fit(struct run *run, const struct options *opt,
    const struct profile *p, struct inputs *in, struct chat *c)
{
	struct arena *a = &run->arena;
	struct budget_report *r = arena_alloc(a, sizeof(*r));
	struct stage s;
	struct budget_item *v;
	struct eitem *ei;
	struct titem *turns;
	size_t nturns, pin, nv = 0, i, ne = 0, used, need, cap = 0, lcap = 0;
	size_t fixed_turn = 0, fixed_tools = 0, fixed_over = PRIMING;
	size_t first_kept, hturns = 0;
	struct turn_ctx tc;
	bool hcut = false, sys = false, dev = false;
	bool agent = agent_enabled(p);

	memset(r, 0, sizeof(*r));
	c->budget = r;
	r->shown = p->budget.node || p->context_node;
	if (!decide(run, p, c->model, r))
		return false;
	if (!r->on)
		return true;
	memset(&s, 0, sizeof(s));
	s.run = run;
	s.p = p;
	s.k.exact = tokenizer_model_known(c->model);
	s.k.kind = tokenizer_for_model(c->model);
	r->exact = s.k.exact;
	r->counter = s.k.exact ? tokenizer_name(s.k.kind) : "estimate";
	r->margin = s.k.exact ? 0 : p->budget.margin;
	r->room = r->budget - r->budget / 100 * r->margin -
	    r->budget % 100 * r->margin / 100;
	s.sep = count(&s.k, "\n\n", 2);
	s.sectsep = count(&s.k, "\n\n---\n\n", 7);
	index_cuts(&s);

	/* The fixed costs: the user's text, the tools, the overheads. */
	if (in->user && !agent)
		fixed_turn = MSG_OVERHEAD + count(&s.k, in->user->text,
		    in->user->len);
	for (i = 0; i < c->tools.n; i++)
		fixed_tools += tool_cost(&s.k, c->tools.items[i]);
	if (c->tools.n)
		fixed_tools += TOOLS_OVERHEAD;

	pin = history_turns(in, p->budget.keep_first, &turns, &nturns);
	v = xmalloc((c->stack.nlive + nturns + 2) * sizeof(*v));
	ei = arena_array(a, c->stack.nlive + 1, sizeof(*ei));
	for (i = 0; i < c->stack.nlive; i++) {
		struct entry *e = c->stack.live[i];

		if (!e || e->status != ENTRY_ACTIVE)
			continue;
		if (e->placement == PLACE_SYSTEM)
			*(e->role == ROLE_DEVELOPER ? &dev : &sys) = true;
		entry_item(&s, e, &ei[ne], &v[nv++]);
		ne++;
	}
	fixed_over += (sys ? MSG_OVERHEAD : 0) + (dev ? MSG_OVERHEAD : 0);
	nv += turn_items(&s, v + nv, in, pin, turns, nturns);
	r->used = 0;
	tc.k = &s.k;
	tc.in = in;
	{
		size_t fixed = fixed_turn + fixed_tools + fixed_over;
		size_t room = (size_t)r->room > fixed ? (size_t)r->room - fixed :
		    0;
		bool ok = (size_t)r->room >= fixed && budget_order(v, nv, room,
		    &used, &need, turn_cost, &tc);

		if (!ok) {
			if ((size_t)r->room < fixed)
				budget_order(v, nv, 0, &used, &need,
				    turn_cost, &tc);
			diag_plain(run, DIAG_ERROR, MSG_BUDGET_PROTECTED,
			    need + fixed, (long long)r->room, r->from,
			    protected_list(a, v, nv, fixed_turn, fixed_tools,
			    fixed_over));
			free(v);
			free(turns);
			return false;
		}
		r->used = used + fixed;
	}

	/* Apply; the cuts are sorted into the order they were weighed. */
	first_kept = in->nhist;
	for (i = 0; i < nv; i++) {
		struct budget_item *it = &v[i];
		struct budget_cut cut;

		if (it->turn) {
			if (it->protect) {
				r->protected_tokens += it->cost;
				add_layer(a, r, &lcap, "history", it->cost);
				continue;
			}
			if (it->fate == BUDGET_KEPT) {
				first_kept = ((struct titem *)it->ref)->first;
				add_layer(a, r, &lcap, "history", it->cost);
			} else {
				hcut = true;
				hturns++;
			}
			continue;
		}
		if (it->protect)
			r->protected_tokens += it->cost;
		if (it->fate != BUDGET_KEPT) {
			apply_entry(&s, it, r, &cut);
			push_cut(a, r, &cap, &cut);
		}
		if (it->kept)
			add_layer(a, r, &lcap, ((struct eitem *)it->ref)->e->layer,
			    it->kept);
	}
	if (hcut)
		drop_turns(&s, r, &cap, v, nv, in, pin, first_kept, hturns);
	if (fixed_turn)
		add_layer(a, r, &lcap, "turn", fixed_turn);
	if (fixed_tools)
		add_layer(a, r, &lcap, "tools", fixed_tools);
	add_layer(a, r, &lcap, "overhead", fixed_over);
	if (r->ncuts) {
		r->shown = true;
		sort_cuts(r);
	}
	free(v);
	free(turns);
	if (r->ncuts && opt && !opt->quiet)
		diag_plain(run, DIAG_NOTE, MSG_BUDGET_CUT,
		    budget_summary(run, r));
	return true;
}

const char *
budget_summary(struct run *run, const struct budget_report *r)
{
	size_t i, entries = 0;
	struct buf b = BUF_INIT;
	const char *out;

	if (!r || !r->ncuts)
		return NULL;
	for (i = 0; i < r->ncuts; i++)
		if (r->cuts[i].key)
			entries++;
	if (entries)
		buf_printf(&b, "%zu entr%s", entries, entries == 1 ? "y" :
		    "ies");
	if (r->history_cut)
		buf_printf(&b, "%s%zu history message%s", entries ? " and " :
		    "", r->history_cut, r->history_cut == 1 ? "" : "s");
	buf_printf(&b, " cut to fit a budget of %lld tokens (%s)",
	    (long long)r->budget, r->from);
	out = arena_strndup(&run->arena, b.data, b.len);
	buf_free(&b);
	return out;
}
