/*
 * tbuild_read: the build's inputs, read by tavern_read() in the
 * pipeline's front half (the settings, the card or a group's, the
 * preset, the chat, the --world and --regex files) and taken by the build (a sandbox's messages as the
 * chat), the macro environment and the card fields.
 */
#include "tavern/tbuild_int.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/path.h"
#include "base/util.h"
#include "base/vec.h"
#include "data/json.h"
#include "data/tree.h"
#include "data/yamltree.h"
#include "diag/run.h"
#include "text/macros.h"
#include "prompt/chat.h"
#include "tavern/card.h"
#include "tavern/field.h"
#include "tavern/ftav.h"
#include "tavern/macro.h"
#include "tavern/preset.h"
#include "tavern/settings.h"
#include "tavern/tchat.h"
#include "tavern/titem.h"
#include "world/world.h"

/* getCharacterCardFields' baseChatReplace: trim, substitute (without
 * the card macros), collapse newlines if asked, drop \r.  field names
 * the card's field (NULL: the persona description). */
static const char *
card_field(struct tb *t, const char *field, const char *s)
{
	struct arena *a = &t->run->arena;

	s = tb_trim(a, s);
	if (!*s)
		return "";
	return tb_card_text(t, field ? arena_printf(a, "card '%s', field %s",
	    t->in->card, field) : "the persona description", s);
}

/* baseChatReplace: substitute (without the card macros), collapse
 * newlines if asked, drop \r. */
const char *
tb_card_text(struct tb *t, const char *asset, const char *s)
{
	struct arena *a = &t->run->arena;
	const char *r;

	if (!*s)
		return "";
	t->env.card_macros = false;
	r = tb_sub_as(t, asset, s);
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
	return tb_strip_cr(a, r);
}

/* --- inputs --- */

/* A chat of the build's own: a chat file, or a sandbox's messages. */
bool
tb_chat_given(const struct tavern_input *in)
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
		bool is_user = tb_role_of(m->role) == ROLE_USER;

		tchat_add(t->run, &t->chat, m->name ? m->name : is_user ?
		    user : t->card->name.s, m->text, is_user);
		t->chat.msgs[t->chat.n - 1].narrator =
		    t->chat.all[t->chat.nall - 1].narrator =
		    tb_role_of(m->role) == ROLE_SYSTEM;
		if (m->thinking)
			t->chat.msgs[t->chat.n - 1].thinking = m;
	}
}

static bool
check_options(struct run *run, const struct tavern_input *in,
    struct tavern_files *f)
{
	uint64_t seed;

	if (in->has_now) {
		f->now_ms = in->now_ms;
	} else if (!in->now) {
		f->now_ms = clock_now_ms();
	} else if (!clock_parse(in->now, &f->now_ms)) {
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
	enum tavern_gen g;

	if (!type || tavern_gen_parse(type, &g))
		return true;
	diag_plain(run, DIAG_ERROR, MSG_TAVERN_TYPE, type);
	return false;
}

/* The --world files into f->worlds, each named by its file. */
static bool
read_worlds(struct run *run, const struct tavern_input *in,
    struct tavern_files *f)
{
	struct arena *a = &run->arena;
	bool ok = true;
	size_t i;

	f->worlds = arena_array(a, in->nworlds + 1, sizeof(*f->worlds));
	for (i = 0; i < in->nworlds; i++) {
		struct source *src = field_read(run, in->worlds[i],
		    in->worlds_at ? in->worlds_at[i] : NULL);
		struct world *w = arena_alloc(a, sizeof(*w));

		if (src && world_read(run, src, world_file_name(a,
		    in->worlds[i]), w))
			f->worlds[i] = w;
		else
			ok = false;
	}
	return ok;
}

/* The --regex files into f->regex: SillyTavern's scripts, or
 * fast-tavern's rules (targets, view) as SillyTavern's scripts. */
static bool
read_regex(struct run *run, const struct tavern_input *in,
    struct tavern_files *f)
{
	bool ok = true;
	size_t i;

	f->regex = arena_array(&run->arena, in->nregex + 1,
	    sizeof(*f->regex));
	for (i = 0; i < in->nregex; i++) {
		struct source *src = field_read(run, in->regex[i],
		    in->regex_at ? in->regex_at[i] : NULL);
		struct node *n, *ft;

		if (!src || !json_parse(run, src, &n)) {
			ok = false;
			continue;
		}
		if ((ft = ftav_regex_for_tavern(run, n)) != NULL)
			n = ft;
		f->regex[i] = n;
	}
	return ok;
}

bool
tavern_read(struct run *run, const struct tavern_input *in,
    struct tavern_files *f)
{
	bool ok = true;

