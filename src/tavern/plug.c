#include "tavern/plug.h"

#include <limits.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"
#include "tavern/card.h"
#include "tavern/ftav.h"
#include "tavern/macro.h"
#include "world/wi.h"
#include "world/world.h"

/* ---- tokens: what SillyTavern counts for an unknown OpenAI model ---- */

static size_t
count_tokens(void *ctx, const char *role, const char *name, const char *text,
    size_t len)
{
	const struct tavern_plug *p = ctx;
	size_t n = 3;   /* gpt-3.5-turbo's tokens per message */

	if (role)
		n += tokenizer_count(p->kind, role, strlen(role));
	n += tokenizer_count(p->kind, text, len);
	if (name && *name)
		n += tokenizer_count(p->kind, name, strlen(name)) + 1;
	return n;
}

static int64_t
count_text(void *ctx, const char *text, size_t len)
{
	const struct tavern_plug *p = ctx;

	return (int64_t)tokenizer_count(p->kind, text, len);
}

/* ---- regex scripts ---- */

static bool
macro_cb(void *ctx, enum regex_macro_use use, const char *s, size_t len,
    struct buf *out)
{
	struct tavern_plug *p = ctx;

	/* FIND_ESCAPED would escape only the macros' values; the legacy
	 * engine gives the whole text, so it reads as FIND (documented). */
	(void)use;
	if (!p->macros) {
		buf_put(out, s, len);
		return true;
	}
	buf_puts(out, macro_expand(p->run, p->macros, s, len, NULL));
	return true;
}

static bool
add_file(struct run *run, struct regex_set *set, const char *path)
{
	struct source *src = run_read(run, path, NULL, span_make(0, 0));
	struct node *n, *ft;

	if (!src || !json_parse(run, src, &n))
		return false;
	/* fast-tavern's rules (targets, view) as SillyTavern's scripts. */
	if ((ft = ftav_regex_for_tavern(run, n)) != NULL)
		n = ft;
	return regex_set_add(run, set, REGEX_GLOBAL, n);
}

static bool
regex_load(void *ctx, struct run *run, const struct tavern_regex_scope *sc)
{
	struct tavern_plug *p = ctx;
	bool ok = true;
	size_t i;

	p->run = run;
	p->macros = sc->macros;
	if (sc->global)
		ok &= regex_set_add(run, &p->scripts, REGEX_GLOBAL, sc->global);
	for (i = 0; i < sc->nfiles; i++)
		ok &= add_file(run, &p->scripts, sc->files[i]);
	if (sc->preset && sc->preset_allowed)
		ok &= regex_set_add(run, &p->scripts, REGEX_PRESET, sc->preset);
	if (sc->scoped && sc->scoped_allowed)
		ok &= regex_set_add(run, &p->scripts, REGEX_SCOPED, sc->scoped);
	p->loaded = true;
	return ok;
}

/* The call a prompt's text is: what the model reads (SillyTavern's
 * isPrompt), or for --view user_view what a chat shows (isMarkdown:
 * the display-only scripts instead of the prompt-only ones). */
static enum regex_call
call_kind(const struct tavern_plug *p)
{
	return p->user_view ? REGEX_MARKDOWN : REGEX_PROMPT;
}

static const char *
regex_run(void *ctx, struct run *run, enum tavern_regex_place place,
    bool is_prompt, int depth, const char *text)
{
	struct tavern_plug *p = ctx;
	struct regex_macros m = { macro_cb, p };
	struct buf out = BUF_INIT, fired = BUF_INIT;
	const char *r = text;
	size_t len;

	p->fired = NULL;
	if (!p->loaded || !text || !*text)
		return text;
	p->run = run;
	len = strlen(text);
	p->scripts.fired = &fired;
	if (regex_apply(run, &p->scripts, (enum regex_placement)place,
	    is_prompt ? call_kind(p) : 0, depth == TAVERN_NO_DEPTH ?
	    REGEX_NO_DEPTH : depth, text, len, &out, &m) &&
	    (out.len != len || memcmp(out.data, text, len) != 0)) {
		r = arena_strndup(&run->arena, out.data ? out.data : "",
		    out.len);
		if (fired.len)
			p->fired = arena_strndup(&run->arena, fired.data,
			    fired.len);
	}
	p->scripts.fired = NULL;
	buf_free(&fired);
	buf_free(&out);
	return r;
}

