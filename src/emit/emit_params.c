/*
 * [output.params] per provider: one profile for every format.  The keys
 * of the table below are written once and translated into each request
 * format's own names and shapes; a key a format has no parameter for is
 * an error naming both.  [output.params.<format>] (openai, responses,
 * anthropic, gemini, ollama) is sent as written, to that format only,
 * after the translated keys (so it wins).  strata-profile(5) prints the
 * table.
 */
#include "emit/emit.h"

#include <string.h>

#include "base/arena.h"
#include "base/util.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "prompt/chat.h"

/* The formats that send parameters, in the table's column order. */
enum { COL_OPENAI, COL_RESPONSES, COL_ANTHROPIC, COL_GEMINI, COL_OLLAMA,
	NCOLS };

/* How a key's value is carried over. */
enum how {
	AS_IS,          /* the value, under the column's name */
	LIST,           /* a string becomes a one-element list */
	SPECIAL,        /* response_format, tool_choice, parallel_tool_calls */
};

/*
 * The translation table.  A name is where the value goes: in the body,
 * or, for Gemini, in generationConfig and, for Ollama, in options (the
 * emitter's "sampling" table); NULL: the format has no such parameter.
 */
static const struct param {
	const char *key;
	enum how how;
	const char *to[NCOLS];
} table[] = {
	{ "temperature", AS_IS, { "temperature", "temperature",
	    "temperature", "temperature", "temperature" } },
	{ "top_p", AS_IS, { "top_p", "top_p", "top_p", "topP", "top_p" } },
	{ "top_k", AS_IS, { NULL, NULL, "top_k", "topK", "top_k" } },
	{ "max_tokens", AS_IS, { "max_tokens", "max_output_tokens",
	    "max_tokens", "maxOutputTokens", "num_predict" } },
	{ "max_completion_tokens", AS_IS, { "max_completion_tokens",
	    "max_output_tokens", "max_tokens", "maxOutputTokens",
	    "num_predict" } },
	{ "stop", LIST, { "stop", NULL, "stop_sequences", "stopSequences",
	    "stop" } },
	{ "seed", AS_IS, { "seed", NULL, NULL, "seed", "seed" } },
	{ "presence_penalty", AS_IS, { "presence_penalty", NULL, NULL,
	    "presencePenalty", "presence_penalty" } },
	{ "frequency_penalty", AS_IS, { "frequency_penalty", NULL, NULL,
	    "frequencyPenalty", "frequency_penalty" } },
	{ "n", AS_IS, { "n", NULL, NULL, "candidateCount", NULL } },
	{ "stream", AS_IS, { "stream", "stream", "stream", NULL,
	    "stream" } },
	{ "store", AS_IS, { "store", "store", NULL, NULL, NULL } },
	{ "response_format", SPECIAL, { "response_format", "text", NULL,
	    "responseMimeType", "format" } },
	{ "tool_choice", SPECIAL, { "tool_choice", "tool_choice",
	    "tool_choice", "toolConfig", NULL } },
	{ "parallel_tool_calls", SPECIAL, { "parallel_tool_calls",
	    "parallel_tool_calls", "tool_choice", NULL, NULL } },
};

/* The [output.params.<format>] tables, by column. */
static const char *const own[] = { "openai", "responses", "anthropic",
	"gemini", "ollama", NULL };

/* Gemini's request fields that an [output.params.gemini] key names at
 * the top level, not in generationConfig. */
static const char *const gemini_top[] = { "safetySettings", "toolConfig",
	"cachedContent", "labels", "serviceTier", "store", NULL };

static const char *const openai_reserved[] = { "model", "messages",
	"tools", NULL };
static const char *const responses_reserved[] = { "model", "input",
	"instructions", "tools", NULL };
static const char *const anthropic_reserved[] = { "model", "messages",
	"tools", "system", NULL };
static const char *const gemini_reserved[] = { "contents",
	"systemInstruction", "tools", NULL };
static const char *const ollama_reserved[] = { "model", "messages",
	"tools", NULL };

static int
column(enum out_format f)
{
	switch (f) {
	case FORMAT_OPENAI:
		return COL_OPENAI;
	case FORMAT_RESPONSES:
		return COL_RESPONSES;
	case FORMAT_ANTHROPIC:
		return COL_ANTHROPIC;
	case FORMAT_GEMINI:
		return COL_GEMINI;
	case FORMAT_OLLAMA:
		return COL_OLLAMA;
	case FORMAT_MESSAGES:
	case FORMAT_TEXT:
	case FORMAT_JSON:
	case FORMAT_PROMPT:
	case FORMAT_SYSTEM:
	case FORMAT_USER:
	case FORMAT_REVIEW:
		break;
	}
	return -1;
}

