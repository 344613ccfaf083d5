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

struct node;
struct profile;          /* opaque here: the emitters read it */

struct message {
	enum role role;
	const char *name;               /* a history name, or NULL */
	const char *content;
	size_t len;
	const char *origin;             /* system, developer, history, turn */
	bool has_src;                   /* a history element: where */
	uint32_t src;
	struct span span;
	struct entry **entries;         /* what was composed into it */
	size_t nentries;
	const struct etext *stages;     /* per message pass, or NULL */
	size_t nstages;
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
	struct stack stack;             /* every entry, in or out */
	bool color;                     /* the debug view may use colour */
};

#endif
