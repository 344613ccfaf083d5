/*
 * The history's tool calls and results, and the reasoning an assistant
 * message carries (history_int.h).
 */
#include "pipeline/history_int.h"


#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/base64.h"
#include "base/map.h"
#include "base/path.h"
#include "base/util.h"
#include "base/vec.h"
#include "data/json.h"
#include "data/load.h"
#include "data/tree.h"
#include "diag/run.h"

/* The arguments of a call: an object, or a string holding one. */
static bool
call_args(struct reader *rd, const struct node *v, const struct node **out)
{
	struct run *run = rd->run;
	struct source *s;
	struct node *n;

	if (!v) {
		*out = tree_table(&run->arena);
		return true;
	}
	if (v->kind == NODE_TABLE) {
		*out = v;
		return true;
	}
	if (v->kind != NODE_STRING) {
		diag_error(run, rd->src, v->span, MSG_HISTORY_CALL_ARGS,
		    tree_kind_article(v->kind));
		return false;
	}
	if (v->u.str.len == 0) {
		*out = tree_table(&run->arena);
		return true;
	}
	s = run_source_mem(run, arena_printf(&run->arena,
	    "%s (tool call arguments)", rd->src->path), v->u.str.s,
	    v->u.str.len);
	if (!json_parse(run, s, &n))
		return false;
	if (n->kind != NODE_TABLE) {
		diag_error(run, rd->src, v->span, MSG_HISTORY_CALL_ARGS_TEXT);
		return false;
	}
	*out = n;
	return true;
}

/* A call: remembered under its id (one made up when Gemini gave none). */
bool
history_add_call(struct reader *rd, struct draft *d, const struct node *at,
    const struct node *id, const struct node *name, const struct node *args)
{
	struct run *run = rd->run;
	struct tool_call c;
	bool added;

	rd->ncalls++;
	if ((id && !str_of(id)) || !str_of(name)) {
		diag_error(run, rd->src, at->span, MSG_HISTORY_CALL_BAD,
		    "a string 'id' and a string 'name'");
		return false;
	}
	c.id = id ? str_of(id) : arena_printf(&run->arena, "call_%zu",
	    rd->ncalls);
	c.name = str_of(name);
	if (!call_args(rd, args, &c.args))
		return false;
	(void)map_intern(&rd->calls, c.id, strlen(c.id), &added);
	if (!added) {
		diag_error(run, rd->src, id ? id->span : at->span,
		    MSG_HISTORY_CALL_DUP, diag_shown(run, c.id, strlen(c.id)));
		return false;
	}
	vec_push(&d->calls, c);
	return true;
}

/* A tool result, answering call id (or, with no id, the oldest open call
 * named name). */
bool
history_add_result(struct reader *rd, const struct node *e,
    const struct node *id, const char *name, const struct draft *content,
    const char *text, size_t len, bool is_error)
{
	struct run *run = rd->run;
	struct message m;
	struct message_extra *x;
	const struct tool_call *c = NULL;
	size_t i;

	if (id && str_of(id)) {
		struct map_item *it = map_find(&rd->calls, str_of(id),
		    id->u.str.len);

		c = it ? it->value : NULL;
		if (!c) {
			diag_error(run, rd->src, id->span,
			    MSG_HISTORY_RESULT_UNKNOWN,
			    diag_shown(run, id->u.str.s, id->u.str.len));
			return false;
		}
	} else if (name) {
		for (i = 0; i < rd->open.n; i++)
			if (rd->open.v[i] &&
			    strcmp(rd->open.v[i]->name, name) == 0)
				break;
		if (i == rd->open.n) {
			diag_error(run, rd->src, e->span,
			    MSG_HISTORY_RESULT_NAME,
			    diag_shown(run, name, strlen(name)));
			return false;
		}
		c = rd->open.v[i];
	} else {
		diag_error(run, rd->src, id ? id->span : e->span,
		    MSG_HISTORY_RESULT_ID);
		return false;
	}
	for (i = 0; i < rd->open.n; i++)
		if (rd->open.v[i] == c)
			rd->open.v[i] = NULL;
	memset(&m, 0, sizeof(m));
	x = arena_alloc(&run->arena, sizeof(*x));
	m.role = ROLE_TOOL;
	m.origin = ORIGIN_HISTORY;
	m.has_src = true;
	m.src = rd->src->id;
	m.span = e->span;
	x->call_id = c->id;
	x->call_name = c->name;
	x->is_error = is_error;
	x->result = content ? content->result : NULL;
	if (content && content->parts.n) {
		x->parts = arena_array(&run->arena, content->parts.n,
		    sizeof(struct part));
		memcpy((void *)x->parts, content->parts.v, content->parts.n *
		    sizeof(struct part));
		x->nparts = content->parts.n;
	}
	m.content = text ? text : "";
	m.len = text ? len : 0;
	m.x = x;
	keep_message(rd, &m);
	return true;
}

