/* OpenAI Chat Completions request body. */
#include "emit/emit.h"

#include "base/arena.h"
#include "base/buf.h"
#include "prompt/chat.h"
#include "diag/diag.h"
#include "data/json.h"
#include "diag/run.h"
#include "data/tree.h"

/* {"type": "function", "function": {name, description, parameters,
 * strict?}} */
static struct node *
tool(struct arena *a, const struct tool *t)
{
	struct node *o = tree_table(a), *fn;

	tree_put(a, o, "type", tree_str(a, "function"));
	fn = tree_put(a, o, "function", emit_tool(a, t, "parameters"));
	if (t->strict)
		tree_put(a, fn, "strict", (struct node *)t->strict);
	return o;
}

bool
emit_openai(struct run *run, const struct chat *c, struct buf *out)
{
	struct arena *a = &run->arena;
	struct node *body = tree_table(a), *tools, *hole;
	const char *model;
	size_t i;
	bool ok;

	ok = emit_model(run, c, "openai", &model);
	if (!ok)
		return false;
	/* Chat Completions wants at least one message. */
	if (c->n == 0) {
		diag_plain(run, DIAG_ERROR, MSG_NO_MESSAGE, "openai");
		return false;
	}
	tree_put(a, body, "model", tree_str(a, model));
	hole = tree_put(a, body, "messages", tree_array(a));
	if (c->tools.n) {
		tools = tree_put(a, body, "tools", tree_array(a));
		for (i = 0; i < c->tools.n; i++)
			tree_push(a, tools, tool(a, c->tools.items[i]));
	}
	if (!emit_params(run, c, FORMAT_OPENAI, body, body))
		return false;
	/* [output] max_tokens, unless the params say it their own way:
	 * max_tokens is deprecated in Chat Completions. */
	if (c->max_tokens && !tree_get(body, "max_tokens") &&
	    !tree_get(body, "max_completion_tokens"))
		tree_put(a, body, "max_completion_tokens",
		    tree_int(a, c->max_tokens));
	return emit_write(run, c, body, hole, 0, emit_openai_message, out);
}
