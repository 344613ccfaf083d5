#include "tavern/tbuild.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
#include "tavern/card.h"
#include "tavern/field.h"
#include "tavern/macro.h"
#include "tavern/preset.h"
#include "tavern/settings.h"
#include "tavern/tchat.h"
#include "tavern/titem.h"

/* Extension prompt positions (SillyTavern's extension_prompt_types). */
enum { EXT_IN_PROMPT = 0, EXT_IN_CHAT = 1, EXT_BEFORE_PROMPT = 2 };

static const char *const roles[] = { "system", "user", "assistant" };

/* A message while it is being assembled. */
struct tmsg {
	const char *role;
	const char *name;               /* NULL: none */
	const char *content;
	const char *id;                 /* newMainChat, newChat, ... or NULL */
	const uint32_t *items;          /* its items (titem.h) */
	uint32_t nitems;
	/* A chat message whose content is NULL until resolve() makes it:
	 * its index in the chat and its item. */
	size_t chat;
	uint32_t chat_item;
	bool blocks;                    /* sent as a list of text blocks */
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
	const struct tavern_seams *seams;
	struct preset *p;
	struct settings s;
	struct card *card;
	struct tchat chat;
	struct macro_env env;
	struct macro_vars locals, globals;
	const char *type, *user_name, *char_name, *card_file;
	/* card fields, substituted once */
	const char *description, *personality, *scenario, *mes_example,
	    *system_prompt, *phi, *depth_prompt, *creator_notes, *persona;
	struct ext *ext;
	size_t next, extcap;
	struct tavern_wi_result wi;
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
	struct tavern_report *rep;
	enum out_format format;         /* the body's: anthropic, gemini
	                                 * reshape it */
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
};

static void
push(struct run *run, struct tlist *l, const char *role, const char *name,
    const char *content, const char *id)
{
	struct tmsg m;

	m.role = role;
	m.name = name;
	m.content = content;
	m.id = id;
	m.items = NULL;
	m.nitems = 0;
	m.chat = 0;
	m.chat_item = 0;
	m.blocks = false;
	m.real = m.prepared = false;
	if (l->n == l->cap)
		l->v = avec_grow(&run->arena, l->v, &l->cap, l->n, l->n + 1,
		    sizeof(*l->v));
	l->v[l->n++] = m;
}

static void
insert_at(struct run *run, struct tlist *l, size_t at, const struct tmsg *m)
{
	if (l->n == l->cap)
		l->v = avec_grow(&run->arena, l->v, &l->cap, l->n, l->n + 1,
		    sizeof(*l->v));
	if (at > l->n)
		at = l->n;
	memmove(&l->v[at + 1], &l->v[at], (l->n - at) * sizeof(*l->v));
	l->v[at] = *m;
	l->n++;
}

static void resolve(struct tb *t, struct tmsg *m);

/* Room in l for n messages in all, allocated once (lists the size of
 * the chat would otherwise grow by copies left in the arena). */
static void
reserve(struct run *run, struct tlist *l, size_t n)
{
	if (n > l->cap)
		l->v = avec_grow(&run->arena, l->v, &l->cap, l->n, n,
		    sizeof(*l->v));
}

static size_t
tokens(struct tb *t, struct tmsg *m)
{
	resolve(t, m);
	return t->seams->tokens.count(t->seams->tokens.ctx, m->role, m->name,
	    m->content, strlen(m->content));
}

/* --- items (titem.h): what was decided about each piece of text --- */

/* The regex scripts that changed the text in the last apply(), or NULL. */
static const char *
fired(struct tb *t)
{
	const struct tavern_regex *re = &t->seams->regex;

	return re->fired ? re->fired(re->ctx) : NULL;
}

static const char *trim(struct arena *a, const char *s);

/* A new item with text raw at every stage; its index. */
static uint32_t
item_add(struct tb *t, const char *id, const char *source, const char *role,
    int64_t depth, const char *raw)
{
	struct tavern_report *r = t->rep;
	struct tavern_item *it;
	size_t k;

	if (r->n == r->cap)
		r->items = avec_grow(&t->run->arena, r->items, &r->cap, r->n,
		    r->n + 1, sizeof(*r->items));
	it = &r->items[r->n];
	memset(it, 0, sizeof(*it));
	it->id = id;
	it->source = source;
	it->role = role;
	it->depth = depth;
	it->message = -1;
	for (k = 0; k < TAVERN_NSTAGES; k++)
		it->text[k] = raw ? raw : "";
	return (uint32_t)r->n++;
}

/* Item i's text from stage k on is s (the text before it when equal, so
 * unchanged stages share one string). */
static void
item_stage(struct tb *t, uint32_t i, enum tavern_stage k, const char *s)
{
	struct tavern_item *it = &t->rep->items[i];
	size_t j;

	if (!s)
		s = "";
	if (k > 0 && strcmp(it->text[k - 1], s) == 0)
		s = it->text[k - 1];
	for (j = k; j < TAVERN_NSTAGES; j++)
		it->text[j] = s;
}

/* Item i is left out for reason (note: NULL or more words). */
static void
item_out(struct tb *t, uint32_t i, const char *reason, const char *note)
{
	t->rep->items[i].reason = reason;
	if (note)
		t->rep->items[i].note = note;
}

/* Item i is empty: as given, or once its macros ran. */
static void
item_empty(struct tb *t, uint32_t i)
{
	const char *raw = t->rep->items[i].text[TAVERN_STAGE_RAW];

	item_out(t, i, "empty", *trim(&t->run->arena, raw) ?
	    "empty after macros" : NULL);
}

static void
item_note(struct tb *t, uint32_t i, const char *note)
{
	t->rep->items[i].note = note;
}

/* An item left out before it had any text of its own. */
static void
item_skip(struct tb *t, const char *id, const char *source, const char *role,
    int64_t depth, const char *raw, const char *reason, const char *note)
{
	item_out(t, item_add(t, id, source, role, depth, raw), reason, note);
}

/* The items of a and then b, in a new array. */
static const uint32_t *
items_cat(struct tb *t, const uint32_t *a, uint32_t na, const uint32_t *b,
    uint32_t nb)
{
	uint32_t *v;

	if (!na)
		return b;
	if (!nb)
		return a;
	v = arena_array(&t->run->arena, (size_t)na + nb, sizeof(*v));
	memcpy(v, a, na * sizeof(*v));
	memcpy(v + na, b, nb * sizeof(*v));
	return v;
}

/* Message m is item i. */
static void
holds(struct tb *t, struct tmsg *m, uint32_t i)
{
	uint32_t *v = arena_array(&t->run->arena, 1, sizeof(*v));

	v[0] = i;
	m->items = v;
	m->nitems = 1;
}

/* The last message of l is item i. */
static void
last_holds(struct tb *t, struct tlist *l, uint32_t i)
{
	holds(t, &l->v[l->n - 1], i);
}

/* push() for a message that is one item. */
static void
push_item(struct tb *t, struct tlist *l, const char *role, const char *name,
    const char *content, const char *id, uint32_t item)
{
	push(t->run, l, role, name, content, id);
	last_holds(t, l, item);
}

/* push() of a copy of m, its items with it. */
static void
push_m(struct run *run, struct tlist *l, const struct tmsg *m)
{
	push(run, l, m->role, m->name, m->content, m->id);
	l->v[l->n - 1].items = m->items;
	l->v[l->n - 1].nitems = m->nitems;
	l->v[l->n - 1].chat = m->chat;
	l->v[l->n - 1].chat_item = m->chat_item;
	l->v[l->n - 1].blocks = m->blocks;
	l->v[l->n - 1].real = m->real;
	l->v[l->n - 1].prepared = m->prepared;
}

/* Count m's tokens, and give each of its items its own count. */
static size_t
count(struct tb *t, struct tmsg *m)
{
	size_t c = tokens(t, m), k;

	for (k = 0; k < m->nitems; k++) {
		struct tavern_item *it = &t->rep->items[m->items[k]];

		it->counted = true;
		it->tokens = m->nitems == 1 ? c : t->seams->tokens.count(
		    t->seams->tokens.ctx, m->role, NULL,
		    it->text[TAVERN_STAGE_REGEX_POST],
		    strlen(it->text[TAVERN_STAGE_REGEX_POST]));
	}
	return c;
}

/* A world-info example entry: its text, trimmed, without the <START>
 * line it usually opens with (the block gets exactly one). */
static const char *trim(struct arena *a, const char *s);
static const char *
em_block(struct arena *a, const char *s)
{
	s = trim(a, s);
	if (strncasecmp(s, "<START>", 7) == 0)
		s = trim(a, s + 7);
	return s;
}

static const char *
sub(struct tb *t, const char *s)
{
	return macro_expands(t->run, &t->env, s);
}

/* sub() of a text the cost-cap diagnostics name as asset. */
static const char *
sub_as(struct tb *t, const char *asset, const char *s)
{
	const char *was = t->env.asset, *r;

	t->env.asset = asset;
	r = sub(t, s);
	t->env.asset = was;
	return r;
}

/* The asset name of the preset's prompt id. */
static const char *
prompt_asset(struct tb *t, const char *id)
{
	return arena_printf(&t->run->arena, "preset '%s', prompt '%s'",
	    t->in->preset ? t->in->preset : "(default)", id);
}

/* JavaScript's String.prototype.trim (ASCII whitespace and NBSP). */
static const char *
trim(struct arena *a, const char *s)
{
	size_t n;

	while (*s && (isspace((unsigned char)*s) ||
	    strncmp(s, "\xc2\xa0", 2) == 0))
		s += isspace((unsigned char)*s) ? 1 : 2;
	n = strlen(s);
	while (n && (isspace((unsigned char)s[n - 1]) || (n >= 2 &&
	    strncmp(s + n - 2, "\xc2\xa0", 2) == 0)))
		n -= isspace((unsigned char)s[n - 1]) ? 1 : 2;
	return arena_strndup(a, s, n);
}

static const char *
strip_cr(struct arena *a, const char *s)
{
	char *r, *w;
	const char *p;

	if (!strchr(s, '\r'))
		return s;
	r = w = arena_strdup(a, s);
	for (p = r; *p; p++)
		if (*p != '\r')
			*w++ = *p;
	*w = '\0';
	return r;
}

/* getCharacterCardFields' baseChatReplace: trim, substitute (without
 * the card macros), collapse newlines if asked, drop \r.  field names
 * the card's field (NULL: the persona description). */
static const char *
card_field(struct tb *t, const char *field, const char *s)
{
	struct arena *a = &t->run->arena;
	const char *r;

	s = trim(a, s);
	if (!*s)
		return "";
	t->env.card_macros = false;
	r = sub_as(t, field ? arena_printf(a, "card '%s', field %s",
	    t->in->card, field) : "the persona description", s);
	t->env.card_macros = true;
	if (t->s.collapse_newlines) {
		char *c = arena_strdup(a, r), *w = c;
		const char *p;

		for (p = c; *p; p++)
			if (!(*p == '\n' && w > c && w[-1] == '\n'))
				*w++ = *p;
		*w = '\0';
		r = c;
	}
	return strip_cr(a, r);
}

static void
ext_add(struct tb *t, const char *key, const char *value, int position,
    int64_t depth, int role)
{
	struct ext e;

	e.key = key;
	e.value = value;
	e.position = position;
	e.depth = depth;
	e.role = role < 0 || role > 2 ? 0 : role;
	e.item = item_add(t, strcmp(key, "2_floating_prompt") == 0 ?
	    "authorsNote" : strcmp(key, "1_memory") == 0 ? "summary" :
	    strcmp(key, "DEPTH_PROMPT") == 0 ?
	    "charDepthPrompt" : strcmp(key, "PERSONA_DESCRIPTION") == 0 ?
	    "personaDescription" : key, strcmp(key, "2_floating_prompt") ==
	    0 || strcmp(key, "1_memory") == 0 ? "chat" :
	    strcmp(key, "DEPTH_PROMPT") == 0 ? "card" :
	    strcmp(key, "PERSONA_DESCRIPTION") == 0 ? "settings" :
	    "world info", roles[e.role], position == EXT_IN_CHAT ? depth : -1,
	    value);
	if (!*trim(&t->run->arena, value))
		item_out(t, e.item, "empty", NULL);
	if (t->next == t->extcap)
		t->ext = avec_grow(&t->run->arena, t->ext, &t->extcap, t->next,
		    t->next + 1, sizeof(*t->ext));
	t->ext[t->next++] = e;
}

static int
ext_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ext *)a)->key,
	    ((const struct ext *)b)->key);
}

/* getExtensionPrompt: the values at (position, depth, role) in sorted
 * key order, trimmed, joined with "\n", substituted.  depth < 0: any.
 * The items joined go to *items (NULL: not wanted). */
static const char *
ext_collect(struct tb *t, int position, int64_t depth, int role,
    const uint32_t **items, uint32_t *nitems)
{
	struct buf b = BUF_INIT;
	const char *r;
	size_t i;
	uint32_t *vi = arena_array(&t->run->arena, t->next + 1,
	    sizeof(*vi)), nv = 0;

	for (i = 0; i < t->next; i++) {
		const struct ext *e = &t->ext[i];
		const char *v;

		if (e->position != position || (depth >= 0 &&
		    e->depth != depth) || (role >= 0 && e->role != role) ||
		    !*e->value)
			continue;
		v = trim(&t->run->arena, e->value);
		if (!*v)
			continue;
		if (b.len)
			buf_putc(&b, '\n');
		buf_puts(&b, v);
		vi[nv++] = e->item;
	}
	buf_putc(&b, '\0');
	r = sub(t, b.data);
	buf_free(&b);
	/* One substitution for the group: its text is the first item's. */
	if (nv)
		item_stage(t, vi[0], TAVERN_STAGE_MACROS, trim(&t->run->arena,
		    r));
	for (i = 1; i < nv; i++)
		item_note(t, vi[i], arena_printf(&t->run->arena, "joined to "
		    "%s and substituted with it", t->rep->items[vi[0]].id));
	if (nv > 1)
		item_note(t, vi[0], "the text of every extension prompt "
		    "joined here");
	if (!*r)
		for (i = 0; i < nv; i++)
			item_empty(t, vi[i]);
	if (items) {
		*items = *r ? vi : NULL;
		*nitems = *r ? nv : 0;
	}
	return r;
}

/* --- inputs --- */

/* A chat of the build's own: a chat file, or a sandbox's messages. */
static bool
chat_given(const struct tavern_input *in)
{
	return in->chat || in->has_msgs;
}

