/*
 * tbuild_int: what the files of the SillyTavern build (tbuild*.c) share
 * and nothing else includes (but its unit test).  tavern_read()
 * (tbuild_read.c) reads the inputs before the build, in the pipeline's
 * front half; tbuild.c drives the steps in order: take the inputs
 * (tbuild_read.c), the extension
 * prompts, world info and examples (tbuild_ext.c), the prompt
 * manager's collection and its fill (tbuild_prompts.c) with the
 * history and in-chat injections
 * (tbuild_chat.c) and strata's own entries (tbuild_own.c), then squash,
 * post-processing and what the provider shaping in emit/ takes
 * (tbuild_shape.c); tbuild_item.c keeps the message lists and the items
 * (prompt/item.h) every step records to.  Each text goes through the
 * dialect's rewrite plan (tbuild_rewrite.c: regex-pre, macros,
 * regex-post) when SillyTavern runs those stages on it; the plan's
 * record hook fills the items' stages.  The regex scripts
 * (tbuild_regex.c, which the regex passes run), world info
 * (tbuild_wi.c) and the tokenizer are called directly, with the
 * build's state.
 *
 * Ownership: one struct tb per build, on tavern_build()'s stack; all it
 * points to (messages, lists, strings, items, the report) lives in the
 * run's arena and is never freed before the run ends, but the compiled
 * regex scripts, which tavern_build() frees.  t->in and t->f are
 * borrowed from the caller, but the chat t->f holds, which the build
 * takes over (its copy shares the message arrays).  Strings a function
 * returns are the arena's or borrowed from its arguments, never the
 * caller's to free.
 */
#ifndef TBUILD_INT_H
#define TBUILD_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tavern/tbuild.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/util.h"
#include "base/vec.h"
#include "data/tree.h"
#include "data/yamltree.h"
#include "diag/run.h"
#include "text/macros.h"
#include "prompt/chat.h"
#include "prompt/rewrite.h"
#include "tavern/card.h"
#include "tavern/field.h"
#include "tavern/group.h"
#include "tavern/macro.h"
#include "tavern/preset.h"
#include "tavern/settings.h"
#include "tavern/tchat.h"
#include "tavern/titem.h"
#include "world/wi.h"
#include "text/regex.h"
#include "text/tokenizer.h"

/* Extension prompt positions (SillyTavern's extension_prompt_types). */
enum { EXT_IN_PROMPT = 0, EXT_IN_CHAT = 1, EXT_BEFORE_PROMPT = 2 };

/* system, user, assistant: by extension prompt role (0-2). */
extern const enum role tb_roles[3];

/* A message while it is being assembled. */
struct tmsg {
	enum role role;                 /* system, user or assistant */
	const char *name;               /* NULL: none */
	const char *content;
	const char *id;                 /* newMainChat, newChat, ... or NULL */
	const uint32_t *items;          /* its items (prompt/item.h) */
	uint32_t nitems;
	/* A chat message whose content is NULL until resolve() makes it:
	 * its index in the chat and its item. */
	size_t chat;
	uint32_t chat_item;
	bool real;                      /* a message of the chat (history) */
	bool prepared;                  /* its macros ran at prompt time */
};

struct tlist {
	struct tmsg *v;
	size_t n, cap;
};

struct ext {
	const char *key, *value;
	int position;
	int64_t depth;
	int role;
	uint32_t item;
};

/* A place in the final order: a prompt, or a collection (main and the
 * extension prompts beside it, the history, the examples). */
struct slot {
	const char *id;
	struct tlist msgs;
};

