/*
 * Anthropic Messages request body: the system prompt (system and
 * developer text) is top-level `system`; messages alternate from a user
 * turn; `max_tokens` is required.
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

/* When neither output.params.max_tokens nor output.max_tokens is set. */
#define DEFAULT_MAX_TOKENS 1024


/* Anthropic has no system role inside the conversation: an in-chat
 * system entry is a user turn (and joins the user text beside it). */
static enum role
turn_role(const struct message *m)
{
	return m->role == ROLE_ASSISTANT ? ROLE_ASSISTANT : ROLE_USER;
}

bool
emit_anthropic(struct run *run, const struct chat *c, struct buf *out)
{
	struct arena *a = &run->arena;
	struct node *body = tree_table(a), *msgs, *tools, *sys, *blk;
	const char *model, *system;
	size_t syslen;
	size_t i, first = emit_first_turn(c);

	if (!emit_model(run, c, "anthropic", &model))
		return false;
	if (first == c->n) {
		diag_plain(run, DIAG_ERROR, MSG_NO_USER_MESSAGE, "anthropic");
		return false;
	}
	if (turn_role(&c->msgs[first]) != ROLE_USER) {
		diag_error(run, run_source(run, c->msgs[first].src),
		    c->msgs[first].span, c->msgs[first].nentries ?
		    MSG_FIRST_INCHAT : MSG_FIRST_NOT_USER, "anthropic");
		return false;
	}
	tree_put(a, body, "model", tree_str(a, model));
	/* Required: [output] max_tokens or the default, here in front; a
	 * max_tokens in [output.params] takes its place. */
	tree_put(a, body, "max_tokens", tree_int(a, c->max_tokens ?
	    c->max_tokens : DEFAULT_MAX_TOKENS));
	system = emit_system_text(run, c, &syslen);
	if (system) {
		sys = tree_put(a, body, "system", tree_array(a));
		blk = tree_table(a);
		tree_put(a, blk, "type", tree_str(a, "text"));
		tree_put(a, blk, "text", tree_strn(a, system, syslen));
		tree_push(a, sys, blk);
	}
	/* The API merges consecutive turns of one role; do it here, with a
	 * blank line between, so the body is what the model reads. */
	msgs = tree_put(a, body, "messages", tree_array(a));
	for (i = first; i < c->n; ) {
		const struct message *m = &c->msgs[i];
		struct node *o = tree_table(a);
		struct buf text = BUF_INIT;
		size_t k;

		for (k = i; k < c->n && turn_role(&c->msgs[k]) ==
		    turn_role(m); k++) {
			if (k > i)
				buf_puts(&text, "\n\n");
			buf_put(&text, c->msgs[k].content, c->msgs[k].len);
		}
		tree_put(a, o, "role", tree_str(a, names_role(turn_role(m))));
		if (k == i + 1) {       /* the usual case: no copy */
			tree_put(a, o, "content", tree_strref(a, m->content,
			    m->len));
			buf_free(&text);
		} else {
			tree_put(a, o, "content", tree_strref(a, text.data,
			    text.len));
			arena_adopt(a, buf_detach(&text));
		}
		tree_push(a, msgs, o);
		i = k;
	}
	if (c->tools.n) {
		tools = tree_put(a, body, "tools", tree_array(a));
		for (i = 0; i < c->tools.n; i++)
			tree_push(a, tools, emit_tool(a, c->tools.items[i],
			    "input_schema"));
	}
	if (!emit_params(run, c, FORMAT_ANTHROPIC, body, body))
		return false;
	json_write(out, body, 2);
	buf_putc(out, '\n');
	return true;
}
