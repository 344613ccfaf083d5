/*
 * tbuild_wi: the build's world-info scan (wi.h), called directly: the
 * books in scope (the --world files by what names them, the card's own
 * book), the settings, the timed state, and the build's macros, regex
 * scripts and tokenizer for the entries' texts and the budget.
 */
#include "tavern/tbuild_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "data/tree.h"
#include "diag/run.h"
#include "tavern/card.h"
#include "tavern/macro.h"
#include "world/wi.h"
#include "world/world.h"

/* An entry's keys and content through the build's macros, named for
 * their diagnostics. */
static const char *
substitute(void *ctx, const char *text, const struct wi_book *book,
    const struct world_entry *e)
{
	struct tb *t = ctx;

	return tb_sub_as(t, arena_printf(&t->run->arena, "world info entry "
	    "%lld of book '%s'", (long long)e->uid, book->world->name), text);
}

/* The persona's lorebook: power_user.persona_descriptions[user_avatar]
 * .lorebook, else power_user.persona_description_lorebook; NULL. */
static const char *
persona_lorebook(const struct node *root)
{
	const struct node *pu = root ? tree_get(root, "power_user") : NULL;
	const struct node *av = root ? tree_get(root, "user_avatar") : NULL;
	const struct node *pd = pu ? tree_get(pu, "persona_descriptions") :
	    NULL, *d, *lb;

	if (pd && pd->kind == NODE_TABLE && av && av->kind == NODE_STRING &&
	    (d = tree_get(pd, av->u.str.s)) != NULL &&
	    d->kind == NODE_TABLE) {
		lb = tree_get(d, "lorebook");
		return lb && lb->kind == NODE_STRING && lb->u.str.len ?
		    lb->u.str.s : NULL;
	}
	lb = pu ? tree_get(pu, "persona_description_lorebook") : NULL;
	return lb && lb->kind == NODE_STRING && lb->u.str.len ? lb->u.str.s :
	    NULL;
}

/* The character's extra books: world_info.charLore's extraBooks for the
 * card's file name, or NULL. */
static const struct node *
char_lore(const struct node *wi, const char *card_file)
{
	const struct node *cl = wi ? tree_get(wi, "charLore") : NULL;
	size_t i;

	if (!cl || cl->kind != NODE_ARRAY || !card_file)
		return NULL;
	for (i = 0; i < cl->u.array.n; i++) {
		const struct node *e = cl->u.array.items[i];
		const struct node *nm = e->kind == NODE_TABLE ?
		    tree_get(e, "name") : NULL;

		if (nm && nm->kind == NODE_STRING &&
		    strcmp(nm->u.str.s, card_file) == 0)
			return tree_get(e, "extraBooks");
	}
	return NULL;
}

/*
 * Whether the card's embedded book is its lore once SillyTavern has
 * imported it: the import (its "import the embedded lorebook?" question,
 * answered yes) saves the book as a world named after the book
 * (character_book.name, or "NAME's Lorebook" when that is empty) but does
 * not change the card's link, extensions.world.  The book is read at
 * generation only when that link names the world the import made; a card
 * with no link (or a link to another name) sends none of its book.
 */
static bool
book_imported_linked(struct run *run, const struct card *card,
    struct card_text cw)
{
	const struct node *bn = tree_get(card->character_book, "name");
	const char *imported;

	if (bn && bn->kind == NODE_STRING && bn->u.str.len > 0)
		imported = arena_strndup(&run->arena, bn->u.str.s,
		    bn->u.str.len);
	else
		imported = arena_printf(&run->arena, "%.*s's Lorebook",
		    (int)card->name.len, card->name.s ? card->name.s : "");
	if (cw.s && cw.len == strlen(imported) &&
	    memcmp(imported, cw.s, cw.len) == 0)
		return true;
	diag_note(run, card->src, card->character_book->span,
	    MSG_CARD_BOOK_UNLINKED, diag_shown(run, imported,
	    strlen(imported)), cw.s && cw.len ? arena_printf(&run->arena,
	    "'%s'", diag_shown(run, cw.s, cw.len)) : "empty");
	return false;
}

