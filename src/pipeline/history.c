/*
 * The history (-H): a JSON array of messages -- {role, content[, name]}
 * and the richer kinds (parts, tool calls, tool results) in strata's
 * shape or a provider's (strata(1), CONVERSATION HISTORY).  System and
 * developer messages are split out into in->base and in->devbase; the
 * others go to in->hist in order.  The array has two free slots before
 * the history and one after it, for arrange() to use in place, so the
 * messages are never copied.
 *
 * A history is the one input that grows without bound (a million
 * messages is 40 MB), and a JSON tree of it costs ~20 times its size.
 * So a plain history -- an array of objects of string members role,
 * content and name, nothing else -- is read by a small scanner straight
 * into messages whose text borrows the file's bytes (decoded only where
 * a string has escapes).  Anything else, including every error, makes
 * it give up without a word and the general reader (json.c's tree, the
 * checks below) read the file instead, so what is accepted and every
 * message reported are the general reader's.
 */
#include "pipeline/stages.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/base64.h"
#include "base/map.h"
#include "base/util.h"
#include "base/vec.h"
#include "data/json.h"
#include "data/load.h"
#include "data/tree.h"
#include "diag/run.h"

static void
room(struct run *run, struct inputs *in, size_t n)
{
	in->hist = (struct message *)arena_array(&run->arena, n + 3,
	    sizeof(*in->hist)) + 2;
	in->nhist = 0;
	in->histroom = n;
	buf_reset(&in->base);
	buf_reset(&in->devbase);
}

/* One element, checked: a message, or text for the system prompt. */
static void
keep(struct inputs *in, enum role r, const char *text, size_t len,
    const char *name, const struct source *src, struct span span)
{
	struct message *m;

	if (r == ROLE_SYSTEM || r == ROLE_DEVELOPER) {
		struct buf *b = r == ROLE_SYSTEM ? &in->base : &in->devbase;
		size_t n = entry_trim(&text, len);

		if (!n)
			return;
		if (!b->len)
			*(r == ROLE_SYSTEM ? &in->basespan : &in->devspan) =
			    span;
		if (b->len)
			buf_puts(b, "\n\n");
		buf_put(b, text, n);
		return;
	}
	m = &in->hist[in->nhist++];
	m->role = r;
	m->origin = "history";
	m->content = text;
	m->len = len;
	m->name = name;
	m->has_src = true;
	m->src = src->id;
	m->span = span;
}

/* One message being built from an element. */
struct draft {
	VEC(struct part) parts;         /* heap */
	VEC(struct tool_call) calls;    /* heap */
	const struct node *result;      /* a Gemini response object */
	struct buf reasoning;           /* the model's reasoning, as text */
	struct node *replay;            /* what a provider signed (chat.h) */
	bool signed_parts;              /* a Gemini part has a signature */
};

/*
 * The general reader: the whole JSON tree, then every element checked,
 * each problem reported where it is.  An element may be in strata's
 * shape or in the OpenAI, Anthropic or Gemini one, told apart per
 * element by its keys and part types; it may become several messages
 * (an Anthropic user turn of tool results, a Gemini turn of function
 * responses: one tool message each, then the rest).
 */
struct reader {
	struct run *run;
	struct source *src;
	struct inputs *in;
	const char *dir;                /* where relative image paths are */
	VEC(struct message) out;        /* heap */
	struct map calls;               /* call id -> struct tool_call */
	VEC(struct tool_call *) open;   /* unanswered, for Gemini names */
	size_t ncalls;
	/* Reasoning given before its assistant message (a thinking message,
	 * a Responses reasoning item): it goes on the next one. */
	struct draft pend;
	const struct node *pend_at;
};

static bool
role_of(const char *s, size_t len, enum role *r)
{
	static const char *const names[] = { "system", "developer", "user",
		"assistant", "tool", "model", "function", NULL };
	static const enum role roles[] = { ROLE_SYSTEM, ROLE_DEVELOPER,
		ROLE_USER, ROLE_ASSISTANT, ROLE_TOOL, ROLE_ASSISTANT,
		ROLE_USER };
	int i = names_index(names, s, len);

	if (i < 0 || strlen(s) != len)
		return false;
	*r = roles[i];
	return true;
}

static const char *
str_of(const struct node *n)
{
	return n && n->kind == NODE_STRING && strlen(n->u.str.s) ==
	    n->u.str.len ? n->u.str.s : NULL;
}

static void
keep_message(struct reader *rd, const struct message *m)
{
	vec_push(&rd->out, *m);
}

/* System and developer text goes to the system prompt, as keep() does. */
void
history_add_system(struct buf *b, const char *text, size_t len)
{
	size_t n = entry_trim(&text, len);

	if (!n)
		return;
	if (b->len)
		buf_puts(b, "\n\n");
	buf_put(b, text, n);
}

