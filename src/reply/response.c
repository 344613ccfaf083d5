#include "reply/response.h"

#include <ctype.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "base/vec.h"
#include "data/json.h"
#include "data/jsonish.h"
#include "data/tree.h"
#include "diag/run.h"

static const char *const names[] = { "guess", "text", "openai",
	"responses", "anthropic", "gemini", "ollama", NULL };

bool
response_format_parse(const char *s, enum response_format *out)
{
	size_t i;

	for (i = 1; names[i]; i++)
		if (strcmp(names[i], s) == 0) {
			*out = (enum response_format)i;
			return true;
		}
	return false;
}

const char *
response_format_name(enum response_format f)
{
	return names[f];
}

struct reader {
	struct run *run;
	const struct source *src;
	struct response *r;
	struct buf text, reasoning;
	VEC(struct response_call) calls;
	const char *empty;              /* why there is no reply, if none */
};

/* What a provider signed, kept to be sent back: appended to the array
 * r->replay[provider]. */
static void
keep_signed(struct reader *rd, const char *provider, const struct node *v)
{
	struct arena *a = &rd->run->arena;
	struct node *arr;

	if (!rd->r->replay)
		rd->r->replay = tree_table(a);
	if (!(arr = tree_get(rd->r->replay, provider)))
		arr = tree_put(a, rd->r->replay, provider, tree_array(a));
	tree_push(a, arr, (struct node *)v);
}

static const struct node *
get(const struct node *t, const char *key, enum node_kind kind)
{
	const struct node *n = tree_get(t, key);

	return n && n->kind == kind ? n : NULL;
}

static const char *
str(const struct node *t, const char *key)
{
	const struct node *n = get(t, key, NODE_STRING);

	return n ? n->u.str.s : NULL;
}

/* The shape of a body, by the keys only its provider uses. */
enum response_format
response_shape(const struct node *body)
{
	const char *type = str(body, "type"), *object = str(body, "object");

	if (get(body, "choices", NODE_ARRAY) || (object &&
	    strncmp(object, "chat.completion", 15) == 0))
		return RESPONSE_OPENAI;
	if ((object && strcmp(object, "response") == 0) ||
	    get(body, "output", NODE_ARRAY))
		return RESPONSE_RESPONSES;
	if (get(body, "candidates", NODE_ARRAY) ||
	    get(body, "promptFeedback", NODE_TABLE))
		return RESPONSE_GEMINI;
	if (type && strcmp(type, "message") == 0 &&
	    get(body, "content", NODE_ARRAY))
		return RESPONSE_ANTHROPIC;
	if (tree_get(body, "done") && (get(body, "message", NODE_TABLE) ||
	    get(body, "response", NODE_STRING)))
		return RESPONSE_OLLAMA;
	return RESPONSE_GUESS;
}

/* {"error": {...}} (OpenAI, Gemini, Responses), {"type": "error",
 * "error": {...}} (Anthropic), {"error": "..."} (Ollama), a Responses
 * stream's {"type": "error", "message": ...}: report the provider's
 * words. */
bool
response_api_error(struct run *run, const struct source *src,
    const struct node *body)
{
	const struct node *e = tree_get(body, "error");
	const char *msg, *type = str(body, "type");

	if (type && strcmp(type, "error") == 0 && (!e || e->kind ==
	    NODE_NULL) && str(body, "message"))
		e = body;
	if (!e || e->kind == NODE_NULL)
		return false;
	msg = e->kind == NODE_STRING ? e->u.str.s : str(e, "message");
	/* The provider's words in full (a few hundred bytes at most):
	 * they say what to fix.  Control bytes are escaped by diag. */
	if (!msg)
		msg = "(no message)";
	diag_error(run, src, e->span, MSG_RESPONSE_API_ERROR,
	    arena_strndup(&run->arena, msg, strlen(msg) < 400 ?
	    strlen(msg) : 400));
	return true;
}

static void
cut_short(struct reader *rd, const struct node *at, const char *why)
{
	diag_warning(rd->run, rd->src, at->span, MSG_RESPONSE_CUT, why);
	rd->r->cut = why;
}