/* The sandbox's messages as the chat (tbuild.h: struct tavern_msg). */
static void
sandbox_chat(struct tb *t)
{
	const struct tavern_input *in = t->in;
	const char *user = in->persona_name ? in->persona_name :
	    t->s.user_name;
	size_t i;

	for (i = 0; i < in->nmsgs; i++) {
		const struct tavern_msg *m = &in->msgs[i];
		bool is_user = strcmp(m->role, "user") == 0;

		tchat_add(t->run, &t->chat, m->name ? m->name : is_user ?
		    user : t->card->name.s, m->text, is_user);
		t->chat.msgs[t->chat.n - 1].narrator =
		    t->chat.all[t->chat.nall - 1].narrator =
		    strcmp(m->role, "system") == 0;
	}
}

static bool
read_inputs(struct tb *t)
{
	struct run *run = t->run;
	const struct tavern_input *in = t->in;
	bool ok = true;

	if (!in->card) {
		diag_plain(run, DIAG_ERROR, MSG_TAVERN_NO_CARD,
		    in->preset ? "--preset" : in->chat ? "--chat" :
		    "a SillyTavern build");
		return false;
	}
	ok &= settings_read(run, in->settings, &t->s);
	ok &= card_read(run, in->card, &t->card);
	if (in->preset)
		ok &= preset_read(run, in->preset, &t->p);
	else
		ok &= preset_read(run, NULL, &t->p);
	ok &= tchat_read(run, in->chat, &t->chat);
	if (ok && in->has_msgs)
		sandbox_chat(t);
	return ok;
}

/* {{authorsNote}} (the chat's note, or the default a new chat takes),
 * {{charAuthorsNote}} (the character's note in extension_settings.note
 * .chara, used or not), {{defaultAuthorsNote}}. */
static void
note_macros(struct tb *t)
{
	const struct node *meta = t->chat.meta, *v;
	size_t i;

	t->env.default_authors_note = t->s.note_default;
	v = meta ? tree_get(meta, "note_prompt") : NULL;
	t->env.authors_note = v && v->kind == NODE_STRING ? v->u.str.s :
	    t->s.note_default;
	for (i = 0; t->s.note_chara && t->s.note_chara->kind == NODE_ARRAY &&
	    i < t->s.note_chara->u.array.n; i++) {
		const struct node *c = t->s.note_chara->u.array.items[i];
		const struct node *name = tree_get(c, "name");
		const struct node *prompt = tree_get(c, "prompt");

		if (name && name->kind == NODE_STRING &&
		    strcmp(name->u.str.s, t->card_file) == 0) {
			t->env.char_authors_note = prompt && prompt->kind ==
			    NODE_STRING ? prompt->u.str.s : "";
			break;
		}
	}
}

static void
setup_env(struct tb *t)
{
	struct run *run = t->run;
	const struct node *vars = NULL;
	const char *base, *dot;
	int64_t ms;

	t->type = t->in->type ? t->in->type : "normal";
	t->user_name = t->in->persona_name ? t->in->persona_name :
	    t->s.user_name;
	t->char_name = t->card->name.s;
	base = strrchr(t->in->card, '/');
	base = base ? base + 1 : t->in->card;
	dot = strrchr(base, '.');
	t->card_file = arena_strndup(&run->arena, base, dot ?
	    (size_t)(dot - base) : strlen(base));
	if (t->in->persona)
		t->s.persona = t->in->persona;

	memset(&t->env, 0, sizeof(t->env));
	t->env.user = t->user_name;
	t->env.char_name = t->char_name;
	t->env.model = NULL;
	t->env.last_message_id = -1;
	t->env.max_prompt = (long)(t->p->max_context - t->p->max_tokens);
	t->env.card_macros = true;
	if (t->chat.meta)
		vars = tree_get(t->chat.meta, "variables");
	macro_vars_load(run, &t->locals, vars);
	macro_vars_load(run, &t->globals, t->s.global_vars);
	macro_vars_load(run, &t->locals, t->in->vars);
	macro_vars_load(run, &t->globals, t->in->global_vars);
	t->env.locals = &t->locals;
	t->env.globals = &t->globals;
	note_macros(t);
	if (t->in->now && clock_parse(t->in->now, &ms))
		t->env.now_ms = ms;
	else
		t->env.now_ms = clock_now_ms();
	t->env.rng = t->in->seed ? strtoull(t->in->seed, NULL, 10) :
	    (uint64_t)t->env.now_ms;
	t->env.rng = t->env.rng * 0x9e3779b97f4a7c15ULL + 1;
	{
		const struct node *h = t->chat.meta ?
		    tree_get(t->chat.meta, "chat_id_hash") : NULL;

		if (h && h->kind == NODE_INT)
			t->env.chat_id_hash = (uint64_t)h->u.i;
		else
			t->env.chat_id_hash = macro_cyrb53(t->chat.id,
			    strlen(t->chat.id));
	}
}

static void example_blocks(struct tb *t, struct tlist *blocks_out);

static void
card_fields(struct tb *t)
{
	const struct node *sc = t->chat.meta ? tree_get(t->chat.meta,
	    "scenario") : NULL;
	struct card_depth_prompt dp;

	t->description = card_field(t, "description",
	    t->card->description.s);
	t->personality = card_field(t, "personality",
	    t->card->personality.s);
	t->scenario = card_field(t, "scenario", sc &&
	    sc->kind == NODE_STRING && sc->u.str.len ? sc->u.str.s :
	    t->card->scenario.s);
	t->mes_example = card_field(t, "mes_example",
	    t->card->mes_example.s);
	t->system_prompt = card_field(t, "system_prompt",
	    t->card->system_prompt.s);
	t->phi = card_field(t, "post_history_instructions",
	    t->card->post_history_instructions.s);
	t->creator_notes = card_field(t, "creator_notes",
	    t->card->creator_notes.s);
	t->depth_prompt = card_depth_prompt(t->card, &dp) ?
	    card_field(t, "extensions.depth_prompt.prompt", dp.prompt.s) : "";
	t->persona = card_field(t, NULL, t->s.persona);

	t->env.description = t->description;
	t->env.personality = t->personality;
	t->env.scenario = t->scenario;
	t->env.persona = t->persona;
	t->env.mes_examples_raw = t->mes_example;
	{
		/* {{mesExamples}}: the blocks, each under "<START>\n" */
		struct tlist blocks = { NULL, 0, 0 };
		struct buf b = BUF_INIT;
		size_t i;

		example_blocks(t, &blocks);
		for (i = 0; i < blocks.n; i++)
			buf_puts(&b, blocks.v[i].content);
		buf_putc(&b, '\0');
		t->env.mes_examples = arena_strdup(&t->run->arena, b.data);
		buf_free(&b);
	}
	t->env.char_prompt = t->s.prefer_char_prompt ? t->system_prompt : "";
	t->env.char_instruction = t->s.prefer_char_instructions ? t->phi : "";
	t->env.char_depth_prompt = t->depth_prompt;
	t->env.creator_notes = t->creator_notes;
	t->env.char_version = t->card->character_version.s;
}

static const char *
base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* Hand the regex seam its scripts. */
static bool
regex_scope(struct tb *t)
{
	const struct node *ext = t->s.extensions, *pa, *pext;
	struct tavern_regex_scope sc;
	const char *pname = "";

	if (!t->seams->regex.load)
		return true;
	memset(&sc, 0, sizeof(sc));
	sc.global = t->s.regex;
	pext = tree_get(t->p->root, "extensions");
	if (pext && pext->kind == NODE_TABLE)
		sc.preset = tree_get(pext, "regex_scripts");
	if (t->in->preset) {
		const char *b = base_name(t->in->preset), *dot = strrchr(b, '.');

		pname = dot ? arena_strndup(&t->run->arena, b,
		    (size_t)(dot - b)) : b;
	}
	pa = ext && ext->kind == NODE_TABLE ?
	    tree_get(ext, "preset_allowed_regex") : NULL;
	sc.preset_allowed = pa && pa->kind == NODE_TABLE &&
	    tree_has_string(tree_get(pa, "openai"), pname);
	sc.scoped = card_regex_scripts(t->card);
	sc.scoped_allowed = ext && ext->kind == NODE_TABLE &&
	    tree_has_string(tree_get(ext, "character_allowed_regex"),
	    base_name(t->in->card));
	sc.files = t->in->regex;
	sc.nfiles = t->in->nregex;
	sc.macros = &t->env;
	return t->seams->regex.load(t->seams->regex.ctx, t->run, &sc);
}

/* The Summarize extension's memory of the first n messages of c: the
 * newest extra.memory but the last message's ("" when none). */
static const char *
latest_memory(const struct tchat *c, size_t n)
{
	for (; n > 1; n--)
		if (c->all[n - 2].memory)
			return c->all[n - 2].memory;
	return "";
}

/*
 * The chat macros, read from SillyTavern's chat array (hidden messages
 * included): {{lastMessage}} and kin skip a swipe in progress (its
 * swipe_id past its swipes), {{lastSwipeId}} and {{currentSwipeId}} do
 * not; {{summary}} is the newest extra.memory but the last message's;
 * {{firstDisplayedMessageId}} is the first of the power_user
 * chat_truncation newest messages as the chat was opened.
 */
static void
chat_macros(struct tb *t)
{
	struct arena *a = &t->run->arena;
	const struct tchat *c = &t->chat;
	size_t i, n = c->nall;
	long last = -1, user = -1, chr = -1;

	t->env.last_message = t->env.last_user_message =
	    t->env.last_char_message = NULL;
	for (i = n; i > 0; i--) {
		const struct tchat_msg *m = &c->all[i - 1];

		if (t->swiping && i == n)
			continue;       /* a swipe in progress */
		if (last < 0)
			last = (long)(i - 1);
		if (user < 0 && m->is_user && !m->hidden)
			user = (long)(i - 1);
		if (chr < 0 && !m->is_user && !m->hidden)
			chr = (long)(i - 1);
	}
	t->env.last_message_id = last;
	if (last >= 0)
		t->env.last_message = c->all[last].text;
	if (user >= 0)
		t->env.last_user_message = c->all[user].text;
	if (chr >= 0)
		t->env.last_char_message = c->all[chr].text;
	if (n) {
		const struct tchat_msg *m = &c->all[n - 1];
		int64_t id = t->swiping ? m->nswipes : m->swipe_id;
		int64_t ns = m->nswipes;

		/* Shown, a reply gets one swipe (its text) if it had
		 * none. */
		if (!m->is_user && !t->swiping) {
			if (ns < 0)
				ns = 1;
			if (id < 0)
				id = 0;
		}
		/* Number(undefined) + 1 */
		t->env.current_swipe_id = id < 0 ? "NaN" :
		    arena_printf(a, "%lld", (long long)id + 1);
		t->env.last_swipe_id = ns < 0 ? "" :
		    arena_printf(a, "%lld", (long long)ns);
	}
	t->env.summary = t->s.memory_on ? latest_memory(c, n) : NULL;
	if (n)
		t->env.first_displayed_id = arena_printf(a, "%zu",
		    t->s.chat_truncation > 0 && t->nloaded >
		    (size_t)t->s.chat_truncation ? t->nloaded -
		    (size_t)t->s.chat_truncation : 0);
	t->env.gen_type = t->type;
	{
		const struct node *v = c->meta ? tree_get(c->meta,
		    "lastInContextMessageId") : NULL;

		if (v && v->kind == NODE_INT)
			t->env.first_included_id = arena_printf(a, "%lld",
			    (long long)v->u.i);
		else if (v && v->kind == NODE_STRING)
			t->env.first_included_id = v->u.str.s;
	}
}

/* A new chat starts with the greeting; then the message typed. */
static bool
chat_messages(struct tb *t)
{
	struct run *run = t->run;
	const struct tavern_regex *re = &t->seams->regex;
	size_t i;

	/* Each message's text before regex-post: as stored, unless the
	 * greeting or the message typed, or the first one, below. */
	t->craw = arena_array(&run->arena, t->chat.n + 3, sizeof(char *));
	t->cpre = arena_array(&run->arena, t->chat.n + 3, sizeof(char *));
	t->cmac = arena_array(&run->arena, t->chat.n + 3, sizeof(char *));
	t->cpre_by = arena_array(&run->arena, t->chat.n + 3, sizeof(char *));
	for (i = 0; i < t->chat.n; i++)
		t->craw[i] = t->cpre[i] = t->cmac[i] = t->chat.msgs[i].text;
	/* The first message is substituted again at every generation. */
	if (chat_given(t->in) && t->chat.nall) {
		const char *x = sub_as(t, "the chat's first message",
		    t->chat.all[0].text);

		t->chat.all[0].text = x;
		if (!t->chat.all[0].hidden)
			t->cmac[0] = t->chat.msgs[0].text = x;
	}
	if (!chat_given(t->in)) {
		const struct card_text *g = &t->card->first_mes;
		long n = 0;

		if (t->in->greeting) {
			char *end;

			n = strtol(t->in->greeting, &end, 10);
			if (*end || n < 0 || (size_t)n >
			    t->card->alternate_greetings.n) {
				diag_plain(run, DIAG_ERROR, MSG_TAVERN_GREETING,
				    t->in->greeting,
				    t->card->alternate_greetings.n + 1);
				return false;
			}
		}
		if (n > 0)
			g = &t->card->alternate_greetings.items[n - 1];
		else if (!g->len && t->card->alternate_greetings.n)
			g = &t->card->alternate_greetings.items[0];
		if (g->len) {
			const char *s = re->apply(re->ctx, run,
			    TAVERN_RE_AI_OUTPUT, false, TAVERN_NO_DEPTH,
			    arena_strndup(&run->arena, g->s, g->len));

			t->craw[t->chat.n] = arena_strndup(&run->arena, g->s,
			    g->len);
			t->cpre[t->chat.n] = s;
			t->cpre_by[t->chat.n] = fired(t);
			tchat_add(run, &t->chat, t->char_name, sub_as(t,
			    "the card's greeting", s),
			    false);
			t->cmac[t->chat.n - 1] = t->chat.msgs[t->chat.n -
			    1].text;
			/* With alternate greetings the greeting has them
			 * as its swipes. */
			if (t->card->alternate_greetings.n) {
				struct tchat_msg *gm = &t->chat.all[
				    t->chat.nall - 1];

				gm->nswipes = (int64_t)
				    t->card->alternate_greetings.n +
				    (t->card->first_mes.len ? 1 : 0);
				gm->swipe_id = t->card->first_mes.len ||
				    n == 0 ? n : n - 1;
				t->chat.msgs[t->chat.n - 1] = *gm;
			}
		}
	}
	t->nloaded = t->chat.nall;
	/* The Summarize extension takes its memory as the chat opens. */
	t->memory = latest_memory(&t->chat, t->nloaded);
	/* Regenerate deletes the last message unless it is the user's
	 * (even a hidden one); a swipe keeps it in the chat, the macros
	 * skip it as a swipe in progress, and only the prompt and world
	 * info lose it. */
	if (strcmp(t->type, "regenerate") == 0 && t->chat.nall &&
	    !t->chat.all[t->chat.nall - 1].is_user) {
		const struct tchat_msg *m = &t->chat.all[t->chat.nall - 1];

		if (!m->hidden)
			item_skip(t, arena_printf(&run->arena, "chat#%zu",
			    t->chat.n - 1), "chat", "assistant", 0, m->text,
			    "replaced", "--type regenerate deletes the last "
			    "reply and generates it anew");
		tchat_pop(&t->chat);
	} else if (strcmp(t->type, "swipe") == 0 && t->chat.n &&
	    !t->chat.msgs[t->chat.n - 1].is_user) {
		t->chat.n--;
		t->swiping = true;
		item_skip(t, arena_printf(&run->arena, "chat#%zu", t->chat.n),
		    "chat", "assistant", 0, t->chat.msgs[t->chat.n].text,
		    "replaced", "--type swipe generates a new swipe of the "
		    "last reply");
	}
	/* The message typed is sent only by a normal generation; with
	 * none, send_if_empty is sent as the user's. */
	if (strcmp(t->type, "normal") == 0 && (!t->in->user ||
	    !*t->in->user) && *trim(&run->arena, t->p->send_if_empty)) {
		const char *u = trim(&run->arena, t->p->send_if_empty);
		const char *s = re->apply(re->ctx, run, TAVERN_RE_USER_INPUT,
		    false, TAVERN_NO_DEPTH, u);

		t->craw[t->chat.n] = u;
		t->cpre[t->chat.n] = s;
		tchat_add(run, &t->chat, t->user_name, sub_as(t,
		    "the user's message", s), true);
		t->cmac[t->chat.n - 1] = t->chat.msgs[t->chat.n - 1].text;
		t->typed = true;
	} else if (t->in->user && *t->in->user &&
	    strcmp(t->type, "normal") == 0) {
		const char *s = re->apply(re->ctx, run, TAVERN_RE_USER_INPUT,
		    false, TAVERN_NO_DEPTH, t->in->user);

		t->craw[t->chat.n] = t->in->user;
		t->cpre[t->chat.n] = s;
		t->cpre_by[t->chat.n] = fired(t);
		tchat_add(run, &t->chat, t->user_name, sub_as(t,
		    "the user's message", s), true);
		t->cmac[t->chat.n - 1] = t->chat.msgs[t->chat.n - 1].text;
		t->typed = true;
	} else if (t->in->user && *t->in->user &&
	    strcmp(t->type, "quiet") == 0) {
		/* The quiet prompt: world info scans it, and it is the
		 * last message. */
		t->quiet = sub_as(t, "the user's message", t->in->user);
	} else if (t->in->user && *t->in->user)
		item_skip(t, "userInput", "chat", "user", 0, t->in->user,
		    "trigger", arena_printf(&run->arena, "only a normal "
		    "generation sends the message typed, not --type %s",
		    t->type));
	chat_macros(t);
	return true;
}

