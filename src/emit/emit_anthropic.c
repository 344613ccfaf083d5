/*
 * Anthropic Messages request body: the system prompt (system and
 * developer text) is top-level `system`; messages alternate from a user
 * turn; `max_tokens` is required.
 */
#include "emit/emit.h"

#include <string.h>

#include "base/arena.h"
#include "base/base64.h"
#include "base/buf.h"
#include "profile/profile.h"
#include "prompt/chat.h"
#include "diag/diag.h"
#include "data/json.h"
#include "diag/run.h"
#include "data/tree.h"

/* When neither output.params.max_tokens nor output.max_tokens is set. */
#define DEFAULT_MAX_TOKENS 1024

/* Anthropic's role for a message: tool results go in a user turn, and
 * so does an in-chat system entry (Anthropic has no system role inside
 * the conversation), joining the user text beside it. */
static enum role
turn_role(const struct message *m)
{
	return m->role == ROLE_ASSISTANT ? ROLE_ASSISTANT : ROLE_USER;
}

/* Text alone: reasoning that is not sent back does not count. */
static bool
plain(const struct message *m)
{
	return !m->x || (!m->x->nparts && !m->x->ncalls && !m->x->call_id &&
	    !(m->x->ncalls && emit_replay(m, "anthropic")));
}

/* An image or document block for part p of message i, or NULL. */
static struct node *
media_block(struct run *run, const struct chat *c, size_t i,
    const struct part *p, struct arena *a)
{
	struct node *b = tree_table(a), *src;
	bool pdf = p->media_type && strcmp(p->media_type,
	    "application/pdf") == 0;
	bool txt = p->media_type && strcmp(p->media_type, "text/plain") == 0;

	if (p->kind == PART_FILE && !p->url && !pdf && !txt) {
		emit_cannot(run, c, i, "anthropic", arena_printf(&run->arena,
		    "a %s file (only PDF and plain text)", p->media_type ?
		    p->media_type : "untyped"));
		return NULL;
	}
	tree_put(a, b, "type", tree_str(a, p->kind == PART_IMAGE ? "image" :
	    "document"));
	src = tree_put(a, b, "source", tree_table(a));
	if (p->url) {
		tree_put(a, src, "type", tree_str(a, "url"));
		tree_put(a, src, "url", tree_strref(a, p->data, p->len));
	} else if (txt) {
		struct buf d = BUF_INIT;
		size_t where;

		if (base64_decode(&d, p->data, p->len, &where) != BASE64_OK) {
			buf_free(&d);
			emit_cannot(run, c, i, "anthropic",
			    "a text file whose base64 is broken");
			return NULL;
		}
		tree_put(a, src, "type", tree_str(a, "text"));
		tree_put(a, src, "media_type", tree_str(a, "text/plain"));
		tree_put(a, src, "data", tree_strn(a, d.data ? d.data : "",
		    d.len));
		buf_free(&d);
	} else {
		tree_put(a, src, "type", tree_str(a, "base64"));
		tree_put(a, src, "media_type", tree_str(a, p->media_type));
		tree_put(a, src, "data", tree_strref(a, p->data, p->len));
	}
	return b;
}

/* The content blocks of message i's text and parts into arr. */
static bool
content_blocks(struct run *run, const struct chat *c, size_t i,
    struct node *arr, struct arena *a)
{
	const struct message *m = &c->msgs[i];
	const struct message_extra *x = m->x;
	size_t k;

	if (!x || !x->nparts) {
		if (m->len) {
			struct node *b = tree_table(a);

			tree_put(a, b, "type", tree_str(a, "text"));
			tree_put(a, b, "text", tree_strref(a, m->content,
			    m->len));
			tree_push(a, arr, b);
		}
		return true;
	}
	for (k = 0; k < x->nparts; k++) {
		const struct part *p = &x->parts[k];
		struct node *b;

		if (p->kind == PART_TEXT) {
			if (!p->len)
				continue;
			b = tree_table(a);
			tree_put(a, b, "type", tree_str(a, "text"));
			tree_put(a, b, "text", tree_strref(a, p->data, p->len));
		} else if (m->role == ROLE_ASSISTANT) {
			emit_cannot(run, c, i, "anthropic", p->kind ==
			    PART_IMAGE ? "an image in an assistant message" :
			    "a file in an assistant message");
			return false;
		} else if (m->role == ROLE_TOOL && p->kind != PART_IMAGE) {
			emit_cannot(run, c, i, "anthropic",
			    "a file in a tool result");
			return false;
		} else if (!(b = media_block(run, c, i, p, a))) {
			return false;
		}
		tree_push(a, arr, b);
	}
	return true;
}

