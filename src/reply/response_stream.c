/*
 * Streamed responses, folded into the body each stands for, so the one
 * body reader of response.c reads both:
 *
 *   openai     SSE chunks "chat.completion.chunk" (content, reasoning and
 *              tool-call deltas by index), ended by data: [DONE] or a
 *              finish_reason;
 *   responses  SSE events; the body is the response of the final
 *              response.completed (or response.incomplete) event, its
 *              output made from the output_item events and the text and
 *              argument deltas when it has none;
 *   anthropic  SSE message_start, content_block_start/_delta/_stop
 *              (text, thinking and signature, tool input as partial
 *              JSON), message_delta (stop_reason), ended by message_stop;
 *   gemini     streamGenerateContent as SSE (?alt=sse) or as one JSON
 *              array of chunks, ended by a chunk with a finishReason;
 *   ollama     NDJSON lines, ended by the line with "done": true.
 *
 * An error event, a stream whose end never came, and data that is not
 * JSON are reported where they are.
 */
#include "reply/response.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/vec.h"
#include "data/jsonish.h"
#include "data/tree.h"
#include "diag/run.h"

struct block {                  /* an Anthropic content block, a tool call
                                 * of OpenAI, a Gemini part being built */
	const char *type;
	const struct node *start;       /* as it started, or NULL */
	struct buf a, b;                /* text / arguments, signature */
	const char *id, *name;
	bool thought;
	const struct node *sig;         /* Gemini thoughtSignature */
	struct span at;                 /* where it began */
};

struct fold {
	struct run *run;
	const struct source *src;
	enum response_format f;
	bool done;                      /* the end event came */
	bool error;                     /* reported */
	struct buf text, reasoning, refusal;
	VEC(struct block) blocks;
	const struct node *stop;        /* stop/finish reason */
	const struct node *body;        /* Responses' final response */
	const struct node *feedback;    /* Gemini's promptFeedback */
	bool generate;                  /* Ollama /api/generate */
	struct node *calls;             /* Ollama's tool calls */
	struct span last;
};

static const struct node *
get(const struct node *t, const char *key, enum node_kind kind)
{
	const struct node *n = t ? tree_get(t, key) : NULL;

	return n && n->kind == kind ? n : NULL;
}

static const char *
str(const struct node *t, const char *key)
{
	const struct node *n = get(t, key, NODE_STRING);

	return n ? n->u.str.s : NULL;
}

static void
put_text(struct buf *b, const struct node *n)
{
	if (n && n->kind == NODE_STRING)
		buf_put(b, n->u.str.s, n->u.str.len);
}

static struct block *
block_at(struct fold *fd, size_t i)
{
	while (fd->blocks.n <= i) {
		struct block z;

		memset(&z, 0, sizeof(z));
		vec_push(&fd->blocks, z);
	}
	return &fd->blocks.v[i];
}

/* A string node of b's bytes, at span sp. */
static struct node *
bstr(struct fold *fd, const struct buf *b, struct span sp)
{
	struct node *n = tree_strn(&fd->run->arena, b->data ? b->data : "",
	    b->len);

	n->src = fd->src->id;
	n->span = sp;
	return n;
}

static enum response_format
chunk_format(const struct node *v)
{
	const char *type = str(v, "type");

	if (type && (strncmp(type, "response.", 9) == 0))
		return RESPONSE_RESPONSES;
	if (type && (strncmp(type, "message_", 8) == 0 ||
	    strncmp(type, "content_block_", 14) == 0 ||
	    strcmp(type, "ping") == 0))
		return RESPONSE_ANTHROPIC;
	if (get(v, "choices", NODE_ARRAY))
		return RESPONSE_OPENAI;
	if (get(v, "candidates", NODE_ARRAY) ||
	    get(v, "promptFeedback", NODE_TABLE))
		return RESPONSE_GEMINI;
	if (tree_get(v, "done"))
		return RESPONSE_OLLAMA;
	return RESPONSE_GUESS;
}