/* --- extension prompts: Author's Note, Character's Note, persona --- */

static bool
meta_int(struct tb *t, const char *key, int64_t def, int64_t *out)
{
	return field_int(t->run, t->chat.meta, key, def, out);
}

static bool
authors_note(struct tb *t)
{
	struct arena *a = &t->run->arena;
	const char *note;
	int64_t interval, position, depth, role, n;
	size_t i;
	bool ok = true;

	ok &= field_str(t->run, t->chat.meta, "note_prompt",
	    t->s.note_default, &note);
	ok &= meta_int(t, "note_interval", t->s.note_interval, &interval);
	ok &= meta_int(t, "note_position", t->s.note_position, &position);
	ok &= meta_int(t, "note_depth", t->s.note_depth, &depth);
	ok &= meta_int(t, "note_role", t->s.note_role, &role);
	if (!ok)
		return false;
	n = (int64_t)tchat_user_count(&t->chat);
	t->an_fires = interval > 0 && (n >= interval ? n % interval :
	    interval - n) == 0;
	if (!t->an_fires)
		note = "";
	/* A character's own note (extension_settings.note.chara). */
	for (i = 0; t->an_fires && t->s.note_chara &&
	    i < t->s.note_chara->u.array.n; i++) {
		const struct node *c = t->s.note_chara->u.array.items[i];
		const char *name, *prompt;
		bool use;
		int64_t pos;

		if (c->kind != NODE_TABLE ||
		    !field_str(t->run, c, "name", "", &name) ||
		    strcmp(name, t->card_file) ||
		    !field_str(t->run, c, "prompt", "", &prompt) ||
		    !field_bool(t->run, c, "useChara", false, &use) ||
		    !field_int(t->run, c, "position", 0, &pos) || !use)
			continue;
		if (pos == 0)
			note = prompt;
		else if (pos == 1)
			note = arena_printf(a, "%s\n%s", prompt, note);
		else
			note = arena_printf(a, "%s\n%s", note, prompt);
	}
	if (t->an_fires && *t->persona) {
		if (t->s.persona_position == PERSONA_TOP_AN)
			note = arena_printf(a, "%s\n%s", t->persona, note);
		else if (t->s.persona_position == PERSONA_BOTTOM_AN)
			note = arena_printf(a, "%s\n%s", note, t->persona);
	}
	ext_add(t, "2_floating_prompt", note, (int)position, depth, (int)role);
	if (!t->an_fires)
		item_out(t, t->ext[t->next - 1].item, "interval", interval > 0 ?
		    arena_printf(a, "note_interval %lld, %lld user message%s",
		    (long long)interval, (long long)n, n == 1 ? "" : "s") :
		    "note_interval 0: never");
	return true;
}

static void
depth_prompts(struct tb *t)
{
	struct card_depth_prompt dp;

	if (t->s.memory_on && *t->memory) {
		const char *v = trim(&t->run->arena, t->memory), *keep =
		    t->env.summary;

		t->env.summary = v;
		v = *t->s.memory_template ? sub(t, t->s.memory_template) :
		    arena_printf(&t->run->arena, "Summary: %s", v);
		t->env.summary = keep;
		ext_add(t, "1_memory", v, (int)t->s.memory_position,
		    t->s.memory_depth, (int)t->s.memory_role);
	}

	if (card_depth_prompt(t->card, &dp) && *t->depth_prompt) {
		ext_add(t, "DEPTH_PROMPT", t->depth_prompt, EXT_IN_CHAT,
		    dp.depth, strcmp(dp.role, "user") == 0 ? 1 :
		    strcmp(dp.role, "assistant") == 0 ? 2 : 0);
		/* The card's text; its macros ran as a card field. */
		item_stage(t, t->ext[t->next - 1].item, TAVERN_STAGE_RAW,
		    dp.prompt.s);
		item_stage(t, t->ext[t->next - 1].item, TAVERN_STAGE_MACROS,
		    t->depth_prompt);
	}
	if (t->s.persona_position == PERSONA_AT_DEPTH && *t->persona) {
		ext_add(t, "PERSONA_DESCRIPTION", t->persona, EXT_IN_CHAT,
		    t->s.persona_depth, (int)t->s.persona_role);
		item_stage(t, t->ext[t->next - 1].item, TAVERN_STAGE_RAW,
		    t->s.persona);
		item_stage(t, t->ext[t->next - 1].item, TAVERN_STAGE_MACROS,
		    t->persona);
	}
}

/* --- world info (seam) --- */

static const char *
outlet(void *ctx, const char *name)
{
	struct tb *t = ctx;
	size_t i;

	for (i = 0; i < t->wi.noutlets; i++)
		if (strcmp(t->wi.outlets[i].name, name) == 0)
			return t->wi.outlets[i].text;
	return "";
}

static enum tavern_regex_place
placement(const struct tchat_msg *m)
{
	return m->is_user ? TAVERN_RE_USER_INPUT : TAVERN_RE_AI_OUTPUT;
}

/* Chat message j after the prompt-time regex at its depth, with its
 * reasoning in front when the prompt takes it. */
static const char *
rx_at(struct tb *t, size_t j)
{
	if (!t->rx_out[j]) {
		t->rx_out[j] = t->seams->regex.apply(t->seams->regex.ctx,
		    t->run, placement(&t->chat.msgs[j]), true,
		    (int)(t->nrx - 1 - j) - t->rx_shift, t->rx_text[j]);
		t->rx_by[j] = fired(t);
		if (t->reason && t->reason[j])
			t->rx_out[j] = *t->rx_out[j] || !t->reason_bare[j] ?
			    arena_printf(&t->run->arena, "%s%s",
			    t->reason[j], t->rx_out[j]) : t->reason_bare[j];
	}
	return t->rx_out[j];
}

/*
 * PromptReasoning: from the newest message back, each one's
 * extra.reasoning (through the reasoning regex scripts at its depth)
 * goes in front of its text as prefix, reasoning, suffix, separator --
 * only prefix and reasoning when its text is empty -- while
 * reasoning.add_to_prompts allows and fewer than max_additions were
 * added.  The message a continue continues gets its reasoning whatever
 * the setting (and counts).
 */
static void
reasoning(struct tb *t)
{
	struct arena *a = &t->run->arena;
	const struct settings *st = &t->s;
	size_t i, n = t->chat.n;
	int64_t count = 0;
	bool cont = t->rx_shift != 0;

	t->reason = arena_array(a, n + 1, sizeof(*t->reason));
	t->reason_bare = arena_array(a, n + 1, sizeof(*t->reason_bare));
	for (i = n; i > 0; i--) {
		const struct tchat_msg *m = &t->chat.msgs[i - 1];
		bool prefix = cont && i == n;
		const char *r, *pre, *suf, *sep;
		int depth = (int)(n - i) - (cont ? 1 : 0);

		if ((prefix || (st->reasoning_add &&
		    count < st->reasoning_max)) && m->reasoning) {
			r = t->seams->regex.apply(t->seams->regex.ctx, t->run,
			    TAVERN_RE_REASONING, true, depth, m->reasoning);
			if (*r && strcmp(r, "\xe2\x80\x8b")) {
				count++;
				pre = sub(t, st->reasoning_prefix);
				sep = sub(t, st->reasoning_sep);
				suf = sub(t, st->reasoning_suffix);
				t->reason[i - 1] = arena_printf(a, "%s%s%s%s",
				    pre, r, suf, sep);
				if (prefix)
					t->reason_bare[i - 1] = arena_printf(a,
					    "%s%s", pre, r);
			}
		}
		if (!st->reasoning_add || count >= st->reasoning_max)
			break;
	}
}

/* tavern_wi_scan's text(): message i counted from the newest. */
static const char *
wi_text(void *ctx, size_t i)
{
	struct tb *t = ctx;

	return rx_at(t, t->nrx - 1 - i);
}

static bool
world_info(struct tb *t)
{
	struct run *run = t->run;
	struct tavern_wi_scan in;
	struct tavern_wi_msg *msgs;
	size_t i, j;
	size_t k;

	memset(&in, 0, sizeof(in));
	msgs = arena_array(&run->arena, t->chat.n + 1, sizeof(*msgs));
	t->nrx = t->chat.n;
	/* SillyTavern regexes its chat once, for world info and the
	 * prompt: on continue both see the message continued at -1. */
	t->rx_shift = strcmp(t->type, "continue") == 0 && t->chat.n ? 1 : 0;
	t->rx_text = arena_array(&run->arena, t->nrx + 1, sizeof(char *));
	t->rx_out = arena_array(&run->arena, t->nrx + 1, sizeof(char *));
	t->rx_by = arena_array(&run->arena, t->nrx + 1, sizeof(char *));
	reasoning(t);
	/* Oldest first, as SillyTavern regexes them (its macros may set
	 * variables: the newest message's value is the one kept); what may
	 * wait does.  msgs[] is newest first. */
	for (j = 0; j < t->nrx; j++) {
		const struct tchat_msg *m = &t->chat.msgs[j];

		i = t->nrx - 1 - j;
		msgs[i].name = m->name;
		t->rx_text[j] = m->text;
		if (!t->in->skip_unsent || !t->seams->regex.pure ||
		    !t->seams->regex.pure(t->seams->regex.ctx, placement(m),
		    m->text))
			msgs[i].text = rx_at(t, j);
	}
	in.msgs = msgs;
	in.nmsgs = t->chat.n;
	in.text = wi_text;
	in.text_ctx = t;
	in.persona = t->persona;
	in.description = t->description;
	in.personality = t->personality;
	in.depth_prompt = t->depth_prompt;
	in.scenario = t->scenario;
	in.creator_notes = t->creator_notes;
	in.inject = "";
	/* With allowWIScan the Author's and Character's Notes are in the
	 * inject buffer. */
	for (k = 0; k < t->next; k++) {
		const struct ext *e = &t->ext[k];

		if (((t->s.note_wi_scan && (strcmp(e->key,
		    "2_floating_prompt") == 0 || strcmp(e->key,
		    "DEPTH_PROMPT") == 0)) || (t->s.memory_scan &&
		    strcmp(e->key, "1_memory") == 0)) && *e->value)
			in.inject = *in.inject ? arena_printf(&run->arena,
			    "%s\n%s", in.inject, e->value) : e->value;
	}
	/* The quiet prompt is scanned too. */
	if (t->quiet && *t->quiet)
		in.inject = *in.inject ? arena_printf(&run->arena, "%s\n%s",
		    in.inject, t->quiet) : t->quiet;
	in.card = t->card;
	in.card_file = t->card_file;
	in.chat_metadata = t->chat.meta;
	in.wi_settings = t->s.world_info;
	in.worlds = t->in->worlds;
	in.nworlds = t->in->nworlds;
	in.max_context = t->p->max_context - t->p->max_tokens;
	in.type = t->type;
	in.macros = &t->env;
	in.an_fires = t->an_fires;
	in.settings = t->s.root;
	in.tokens = &t->seams->tokens;
	in.regex = &t->seams->regex;
	in.seed = t->in->seed ? strtoull(t->in->seed, NULL, 10) : 0;
	memset(&t->wi, 0, sizeof(t->wi));
	if (!t->seams->wi.scan(t->seams->wi.ctx, run, &in, &t->wi))
		return false;
	t->env.outlet = outlet;
	t->env.outlet_ctx = t;
	for (i = 0; i < t->wi.ndepth; i++) {
		const struct tavern_wi_depth *d = &t->wi.depth[i];

		ext_add(t, arena_printf(&run->arena, "customDepthWI_%lld_%d",
		    (long long)d->depth, d->role), d->text, EXT_IN_CHAT,
		    d->depth, d->role);
	}
	/* The Author's Note wrapped by its world-info entries. */
	if (t->an_fires)
		for (k = 0; k < t->next; k++) {
			struct ext *e = &t->ext[k];
			const char *s;
			size_t n;

			if (strcmp(e->key, "2_floating_prompt"))
				continue;
			s = arena_printf(&run->arena, "%s\n%s\n%s",
			    t->wi.an_top ? t->wi.an_top : "", e->value,
			    t->wi.an_bottom ? t->wi.an_bottom : "");
			if (*s == '\n')
				s++;
			n = strlen(s);
			if (n && s[n - 1] == '\n')
				n--;
			e->value = arena_strndup(&run->arena, s, n);
			item_stage(t, e->item, TAVERN_STAGE_RAW, e->value);
			if (*trim(&run->arena, e->value))
				item_out(t, e->item, NULL, NULL);
		}
	return true;
}