struct tb {
	struct run *run;
	const struct tavern_input *in;
	const struct tavern_files *f;   /* read by tavern_read() */
	enum tokenizer_kind tok;        /* the model's (tokenizer.h) */
	struct regex_set scripts;       /* tbuild_regex.c */
	bool scripts_loaded;
	size_t rx_inputs[3];            /* scripts read, by scope */
	size_t rx_deduped;              /* of them, those seed 002's merge
	                                 * dropped (regex_set_dedup()) */
	/* What regex_set_pure() said of the scripts, by placement: 0 not
	 * asked, 1 none applies, 2 pure on a text without '{', 3 never. */
	unsigned char pure[8];
	const char *fired;      /* the last tb_regex()'s scripts, or NULL */
	/* The dialect's rewrite plan and its context (tbuild_rewrite.c),
	 * set up on first use; each stage the last tb_rewrite() recorded,
	 * and the scripts that made it (NULL: none, or not run). */
	struct rewrite_ctx rw;
	struct rewrite_plan plan;
	const char *stage[ITEM_NSTAGES], *stage_by[ITEM_NSTAGES];
	struct preset *p;
	struct settings s;
	struct card *card;
	struct tchat chat;
	struct macro_env env;
	struct macro_vars locals, globals;
	const char *type, *user_name, *char_name, *card_file;
	enum tavern_gen gen;            /* type's */
	/* card fields, substituted once */
	const char *description, *personality, *scenario, *mes_example,
	    *system_prompt, *phi, *depth_prompt, *creator_notes, *persona;
	struct ext *ext;
	size_t next, extcap;
	struct wi_result *wi;           /* zero until the scan ran */
	bool an_fires;
	struct slot *slots;
	size_t nslots, slotcap;
	const struct tchat_msg *continued;      /* --type continue */
	bool swiping;                   /* --type swipe: the last reply is
	                                 * a swipe in progress */
	bool typed;                     /* a user message was added */
	const char *quiet;              /* --type quiet: the quiet prompt */
	size_t nloaded;                 /* messages as the chat opened */
	const char *memory;             /* the summary as the chat opened */
	long budget, used;
	struct item_report *rep;
	/* The request's format: SillyTavern's client substitutes Claude's
	 * prefill only for Claude (tb_request()), and on continue with
	 * continue_prefill puts it in front of the message continued,
	 * where it counts against the budget (tb_continued()). */
	enum out_format format;
	/* Chat message i at the stages before regex-post. */
	const char **craw, **cpre, **cmac;
	const char **cpre_by;           /* the scripts that made cpre[i] */
	/* The chat as world_info() regexed it, by message: its text and
	 * the result, which history() takes when it would make the same
	 * call (SillyTavern regexes its chat once for both).  rx_out[i] is
	 * NULL until rx_at() computes it: with in->skip_unsent, a message
	 * whose regex is pure waits until world info or the budget needs
	 * it, and one they never reach is never regexed. */
	const char **rx_text, **rx_out;
	const char **rx_by;             /* the scripts that made rx_out[i] */
	const char **reason;    /* by message: its reasoning as the prompt
	                         * puts it in front, or NULL */
	const char **reason_bare;       /* the same for an empty message
	                                 * continued: no suffix */
	size_t nrx;
	int rx_shift;           /* 1 on continue: the message continued
	                         * has depth -1 */
	/* A new chat's greeting: the card field it is and where it was
	 * read (NULL: the card lacks it). */
	const char *greeting_field;
	const struct node *greeting_node;
	/* A group chat (tbuild_group.c), or NULL: its member who speaks,
	 * the other members' texts and names.  card is the speaker's. */
	const struct group *grp;
	size_t speaker;
	const char *grp_why;            /* why it is the speaker */
	const char **grp_greet;         /* a new chat: each member's
	                                 * greeting as drawn ("" none) */
	bool grp_regen;                 /* --type regenerate: the last
	                                 * batch of replies goes first */
};

/* The in-chat injections: preset prompts at a depth (injection_position
 * 1) and the IN_CHAT extension prompts, into the history (oldest first
 * in and out). */
struct inj {
	enum role role;
	const char *content;
	int64_t depth, order;
	uint32_t item;
};

/* tbuild_item.c: message lists, items (prompt/item.h) and text helpers */
size_t tb_count(struct tb *t, struct tmsg *m);
const char *tb_em_block(struct arena *a, const char *s);
const char *tb_fired(struct tb *t);
void tb_holds(struct tb *t, struct tmsg *m, uint32_t i);
void tb_insert_at(struct run *run, struct tlist *l, size_t at,
    const struct tmsg *m);
uint32_t tb_item_add(struct tb *t, const char *id, enum item_source source,
    enum role role, int64_t depth, const char *raw);
void tb_item_at(struct tb *t, uint32_t i, const struct node *n);
void tb_item_card(struct tb *t, uint32_t i, const char *field,
    const struct node *n);
void tb_item_empty(struct tb *t, uint32_t i);
void tb_item_preset(struct tb *t, uint32_t i, const char *key);
void tb_item_note(struct tb *t, uint32_t i, const char *note);
void tb_item_out(struct tb *t, uint32_t i, enum entry_status reason,
    const char *note);
uint32_t tb_item_skip(struct tb *t, const char *id, enum item_source source,
    enum role role, int64_t depth, const char *raw, enum entry_status reason,
    const char *note);