static const char *
what(struct run *run, enum response_format f, const char *kind)
{
	return arena_printf(&run->arena, "a%s %s %s", f == RESPONSE_OPENAI ||
	    f == RESPONSE_ANTHROPIC || f == RESPONSE_OLLAMA ? "n" : "",
	    response_format_name(f), kind);
}

static void
openai_chunk(struct fold *fd, const struct node *v)
{
	const struct node *ch = get(v, "choices", NODE_ARRAY), *c, *d, *tc;
	size_t i;

	if (!ch || ch->u.array.n == 0)
		return;         /* the usage chunk */
	c = ch->u.array.items[0];
	if ((d = get(c, "delta", NODE_TABLE))) {
		put_text(&fd->text, get(d, "content", NODE_STRING));
		put_text(&fd->refusal, get(d, "refusal", NODE_STRING));
		put_text(&fd->reasoning, get(d, "reasoning_content",
		    NODE_STRING));
		put_text(&fd->reasoning, get(d, "reasoning", NODE_STRING));
		tc = get(d, "tool_calls", NODE_ARRAY);
		for (i = 0; tc && i < tc->u.array.n; i++) {
			const struct node *t = tc->u.array.items[i];
			const struct node *ix = get(t, "index", NODE_INT);
			const struct node *fn = get(t, "function", NODE_TABLE);
			struct block *b = block_at(fd, ix && ix->u.i >= 0 &&
			    ix->u.i < 1024 ? (size_t)ix->u.i : i);

			if (!b->type) {
				b->type = "function";
				b->at = t->span;
			}
			if (str(t, "id"))
				b->id = str(t, "id");
			if (str(fn, "name"))
				b->name = str(fn, "name");
			put_text(&b->a, get(fn, "arguments", NODE_STRING));
		}
	}
	if (get(c, "finish_reason", NODE_STRING)) {
		fd->stop = tree_get(c, "finish_reason");
		fd->done = true;
	}
}

static struct node *
openai_body(struct fold *fd)
{
	struct arena *a = &fd->run->arena;
	struct node *body = tree_table(a), *ch, *c, *m, *calls, *q, *fn;
	size_t i;

	ch = tree_put(a, body, "choices", tree_array(a));
	c = tree_table(a);
	tree_push(a, ch, c);
	m = tree_put(a, c, "message", tree_table(a));
	tree_put(a, m, "role", tree_str(a, "assistant"));
	tree_put(a, m, "content", bstr(fd, &fd->text, fd->last));
	if (fd->refusal.len)
		tree_put(a, m, "refusal", bstr(fd, &fd->refusal, fd->last));
	if (fd->reasoning.len)
		tree_put(a, m, "reasoning_content", bstr(fd, &fd->reasoning,
		    fd->last));
	if (fd->blocks.n) {
		calls = tree_put(a, m, "tool_calls", tree_array(a));
		for (i = 0; i < fd->blocks.n; i++) {
			struct block *b = &fd->blocks.v[i];

			if (!b->type)
				continue;
			q = tree_table(a);
			q->src = fd->src->id;
			q->span = b->at;
			if (b->id)
				tree_put(a, q, "id", tree_str(a, b->id));
			tree_put(a, q, "type", tree_str(a, "function"));
			fn = tree_put(a, q, "function", tree_table(a));
			if (b->name)
				tree_put(a, fn, "name", tree_str(a, b->name));
			tree_put(a, fn, "arguments", bstr(fd, &b->a, b->at));
			tree_push(a, calls, q);
		}
	}
	if (fd->stop)
		tree_put(a, c, "finish_reason", (struct node *)fd->stop);
	return body;
}