void
history_draft_free(struct draft *d)
{
	vec_free(&d->parts);
	vec_free(&d->calls);
	buf_free(&d->reasoning);
}

void
history_add_reasoning(struct draft *d, const char *s, size_t len)
{
	if (!len)
		return;
	if (d->reasoning.len)
		buf_puts(&d->reasoning, "\n\n");
	buf_put(&d->reasoning, s, len);
}

/* Append v to d's replay array of provider. */
void
history_add_replay(struct run *run, struct draft *d, const char *provider,
    const struct node *v)
{
	struct arena *a = &run->arena;
	struct node *arr;

	if (!d->replay)
		d->replay = tree_table(a);
	if (!(arr = tree_get(d->replay, provider)))
		arr = tree_put(a, d->replay, provider, tree_array(a));
	tree_push(a, arr, (struct node *)v);
}

/* An Anthropic thinking or redacted_thinking block of an assistant
 * message: its text is the reasoning; signed, it is sent back. */
bool
history_thinking_part(struct reader *rd, const struct node *p, const char *t,
    struct draft *d)
{
	const struct node *th = tree_get(p, "thinking");
	const struct node *sig = tree_get(p, "signature");
	const struct node *data = tree_get(p, "data");

	if (t[0] == 'r') {
		if (!str_of(data)) {
			diag_error(rd->run, rd->src, p->span,
			    MSG_HISTORY_PART_BAD, t, "a string 'data'");
			return false;
		}
		history_add_replay(rd->run, d, "anthropic", p);
		return true;
	}
	if (!th || th->kind != NODE_STRING || (sig && !str_of(sig))) {
		diag_error(rd->run, rd->src, p->span, MSG_HISTORY_PART_BAD, t,
		    "a string 'thinking' (and a string 'signature')");
		return false;
	}
	history_add_reasoning(d, th->u.str.s, th->u.str.len);
	if (sig)
		history_add_replay(rd->run, d, "anthropic", p);
	return true;
}

/* A Responses reasoning item: its summary (and content) text, and the
 * item itself to send back. */
bool
history_reasoning_item(struct reader *rd, const struct node *e, struct draft *d)
{
	const char *const lists[] = { "summary", "content" };
	size_t i, k;

	for (k = 0; k < 2; k++) {
		const struct node *l = tree_get(e, lists[k]);

		if (!l)
			continue;
		if (l->kind != NODE_ARRAY) {
			diag_error(rd->run, rd->src, l->span, MSG_WRONG_TYPE,
			    lists[k], "an array", tree_kind_article(l->kind));
			return false;
		}
		for (i = 0; i < l->u.array.n; i++) {
			const char *t = str_of(tree_get(l->u.array.items[i],
			    "text"));

			if (t)
				history_add_reasoning(d, t, strlen(t));
		}
	}
	history_add_replay(rd->run, d, "responses", e);
	return true;
}

/* The "strata" member of an assistant message: the arrays a reply
 * stored to send back, by provider. */