static void
keep_split(struct reader *rd, enum role r, const char *text, size_t len)
{
	history_add_system(r == ROLE_SYSTEM ? &rd->in->base :
	    &rd->in->devbase, text, len);
}

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
static bool
add_call(struct reader *rd, struct draft *d, const struct node *at,
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
static bool
add_result(struct reader *rd, const struct node *e, const struct node *id,
    const char *name, const struct draft *content, const char *text,
    size_t len, bool is_error)
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
	m.origin = "history";
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

static void
draft_free(struct draft *d)
{
	vec_free(&d->parts);
	vec_free(&d->calls);
	buf_free(&d->reasoning);
}

static void
add_reasoning(struct draft *d, const char *s, size_t len)
{
	if (!len)
		return;
	if (d->reasoning.len)
		buf_puts(&d->reasoning, "\n\n");
	buf_put(&d->reasoning, s, len);
}

/* Append v to d's replay array of provider. */
static void
add_replay(struct run *run, struct draft *d, const char *provider,
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
static bool
thinking_part(struct reader *rd, const struct node *p, const char *t,
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
		add_replay(rd->run, d, "anthropic", p);
		return true;
	}
	if (!th || th->kind != NODE_STRING || (sig && !str_of(sig))) {
		diag_error(rd->run, rd->src, p->span, MSG_HISTORY_PART_BAD, t,
		    "a string 'thinking' (and a string 'signature')");
		return false;
	}
	add_reasoning(d, th->u.str.s, th->u.str.len);
	if (sig)
		add_replay(rd->run, d, "anthropic", p);
	return true;
}

/* A Responses reasoning item: its summary (and content) text, and the
 * item itself to send back. */
static bool
reasoning_item(struct reader *rd, const struct node *e, struct draft *d)
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
				add_reasoning(d, t, strlen(t));
		}
	}
	add_replay(rd->run, d, "responses", e);
	return true;
}

/* The "strata" member of an assistant message: the arrays a reply
 * stored to send back, by provider. */
static bool
strata_replay(struct reader *rd, const struct node *v, struct draft *d)
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
			add_replay(rd->run, d, m->key,
			    m->value->u.array.items[k]);
	}
	return ok;
}

