/*
 * Ollama /api/chat request body: messages as system, user and assistant
 * turns (Ollama has no developer role: the developer message is sent as
 * a system message), tools in the {type, function} shape, sampling
 * parameters in `options` (emit_params.c translates them).
 */
#include "emit/emit.h"

#include "base/arena.h"
#include "base/buf.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "prompt/chat.h"

/* One message.  A new kind of message (tool calls and their results,
 * images) is a case of its own here. */
static struct node *
message(struct arena *a, const struct message *m)
{
	struct node *o = tree_table(a);

	tree_put(a, o, "role", tree_str(a, names_role(
	    m->role == ROLE_DEVELOPER ? ROLE_SYSTEM : m->role)));
	tree_put(a, o, "content", tree_strref(a, m->content, m->len));
	return o;
}

static struct node *
tool(struct arena *a, const struct tool *t)
{
	struct node *o = tree_table(a);

	tree_put(a, o, "type", tree_str(a, "function"));
	tree_put(a, o, "function", emit_tool(a, t, "parameters"));
	return o;
}

bool
emit_ollama(struct run *run, const struct chat *c, struct buf *out)
{
	struct arena *a = &run->arena;
	struct node *body = tree_table(a), *msgs, *tools, *opts;
	const char *model;
	size_t i;

	if (!emit_model(run, c, "ollama", &model))
		return false;
	if (c->n == 0) {
		diag_plain(run, DIAG_ERROR, MSG_NO_MESSAGE, "ollama");
		return false;
	}
	tree_put(a, body, "model", tree_str(a, model));
	msgs = tree_put(a, body, "messages", tree_array(a));
	for (i = 0; i < c->n; i++)
		tree_push(a, msgs, message(a, &c->msgs[i]));
	if (c->tools.n) {
		tools = tree_put(a, body, "tools", tree_array(a));
		for (i = 0; i < c->tools.n; i++)
			tree_push(a, tools, tool(a, c->tools.items[i]));
	}
	opts = tree_table(a);
	if (!emit_params(run, c, FORMAT_OLLAMA, body, opts))
		return false;
	if (c->max_tokens && !tree_get(opts, "num_predict"))
		tree_put(a, opts, "num_predict", tree_int(a, c->max_tokens));
	if (opts->u.table.n)
		tree_put(a, body, "options", opts);
	json_write(out, body, 2);
	buf_putc(out, '\n');
	return true;
}