static const char *
regex_fired(void *ctx)
{
	const struct tavern_plug *p = ctx;

	return p->fired;
}

static bool
fixed_cb(void *ctx, const char *s, size_t n)
{
	const struct tavern_plug *p = ctx;

	return !p->macros || macro_fixed(p->macros, s, n);
}

static bool
regex_pure(void *ctx, enum tavern_regex_place place, const char *text)
{
	struct tavern_plug *p = ctx;
	enum regex_placement pl = (enum regex_placement)place;
	unsigned char *k;

	if (!p->loaded || !text)
		return true;
	if ((unsigned)place >= LEN(p->pure))
		return regex_set_pure(&p->scripts, pl, call_kind(p), text,
		    strlen(text), fixed_cb, p);
	/* The scripts' part of the answer is the same for every text. */
	k = &p->pure[place];
	if (!*k)
		*k = regex_set_pure(&p->scripts, pl, call_kind(p), "{", 1,
		    fixed_cb, p) ? 1 : regex_set_pure(&p->scripts, pl,
		    call_kind(p), "", 0, fixed_cb, p) ? 2 : 3;
	return *k == 1 || (*k == 2 && !strchr(text, '{'));
}

/* ---- world info ---- */

struct wi_ctx {
	struct run *run;
	struct macro_env *macros;
	const struct tavern_wi_scan *in;
};

static const char *
substitute(void *ctx, const char *text, const struct wi_book *book,
    const struct world_entry *e)
{
	struct wi_ctx *w = ctx;
	const char *was, *r;

	if (!w->macros)
		return text;
	was = w->macros->asset;
	w->macros->asset = arena_printf(&w->run->arena, "world info entry "
	    "%lld of book '%s'", (long long)e->uid, book->world->name);
	r = macro_expands(w->run, w->macros, text);
	w->macros->asset = was;
	return r;
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
 * A --world file is global lore when settings.json's globalSelect names
 * it, chat lore when the chat's metadata does, character lore when the
 * card's extensions.world does; a file nothing names is not active, as
 * in SillyTavern (unless worlds_active: seed 002's worldbook_files are
 * global lore when nothing else names them).  The card's embedded book is its character lore unless
 * a --world file is the book it was imported as.
 */
static bool
books(struct run *run, const struct tavern_wi_scan *in, bool active,
    struct wi_book **out, size_t *nout)
{
	struct arena *a = &run->arena;
	const struct node *wi = in->wi_settings ?
	    tree_get(in->wi_settings, "world_info") : NULL;
	const struct node *global = wi ? tree_get(wi, "globalSelect") : NULL;
	const struct node *chatw = in->chat_metadata ?
	    tree_get(in->chat_metadata, "world_info") : NULL;
	struct card_text cw = { NULL, 0 };
	struct wi_book *v = arena_array(a, in->nworlds + 1, sizeof(*v));
	size_t i, n = 0;
	bool ok = true, linked = false;
	const char *persona;
	const struct node *extra;

	if (in->card)
		cw = card_world(in->card);
	persona = persona_lorebook(in->settings);
	extra = char_lore(wi, in->card_file);
	for (i = 0; i < in->nworlds; i++) {
		const char *name = world_file_name(a, in->worlds[i]);
		struct source *src = run_read(run, in->worlds[i], NULL,
		    span_make(0, 0));
		struct world *w = arena_alloc(a, sizeof(*w));

		if (!src || !world_read(run, src, name, w)) {
			ok = false;
			continue;
		}
		/* A book keeps its own name when it has one; the choice of
		 * source goes by the file's. */
		/* SillyTavern's getSortedEntries: a book is global when
		 * globalSelect names it, else the chat's, else the
		 * persona's, else the character's (extensions.world or
		 * one of its world_info.charLore extra books). */
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
		} else if (active) {
			/* Seed 002's worldbook_files: books in effect. */
			v[n].source = WI_SOURCE_GLOBAL;
		} else {
			continue;
		}
		v[n++].world = w;
	}
	if (in->card && in->card->character_book && !linked) {
		struct world *w = arena_alloc(a, sizeof(*w));
		const char *name = cw.s && cw.len ? arena_strndup(a, cw.s,
		    cw.len) : in->card_file ? in->card_file : "card";

		if (world_from_node(run, in->card->character_book, name, w)) {
			v[n].source = WI_SOURCE_CHARACTER;
			v[n++].world = w;
		} else {
			ok = false;
		}
	}
	*out = v;
	*nout = n;
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
	struct wi_ctx *w = ctx;
	const struct tavern_regex *re = w->in->regex;

	if (!re || !re->apply || !text)
		return text;
	return re->apply(re->ctx, w->run, TAVERN_RE_WORLD_INFO, true,
	    depth == WI_NO_DEPTH || depth < INT_MIN + 1 || depth > INT_MAX ?
	    TAVERN_NO_DEPTH : (int)depth, text);
}