const char *const *
emit_reserved(enum out_format f)
{
	static const char *const *const by_col[] = { openai_reserved,
		responses_reserved, anthropic_reserved, gemini_reserved,
		ollama_reserved };
	int col = column(f);

	return col < 0 ? NULL : by_col[col];
}

/* Is key[0..len) in list (NULL-terminated; NULL is empty)? */
static bool
listed(const char *const *list, const char *key, size_t len)
{
	return list && names_index(list, key, len) >= 0;
}

/* One parameter on its way into a request. */
struct pctx {
	struct run *run;
	const struct chat *c;
	enum out_format f;
	int col;
	struct node *body, *sampling;
	const struct member *m;
};

static void
put(struct pctx *x, struct node *t, const char *key, struct node *v)
{
	tree_set(&x->run->arena, t, key, strlen(key), x->m->keysrc,
	    x->m->keyspan, v);
}

/* Report that m's value is not what the key takes. */
static bool
bad_value(struct pctx *x, const char *want)
{
	const struct node *v = x->m->value;

	diag_error(x->run, run_source(x->run, v->src), v->span,
	    MSG_PARAM_VALUE, x->m->key, want);
	return false;
}

/* The JSON type a translated key's value must have, so a word given
 * with --set (temperature=hot) is an error at the option and not a
 * string in the body: "a number", "an integer", "true or false", or
 * NULL when the key's own translation checks it. */
static const char *
want_of(const char *key)
{
	static const char *const numbers[] = { "temperature", "top_p",
		"presence_penalty", "frequency_penalty", NULL };
	static const char *const integers[] = { "top_k", "max_tokens",
		"max_completion_tokens", "seed", "n", NULL };
	static const char *const bools[] = { "stream", "store", NULL };

	if (listed(numbers, key, strlen(key)))
		return "a number";
	if (listed(integers, key, strlen(key)))
		return "an integer";
	if (listed(bools, key, strlen(key)))
		return "true or false";
	return NULL;
}

static bool
type_ok(const struct node *v, const char *want)
{
	if (!want)
		return true;
	if (want[1] == ' ')     /* a number */
		return v->kind == NODE_INT || v->kind == NODE_FLOAT;
	if (want[1] == 'n')     /* an integer */
		return v->kind == NODE_INT;
	return v->kind == NODE_BOOL;
}

static bool
unsupported(struct pctx *x)
{
	diag_error(x->run, run_source(x->run, x->m->keysrc), x->m->keyspan,
	    MSG_PARAM_UNSUPPORTED, names_format(x->f), x->m->key,
	    own[x->col]);
	return false;
}

static struct node *
str(struct pctx *x, const char *s)
{
	return tree_str(&x->run->arena, s);
}

/*
 * response_format: {"type": "text" | "json_object" | "json_schema",
 * "json_schema": {"name", "schema", "strict"}} as OpenAI spells it.
 */
static bool
response_format(struct pctx *x)
{
	struct arena *a = &x->run->arena;
	const struct node *v = x->m->value, *type = tree_get(v, "type");
	const struct node *js = tree_get(v, "json_schema"), *schema = NULL;
	struct node *fmt;
	int kind;

	if (v->kind != NODE_TABLE || !type || type->kind != NODE_STRING ||
	    (kind = names_index((const char *const[]){ "text",
	    "json_object", "json_schema", NULL }, type->u.str.s,
	    type->u.str.len)) < 0)
		return bad_value(x, "a table with \"type\": \"text\", "
		    "\"json_object\" or \"json_schema\"");
	if (kind == 2) {
		schema = js ? tree_get(js, "schema") : NULL;
		if (!schema || schema->kind != NODE_TABLE ||
		    !tree_get(js, "name"))
			return bad_value(x, "a json_schema with \"name\" and "
			    "\"schema\"");
	}
	switch (x->col) {
	case COL_OPENAI:
		put(x, x->body, "response_format", (struct node *)v);
		return true;
	case COL_RESPONSES:
		fmt = tree_table(a);
		tree_put(a, fmt, "type", (struct node *)type);
		if (kind == 2) {
			size_t i;

			for (i = 0; i < js->u.table.n; i++)
				tree_set(a, fmt, js->u.table.items[i].key,
				    js->u.table.items[i].keylen, 0,
				    span_make(0, 0),
				    js->u.table.items[i].value);
		}
		put(x, x->body, "text", tree_table(a));
		tree_put(a, tree_get(x->body, "text"), "format", fmt);
		return true;
	case COL_GEMINI:
		put(x, x->sampling, "responseMimeType", str(x, kind ?
		    "application/json" : "text/plain"));
		if (kind == 2)
			put(x, x->sampling, "responseJsonSchema",
			    (struct node *)schema);
		return true;
	case COL_OLLAMA:
		if (kind)
			put(x, x->body, "format", kind == 2 ?
			    (struct node *)schema : str(x, "json"));
		return true;
	default:
		return unsupported(x);
	}
}

