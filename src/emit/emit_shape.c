/*
 * emit_shape: the tavern dialect's request as each provider takes it,
 * keyed on the chat's dialect and format -- what SillyTavern 1.15's
 * backend makes of the prompt for Claude and Google (its
 * prompt-converters.js), names put into the text for a format whose
 * messages carry none, and the body fields: the samplers of the
 * provider, its stop strings, a custom source's include and exclude
 * body.  The build (tavern/tbuild.h) leaves its messages as the
 * OpenAI-compatible source gets them and the preset's choices in
 * chat.items->req; emit_shape() reshapes a copy of the messages and of
 * the items (a placeholder or a prefill is an item of its own), so
 * every view of the build shows what the provider is sent.
 */
#include "emit/emit.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "base/util.h"
#include "base/vec.h"
#include "data/tree.h"
#include "data/yamltree.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "prompt/chat.h"
#include "prompt/item.h"

/* A message while it is being shaped. */
struct smsg {
	enum role role;
	const char *name;
	const char *content;
	const uint32_t *items;
	uint32_t nitems;
	bool blocks;                    /* sent as a list of text blocks */
};

struct slist {
	struct smsg *v;
	size_t n, cap;
};

struct shape {
	struct run *run;
	struct arena *a;
	const struct chat *c;
	const struct item_request *q;
	struct item_report *rep;        /* a copy of the chat's */
};

static void
push(struct shape *sh, struct slist *l, const struct smsg *m)
{
	if (l->n == l->cap)
		l->v = avec_grow(sh->a, l->v, &l->cap, l->n, l->n + 1,
		    sizeof(*l->v));
	l->v[l->n++] = *m;
}

static void
insert_at(struct shape *sh, struct slist *l, size_t at, const struct smsg *m)
{
	push(sh, l, m);
	memmove(&l->v[at + 1], &l->v[at], (l->n - 1 - at) * sizeof(*l->v));
	l->v[at] = *m;
}

/* A new item of the shaping's own, with text raw at every stage. */
static uint32_t
item_add(struct shape *sh, const char *id, enum item_source source,
    enum role role, const char *raw, const char *note)
{
	struct item_report *r = sh->rep;
	struct item *it;
	size_t k;

	if (r->n == r->cap)
		r->items = avec_grow(sh->a, r->items, &r->cap, r->n, r->n + 1,
		    sizeof(*r->items));
	it = &r->items[r->n];
	memset(it, 0, sizeof(*it));
	it->id = id;
	it->source = source;
	it->role = role;
	it->depth = -1;
	it->message = -1;
	it->note = note;
	for (k = 0; k < ITEM_NSTAGES; k++)
		it->text[k] = raw ? raw : "";
	return (uint32_t)r->n++;
}

/* A message that is item i alone. */
static struct smsg
holding(struct shape *sh, enum role role, const char *content, uint32_t i)
{
	uint32_t *v = arena_array(sh->a, 1, sizeof(*v));
	struct smsg m = { role, NULL, content, v, 1, true };

	v[0] = i;
	return m;
}

/* m joins o: its text after sep, its items after o's. */
static void
absorb(struct shape *sh, struct smsg *o, const struct smsg *m,
    const char *sep)
{
	uint32_t *v;

	o->content = arena_printf(sh->a, "%s%s%s", o->content, sep,
	    m->content);
	if (!m->nitems)
		return;
	v = arena_array(sh->a, (size_t)o->nitems + m->nitems, sizeof(*v));
	if (o->nitems)
		memcpy(v, o->items, o->nitems * sizeof(*v));
	memcpy(v + o->nitems, m->items, m->nitems * sizeof(*v));
	o->items = v;
	o->nitems += m->nitems;
}

/* Join runs of one role with "\n\n". */
static void
merge_roles(struct shape *sh, struct slist *l)
{
	struct slist out = { NULL, 0, 0 };
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct smsg *m = &l->v[i];

		if (out.n && out.v[out.n - 1].role == m->role) {
			absorb(sh, &out.v[out.n - 1], m, "\n\n");
			continue;
		}
		push(sh, &out, m);
		out.v[out.n - 1].name = NULL;
	}
	*l = out;
}

/* An example's speaker: the user's or the character's name; else who. */
static const char *
speaker(const struct item_request *q, const char *who, bool *example)
{
	*example = false;
	if (who && strcmp(who, "example_user") == 0) {
		*example = true;
		return q->user_name;
	}
	if (who && strcmp(who, "example_assistant") == 0) {
		*example = true;
		return q->char_name;
	}
	return who;
}