/* Message i as blocks appended to arr. */
static bool
blocks(struct run *run, const struct chat *c, size_t i, struct node *arr,
    struct arena *a)
{
	const struct message *m = &c->msgs[i];
	const struct message_extra *x = m->x;
	const struct node *th;
	size_t k;

	if (emit_empty(m) && m->role == ROLE_ASSISTANT) {
		struct source *s = m->has_src ? run_source(run, m->src) : NULL;

		diag_error(run, s, s ? m->span : span_make(0, 0),
		    MSG_PROVIDER_EMPTY, names_role(m->role), i + 1,
		    "anthropic", "assistant");
		return false;
	}
	if (x && x->call_id) {
		struct node *b = tree_table(a), *inner;

		tree_put(a, b, "type", tree_str(a, "tool_result"));
		tree_put(a, b, "tool_use_id", tree_str(a, x->call_id));
		if (x->nparts) {
			inner = tree_put(a, b, "content", tree_array(a));
			if (!content_blocks(run, c, i, inner, a))
				return false;
		} else {
			tree_put(a, b, "content", tree_strref(a, m->content,
			    m->len));
		}
		if (x->is_error)
			tree_put(a, b, "is_error", tree_bool(a, true));
		tree_push(a, arr, b);
		return true;
	}
	/* With thinking on, the API refuses a tool-use turn without the
	 * signed thinking blocks that came before its calls. */
	if (x && x->ncalls && (th = emit_replay(m, "anthropic")))
		for (k = 0; k < th->u.array.n; k++)
			tree_push(a, arr, (struct node *)th->u.array.items[k]);
	if (!content_blocks(run, c, i, arr, a))
		return false;
	for (k = 0; x && k < x->ncalls; k++) {
		struct node *b = tree_table(a);

		tree_put(a, b, "type", tree_str(a, "tool_use"));
		tree_put(a, b, "id", tree_str(a, x->calls[k].id));
		tree_put(a, b, "name", tree_str(a, x->calls[k].name));
		tree_put(a, b, "input", (struct node *)x->calls[k].args);
		tree_push(a, arr, b);
	}
	return true;
}

/*
 * One turn: the messages from *ip on that share a role.  The API merges
 * consecutive turns of one role; do it here, so the body is what the
 * model reads: plain texts with a blank line between, anything richer
 * as blocks (tool results, merged, in the user turn).
 */
static struct node *
turn_body(struct run *run, const struct chat *c, size_t *ip, struct arena *a)
{
	size_t i = *ip, k;
	const struct message *m = &c->msgs[i];
	enum role r = turn_role(m);
	struct node *o = tree_table(a), *arr;
	bool all_plain = true;

	for (k = i; k < c->n && turn_role(&c->msgs[k]) == r; k++)
		all_plain = all_plain && plain(&c->msgs[k]) &&
		    c->msgs[k].role == r;
	*ip = k;
	tree_put(a, o, "role", tree_str(a, names_role(r)));
	if (all_plain && k == i + 1) {  /* the usual case: no copy */
		if (r == ROLE_ASSISTANT && !m->len) {
			blocks(run, c, i, tree_array(a), a);
			return NULL;
		}
		tree_put(a, o, "content", tree_strref(a, m->content, m->len));
		return o;
	}
	if (all_plain) {
		struct buf text = BUF_INIT;
		size_t j;

		for (j = i; j < k; j++) {
			if (j > i)
				buf_puts(&text, "\n\n");
			buf_put(&text, c->msgs[j].content, c->msgs[j].len);
		}
		tree_put(a, o, "content", tree_strref(a, text.data ?
		    text.data : "", text.len));
		if (text.data)
			arena_adopt(a, buf_detach(&text));
		buf_free(&text);
		return o;
	}
	arr = tree_put(a, o, "content", tree_array(a));
	for (; i < k; i++)
		if (!blocks(run, c, i, arr, a))
			return NULL;
	return o;
}

