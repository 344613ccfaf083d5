/*
 * chat: the output model -- the messages a build produces, each with the
 * entries that made it, plus the tools, model and parameters of the
 * request.  Emitters (emit.h) read it; nothing writes it after assemble()
 * filled it.  A message's content is its text after the last pass of the
 * rewrite stage; stages holds each message pass's output (none today).  It lives in the run's arena and borrows the profile, the
 * entries and the tools.
 */
#ifndef CHAT_H
#define CHAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prompt/entry.h"
#include "prompt/names.h"
#include "diag/source.h"
#include "prompt/tool.h"

struct arena;
struct node;
struct profile;          /* opaque here: the emitters read it */
struct wi_result;        /* opaque here (world/wi.h): the emitters
                          * read it */
struct item_report;    /* prompt/item.h: a SillyTavern build's items */
struct budget_report;    /* pipeline/budget.h: what the budget cut */

/*
 * What a message carries beyond its text (NULL on a plain message, which
 * keeps a million-message history small): content parts in order, an
 * assistant's tool calls, a tool result's call.  A message with parts
 * has as content its text parts joined by a blank line (what views,
 * tokens and fingerprints read); emitters write the parts.
 */
enum part_kind {
	PART_TEXT,
	PART_IMAGE,
	PART_FILE,
};

struct part {
	enum part_kind kind;
	const char *data;               /* text, base64 bytes, or a URL */
	size_t len;
	bool url;                       /* data is a URL */
	const char *media_type;         /* or NULL (a URL of unknown type) */
	const char *filename;           /* PART_FILE: or NULL */
	bool has_src;                   /* an --image argument: where, for */
	uint32_t src;                   /* messages about the part itself */
	struct span span;
};

/* Media parts (part.c), one check for every way a part arrives (--image,
 * history files, sessions).  part_data_url splits s[0..n), which starts
 * with "data:", as data:TYPE;base64,BYTES into p's media type (in a),
 * data and len; false if it is not of that shape or BYTES is empty.
 * part_media_ok: whether a part of kind may carry media type t -- an
 * image PNG, JPEG, GIF or WebP, a file any type/subtype (the emitters
 * check what each provider takes). */
bool part_data_url(struct arena *a, const char *s, size_t n,
    struct part *p);
bool part_media_ok(enum part_kind kind, const char *t);

struct tool_call {
	const char *id;
	const char *name;
	const struct node *args;        /* a JSON object */
};

struct message_extra {
	const struct part *parts;
	size_t nparts;
	const struct tool_call *calls;  /* ROLE_ASSISTANT */
	size_t ncalls;
	const char *call_id;            /* ROLE_TOOL: the call answered, */
	const char *call_name;          /* its tool's name, */
	const struct node *result;      /* a Gemini response object, or NULL */
	bool is_error;                  /* and whether it failed */
	/* ROLE_ASSISTANT: the model's reasoning before this message, as
	 * text (a thinking message, reasoning_content, extra.reasoning),
	 * or NULL; and what a provider signed, to be sent back to it as it
	 * came: a table of "anthropic" (thinking and redacted_thinking
	 * blocks), "responses" (reasoning items) and "gemini" (the parts,
	 * with their thought signatures) arrays, or NULL. */
	const char *reasoning;
	size_t reasoning_len;
	const struct node *replay;
	/* ROLE_ASSISTANT, the last message: a property the OpenAI-compatible
	 * body sets true on it, for a server that continues the message
	 * rather than answering it (DeepSeek's "prefix"), or NULL. */
	const char *flag;
};

struct message {
	enum role role;
	bool has_src;                   /* a history element: where */
	uint32_t src;
	struct span span;
	uint32_t nentries;              /* 32 bits: a million messages is */
	uint32_t nstages;               /* all of their size */
	const char *name;               /* a history name, or NULL */
	const char *content;
	size_t len;
	enum origin origin;
	struct entry **entries;         /* what was composed into it */
	const struct etext *stages;     /* per message pass, or NULL */
	const struct message_extra *x;  /* parts, calls, result, or NULL */
};

/* A change the history clean-up made (pipeline/cleanup.c): reported in
 * the debug view and in -f json, never silent. */
struct cleanup_note {
	size_t message;         /* 1-based, among the messages as read */
	const char *rule;       /* think, prestart, empty, first_user */
	const char *change;     /* what changed and why, in words */
	bool has_src;           /* where the message was read */
	uint32_t src;
	struct span span;
};

/* An agent template a build used, and where it came from: the file
 * read, or "(built-in)" (the debug trace names them). */
struct chat_template {
	const char *name;
	const char *where;
};

struct chat_templates {
	struct chat_template *v;
	size_t n, cap;
};

struct chat {
	const struct profile *profile;
	enum out_format format;
	const char *model;
	const struct node *params;      /* [output.params], or NULL */
	int64_t max_tokens;             /* [output] max_tokens, or 0 */
	struct message *msgs;
	size_t n, cap;
	struct tool_list tools;
	/* An [agent] profile's tools: listed in words in its prompt, not
	 * sent as native tools; strata decide checks against them. */
	struct tool_list prose_tools;
	struct stack stack;             /* every entry, in or out */
	/* The JSON view's scratch, on its own copy of the chat: each
	 * message's prefix fingerprint (emit_json.c), else NULL. */
	const uint64_t *prefix_fp;
	/* The turn: first when the conversation had no messages before it
	 * (or --turn said so); turn counts from 1. */
	bool first_turn;
	int64_t turn;
	const char *user;               /* -u as given (a session appends it),
	                                 * or NULL */
	size_t user_len;
	const struct node *soul;        /* SOUL.md's front matter, or NULL */
	const struct cleanup_note *cleanups;    /* history clean-up */
	size_t ncleanups;
	bool color;                     /* the debug view may use colour */
	/* A SillyTavern build's world-info outcome (debug view, -f json),
	 * or NULL. */
	const struct wi_result *world_info;
	/* Which build made it; the tavern dialect's views and provider
	 * shaping key on this alone. */
	enum dialect dialect;
	/* A SillyTavern build: what it decided about each prompt and
	 * message, with their stages (prompt/item.h); else NULL. */
	const struct item_report *items;
	/* A SillyTavern build's regex scripts as seed 002's merged_regex
	 * (tavern/tbuild_regex.c), or NULL. */
	const struct node *merged_regex;
	const char *stage;              /* debug --stage NAME, or NULL */
	/* A profile build's token budget and its cuts, or NULL (a
	 * SillyTavern build keeps SillyTavern's). */
	const struct budget_report *budget;
	/* The agent templates used, in order, or NULL. */
	const struct chat_templates *templates;
};

#endif