/* d's reasoning, with what was pending before it, onto message x. */
static void
put_reasoning(struct reader *rd, struct draft *d, struct message_extra *x)
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
				add_replay(run, &rd->pend, m->key,
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
static void
drop_pending(struct reader *rd)
{
	if (!rd->pend_at)
		return;
	diag_warning(rd->run, rd->src, rd->pend_at->span,
	    MSG_HISTORY_REASONING_ALONE);
	buf_reset(&rd->pend.reasoning);
	rd->pend.replay = NULL;
	rd->pend_at = NULL;
}

static bool parts(struct reader *rd, const struct node *e, enum role r,
    const struct node *arr, struct draft *d);

/* The text parts of d joined by a blank line, in the arena. */
static const char *
joined(struct run *run, const struct draft *d, size_t *len)
{
	struct buf b = BUF_INIT;
	const char *s;
	size_t i;

	for (i = 0; i < d->parts.n; i++) {
		if (d->parts.v[i].kind != PART_TEXT)
			continue;
		if (b.len)
			buf_puts(&b, "\n\n");
		buf_put(&b, d->parts.v[i].data, d->parts.v[i].len);
	}
	*len = b.len;
	s = arena_strndup(&run->arena, b.data ? b.data : "", b.len);
	buf_free(&b);
	return s;
}

/* A tool result's content: a string, or parts (text and images). */
static bool
result_content(struct reader *rd, const struct node *e, const struct node *v,
    struct draft *d, const char **text, size_t *len)
{
	*text = "";
	*len = 0;
	if (!v)
		return true;
	if (v->kind == NODE_STRING) {
		*text = v->u.str.s;
		*len = v->u.str.len;
		return true;
	}
	if (v->kind == NODE_TABLE) {    /* a Gemini response object */
		struct buf b = BUF_INIT;
		const struct node *o = tree_get(v, "output");

		if (v->u.table.n == 1 && o && o->kind == NODE_STRING) {
			*text = o->u.str.s;
			*len = o->u.str.len;
			return true;
		}
		o = tree_get(v, "error");
		if (v->u.table.n == 1 && o && o->kind == NODE_STRING) {
			*text = o->u.str.s;
			*len = o->u.str.len;
			return true;
		}
		d->result = v;

		json_write(&b, v, -1);
		*len = b.len;
		*text = arena_strndup(&rd->run->arena, b.data, b.len);
		buf_free(&b);
		return true;
	}
	if (v->kind != NODE_ARRAY) {
		diag_error(rd->run, rd->src, v->span,
		    MSG_HISTORY_CONTENT_PARTS, tree_kind_article(v->kind));
		return false;
	}
	if (!parts(rd, e, ROLE_TOOL, v, d))
		return false;
	*text = joined(rd->run, d, len);
	/* Text alone needs no parts. */
	{
		size_t i;

		for (i = 0; i < d->parts.n; i++)
			if (d->parts.v[i].kind != PART_TEXT)
				return true;
		d->parts.n = 0;
	}
	return true;
}

/* An image or file part named by a string member of p. */
static bool
media(struct reader *rd, const struct node *p, enum part_kind kind,
    const struct node *ref, const char *media_type, struct draft *d)
{
	struct part pt;

	if (!str_of(ref)) {
		diag_error(rd->run, rd->src, p->span, MSG_HISTORY_PART_BAD,
		    kind == PART_IMAGE ? "image" : "file",
		    "a string 'path' or 'url'");
		return false;
	}
	if (!media_part(rd->run, rd->src, ref->span, kind, ref->u.str.s,
	    ref->u.str.len, rd->dir, media_type, &pt))
		return false;
	vec_push(&d->parts, pt);
	return true;
}

/* A part given as bytes already in base64. */
static bool
inline_part(struct reader *rd, const struct node *p, enum part_kind kind,
    const char *what, const struct node *data, const struct node *type,
    struct draft *d)
{
	struct part pt;

	if (!str_of(data) || !str_of(type)) {
		diag_error(rd->run, rd->src, p->span, MSG_HISTORY_PART_BAD,
		    what, "string data and a media type");
		return false;
	}
	memset(&pt, 0, sizeof(pt));
	pt.kind = kind;
	pt.data = data->u.str.s;
	pt.len = data->u.str.len;
	pt.media_type = str_of(type);
	vec_push(&d->parts, pt);
	return true;
}

static bool
url_part(struct reader *rd, const struct node *p, enum part_kind kind,
    const char *what, const struct node *url, const struct node *type,
    struct draft *d)
{
	struct part pt;

	if (!str_of(url)) {
		diag_error(rd->run, rd->src, p->span, MSG_HISTORY_PART_BAD,
		    what, "a string URL");
		return false;
	}
	if (!media_part(rd->run, rd->src, url->span, kind, url->u.str.s,
	    url->u.str.len, NULL, str_of(type), &pt))
		return false;
	if (!pt.url && !pt.media_type)
		pt.media_type = str_of(type);
	vec_push(&d->parts, pt);
	return true;
}

/* An Anthropic source {type: base64|url|text, ...}. */
static bool
source_part(struct reader *rd, const struct node *p, enum part_kind kind,
    const char *what, struct draft *d)
{
	const struct node *s = tree_get(p, "source");
	const char *t = s ? str_of(tree_get(s, "type")) : NULL;

	if (t && strcmp(t, "base64") == 0)
		return inline_part(rd, p, kind, what, tree_get(s, "data"),
		    tree_get(s, "media_type"), d);
	if (t && strcmp(t, "url") == 0)
		return url_part(rd, p, kind, what, tree_get(s, "url"), NULL,
		    d);
	if (t && strcmp(t, "text") == 0 && kind == PART_FILE) {
		struct part pt;
		const struct node *data = tree_get(s, "data");

		if (!str_of(data))
			goto bad;
		memset(&pt, 0, sizeof(pt));
		pt.kind = PART_FILE;
		pt.media_type = "text/plain";
		{
			struct buf b = BUF_INIT;

			base64_encode(&b, data->u.str.s, data->u.str.len);
			pt.len = b.len;
			pt.data = arena_strndup(&rd->run->arena,
			    b.data ? b.data : "", b.len);
			buf_free(&b);
		}
		vec_push(&d->parts, pt);
		return true;
	}
bad:
	diag_error(rd->run, rd->src, p->span, MSG_HISTORY_PART_BAD, what,
	    "a 'source' of type base64, url or text");
	return false;
}

static bool
text_part(struct reader *rd, const struct node *p, const struct node *t,
    struct draft *d)
{
	struct part pt;

	if (!t || t->kind != NODE_STRING) {
		diag_error(rd->run, rd->src, p->span, MSG_HISTORY_PART_BAD,
		    "text", "a string 'text'");
		return false;
	}
	memset(&pt, 0, sizeof(pt));
	pt.kind = PART_TEXT;
	pt.data = t->u.str.s;
	pt.len = t->u.str.len;
	vec_push(&d->parts, pt);
	return true;
}

static bool
wrong_role(struct reader *rd, const struct node *p, const char *what,
    enum role r)
{
	const char *rn = names_role(r);

	diag_error(rd->run, rd->src, p->span, MSG_HISTORY_PART_ROLE, what,
	    rn[0] == 'a' ? "n" : "", rn);
	return false;
}

/* A Gemini part: text, inlineData, fileData, functionCall or
 * functionResponse (handled by the caller). */
static bool
gemini_part(struct reader *rd, const struct node *p, enum role r,
    struct draft *d)
{
	const struct node *v, *th = tree_get(p, "thought");
	enum part_kind k;

	if (tree_get(p, "thoughtSignature")) {
		if (r != ROLE_ASSISTANT)
			return wrong_role(rd, p, "thoughtSignature", r);
		d->signed_parts = true;
	}
	if (th && th->kind == NODE_BOOL && th->u.b) {
		if (r != ROLE_ASSISTANT)
			return wrong_role(rd, p, "thought", r);
		if (!(v = tree_get(p, "text")) || v->kind != NODE_STRING)
			return text_part(rd, p, NULL, d);
		add_reasoning(d, v->u.str.s, v->u.str.len);
		return true;
	}
	if ((v = tree_get(p, "text")))
		return text_part(rd, p, v, d);
	if ((v = tree_get(p, "inlineData"))) {
		const char *mt = str_of(tree_get(v, "mimeType"));

		k = mt && strncmp(mt, "image/", 6) == 0 ? PART_IMAGE :
		    PART_FILE;
		return inline_part(rd, p, k, "inlineData",
		    tree_get(v, "data"), tree_get(v, "mimeType"), d);
	}
	if ((v = tree_get(p, "fileData"))) {
		const char *mt = str_of(tree_get(v, "mimeType"));

		k = mt && strncmp(mt, "image/", 6) == 0 ? PART_IMAGE :
		    PART_FILE;
		return url_part(rd, p, k, "fileData", tree_get(v, "fileUri"),
		    tree_get(v, "mimeType"), d);
	}
	if ((v = tree_get(p, "functionCall"))) {
		if (r != ROLE_ASSISTANT)
			return wrong_role(rd, p, "functionCall", r);
		return add_call(rd, d, p, tree_get(v, "id"),
		    tree_get(v, "name"), tree_get(v, "args"));
	}
	diag_error(rd->run, rd->src, p->span, MSG_HISTORY_PART_TYPE,
	    p->u.table.n ? diag_shown(rd->run, p->u.table.items[0].key,
	    p->u.table.items[0].keylen) : "{}");
	return false;
}

/* The parts of one element into d; tool results (Anthropic tool_result,
 * Gemini functionResponse) become tool messages at once. */
static bool
parts(struct reader *rd, const struct node *e, enum role r,
    const struct node *arr, struct draft *d)
{
	size_t i;
	bool ok = true;

	for (i = 0; i < arr->u.array.n; i++) {
		const struct node *p = arr->u.array.items[i], *tn;
		const char *t;

		if (p->kind == NODE_STRING) {   /* Gemini allows bare text */
			ok = text_part(rd, p, p, d) && ok;
			continue;
		}
		if (p->kind != NODE_TABLE) {
			diag_error(rd->run, rd->src, p->span,
			    MSG_HISTORY_PART_BAD, "content", "to be an object");
			ok = false;
			continue;
		}
		tn = tree_get(p, "type");
		t = str_of(tn);
		if (!tn) {
			const struct node *fr = tree_get(p,
			    "functionResponse");

			if (fr) {
				struct draft rc = { { 0 }, { 0 }, NULL, BUF_INIT, NULL, false };
				const char *text;
				size_t len;
				const struct node *resp = tree_get(fr,
				    "response");

				if (r != ROLE_USER && r != ROLE_TOOL) {
					ok = wrong_role(rd, p,
					    "functionResponse", r);
					continue;
				}
				ok = result_content(rd, p, resp, &rc, &text,
				    &len) && add_result(rd, e, tree_get(fr,
				    "id"), str_of(tree_get(fr, "name")), &rc,
				    text, len, resp && tree_get(resp,
				    "error") && !tree_get(resp, "output")) &&
				    ok;
				draft_free(&rc);
				continue;
			}
			ok = gemini_part(rd, p, r, d) && ok;
			continue;
		}
		if (!t) {
			diag_error(rd->run, rd->src, tn->span,
			    MSG_HISTORY_PART_BAD, "content", "a string 'type'");
			ok = false;
		} else if (strcmp(t, "text") == 0) {
			ok = text_part(rd, p, tree_get(p, "text"), d) && ok;
		} else if (strcmp(t, "image") == 0 || strcmp(t, "file") == 0 ||
		    strcmp(t, "document") == 0) {
			enum part_kind k = t[0] == 'i' ? PART_IMAGE :
			    PART_FILE;
			const struct node *ref = tree_get(p, "path");
			const struct node *f = tree_get(p, "file");

			if (tree_get(p, "source"))
				ok = source_part(rd, p, k, t, d) && ok;
			else if (f && f->kind == NODE_TABLE) {
				/* OpenAI {file: {file_data, filename}} */
				const char *fd = str_of(tree_get(f,
				    "file_data"));
				struct part pt;

				if (!fd || !media_part(rd->run, rd->src,
				    tree_get(f, "file_data")->span, PART_FILE,
				    fd, strlen(fd), NULL, NULL, &pt) ||
				    pt.url) {
					diag_error(rd->run, rd->src, f->span,
					    MSG_HISTORY_PART_BAD, "file",
					    "'file_data' as a data: URL");
					ok = false;
					continue;
				}
				pt.filename = str_of(tree_get(f, "filename"));
				vec_push(&d->parts, pt);
			} else
				ok = media(rd, p, k, ref ? ref : tree_get(p,
				    "url"), str_of(tree_get(p, "media_type")),
				    d) && ok;
		} else if (strcmp(t, "image_url") == 0) {
			const struct node *iu = tree_get(p, "image_url");

			if (iu && iu->kind == NODE_TABLE)
				iu = tree_get(iu, "url");
			ok = url_part(rd, p, PART_IMAGE, t, iu, NULL, d) &&
			    ok;
		} else if (strcmp(t, "thinking") == 0 ||
		    strcmp(t, "redacted_thinking") == 0) {
			if (r != ROLE_ASSISTANT)
				ok = wrong_role(rd, p, t, r);
			else
				ok = thinking_part(rd, p, t, d) && ok;
		} else if (strcmp(t, "tool_use") == 0) {
			if (r != ROLE_ASSISTANT)
				ok = wrong_role(rd, p, t, r);
			else
				ok = add_call(rd, d, p, tree_get(p, "id"),
				    tree_get(p, "name"), tree_get(p, "input")) &&
				    ok;
		} else if (strcmp(t, "tool_result") == 0) {
			struct draft rc = { { 0 }, { 0 }, NULL, BUF_INIT, NULL, false };
			const char *text;
			size_t len;
			const struct node *ie = tree_get(p, "is_error");

			if (r != ROLE_USER) {
				ok = wrong_role(rd, p, t, r);
				continue;
			}
			ok = result_content(rd, p, tree_get(p, "content"), &rc,
			    &text, &len) && add_result(rd, p, tree_get(p,
			    "tool_use_id"), NULL, &rc, text, len, ie &&
			    ie->kind == NODE_BOOL && ie->u.b) && ok;
			draft_free(&rc);
		} else {
			diag_error(rd->run, rd->src, tn->span,
			    MSG_HISTORY_PART_TYPE, diag_shown(rd->run, t,
			    strlen(t)));
			ok = false;
		}
	}
	return ok;
}

/* OpenAI's or strata's tool_calls array into d. */
static bool
tool_calls(struct reader *rd, const struct node *v, struct draft *d)
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
			ok = add_call(rd, d, c, tree_get(c, "id"),
			    tree_get(fn, "name"), tree_get(fn, "arguments")) &&
			    ok;
		else
			ok = add_call(rd, d, c, tree_get(c, "id"),
			    tree_get(c, "name"), tree_get(c, "arguments")) &&
			    ok;
	}
	return ok;
}