/*
 * A --world file is global lore when settings.json's globalSelect names
 * it, chat lore when the chat's metadata does, persona lore when the
 * persona's lorebook is it, character lore when the card's
 * extensions.world or its charLore extra books do -- SillyTavern's
 * getSortedEntries, in that order; a file nothing names is not active,
 * as in SillyTavern (unless worlds_active: seed 002's worldbook_files
 * are global lore when nothing else names them).  A book keeps its own
 * name when it has one; the choice goes by the file's.  The card's
 * embedded book is its character lore when book_imported_linked() says
 * so, unless a --world file is the book it was imported as.
 */
static bool
books(struct tb *t, struct wi_input *wi)
{
	struct run *run = t->run;
	struct arena *a = &run->arena;
	const struct node *wis = t->s.world_info ?
	    tree_get(t->s.world_info, "world_info") : NULL;
	const struct node *global = wis ? tree_get(wis, "globalSelect") :
	    NULL;
	const struct node *chatw = t->chat.meta ?
	    tree_get(t->chat.meta, "world_info") : NULL;
	struct card_text cw = card_world(t->card);
	struct wi_book *v = arena_array(a, t->in->nworlds + 1, sizeof(*v));
	const char *persona = persona_lorebook(t->s.root);
	const struct node *extra = char_lore(wis, t->card_file);
	size_t i, n = 0;
	bool ok = true, linked = false;

	for (i = 0; i < t->in->nworlds; i++) {
		const char *name = world_file_name(a, t->in->worlds[i]);
		struct source *src = run_read(run, t->in->worlds[i], NULL,
		    span_make(0, 0));
		struct world *w = arena_alloc(a, sizeof(*w));

		if (!src || !world_read(run, src, name, w)) {
			ok = false;
			continue;
		}
		if (cw.s && cw.len && strcmp(cw.s, name) == 0)
			linked = true;
		if (tree_has_string(global, name)) {
			v[n].source = WI_SOURCE_GLOBAL;
		} else if (chatw && chatw->kind == NODE_STRING &&
		    strcmp(chatw->u.str.s, name) == 0) {
			v[n].source = WI_SOURCE_CHAT;
		} else if (persona && strcmp(persona, name) == 0) {
			v[n].source = WI_SOURCE_PERSONA;
		} else if ((cw.s && cw.len && strcmp(cw.s, name) == 0) ||
		    tree_has_string(extra, name)) {
			v[n].source = WI_SOURCE_CHARACTER;
		} else if (t->in->worlds_active) {
			v[n].source = WI_SOURCE_GLOBAL;
		} else {
			continue;
		}
		v[n++].world = w;
	}
	if (t->card->character_book && !linked &&
	    book_imported_linked(run, t->card, cw)) {
		struct world *w = arena_alloc(a, sizeof(*w));
		const char *name = arena_strndup(a, cw.s, cw.len);

		if (world_from_node(run, t->card->character_book, name, w)) {
			v[n].source = WI_SOURCE_CHARACTER;
			v[n++].world = w;
		} else {
			ok = false;
		}
	}
	wi->books = v;
	wi->nbooks = n;
	return ok;
}

static enum world_trigger
trigger(const char *type)
{
	static const char *const names[] = { "normal", "continue",
		"impersonate", "swipe", "regenerate", "quiet" };
	size_t i;

	for (i = 0; type && i < LEN(names); i++)
		if (strcmp(type, names[i]) == 0)
			return (enum world_trigger)i;
	return WORLD_TRIGGER_NORMAL;
}

/* An activated entry's content through the WORLD_INFO regex scripts,
 * as SillyTavern runs them: per entry, before it joins its slot. */
static const char *
entry_regex(void *ctx, const char *text, int64_t depth)
{
	struct tb_text x;

	tb_text_init(&x, TB_PROMPT, TB_NO_ITEM);
	x.place = REGEX_WORLD_INFO;
	if (depth != WI_NO_DEPTH && depth >= INT_MIN + 1 && depth <= INT_MAX)
		x.depth = (int)depth;
	return tb_rewrite(ctx, &x, ITEM_STAGE_REGEX_POST,
	    ITEM_STAGE_REGEX_POST, text);
}

/* World info's budget (wi.h): SillyTavern counts a text there as a
 * system message of that content alone, one less (countTokensOpenAIAsync
 * with full): for an OpenAI encoding 3 + "system" + the text + 3, less 1;
 * for a claude name the Claude prompt "\n\nHuman: " and the text, less
 * 1; for a SentencePiece model "system", two line breaks and the text,
 * less 1 (its line breaks never join a neighbour, so a text that
 * continues one after a line break adds its tokens without the dummy
 * prefix).  An empty text is 0. */