const struct node *tb_typed_node(struct tb *t);
void tb_item_stage(struct tb *t, uint32_t i, enum item_stage k,
    const char *s);
const uint32_t *tb_items_cat(struct tb *t, const uint32_t *a, uint32_t na,
    const uint32_t *b, uint32_t nb);
void tb_last_holds(struct tb *t, struct tlist *l, uint32_t i);
void tb_push(struct run *run, struct tlist *l, enum role role,
    const char *name, const char *content, const char *id);
void tb_push_item(struct tb *t, struct tlist *l, enum role role,
    const char *name, const char *content, const char *id, uint32_t item);
void tb_push_m(struct run *run, struct tlist *l, const struct tmsg *m);
void tb_reserve(struct run *run, struct tlist *l, size_t n);
const char *tb_strip_cr(struct arena *a, const char *s);
const char *tb_sub(struct tb *t, const char *s);
/* tb_sub() of a text the macros' cost-cap diagnostics name as asset
 * ("card 'c.json', field description"). */
const char *tb_sub_as(struct tb *t, const char *asset, const char *s);
/* The asset name of the preset's prompt id. */
const char *tb_prompt_asset(struct tb *t, const char *id);
size_t tb_tokens(struct tb *t, struct tmsg *m);
/* Claude's tokens of "\n\nHuman: ", "NAME: " when name is set, and
 * text[0..len), less off (not below 0): what SillyTavern's server counts
 * for a claude model name (tbuild_item.c). */
size_t tb_claude_tokens(const char *name, const char *text, size_t len,
    size_t off);
const char *tb_trim(struct arena *a, const char *s);
enum role tb_role_of(const char *s);

/*
 * tbuild_rewrite.c: the dialect's rewrite plan (prompt/rewrite.h), one
 * pass a stage of an item (enum item_stage; raw is the text as given):
 * regex-pre and regex-post (tbuild_pass_regex.c), macros
 * (tbuild_pass_macros.c).  The build runs each text through the passes
 * of the stages SillyTavern runs on it at that moment; its kind (a bit
 * set) says which of them apply.
 */
enum tb_kind {
	TB_STORED = 1,          /* entering the chat (the message typed,
	                         * the greeting): the scripts that change
	                         * the text stored (not is_prompt) */
	TB_MACROS = 2,          /* its macros are substituted */
	TB_PROMPT = 4,          /* as the prompt takes it (chat messages,
	                         * world info, reasoning): the prompt-time
	                         * scripts at its depth */
};
#define TB_NO_ITEM UINT32_MAX
/* A text and what the passes need to know of it. */
struct tb_text {
	unsigned kind;          /* enum tb_kind */
	uint32_t item;          /* whose stages it fills, or TB_NO_ITEM */
	const char *asset;      /* the macros' diagnostics name it so, or
	                         * NULL */
	/* The card's override of main or jailbreak: substituted with
	 * {{original}} the text; or NULL. */
	const char *over;
	enum regex_placement place;     /* the scripts' placement */
	int depth;              /* in the chat, or REGEX_NO_DEPTH */
	long chat;              /* the chat message it is, whose
	                         * regex-post result is made once; or
	                         * -1 */
};
/* x for a text of kind, recording on item (or TB_NO_ITEM): no asset,
 * no override, no placement or depth, no chat message. */
void tb_text_init(struct tb_text *x, unsigned kind, uint32_t item);
extern const struct rewrite_pass tb_pass_regex_pre, tb_pass_macros,
    tb_pass_regex_post;
/* Chat message i (of those world info scans) after regex-post, with
 * its reasoning in front: made once, world info, the history and the
 * continue nudge sharing it (tbuild_pass_regex.c keeps it). */
const char *tb_chat_post(struct tb *t, size_t i);
/* s through the plan's passes of stages [from, to], recorded in
 * t->stage and on x's item; the result (s itself when s is NULL). */
const char *tb_rewrite(struct tb *t, const struct tb_text *x,
    enum item_stage from, enum item_stage to, const char *s);
/* The macros stage (and the stages after it) of item it, from s; the
 * text after them. */
const char *tb_macros(struct tb *t, uint32_t it, const char *asset,
    const char *s);
/* A message entering the chat as chat message i: regex-pre and macros
 * on raw, which craw[i], cpre[i] and cpre_by[i] keep; the macros'
 * text (the caller keeps it as cmac[i]). */
const char *tb_stored(struct tb *t, size_t i, enum regex_placement place,
    const char *asset, const char *raw);