static const char *
nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

/* wi_input's message_text: its messages are oldest first. */
static const char *
wi_text(void *ctx, size_t i)
{
	const struct wi_ctx *wc = ctx;

	return wc->in->text(wc->in->text_ctx, wc->in->nmsgs - 1 - i);
}

/* The character's tag ids, as SillyTavern's tag filter reads them:
 * settings.json's tag_map list under the avatar's file name (the card's
 * name without its extension, plus ".png").  With no list there (no
 * settings, no entry, not an array) the character has no tags, as
 * SillyTavern makes the entry an empty list once the character is
 * shown.  The card's own tags are names, not ids, and are not read. */
static void
char_tag_ids(struct arena *a, const struct tavern_wi_scan *in,
    struct wi_input *wi)
{
	const struct node *map, *list = NULL;
	size_t i, n = 0;

	if (in->settings && in->card_file &&
	    (map = tree_get(in->settings, "tag_map")) &&
	    map->kind == NODE_TABLE)
		list = tree_get(map, arena_printf(a, "%s.png", in->card_file));
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

static bool
wi_scan(void *ctx, struct run *run, const struct tavern_wi_scan *in,
    struct tavern_wi_result *out)
{
	struct tavern_plug *p = ctx;
	struct arena *a = &run->arena;
	struct wi_ctx wc = { run, in->macros, in };
	struct wi_settings ws;
	struct wi_input wi;
	struct wi_result *r;
	struct wi_timed timed;
	struct wi_message *msgs;
	const char *inject[1];
	const struct node *tw;
	int64_t maxctx = 0;
	size_t i;