/* --- examples --- */

/* parseMesExamples: blocks split on <START> (any case). */
static void
example_blocks(struct tb *t, struct tlist *blocks_out)
{
	struct arena *a = &t->run->arena;
	const char *s = t->mes_example;
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < t->wi.nem_top; i++)
		push(t->run, blocks_out, "system", NULL, arena_printf(a,
		    "<START>\n%s\n", em_block(a, sub(t, t->wi.em_top[i]))),
		    NULL);
	if (*s && strcmp(s, "<START>")) {
		const char *p, *next;

		if (strncmp(s, "<START>", 7))
			s = arena_printf(a, "<START>\n%s", trim(a, s));
		/* split(/<START>/gi).slice(1): s starts with <START> */
		for (p = s + 7;; p = next + 7) {
			for (next = p; *next && strncasecmp(next, "<START>",
			    7); next++)
				;
			buf_reset(&b);
			buf_put(&b, p, (size_t)(next - p));
			buf_putc(&b, '\0');
			push(t->run, blocks_out, "system", NULL,
			    arena_printf(a, "<START>\n%s\n",
			    trim(a, b.data)), NULL);
			if (!*next)
				break;
		}
	}
	for (i = 0; i < t->wi.nem_bottom; i++)
		push(t->run, blocks_out, "system", NULL, arena_printf(a,
		    "<START>\n%s\n", em_block(a, sub(t, t->wi.em_bottom[i]))),
		    NULL);
	buf_free(&b);
}

/* parseExampleIntoIndividual: one block's lines into named messages. */
static void
example_messages(struct tb *t, const char *block, struct tlist *out)
{
	struct arena *a = &t->run->arena;
	const char *uprefix = arena_printf(a, "%s:", t->user_name);
	const char *cprefix = arena_printf(a, "%s:", t->char_name);
	struct buf tmp = BUF_INIT;
	bool in_user = false, in_bot = false, first = true;
	const char *line = block;

#define FLUSH(prefix, sysname) do { \
	const char *m, *at; \
	buf_putc(&tmp, '\0'); \
	at = strstr(tmp.data, (prefix)); \
	m = at ? arena_printf(a, "%.*s%s", (int)(at - tmp.data), tmp.data, \
	    at + strlen(prefix)) : tmp.data; \
	push(t->run, out, "system", (sysname), trim(a, m), NULL); \
	buf_reset(&tmp); \
} while (0)
	while (line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		if (first) {
			/* the <START> heading */
			first = false;
			line = nl ? nl + 1 : NULL;
			continue;
		}
		if (strncmp(line, uprefix, strlen(uprefix)) == 0) {
			in_user = true;
			if (in_bot)
				FLUSH(cprefix, "example_assistant");
			in_bot = false;
		} else if (strncmp(line, cprefix, strlen(cprefix)) == 0) {
			in_bot = true;
			if (in_user)
				FLUSH(uprefix, "example_user");
			in_user = false;
		}
		if (tmp.len)
			buf_putc(&tmp, '\n');
		buf_put(&tmp, line, len);
		line = nl ? nl + 1 : NULL;
	}
	if (in_user)
		FLUSH(uprefix, "example_user");
	else if (in_bot)
		FLUSH(cprefix, "example_assistant");
#undef FLUSH
	buf_free(&tmp);
}

/* --- history --- */

/* U+00C0..U+00FF after NFD with the combining marks removed ('_': no
 * ASCII letter), for names in COMPLETION mode. */
static const char latin1_base[] =
    "AAAAAA_CEEEEIIII_NOOOOO__UUUUY__aaaaaa_ceeeeiiii_nooooo__uuuuy_y";

/* Chat message i's content from its regexed text s: the regex-post stage
 * of its item, the name prefix names_behavior asks for, no '\r'. */
static const char *
chat_content(struct tb *t, size_t i, uint32_t it, const char *s)
{
	const struct tchat_msg *m = &t->chat.msgs[i];
	struct arena *a = &t->run->arena;

	item_stage(t, it, TAVERN_STAGE_REGEX_POST, s);
	/* s is the cached call's (rx_at()) or the one just made */
	if (t->rep->items[it].text[TAVERN_STAGE_REGEX_POST] !=
	    t->rep->items[it].text[TAVERN_STAGE_MACROS])
		t->rep->items[it].by[TAVERN_STAGE_REGEX_POST] = t->rx_out &&
		    i < t->nrx && s == t->rx_out[i] ? t->rx_by[i] : fired(t);
	switch (t->p->names) {
	case PRESET_NAMES_DEFAULT:
		if (m->force_avatar && strcmp(m->name, t->user_name) &&
		    !m->narrator)
			s = arena_printf(a, "%s: %s", m->name, s);
		break;
	case PRESET_NAMES_CONTENT:
		if (!m->narrator)
			s = arena_printf(a, "%s: %s", m->name, s);
		break;
	case PRESET_NAMES_NONE:
	case PRESET_NAMES_COMPLETION:
		break;
	}
	return strip_cr(a, s);
}

/* The content of m, made now if history() left it for later. */
static void
resolve(struct tb *t, struct tmsg *m)
{
	if (!m->content)
		m->content = chat_content(t, m->chat, m->chat_item,
		    rx_at(t, m->chat));
}

/*
 * A message of the history as the prompt takes it: its macros run again
 * (SillyTavern prepares every chat message and in-chat injection as a
 * prompt), once.
 */
static void
prepare(struct tb *t, struct tmsg *m)
{
	resolve(t, m);
	if (m->prepared || !(m->real || (m->id && strcmp(m->id,
	    "injection") == 0)))
		return;
	m->content = sub(t, m->content);
	m->prepared = true;
}

/* The completion name of a speaker: [A-Za-z0-9_]{1,64}, else sanitised;
 * NULL for none. */
static const char *
completion_name(struct arena *a, const char *name)
{
	char *c, *w;
	const char *p = name;
	uint32_t cp;

	if (!name || !*name)
		return NULL;
	c = w = arena_strdup(a, name);
	while (*p && w - c < 64) {
		size_t k = utf8_decode(p, strlen(p), &cp);

		if (k == 0)
			k = 1;
		*w++ = cp < 128 && (isalnum((int)cp) || cp == '_') ?
		    (char)cp : cp >= 0xc0 && cp <= 0xff ?
		    latin1_base[cp - 0xc0] : '_';
		p += k;
	}
	*w = '\0';
	return c;
}

static void
history(struct tb *t, struct tlist *out)
{
	struct arena *a = &t->run->arena;
	size_t i, n = t->chat.n;
	/* On continue the message continued has depth -1. */
	int shift = 1 + t->rx_shift;

	reserve(t->run, out, out->n + n);
	for (i = 0; i < n; i++) {
		const struct tchat_msg *m = &t->chat.msgs[i];
		const char *role = m->narrator ? "system" : m->is_user ?
		    "user" : "assistant";
		const char *name = t->p->names == PRESET_NAMES_COMPLETION ?
		    completion_name(a, m->name) : NULL;
		bool greeting = !chat_given(t->in) && i == 0 &&
		    !m->is_user;
		/* world_info() made (or left for later) this same call. */
		bool same = n == t->nrx && shift - 1 == t->rx_shift &&
		    t->rx_text[i] == m->text;
		uint32_t it = item_add(t, arena_printf(a, "chat#%zu", i),
		    greeting ? "card" : "chat", role, (int64_t)(n - 1 - i),
		    t->craw[i]);

		item_stage(t, it, TAVERN_STAGE_REGEX_PRE, t->cpre[i]);
		if (t->rep->items[it].text[TAVERN_STAGE_REGEX_PRE] !=
		    t->rep->items[it].text[TAVERN_STAGE_RAW])
			t->rep->items[it].by[TAVERN_STAGE_REGEX_PRE] =
			    t->cpre_by[i];
		item_stage(t, it, TAVERN_STAGE_MACROS, m->text);
		if (greeting)
			item_note(t, it, "the card's greeting: a new chat");
		if (same && !t->rx_out[i]) {
			push_item(t, out, role, name, NULL, NULL, it);
			out->v[out->n - 1].chat = i;
			out->v[out->n - 1].chat_item = it;
			out->v[out->n - 1].real = true;
			continue;
		}
		push_item(t, out, role, name, chat_content(t, i, it, same ?
		    t->rx_out[i] : t->seams->regex.apply(t->seams->regex.ctx,
		    t->run, placement(m), true, (int)(n - i) - shift,
		    m->text)), NULL, it);
		out->v[out->n - 1].real = true;
	}
}

/* The in-chat injections: preset prompts at a depth (injection_position
 * 1) and the IN_CHAT extension prompts, into the history (oldest first
 * in and out). */
struct inj {
	const char *role, *content;
	int64_t depth, order;
	uint32_t item;
};

static void
inject(struct tb *t, struct tlist *hist, const struct inj *pm, size_t npm)
{
	struct tlist rev = { NULL, 0, 0 };
	int64_t *depths;
	size_t nd = 0, i, j, total = 0;

	/* Each depth gets at most one message per role. */
	reserve(t->run, &rev, hist->n + 3 * (npm + t->next) + 1);
	depths = arena_array(&t->run->arena, npm + t->next + 1,
	    sizeof(*depths));
	for (i = 0; i < npm + t->next; i++) {
		int64_t d;

		if (i < npm)
			d = pm[i].depth;
		else if (t->ext[i - npm].position == EXT_IN_CHAT)
			d = t->ext[i - npm].depth;
		else
			continue;
		if (d < 0 || d > 10000)
			continue;
		for (j = 0; j < nd && depths[j] != d; j++)
			;
		if (j == nd)
			depths[nd++] = d;
	}
	/* ascending depths */
	for (i = 1; i < nd; i++)
		for (j = i; j > 0 && depths[j - 1] > depths[j]; j--) {
			int64_t x = depths[j];

			depths[j] = depths[j - 1];
			depths[j - 1] = x;
		}
	for (i = hist->n; i > 0; i--)
		push_m(t->run, &rev, &hist->v[i - 1]);
	for (i = 0; i < nd; i++) {
		int64_t d = depths[i], *orders, prev;
		size_t no = 0, k;

		orders = arena_array(&t->run->arena, npm + 2,
		    sizeof(*orders));
		orders[no++] = 100;
		for (j = 0; j < npm; j++) {
			if (pm[j].depth != d)
				continue;
			for (k = 0; k < no && orders[k] != pm[j].order; k++)
				;
			if (k == no)
				orders[no++] = pm[j].order;
		}
		/* descending orders */
		for (j = 1; j < no; j++)
			for (k = j; k > 0 && orders[k - 1] < orders[k]; k--) {
				prev = orders[k];
				orders[k] = orders[k - 1];
				orders[k - 1] = prev;
			}
		for (j = 0; j < no; j++) {
			struct tmsg group[3] = {{0}};
			size_t ng = 0, r, at;

			for (r = 0; r < 3; r++) {
				struct buf b = BUF_INIT;
				const char *e, *pmtext;
				uint32_t *pi = arena_array(&t->run->arena,
				    npm + 1, sizeof(*pi)), npi = 0, nei = 0;
				const uint32_t *ei = NULL;

				for (k = 0; k < npm; k++) {
					if (pm[k].depth != d || pm[k].order !=
					    orders[j] || strcmp(pm[k].role,
					    roles[r]))
						continue;
					if (b.len)
						buf_putc(&b, '\n');
					buf_puts(&b, pm[k].content);
					pi[npi++] = pm[k].item;
				}
				buf_putc(&b, '\0');
				pmtext = trim(&t->run->arena, b.data);
				buf_free(&b);
				e = orders[j] == 100 ? trim(&t->run->arena,
				    ext_collect(t, EXT_IN_CHAT, d, (int)r,
				    &ei, &nei)) : "";
				if (!*pmtext && !*e)
					continue;
				group[ng].role = roles[r];
				group[ng].name = NULL;
				group[ng].items = items_cat(t, *pmtext ? pi :
				    NULL, *pmtext ? npi : 0, ei, *e ? nei : 0);
				group[ng].nitems = (*pmtext ? npi : 0) +
				    (*e ? nei : 0);
				group[ng].id = "injection";
				group[ng].content = *pmtext && *e ?
				    arena_printf(&t->run->arena, "%s\n%s",
				    pmtext, e) : *pmtext ? pmtext : e;
				ng++;
			}
			at = (size_t)d + total;
			for (r = 0; r < ng; r++)
				insert_at(t->run, &rev, at + r, &group[r]);
			total += ng;
		}
	}
	hist->n = 0;
	reserve(t->run, hist, rev.n);
	for (i = rev.n; i > 0; i--)
		push_m(t->run, hist, &rev.v[i - 1]);
}

/* --- the prompt manager --- */

static struct slot *
slot_add(struct tb *t, const char *id)
{
	struct slot *s;

	if (t->nslots == t->slotcap)
		t->slots = avec_grow(&t->run->arena, t->slots, &t->slotcap,
		    t->nslots, t->nslots + 1, sizeof(*t->slots));
	s = &t->slots[t->nslots++];
	memset(s, 0, sizeof(*s));
	s->id = id;
	return s;
}

static struct slot *
slot_find(struct tb *t, const char *id)
{
	size_t i;

	for (i = 0; i < t->nslots; i++)
		if (strcmp(t->slots[i].id, id) == 0)
			return &t->slots[i];
	return NULL;
}

static const char *
wi_format(struct tb *t, const char *text)
{
	const char *f = t->p->wi_format, *at;

	if (!text || !*text)
		return "";
	at = strstr(f, "{0}");
	if (!at)
		return f;
	return arena_printf(&t->run->arena, "%.*s%s%s", (int)(at - f), f,
	    text, at + 3);
}