/* Is name one of the chat's tools? */
static bool
has_tool(const struct chat *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->tools.n; i++)
		if (strcmp(c->tools.items[i]->name, name) == 0)
			return true;
	return false;
}

/* Anthropic's tool_choice table, made when first needed. */
static struct node *
anthropic_choice(struct pctx *x)
{
	struct node *t = tree_get(x->body, "tool_choice");

	if (!t) {
		t = tree_table(&x->run->arena);
		tree_put(&x->run->arena, t, "type", str(x, "auto"));
		put(x, x->body, "tool_choice", t);
	}
	return t;
}

/* tool_choice: "auto", "none", "required", or the name of a tool. */
static bool
tool_choice(struct pctx *x)
{
	static const char *const words[] = { "auto", "none", "required",
		NULL };
	static const char *const anthropic[] = { "auto", "none", "any" };
	static const char *const gemini[] = { "AUTO", "NONE", "ANY" };
	struct arena *a = &x->run->arena;
	const struct node *v = x->m->value;
	struct node *o, *cfg;
	int w;

	if (v->kind != NODE_STRING)
		return bad_value(x, "\"auto\", \"none\", \"required\" or the "
		    "name of a tool");
	w = names_index(words, v->u.str.s, v->u.str.len);
	if (w < 0 && !has_tool(x->c, v->u.str.s)) {
		diag_error(x->run, run_source(x->run, v->src), v->span,
		    MSG_PARAM_NO_TOOL, v->u.str.s);
		return false;
	}
	switch (x->col) {
	case COL_OPENAI:
	case COL_RESPONSES:
		if (w >= 0) {
			put(x, x->body, "tool_choice", (struct node *)v);
			return true;
		}
		o = tree_table(a);
		tree_put(a, o, "type", str(x, "function"));
		if (x->col == COL_RESPONSES)
			tree_put(a, o, "name", (struct node *)v);
		else
			tree_put(a, tree_put(a, o, "function",
			    tree_table(a)), "name", (struct node *)v);
		put(x, x->body, "tool_choice", o);
		return true;
	case COL_ANTHROPIC:
		o = anthropic_choice(x);
		tree_set(a, o, "type", 4, 0, span_make(0, 0), str(x,
		    w >= 0 ? anthropic[w] : "tool"));
		if (w < 0)
			tree_set(a, o, "name", 4, 0, span_make(0, 0),
			    (struct node *)v);
		return true;
	case COL_GEMINI:
		o = tree_table(a);
		cfg = tree_put(a, o, "functionCallingConfig", tree_table(a));
		tree_put(a, cfg, "mode", str(x, w >= 0 ? gemini[w] : "ANY"));
		if (w < 0)
			tree_push(a, tree_put(a, cfg, "allowedFunctionNames",
			    tree_array(a)), (struct node *)v);
		put(x, x->body, "toolConfig", o);
		return true;
	default:
		return unsupported(x);
	}
}

static bool
parallel_tool_calls(struct pctx *x)
{
	const struct node *v = x->m->value;

	if (v->kind != NODE_BOOL)
		return bad_value(x, "true or false");
	switch (x->col) {
	case COL_OPENAI:
	case COL_RESPONSES:
		put(x, x->body, "parallel_tool_calls", (struct node *)v);
		return true;
	case COL_ANTHROPIC:
		tree_set(&x->run->arena, anthropic_choice(x),
		    "disable_parallel_tool_use", 25, 0, span_make(0, 0),
		    tree_bool(&x->run->arena, !v->u.b));
		return true;
	default:
		return unsupported(x);
	}
}