/* The draft as one message (none when it is an empty user remainder of
 * a turn of tool results); false after reporting a part the role cannot
 * have. */
static bool
finish(struct reader *rd, const struct node *e, enum role r,
    const struct node *name, struct draft *d, bool textonly, bool listed,
    const char *text, size_t len, bool results)
{
	struct run *run = rd->run;
	struct message m;
	struct message_extra *x = NULL;
	size_t i;

	if (!textonly)
		text = joined(run, d, &len);
	if (results && !d->parts.n && !d->calls.n)
		return true;
	if (r == ROLE_SYSTEM || r == ROLE_DEVELOPER) {
		for (i = 0; i < d->parts.n; i++)
			if (d->parts.v[i].kind != PART_TEXT) {
				return wrong_role(rd, e, d->parts.v[i].kind ==
				    PART_IMAGE ? "image" : "file", r);
			}
		keep_split(rd, r, text, len);
		return true;
	}
	memset(&m, 0, sizeof(m));
	m.role = r;
	m.origin = "history";
	m.content = text;
	m.len = len;
	m.name = name ? str_of(name) : NULL;
	m.has_src = true;
	m.src = rd->src->id;
	m.span = e->span;
	for (i = 0; i < d->parts.n; i++)
		if (d->parts.v[i].kind != PART_TEXT)
			break;
	/* Text given as a list stays a list (the shape round-trips). */
	if (listed && d->parts.n)
		i = 0;
	if (i < d->parts.n || d->calls.n) {
		x = arena_alloc(&run->arena, sizeof(*x));
		if (i < d->parts.n) {
			x->parts = arena_array(&run->arena, d->parts.n,
			    sizeof(struct part));
			memcpy((void *)x->parts, d->parts.v, d->parts.n *
			    sizeof(struct part));
			x->nparts = d->parts.n;
		}
		if (d->calls.n) {
			struct tool_call *c = arena_array(&run->arena,
			    d->calls.n, sizeof(*c));

			memcpy(c, d->calls.v, d->calls.n * sizeof(*c));
			x->calls = c;
			x->ncalls = d->calls.n;
			for (i = 0; i < d->calls.n; i++) {
				map_put(&rd->calls, c[i].id, strlen(c[i].id),
				    &c[i]);
				vec_push(&rd->open, &c[i]);
			}
		}
	}
	if (r == ROLE_ASSISTANT && (rd->pend_at || d->reasoning.len ||
	    d->replay)) {
		if (!x)
			x = arena_alloc(&run->arena, sizeof(*x));
		put_reasoning(rd, d, x);
	}
	m.x = x;
	keep_message(rd, &m);
	return true;
}

