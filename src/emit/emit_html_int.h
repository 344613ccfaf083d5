/*
 * emit_html_int: what the files of the build's stage inspector share
 * (emit_html_build.c the page and its driver, emit_html_msgs.c the
 * messages and what was left out beside them, emit_html_stages.c each
 * message's stages, emit_html_panels.c tokens, items, world info,
 * clean-ups and the cache prefix).  Private to them.  A struct page
 * borrows the run and the chat; its arrays are on the heap, freed by
 * emit_html().
 */
#ifndef EMIT_HTML_INT_H
#define EMIT_HTML_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag/span.h"
#include "emit/emit_html.h"

struct arena;
struct budget_cut;
struct entry;
struct etext;
struct message;
struct tavern_item;

/* With more messages than this, only the first and last few are open. */
#define OPEN_ALL 12
#define OPEN_ENDS 3
#define MAX_PASSES 8

/* A piece of a message's text, coloured by its layer or source. */
struct piece {
	const char *s;
	size_t len;
	const char *hue;
	const char *label;      /* title: key, layer, where */
};

/* Tokens per layer or source, in order of first appearance. */
struct sums {
	struct emit_html_names names;
	size_t *tok, cap;
};

struct page {
	struct run *run;
	const struct chat *c;
	struct buf *out;
	struct arena *a;
	struct emit_counter count;
	const char *approx;             /* "~" before estimated counts */
	size_t *mtok;                   /* tokens of each message's text */
	size_t *ovh;                    /* SillyTavern builds: each
	                                 * message's overhead, else 0 */
	size_t cut;                     /* messages [0, cut) are the prefix */
	/* profile builds: the entry passes' names */
	const char *pass[MAX_PASSES];
	size_t npass;
	/* what was left out, by where it goes (slot 2i: before message i,
	 * 2i + 1: after it, 2n: at the end): items or entries */
	size_t *slot_start, *slot_of;
};

/* s, escaped, onto the page. */
void page_esc(struct page *p, const char *s);
/* The first occurrence of n[0..nlen) in h[0..hlen), or NULL. */
const char *page_find(const char *h, size_t hlen, const char *n, size_t nlen);
/* A layer or source name as a coloured chip. */
void page_put_chip(struct page *p, const char *name);
/* The text, with each piece found in it (in order) coloured. */
void page_put_text(struct page *p, const char *s, size_t len,
    const struct piece *v, size_t n);
/* A link to where a piece came from, shown as path:line (a text read
 * from inside a file, "card.png[ccv3]", links to the file). */
void page_put_where(struct page *p, bool has, uint32_t src, struct span sp);
/* A SillyTavern item's link, as emit_tavern_where() says it (a card's
 * field after its line); nothing when it has no source. */
void page_put_item_where(struct page *p, const struct tavern_item *it);
/* A SillyTavern message's overhead, as its budget counts it. */
size_t page_tavern_overhead(const struct page *p, const struct message *m);
/* Add tok tokens to name's sum. */
void page_sums_add(struct sums *s, const char *name, size_t tok);
void page_sums_free(struct sums *s);
/* The SillyTavern source an item counts under. */
const char *page_item_source(const struct tavern_item *it);
/* Where an item goes, in words. */
const char *page_position(struct arena *a, const struct tavern_item *it);
/* An entry left out goes into the message it would have joined: the
 * one its replacement is in, else the first of its role and placement;
 * else at the end. */
void page_profile_slots(struct page *p);
/* What the token budget did to entry key, or NULL. */
const struct budget_cut *page_cut_of(const struct page *p, const char *key);
/* What the budget did to k, how and why, as a span of class why. */
void page_put_budget_cut(struct page *p, const struct budget_cut *k);
/* One entry's line: key, layer chip, where, and why it is out when
 * gone. */
void page_put_entry_line(struct page *p, const struct entry *e, bool gone);
/* The messages, each with its pieces, stages and what was left out
 * beside it (emit_html_msgs.c). */
void page_put_messages(struct page *p);
/* Do two stage texts hold the same bytes? */
bool page_same(const struct etext *x, const struct etext *y);
/* A SillyTavern item out of the request (or a marker) goes by the
 * in-request item nearest it in the build's order: an in-chat item
 * before the next one's message, a relative one after the last one's. */
void page_tavern_slots(struct page *p);
/* The layers a message holds, space-separated slugs. */
const char *page_message_layers(struct page *p, const struct message *m,
    size_t i);
/* A message's stages: its entries' rewrite passes, then what the token
 * budget sent when it truncated one or gave it its fallback (profile
 * build), or the four SillyTavern stages (emit_html_stages.c). */
void page_profile_stages(struct page *p, const struct message *m, size_t i);
void page_tavern_stages(struct page *p, size_t i);
/* The panels (emit_html_panels.c): where the cached prefix ends, the
 * clean-ups, what was left out, tokens per layer, world info. */
void page_put_cache(struct page *p);
void page_put_cleanups(struct page *p);
/* A profile build: every entry that did not reach the output. */
void page_put_excluded(struct page *p);
/* A SillyTavern build: every prompt and message with why it is in or
 * out. */
void page_put_items(struct page *p);
void page_put_tokens(struct page *p);
void page_put_wi(struct page *p);

#endif
