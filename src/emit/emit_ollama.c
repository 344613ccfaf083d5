/*
 * Ollama /api/chat request body: messages as system, user and assistant
 * turns (Ollama has no developer role: the developer message is sent as
 * a system message) and tool results (role tool, with tool_name), tools
 * in the {type, function} shape, sampling
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

/* One message: text, images as bare base64 (Ollama takes no URL and no
 * other file), the tool calls with their arguments as an object, a tool
 * result with the name of the tool that made it, and the reasoning
 * before an assistant message as its thinking. */
static bool
message(struct run *run, const struct chat *c, size_t i, struct node *msgs,
    struct arena *a)
{
	const struct message *m = &c->msgs[i];
	const struct message_extra *x = m->x;
	struct node *o = tree_table(a), *imgs = NULL, *calls, *q, *fn;
	size_t k;

	tree_put(a, o, "role", tree_str(a, names_role(
	    m->role == ROLE_DEVELOPER ? ROLE_SYSTEM : m->role)));
	tree_put(a, o, "content", tree_strref(a, m->content, m->len));
	if (x && x->reasoning && m->role == ROLE_ASSISTANT)
		tree_put(a, o, "thinking", tree_strref(a, x->reasoning,
		    x->reasoning_len));
	for (k = 0; x && k < x->nparts; k++) {
		const struct part *p = &x->parts[k];

		if (p->kind == PART_TEXT)
			continue;
		if (p->kind == PART_FILE) {
			emit_cannot(run, c, i, "ollama", "a file (only "
			    "images)");
			return false;
		}
		if (p->url) {
			emit_cannot(run, c, i, "ollama", "an image by URL "
			    "(only its bytes)");
			return false;
		}
		if (!imgs)
			imgs = tree_put(a, o, "images", tree_array(a));
		tree_push(a, imgs, tree_strref(a, p->data, p->len));
	}
	if (x && x->ncalls) {
		calls = tree_put(a, o, "tool_calls", tree_array(a));
		for (k = 0; k < x->ncalls; k++) {
			q = tree_table(a);
			fn = tree_put(a, q, "function", tree_table(a));
			tree_put(a, fn, "name", tree_str(a,
			    x->calls[k].name));
			tree_put(a, fn, "arguments",
			    (struct node *)x->calls[k].args);
			tree_push(a, calls, q);
		}
	}
	if (x && x->call_id && x->call_name)
		tree_put(a, o, "tool_name", tree_str(a, x->call_name));
	tree_push(a, msgs, o);
	return true;
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
		if (!message(run, c, i, msgs, a))
			return false;
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