bool
history_strata_replay(struct reader *rd, const struct node *v, struct draft *d)
{
	static const char *const providers[] = { "anthropic", "responses",
		"gemini", NULL };
	size_t i, k;
	bool ok = true;

	if (v->kind != NODE_TABLE) {
		diag_error(rd->run, rd->src, v->span, MSG_WRONG_TYPE, "strata",
		    "a table", tree_kind_article(v->kind));
		return false;
	}
	for (i = 0; i < v->u.table.n; i++) {
		const struct member *m = &v->u.table.items[i];

		if (names_index(providers, m->key, m->keylen) < 0 ||
		    strlen(m->key) != m->keylen) {
			diag_error(rd->run, rd->src, m->keyspan,
			    MSG_HISTORY_REPLAY_KEY, diag_shown(rd->run, m->key,
			    m->keylen));
			ok = false;
			continue;
		}
		if (m->value->kind != NODE_ARRAY) {
			diag_error(rd->run, rd->src, m->value->span,
			    MSG_WRONG_TYPE, m->key, "an array",
			    tree_kind_article(m->value->kind));
			ok = false;
			continue;
		}
		for (k = 0; k < m->value->u.array.n; k++)
			history_add_replay(rd->run, d, m->key,
			    m->value->u.array.items[k]);
	}
	return ok;
}

/* d's reasoning, with what was pending before it, onto message x. */
void
history_put_reasoning(struct reader *rd, struct draft *d,
    struct message_extra *x)
{
	struct run *run = rd->run;
	struct buf b = BUF_INIT;
	size_t i, k;

	buf_put(&b, rd->pend.reasoning.data, rd->pend.reasoning.len);
	if (b.len && d->reasoning.len)
		buf_puts(&b, "\n\n");
	buf_put(&b, d->reasoning.data, d->reasoning.len);
	if (b.len) {
		x->reasoning = arena_strndup(&run->arena, b.data, b.len);
		x->reasoning_len = b.len;
	}
	buf_free(&b);
	if (rd->pend.replay && d->replay) {
		for (i = 0; i < d->replay->u.table.n; i++) {
			const struct member *m = &d->replay->u.table.items[i];

			for (k = 0; k < m->value->u.array.n; k++)
				history_add_replay(run, &rd->pend, m->key,
				    m->value->u.array.items[k]);
		}
		x->replay = rd->pend.replay;
	} else {
		x->replay = rd->pend.replay ? rd->pend.replay : d->replay;
	}
	buf_reset(&rd->pend.reasoning);
	rd->pend.replay = NULL;
	rd->pend_at = NULL;
}

/* Reasoning pending when a message other than the assistant's comes:
 * it answers nothing, and is left out with a warning. */
void
history_drop_pending(struct reader *rd)
{
	if (!rd->pend_at)
		return;
	diag_warning(rd->run, rd->src, rd->pend_at->span,
	    MSG_HISTORY_REASONING_ALONE);
	buf_reset(&rd->pend.reasoning);
	rd->pend.replay = NULL;
	rd->pend_at = NULL;
}

/* OpenAI's or strata's tool_calls array into d. */
bool
history_tool_calls(struct reader *rd, const struct node *v, struct draft *d)
{
	size_t i;
	bool ok = true;

	if (v->kind != NODE_ARRAY) {
		diag_error(rd->run, rd->src, v->span, MSG_WRONG_TYPE,
		    "tool_calls", "an array", tree_kind_article(v->kind));
		return false;
	}
	for (i = 0; i < v->u.array.n; i++) {
		const struct node *c = v->u.array.items[i], *fn;

		if (c->kind != NODE_TABLE) {
			diag_error(rd->run, rd->src, c->span,
			    MSG_HISTORY_CALL_BAD, "to be an object");
			ok = false;
			continue;
		}
		fn = tree_get(c, "function");
		if (fn && fn->kind == NODE_TABLE)
			ok = history_add_call(rd, d, c, tree_get(c, "id"),
			    tree_get(fn, "name"), tree_get(fn, "arguments")) &&
			    ok;
		else
			ok = history_add_call(rd, d, c, tree_get(c, "id"),
			    tree_get(c, "name"), tree_get(c, "arguments")) &&
			    ok;
	}
	return ok;
}
