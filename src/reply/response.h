/*
 * response: the model's answer, read from what a provider's API
 * returned -- a response body or a streamed response of OpenAI Chat
 * Completions, OpenAI Responses, Anthropic Messages, Gemini
 * generateContent / streamGenerateContent or Ollama /api/chat and
 * /api/generate, recognised by its shape (or forced with a format) -- or
 * plain text, into one assistant message: text, reasoning, tool calls.
 *
 * A stream is folded into the body it stands for (response_stream.c),
 * and that body is read by the same reader as a whole one, so a stream
 * and its body give the same message.  What is not a reply is an error,
 * reported where it was seen: an API error body or event (with the
 * provider's own words), a body with no reply in it, a stream that ends
 * before its end event, an HTML page, empty input, JSON of no provider's
 * shape, or a body of another format than the one forced.  A reply the
 * provider cut short (max tokens, a content filter) is read, with a
 * warning, and r->cut says why.  Everything lives in the run's arena and
 * borrows the source.
 */
#ifndef RESPONSE_H
#define RESPONSE_H

#include <stdbool.h>
#include <stddef.h>

struct arena;
struct node;
struct run;
struct source;

enum response_format {
	RESPONSE_GUESS,
	RESPONSE_TEXT,          /* the reply itself, not a body */
	RESPONSE_OPENAI,        /* Chat Completions */
	RESPONSE_RESPONSES,     /* OpenAI Responses */
	RESPONSE_ANTHROPIC,
	RESPONSE_GEMINI,
	RESPONSE_OLLAMA,        /* /api/chat and /api/generate */
};

struct response_call {
	const char *id;         /* the provider's, or made up: call_N */
	const char *name;
	const struct node *arguments;   /* a table */
};

struct response {
	enum response_format format;    /* what it was read as */
	bool stream;                    /* it came as a stream */
	const char *text;               /* the reply's text; "" if none */
	size_t len;
	const char *reasoning;          /* thinking the provider returned
	                                 * apart, or NULL */
	size_t reasoning_len;
	/* What the provider signed, to send back as it came: a table of
	 * "anthropic" (thinking blocks), "responses" (reasoning items) or
	 * "gemini" (the parts, with thought signatures), or NULL. */
	struct node *replay;
	struct response_call *calls;
	size_t ncalls;
	const char *stop;               /* the provider's stop reason, or
	                                 * NULL */
	const char *cut;                /* why the reply was cut short
	                                 * (length, max_tokens, ...), or
	                                 * NULL */
};

/* "text", "openai", "responses", "anthropic", "gemini", "ollama"; false
 * if s is none of them. */
bool response_format_parse(const char *s, enum response_format *out);
const char *response_format_name(enum response_format f);

/* Read src as format (RESPONSE_GUESS: by its shape).  Reports and
 * returns false on anything that is not a reply (above). */
bool response_read(struct run *run, const struct source *src,
    enum response_format format, struct response *out);

/* The reply as strata's history message: {"role": "assistant",
 * "content": TEXT, "reasoning"?: TEXT, "strata"?: REPLAY,
 * "tool_calls"?: [{"id", "name", "arguments"}]}. */
struct node *response_message(struct arena *a, const struct response *r);
/* Its tool calls alone, as that message's "tool_calls" array (the
 * arguments shared, not copied); NULL when it has none. */
struct node *response_calls(struct arena *a, const struct response *r);

/*
 * Private to response*.c: a stream (SSE events, NDJSON lines, a JSON
 * array of chunks) folded into the body it stands for.  *format is the
 * format forced or RESPONSE_GUESS, and becomes the stream's.  Reports
 * and returns NULL on an error event, a cut stream, or data that is not
 * JSON.
 */
enum response_stream_kind {
	STREAM_SSE,
	STREAM_NDJSON,
	STREAM_ARRAY,           /* Gemini's JSON array of chunks */
};
struct node *response_fold(struct run *run, const struct source *src,
    enum response_stream_kind kind, const struct node *array,
    enum response_format *format);
/* An API error object in v (a body, a chunk or an event): reported with
 * the provider's words, true. */
bool response_api_error(struct run *run, const struct source *src,
    const struct node *v);
/* The format a body's (or a chunk's) keys belong to, or RESPONSE_GUESS. */
enum response_format response_shape(const struct node *body);

#endif