/*
 * Claude and Google.  With use_sysprompt the leading system messages
 * are the system prompt, one block (part) each -- for Google while
 * another message follows -- and an example's gets its speaker's name
 * unless it starts with it; every other system message is the user's.
 * Claude: a named message gets "name: " in front (an example's as
 * above), an empty text is U+200B, every message is a list of text
 * blocks (the emitter keeps them apart when it joins a role's run), the
 * user message "[Start a new chat]" goes first when the messages do not
 * start with the user's (SillyTavern: only when there are none), and the
 * preset's assistant prefill comes last.  Google (no system prompt for a
 * Gemma model): names as for examples, and a role's run joined with a
 * blank line.
 */
static void
provider_shape(struct shape *sh, struct slist *l, bool claude)
{
	const struct item_request *q = sh->q;
	const char *model = sh->c->model;
	/* Google's Gemma models take no system instruction. */
	bool sys = q->sysprompt && (claude || !model ||
	    !strstr(model, "gemma"));
	size_t i, lead = 0;

	while (sys && lead < l->n && l->v[lead].role == ROLE_SYSTEM &&
	    (claude || lead + 1 < l->n))
		lead++;
	for (i = 0; i < l->n; i++) {
		struct smsg *m = &l->v[i];
		bool example;
		const char *who = speaker(q, m->name, &example);

		/* Claude drops a system message's own name; Google keeps
		 * it out of the system prompt only. */
		if (who && *who && (example || (claude ?
		    m->role != ROLE_SYSTEM : i >= lead)))
			m->content = claude && !example ? arena_printf(sh->a,
			    "%s: %s", who, m->content) : who == q->char_name &&
			    example ? item_bot_prefixed(sh->a, q, m->content) :
			    item_prefixed(sh->a, who, m->content);
		m->name = NULL;
		if (i >= lead && m->role == ROLE_SYSTEM)
			m->role = ROLE_USER;
		if (claude && i >= lead) {
			if (!*m->content)
				m->content = "\xe2\x80\x8b";
			m->blocks = true;
		}
	}
	if (claude && (lead == l->n || l->v[lead].role != ROLE_USER)) {
		/* SillyTavern adds it only after a system prompt that is
		 * all there is; a first message of the character's it sends
		 * as it is, and Claude refuses the request.  strata sends
		 * what Claude takes.  The text is SillyTavern's
		 * promptPlaceholder, as for strict post-processing. */
		struct smsg ph = holding(sh, ROLE_USER, q->placeholder,
		    item_add(sh, "promptPlaceholder", ITEM_SOURCE_SETTINGS,
		    ROLE_USER, q->placeholder, lead == l->n ? "Claude: a "
		    "user message after a system prompt that is all there "
		    "is" : "Claude: "
		    "the messages must start with the user's"));

		insert_at(sh, l, lead, &ph);
	}
	if (claude && q->prefill_id) {
		uint32_t it = item_add(sh, q->prefill_id, ITEM_SOURCE_PRESET,
		    ROLE_ASSISTANT, q->prefill_raw, "Claude: the reply starts "
		    "with it");
		struct item *p = &sh->rep->items[it];
		struct smsg m;

		p->has_src = q->prefill_has_src;
		p->src = q->prefill_src;
		p->span = q->prefill_span;
		if (strcmp(p->text[ITEM_STAGE_RAW], q->prefill))
			p->text[ITEM_STAGE_MACROS] =
			    p->text[ITEM_STAGE_REGEX_POST] = q->prefill;
		m = holding(sh, ROLE_ASSISTANT, *q->prefill ? q->prefill :
		    "\xe2\x80\x8b", it);
		push(sh, l, &m);
	}
	/* With extended thinking Claude takes no prefill: SillyTavern
	 * sends the last message as the user's when it is the
	 * assistant's. */
	if (claude && q->claude_budget && l->n &&
	    l->v[l->n - 1].role == ROLE_ASSISTANT)
		l->v[l->n - 1].role = ROLE_USER;
	if (!claude) {
		/* Join each role's run after the system prompt. */
		struct slist rest = { l->v + lead, l->n - lead, l->n - lead };

		merge_roles(sh, &rest);
		l->n = lead;
		for (i = 0; i < rest.n; i++)
			push(sh, l, &rest.v[i]);
	}
}

/* For a format whose messages carry no name (the Responses API,
 * Ollama): each name into its text as SillyTavern's converters put it
 * for such providers, an example's as the user's or the character's,
 * unless the text starts with it. */