static const char *const element_keys[] = { "role", "content", "name",
	"tool_calls", "tool_call_id", "is_error", "parts", "reasoning",
	"reasoning_content", "strata", NULL };

/* A thinking message (role "thinking") or a Responses reasoning item:
 * reasoning for the assistant message after it. */
static bool
pending_reasoning(struct reader *rd, const struct node *e, bool item)
{
	const struct node *content = tree_get(e, "content");
	struct draft *d = &rd->pend;
	size_t j;

	if (item) {
		if (!reasoning_item(rd, e, d))
			return false;
		rd->pend_at = e;
		return true;
	}
	for (j = 0; j < e->u.table.n; j++) {
		const struct member *mb = &e->u.table.items[j];

		if (strcmp(mb->key, "role") && strcmp(mb->key, "content")) {
			diag_error(rd->run, rd->src, mb->keyspan,
			    MSG_HISTORY_KEY, diag_shown(rd->run, mb->key,
			    mb->keylen));
			return false;
		}
	}
	if (!content || content->kind != NODE_STRING) {
		diag_error(rd->run, rd->src, content ? content->span : e->span,
		    MSG_WRONG_TYPE, "content", "a string", content ?
		    tree_kind_article(content->kind) : "nothing");
		return false;
	}
	add_reasoning(d, content->u.str.s, content->u.str.len);
	rd->pend_at = e;
	return true;
}