	memset(f, 0, sizeof(*f));
	if (!check_type(run, in->type) || !check_options(run, in, f))
		return false;
	/* A group chat: its members' cards are read with it. */
	if (in->group || in->speaker) {
		if (!tb_group_read(run, in, &f->grp))
			return false;
	} else if (!in->card) {
		diag_plain(run, DIAG_ERROR, MSG_TAVERN_NO_CARD,
		    in->preset ? "--preset" : in->chat ? "--chat" :
		    "a SillyTavern build");
		return false;
	}
	f->s = arena_alloc(&run->arena, sizeof(*f->s));
	f->chat = arena_alloc(&run->arena, sizeof(*f->chat));
	ok &= settings_read(run, in->settings, in->settings_at, f->s);
	if (!f->grp)
		ok &= card_read(run, in->card, in->card_at, &f->card);
	ok &= preset_read(run, in->preset, in->preset_at, &f->p);
	if (in->chatfile)
		tchat_from(run, in->chatfile, in->chat, f->chat);
	else
		ok &= tchat_read(run, in->chat, in->chat_at, f->chat);
	ok &= read_worlds(run, in, f);
	ok &= read_regex(run, in, f);
	return ok;
}

/* The files tavern_read() read, as the build's own; the speaker's card
 * in a group chat. */
void
tb_take_inputs(struct tb *t)
{
	t->s = *t->f->s;
	t->card = t->grp ? t->grp->m[t->speaker].card : t->f->card;
	t->p = t->f->p;
	t->chat = *t->f->chat;
	if (t->grp)
		tb_group_regenerate(t);
	if (t->in->has_msgs)
		sandbox_chat(t);
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

void
tb_setup_env(struct tb *t)
{
	struct run *run = t->run;
	const struct node *vars = NULL;
	const char *base, *dot;

	t->type = t->in->type ? t->in->type : "normal";
	if (!tavern_gen_parse(t->type, &t->gen))
		t->gen = TAVERN_GEN_NORMAL;     /* checked before */
	t->user_name = t->in->persona_name ? t->in->persona_name :
	    t->s.user_name;
	t->char_name = t->card->name.s;
	base = path_base(t->in->card);
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
	t->env.user_macros = t->in->macros;
	note_macros(t);
	t->env.now_ms = t->f->now_ms;       /* tavern_read()'s */
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


void
tb_card_fields(struct tb *t)
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
	if (t->grp)
		tb_group_fields(t);     /* append mode: every member's */
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

		tb_example_blocks(t, &blocks);
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

/* Where greeting g, the card's first_mes or one of its
 * alternate_greetings, was read (tb.greeting_field, greeting_node). */
static void
greeting_where(struct tb *t, const struct card_text *g)
{
	const struct card_list *alt = &t->card->alternate_greetings;
	const struct node *arr;
	size_t k;

	t->greeting_field = "first_mes";
	t->greeting_node = card_field_node(t->card, "first_mes");
	if (g == &t->card->first_mes)
		return;
	k = (size_t)(g - alt->items);
	arr = card_field_node(t->card, "alternate_greetings");
	t->greeting_field = arena_printf(&t->run->arena,
	    "alternate_greetings[%zu]", k);
	/* The list skips nulls: the node only when none was skipped. */
	t->greeting_node = arr && arr->kind == NODE_ARRAY &&
	    arr->u.array.n == alt->n ? arr->u.array.items[k] : NULL;
}

/* Where the message typed was read (the --user option, or the file -u
 * named), as a node for its item; NULL when the caller gave none. */
const struct node *
tb_typed_node(struct tb *t)
{
	const struct source *u = t->in->user_src;

	return u ? tree_new(&t->run->arena, NODE_STRING, u->id,
	    span_make(0, (uint32_t)u->len)) : NULL;
}

/* A new chat starts with the greeting; then the message typed. */
bool
tb_chat_messages(struct tb *t)
{
	struct run *run = t->run;
	size_t i;

	/* (A new group chat opens with each member's greeting.) */
	size_t room = t->chat.n + 3 + (t->grp ? t->grp->n : 0);

	/* Each message's text before regex-post: as stored, unless the
	 * greeting or the message typed, or the first one, below. */
	t->craw = arena_array(&run->arena, room, sizeof(char *));
	t->cpre = arena_array(&run->arena, room, sizeof(char *));
	t->cmac = arena_array(&run->arena, room, sizeof(char *));
	t->cpre_by = arena_array(&run->arena, room, sizeof(char *));
	for (i = 0; i < t->chat.n; i++)
		t->craw[i] = t->cpre[i] = t->cmac[i] = t->chat.msgs[i].text;
	/* The first message is substituted again at every generation. */
	if (tb_chat_given(t->in) && t->chat.nall) {
		const char *x = tb_sub_as(t, "the chat's first message",
		    t->chat.all[0].text);

		t->chat.all[0].text = x;
		if (!t->chat.all[0].hidden)
			t->cmac[0] = t->chat.msgs[0].text = x;
	}
	if (!tb_chat_given(t->in) && t->grp)
		tb_group_greetings(t);
	else if (!tb_chat_given(t->in)) {
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
		greeting_where(t, g);
		if (g->len) {
			tchat_add(run, &t->chat, t->char_name, tb_stored(t,
			    t->chat.n, REGEX_AI_OUTPUT, "the card's greeting",
			    arena_strndup(&run->arena, g->s, g->len)), false);
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
	if (t->gen == TAVERN_GEN_REGENERATE && t->chat.nall &&
	    !t->chat.all[t->chat.nall - 1].is_user) {
		const struct tchat_msg *m = &t->chat.all[t->chat.nall - 1];

		if (!m->hidden)
			tb_item_at(t, tb_item_skip(t, arena_printf(&run->arena,
			    "chat#%zu", t->chat.n - 1), ITEM_SOURCE_CHAT,
			    ROLE_ASSISTANT, 0, m->text, ENTRY_REPLACED,
			    "--type regenerate deletes the last reply and "
			    "generates it anew"),
			    m->node);
		tchat_pop(&t->chat);
	} else if (t->gen == TAVERN_GEN_SWIPE && t->chat.n &&
	    !t->chat.msgs[t->chat.n - 1].is_user) {
		t->chat.n--;
		t->swiping = true;
		tb_item_at(t, tb_item_skip(t, arena_printf(&run->arena,
		    "chat#%zu", t->chat.n), ITEM_SOURCE_CHAT, ROLE_ASSISTANT, 0,
		    t->chat.msgs[t->chat.n].text, ENTRY_REPLACED,
		    "--type swipe generates a new swipe of the last reply"),
		    t->chat.msgs[t->chat.n].node);
	}
	/* The message typed is sent only by a normal generation; with
	 * none, send_if_empty is sent as the user's. */
	if (t->gen == TAVERN_GEN_NORMAL && (!t->in->user ||
	    !*t->in->user) && *tb_trim(&run->arena, t->p->send_if_empty)) {
		const char *u = tb_trim(&run->arena, t->p->send_if_empty);

		tchat_add(run, &t->chat, t->user_name, tb_stored(t, t->chat.n,
		    REGEX_USER_INPUT, "the user's message", u), true);
		t->chat.msgs[t->chat.n - 1].node = tree_get(t->p->root,
		    "send_if_empty");
		t->cmac[t->chat.n - 1] = t->chat.msgs[t->chat.n - 1].text;
		t->typed = true;
	} else if (t->in->user && *t->in->user &&
	    t->gen == TAVERN_GEN_NORMAL) {
		tchat_add(run, &t->chat, t->user_name, tb_stored(t, t->chat.n,
		    REGEX_USER_INPUT, "the user's message", t->in->user), true);
		t->chat.msgs[t->chat.n - 1].node = tb_typed_node(t);
		t->cmac[t->chat.n - 1] = t->chat.msgs[t->chat.n - 1].text;
		t->typed = true;
	} else if (t->in->user && *t->in->user &&
	    t->gen == TAVERN_GEN_QUIET) {
		/* The quiet prompt: world info scans it, and it is the
		 * last message. */
		t->quiet = tb_sub_as(t, "the user's message", t->in->user);
	} else if (t->in->user && *t->in->user)
		tb_item_at(t, tb_item_skip(t, "userInput", ITEM_SOURCE_CHAT,
		    ROLE_USER, 0, t->in->user, ENTRY_TRIGGER,
		    arena_printf(&run->arena, "only a normal generation "
		    "sends the message typed, not --type %s", t->type)),
		    tb_typed_node(t));
	chat_macros(t);
	return true;
}