/* The content of a marker, or NULL when id is no marker. */
static const char *
marker_content(struct tb *t, const char *id)
{
	if (strcmp(id, "worldInfoBefore") == 0)
		return wi_format(t, t->wi.before);
	if (strcmp(id, "worldInfoAfter") == 0)
		return wi_format(t, t->wi.after);
	if (strcmp(id, "charDescription") == 0)
		return t->description;
	if (strcmp(id, "charPersonality") == 0)
		return *t->personality ? t->p->personality_format : "";
	if (strcmp(id, "scenario") == 0)
		return *t->scenario ? t->p->scenario_format : "";
	if (strcmp(id, "personaDescription") == 0)
		return t->s.persona_position == PERSONA_IN_PROMPT ||
		    t->s.persona_position == PERSONA_AFTER_CHAR ?
		    t->persona : "";
	return NULL;
}

static bool
is_collection(const char *id)
{
	return strcmp(id, "chatHistory") == 0 ||
	    strcmp(id, "dialogueExamples") == 0;
}

/* The prompts SillyTavern places by their position in the order. */
static bool
builtin_prompt(const char *id)
{
	static const char *const ids[] = { "main", "nsfw", "jailbreak",
		"enhanceDefinitions", "worldInfoBefore", "worldInfoAfter",
		"charDescription", "charPersonality", "scenario",
		"personaDescription", "dialogueExamples", "chatHistory" };
	size_t i;

	for (i = 0; i < LEN(ids); i++)
		if (strcmp(ids[i], id) == 0)
			return true;
	return false;
}

/* Where a marker's text comes from, and its text before the prompt's
 * own substitution (NULL: no marker). */
static const char *
marker_raw(struct tb *t, const char *id, const char **source)
{
	*source = "preset";
	if (strncmp(id, "worldInfo", 9) == 0 && marker_content(t, id)) {
		*source = "world info";
		return marker_content(t, id);
	}
	*source = "card";
	if (strcmp(id, "charDescription") == 0)
		return t->card->description.s;
	if (strcmp(id, "charPersonality") == 0 ||
	    strcmp(id, "scenario") == 0)
		return marker_content(t, id);
	*source = "settings";
	if (strcmp(id, "personaDescription") == 0)
		return t->s.persona;
	*source = "preset";
	return NULL;
}

/* Why the persona description is not at its marker, or NULL. */
static const char *
persona_moved(struct tb *t)
{
	if (!*t->persona || t->s.persona_position == PERSONA_IN_PROMPT ||
	    t->s.persona_position == PERSONA_AFTER_CHAR)
		return NULL;
	return t->s.persona_position == PERSONA_AT_DEPTH ?
	    "persona_description_position: in-chat at a depth" :
	    "persona_description_position: in the Author's Note";
}

/* A prompt of the order: its item, with text raw. */
static uint32_t
prompt_item(struct tb *t, const struct preset_prompt *pp, const char *raw)
{
	const char *source, *mr = marker_raw(t, pp->identifier, &source);

	return item_add(t, pp->identifier, source, pp->role, pp->in_chat &&
	    !is_collection(pp->identifier) ? pp->depth : -1, raw ? raw :
	    mr ? mr : pp->content);
}

/* Collect the ordered prompts into slots; the in-chat ones into inj. */
static void
collect(struct tb *t, struct inj **injs, size_t *ninj)
{
	static const char *const appended[] = { "worldInfoBefore",
		"worldInfoAfter", "charDescription", "charPersonality",
		"scenario", "bias", "personaDescription" };
	struct arena *a = &t->run->arena;
	const struct preset *p = t->p;
	size_t i;

	*injs = arena_array(a, p->norder + 1, sizeof(**injs));
	*ninj = 0;
	for (i = 0; i < p->norder; i++) {
		const struct preset_prompt *pp = p->order[i].prompt;
		const char *id = pp->identifier, *content;
		bool main = strcmp(id, "main") == 0;
		struct slot *s;
		uint32_t it;

		if (!p->order[i].enabled && !main) {
			item_out(t, prompt_item(t, pp, NULL), "disabled",
			    "disabled in prompt_order");
			continue;
		}
		if (!preset_triggered(pp, t->type)) {
			item_out(t, prompt_item(t, pp, NULL), "trigger",
			    arena_printf(a, "injection_trigger does not "
			    "name %s", t->type));
			continue;
		}
		if (slot_find(t, id)) {
			item_out(t, prompt_item(t, pp, NULL), "duplicate",
			    "listed before in prompt_order");
			continue;
		}
		if (pp->in_chat && !is_collection(id)) {
			it = prompt_item(t, pp, NULL);
			if (!p->order[i].enabled) {
				item_out(t, it, "disabled",
				    "disabled in prompt_order");
				continue;
			}
			if (!pp->has_depth) {
				item_out(t, it, "no depth",
				    "in-chat without injection_depth");
				continue;
			}
			content = marker_content(t, id);
			content = sub_as(t, prompt_asset(t, id),
			    content ? content : pp->content);
			item_stage(t, it, TAVERN_STAGE_MACROS, content);
			if (*content) {
				(*injs)[*ninj].role = pp->role;
				(*injs)[*ninj].content = content;
				(*injs)[*ninj].depth = pp->depth;
				(*injs)[*ninj].order = pp->order;
				(*injs)[*ninj].item = it;
				(*ninj)++;
			} else
				item_empty(t, it);
			continue;
		}
		/* Only the built-ins and the user's own prompts
		 * (system_prompt false) are placed. */
		if (pp->system_prompt && !builtin_prompt(id)) {
			item_out(t, prompt_item(t, pp, NULL), "not placed",
			    "a system prompt SillyTavern does not know");
			continue;
		}
		s = slot_add(t, id);
		if (is_collection(id)) {
			item_note(t, prompt_item(t, pp, ""), strcmp(id,
			    "chatHistory") == 0 ? "the chat messages go here "
			    "(chat#N)" : "the example messages go here "
			    "(example#N)");
			continue;
		}
		it = prompt_item(t, pp, p->order[i].enabled ? NULL :
		    pp->content);
		content = marker_content(t, id);
		if (!content)
			content = p->order[i].enabled ? pp->content : "";
		content = sub_as(t, prompt_asset(t, id), content);
		/* The card's overrides, with {{original}}. */
		if (main && p->order[i].enabled && !pp->forbid_overrides &&
		    t->s.prefer_char_prompt && *t->system_prompt) {
			content = macro_expand(t->run, &t->env,
			    t->system_prompt, strlen(t->system_prompt),
			    content);
			item_note(t, it, "overridden by the card's "
			    "system_prompt ({{original}}: the preset's)");
		} else if (main && pp->forbid_overrides && *t->system_prompt)
			item_note(t, it, "forbid_overrides: the card's "
			    "system_prompt is not used");
		if (strcmp(id, "jailbreak") == 0 && !pp->forbid_overrides &&
		    t->s.prefer_char_instructions && *t->phi) {
			content = macro_expand(t->run, &t->env, t->phi,
			    strlen(t->phi), content);
			item_note(t, it, "overridden by the card's "
			    "post_history_instructions ({{original}}: the "
			    "preset's)");
		} else if (strcmp(id, "jailbreak") == 0 &&
		    pp->forbid_overrides && *t->phi)
			item_note(t, it, "forbid_overrides: the card's "
			    "post_history_instructions are not used");
		item_stage(t, it, TAVERN_STAGE_MACROS, content);
		if (*content)
			push_item(t, &s->msgs, pp->role, NULL, content, id, it);
		else if (!p->order[i].enabled)
			item_out(t, it, "disabled", "main is disabled: its "
			    "place stays, for the Author's Note beside it");
		else if (strcmp(id, "personaDescription") == 0 &&
		    persona_moved(t))
			item_out(t, it, "moved", persona_moved(t));
		else
			item_empty(t, it);
	}
	/* Markers missing from the order are appended. */
	for (i = 0; i < LEN(appended); i++) {
		const char *id = appended[i], *content, *source, *raw;
		const struct preset_prompt *pp;
		size_t k;
		bool listed = false;
		uint32_t it;

		for (k = 0; k < p->norder; k++)
			if (strcmp(p->order[k].prompt->identifier, id) == 0)
				listed = true;
		if (listed)
			continue;
		if (strcmp(id, "bias") == 0) {
			if (!*t->s.user_prompt_bias)
				continue;
			it = item_add(t, id, "settings", "assistant", -1,
			    t->s.user_prompt_bias);
			if (strcmp(t->type, "impersonate") == 0 ||
			    strcmp(t->type, "continue") == 0) {
				item_out(t, it, "trigger", arena_printf(a,
				    "not sent on --type %s", t->type));
				continue;
			}
			content = sub(t, t->s.user_prompt_bias);
			item_stage(t, it, TAVERN_STAGE_MACROS, content);
			if (*content)
				push_item(t, &slot_add(t, id)->msgs,
				    "assistant", NULL, content, id, it);
			else
				item_empty(t, it);
			continue;
		}
		pp = preset_find(p, id);
		raw = marker_raw(t, id, &source);
		content = sub_as(t, prompt_asset(t, id),
		    marker_content(t, id));
		if (!*raw && !*content)
			continue;
		it = item_add(t, id, source, pp ? pp->role : "system", -1,
		    raw);
		item_stage(t, it, TAVERN_STAGE_MACROS, content);
		item_note(t, it, "marker missing from prompt_order: "
		    "appended");
		if (*content)
			push_item(t, &slot_add(t, id)->msgs, pp ? pp->role :
			    "system", NULL, content, id, it);
		else if (strcmp(id, "personaDescription") == 0 &&
		    persona_moved(t))
			item_out(t, it, "moved", persona_moved(t));
		else
			item_out(t, it, "empty", "marker missing from "
			    "prompt_order; empty after macros");
	}
}

/* The Author's Note and kin beside main: at its start (BEFORE_PROMPT)
 * or its end (IN_PROMPT). */
static void
main_extensions(struct tb *t)
{
	struct slot *m = slot_find(t, "main");
	const char *before, *after;
	const uint32_t *bi, *ai;
	uint32_t nb, na;

	if (!m)
		return;
	before = ext_collect(t, EXT_BEFORE_PROMPT, -1, -1, &bi, &nb);
	after = ext_collect(t, EXT_IN_PROMPT, -1, -1, &ai, &na);
	if (*before) {
		struct tmsg x = { .role = "system", .content = before,
			.id = "authorsNote", .items = bi, .nitems = nb };

		insert_at(t->run, &m->msgs, 0, &x);
	}
	if (*after) {
		push(t->run, &m->msgs, "system", NULL, after, "authorsNote");
		m->msgs.v[m->msgs.n - 1].items = ai;
		m->msgs.v[m->msgs.n - 1].nitems = na;
	}
}

/* The history, newest first while it fits, after the new-chat prompt's
 * reservation. */
static void
fill_history(struct tb *t, struct slot *h, struct tlist *hist, long *lp)
{
	struct arena *a = &t->run->arena;
	struct tmsg newchat;
	size_t i, first, k;
	long left = *lp;
	uint32_t nci;

	newchat.role = "system";
	newchat.name = NULL;
	newchat.content = sub(t, t->p->new_chat_prompt);
	newchat.id = "newMainChat";
	newchat.items = NULL;
	newchat.nitems = 0;
	nci = item_add(t, "newMainChat", "preset", "system", -1,
	    t->p->new_chat_prompt);
	item_stage(t, nci, TAVERN_STAGE_MACROS, newchat.content);
	if (*newchat.content)
		left -= (long)tokens(t, &newchat);
	else
		item_out(t, nci, "empty", "new_chat_prompt is empty");
	/* (On continue the message continued has left the history.) */
	if (hist->n && strcmp(hist->v[hist->n - 1].role,
	    "assistant") == 0 && *t->p->send_if_empty) {
		struct tmsg e = { .role = "user",
		    .content = t->p->send_if_empty,
		    .id = "emptyUserMessageReplacement" };
		uint32_t it = item_add(t, e.id, "preset", "user", 0,
		    t->p->send_if_empty);

		item_stage(t, it, TAVERN_STAGE_MACROS, e.content);
		item_note(t, it, "send_if_empty: the chat ends with a reply");
		push_item(t, hist, e.role, e.name, e.content, e.id, it);
	}
	first = hist->n;
	while (first > 0) {
		struct tmsg *m = &hist->v[first - 1];
		long c;

		prepare(t, m);
		/* An empty message costs nothing (but its name) and is
		 * not sent. */
		c = *m->content || m->name ? (long)count(t, m) : 0;
		if (c > left) {
			for (k = 0; k < m->nitems; k++)
				item_out(t, m->items[k], "budget",
				    arena_printf(a, "%ld tokens, %ld left of "
				    "the %ld-token budget", c, left,
				    t->budget));
			break;
		}
		if (!*m->content)
			for (k = 0; k < m->nitems; k++)
				item_out(t, m->items[k], "empty", "an empty "
				    "message is not sent");
		else
			left -= c;
		first--;
	}
	/* Everything older than the first that did not fit is out too. */
	for (i = 0; first > 0 && i + 1 < first; i++)
		for (k = 0; k < hist->v[i].nitems; k++)
			item_out(t, hist->v[i].items[k], "budget",
			    "older than a message that did not fit");
	if (*newchat.content) {
		left += (long)tokens(t, &newchat);
		if ((long)tokens(t, &newchat) <= left) {
			left -= (long)tokens(t, &newchat);
			push_item(t, &h->msgs, newchat.role, NULL,
			    newchat.content, newchat.id, nci);
			t->rep->items[nci].tokens = tokens(t, &newchat);
			t->rep->items[nci].counted = true;
		} else
			item_out(t, nci, "budget", arena_printf(a, "%zu "
			    "tokens, %ld left", tokens(t, &newchat), left));
	}
	for (i = first; i < hist->n; i++)
		if (*hist->v[i].content)
			push_m(t->run, &h->msgs, &hist->v[i]);
	*lp = left;
}

/* The example blocks, whole ones while they fit. */
static void
fill_examples(struct tb *t, struct slot *ex, long *lp)
{
	struct arena *a = &t->run->arena;
	struct tlist blocks = { NULL, 0, 0 };
	size_t i, j, ne = 0;
	long left = *lp;
	bool out = false;
	struct tmsg sep = { .role = "system",
	    .content = sub(t, t->p->new_example_chat_prompt),
	    .id = "newChat" };

	example_blocks(t, &blocks);
	for (i = 0; i < blocks.n; i++) {
		struct tlist msgs = { NULL, 0, 0 };
		long need = *sep.content ? (long)tokens(t, &sep) : 0;
		uint32_t si = 0;

		if (*sep.content) {
			si = item_add(t, "newChat", "preset", "system", -1,
			    t->p->new_example_chat_prompt);
			item_stage(t, si, TAVERN_STAGE_MACROS, sep.content);
			t->rep->items[si].tokens = (size_t)need;
			t->rep->items[si].counted = true;
		}
		example_messages(t, blocks.v[i].content, &msgs);
		for (j = 0; j < msgs.n; j++) {
			holds(t, &msgs.v[j], item_add(t, arena_printf(a,
			    "example#%zu", ne++), "card", "system", -1,
			    msgs.v[j].content));
			need += (long)count(t, &msgs.v[j]);
		}
		if (out || need > left) {
			const char *why = out ? "after an example block "
			    "that did not fit" : arena_printf(a, "its block "
			    "needs %ld tokens, %ld left", need, left);

			if (*sep.content)
				item_out(t, si, "budget", why);
			for (j = 0; j < msgs.n; j++)
				item_out(t, msgs.v[j].items[0], "budget",
				    why);
			out = true;
			continue;
		}
		left -= need;
		if (*sep.content)
			push_item(t, &ex->msgs, sep.role, NULL,
			    sep.content, sep.id, si);
		for (j = 0; j < msgs.n; j++) {
			push_m(t->run, &ex->msgs, &msgs.v[j]);
			ex->msgs.v[ex->msgs.n - 1].id = "example";
		}
	}
	*lp = left;
}