/* stop: a string or a list of strings. */
static bool
list(struct pctx *x, const char *to)
{
	const struct node *v = x->m->value;
	struct node *arr;
	size_t i;

	if (v->kind == NODE_ARRAY) {
		for (i = 0; i < v->u.array.n; i++)
			if (v->u.array.items[i]->kind != NODE_STRING)
				return bad_value(x, "a string or a list of "
				    "strings");
		put(x, x->sampling, to, (struct node *)v);
		return true;
	}
	if (v->kind != NODE_STRING)
		return bad_value(x, "a string or a list of strings");
	if (x->col == COL_OPENAI) {
		put(x, x->sampling, to, (struct node *)v);
		return true;
	}
	arr = tree_array(&x->run->arena);
	tree_push(&x->run->arena, arr, (struct node *)v);
	put(x, x->sampling, to, arr);
	return true;
}

static bool
translate(struct pctx *x)
{
	const struct member *m = x->m;
	const struct param *p = NULL;
	size_t i;

	for (i = 0; i < LEN(table); i++)
		if (strcmp(table[i].key, m->key) == 0)
			p = &table[i];
	if (!p) {
		diag_error(x->run, run_source(x->run, m->keysrc), m->keyspan,
		    MSG_PARAM_UNKNOWN, m->key, own[x->col]);
		return false;
	}
	if (!type_ok(m->value, want_of(m->key)))
		return bad_value(x, want_of(m->key));
	if (!p->to[x->col])
		return unsupported(x);
	switch (p->how) {
	case AS_IS:
		/* Sampling keys go to the sampling table; stream and store
		 * are the body's own. */
		put(x, strcmp(m->key, "stream") && strcmp(m->key, "store") ?
		    x->sampling : x->body, p->to[x->col],
		    (struct node *)m->value);
		return true;
	case LIST:
		return list(x, p->to[x->col]);
	case SPECIAL:
		break;
	}
	if (strcmp(m->key, "response_format") == 0)
		return response_format(x);
	if (strcmp(m->key, "tool_choice") == 0)
		return tool_choice(x);
	return parallel_tool_calls(x);
}

/* [output.params.<format>] of this format: as written. */
static bool
own_params(struct pctx *x, const struct node *t)
{
	const char *const *reserved = emit_reserved(x->f);
	struct node *opts;
	size_t i;
	bool ok = true;

	for (i = 0; i < t->u.table.n; i++) {
		const struct member *m = &t->u.table.items[i];
		struct node *into = x->body;

		x->m = m;
		if (listed(reserved, m->key, m->keylen)) {
			diag_error(x->run, run_source(x->run, m->keysrc),
			    m->keyspan, MSG_PARAM_RESERVED,
			    arena_printf(&x->run->arena, "%s.%s",
			    own[x->col], m->key));
			ok = false;
			continue;
		}
		if (x->col == COL_GEMINI && !listed(gemini_top, m->key,
		    m->keylen))
			into = x->sampling;
		/* Ollama's own options join the translated ones. */
		if (x->col == COL_OLLAMA && strcmp(m->key, "options") == 0 &&
		    m->value->kind == NODE_TABLE) {
			size_t k;

			opts = x->sampling;
			for (k = 0; k < m->value->u.table.n; k++) {
				const struct member *o =
				    &m->value->u.table.items[k];

				tree_set(&x->run->arena, opts, o->key,
				    o->keylen, o->keysrc, o->keyspan,
				    o->value);
			}
			continue;
		}
		tree_set(&x->run->arena, into, m->key, m->keylen, m->keysrc,
		    m->keyspan, m->value);
	}
	return ok;
}

bool
emit_params(struct run *run, const struct chat *c, enum out_format f,
    struct node *body, struct node *sampling)
{
	const struct node *p = c->params, *mine = NULL;
	struct pctx x = { run, c, f, column(f), body, sampling, NULL };
	size_t i;
	bool ok = true;

	if (!p || x.col < 0)
		return true;
	for (i = 0; i < p->u.table.n; i++) {
		const struct member *m = &p->u.table.items[i];
		int k = names_index(own, m->key, m->keylen);

		x.m = m;
		if (k >= 0) {
			if (m->value->kind != NODE_TABLE)
				ok = bad_value(&x, "a table of that "
				    "provider's own parameters") && ok;
			else if (k == x.col)
				mine = m->value;
		} else if (listed(emit_reserved(f), m->key, m->keylen)) {
			diag_error(run, run_source(run, m->keysrc),
			    m->keyspan, MSG_PARAM_RESERVED, m->key);
			ok = false;
		} else if (!translate(&x)) {
			ok = false;
		}
	}
	if (mine && !own_params(&x, mine))
		ok = false;
	return ok;
}