static void
anthropic_event(struct fold *fd, const struct node *v)
{
	const char *type = str(v, "type");
	const struct node *ix = get(v, "index", NODE_INT), *cb, *d;
	struct block *b;

	if (!type)
		return;
	if (strcmp(type, "message_stop") == 0) {
		fd->done = true;
	} else if (strcmp(type, "message_delta") == 0) {
		if ((d = get(v, "delta", NODE_TABLE)) &&
		    get(d, "stop_reason", NODE_STRING))
			fd->stop = tree_get(d, "stop_reason");
	} else if (strcmp(type, "content_block_start") == 0 && ix &&
	    ix->u.i >= 0 && ix->u.i < 4096 &&
	    (cb = get(v, "content_block", NODE_TABLE))) {
		b = block_at(fd, (size_t)ix->u.i);
		b->type = str(cb, "type") ? str(cb, "type") : "";
		b->start = cb;
		b->at = cb->span;
		b->id = str(cb, "id");
		b->name = str(cb, "name");
		put_text(&b->a, get(cb, "text", NODE_STRING));
		put_text(&b->a, get(cb, "thinking", NODE_STRING));
		put_text(&b->b, get(cb, "signature", NODE_STRING));
	} else if (strcmp(type, "content_block_delta") == 0 && ix &&
	    ix->u.i >= 0 && ix->u.i < 4096 &&
	    (d = get(v, "delta", NODE_TABLE))) {
		b = block_at(fd, (size_t)ix->u.i);
		put_text(&b->a, get(d, "text", NODE_STRING));
		put_text(&b->a, get(d, "thinking", NODE_STRING));
		put_text(&b->a, get(d, "partial_json", NODE_STRING));
		put_text(&b->b, get(d, "signature", NODE_STRING));
	}
}

static struct node *
anthropic_body(struct fold *fd)
{
	struct arena *a = &fd->run->arena;
	struct node *body = tree_table(a), *content, *q;
	size_t i;

	tree_put(a, body, "type", tree_str(a, "message"));
	tree_put(a, body, "role", tree_str(a, "assistant"));
	content = tree_put(a, body, "content", tree_array(a));
	for (i = 0; i < fd->blocks.n; i++) {
		struct block *b = &fd->blocks.v[i];

		if (!b->type)
			continue;
		if (strcmp(b->type, "text") == 0) {
			q = tree_table(a);
			tree_put(a, q, "type", tree_str(a, "text"));
			tree_put(a, q, "text", bstr(fd, &b->a, b->at));
		} else if (strcmp(b->type, "thinking") == 0) {
			q = tree_table(a);
			tree_put(a, q, "type", tree_str(a, "thinking"));
			tree_put(a, q, "thinking", bstr(fd, &b->a, b->at));
			tree_put(a, q, "signature", bstr(fd, &b->b, b->at));
		} else if (strcmp(b->type, "tool_use") == 0) {
			q = tree_table(a);
			tree_put(a, q, "type", tree_str(a, "tool_use"));
			if (b->id)
				tree_put(a, q, "id", tree_str(a, b->id));
			if (b->name)
				tree_put(a, q, "name", tree_str(a, b->name));
			tree_put(a, q, "input", bstr(fd, &b->a, b->at));
		} else {
			/* redacted_thinking and what comes whole */
			q = (struct node *)b->start;
		}
		q->src = fd->src->id;
		q->span = b->at;
		tree_push(a, content, q);
	}
	if (fd->stop)
		tree_put(a, body, "stop_reason", (struct node *)fd->stop);
	return body;
}

/*
 * Responses events.  The end event's response is the body; the output
 * items are kept as well, by output_index -- an output_item.done's item
 * whole (in sig), an output_item.added's as it started with the text or
 * argument deltas that followed (in a) -- for an end event whose
 * response has no output.
 */
static void
responses_event(struct fold *fd, const struct node *v)
{
	const char *type = str(v, "type");
	const struct node *r = get(v, "response", NODE_TABLE);
	const struct node *ix = get(v, "output_index", NODE_INT);
	const struct node *item = get(v, "item", NODE_TABLE);
	struct block *b;

	if (type && r && (strcmp(type, "response.completed") == 0 ||
	    strcmp(type, "response.incomplete") == 0)) {
		fd->body = r;
		fd->done = true;
		return;
	}
	if (!type || !ix || ix->u.i < 0 || ix->u.i >= 4096)
		return;
	b = block_at(fd, (size_t)ix->u.i);
	if (strcmp(type, "response.output_item.done") == 0 && item)
		b->sig = item;
	else if (strcmp(type, "response.output_item.added") == 0 && item)
		b->start = item;
	else if (strcmp(type, "response.output_text.delta") == 0 ||
	    strcmp(type, "response.function_call_arguments.delta") == 0) {
		if (!b->type)
			b->type = type + 9;
		put_text(&b->a, get(v, "delta", NODE_STRING));
	}
}