static bool
fill(struct tb *t, struct tlist *hist)
{
	struct slot *h = slot_find(t, "chatHistory");
	struct slot *ex = slot_find(t, "dialogueExamples");
	size_t i, j;
	long left;

	t->used = 0;
	for (i = 0; i < t->nslots; i++)
		for (j = 0; j < t->slots[i].msgs.n; j++)
			t->used += (long)count(t, &t->slots[i].msgs.v[j]);
	left = t->budget - t->used;
	if (left < 0) {
		diag_plain(t->run, DIAG_ERROR, MSG_TAVERN_BUDGET,
		    (size_t)t->used, t->budget);
		return false;
	}
	if (ex && t->s.strip_examples)
		item_skip(t, "dialogueExamples", "card", "system", -1,
		    t->mes_example, "disabled", "strip_examples is set");
	/* pin_examples: the examples get the budget first. */
	if (ex && !t->s.strip_examples && t->s.pin_examples)
		fill_examples(t, ex, &left);
	if (h)
		fill_history(t, h, hist, &left);
	if (ex && !t->s.strip_examples && !t->s.pin_examples)
		fill_examples(t, ex, &left);
	return true;
}

/*
 * Continue.  The message continued is the newest of the history as the
 * prompt has it (its regex at depth -1, its name prefix, no '\r').
 * With continue_prefill it leaves the history before the in-chat
 * injections and is the last message, as it is (no macros, no
 * continue_postfix; for Claude an assistant message takes the preset's
 * prefill in front).  Without, it leaves the history after them (the
 * newest message that is not an injection), its macros run, and it is
 * sent again at the end, followed by the continue nudge, whose
 * {{lastChatMessage}} is its regexed text with continue_postfix glued
 * on unless it ends with a space, trimmed.
 */
static void
continued(struct tb *t, struct tlist *hist, bool prefill)
{
	struct arena *a = &t->run->arena;
	const struct tchat_msg *cm = &t->chat.msgs[t->chat.n - 1];
	struct tmsg m;
	struct slot *s;
	const char *text, *last;
	size_t i;
	uint32_t it;

	if (prefill != t->p->continue_prefill)
		return;
	for (i = hist->n; i > 0 && !hist->v[i - 1].real; i--)
		;
	if (!i)
		return;
	resolve(t, &hist->v[i - 1]);
	m = hist->v[i - 1];
	memmove(&hist->v[i - 1], &hist->v[i], (hist->n - i) *
	    sizeof(*hist->v));
	hist->n--;
	t->continued = cm;
	for (i = 0; i < m.nitems; i++)
		item_out(t, m.items[i], "continued", "sent at the end, as the "
		    "message continued");
	s = slot_add(t, "continue");
	if (prefill) {
		const char *pre = strcmp(m.role, "assistant") == 0 &&
		    t->format == FORMAT_ANTHROPIC ?
		    sub(t, t->p->assistant_prefill) : "";

		text = *pre && *m.content ? arena_printf(a, "%s\n\n%s", pre,
		    m.content) : *pre ? pre : m.content;
		it = item_add(t, "continuePrefill", "chat", m.role, -1,
		    m.content);
		if (*text)
			push_item(t, &s->msgs, m.role, m.name ?
			    completion_name(a, cm->name) : NULL, text,
			    "continuePrefill", it);
		else
			item_empty(t, it);
		return;
	}
	it = item_add(t, "continue", "chat", m.role, -1, m.content);
	text = sub(t, m.content);
	item_stage(t, it, TAVERN_STAGE_MACROS, text);
	/* An empty message is not sent; its nudge still is. */
	if (*text)
		push_item(t, &s->msgs, m.role, m.name, text, "continue", it);
	else
		item_empty(t, it);
	last = rx_at(t, t->chat.n - 1);
	if (!*last || last[strlen(last) - 1] != ' ')
		last = arena_printf(a, "%s%s", last, t->p->continue_postfix);
	t->env.last_chat_message = trim(a, last);
	text = sub(t, t->p->continue_nudge_prompt);
	t->env.last_chat_message = NULL;
	if (*text) {
		it = item_add(t, "continueNudge", "preset", "system", -1,
		    t->p->continue_nudge_prompt);
		item_stage(t, it, TAVERN_STAGE_MACROS, text);
		push_item(t, &s->msgs, "system", NULL, text, "continueNudge",
		    it);
	}
}

/* --- strata's own entries (tavern_input.entries) --- */

/* The item of strata's entry e (place: NULL, or its position's name). */
static uint32_t
own_item(struct tb *t, const struct tavern_entry *e, int64_t depth,
    const char *place)
{
	uint32_t it = item_add(t, e->key, "profile", e->role, depth,
	    e->raw ? e->raw : e->text);

	item_stage(t, it, TAVERN_STAGE_MACROS, e->text);
	t->rep->items[it].place = place;
	if (e->reason)
		item_out(t, it, e->reason, e->note);
	else if (e->note)
		item_note(t, it, e->note);
	return it;
}

/* Where id is in prompt_order, or -1. */
static long
own_order_index(const struct preset *p, const char *id)
{
	size_t i;

	for (i = 0; i < p->norder; i++)
		if (strcmp(p->order[i].prompt->identifier, id) == 0)
			return (long)i;
	return -1;
}

/* Every anchor names a prompt of prompt_order (or it is an error at the
 * anchor, with the nearest identifier suggested). */
static bool
own_anchors(struct tb *t)
{
	const struct tavern_input *in = t->in;
	size_t i, k;
	bool ok = true;

	for (i = 0; i < in->nentries; i++) {
		const struct tavern_entry *e = &in->entries[i];
		struct suggest sg;
		const char *best;

		if (!e->anchor || own_order_index(t->p, e->anchor) >= 0)
			continue;
		suggest_init(&sg, e->anchor);
		for (k = 0; k < t->p->norder; k++)
			suggest_add(&sg, t->p->order[k].prompt->identifier);
		best = suggest_best(&sg);
		diag_error(t->run, run_source(t->run, e->anchor_src),
		    e->anchor_span, MSG_TAVERN_ANCHOR_UNKNOWN, e->anchor,
		    best ? arena_printf(&t->run->arena, "; did you mean "
		    "'%s'?", best) : "");
		ok = false;
	}
	return ok;
}

/* The in-chat entries: extension prompts of their depth and role, keyed
 * to sort after every key SillyTavern registers, in strata's order. */
static void
own_inchat(struct tb *t)
{
	const struct tavern_input *in = t->in;
	size_t i, n = 0;

	for (i = 0; i < in->nentries; i++) {
		const struct tavern_entry *e = &in->entries[i];
		struct ext x;
		int r;

		if (e->place != TAVERN_PLACE_INCHAT)
			continue;
		x.item = own_item(t, e, e->depth, NULL);
		if (e->reason)
			continue;
		if (e->depth > 10000) {
			item_out(t, x.item, "depth", "SillyTavern injects at "
			    "depths 0 to 10000");
			continue;
		}
		/* system, user, else assistant */
		for (r = 0; r < 2 && strcmp(roles[r], e->role); r++)
			;
		x.key = arena_printf(&t->run->arena, "~strata%08zu", n++);
		x.value = e->text;
		x.position = EXT_IN_CHAT;
		x.depth = e->depth;
		x.role = r;
		if (t->next == t->extcap)
			t->ext = avec_grow(&t->run->arena, t->ext, &t->extcap,
			    t->next, t->next + 1, sizeof(*t->ext));
		t->ext[t->next++] = x;
	}
}

/* A slot's place in prompt_order, doubled, so that before and after a
 * prompt fall between it and its neighbours; a slot not in the order
 * (a marker appended) comes after them all. */
static long
own_rank(const struct tb *t, const char *id)
{
	long k = own_order_index(t->p, id);

	return k < 0 ? LONG_MAX : 2 * k;
}

/*
 * The system entries: one system prompt per place, the entries of each
 * joined in strata's order -- right after main unless an entry names an
 * anchor (before or after a prompt of prompt_order; at the top when the
 * order has no main).
 */
static void
own_system(struct tb *t)
{
	const struct tavern_input *in = t->in;
	struct arena *a = &t->run->arena;
	struct slot *groups, *v;
	long *ranks, mainx = own_order_index(t->p, "main");
	size_t i, k, ng = 0, nv = 0;

	groups = arena_array(a, in->nentries + 1, sizeof(*groups));
	ranks = arena_array(a, in->nentries + 1, sizeof(*ranks));
	for (i = 0; i < in->nentries; i++) {
		const struct tavern_entry *e = &in->entries[i];
		const char *where, *id;
		long rank;
		uint32_t it, *one;

		if (e->place != TAVERN_PLACE_SYSTEM)
			continue;
		it = own_item(t, e, -1, NULL);
		if (e->reason)
			continue;
		if (e->anchor) {
			rank = 2 * own_order_index(t->p, e->anchor) +
			    (e->before ? -1 : 1);
			where = arena_printf(a, "%s %s", e->before ? "before" :
			    "after", e->anchor);
		} else {
			rank = mainx < 0 ? -1 : 2 * mainx + 1;
			where = mainx < 0 ? "first: prompt_order has no main" :
			    "after main";
		}
		item_note(t, it, e->note ? arena_printf(a, "%s; %s", where,
		    e->note) : where);
		id = arena_printf(a, "strata:%s", where);
		for (k = 0; k < ng && strcmp(groups[k].id, id); k++)
			;
		if (k == ng) {
			memset(&groups[ng], 0, sizeof(groups[ng]));
			groups[ng].id = id;
			ranks[ng++] = rank;
			push(t->run, &groups[k].msgs, "system", NULL, e->text,
			    "strata");
			last_holds(t, &groups[k].msgs, it);
			continue;
		}
		/* One more entry of that place: joined to the prompt. */
		groups[k].msgs.v[0].content = arena_printf(a, "%s%s%s",
		    groups[k].msgs.v[0].content, in->joiner ? in->joiner :
		    "\n\n", e->text);
		one = arena_array(a, 1, sizeof(*one));
		*one = it;
		t->rep->items[it].sep = in->joiner ? in->joiner : "\n\n";
		groups[k].msgs.v[0].items = items_cat(t,
		    groups[k].msgs.v[0].items, groups[k].msgs.v[0].nitems,
		    one, 1);
		groups[k].msgs.v[0].nitems++;
	}
	if (!ng)
		return;
	/* Merge the groups (stable by rank) into the slots, in order. */
	for (i = 1; i < ng; i++)
		for (k = i; k > 0 && ranks[k - 1] > ranks[k]; k--) {
			struct slot sx = groups[k];
			long rx = ranks[k];

			groups[k] = groups[k - 1];
			ranks[k] = ranks[k - 1];
			groups[k - 1] = sx;
			ranks[k - 1] = rx;
		}
	v = arena_array(a, t->nslots + ng + 1, sizeof(*v));
	for (i = 0, k = 0; i < t->nslots; i++) {
		long r = own_rank(t, t->slots[i].id);

		while (k < ng && ranks[k] < r)
			v[nv++] = groups[k++];
		v[nv++] = t->slots[i];
	}
	while (k < ng)
		v[nv++] = groups[k++];
	t->slots = v;
	t->nslots = t->slotcap = nv;
}

/* The user-context entries (context blocks), before the text of this
 * turn's message, as a build without SillyTavern puts them: joined by a
 * blank line.  Only a message of the user's, the chat's newest, takes
 * them; not on continue or impersonate. */
static void
own_context(struct tb *t, struct tlist *hist)
{
	const struct tavern_input *in = t->in;
	struct arena *a = &t->run->arena;
	struct tmsg *m = hist->n ? &hist->v[hist->n - 1] : NULL;
	const char *why = NULL;
	struct buf b = BUF_INIT;
	uint32_t *vi = NULL, nv = 0;
	size_t i;

	if (strcmp(t->type, "continue") == 0 ||
	    strcmp(t->type, "impersonate") == 0)
		why = arena_printf(a, "--type %s sends no message of the "
		    "user's", t->type);
	else if (!m || strcmp(m->role, "user") || !t->chat.n ||
	    !t->chat.msgs[t->chat.n - 1].is_user)
		why = "the chat does not end with a message of the user's";
	for (i = 0; i < in->nentries; i++) {
		const struct tavern_entry *e = &in->entries[i];
		uint32_t it;

		if (e->place != TAVERN_PLACE_USER)
			continue;
		it = own_item(t, e, -1, "user-context");
		if (e->reason)
			continue;
		if (why) {
			item_out(t, it, "no user message", why);
			continue;
		}
		if (!vi)
			vi = arena_array(a, in->nentries + m->nitems + 1,
			    sizeof(*vi));
		vi[nv++] = it;
		buf_puts(&b, e->text);
		buf_puts(&b, "\n\n");
		item_note(t, it, "before the text of this turn's message");
	}
	if (nv) {
		resolve(t, m);
		buf_puts(&b, m->content);
		buf_putc(&b, '\0');
		m->content = arena_strdup(a, b.data);
		memcpy(vi + nv, m->items, m->nitems * sizeof(*vi));
		for (i = 1; i <= nv; i++)
			t->rep->items[vi[i]].sep = "\n\n";
		m->items = vi;
		m->nitems += nv;
	}
	buf_free(&b);
}

/* --- squash and post-processing --- */

static bool
squashable(const struct tmsg *m)
{
	return strcmp(m->role, "system") == 0 && !m->name && !(m->id &&
	    (strcmp(m->id, "newMainChat") == 0 || strcmp(m->id, "newChat") ==
	    0 || strcmp(m->id, "groupNudge") == 0));
}

/* m joins o: its text after sep, its items after o's. */
static void
absorb(struct tb *t, struct tmsg *o, const struct tmsg *m, const char *sep)
{
	o->content = arena_printf(&t->run->arena, "%s%s%s", o->content, sep,
	    m->content);
	o->items = items_cat(t, o->items, o->nitems, m->items, m->nitems);
	o->nitems += m->nitems;
}

