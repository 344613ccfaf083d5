/*
 * wi_int: what the world-info engine's files share (wi.c the activation
 * loop, wi_group.c inclusion groups, wi_timed.c timed effects, wi_out.c
 * the slots): one item per entry, in priority order, and the engine's
 * state for one wi_run().  Ownership as in wi.h: the engine's heap
 * arrays and buffers are freed by wi_run(); what it returns lives in
 * run->arena.
 */
#ifndef WI_INT_H
#define WI_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/rng.h"
#include "world/wi.h"

struct item {
	const struct world_entry *e;
	const struct wi_book *book;
	int64_t order;                  /* e->order, for the sort */
	struct wi_keys keys;
	bool prepared;
	bool dec_activate, dec_dont;
	const char *content;            /* decorators removed */
	bool activated, failed;
	bool sticky, cooldown;          /* timed effects active now */
	bool forced;
	bool removed;                   /* out of this pass's batch */
	size_t ngroups;
	const char **groups;
};

struct engine {
	struct run *run;
	const struct wi_input *in;
	const struct wi_settings *s;
	struct wi_scan *sc;
	struct rng rng;
	struct item *items;
	struct wi_record *rec;
	size_t n;
	size_t chatlen;
	struct wi_timed timed;
	size_t capsticky, capcooldown;
	/* The passes (wi_run): the delayUntilRecursion levels and the one
	 * reached, the min-activations skew, the budget, the pass's batch,
	 * and the text activated so far (all: allActivatedText; newc, the
	 * pass's new content; rectext, its recursion text). */
	int64_t *levels, level, skew, budget, all_tokens;
	/* all_tokens counts allActivatedText as a text; all_cont as the
	 * continuation of one (see count_tokens in wi.h). */
	int64_t all_cont;
	size_t nlevels, li, nact, all_units;
	int pass;
	bool overflow;
	struct item **batch;
	struct buf all, newc, rectext;
};


/* wi.c */
int64_t wi_tokens(struct engine *g, const char *t, size_t len, bool start);
/* "<world>.<uid>", the timed-effect key of an item. */
const char *wi_entry_key(struct engine *g, const struct item *it);
/* Key i of keys for the item (prepared once), warning of a regex limit
 * once per record. */
void wi_item_prepare(struct engine *g, struct item *it);
bool wi_item_key(struct engine *g, struct item *it, struct wi_record *r,
    struct wi_key *keys, size_t i, struct wi_match *m);

/* A stable sort by descending order; tmp holds n. */
void wi_sort_desc(struct item **v, size_t n, struct item **tmp);

/* wi_group.c: SillyTavern's filterByInclusionGroups on a pass's batch. */
void wi_apply_groups(struct engine *g, struct item **batch, size_t nb);

/* wi_timed.c: chat_metadata.timedWorldInfo read before the passes, and
 * the effects of what activated added after them (into out->timed). */
void wi_timed_load(struct engine *g);
void wi_timed_save(struct engine *g, struct wi_result *out);

/* wi_out.c: the records in activation order and the slots' texts. */
void wi_output(struct engine *g, struct wi_result *out);

/* wi_regex.c: a key s[0..n) written /pattern/flags (flags from
 * "gimsuy", bit 1 << k for the k-th; 1 << 8 when one is given twice):
 * its pattern's length and flags, false when it is not written so; and
 * it compiled (NULL when it is not a regex key or does not compile:
 * then err, when not NULL, says why at *erroff). */
struct pcre2_real_code_8;
bool wi_split_regex(const char *s, size_t n, size_t *plen,
    unsigned *flags);
struct pcre2_real_code_8 *wi_compile_regex(const char *s, size_t n,
    char *err, size_t errlen, size_t *erroff);

#endif