/* A call's arguments: an object, or a JSON string holding one. */
static bool
add_call(struct reader *rd, const char *id, const char *name,
    const struct node *args, const struct node *at)
{
	struct response_call c;

	c.id = id ? id : arena_printf(&rd->run->arena, "call_%zu",
	    rd->calls.n + 1);
	c.name = name ? name : "";
	if (!args) {
		c.arguments = tree_table(&rd->run->arena);
	} else if (args->kind == NODE_TABLE) {
		c.arguments = args;
	} else if (args->kind == NODE_STRING) {
		struct source *inner = run_source_mem(rd->run, rd->src->path,
		    args->u.str.s, args->u.str.len);
		struct jsonish_error err;
		struct node *v = NULL;
		size_t k = 0, stop = 0;

		while (k < inner->len && isspace((unsigned char)inner->text[k]))
			k++;
		if (k == inner->len) {
			v = tree_table(&rd->run->arena);
			stop = k;
		} else if (!jsonish_parse(rd->run, inner, k, inner->len, &v,
		    &stop, &err)) {
			v = NULL;
		}
		while (v && stop < inner->len &&
		    isspace((unsigned char)inner->text[stop]))
			stop++;
		if (!v || v->kind != NODE_TABLE || stop != inner->len) {
			diag_error(rd->run, rd->src, args->span,
			    MSG_RESPONSE_BAD_ARGS, diag_shown(rd->run, c.name,
			    strlen(c.name)));
			return false;
		}
		c.arguments = v;
	} else {
		diag_error(rd->run, rd->src, at->span, MSG_RESPONSE_BAD_ARGS,
		    diag_shown(rd->run, c.name, strlen(c.name)));
		return false;
	}
	avec_push(&rd->run->arena, &rd->calls, c);
	return true;
}

/* Text given as a string or as an array of parts with "text". */
static void
add_text(struct buf *b, const struct node *content)
{
	size_t i;

	if (!content)
		return;
	if (content->kind == NODE_STRING) {
		buf_put(b, content->u.str.s, content->u.str.len);
		return;
	}
	if (content->kind != NODE_ARRAY)
		return;
	for (i = 0; i < content->u.array.n; i++) {
		const struct node *t = get(content->u.array.items[i], "text",
		    NODE_STRING);

		if (t)
			buf_put(b, t->u.str.s, t->u.str.len);
	}
}

static bool
read_openai(struct reader *rd, const struct node *body)
{
	const struct node *choices = get(body, "choices", NODE_ARRAY);
	const struct node *c, *m, *calls, *reason;
	size_t i;
	bool ok = true;

	if (!choices || choices->u.array.n == 0) {
		rd->empty = "'choices' is empty";
		return true;
	}
	if (!(m = get(c = choices->u.array.items[0], "message",
	    NODE_TABLE))) {
		rd->empty = "the first choice has no 'message'";
		return true;
	}
	add_text(&rd->text, tree_get(m, "content"));
	if (rd->text.len == 0 && str(m, "refusal")) {
		buf_puts(&rd->text, str(m, "refusal"));
		diag_warning(rd->run, rd->src, tree_get(m, "refusal")->span,
		    MSG_RESPONSE_REFUSED);
	}
	if ((reason = get(m, "reasoning_content", NODE_STRING)) ||
	    (reason = get(m, "reasoning", NODE_STRING)))
		buf_put(&rd->reasoning, reason->u.str.s, reason->u.str.len);
	if ((calls = get(m, "tool_calls", NODE_ARRAY)))
		for (i = 0; i < calls->u.array.n; i++) {
			const struct node *tc = calls->u.array.items[i];
			const struct node *fn = get(tc, "function", NODE_TABLE);

			ok &= add_call(rd, str(tc, "id"), str(fn, "name"),
			    tree_get(fn, "arguments"), tc);
		}
	rd->r->stop = str(c, "finish_reason");
	if (rd->r->stop && (strcmp(rd->r->stop, "length") == 0 ||
	    strcmp(rd->r->stop, "content_filter") == 0))
		cut_short(rd, tree_get(c, "finish_reason"), rd->r->stop);
	return ok;
}