static void
squash(struct tb *t, struct tlist *l)
{
	struct tlist out = { NULL, 0, 0 };
	size_t i;

	for (i = 0; i < l->n; i++) {
		struct tmsg *m = &l->v[i];

		if (strcmp(m->role, "system") == 0 && !*m->content)
			continue;
		if (out.n && squashable(m) && squashable(&out.v[out.n - 1])) {
			absorb(t, &out.v[out.n - 1], m, "\n");
			continue;
		}
		push_m(t->run, &out, m);
	}
	*l = out;
}

/* "Name: " before content, unless it is there already. */
static const char *
prefixed(struct arena *a, const char *who, const char *content)
{
	size_t n = strlen(who);

	/* SillyTavern's startsWith(`${name}: `), the space included. */
	if (strncmp(content, who, n) == 0 && content[n] == ':' &&
	    content[n + 1] == ' ')
		return content;
	return arena_printf(a, "%s: %s", who, content);
}

/* Join runs of one role with "\n\n". */
static void
merge_roles(struct tb *t, struct tlist *l)
{
	struct tlist out = { NULL, 0, 0 };
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct tmsg *m = &l->v[i];

		if (out.n && strcmp(out.v[out.n - 1].role, m->role) == 0) {
			absorb(t, &out.v[out.n - 1], m, "\n\n");
			continue;
		}
		push_m(t->run, &out, m);
		out.v[out.n - 1].name = NULL;
	}
	*l = out;
}

/* The server's custom_prompt_post_processing (merge, semi, strict,
 * single), after the names went into the contents. */
static void
post_process(struct tb *t, struct tlist *l)
{
	struct arena *a = &t->run->arena;
	enum preset_post mode = t->p->post;
	size_t i;

	if (mode == PRESET_POST_NONE)
		return;
	for (i = 0; i < l->n; i++) {
		struct tmsg *m = &l->v[i];
		const char *who = m->name;

		if (!who)
			continue;
		if (strcmp(m->role, "system") == 0)
			who = strcmp(who, "example_assistant") == 0 ?
			    t->char_name : strcmp(who, "example_user") == 0 ?
			    t->user_name : NULL;
		if (who)
			m->content = prefixed(a, who, m->content);
		m->name = NULL;
	}
	if (mode == PRESET_POST_SINGLE) {
		struct buf b = BUF_INIT;
		struct tlist out = { NULL, 0, 0 };
		uint32_t *all = NULL, nall = 0;

		for (i = 0; i < l->n; i++)
			nall += l->v[i].nitems;
		all = arena_array(a, (size_t)nall + 1, sizeof(*all));
		nall = 0;
		for (i = 0; i < l->n; i++) {
			memcpy(all + nall, l->v[i].items, l->v[i].nitems *
			    sizeof(*all));
			nall += l->v[i].nitems;
		}

		for (i = 0; i < l->n; i++) {
			const struct tmsg *m = &l->v[i];
			const char *c = m->content;

			if (strcmp(m->role, "user") == 0)
				c = prefixed(a, t->user_name, c);
			else if (strcmp(m->role, "assistant") == 0)
				c = prefixed(a, t->char_name, c);
			if (b.len)
				buf_puts(&b, "\n\n");
			buf_puts(&b, c);
		}
		buf_putc(&b, '\0');
		push(t->run, &out, "user", NULL, arena_strdup(a, b.data),
		    NULL);
		out.v[0].items = all;
		out.v[0].nitems = nall;
		buf_free(&b);
		*l = out;
		return;
	}
	merge_roles(t, l);
	if (mode == PRESET_POST_SEMI || mode == PRESET_POST_STRICT) {
		for (i = 1; i < l->n; i++)
			if (strcmp(l->v[i].role, "system") == 0)
				l->v[i].role = "user";
		merge_roles(t, l);
	}
	if (mode == PRESET_POST_STRICT && l->n) {
		/* Start with system then user, or with user. */
		size_t at = strcmp(l->v[0].role, "system") == 0 ? 1 : 0;

		if (at >= l->n || strcmp(l->v[at].role, "user")) {
			struct tmsg ph = { .role = "user",
			    .content = t->s.strict_placeholder };

			holds(t, &ph, item_add(t, "placeholder", "settings",
			    "user", -1, t->s.strict_placeholder));
			item_note(t, ph.items[0], "strict post-processing: "
			    "a user message first");

			insert_at(t->run, l, at, &ph);
		}
	}
}

/*
 * What SillyTavern 1.15's backend makes of the prompt for Claude and
 * Google (src/prompt-converters.js), so that -f anthropic and -f gemini
 * send what it would.  With use_sysprompt the leading system messages
 * are the system prompt, one block (part) each -- for Google while
 * another message follows -- and an example's gets its speaker's name
 * unless it starts with it; every other system message is the user's.
 * Claude: a named message gets "name: " in front (an example's as
 * above), an empty text is U+200B, every message is a list of text
 * blocks (the emitter keeps them apart when it joins a role's run), the
 * user message "[Start a new chat]" goes first when the messages do not
 * start with the user's (SillyTavern: only when there are none), and the
 * preset's assistant prefill comes last.  Google (no system prompt for a
 * Gemma model):
 * names as for examples, and a role's run joined with a blank line.
 */
static void
provider_shape(struct tb *t, struct tlist *l, bool claude)
{
	struct arena *a = &t->run->arena;
	/* Google's Gemma models take no system instruction. */
	bool sys = t->p->sysprompt && (claude || !t->env.model ||
	    !strstr(t->env.model, "gemma"));
	size_t i, lead = 0;

	while (sys && lead < l->n && strcmp(l->v[lead].role, "system") == 0 &&
	    (claude || lead + 1 < l->n))
		lead++;
	for (i = 0; i < l->n; i++) {
		struct tmsg *m = &l->v[i];
		const char *who = m->name;
		bool example = who && (strcmp(who, "example_user") == 0 ||
		    strcmp(who, "example_assistant") == 0);

		if (example)
			who = strcmp(who, "example_user") == 0 ?
			    t->user_name : t->char_name;
		/* Claude drops a system message's own name; Google keeps
		 * it out of the system prompt only. */
		if (who && *who && (example || (claude ? strcmp(m->role,
		    "system") != 0 : i >= lead)))
			m->content = claude && !example ? arena_printf(a,
			    "%s: %s", who, m->content) : prefixed(a, who,
			    m->content);
		m->name = NULL;
		if (i >= lead && strcmp(m->role, "system") == 0)
			m->role = "user";
		if (claude && i >= lead) {
			if (!*m->content)
				m->content = "\xe2\x80\x8b";
			m->blocks = true;
		}
	}
	if (claude && (lead == l->n || strcmp(l->v[lead].role, "user"))) {
		/* SillyTavern adds it only after a system prompt that is
		 * all there is; a first message of the character's it sends
		 * as it is, and Claude refuses the request.  strata sends
		 * what Claude takes.  The text is SillyTavern's
		 * promptPlaceholder, as for strict post-processing. */
		struct tmsg ph = { .role = "user",
		    .content = t->s.strict_placeholder, .blocks = true };

		holds(t, &ph, item_add(t, "promptPlaceholder", "settings",
		    "user", -1, ph.content));
		item_note(t, ph.items[0], lead == l->n ? "Claude: a user "
		    "message after a system prompt that is all there is" :
		    "Claude: the messages must start with the user's");
		insert_at(t->run, l, lead, &ph);
	}
	if (claude && strcmp(t->type, "quiet") && !(strcmp(t->type,
	    "continue") == 0 && t->p->continue_prefill)) {
		bool imp = strcmp(t->type, "impersonate") == 0;
		const char *raw = imp ? t->p->assistant_impersonation :
		    t->p->assistant_prefill;
		const char *s = sub(t, raw);
		size_t n = strlen(s);
		uint32_t it;

		/* JavaScript's trimEnd(); only a non-empty prefill counts. */
		while (n && isspace((unsigned char)s[n - 1]))
			n--;
		if (*s) {
			it = item_add(t, imp ? "assistantImpersonation" :
			    "assistantPrefill", "preset", "assistant", -1, raw);
			s = arena_strndup(a, s, n);
			item_stage(t, it, TAVERN_STAGE_MACROS, s);
			item_note(t, it, "Claude: the reply starts with it");
			push_item(t, l, "assistant", NULL, *s ? s :
			    "\xe2\x80\x8b", NULL, it);
			l->v[l->n - 1].blocks = true;
		}
	}
	if (!claude) {
		/* Join each role's run after the system prompt. */
		struct tlist rest = { l->v + lead, l->n - lead, l->n - lead };

		merge_roles(t, &rest);
		l->n = lead;
		for (i = 0; i < rest.n; i++)
			push_m(t->run, l, &rest.v[i]);
	}
}

/* For a format whose messages carry no name (the Responses API,
 * Ollama): each name into its text as SillyTavern's converters put it
 * for such providers, an example's as the user's or the character's,
 * unless the text starts with it. */
static void
names_in_text(struct tb *t, struct tlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		struct tmsg *m = &l->v[i];
		const char *who = m->name;

		if (who && strcmp(who, "example_user") == 0)
			who = t->user_name;
		else if (who && strcmp(who, "example_assistant") == 0)
			who = t->char_name;
		if (who && *who)
			m->content = prefixed(&t->run->arena, who, m->content);
		m->name = NULL;
	}
}

/* The preset's Claude samplers; the Claude models SillyTavern limits
 * (Opus 4.1 and 4.5, Sonnet 4.5, Haiku 4.5) take temperature or top_p,
 * not both: top_p when it is below 1, else temperature. */
static const struct node *
claude_params(struct tb *t)
{
	static const char *const limited[] = { "claude-opus-4-1",
		"claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-5" };
	struct arena *a = &t->run->arena;
	const struct node *b = t->p->body_claude, *tp;
	const char *drop;
	struct node *out;
	size_t i;

	for (i = 0; i < LEN(limited) && !(t->env.model && strncmp(
	    t->env.model, limited[i], strlen(limited[i])) == 0); i++)
		;
	if (i == LEN(limited))
		return b;
	tp = tree_get(b, "top_p");
	drop = tp && (tp->kind == NODE_INT ? tp->u.i < 1 : tp->kind ==
	    NODE_FLOAT && tp->u.f < 1) ? "temperature" : "top_p";
	out = tree_copy(a, b);
	tree_remove(a, out, drop, strlen(drop));
	return out;
}

/* The OpenAI body's samplers the Responses API has (SillyTavern has no
 * such source): temperature, max_tokens, stream and top_p; no
 * penalties, seed or stop strings. */
static const struct node *
responses_params(struct tb *t)
{
	static const char *const drop[] = { "presence_penalty",
		"frequency_penalty", "seed" };
	struct node *out = tree_copy(&t->run->arena, t->p->body);
	size_t k;

	for (k = 0; k < LEN(drop); k++)
		tree_remove(&t->run->arena, out, drop[k], strlen(drop[k]));
	return out;
}

/* The samplers b with the settings' custom stopping strings as "stop"
 * (strata's name; each emitter writes its provider's), as SillyTavern
 * sends them: macros run on them unless custom_stopping_strings_macro is
 * off; the first 4 for an OpenAI-compatible source, all for Claude, and
 * for Google those of the first 5 that are 1 to 16 UTF-16 units long. */
static const struct node *
with_stops(struct tb *t, const struct node *b)
{
	struct arena *a = &t->run->arena;
	size_t max = t->format == FORMAT_ANTHROPIC ? SIZE_MAX :
	    t->format == FORMAT_GEMINI ? 5 : 4, i, u;
	struct node *out, *list;

	/* The Responses API has no stop strings; the views show them as
	 * the OpenAI-compatible body has them. */
	if (!t->s.nstops || t->format == FORMAT_RESPONSES)
		return b;
	out = tree_copy(a, b);
	list = tree_array(a);
	for (i = 0; i < t->s.nstops && i < max; i++) {
		const char *x = t->s.stops_macros ? sub(t, t->s.stops[i]) :
		    t->s.stops[i];

		u = utf16_length(x, strlen(x));
		if (t->format == FORMAT_GEMINI && (u < 1 || u > 16))
			continue;
		tree_push(a, list, tree_str(a, x));
	}
	if (list->u.array.n)
		tree_put(a, out, "stop", list);
	return out;
}

/* The connection field key: the preset's when it has it (SillyTavern
 * 1.15 binds a preset's connection fields when it is picked), else
 * settings.json's oai_settings. */
static const char *
connection_str(struct tb *t, const char *key)
{
	const struct node *v = tree_get(t->p->root, key), *oai;

	if (!v && t->s.root && (oai = tree_get(t->s.root, "oai_settings")))
		v = tree_get(oai, key);
	return v && v->kind == NODE_STRING ? v->u.str.s : "";
}

/* YAML text s parsed into the run's arena; NULL (and a warning) when it
 * is not YAML. */
static struct node *
yaml_value(struct tb *t, const char *what, const char *s)
{
	struct run quiet;
	struct node *n = NULL, *r = NULL;

	run_init(&quiet);
	quiet.diag.capped = true;
	if (yamltree_parse(&quiet, run_source_mem(&quiet, what, s,
	    strlen(s)), &n))
		r = tree_copy(&t->run->arena, n);
	run_free(&quiet);
	if (!r)
		diag_plain(t->run, DIAG_WARNING, MSG_TAVERN_YAML_BODY, what);
	return r;
}

/* A body field the YAML may set or remove: not messages, model and
 * tools, which strata's emitters own. */
static bool
body_key(const char *k)
{
	return strcmp(k, "messages") && strcmp(k, "model") &&
	    strcmp(k, "tools");
}

/* Set mb on the body: in place when the body has it, else among the
 * fields sent as written (params' own "openai" table). */
static void
body_set(struct arena *a, struct node *out, const struct member *mb)
{
	struct node *own;

	if (tree_get(out, mb->key) && strcmp(mb->key, "openai")) {
		tree_set(a, out, mb->key, mb->keylen, 0, span_make(0, 0),
		    mb->value);
		return;
	}
	own = (struct node *)tree_get(out, "openai");
	if (!own || own->kind != NODE_TABLE)
		own = tree_put(a, out, "openai", tree_table(a));
	tree_set(a, own, mb->key, mb->keylen, 0, span_make(0, 0), mb->value);
}

/* Remove key from the body and from the fields sent as written. */
static void
body_remove(struct arena *a, struct node *out, const char *key, size_t len)
{
	struct node *own = (struct node *)tree_get(out, "openai");

	tree_remove(a, out, key, len);
	if (own && own->kind == NODE_TABLE)
		tree_remove(a, own, key, len);
}