static int64_t
count_text(void *ctx, const char *text, size_t len, bool start)
{
	const struct tb *t = ctx;

	if (!start)
		return (int64_t)tokenizer_count_more(t->tok, text, len);
	if (len == 0)
		return 0;
	if (t->tok == TOKENIZER_CLAUDE)
		return (int64_t)tb_claude_tokens(NULL, text, len, 1);
	if (tokenizer_is_sp(t->tok)) {
		struct buf b = BUF_INIT;
		size_t n;

		buf_puts(&b, "system\n\n");
		buf_put(&b, text, len);
		n = tokenizer_count(t->tok, b.data, b.len);
		buf_free(&b);
		return n > 1 ? (int64_t)n - 1 : 0;
	}
	return (int64_t)(tokenizer_count(t->tok, text, len) +
	    tokenizer_count(t->tok, "system", 6) + 5);
}

/* The character's tag ids, as SillyTavern's tag filter reads them:
 * settings.json's tag_map list under the avatar's file name (the card's
 * name without its extension, plus ".png").  With no list there (no
 * settings, no entry, not an array) the character has no tags, as
 * SillyTavern makes the entry an empty list once the character is
 * shown.  The card's own tags are names, not ids, and are not read. */
static void
char_tag_ids(struct tb *t, struct wi_input *wi)
{
	struct arena *a = &t->run->arena;
	const struct node *map, *list = NULL;
	size_t i, n = 0;

	if (t->s.root && t->card_file &&
	    (map = tree_get(t->s.root, "tag_map")) &&
	    map->kind == NODE_TABLE)
		list = tree_get(map, arena_printf(a, "%s.png", t->card_file));
	if (list && list->kind != NODE_ARRAY)
		list = NULL;
	wi->char_tags = (const char *const *)arena_array(a,
	    (list ? list->u.array.n : 0) + 1, sizeof(char *));
	for (i = 0; list && i < list->u.array.n; i++)
		if (list->u.array.items[i]->kind == NODE_STRING)
			((const char **)wi->char_tags)[n++] =
			    list->u.array.items[i]->u.str.s;
	wi->nchar_tags = n;
}

bool
tb_wi_run(struct tb *t, struct wi_input *wi)
{
	struct run *run = t->run;
	struct wi_settings *ws = arena_alloc(&run->arena, sizeof(*ws));
	struct wi_timed *timed = arena_alloc(&run->arena, sizeof(*timed));
	const struct node *tw;
	int64_t maxctx = 0;

	if (!books(t, wi))
		return false;
	wi_settings_default(ws);
	if (t->s.root || t->s.world_info)
		wi_settings_from_node(run, t->s.root ? t->s.root :
		    t->s.world_info, ws, &maxctx);
	wi->settings = ws;
	wi->max_context = t->p->max_context - t->p->max_tokens;
	wi->char_filename = t->card_file;
	char_tag_ids(t, wi);
	wi->trigger = trigger(t->type);
	memset(timed, 0, sizeof(*timed));
	if (t->chat.meta &&
	    (tw = tree_get(t->chat.meta, "timedWorldInfo"))) {
		wi_timed_from_node(run, tw, timed);
		wi->timed = timed;
	}
	wi->substitute = substitute;
	wi->substitute_ctx = t;
	wi->count_tokens = count_text;
	wi->count_tokens_ctx = t;
	wi->regex = entry_regex;
	wi->regex_ctx = t;
	wi->seed = t->in->seed ? strtoull(t->in->seed, NULL, 10) : 0;
	return wi_run(run, wi, t->wi);
}

bool
tb_item_world(struct tb *t, uint32_t it, int pos, int64_t depth, int role)
{
	struct item *to = &t->rep->items[it];
	size_t i;

	for (i = 0; t->wi && i < t->wi->nactivated; i++) {
		const struct world_entry *e = t->wi->activated[i]->entry;

		if (e->position != pos || (pos == WORLD_DEPTH &&
		    (e->depth_at != depth || e->role != role)))
			continue;
		to->has_src = true;
		to->src = e->src;
		to->span = e->span;
		return true;
	}
	return false;
}