/* tbuild_read.c: the inputs (card, preset, settings, chat, read by
 * tavern_read() before the build), the macro environment */
void tb_card_fields(struct tb *t);
bool tb_chat_given(const struct tavern_input *in);
bool tb_chat_messages(struct tb *t);
void tb_take_inputs(struct tb *t);
void tb_setup_env(struct tb *t);

/* tbuild_ext.c: the extension prompts (Author's Note, Character's Note,
 * persona), world info, examples */
bool tb_authors_note(struct tb *t);
void tb_depth_prompts(struct tb *t);
void tb_example_blocks(struct tb *t, struct tlist *blocks_out);
void tb_example_messages(struct tb *t, const char *block, struct tlist *out);
int tb_ext_cmp(const void *a, const void *b);
const char *tb_ext_collect(struct tb *t, int position, int64_t depth, int role,
    const uint32_t **items, uint32_t *nitems);
enum regex_placement tb_placement(const struct tchat_msg *m);
bool tb_world_info(struct tb *t);

/* tbuild_regex.c: the regex scripts.  tb_regex() gives text after the
 * scripts of place (is_prompt: the prompt-time ones) at depth
 * (REGEX_NO_DEPTH: none), and records which changed it (tb_fired());
 * tb_regex_pure() says whether it may run at any time, or not at all,
 * without changing anything but its result (regex_set_pure()). */
bool tb_regex_load(struct tb *t);
const char *tb_regex(struct tb *t, enum regex_placement place,
    bool is_prompt, int depth, const char *text);
bool tb_regex_pure(struct tb *t, enum regex_placement place,
    const char *text);
struct node *tb_regex_rules(struct tb *t);

/* tbuild_wi.c: the world-info scan of wi, whose messages, match texts,
 * inject buffer the caller set, into t->wi. */
bool tb_wi_run(struct tb *t, struct wi_input *wi);
/* Item it was read where the first entry world info placed at pos (for
 * WORLD_DEPTH: at depth, as role) was; false when none went there. */
bool tb_item_world(struct tb *t, uint32_t it, int pos, int64_t depth,
    int role);

/* tbuild_chat.c: history and the in-chat injections */
const char *tb_completion_name(struct arena *a, const char *name);
void tb_history(struct tb *t, struct tlist *out);
void tb_inject(struct tb *t, struct tlist *hist, const struct inj *pm,
    size_t npm);
void tb_prepare(struct tb *t, struct tmsg *m);
void tb_resolve(struct tb *t, struct tmsg *m);

/* tbuild_hook.c: seed 002's points inside the assembly; false after
 * reporting. */
bool tb_hook_chat(struct tb *t);
bool tb_hook_list(struct tb *t, const char *point, struct tlist *l);
const char *tb_hook_post(const struct tb *t, bool after);

/* tbuild_prompts.c: the prompt manager: collection, markers, budget fill */
void tb_collect(struct tb *t, struct inj **injs, size_t *ninj);
void tb_continued(struct tb *t, struct tlist *hist, bool prefill);
bool tb_fill(struct tb *t, struct tlist *hist);
void tb_main_extensions(struct tb *t);
struct slot *tb_slot_add(struct tb *t, const char *id);

/* tbuild_own.c: strata's own entries among the preset's prompts */
bool tb_own_anchors(struct tb *t);
void tb_own_context(struct tb *t, struct tlist *hist);
void tb_own_inchat(struct tb *t);
void tb_own_system(struct tb *t);

/* tbuild_group.c: a group chat's hooks into the steps above */
bool tb_group_read(struct run *run, const struct tavern_input *in,
    struct group **out);
bool tb_group_begin(struct tb *t, struct tavern_input *gin);
void tb_group_env(struct tb *t);
void tb_group_fields(struct tb *t);
bool tb_group_depth_prompts(struct tb *t);
void tb_group_greetings(struct tb *t);
void tb_group_regenerate(struct tb *t);
void tb_ext_add(struct tb *t, const char *key, const char *value,
    int position, int64_t depth, int role);
const char *tb_card_text(struct tb *t, const char *asset, const char *s);

/* tbuild_shape.c: squash, post-processing, and what the provider
 * shaping (emit/emit_shape.c) takes of the preset and settings */
void tb_post_process(struct tb *t, struct tlist *l);
void tb_last_flag(struct tb *t, struct chat *c);
void tb_request(struct tb *t, const char *model);
void tb_squash(struct tb *t, struct tlist *l);

#endif