static bool
read_responses(struct reader *rd, const struct node *body)
{
	const struct node *out = get(body, "output", NODE_ARRAY);
	const char *status = str(body, "status");
	size_t i, k;
	bool ok = true, reasoning = false;

	if (!out || out->u.array.n == 0) {
		rd->empty = "'output' is empty";
		return true;
	}
	for (i = 0; i < out->u.array.n; i++) {
		const struct node *it = out->u.array.items[i];
		const char *type = str(it, "type");
		const struct node *parts;

		if (!type)
			continue;
		/* With reasoning, the items go back as they came: the API
		 * pairs a reasoning item with the items after it by their
		 * ids (msg_, fc_). */
		if (strcmp(type, "message") == 0 ||
		    strcmp(type, "function_call") == 0)
			keep_signed(rd, "responses", it);
		if (strcmp(type, "message") == 0) {
			add_text(&rd->text, tree_get(it, "content"));
		} else if (strcmp(type, "function_call") == 0) {
			ok &= add_call(rd, str(it, "call_id"), str(it, "name"),
			    tree_get(it, "arguments"), it);
		} else if (strcmp(type, "reasoning") == 0) {
			if ((parts = get(it, "summary", NODE_ARRAY)))
				for (k = 0; k < parts->u.array.n; k++)
					add_text(&rd->reasoning, tree_get(
					    parts->u.array.items[k], "text"));
			if ((parts = get(it, "content", NODE_ARRAY)))
				for (k = 0; k < parts->u.array.n; k++)
					add_text(&rd->reasoning, tree_get(
					    parts->u.array.items[k], "text"));
			keep_signed(rd, "responses", it);
			reasoning = true;
		}
	}
	if (rd->r->replay && !reasoning)
		tree_remove(&rd->run->arena, rd->r->replay, "responses", 9);
	if (rd->r->replay && rd->r->replay->u.table.n == 0)
		rd->r->replay = NULL;
	rd->r->stop = status;
	if (status && strcmp(status, "incomplete") == 0) {
		const struct node *d = get(body, "incomplete_details",
		    NODE_TABLE);

		cut_short(rd, tree_get(body, "status"), d && str(d, "reason") ?
		    str(d, "reason") : status);
	}
	return ok;
}

static bool
read_anthropic(struct reader *rd, const struct node *body)
{
	const struct node *content = get(body, "content", NODE_ARRAY);
	size_t i;
	bool ok = true;

	if (!content || content->u.array.n == 0)
		rd->empty = "'content' is empty";
	for (i = 0; content && i < content->u.array.n; i++) {
		const struct node *b = content->u.array.items[i];
		const char *type = str(b, "type");

		if (!type)
			continue;
		if (strcmp(type, "text") == 0)
			add_text(&rd->text, tree_get(b, "text"));
		else if (strcmp(type, "thinking") == 0) {
			add_text(&rd->reasoning, tree_get(b, "thinking"));
			keep_signed(rd, "anthropic", b);
		} else if (strcmp(type, "redacted_thinking") == 0)
			keep_signed(rd, "anthropic", b);
		else if (strcmp(type, "tool_use") == 0)
			ok &= add_call(rd, str(b, "id"), str(b, "name"),
			    tree_get(b, "input"), b);
	}
	rd->r->stop = str(body, "stop_reason");
	if (rd->r->stop && (strcmp(rd->r->stop, "max_tokens") == 0 ||
	    strcmp(rd->r->stop, "refusal") == 0))
		cut_short(rd, tree_get(body, "stop_reason"), rd->r->stop);
	return ok;
}