/* An output item from an output_item.added and its deltas, or NULL. */
static struct node *
responses_item(struct fold *fd, const struct block *b)
{
	struct arena *a = &fd->run->arena;
	const char *t = b->start ? str(b->start, "type") : NULL;
	struct node *it, *c, *part;

	if (t && strcmp(t, "function_call") == 0) {
		it = tree_copy(a, b->start);
		tree_remove(a, it, "status", 6);  /* "in_progress" then */
		tree_set(a, it, "arguments", 9, 0, span_make(0, 0),
		    bstr(fd, &b->a, b->at));
		return it;
	}
	if (!b->type || strcmp(b->type, "output_text.delta") != 0)
		return b->start ? tree_copy(a, b->start) : NULL;
	if (t && strcmp(t, "message") == 0) {
		it = tree_copy(a, b->start);
		tree_remove(a, it, "status", 6);
	} else {
		it = tree_table(a);
		tree_put(a, it, "type", tree_str(a, "message"));
		tree_put(a, it, "role", tree_str(a, "assistant"));
	}
	c = tree_array(a);
	part = tree_table(a);
	tree_put(a, part, "type", tree_str(a, "output_text"));
	tree_put(a, part, "text", bstr(fd, &b->a, b->at));
	tree_push(a, c, part);
	tree_set(a, it, "content", 7, 0, span_make(0, 0), c);
	return it;
}

/* The body of a Responses stream: the end event's response, its output
 * made from the items the events carried when it has none. */
static struct node *
responses_body(struct fold *fd)
{
	struct arena *a = &fd->run->arena;
	const struct node *out = get(fd->body, "output", NODE_ARRAY);
	struct node *body, *arr;
	size_t i;

	if ((out && out->u.array.n) || !fd->blocks.n)
		return (struct node *)fd->body;
	body = tree_copy(a, fd->body);
	arr = tree_array(a);
	for (i = 0; i < fd->blocks.n; i++) {
		const struct block *b = &fd->blocks.v[i];
		struct node *it = b->sig ? tree_copy(a, b->sig) :
		    responses_item(fd, b);

		if (it)
			tree_push(a, arr, it);
	}
	tree_set(a, body, "output", 6, 0, span_make(0, 0), arr);
	return body;
}

static void
gemini_chunk(struct fold *fd, const struct node *v)
{
	const struct node *cands = get(v, "candidates", NODE_ARRAY), *c, *ps;
	size_t i;

	if (get(v, "promptFeedback", NODE_TABLE))
		fd->feedback = tree_get(v, "promptFeedback");
	if (!cands || cands->u.array.n == 0)
		return;
	c = cands->u.array.items[0];
	ps = get(get(c, "content", NODE_TABLE), "parts", NODE_ARRAY);
	for (i = 0; ps && i < ps->u.array.n; i++) {
		const struct node *p = ps->u.array.items[i];
		const struct node *t = get(p, "text", NODE_STRING);
		const struct node *th = get(p, "thought", NODE_BOOL);
		const struct node *sig = tree_get(p, "thoughtSignature");
		bool thought = th && th->u.b;
		struct block *b = fd->blocks.n ?
		    &fd->blocks.v[fd->blocks.n - 1] : NULL;

		/* A text part goes on with the one before it (a signature
		 * may come last, on an empty text part). */
		if (t && b && !b->start && b->thought == thought &&
		    !(b->sig && sig)) {
			put_text(&b->a, t);
			if (sig)
				b->sig = sig;
			continue;
		}
		b = block_at(fd, fd->blocks.n);
		b->at = p->span;
		b->type = "part";
		if (t) {
			put_text(&b->a, t);
			b->thought = thought;
			b->sig = sig;
		} else {
			b->start = p;
		}
	}
	if (get(c, "finishReason", NODE_STRING)) {
		fd->stop = tree_get(c, "finishReason");
		fd->done = true;
	}
}