static void
names_in_text(struct shape *sh, struct slist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		struct smsg *m = &l->v[i];
		bool example;
		const char *who = speaker(sh->q, m->name, &example);

		if (who && *who)
			m->content = who == sh->q->char_name ?
			    item_bot_prefixed(sh->a, sh->q, m->content) :
			    item_prefixed(sh->a, who, m->content);
		m->name = NULL;
	}
}

/* The preset's Claude samplers; the Claude models SillyTavern limits
 * (Opus 4.1 and 4.5, Sonnet 4.5, Haiku 4.5) take temperature or top_p,
 * not both: top_p when it is below 1, else temperature.  With extended
 * thinking none of temperature, top_p, top_k, and max_tokens at least
 * 1025 (1024 more when it was not). */
static const struct node *
claude_params(struct shape *sh)
{
	static const char *const limited[] = { "claude-opus-4-1",
		"claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-5" };
	static const char *const sampling[] = { "temperature", "top_p",
		"top_k" };
	const char *model = sh->c->model;
	const struct node *b = sh->q->body_claude, *tp;
	const char *drop;
	struct node *out, *th;
	size_t i;

	if (sh->q->claude_budget) {
		out = tree_copy(sh->a, b);
		tp = tree_get(out, "max_tokens");
		if (tp && tp->kind == NODE_INT && tp->u.i <= 1024)
			tree_put(sh->a, out, "max_tokens", tree_int(sh->a,
			    tp->u.i + 1024));
		for (i = 0; i < LEN(sampling); i++)
			tree_remove(sh->a, out, sampling[i],
			    strlen(sampling[i]));
		th = tree_get(out, "anthropic");
		if (!th)
			th = tree_put(sh->a, out, "anthropic",
			    tree_table(sh->a));
		th = tree_put(sh->a, th, "thinking", tree_table(sh->a));
		tree_put(sh->a, th, "type", tree_str(sh->a, "enabled"));
		tree_put(sh->a, th, "budget_tokens", tree_int(sh->a,
		    sh->q->claude_budget));
		return out;
	}
	for (i = 0; i < LEN(limited) && !(model && strncmp(model, limited[i],
	    strlen(limited[i])) == 0); i++)
		;
	if (i == LEN(limited))
		return b;
	tp = tree_get(b, "top_p");
	drop = tp && (tp->kind == NODE_INT ? tp->u.i < 1 : tp->kind ==
	    NODE_FLOAT && tp->u.f < 1) ? "temperature" : "top_p";
	out = tree_copy(sh->a, b);
	tree_remove(sh->a, out, drop, strlen(drop));
	return out;
}

/* The OpenAI body's samplers the Responses API has (SillyTavern has no
 * such source): temperature, max_tokens, stream and top_p; no
 * penalties, seed or stop strings. */
static const struct node *
responses_params(struct shape *sh)
{
	static const char *const drop[] = { "presence_penalty",
		"frequency_penalty", "seed" };
	struct node *out = tree_copy(sh->a, sh->q->body);
	size_t k;

	for (k = 0; k < LEN(drop); k++)
		tree_remove(sh->a, out, drop[k], strlen(drop[k]));
	return out;
}

/* The samplers b with the custom stopping strings as "stop" (strata's
 * name; each emitter writes its provider's), as SillyTavern sends them:
 * the first 4 for an OpenAI-compatible source (all for Mistral), all
 * for Claude, and for Google those of the first 5 that are 1 to 16
 * UTF-16 units long. */
static const struct node *
with_stops(struct shape *sh, const struct node *b)
{
	const struct item_request *q = sh->q;
	enum out_format f = sh->c->format;
	size_t max = f == FORMAT_ANTHROPIC || q->all_stops ? SIZE_MAX :
	    f == FORMAT_GEMINI ? 5 : 4, i, u;
	struct node *out, *list;

	/* The Responses API has no stop strings; the views show them as
	 * the OpenAI-compatible body has them. */
	if (!q->nstops || f == FORMAT_RESPONSES)
		return b;
	out = tree_copy(sh->a, b);
	list = tree_array(sh->a);
	for (i = 0; i < q->nstops && i < max; i++) {
		u = utf16_length(q->stops[i], strlen(q->stops[i]));
		if (f == FORMAT_GEMINI && (u < 1 || u > 16))
			continue;
		tree_push(sh->a, list, tree_str(sh->a, q->stops[i]));
	}
	if (list->u.array.n)
		tree_put(sh->a, out, "stop", list);
	return out;
}

