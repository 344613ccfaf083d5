/*
 * Anthropic Messages request body: the system prompt (system and
 * developer text) is top-level `system`; messages alternate from a user
 * turn; `max_tokens` is required.
 */
#include "emit/emit.h"

#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "profile/profile.h"
#include "prompt/chat.h"
#include "diag/diag.h"
#include "data/json.h"
#include "diag/run.h"
#include "data/tree.h"

/* When neither output.params.max_tokens nor output.max_tokens is set. */
#define DEFAULT_MAX_TOKENS 1024

static const char *const skip[] = { "max_tokens", NULL };

/* [output] cache = "auto": a breakpoint on block o. */
static void
breakpoint(struct arena *a, struct node *o)
{
	struct node *cc = tree_put(a, o, "cache_control", tree_table(a));

	tree_put(a, cc, "type", tree_str(a, "ephemeral"));
}

/* Anthropic caches the prefix up to a block marked cache_control, in the
 * order tools, system, messages; at most 4 marks.  Mark the last tool,
 * the system prompt and the last message before the new turn: what
 * stays the same from one turn to the next. */
static void
breakpoints(struct arena *a, struct node *sys, struct node *msgs,
    struct node *tools)
{
	struct node *m, *blk, *content;

	if (tools && tools->u.array.n)
		breakpoint(a, tools->u.array.items[tools->u.array.n - 1]);
	if (sys && sys->u.array.n)
		breakpoint(a, sys->u.array.items[sys->u.array.n - 1]);
	if (msgs->u.array.n < 2)
		return;
	m = msgs->u.array.items[msgs->u.array.n - 2];
	content = tree_get(m, "content");
	blk = tree_table(a);
	tree_put(a, blk, "type", tree_str(a, "text"));
	tree_put(a, blk, "text", content);
	breakpoint(a, blk);
	content = tree_array(a);
	tree_push(a, content, blk);
	tree_set(a, m, "content", strlen("content"), 0, span_make(0, 0),
	    content);
}

bool
emit_anthropic(struct run *run, const struct chat *c, struct buf *out)
{
	struct arena *a = &run->arena;
	struct node *body = tree_table(a), *msgs, *tools = NULL, *sys = NULL;
	struct node *blk;
	const struct node *mt = c->params ? tree_get(c->params, "max_tokens") :
	    NULL;
	const char *model, *system;
	size_t syslen;
	size_t i, first = emit_first_turn(c);

	if (!emit_model(run, c, "anthropic", &model))
		return false;
	if (first == c->n) {
		diag_plain(run, DIAG_ERROR, MSG_NO_USER_MESSAGE, "anthropic");
		return false;
	}
	if (c->msgs[first].role != ROLE_USER) {
		diag_error(run, run_source(run, c->msgs[first].src),
		    c->msgs[first].span, MSG_FIRST_NOT_USER, "anthropic");
		return false;
	}
	tree_put(a, body, "model", tree_str(a, model));
	if (mt)
		tree_put(a, body, "max_tokens", (struct node *)mt);
	else
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

		for (k = i; k < c->n && c->msgs[k].role == m->role; k++) {
			if (k > i)
				buf_puts(&text, "\n\n");
			buf_put(&text, c->msgs[k].content, c->msgs[k].len);
		}
		tree_put(a, o, "role", tree_str(a, names_role(m->role)));
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
	if (c->profile && c->profile->cache_auto)
		breakpoints(a, sys, msgs, tools);
	if (!emit_params(run, c, body, emit_reserved(FORMAT_ANTHROPIC),
	    skip))
		return false;
	json_write(out, body, 2);
	buf_putc(out, '\n');
	return true;
}
