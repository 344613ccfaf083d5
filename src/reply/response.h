/*
 * response: the model's answer, read from what a provider's API
 * returned -- an OpenAI Chat Completions, OpenAI Responses, Anthropic
 * Messages or Gemini generateContent response body, recognised by its
 * shape (or forced), or plain text -- into one assistant message:
 * text, reasoning the provider returned apart, and tool calls.
 *
 * An API error body ({"error": ...}) is reported with the provider's own
 * message and is never taken for a reply.  A reply the provider cut short
 * (max tokens, a content filter) is read, with a warning.  Everything
 * lives in the run's arena and borrows the source.
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
};

struct response_call {
	const char *id;         /* the provider's, or made up: call_N */
	const char *name;
	const struct node *arguments;   /* a table */
};

struct response {
	enum response_format format;    /* what it was read as */
	const char *text;               /* the reply's text; "" if none */
	size_t len;
	const char *reasoning;          /* thinking the provider returned
	                                 * apart, or NULL */
	size_t reasoning_len;
	struct response_call *calls;
	size_t ncalls;
	const char *stop;               /* the provider's stop reason, or
	                                 * NULL */
};

/* "text", "openai", "responses", "anthropic", "gemini"; false if s is
 * none of them. */
bool response_format_parse(const char *s, enum response_format *out);
const char *response_format_name(enum response_format f);

/* Read src as format (RESPONSE_GUESS: by its shape).  Reports and
 * returns false on an error body or a body with no reply in it. */
bool response_read(struct run *run, const struct source *src,
    enum response_format format, struct response *out);

/* The reply as strata's history message: {"role": "assistant",
 * "content": TEXT, "reasoning"?: TEXT, "tool_calls"?: [{"id", "name",
 * "arguments"}]}. */
struct node *response_message(struct arena *a, const struct response *r);
/* Its tool calls alone, as that message's "tool_calls" array (the
 * arguments shared, not copied); NULL when it has none. */
struct node *response_calls(struct arena *a, const struct response *r);

#endif