/* YAML text s parsed into the run's arena; NULL (and a warning) when it
 * is not YAML. */
static struct node *
yaml_value(struct shape *sh, const char *what, const char *s)
{
	struct run quiet;
	struct node *n = NULL, *r = NULL;

	run_init(&quiet);
	quiet.diag.capped = true;
	if (yamltree_parse(&quiet, run_source_mem(&quiet, what, s,
	    strlen(s)), &n))
		r = tree_copy(sh->a, n);
	run_free(&quiet);
	if (!r)
		diag_plain(sh->run, DIAG_WARNING, MSG_TAVERN_YAML_BODY, what);
	return r;
}

/* A body field the YAML may set or remove: not messages, model and
 * tools, which strata's emitters own. */
static bool
body_key(const char *k)
{
	return strcmp(k, "messages") && strcmp(k, "model") &&
	    strcmp(k, "tools");
}

/* Set mb on the body: in place when the body has it, else among the
 * fields sent as written (params' own "openai" table). */
static void
body_set(struct arena *a, struct node *out, const struct member *mb)
{
	struct node *own;

	if (tree_get(out, mb->key) && strcmp(mb->key, "openai")) {
		tree_set(a, out, mb->key, mb->keylen, 0, span_make(0, 0),
		    mb->value);
		return;
	}
	own = (struct node *)tree_get(out, "openai");
	if (!own || own->kind != NODE_TABLE)
		own = tree_put(a, out, "openai", tree_table(a));
	tree_set(a, own, mb->key, mb->keylen, 0, span_make(0, 0), mb->value);
}

/* Remove key from the body and from the fields sent as written. */
static void
body_remove(struct arena *a, struct node *out, const char *key, size_t len)
{
	struct node *own = (struct node *)tree_get(out, "openai");

	tree_remove(a, out, key, len);
	if (own && own->kind == NODE_TABLE)
		tree_remove(a, own, key, len);
}

/* The keys y names to remove: a list of keys, a mapping's keys, or one
 * key. */
static void
exclude(struct arena *a, struct node *out, const struct node *y)
{
	size_t i;

	if (y->kind == NODE_ARRAY) {
		for (i = 0; i < y->u.array.n; i++)
			if (y->u.array.items[i]->kind == NODE_STRING &&
			    body_key(y->u.array.items[i]->u.str.s))
				body_remove(a, out,
				    y->u.array.items[i]->u.str.s,
				    y->u.array.items[i]->u.str.len);
	} else if (y->kind == NODE_TABLE) {
		for (i = 0; i < y->u.table.n; i++)
			if (body_key(y->u.table.items[i].key))
				body_remove(a, out, y->u.table.items[i].key,
				    y->u.table.items[i].keylen);
	} else if (y->kind == NODE_STRING && body_key(y->u.str.s)) {
		body_remove(a, out, y->u.str.s, y->u.str.len);
	}
}

/*
 * A custom OpenAI-compatible source's custom_include_body (YAML: a
 * mapping, or a list of mappings, whose keys are set on the body, a key
 * already there keeping its place) and custom_exclude_body (YAML: a list
 * of keys, a mapping whose keys, or one key, are removed), as
 * SillyTavern's server applies them.
 */
static const struct node *
custom_body(struct shape *sh, const struct node *b)
{
	const char *inc = sh->q->include_body, *exc = sh->q->exclude_body;
	struct node *out, *y;
	size_t i, j;

	if (sh->c->format != FORMAT_OPENAI || (!*inc && !*exc))
		return b;
	out = b ? tree_copy(sh->a, b) : tree_table(sh->a);
	if (*inc && (y = yaml_value(sh, "custom_include_body", inc))) {
		for (i = 0; i < (y->kind == NODE_ARRAY ? y->u.array.n : 1);
		    i++) {
			const struct node *m = y->kind == NODE_ARRAY ?
			    y->u.array.items[i] : y;

			for (j = 0; m->kind == NODE_TABLE && j < m->u.table.n;
			    j++) {
				const struct member *mb = &m->u.table.items[j];

				if (body_key(mb->key))
					body_set(sh->a, out, mb);
			}
		}
	}
	if (*exc && (y = yaml_value(sh, "custom_exclude_body", exc)))
		exclude(sh->a, out, y);
	return out;
}

