/*
 * OpenAI Responses request body: the system prompt (system and
 * developer text) is `instructions`; the conversation is `input`, one
 * item per message; tools are in the Responses API's flat shape
 * ({type, name, description, parameters, strict}).
 */
#include "emit/emit.h"

#include "base/arena.h"
#include "base/buf.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "prompt/chat.h"

/* One input item for message m.  A new kind of message (tool calls and
 * their results, images) is a case of its own here. */
static struct node *
item(struct arena *a, const struct message *m)
{
	struct node *o = tree_table(a);

	tree_put(a, o, "type", tree_str(a, "message"));
	tree_put(a, o, "role", tree_str(a, names_role(m->role)));
	tree_put(a, o, "content", tree_strref(a, m->content, m->len));
	return o;
}

/* A tool: strict as the tool says, else false -- the Responses API
 * would otherwise take it as true, unlike Chat Completions. */
static struct node *
tool(struct arena *a, const struct tool *t)
{
	struct node *o = tree_table(a);

	tree_put(a, o, "type", tree_str(a, "function"));
	tree_put(a, o, "name", tree_str(a, t->name));
	tree_put(a, o, "description", tree_str(a, t->description));
	tree_put(a, o, "parameters", (struct node *)t->parameters);
	tree_put(a, o, "strict", t->strict ? (struct node *)t->strict :
	    tree_bool(a, false));
	return o;
}

bool
emit_responses(struct run *run, const struct chat *c, struct buf *out)
{
	struct arena *a = &run->arena;
	struct node *body = tree_table(a), *input, *tools;
	const char *model, *system;
	size_t syslen, i, first = emit_first_turn(c);

	if (!emit_model(run, c, "responses", &model))
		return false;
	if (first == c->n) {
		diag_plain(run, DIAG_ERROR, MSG_NO_USER_MESSAGE, "responses");
		return false;
	}
	tree_put(a, body, "model", tree_str(a, model));
	system = emit_system_text(run, c, &syslen);
	if (system)
		tree_put(a, body, "instructions", tree_strn(a, system,
		    syslen));
	input = tree_put(a, body, "input", tree_array(a));
	for (i = first; i < c->n; i++)
		tree_push(a, input, item(a, &c->msgs[i]));
	if (c->tools.n) {
		tools = tree_put(a, body, "tools", tree_array(a));
		for (i = 0; i < c->tools.n; i++)
			tree_push(a, tools, tool(a, c->tools.items[i]));
	}
	if (!emit_params(run, c, FORMAT_RESPONSES, body, body))
		return false;
	if (c->max_tokens && !tree_get(body, "max_output_tokens"))
		tree_put(a, body, "max_output_tokens",
		    tree_int(a, c->max_tokens));
	json_write(out, body, 2);
	buf_putc(out, '\n');
	return true;
}