static struct node *
gemini_body(struct fold *fd)
{
	struct arena *a = &fd->run->arena;
	struct node *body = tree_table(a), *cands, *c, *ct, *parts, *q;
	size_t i;

	if (fd->feedback)
		tree_put(a, body, "promptFeedback",
		    (struct node *)fd->feedback);
	if (!fd->blocks.n && !fd->stop) {
		tree_put(a, body, "candidates", tree_array(a));
		return body;
	}
	cands = tree_put(a, body, "candidates", tree_array(a));
	c = tree_table(a);
	tree_push(a, cands, c);
	ct = tree_put(a, c, "content", tree_table(a));
	parts = tree_put(a, ct, "parts", tree_array(a));
	tree_put(a, ct, "role", tree_str(a, "model"));
	for (i = 0; i < fd->blocks.n; i++) {
		struct block *b = &fd->blocks.v[i];

		if (b->start) {
			tree_push(a, parts, (struct node *)b->start);
			continue;
		}
		q = tree_table(a);
		q->src = fd->src->id;
		q->span = b->at;
		tree_put(a, q, "text", bstr(fd, &b->a, b->at));
		if (b->thought)
			tree_put(a, q, "thought", tree_bool(a, true));
		if (b->sig)
			tree_put(a, q, "thoughtSignature",
			    (struct node *)b->sig);
		tree_push(a, parts, q);
	}
	if (fd->stop)
		tree_put(a, c, "finishReason", (struct node *)fd->stop);
	return body;
}

static void
ollama_line(struct fold *fd, const struct node *v)
{
	const struct node *m = get(v, "message", NODE_TABLE), *tc, *d;
	size_t i;

	if (m) {
		put_text(&fd->text, get(m, "content", NODE_STRING));
		put_text(&fd->reasoning, get(m, "thinking", NODE_STRING));
		if ((tc = get(m, "tool_calls", NODE_ARRAY))) {
			if (!fd->calls)
				fd->calls = tree_array(&fd->run->arena);
			for (i = 0; i < tc->u.array.n; i++)
				tree_push(&fd->run->arena, fd->calls,
				    tc->u.array.items[i]);
		}
	} else if (get(v, "response", NODE_STRING)) {
		fd->generate = true;
		put_text(&fd->text, get(v, "response", NODE_STRING));
		put_text(&fd->reasoning, get(v, "thinking", NODE_STRING));
	}
	d = get(v, "done", NODE_BOOL);
	if (d && d->u.b) {
		fd->done = true;
		fd->stop = get(v, "done_reason", NODE_STRING);
	}
}

static struct node *
ollama_body(struct fold *fd)
{
	struct arena *a = &fd->run->arena;
	struct node *body = tree_table(a), *m;

	if (fd->generate) {
		tree_put(a, body, "response", bstr(fd, &fd->text, fd->last));
		if (fd->reasoning.len)
			tree_put(a, body, "thinking", bstr(fd, &fd->reasoning,
			    fd->last));
	} else {
		m = tree_put(a, body, "message", tree_table(a));
		tree_put(a, m, "role", tree_str(a, "assistant"));
		tree_put(a, m, "content", bstr(fd, &fd->text, fd->last));
		if (fd->reasoning.len)
			tree_put(a, m, "thinking", bstr(fd, &fd->reasoning,
			    fd->last));
		if (fd->calls)
			tree_put(a, m, "tool_calls", fd->calls);
	}
	tree_put(a, body, "done", tree_bool(a, true));
	if (fd->stop)
		tree_put(a, body, "done_reason", (struct node *)fd->stop);
	return body;
}

/* One chunk or event's data v, at span sp: an error, the stream's
 * format, the fold.  False after reporting. */