/* One element of the array. */
static bool
element_slow(struct reader *rd, const struct node *e)
{
	struct run *run = rd->run;
	const struct node *role, *content, *name, *calls, *callid, *iserr,
	    *gparts;
	struct draft d = { { 0 }, { 0 }, NULL, BUF_INIT, NULL, false };
	enum role r = ROLE_USER;
	size_t j, len = 0;
	const char *text = NULL;
	bool eok = true, textonly = false, listed = false;
	size_t before = rd->out.n;

	if (e->kind != NODE_TABLE) {
		diag_error(run, rd->src, e->span, MSG_HISTORY_ITEM,
		    tree_kind_article(e->kind));
		return false;
	}
	role = tree_get(e, "role");
	if (!role && str_of(tree_get(e, "type")) &&
	    strcmp(str_of(tree_get(e, "type")), "reasoning") == 0)
		return pending_reasoning(rd, e, true);
	if (role && str_of(role) && strcmp(str_of(role), "thinking") == 0)
		return pending_reasoning(rd, e, false);
	for (j = 0; j < e->u.table.n; j++) {
		const struct member *mb = &e->u.table.items[j];

		if (strlen(mb->key) != mb->keylen ||
		    names_index(element_keys, mb->key, mb->keylen) < 0) {
			diag_error(run, rd->src, mb->keyspan, MSG_HISTORY_KEY,
			    diag_shown(run, mb->key, mb->keylen));
			eok = false;
		}
	}
	content = tree_get(e, "content");
	name = tree_get(e, "name");
	calls = tree_get(e, "tool_calls");
	callid = tree_get(e, "tool_call_id");
	iserr = tree_get(e, "is_error");
	gparts = tree_get(e, "parts");
	if (!role) {
		diag_error(run, rd->src, e->span, MSG_HISTORY_MISSING, "role");
		eok = false;
	} else if (role->kind != NODE_STRING || !role_of(role->u.str.s,
	    role->u.str.len, &r)) {
		diag_error(run, rd->src, role->span, MSG_HISTORY_ROLE,
		    role->kind == NODE_STRING ? diag_shown(run,
		    role->u.str.s, role->u.str.len) :
		    tree_kind_article(role->kind));
		eok = false;
	}
	if (name && name->kind != NODE_STRING) {
		diag_error(run, rd->src, name->span, MSG_WRONG_TYPE, "name",
		    "a string", tree_kind_article(name->kind));
		eok = false;
	}
	if (iserr && iserr->kind != NODE_BOOL) {
		diag_error(run, rd->src, iserr->span, MSG_WRONG_TYPE,
		    "is_error", "a boolean", tree_kind_article(iserr->kind));
		eok = false;
	}
	if (eok && calls && r != ROLE_ASSISTANT) {
		diag_error(run, rd->src, tree_member(e, "tool_calls", 10)->
		    keyspan, MSG_HISTORY_ONLY_FOR, "tool_calls", "assistant");
		eok = false;
	}
	for (j = 0; eok && r != ROLE_ASSISTANT && j < 3; j++) {
		static const char *const rk[] = { "reasoning",
			"reasoning_content", "strata" };
		const struct member *mb = tree_member(e, rk[j],
		    strlen(rk[j]));

		if (mb) {
			diag_error(run, rd->src, mb->keyspan,
			    MSG_HISTORY_ONLY_FOR, rk[j], "assistant");
			eok = false;
		}
	}
	if (eok && (callid || iserr) && r != ROLE_TOOL) {
		const struct member *mb = callid ? tree_member(e,
		    "tool_call_id", 12) : tree_member(e, "is_error", 8);

		diag_error(run, rd->src, mb->keyspan, MSG_HISTORY_ONLY_FOR,
		    mb->key, "tool");
		eok = false;
	}
	if (!content && !gparts && !calls && r != ROLE_TOOL) {
		diag_error(run, rd->src, e->span, MSG_HISTORY_MISSING,
		    "content");
		eok = false;
	}
	if (!eok)
		return false;
	if (r == ROLE_TOOL) {
		struct draft rc = { { 0 }, { 0 }, NULL, BUF_INIT, NULL, false };

		eok = result_content(rd, e, content, &rc, &text, &len) &&
		    add_result(rd, e, callid ? callid : NULL, NULL, &rc, text,
		    len, iserr && iserr->u.b);
		draft_free(&rc);
		return eok;
	}
	if (content && content->kind == NODE_STRING) {
		text = content->u.str.s;
		len = content->u.str.len;
		textonly = true;
	} else if (content && content->kind == NODE_ARRAY) {
		eok = parts(rd, e, r, content, &d);
		listed = true;
	} else if (content && content->kind != NODE_NULL) {
		diag_error(run, rd->src, content->span,
		    MSG_HISTORY_CONTENT_PARTS, tree_kind_article(content->kind));
		eok = false;
	}
	if (eok && gparts) {
		if (gparts->kind != NODE_ARRAY) {
			diag_error(run, rd->src, gparts->span, MSG_WRONG_TYPE,
			    "parts", "an array", tree_kind_article(gparts->kind));
			eok = false;
		} else {
			eok = parts(rd, e, r, gparts, &d);
			/* Gemini has only lists: one text part is text. */
			listed = listed || d.parts.n > 1;
		}
	}
	if (eok && calls)
		eok = tool_calls(rd, calls, &d);
	for (j = 0; eok && r == ROLE_ASSISTANT && j < 2; j++) {
		const struct node *rs = tree_get(e, j ? "reasoning_content" :
		    "reasoning");

		if (rs && rs->kind != NODE_STRING) {
			diag_error(run, rd->src, rs->span, MSG_WRONG_TYPE,
			    j ? "reasoning_content" : "reasoning", "a string",
			    tree_kind_article(rs->kind));
			eok = false;
		} else if (rs) {
			add_reasoning(&d, rs->u.str.s, rs->u.str.len);
		}
	}
	if (eok && r == ROLE_ASSISTANT && tree_get(e, "strata"))
		eok = strata_replay(rd, tree_get(e, "strata"), &d);
	/* Gemini's signatures go back on the parts that had them: the
	 * parts as given (unless a "strata" already said it). */
	if (eok && d.signed_parts && gparts && !(d.replay &&
	    tree_get(d.replay, "gemini"))) {
		for (j = 0; j < gparts->u.array.n; j++)
			add_replay(run, &d, "gemini", gparts->u.array.items[j]);
	}
	if (eok && r != ROLE_ASSISTANT)
		drop_pending(rd);
	if (eok) {
		if (textonly && d.calls.n) {
			struct part pt;

			memset(&pt, 0, sizeof(pt));
			pt.kind = PART_TEXT;
			pt.data = text;
			pt.len = len;
			if (len) {
				vec_push(&d.parts, pt);
				memmove(d.parts.v + 1, d.parts.v,
				    (d.parts.n - 1) * sizeof(pt));
				d.parts.v[0] = pt;
			}
			textonly = false;
		}
		eok = finish(rd, e, r, name, &d, textonly, listed, text, len,
		    rd->out.n > before);
	}
	draft_free(&d);
	return eok;
}