/*
 * A custom OpenAI-compatible source's custom_include_body (YAML: a
 * mapping, or a list of mappings, whose keys are set on the body, a key
 * already there keeping its place) and custom_exclude_body (YAML: a list
 * of keys, a mapping whose keys, or one key, are removed), as
 * SillyTavern's server applies them.
 */
static const struct node *
custom_body(struct tb *t, const struct node *b)
{
	struct arena *a = &t->run->arena;
	const char *inc = connection_str(t, "custom_include_body");
	const char *exc = connection_str(t, "custom_exclude_body");
	struct node *out, *y;
	size_t i, j;

	if (t->format != FORMAT_OPENAI || (!*inc && !*exc))
		return b;
	out = b ? tree_copy(a, b) : tree_table(a);
	if (*inc && (y = yaml_value(t, "custom_include_body", inc))) {
		for (i = 0; i < (y->kind == NODE_ARRAY ? y->u.array.n : 1);
		    i++) {
			const struct node *m = y->kind == NODE_ARRAY ?
			    y->u.array.items[i] : y;

			for (j = 0; m->kind == NODE_TABLE && j < m->u.table.n;
			    j++) {
				const struct member *mb = &m->u.table.items[j];

				if (body_key(mb->key))
					body_set(a, out, mb);
			}
		}
	}
	if (*exc && (y = yaml_value(t, "custom_exclude_body", exc))) {
		if (y->kind == NODE_ARRAY) {
			for (i = 0; i < y->u.array.n; i++)
				if (y->u.array.items[i]->kind == NODE_STRING &&
				    body_key(y->u.array.items[i]->u.str.s))
					body_remove(a, out,
					    y->u.array.items[i]->u.str.s,
					    y->u.array.items[i]->u.str.len);
		} else if (y->kind == NODE_TABLE) {
			for (i = 0; i < y->u.table.n; i++)
				if (body_key(y->u.table.items[i].key))
					body_remove(a, out,
					    y->u.table.items[i].key,
					    y->u.table.items[i].keylen);
		} else if (y->kind == NODE_STRING && body_key(y->u.str.s)) {
			body_remove(a, out, y->u.str.s, y->u.str.len);
		}
	}
	return out;
}

/* --- the driver --- */

bool
tavern_wanted(const struct tavern_input *in, const struct node *pt)
{
	return pt || in->card || in->preset || in->chat || in->settings ||
	    in->nworlds || in->nregex;
}

static const char *
relative(struct run *run, const char *dir, const struct node *v)
{
	if (!dir || v->u.str.s[0] == '/')
		return v->u.str.s;
	return arena_printf(&run->arena, "%s/%s", dir, v->u.str.s);
}

static const char *const *
path_list(struct run *run, const char *dir, const struct node *arr,
    const char *const *cli, size_t ncli, size_t *n)
{
	size_t na = arr ? arr->u.array.n : 0, i;
	const char **v = arena_array(&run->arena, na + ncli + 1, sizeof(*v));

	for (i = 0; i < na; i++)
		v[i] = relative(run, dir, arr->u.array.items[i]);
	for (i = 0; i < ncli; i++)
		v[na + i] = cli[i];
	*n = na + ncli;
	return v;
}

bool
tavern_input_profile(struct run *run, struct tavern_input *in,
    const struct node *t, const char *profile_path)
{
	static const char *const keys[] = { "card", "preset", "chat",
		"settings" };
	const char **slots[4];
	const char *dir = NULL, *slash;
	const struct node *v;
	size_t i;

	if (!t)
		return true;
	if (profile_path && (slash = strrchr(profile_path, '/')))
		dir = arena_strndup(&run->arena, profile_path,
		    (size_t)(slash - profile_path));
	slots[0] = &in->card;
	slots[1] = &in->preset;
	slots[2] = &in->chat;
	slots[3] = &in->settings;
	for (i = 0; i < LEN(keys); i++)
		if (!*slots[i] && (v = tree_get(t, keys[i])))
			*slots[i] = relative(run, dir, v);
	if (!in->persona_name && (v = tree_get(t, "user")))
		in->persona_name = v->u.str.s;
	if (!in->persona && (v = tree_get(t, "persona")))
		in->persona = v->u.str.s;
	in->worlds = path_list(run, dir, tree_get(t, "worlds"), in->worlds,
	    in->nworlds, &in->nworlds);
	in->regex = path_list(run, dir, tree_get(t, "regex"), in->regex,
	    in->nregex, &in->nregex);
	return true;
}

static bool
check_options(struct run *run, const struct tavern_input *in)
{
	int64_t ms;
	uint64_t seed;

	if (in->now && !clock_parse(in->now, &ms)) {
		diag_plain(run, DIAG_ERROR, MSG_SESSION_BAD_TIME, in->now);
		return false;
	}
	if (in->seed && !macros_seed(in->seed, &seed)) {
		diag_plain(run, DIAG_ERROR, MSG_TAVERN_SEED, in->seed);
		return false;
	}
	return true;
}

static bool
check_type(struct run *run, const char *type)
{
	static const char *const types[] = { "normal", "continue",
		"impersonate", "swipe", "regenerate", "quiet" };
	size_t i;

	if (!type)
		return true;
	for (i = 0; i < LEN(types); i++)
		if (strcmp(type, types[i]) == 0)
			return true;
	diag_plain(run, DIAG_ERROR, MSG_TAVERN_TYPE, type);
	return false;
}

/* What the build changed that the chat keeps (struct tavern_state):
 * the variables whose text is not what was loaded (before), the timed
 * world-info state, a new chat's greeting. */
static const struct node *
vars_changed(struct tb *t, const struct macro_vars *now,
    const struct macro_var *before, size_t nbefore)
{
	struct arena *a = &t->run->arena;
	struct node *vars = NULL;
	size_t i, k;

	for (i = 0; i < now->n; i++) {
		const struct macro_var *v = &now->v[i];

		for (k = 0; k < nbefore; k++)
			if (strcmp(before[k].name, v->name) == 0)
				break;
		if (k < nbefore && strcmp(before[k].value, v->value) == 0)
			continue;
		if (!vars)
			vars = tree_table(a);
		tree_put(a, vars, v->name, tree_str(a, v->value));
	}
	return vars;
}

static void
save_state(struct tb *t, const struct macro_var *before, size_t nbefore,
    const struct macro_var *gbefore, size_t ngbefore,
    struct tavern_state *st)
{
	struct arena *a = &t->run->arena;
	struct node *vars = NULL;
	size_t i, k;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < t->locals.n; i++) {
		const struct macro_var *v = &t->locals.v[i];

		for (k = 0; k < nbefore; k++)
			if (strcmp(before[k].name, v->name) == 0)
				break;
		if (k < nbefore && strcmp(before[k].value, v->value) == 0)
			continue;
		if (!vars)
			vars = tree_table(a);
		tree_put(a, vars, v->name, tree_str(a, v->value));
	}
	st->vars_changed = vars;
	st->globals_changed = vars_changed(t, &t->globals, gbefore, ngbefore);
	vars = tree_table(a);
	for (i = 0; i < t->globals.n; i++)
		tree_set(a, vars, t->globals.v[i].name,
		    strlen(t->globals.v[i].name), 0, span_make(0, 0),
		    tree_str(a, t->globals.v[i].value));
	st->globals = vars;
	st->timed = t->wi.timed;
	if (!chat_given(t->in) && t->chat.n && !t->chat.msgs[0].is_user) {
		st->greeting = t->chat.msgs[0].text;
		st->char_name = t->char_name;
	}
	if (t->in->user && *t->in->user && strcmp(t->type, "normal") == 0 &&
	    t->chat.n && t->chat.msgs[t->chat.n - 1].is_user) {
		st->user = t->chat.msgs[t->chat.n - 1].text;
		st->user_name = t->user_name;
	}
}

bool
tavern_build(struct run *run, const struct tavern_input *in, struct chat *c)
{
	struct macro_var *before, *gbefore;
	size_t nbefore, ngbefore;
	struct tb t;
	struct tavern_seams seams;
	struct tlist hist = { NULL, 0, 0 }, all = { NULL, 0, 0 };
	struct inj *injs;
	size_t ninj, i, j;

	memset(&t, 0, sizeof(t));
	t.run = run;
	t.in = in;
	t.format = c->format;
	t.rep = arena_array(&run->arena, 1, sizeof(*t.rep));
	/* Seams left unset get their defaults. */
	tavern_seams_default(&seams);
	if (in->seams.tokens.count)
		seams.tokens = in->seams.tokens;
	if (in->seams.wi.scan)
		seams.wi = in->seams.wi;
	if (in->seams.regex.apply)
		seams.regex = in->seams.regex;
	else
		seams.regex.load = NULL;
	t.seams = &seams;
	if (!check_type(run, in->type) || !check_options(run, in) ||
	    !read_inputs(&t))
		return false;
	setup_env(&t);
	if (!own_anchors(&t))
		return false;
	/* The chat's variables as loaded: the state saved is what changed. */
	nbefore = t.locals.n;
	before = arena_array(&run->arena, nbefore + 1, sizeof(*before));
	if (nbefore)
		memcpy(before, t.locals.v, nbefore * sizeof(*before));
	ngbefore = t.globals.n;
	gbefore = arena_array(&run->arena, ngbefore + 1, sizeof(*gbefore));
	if (ngbefore)
		memcpy(gbefore, t.globals.v, ngbefore * sizeof(*gbefore));
	t.env.model = c->model;
	card_fields(&t);
	if (!regex_scope(&t) || !chat_messages(&t) || !authors_note(&t))
		return false;
	/* An item for each chat message and prompt, and room for more. */
	t.rep->items = avec_grow(&run->arena, t.rep->items, &t.rep->cap,
	    t.rep->n, t.chat.n + t.p->nprompts + 64, sizeof(*t.rep->items));
	depth_prompts(&t);
	if (!world_info(&t))
		return false;
	own_inchat(&t);
	qsort(t.ext, t.next, sizeof(*t.ext), ext_cmp);

	collect(&t, &injs, &ninj);
	main_extensions(&t);
	own_system(&t);
	if (strcmp(t.type, "impersonate") == 0) {
		const char *s = sub(&t, t.p->impersonation_prompt);
		uint32_t it = item_add(&t, "impersonate", "preset", "system",
		    -1, t.p->impersonation_prompt);

		item_stage(&t, it, TAVERN_STAGE_MACROS, s);
		if (*s)
			push_item(&t, &slot_add(&t, "impersonate")->msgs,
			    "system", NULL, s, "impersonate", it);
		else
			item_empty(&t, it);
	}
	if (t.quiet) {
		uint32_t it = item_add(&t, "quietPrompt", "chat", "system",
		    -1, t.in->user);

		item_stage(&t, it, TAVERN_STAGE_MACROS, t.quiet);
		if (*t.quiet)
			push_item(&t, &slot_add(&t, "quietPrompt")->msgs,
			    "system", NULL, t.quiet, "quietPrompt", it);
		else
			item_empty(&t, it);
	}
	history(&t, &hist);
	if (strcmp(t.type, "continue") == 0 && t.chat.n)
		continued(&t, &hist, true);
	own_context(&t, &hist);
	inject(&t, &hist, injs, ninj);
	if (strcmp(t.type, "continue") == 0 && t.chat.n)
		continued(&t, &hist, false);
	t.budget = (long)(t.p->max_context - t.p->max_tokens) - 3;
	if (!fill(&t, &hist))
		return false;

	for (i = 0; i < t.nslots; i++)
		for (j = 0; j < t.slots[i].msgs.n; j++) {
			const struct tmsg *m = &t.slots[i].msgs.v[j];

			push_m(run, &all, m);
		}
	if (t.p->squash)
		squash(&t, &all);
	post_process(&t, &all);
	if (c->format == FORMAT_ANTHROPIC || c->format == FORMAT_GEMINI)
		provider_shape(&t, &all, c->format == FORMAT_ANTHROPIC);
	else if (c->format == FORMAT_RESPONSES || c->format == FORMAT_OLLAMA)
		names_in_text(&t, &all);

	c->params = custom_body(&t, with_stops(&t, c->format ==
	    FORMAT_ANTHROPIC ? claude_params(&t) : c->format ==
	    FORMAT_GEMINI ? t.p->body_google : c->format ==
	    FORMAT_RESPONSES ? responses_params(&t) : t.p->body));
	c->max_tokens = 0;
	c->world_info = t.wi.detail;
	c->msgs = arena_array(&run->arena, all.n + 1, sizeof(*c->msgs));
	t.rep->msg_items = arena_array(&run->arena, all.n + 1,
	    sizeof(*t.rep->msg_items));
	t.rep->msg_nitems = arena_array(&run->arena, all.n + 1,
	    sizeof(*t.rep->msg_nitems));
	c->cap = all.n + 1;
	c->n = 0;
	for (i = 0; i < all.n; i++) {
		struct message *m = &c->msgs[c->n++];

		memset(m, 0, sizeof(*m));
		m->role = strcmp(all.v[i].role, "user") == 0 ? ROLE_USER :
		    strcmp(all.v[i].role, "assistant") == 0 ?
		    ROLE_ASSISTANT : ROLE_SYSTEM;
		m->name = all.v[i].name;
		m->content = all.v[i].content;
		m->len = strlen(m->content);
		if (all.v[i].blocks) {
			struct message_extra *x = arena_alloc(&run->arena,
			    sizeof(*x));
			struct part *pt = arena_alloc(&run->arena,
			    sizeof(*pt));

			pt->kind = PART_TEXT;
			pt->data = m->content;
			pt->len = m->len;
			x->parts = pt;
			x->nparts = 1;
			m->x = x;
		}
		m->origin = m->role == ROLE_SYSTEM && (i == 0 ||
		    c->msgs[i - 1].origin[0] == 's') ? "system" : "history";
		t.rep->msg_items[i] = all.v[i].items;
		t.rep->msg_nitems[i] = all.v[i].nitems;
		for (j = 0; j < all.v[i].nitems; j++)
			t.rep->items[all.v[i].items[j]].message = (long)i;
	}
	/* What was decided nowhere else: in no message, for no reason. */
	for (i = 0; i < t.rep->n; i++)
		if (t.rep->items[i].message < 0 && !t.rep->items[i].reason &&
		    strcmp(t.rep->items[i].id, "chatHistory") &&
		    strcmp(t.rep->items[i].id, "dialogueExamples"))
			item_out(&t, (uint32_t)i, "not placed", NULL);
	t.rep->budget = t.budget;
	t.rep->used = t.used;
	t.rep->type = t.type;
	t.rep->tokenizer = seams.tokens.name;
	c->tavern = t.rep;
	if (in->state)
		save_state(&t, before, nbefore, gbefore, ngbefore,
		    in->state);
	return true;
}