static bool
chunk(struct fold *fd, const struct node *v, struct span sp,
    const char *kind)
{
	enum response_format f;
	const char *type;

	fd->last = sp;
	if (v->kind != NODE_TABLE) {
		diag_error(fd->run, fd->src, sp, MSG_RESPONSE_UNKNOWN,
		    arena_printf(&fd->run->arena, "a %s of JSON %s", kind,
		    tree_kind_json(v->kind)));
		return false;
	}
	if (response_api_error(fd->run, fd->src, v))
		return false;
	type = str(v, "type");
	if (type && strcmp(type, "response.failed") == 0) {
		const struct node *r = get(v, "response", NODE_TABLE);

		if (!r || !response_api_error(fd->run, fd->src, r))
			diag_error(fd->run, fd->src, sp,
			    MSG_RESPONSE_API_ERROR, "response.failed");
		return false;
	}
	f = chunk_format(v);
	if (f == RESPONSE_GUESS)
		return true;    /* an event of no consequence */
	if (fd->f == RESPONSE_GUESS) {
		fd->f = f;
	} else if (f != fd->f) {
		diag_error(fd->run, fd->src, sp, MSG_RESPONSE_MISMATCH,
		    what(fd->run, f, kind), what(fd->run, fd->f, "stream"),
		    response_format_name(fd->f));
		return false;
	}
	switch (f) {
	case RESPONSE_OPENAI:
		openai_chunk(fd, v);
		break;
	case RESPONSE_ANTHROPIC:
		anthropic_event(fd, v);
		break;
	case RESPONSE_RESPONSES:
		responses_event(fd, v);
		break;
	case RESPONSE_GEMINI:
		gemini_chunk(fd, v);
		break;
	case RESPONSE_OLLAMA:
		ollama_line(fd, v);
		break;
	default:
		break;
	}
	return true;
}

/* The JSON of src[off..end), reported when it is not one value. */
static struct node *
parse_at(struct fold *fd, const struct source *src, size_t off, size_t end,
    const char *kind)
{
	struct jsonish_error err;
	struct node *v;
	size_t stop;

	if (!jsonish_parse(fd->run, src, off, end, &v, &stop, &err)) {
		diag_error(fd->run, src, span_make(err.off, 1),
		    MSG_RESPONSE_BAD_JSON, kind, err.why);
		return NULL;
	}
	while (stop < end && isspace((unsigned char)src->text[stop]))
		stop++;
	if (stop != end) {
		diag_error(fd->run, src, span_make(stop, 1),
		    MSG_RESPONSE_BAD_JSON, kind, "more after the value");
		return NULL;
	}
	return v;
}

/* Server-sent events: each event's data lines (one JSON value, or
 * [DONE]) dispatched at a blank line or the end. */
static bool
sse(struct fold *fd)
{
	const char *s = fd->src->text;
	size_t n = fd->src->len, i = 0, d0 = 0, d1 = 0, ndata = 0;
	struct buf data = BUF_INIT;
	bool ok = true;

	while (ok && i <= n) {
		size_t e = i;
		bool blank;

		while (e < n && s[e] != '\n')
			e++;
		blank = e == i || (e == i + 1 && s[i] == '\r');
		if (blank || i == n) {
			if (ndata) {
				const struct source *src = fd->src;
				size_t off = d0, end = d1;
				struct node *v;

				if (ndata > 1) {
					src = run_source_mem(fd->run,
					    fd->src->path, data.data, data.len);
					off = 0;
					end = data.len;
				}
				while (end > off && isspace((unsigned char)
				    src->text[end - 1]))
					end--;
				while (off < end && isspace((unsigned char)
				    src->text[off]))
					off++;
				if (end - off == 6 && memcmp(src->text + off,
				    "[DONE]", 6) == 0)
					fd->done = true;
				else if (!(v = parse_at(fd, src, off, end,
				    "the event's data")) ||
				    !chunk(fd, v, span_make(off, end - off),
				    "event"))
					ok = false;
				ndata = 0;
				buf_reset(&data);
			}
			if (i == n)
				break;
		} else if (e - i >= 5 && memcmp(s + i, "data:", 5) == 0) {
			size_t k = i + 5, end = e;

			if (end > k && s[end - 1] == '\r')
				end--;
			if (ndata++)
				buf_putc(&data, '\n');
			buf_put(&data, s + k, end - k);
			d0 = k;
			d1 = end;
		}
		/* event:, id:, retry: and comments say nothing the data
		 * does not. */
		i = e < n ? e + 1 : n;
	}
	buf_free(&data);
	return ok;
}