static bool
slow(struct run *run, struct source *src, struct inputs *in)
{
	struct reader rd;
	struct node *root;
	const char *slash;
	size_t i;
	bool ok = true;

	if (!load_source(run, src, LOAD_JSON, &root))
		return false;
	if (root->kind != NODE_ARRAY) {
		diag_error(run, src, root->span, MSG_HISTORY_NOT_ARRAY,
		    tree_kind_json(root->kind));
		return false;
	}
	memset(&rd, 0, sizeof(rd));
	rd.run = run;
	rd.src = src;
	slash = strcmp(src->path, "-") ? strrchr(src->path, '/') : NULL;
	rd.dir = slash ? arena_strndup(&run->arena, src->path,
	    (size_t)(slash - src->path)) : NULL;
	map_init(&rd.calls, &run->arena);
	room(run, in, 0);
	rd.in = in;
	for (i = 0; i < root->u.array.n; i++)
		ok = element_slow(&rd, root->u.array.items[i]) && ok;
	drop_pending(&rd);
	draft_free(&rd.pend);
	in->hist = (struct message *)arena_array(&run->arena, rd.out.n + 3,
	    sizeof(*in->hist)) + 2;
	in->histroom = rd.out.n;
	if (rd.out.n)
		memcpy(in->hist, rd.out.v, rd.out.n * sizeof(*in->hist));
	in->nhist = rd.out.n;
	vec_free(&rd.out);
	vec_free(&rd.open);
	return ok;
}


/* The fast scanner's state; any surprise makes it return false. */
struct scan {
	struct run *run;
	const char *s;
	size_t n, pos;
	struct buf tmp;         /* a decoded string with escapes */
};

static void
ws(struct scan *sc)
{
	while (sc->pos < sc->n && (sc->s[sc->pos] == ' ' ||
	    sc->s[sc->pos] == '\t' || sc->s[sc->pos] == '\n' ||
	    sc->s[sc->pos] == '\r'))
		sc->pos++;
}

static bool
eat(struct scan *sc, char c)
{
	ws(sc);
	if (sc->pos >= sc->n || sc->s[sc->pos] != c)
		return false;
	sc->pos++;
	return true;
}

static bool
hex4(const char *s, uint32_t *out)
{
	size_t j;
	int d;

	*out = 0;
	for (j = 0; j < 4; j++) {
		if ((d = hex_value(s[j])) < 0)
			return false;
		*out = *out << 4 | (uint32_t)d;
	}
	return true;
}

/* A \u escape at s (n bytes left) into sc->tmp; its length, or 0. */
static size_t
unicode(struct scan *sc, const char *s, size_t n)
{
	uint32_t c, lo;
	char enc[4];

	if (n < 6 || !hex4(s + 2, &c))
		return 0;
	if (c >= 0xdc00 && c <= 0xdfff)
		return 0;
	if (c >= 0xd800 && c <= 0xdbff) {
		if (n < 12 || s[6] != '\\' || s[7] != 'u' ||
		    !hex4(s + 8, &lo) || lo < 0xdc00 || lo > 0xdfff)
			return 0;
		c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
		buf_put(&sc->tmp, enc, utf8_encode(c, enc));
		return 12;
	}
	buf_put(&sc->tmp, enc, utf8_encode(c, enc));
	return 6;
}

/*
 * A string at pos: *text borrows the file's bytes when there is no
 * escape, else points at a decoded copy in the arena.
 */
