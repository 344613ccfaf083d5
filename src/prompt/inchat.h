/*
 * inchat: where in-chat pieces go in a conversation, for both dialects
 * (the profile's in-chat entries, pipeline/arrange.c; SillyTavern's
 * in-chat prompts and extension prompts, tavern/tbuild_chat.c).  A
 * piece at depth d goes where exactly d conversation messages follow
 * it (in-chat messages do not count), at the top when there are fewer;
 * pieces of one depth come in the dialect's order, and neighbours of
 * one depth, order and role join into one message.
 *
 * SillyTavern counts differently: it inserts from the end, shallowest
 * depth first, and counts the messages it inserted before.  Inserting
 * so puts every message where the rule above puts it, once the pieces
 * of one depth are in its order (injection_order, then role assistant,
 * user, system: struct inchat_rules), so the one rule serves both.
 *
 * inchat_place() only plans: it sorts the caller's pieces in place and
 * returns the conversation's new order as slots, in the run's arena;
 * the caller makes each joined message, skipping those that come out
 * empty, in whatever order its own substitutions must run.
 */
#ifndef INCHAT_H
#define INCHAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prompt/names.h"

struct arena;

struct inchat_piece {
	int64_t depth;          /* >= 0 */
	int64_t order;          /* SillyTavern's injection_order; else 0 */
	enum role role;
	size_t index;           /* the caller's: which entry or prompt */
};

/* How a dialect orders the pieces of one depth. */
struct inchat_rules {
	/* By order (lower first), then by role, lower rank first (indexed
	 * by enum role); NULL: as the caller gave them (the profile's
	 * priority and position), neighbours of one role joining. */
	const int *role_rank;
};

/* A place of the new conversation: conversation message msg, or (inject)
 * the pieces v[first..first+n) joined into one message. */
struct inchat_slot {
	bool inject;
	size_t msg;
	size_t first, n;
};

/*
 * Sort v[0..n) deepest first (then by r), and plan the conversation of
 * conv messages with them: the slots in order, their count in *nslots.
 */
struct inchat_slot *inchat_place(struct arena *a, struct inchat_piece *v,
    size_t n, size_t conv, const struct inchat_rules *r, size_t *nslots);

#endif