static bool
read_gemini(struct reader *rd, const struct node *body)
{
	const struct node *cands = get(body, "candidates", NODE_ARRAY);
	const struct node *c, *parts, *fb;
	size_t i;
	bool ok = true;

	if (!cands || cands->u.array.n == 0) {
		fb = get(body, "promptFeedback", NODE_TABLE);
		if (fb && str(fb, "blockReason")) {
			diag_error(rd->run, rd->src, fb->span,
			    MSG_RESPONSE_BLOCKED, str(fb, "blockReason"));
			return false;
		}
		rd->empty = "'candidates' is empty";
		return true;
	}
	c = cands->u.array.items[0];
	parts = get(get(c, "content", NODE_TABLE), "parts", NODE_ARRAY);
	for (i = 0; parts && i < parts->u.array.n; i++)
		if (tree_get(parts->u.array.items[i], "thoughtSignature")) {
			/* The parts as they came: the signatures must go back
			 * on the parts that had them. */
			for (i = 0; i < parts->u.array.n; i++)
				keep_signed(rd, "gemini",
				    parts->u.array.items[i]);
			break;
		}
	if (!parts || parts->u.array.n == 0)
		rd->empty = "the first candidate has no parts";
	for (i = 0; parts && i < parts->u.array.n; i++) {
		const struct node *p = parts->u.array.items[i];
		const struct node *fc = get(p, "functionCall", NODE_TABLE);
		const struct node *thought = get(p, "thought", NODE_BOOL);

		if (fc)
			ok &= add_call(rd, str(fc, "id"), str(fc, "name"),
			    tree_get(fc, "args"), p);
		else
			add_text(thought && thought->u.b ? &rd->reasoning :
			    &rd->text, tree_get(p, "text"));
	}
	rd->r->stop = str(c, "finishReason");
	if (rd->r->stop && strcmp(rd->r->stop, "STOP") != 0) {
		if (!parts) {
			diag_error(rd->run, rd->src, c->span,
			    MSG_RESPONSE_BLOCKED, rd->r->stop);
			return false;
		}
		cut_short(rd, tree_get(c, "finishReason"), rd->r->stop);
	}
	return ok;
}

/* Ollama /api/chat ({message: {content, thinking, tool_calls}}) and
 * /api/generate ({response, thinking}); done_reason "length" is a cut. */
static bool
read_ollama(struct reader *rd, const struct node *body)
{
	const struct node *m = get(body, "message", NODE_TABLE), *calls, *d;
	size_t i;
	bool ok = true;

	if (m) {
		add_text(&rd->text, get(m, "content", NODE_STRING));
		add_text(&rd->reasoning, get(m, "thinking", NODE_STRING));
		if ((calls = get(m, "tool_calls", NODE_ARRAY)))
			for (i = 0; i < calls->u.array.n; i++) {
				const struct node *tc = calls->u.array.items[i];
				const struct node *fn = get(tc, "function",
				    NODE_TABLE);

				ok &= add_call(rd, str(tc, "id"), str(fn,
				    "name"), tree_get(fn, "arguments"), tc);
			}
	} else {
		add_text(&rd->text, get(body, "response", NODE_STRING));
		add_text(&rd->reasoning, get(body, "thinking", NODE_STRING));
	}
	d = get(body, "done", NODE_BOOL);
	if (d && !d->u.b) {
		diag_error(rd->run, rd->src, d->span, MSG_RESPONSE_STREAM_CUT,
		    "ollama", "a chunk with \"done\": false, and no more");
		return false;
	}
	rd->r->stop = str(body, "done_reason");
	if (rd->r->stop && strcmp(rd->r->stop, "length") == 0)
		cut_short(rd, tree_get(body, "done_reason"), rd->r->stop);
	return ok;
}

static bool
read_body(struct reader *rd, enum response_format f, const struct node *body)
{
	switch (f) {
	case RESPONSE_OPENAI:
		return read_openai(rd, body);
	case RESPONSE_RESPONSES:
		return read_responses(rd, body);
	case RESPONSE_ANTHROPIC:
		return read_anthropic(rd, body);
	case RESPONSE_GEMINI:
		return read_gemini(rd, body);
	case RESPONSE_OLLAMA:
		return read_ollama(rd, body);
	default:
		return false;
	}
}

