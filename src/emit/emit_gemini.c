/*
 * Gemini generateContent request body.  The model is part of the URL, so
 * it is not in the body.  Sampling parameters go into generationConfig
 * under Gemini's names (emit_params.c translates them).
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

static struct node *
text_parts(struct arena *a, const char *s, size_t len)
{
	struct node *parts = tree_array(a), *part = tree_table(a);

	tree_put(a, part, "text", tree_strref(a, s, len));
	tree_push(a, parts, part);
	return parts;
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
	g = tree_table(a);
	if (!emit_params(run, c, FORMAT_GEMINI, body, g))
		return false;
	if (c->max_tokens && !tree_get(g, "maxOutputTokens"))
		tree_put(a, g, "maxOutputTokens", tree_int(a, c->max_tokens));
	if (g->u.table.n)
		tree_put(a, body, "generationConfig", g);
	json_write(out, body, 2);
	buf_putc(out, '\n');
	return true;
}
