/*
 * plug: the real modules behind the SillyTavern assembly's seams
 * (seam.h): exact token counts (text/tokenizer.h: cl100k_base, or the
 * model's encoding, with gpt-3.5-turbo's per-message overheads), the
 * world-info engine (wi.h) over the --world files and the card's book,
 * and regex scripts (text/regex.h) in SillyTavern's scope order.
 *
 * Ownership: the caller owns the struct tavern_plug and calls
 * tavern_plug_free() after the build; what the seams return lives in the
 * run's arena.
 */
#ifndef PLUG_H
#define PLUG_H

#include <stdbool.h>

#include "tavern/seam.h"
#include "text/regex.h"
#include "text/tokenizer.h"

struct tavern_plug {
	enum tokenizer_kind kind;       /* for the budgets */
	struct regex_set scripts;
	bool loaded;                    /* scripts read */
	size_t inputs[3];               /* scripts read, by scope */
	size_t deduped;                 /* of them, those the merge
	                                 * dropped (regex_set_dedup()) */
	struct macro_env *macros;       /* for replacement strings */
	struct run *run;
	/* What regex_set_pure() said of the scripts, by placement: 0 not
	 * asked, 1 none applies, 2 pure on a text without '{', 3 never. */
	unsigned char pure[8];
	const char *fired;      /* the last regex_run()'s scripts, or NULL */
	bool worlds_active;     /* a --world file nothing names is global
	                         * lore (seed 002's worldbook_files) */
	bool user_view;         /* prompt texts get the display-only
	                         * (markdownOnly) scripts, not the
	                         * prompt-only ones (--view user_view) */
};

/*
 * Point s at the real modules, with state in p.  model chooses the
 * tokenizer as SillyTavern does (an unknown model: cl100k_base).
 */
void tavern_plug_init(struct tavern_plug *p, struct tavern_seams *s,
    const char *model);
void tavern_plug_free(struct tavern_plug *p);
/* The scripts the build read, in the order they run, as seed 002's
 * merged_regex: {regex_rules: each script object as read, meta: {order,
 * input_counts by scope, dedup_removed_count, total}}. */
struct arena;
struct node;
struct node *tavern_plug_rules(struct arena *a, const struct tavern_plug *p);

#endif