/* The chat's messages as a list, each with its items. */
static void
read_messages(struct shape *sh, struct slist *l)
{
	const struct chat *c = sh->c;
	size_t i;

	for (i = 0; i < c->n; i++) {
		struct smsg m = { c->msgs[i].role, c->msgs[i].name,
			c->msgs[i].content, sh->rep->msg_items[i],
			sh->rep->msg_nitems[i], c->msgs[i].x != NULL };

		push(sh, l, &m);
	}
}

/* l as c's messages: a system message at the start (or after one) is
 * the system prompt's, any other the history's; each item knows its
 * message. */
static void
write_messages(struct shape *sh, const struct slist *l, struct chat *c)
{
	struct item_report *r = sh->rep;
	const char *think;
	size_t i, j;

	c->msgs = arena_array(sh->a, l->n + 1, sizeof(*c->msgs));
	c->n = 0;
	c->cap = l->n + 1;
	r->msg_items = arena_array(sh->a, l->n + 1, sizeof(*r->msg_items));
	r->msg_nitems = arena_array(sh->a, l->n + 1, sizeof(*r->msg_nitems));
	for (i = 0; i < r->n; i++)
		r->items[i].message = -1;
	for (i = 0; i < l->n; i++) {
		struct message *m = &c->msgs[c->n++];

		memset(m, 0, sizeof(*m));
		m->role = l->v[i].role;
		m->name = l->v[i].name;
		m->content = l->v[i].content;
		m->len = strlen(m->content);
		think = NULL;
		for (j = 0; j < l->v[i].nitems; j++)
			if (r->items[l->v[i].items[j]].thinking)
				think = r->items[l->v[i].items[j]].thinking;
		if (l->v[i].blocks || think) {
			struct message_extra *x = arena_alloc(sh->a,
			    sizeof(*x));

			if (l->v[i].blocks) {
				struct part *pt = arena_alloc(sh->a,
				    sizeof(*pt));

				pt->kind = PART_TEXT;
				pt->data = m->content;
				pt->len = m->len;
				x->parts = pt;
				x->nparts = 1;
			}
			/* Seed 002's thinking: the reasoning before it. */
			x->reasoning = think;
			x->reasoning_len = think ? strlen(think) : 0;
			m->x = x;
		}
		m->origin = m->role == ROLE_SYSTEM && (i == 0 ||
		    c->msgs[i - 1].origin == ORIGIN_SYSTEM) ? ORIGIN_SYSTEM :
		    ORIGIN_HISTORY;
		r->msg_items[i] = l->v[i].items;
		r->msg_nitems[i] = l->v[i].nitems;
		for (j = 0; j < l->v[i].nitems; j++)
			r->items[l->v[i].items[j]].message = (long)i;
	}
}

void
emit_shape(struct run *run, struct chat *c)
{
	struct shape sh;
	struct item_report *rep;
	const struct item_request *q;
	enum out_format f = c->format;
	const struct node *b;

	if (c->dialect != DIALECT_TAVERN || !c->items)
		return;
	q = &c->items->req;
	memset(&sh, 0, sizeof(sh));
	sh.run = run;
	sh.a = &run->arena;
	sh.c = c;
	sh.q = q;
	if (f == FORMAT_ANTHROPIC || f == FORMAT_GEMINI ||
	    f == FORMAT_RESPONSES || f == FORMAT_OLLAMA) {
		struct slist l = { NULL, 0, 0 };

		rep = arena_alloc(sh.a, sizeof(*rep));
		*rep = *c->items;
		rep->cap = rep->n + 2;
		rep->items = arena_array(sh.a, rep->cap, sizeof(*rep->items));
		if (rep->n)
			memcpy(rep->items, c->items->items,
			    rep->n * sizeof(*rep->items));
		sh.rep = rep;
		sh.q = q = &rep->req;
		read_messages(&sh, &l);
		if (f == FORMAT_ANTHROPIC || f == FORMAT_GEMINI)
			provider_shape(&sh, &l, f == FORMAT_ANTHROPIC);
		else
			names_in_text(&sh, &l);
		write_messages(&sh, &l, c);
		c->items = rep;
	}
	if (f == FORMAT_ANTHROPIC)
		b = claude_params(&sh);
	else if (f == FORMAT_GEMINI)
		b = q->body_google;
	else if (f == FORMAT_RESPONSES)
		b = responses_params(&sh);
	else {
		b = q->body_model;
		if (q->bias_missing)
			diag_plain(run, DIAG_WARNING,
			    MSG_TAVERN_BIAS_TOKENIZER, c->model ? c->model :
			    "", q->bias_missing);
	}
	c->params = custom_body(&sh, with_stops(&sh, b));
}