static bool
ndjson(struct fold *fd)
{
	const char *s = fd->src->text;
	size_t n = fd->src->len, i = 0, e, a, b;
	struct node *v;

	while (i < n) {
		for (e = i; e < n && s[e] != '\n'; e++)
			;
		for (a = i; a < e && isspace((unsigned char)s[a]); a++)
			;
		for (b = e; b > a && isspace((unsigned char)s[b - 1]); b--)
			;
		if (a < b && (!(v = parse_at(fd, fd->src, a, b, "the line")) ||
		    !chunk(fd, v, span_make(a, b - a), "line")))
			return false;
		i = e + 1;
	}
	return true;
}

struct node *
response_fold(struct run *run, const struct source *src,
    enum response_stream_kind kind, const struct node *array,
    enum response_format *format)
{
	struct fold fd;
	struct node *body = NULL;
	bool ok = true;
	size_t i;

	memset(&fd, 0, sizeof(fd));
	fd.run = run;
	fd.src = src;
	fd.f = *format;
	if (kind == STREAM_SSE)
		ok = sse(&fd);
	else if (kind == STREAM_NDJSON)
		ok = ndjson(&fd);
	else
		for (i = 0; ok && i < array->u.array.n; i++)
			ok = chunk(&fd, array->u.array.items[i],
			    array->u.array.items[i]->span, "chunk");
	if (!ok)
		goto out;
	if (fd.f == RESPONSE_GUESS) {
		diag_error(run, src, span_make(0, 0), MSG_RESPONSE_UNKNOWN,
		    kind == STREAM_SSE ? "a stream of events" : kind ==
		    STREAM_NDJSON ? "lines of JSON" : "a JSON array");
		goto out;
	}
	if (kind == STREAM_ARRAY && fd.f != RESPONSE_GEMINI) {
		diag_error(run, src, array->span, MSG_RESPONSE_UNKNOWN,
		    "a JSON array");
		goto out;
	}
	/* A Gemini stream blocked at the prompt has no finishReason. */
	if (!fd.done && !(fd.f == RESPONSE_GEMINI && fd.feedback &&
	    !fd.blocks.n)) {
		static const char *const end[] = { "", "",
			"no data: [DONE] and no finish_reason",
			"no response.completed",
			"no message_stop", "no chunk with a finishReason",
			"no line with \"done\": true" };

		diag_error(run, src, span_make(src->len ? src->len - 1 : 0,
		    src->len ? 1 : 0), MSG_RESPONSE_STREAM_CUT,
		    response_format_name(fd.f), end[fd.f]);
		goto out;
	}
	*format = fd.f;
	switch (fd.f) {
	case RESPONSE_OPENAI:
		body = openai_body(&fd);
		break;
	case RESPONSE_ANTHROPIC:
		body = anthropic_body(&fd);
		break;
	case RESPONSE_RESPONSES:
		body = responses_body(&fd);
		break;
	case RESPONSE_GEMINI:
		body = gemini_body(&fd);
		break;
	default:
		body = ollama_body(&fd);
		break;
	}
out:
	for (i = 0; i < fd.blocks.n; i++) {
		buf_free(&fd.blocks.v[i].a);
		buf_free(&fd.blocks.v[i].b);
	}
	vec_free(&fd.blocks);
	buf_free(&fd.text);
	buf_free(&fd.reasoning);
	buf_free(&fd.refusal);
	return body;
}
