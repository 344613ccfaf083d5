/*
 * agent: the prompts of a tool-using agent loop (seed 004, Fay): a
 * profile with an [agent] table builds one user message of titled
 * sections ("**提问内容**", "**可用工具**", ...), each closed by a "---"
 * rule, fed by the state of the loop -- the question, the recent
 * dialogue, prestart tool results, the tools run so far this turn,
 * observations, memories and the user's profile -- read from --state
 * FILE.json (agent_state_read) and the flags that stand in for its keys.
 * layer_agent() turns the profile's [[agent.sections]] into entries (one
 * per section, in order, placement user); agent_compose() joins them
 * into the message's text.  The state, the entries and their texts live
 * in the run's arena and borrow the state file's tree.
 */
#ifndef AGENT_H
#define AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prompt/entry.h"
#include "prompt/names.h"

struct buf;
struct node;
struct profile;
struct run;
struct source;

/* One line of the recent dialogue. */
struct agent_turn {
	enum role role;         /* ROLE_USER or ROLE_ASSISTANT */
	const char *name;       /* a speaker's name, or NULL */
	const char *content;
	size_t len;
	bool has_src;           /* where it was read: the state's element */
	uint32_t src;
	struct span span;
};

/* A tool run: a prestart tool, or one of this turn's tool calls. */
struct agent_call {
	const char *tool;
	const struct node *args;        /* a table, or NULL */
	const char *result;
	size_t rlen;
	bool keep;                      /* prestart include_history */
};

struct agent_state {
	const char *question;           /* NULL: none given */
	size_t qlen;
	struct agent_turn *dialogue;
	size_t ndialogue;
	bool has_dialogue;              /* the state gave "dialogue" */
	struct agent_call *prestart, *tools;
	size_t nprestart, ntools;
	const char *observation;        /* NULL: none */
	size_t olen;
	const struct node *memories;    /* string or array of strings */
	const struct node *profile;     /* string or table */
};

/* The profile has an [agent] table: build the agent prompt. */
bool agent_enabled(const struct profile *p);

/*
 * Read src (one JSON object; all keys optional, see strata(1)) into
 * *st, which the caller zeroed.  Reports every error at its place in
 * src; false if there was any.
 */
bool agent_state_read(struct run *run, struct source *src,
    struct agent_state *st);

/*
 * The agent message's text: the active section entries v[0..n), in
 * order, each followed by the text the profile puts after its section
 * (a "---" rule and a blank line by default), the trailing line endings
 * of the whole trimmed.
 */
void agent_compose(struct buf *out, const struct profile *p,
    struct entry **v, size_t n);

#endif