/* [output] cache = "auto": a breakpoint on block o. */
static void
breakpoint(struct arena *a, struct node *o)
{
	struct node *cc = tree_put(a, o, "cache_control", tree_table(a));

	tree_put(a, cc, "type", tree_str(a, "ephemeral"));
}

/* Where the last turn (the user's, with what joins it) starts. */
static size_t
last_turn(const struct chat *c)
{
	size_t t = c->n;

	while (t > 0 && turn_role(&c->msgs[t - 1]) == ROLE_USER)
		t--;
	return t;
}

/*
 * One turn of the conversation; with [output] cache = "auto" the turn
 * right before the new one gets a breakpoint on its last block (its text
 * made a block when it was a string), so the history stays cached from
 * one turn to the next.
 */
static struct node *
turn(struct run *run, const struct chat *c, size_t *ip, struct arena *a)
{
	struct node *o = turn_body(run, c, ip, a), *content, *blk;

	if (!o || !c->profile || !c->profile->cache_auto ||
	    *ip >= c->n || *ip != last_turn(c))
		return o;
	content = tree_get(o, "content");
	if (content && content->kind == NODE_ARRAY && content->u.array.n) {
		breakpoint(a, content->u.array.items[content->u.array.n - 1]);
	} else if (content && content->kind == NODE_STRING) {
		blk = tree_table(a);
		tree_put(a, blk, "type", tree_str(a, "text"));
		tree_put(a, blk, "text", content);
		breakpoint(a, blk);
		content = tree_array(a);
		tree_push(a, content, blk);
		tree_set(a, o, "content", 7, 0, span_make(0, 0), content);
	}
	return o;
}

/* Anthropic caches the prefix up to a block marked cache_control, in the
 * order tools, system, messages; at most 4 marks.  Mark the last tool,
 * the system prompt and the last message before the new turn: what
 * stays the same from one turn to the next. */
static void
breakpoints(struct arena *a, struct node *sys, struct node *tools)
{
	if (tools && tools->u.array.n)
		breakpoint(a, tools->u.array.items[tools->u.array.n - 1]);
	if (sys && sys->u.array.n)
		breakpoint(a, sys->u.array.items[sys->u.array.n - 1]);
	/* The messages are streamed (emit_write): turn() marks theirs. */
}

bool
emit_anthropic(struct run *run, const struct chat *c, struct buf *out)
{
	struct arena *a = &run->arena;
	struct node *body = tree_table(a), *hole, *tools = NULL,
	    *sys = NULL, *blk;
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
	if (system && c->dialect == DIALECT_TAVERN) {
		/* As SillyTavern: a block for each leading system message. */
		sys = tree_put(a, body, "system", tree_array(a));
		for (i = 0; i < first; i++) {
			blk = tree_table(a);
			tree_put(a, blk, "type", tree_str(a, "text"));
			tree_put(a, blk, "text", tree_strref(a,
			    c->msgs[i].content, c->msgs[i].len));
			tree_push(a, sys, blk);
		}
	} else if (system) {
		sys = tree_put(a, body, "system", tree_array(a));
		blk = tree_table(a);
		tree_put(a, blk, "type", tree_str(a, "text"));
		tree_put(a, blk, "text", tree_strn(a, system, syslen));
		tree_push(a, sys, blk);
	}
	hole = tree_put(a, body, "messages", tree_array(a));
	if (c->tools.n) {
		tools = tree_put(a, body, "tools", tree_array(a));
		for (i = 0; i < c->tools.n; i++)
			tree_push(a, tools, emit_tool(a, c->tools.items[i],
			    "input_schema"));
	}
	if (c->profile && c->profile->cache_auto)
		breakpoints(a, sys, tools);
	if (!emit_params(run, c, FORMAT_ANTHROPIC, body, body))
		return false;
	return emit_write(run, c, body, hole, first, turn, out);
}
