/*
 * history_int: what the files of the history reader share (history.c the
 * driver and the general reader's elements, history_calls.c tool calls,
 * results and reasoning, history_parts.c content parts, history_fast.c
 * the scanner of a plain history).  Private to them; stages.h has the
 * entry points.  A struct draft's arrays are on the heap
 * (history_draft_free()); everything kept is in the run's arena.
 */
#ifndef HISTORY_INT_H
#define HISTORY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "base/buf.h"
#include "base/map.h"
#include "base/vec.h"
#include "data/tree.h"
#include "pipeline/stages.h"

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

static inline const char *
str_of(const struct node *n)
{
	return n && n->kind == NODE_STRING && strlen(n->u.str.s) ==
	    n->u.str.len ? n->u.str.s : NULL;
}

static inline void
keep_message(struct reader *rd, const struct message *m)
{
	vec_push(&rd->out, *m);
}

/* Make in's history empty, with room for n messages (and the slots
 * arrange() uses), and its system texts empty. */
void history_room(struct run *run, struct inputs *in, size_t n);
/* Append reasoning text to d's (a blank line between pieces). */
void history_add_reasoning(struct draft *d, const char *s, size_t len);
/* Append v to d's replay array of provider. */
void history_add_replay(struct run *run, struct draft *d,
    const char *provider, const struct node *v);
/* A tool result, answering call id (or, with no id, the oldest open call
 * named name). */
bool history_add_result(struct reader *rd, const struct node *e,
    const struct node *id, const char *name, const struct draft *content,
    const char *text, size_t len, bool is_error);
/* Free d's heap arrays and buffer. */
void history_draft_free(struct draft *d);
/* Reasoning pending when a message other than the assistant's comes:
 * it answers nothing, and is left out with a warning. */
void history_drop_pending(struct reader *rd);
/* d's reasoning, with what was pending before it, onto message x. */
void history_put_reasoning(struct reader *rd, struct draft *d,
    struct message_extra *x);
/* A Responses reasoning item: its summary (and content) text, and the
 * item itself to send back. */
bool history_reasoning_item(struct reader *rd, const struct node *e,
    struct draft *d);
/* The "strata" member of an assistant message: the arrays a reply
 * stored to send back, by provider. */
bool history_strata_replay(struct reader *rd, const struct node *v,
    struct draft *d);
/* OpenAI's or strata's tool_calls array into d. */
bool history_tool_calls(struct reader *rd, const struct node *v,
    struct draft *d);
/* A call: remembered under its id (one made up when Gemini gave none). */
bool history_add_call(struct reader *rd, struct draft *d,
    const struct node *at, const struct node *id, const struct node *name,
    const struct node *args);
/* An Anthropic thinking or redacted_thinking block of an assistant
 * message: its text is the reasoning; signed, it is sent back. */
bool history_thinking_part(struct reader *rd, const struct node *p,
    const char *t, struct draft *d);
/* The text parts of d joined by a blank line, in the arena. */
const char *history_joined(struct run *run, const struct draft *d,
    size_t *len);
/* The parts of one element into d; tool results (Anthropic tool_result,
 * Gemini functionResponse) become tool messages at once. */
bool history_parts(struct reader *rd, const struct node *e, enum role r,
    const struct node *arr, struct draft *d);
/* A tool result's content: a string, or parts (text and images). */
bool history_result_content(struct reader *rd, const struct node *e,
    const struct node *v, struct draft *d, const char **text, size_t *len);
/* Report part kind what in a message of role r, which cannot have it:
 * false. */
bool history_wrong_role(struct reader *rd, const struct node *p,
    const char *what, enum role r);
/* The fast scanner (history_fast.c): a plain history read straight
 * into in; false, saying nothing, at anything else. */
bool history_fast(struct run *run, const struct source *src,
    struct inputs *in);

#endif