/* "an openai response body", "a gemini stream". */
static const char *
what(struct run *run, enum response_format f, bool stream)
{
	return arena_printf(&run->arena,
	    "a%s %s %s", f == RESPONSE_OPENAI || f == RESPONSE_ANTHROPIC ||
	    f == RESPONSE_OLLAMA ? "n" : "", response_format_name(f),
	    stream ? "stream" : "response body");
}

static bool
starts_ci(const char *s, size_t n, const char *with)
{
	size_t k = strlen(with), i;

	if (n < k)
		return false;
	for (i = 0; i < k; i++)
		if (tolower((unsigned char)s[i]) != with[i])
			return false;
	return true;
}

/* Whether the text at s (its first non-blank byte) is an HTML page. */
static bool
html(const char *s, size_t n)
{
	return starts_ci(s, n, "<!doctype html") || starts_ci(s, n, "<html") ||
	    starts_ci(s, n, "<head") || starts_ci(s, n, "<body") ||
	    starts_ci(s, n, "<!--") || starts_ci(s, n, "<?xml") ||
	    starts_ci(s, n, "<title") || starts_ci(s, n, "<h1");
}

/* Server-sent events: the first line is an event: data: id: retry: or
 * comment (:) line. */
static bool
sse(const char *s, size_t n)
{
	return starts_ci(s, n, "data:") || starts_ci(s, n, "event:") ||
	    starts_ci(s, n, "id:") || starts_ci(s, n, "retry:") ||
	    (n && s[0] == ':');
}

/* One JSON value from off to the end of src (white space after it
 * allowed), or NULL; reported at the place (when report) if the input
 * ends inside it. */
static struct node *
whole_json(struct run *run, const struct source *src, size_t off,
    const char *name, bool report)
{
	struct jsonish_error err;
	struct node *v;
	size_t stop;

	if (!jsonish_parse(run, src, off, src->len, &v, &stop, &err)) {
		/* Only a value the input ends inside is a body cut short;
		 * other text with a brace in front of it is text. */
		if (report && err.truncated)
			diag_error(run, src, span_make(err.off, 1),
			    MSG_RESPONSE_BAD_JSON, name, err.why);
		return NULL;
	}
	while (stop < src->len && isspace((unsigned char)src->text[stop]))
		stop++;
	if (stop != src->len)
		return NULL;
	return v;
}

/* Lines that are each one JSON object: Ollama's stream. */
static bool
ndjson(const struct source *src, size_t off)
{
	const char *nl = memchr(src->text + off, '\n', src->len - off);
	size_t k;

	if (!nl)
		return false;
	for (k = (size_t)(nl - src->text); k < src->len &&
	    isspace((unsigned char)src->text[k]); k++)
		;
	return k < src->len && src->text[k] == '{';
}

bool
response_read(struct run *run, const struct source *src,
    enum response_format format, struct response *out)
{
	struct reader rd = { run, src, out, BUF_INIT, BUF_INIT, {0}, NULL };
	struct node *body = NULL;
	enum response_format f = format, seen;
	size_t i = 0, n = src->len;
	const char *s = src->text;
	bool ok = false;