static bool
string(struct scan *sc, const char **text, size_t *len)
{
	static const char plain[] = "\"\\/bfnrt";
	static const char value[] = "\"\\/\b\f\n\r\t";
	const char *s = sc->s, *p;
	size_t i, start, from, k;
	bool escaped = false;
	uint32_t cp;

	if (!eat(sc, '"'))
		return false;
	start = from = i = sc->pos;
	buf_reset(&sc->tmp);
	for (;;) {
		while (i < sc->n && (unsigned char)s[i] >= 0x20 &&
		    (unsigned char)s[i] < 0x80 && s[i] != '"' &&
		    s[i] != '\\')
			i++;
		if (i >= sc->n || (unsigned char)s[i] < 0x20)
			return false;
		if (s[i] == '"')
			break;
		if (s[i] != '\\') {
			if ((k = utf8_decode(s + i, sc->n - i, &cp)) == 0)
				return false;
			i += k;
			continue;
		}
		escaped = true;
		buf_put(&sc->tmp, s + from, i - from);
		if (i + 1 < sc->n && s[i + 1] != '\0' &&
		    (p = strchr(plain, s[i + 1])) != NULL) {
			buf_putc(&sc->tmp, value[p - plain]);
			k = 2;
		} else if (i + 1 >= sc->n || s[i + 1] != 'u' ||
		    (k = unicode(sc, s + i, sc->n - i)) == 0) {
			return false;
		}
		from = i += k;
	}
	sc->pos = i + 1;
	if (!escaped) {
		*text = s + start;
		*len = i - start;
		return true;
	}
	buf_put(&sc->tmp, s + from, i - from);
	*len = sc->tmp.len;
	*text = arena_strndup(&sc->run->arena, sc->tmp.data ? sc->tmp.data :
	    "", sc->tmp.len);
	return true;
}

/*
 * A message name as OpenAI takes it: not empty, and no white space or
 * any of < | \ / > (its pattern ^[^\s<|\\/>]+$); CJK is fine.  The
 * other formats have no name, so the one rule serves them all.  What
 * is wrong, or NULL.
 */
static const char *
bad_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0)
		return "it is empty";
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= ' ' || c == 0x7f)
			return "it holds white space or a control character";
		if (strchr("<|\\/>", c))
			return "it holds one of < | \\ / >";
		/* U+00A0, U+3000 and the U+2000 spaces. */
		if ((c == 0xc2 && i + 1 < len && (unsigned char)s[i + 1] ==
		    0xa0) || (c == 0xe3 && i + 2 < len && (unsigned char)
		    s[i + 1] == 0x80 && (unsigned char)s[i + 2] == 0x80) ||
		    (c == 0xe2 && i + 2 < len && (unsigned char)s[i + 1] ==
		    0x80 && (unsigned char)s[i + 2] <= 0x8a))
			return "it holds white space or a control character";
	}
	return NULL;
}

/* {"role": ..., "content": ...[, "name": ...]} in any order, once each. */
static bool
element(struct scan *sc, const struct source *src, struct inputs *in)
{
	static const char *const keys[] = { "role", "content", "name" };
	const char *v[3] = { NULL, NULL, NULL }, *key;
	size_t vlen[3] = { 0, 0, 0 }, klen, k, start;
	enum role r;

	ws(sc);
	start = sc->pos;
	if (!eat(sc, '{'))
		return false;
	do {
		if (!string(sc, &key, &klen) || !eat(sc, ':'))
			return false;
		for (k = 0; k < 3; k++)
			if (strlen(keys[k]) == klen &&
			    memcmp(keys[k], key, klen) == 0)
				break;
		if (k == 3 || v[k] || !string(sc, &v[k], &vlen[k]))
			return false;
	} while (eat(sc, ','));
	/* count() sized the array; never trust it past its end. */
	if (!eat(sc, '}') || !v[0] || !v[1] || in->nhist == in->histroom)
		return false;
	for (r = ROLE_SYSTEM; r <= ROLE_ASSISTANT; r++)
		if (strlen(names_role(r)) == vlen[0] &&
		    memcmp(names_role(r), v[0], vlen[0]) == 0)
			break;
	/* A bad name is the general reader's to report. */
	if (r > ROLE_ASSISTANT || (v[2] && bad_name(v[2], vlen[2])))
		return false;
	keep(in, r, v[1], vlen[1], v[2] ? arena_strndup(&sc->run->arena,
	    v[2], vlen[2]) : NULL, src, span_make(start, sc->pos - start));
	return true;
}

/* Elements of a plain history: the '{' outside strings. */
static size_t
count(const char *s, size_t n)
{
	size_t i, k = 0;
	bool str = false;

	for (i = 0; i < n; i++) {
		if (str && s[i] == '\\')
			i++;
		else if (s[i] == '"')
			str = !str;
		else if (!str && s[i] == '{')
			k++;
	}
	return k;
}

static bool
fast(struct run *run, const struct source *src, struct inputs *in)
{
	struct scan sc = { run, src->text, src->len, 0, BUF_INIT };
	bool ok = false;

	sc.pos = utf8_bom(sc.s, sc.n);
	room(run, in, count(sc.s, sc.n));
	if (!eat(&sc, '['))
		goto out;
	if (!eat(&sc, ']')) {
		do {
			if (!element(&sc, src, in))
				goto out;
		} while (eat(&sc, ','));
		if (!eat(&sc, ']'))
			goto out;
	}
	ws(&sc);
	ok = sc.pos == sc.n;
out:
	buf_free(&sc.tmp);
	return ok;
}

bool
history_read(struct run *run, const char *path, struct inputs *in)
{
	/* The option is a source of its own, so that a read error points
	 * at it (--history:1:1). */
	const struct source *arg = run_source_mem(run, "--history", path,
	    strlen(path));
	struct source *src = run_read(run, path, arg, span_make(0, arg->len));

	return src && history_parse(run, src, in);
}

bool
history_parse(struct run *run, struct source *src, struct inputs *in)
{
	in->histsrc = src;
	return fast(run, src, in) || slow(run, src, in);
}
