/*
 * OpenAI Responses request body: the system prompt (system and
 * developer text) is `instructions`; the conversation is `input`, a list
 * of items: a message for text and media, a function_call item for each
 * tool call, a function_call_output item for each result, and the
 * reasoning items a reply brought, in their place before the assistant's
 * items; tools are in the Responses API's flat shape ({type, name,
 * description, parameters, strict}).
 */
#include "emit/emit.h"

#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "prompt/chat.h"

/* An input_image or input_file content part for p. */
static struct node *
media(struct run *run, const struct chat *c, size_t i, const struct part *p,
    struct arena *a)
{
	struct node *q = tree_table(a);

	if (p->kind == PART_IMAGE) {
		tree_put(a, q, "type", tree_str(a, "input_image"));
		tree_put(a, q, "image_url", emit_data_url(a, p));
		/* Required by the API's schema; "auto" is its default. */
		tree_put(a, q, "detail", tree_str(a, "auto"));
		return q;
	}
	tree_put(a, q, "type", tree_str(a, "input_file"));
	if (p->url) {
		tree_put(a, q, "file_url", tree_strref(a, p->data, p->len));
		return q;
	}
	tree_put(a, q, "filename", tree_str(a, p->filename ? p->filename :
	    "file"));
	tree_put(a, q, "file_data", emit_data_url(a, p));
	(void)run;
	(void)c;
	(void)i;
	return q;
}

/* The content list of message i: input_text and media parts. */
static struct node *
content_list(struct run *run, const struct chat *c, size_t i,
    struct arena *a)
{
	const struct message *m = &c->msgs[i];
	struct node *arr = tree_array(a), *q;
	size_t k;

	for (k = 0; k < m->x->nparts; k++) {
		const struct part *p = &m->x->parts[k];

		if (p->kind == PART_TEXT) {
			q = tree_table(a);
			tree_put(a, q, "type", tree_str(a, "input_text"));
			tree_put(a, q, "text", tree_strref(a, p->data,
			    p->len));
		} else {
			q = media(run, c, i, p, a);
		}
		tree_push(a, arr, q);
	}
	return arr;
}

static bool
has_media(const struct message *m)
{
	size_t k;

	for (k = 0; m->x && k < m->x->nparts; k++)
		if (m->x->parts[k].kind != PART_TEXT)
			return true;
	return false;
}

/* Message i as its items, appended to input. */
static bool
items(struct run *run, const struct chat *c, size_t i, struct node *input,
    struct arena *a)
{
	const struct message *m = &c->msgs[i];
	const struct message_extra *x = m->x;
	const struct node *rs;
	struct node *o;
	size_t k;

	if (x && x->call_id) {
		o = tree_table(a);
		tree_put(a, o, "type", tree_str(a, "function_call_output"));
		tree_put(a, o, "call_id", tree_str(a, x->call_id));
		if (has_media(m))
			tree_put(a, o, "output", content_list(run, c, i, a));
		else
			tree_put(a, o, "output", tree_strref(a, m->content,
			    m->len));
		tree_push(a, input, o);
		return true;
	}
	if (m->role == ROLE_ASSISTANT && has_media(m)) {
		emit_cannot(run, c, i, "responses", "an image or file in an "
		    "assistant message");
		return false;
	}
	/* Reasoning items, as the API returned them, before the turn's
	 * message and calls; a reply's own items all as they came, since
	 * the API pairs the reasoning with the items after it by id. */
	rs = emit_replay(m, "responses");
	for (k = 0; rs && k < rs->u.array.n; k++)
		tree_push(a, input, (struct node *)rs->u.array.items[k]);
	for (k = 0; rs && k < rs->u.array.n; k++) {
		const struct node *t = tree_get(rs->u.array.items[k], "type");

		if (t && t->kind == NODE_STRING && strcmp(t->u.str.s,
		    "reasoning") != 0)
			return true;
	}
	if (m->len || has_media(m) || !x || !x->ncalls) {
		o = tree_table(a);
		tree_put(a, o, "type", tree_str(a, "message"));
		tree_put(a, o, "role", tree_str(a, names_role(m->role ==
		    ROLE_TOOL ? ROLE_USER : m->role)));
		if (has_media(m))
			tree_put(a, o, "content", content_list(run, c, i, a));
		else
			tree_put(a, o, "content", tree_strref(a, m->content,
			    m->len));
		tree_push(a, input, o);
	}
	for (k = 0; x && k < x->ncalls; k++) {
		o = tree_table(a);
		tree_put(a, o, "type", tree_str(a, "function_call"));
		tree_put(a, o, "call_id", tree_str(a, x->calls[k].id));
		tree_put(a, o, "name", tree_str(a, x->calls[k].name));
		tree_put(a, o, "arguments", emit_args_text(a,
		    x->calls[k].args));
		tree_push(a, input, o);
	}
	return true;
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
		if (!items(run, c, i, input, a))
			return false;
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