	memset(out, 0, sizeof(*out));
	while (i < n && isspace((unsigned char)s[i]))
		i++;
	while (n > i && isspace((unsigned char)s[n - 1]))
		n--;
	if (i == n) {
		diag_plain(run, DIAG_ERROR, MSG_RESPONSE_EMPTY);
		return false;
	}
	if (format == RESPONSE_TEXT) {
		buf_put(&rd.text, s + i, n - i);
		ok = true;
		goto done;
	}
	if (html(s + i, n - i)) {
		diag_error(run, src, span_make(i, 1), MSG_RESPONSE_HTML);
		return false;
	}
	if (sse(s + i, n - i)) {
		out->stream = true;
		body = response_fold(run, src, STREAM_SSE, NULL, &f);
	} else if (s[i] == '{' && ndjson(src, i) &&
	    !whole_json(run, src, i, "", false)) {
		out->stream = true;
		body = response_fold(run, src, STREAM_NDJSON, NULL, &f);
	} else if (s[i] == '{' || s[i] == '[') {
		struct node *v = whole_json(run, src, i, s[i] == '{' ?
		    "the response body" : "the array of chunks", true);

		if (!v && run->diag.errors)
			return false;   /* a body cut short */
		if (!v)
			goto text;
		if (v->kind == NODE_ARRAY) {
			const struct node *c0 = v->u.array.n ?
			    v->u.array.items[0] : NULL;

			/* Gemini's array of chunks; another array is text
			 * a model wrote. */
			if (format == RESPONSE_GUESS && !(c0 && c0->kind ==
			    NODE_TABLE && (response_shape(c0) ==
			    RESPONSE_GEMINI || tree_get(c0, "error"))))
				goto text;
			out->stream = true;
			body = response_fold(run, src, STREAM_ARRAY, v, &f);
		} else if (v->kind == NODE_TABLE) {
			if (response_api_error(run, src, v))
				return false;
			seen = response_shape(v);
			if (seen == RESPONSE_GUESS && format == RESPONSE_GUESS)
				goto text;      /* JSON a model wrote */
			if (seen == RESPONSE_GUESS || (format !=
			    RESPONSE_GUESS && seen != format)) {
				diag_error(run, src, v->span,
				    MSG_RESPONSE_MISMATCH, seen ==
				    RESPONSE_GUESS ? "a JSON object of no "
				    "provider's shape" : what(run, seen, false),
				    what(run, format, false),
				    response_format_name(format));
				return false;
			}
			f = seen;
			body = v;
		} else {
			goto text;
		}
	} else {
		goto text;
	}
	if (!body)
		goto done;
	ok = read_body(&rd, f, body);
	goto checked;
text:
	if (format != RESPONSE_GUESS) {
		diag_error(run, src, span_make(i, 1), MSG_RESPONSE_MISMATCH,
		    "plain text", what(run, format, false),
		    response_format_name(format));
		return false;
	}
	buf_put(&rd.text, s + i, n - i);
	f = RESPONSE_TEXT;
	ok = true;
	goto done;
checked:
	if (ok && rd.text.len == 0 && rd.calls.n == 0) {
		diag_error(run, src, body->span, MSG_RESPONSE_NO_REPLY,
		    response_format_name(f), rd.empty ? rd.empty :
		    "no text and no tool calls");
		ok = false;
	}
done:
	out->format = f;
	out->text = arena_strndup(&run->arena, rd.text.data ? rd.text.data :
	    "", rd.text.len);
	out->len = rd.text.len;
	if (rd.reasoning.len) {
		out->reasoning = arena_strndup(&run->arena, rd.reasoning.data,
		    rd.reasoning.len);
		out->reasoning_len = rd.reasoning.len;
	}
	out->calls = rd.calls.v;
	out->ncalls = rd.calls.n;
	buf_free(&rd.text);
	buf_free(&rd.reasoning);
	return ok && run->diag.errors == 0;
}

struct node *
response_message(struct arena *a, const struct response *r)
{
	struct node *m = tree_table(a), *calls;

	tree_put(a, m, "role", tree_str(a, "assistant"));
	tree_put(a, m, "content", tree_strref(a, r->text, r->len));
	if (r->reasoning)
		tree_put(a, m, "reasoning", tree_strref(a, r->reasoning,
		    r->reasoning_len));
	if (r->replay)
		tree_put(a, m, "strata", r->replay);
	if ((calls = response_calls(a, r)) != NULL)
		tree_put(a, m, "tool_calls", calls);
	return m;
}

struct node *
response_calls(struct arena *a, const struct response *r)
{
	struct node *calls;
	size_t i;

	if (r->ncalls == 0)
		return NULL;
	calls = tree_array(a);
	for (i = 0; i < r->ncalls; i++) {
		struct node *c = tree_table(a);

		tree_put(a, c, "id", tree_str(a, r->calls[i].id));
		tree_put(a, c, "name", tree_str(a, r->calls[i].name));
		tree_put(a, c, "arguments",
		    (struct node *)r->calls[i].arguments);
		tree_push(a, calls, c);
	}
	return calls;
}