	memset(&wi, 0, sizeof(wi));
	if (!books(run, in, p->worlds_active, (struct wi_book **)&wi.books,
	    &wi.nbooks))
		return false;
	wi_settings_default(&ws);
	if (in->settings || in->wi_settings)
		wi_settings_from_node(run, in->settings ? in->settings :
		    in->wi_settings, &ws, &maxctx);
	msgs = arena_array(a, in->nmsgs + 1, sizeof(*msgs));
	for (i = 0; i < in->nmsgs; i++) {
		msgs[i].name = in->msgs[in->nmsgs - 1 - i].name;
		msgs[i].text = in->msgs[in->nmsgs - 1 - i].text;
	}
	wi.messages = msgs;
	wi.nmessages = in->nmsgs;
	if (in->text) {
		wi.message_text = wi_text;
		wi.message_text_ctx = &wc;
	}
	wi.settings = &ws;
	wi.max_context = in->max_context;
	wi.char_filename = in->card_file;
	char_tag_ids(a, in, &wi);
	wi.match_text[WORLD_MATCH_PERSONA] = in->persona;
	wi.match_text[WORLD_MATCH_DESCRIPTION] = in->description;
	wi.match_text[WORLD_MATCH_PERSONALITY] = in->personality;
	wi.match_text[WORLD_MATCH_DEPTH_PROMPT] = in->depth_prompt;
	wi.match_text[WORLD_MATCH_SCENARIO] = in->scenario;
	wi.match_text[WORLD_MATCH_CREATOR_NOTES] = in->creator_notes;
	wi.trigger = trigger(in->type);
	if (in->inject && *in->inject) {
		inject[0] = in->inject;
		wi.inject = inject;
		wi.ninject = 1;
	}
	memset(&timed, 0, sizeof(timed));
	if (in->chat_metadata &&
	    (tw = tree_get(in->chat_metadata, "timedWorldInfo"))) {
		wi_timed_from_node(run, tw, &timed);
		wi.timed = &timed;
	}
	wi.substitute = substitute;
	wi.substitute_ctx = &wc;
	wi.count_tokens = count_text;
	wi.count_tokens_ctx = p;
	wi.regex = entry_regex;
	wi.regex_ctx = &wc;
	wi.seed = in->seed;
	r = arena_alloc(a, sizeof(*r));
	if (!wi_run(run, &wi, r))
		return false;
	out->detail = r;
	out->timed = wi_timed_to_node(a, &r->timed);
	out->before = nonempty(r->before);
	out->after = nonempty(r->after);
	out->an_top = nonempty(r->an_top);
	out->an_bottom = nonempty(r->an_bottom);
	out->em_top = r->em_top;
	out->nem_top = r->nem_top;
	out->em_bottom = r->em_bottom;
	out->nem_bottom = r->nem_bottom;
	out->depth = arena_array(a, r->ndepth + 1, sizeof(*out->depth));
	out->ndepth = 0;
	for (i = 0; i < r->ndepth; i++) {
		struct tavern_wi_depth *d = &out->depth[out->ndepth];

		/* A group opened by an entry without a depth has none
		 * (NaN in SillyTavern): it is never injected. */
		if (r->depth[i].depth < 0)
			continue;
		d->depth = r->depth[i].depth;
		d->role = r->depth[i].role;
		d->text = r->depth[i].text;
		out->ndepth++;
	}
	out->outlets = arena_array(a, r->noutlets + 1, sizeof(*out->outlets));
	for (i = 0; i < r->noutlets; i++) {
		out->outlets[i].name = r->outlets[i].name;
		out->outlets[i].text = r->outlets[i].text;
	}
	out->noutlets = r->noutlets;
	return true;
}

void
tavern_plug_init(struct tavern_plug *p, struct tavern_seams *s,
    const char *model)
{
	memset(p, 0, sizeof(*p));
	p->kind = tokenizer_for_model(model);
	regex_set_init(&p->scripts);
	s->tokens.count = count_tokens;
	s->tokens.ctx = p;
	s->tokens.name = tokenizer_name(p->kind);
	s->wi.scan = wi_scan;
	s->wi.ctx = p;
	s->regex.load = regex_load;
	s->regex.apply = regex_run;
	s->regex.pure = regex_pure;
	s->regex.fired = regex_fired;
	s->regex.ctx = p;
}

void
tavern_plug_free(struct tavern_plug *p)
{
	regex_set_free(&p->scripts);
	tokenizer_release();
}

/* ---- the scripts as one list (seed 002's merged_regex) ---- */

struct node *
tavern_plug_rules(struct arena *a, const struct tavern_plug *p)
{
	static const char *const scopes[] = { "global", "preset",
	    "scoped" };
	struct node *res = tree_table(a), *rules = tree_array(a);
	struct node *meta, *order, *counts;
	size_t n[LEN(scopes)] = { 0 }, i;

	for (i = 0; p->loaded && i < p->scripts.n; i++) {
		const struct regex_script *sc = &p->scripts.v[i];

		n[sc->scope]++;
		tree_push(a, rules, tree_copy(a, sc->node));
	}
	tree_put(a, res, "regex_rules", rules);
	meta = tree_put(a, res, "meta", tree_table(a));
	order = tree_put(a, meta, "order", tree_array(a));
	counts = tree_put(a, meta, "input_counts", tree_table(a));
	for (i = 0; i < LEN(scopes); i++) {
		tree_push(a, order, tree_str(a, scopes[i]));
		tree_put(a, counts, scopes[i], tree_int(a, (int64_t)n[i]));
	}
	/* SillyTavern runs every script it holds, duplicates too. */
	tree_put(a, meta, "dedup_removed_count", tree_int(a, 0));
	tree_put(a, meta, "total", tree_int(a, (int64_t)rules->u.array.n));
	return res;
}
