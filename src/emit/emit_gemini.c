/*
 * Gemini generateContent request body.  The model is part of the URL, so
 * it is not in the body.  Sampling parameters go into generationConfig
 * under Gemini's names: the common spellings (temperature, top_p, top_k,
 * max_tokens, stop, ...) are mapped, other keys are passed as written.
 */
#include "emit/emit.h"

#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "prompt/chat.h"
#include "diag/diag.h"
#include "data/json.h"
#include "diag/run.h"
#include "data/tree.h"

static const struct {
	const char *from, *to;
} names[] = {
	{ "top_p", "topP" },
	{ "top_k", "topK" },
	{ "max_tokens", "maxOutputTokens" },
	{ "max_output_tokens", "maxOutputTokens" },
	{ "stop", "stopSequences" },
	{ "presence_penalty", "presencePenalty" },
	{ "frequency_penalty", "frequencyPenalty" },
	{ "candidate_count", "candidateCount" },
	{ "response_mime_type", "responseMimeType" },
};

static struct node *
text_parts(struct arena *a, const char *s, size_t len)
{
	struct node *parts = tree_array(a), *part = tree_table(a);

	tree_put(a, part, "text", tree_strref(a, s, len));
	tree_push(a, parts, part);
	return parts;
}

static struct node *
generation_config(struct run *run, const struct chat *c)
{
	struct arena *a = &run->arena;
	struct node *g = tree_table(a);
	const struct node *p = c->params;
	size_t i, k;

	for (i = 0; p && i < p->u.table.n; i++) {
		const struct member *m = &p->u.table.items[i];
		const char *key = m->key;
		struct node *v = (struct node *)m->value;

		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (strcmp(names[k].from, key) == 0)
				key = names[k].to;
		if (strcmp(key, "stopSequences") == 0 &&
		    v->kind == NODE_STRING) {
			struct node *arr = tree_array(a);

			tree_push(a, arr, v);
			v = arr;
		}
		if (tree_get(g, key))
			tree_set(a, g, key, strlen(key), m->keysrc, m->keyspan,
			    v);
		else
			tree_add(a, g, key, strlen(key), m->keysrc,
			    m->keyspan, v);
	}
	if (c->max_tokens && !tree_get(g, "maxOutputTokens"))
		tree_put(a, g, "maxOutputTokens", tree_int(a, c->max_tokens));
	return g;
}

bool
emit_gemini(struct run *run, const struct chat *c, struct buf *out)
{
	struct arena *a = &run->arena;
	struct node *body = tree_table(a), *contents, *tools, *decls, *g;
	size_t syslen;
	const char *system = emit_system_text(run, c, &syslen);
	size_t i, first = emit_first_turn(c);

	if (first == c->n) {
		diag_plain(run, DIAG_ERROR, MSG_NO_USER_MESSAGE, "gemini");
		return false;
	}
	if (c->params && !emit_params(run, c, tree_table(a),
	    emit_reserved(FORMAT_GEMINI), NULL))
		return false;
	if (system) {
		struct node *si = tree_put(a, body, "systemInstruction",
		    tree_table(a));

		tree_put(a, si, "parts", text_parts(a, system, syslen));
	}
	contents = tree_put(a, body, "contents", tree_array(a));
	for (i = first; i < c->n; i++) {
		const struct message *m = &c->msgs[i];
		struct node *o = tree_table(a);

		tree_put(a, o, "role", tree_str(a,
		    m->role == ROLE_ASSISTANT ? "model" : "user"));
		tree_put(a, o, "parts", text_parts(a, m->content, m->len));
		tree_push(a, contents, o);
	}
	if (c->tools.n) {
		struct node *t = tree_table(a);

		tools = tree_put(a, body, "tools", tree_array(a));
		decls = tree_put(a, t, "functionDeclarations", tree_array(a));
		for (i = 0; i < c->tools.n; i++)
			tree_push(a, decls, emit_tool(a, c->tools.items[i],
			    "parametersJsonSchema"));
		tree_push(a, tools, t);
	}
	g = generation_config(run, c);
	if (g->u.table.n)
		tree_put(a, body, "generationConfig", g);
	json_write(out, body, 2);
	buf_putc(out, '\n');
	return true;
}
