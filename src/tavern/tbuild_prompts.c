/*
 * tbuild_prompts: the prompt manager: the preset's collection with its
 * markers filled in place, and the context budget.
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

/* --- the prompt manager --- */

struct slot *
tb_slot_add(struct tb *t, const char *id)
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
		return wi_format(t, t->wi->before);
	if (strcmp(id, "worldInfoAfter") == 0)
		return wi_format(t, t->wi->after);
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
marker_raw(struct tb *t, const char *id, enum item_source *source)
{
	*source = ITEM_SOURCE_PRESET;
	if (strncmp(id, "worldInfo", 9) == 0 && marker_content(t, id)) {
		*source = ITEM_SOURCE_WORLD_INFO;
		return marker_content(t, id);
	}
	*source = ITEM_SOURCE_CARD;
	if (strcmp(id, "charDescription") == 0)
		return t->card->description.s;
	if (strcmp(id, "charPersonality") == 0 ||
	    strcmp(id, "scenario") == 0)
		return marker_content(t, id);
	*source = ITEM_SOURCE_SETTINGS;
	if (strcmp(id, "personaDescription") == 0)
		return t->s.persona;
	*source = ITEM_SOURCE_PRESET;
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

/* Where marker id's text (or, for no marker, prompt pp's) was read:
 * the card's field, the settings' persona, the preset's prompt.  World
 * info slots join many entries, whose places the world-info view
 * gives. */
static void
item_where(struct tb *t, uint32_t it, const char *id,
    const struct preset_prompt *pp)
{
	static const char *const card_fields[][2] = {
		{ "charDescription", "description" },
		{ "charPersonality", "personality" },
		{ "scenario", "scenario" },
	};
	enum item_source source;
	size_t k;

	if (marker_raw(t, id, &source)) {
		if (source == ITEM_SOURCE_CARD) {
			for (k = 0; k < LEN(card_fields); k++)
				if (strcmp(card_fields[k][0], id) == 0)
					tb_item_card(t, it, card_fields[k][1],
					    card_field_node(t->card,
					    card_fields[k][1]));
		} else if (source == ITEM_SOURCE_SETTINGS)
			tb_item_at(t, it, t->s.persona_node);
		else if (source == ITEM_SOURCE_WORLD_INFO &&
		    tb_item_world(t, it, strcmp(id, "worldInfoBefore") ?
		    WORLD_AFTER : WORLD_BEFORE, -1, -1))
			return;
		if (source != ITEM_SOURCE_PRESET &&
		    source != ITEM_SOURCE_WORLD_INFO)
			return;
	}
	if (pp && pp->node) {
		tb_item_at(t, it, tree_get(pp->node, "content") ?
		    tree_get(pp->node, "content") : pp->node);
		t->rep->items[it].object = pp->node;
	}
}

/* A prompt of the order: its item, with text raw. */
static uint32_t
prompt_item(struct tb *t, const struct preset_prompt *pp, const char *raw)
{
	enum item_source source;
	const char *mr = marker_raw(t, pp->identifier, &source);
	uint32_t it = tb_item_add(t, pp->identifier, source,
	    tb_role_of(pp->role), pp->in_chat &&
	    !is_collection(pp->identifier) ? pp->depth : -1,
	    raw ? raw : mr ? mr : pp->content);

	item_where(t, it, pp->identifier, pp);
	return it;
}

/* An in-chat prompt of the order (not a collection): into injs, unless
 * it is disabled, has no depth or comes out empty. */
static void
collect_inchat(struct tb *t, const struct preset_prompt *pp, bool enabled,
    struct inj *injs, size_t *ninj)
{
	const char *content;
	uint32_t it = prompt_item(t, pp, NULL);

	if (!enabled) {
		tb_item_out(t, it, ENTRY_DISABLED, "disabled in prompt_order");
		return;
	}
	if (!pp->has_depth) {
		tb_item_out(t, it, ENTRY_NO_DEPTH,
		    "in-chat without injection_depth");
		return;
	}
	content = marker_content(t, pp->identifier);
	content = tb_macros(t, it, tb_prompt_asset(t, pp->identifier),
	    content ? content : pp->content);
	if (*content) {
		injs[*ninj].role = tb_role_of(pp->role);
		injs[*ninj].content = content;
		injs[*ninj].depth = pp->depth;
		injs[*ninj].order = pp->order;
		injs[*ninj].item = it;
		(*ninj)++;
	} else
		tb_item_empty(t, it);
}

/* A prompt placed in its slot s: its marker's content or its own, with
 * the card's overrides ({{original}}) on main and jailbreak. */
static void
collect_placed(struct tb *t, const struct preset_prompt *pp, bool enabled,
    struct slot *s)
{
	const char *id = pp->identifier, *content;
	bool main = strcmp(id, "main") == 0;
	struct tb_text x;

	tb_text_init(&x, TB_MACROS, prompt_item(t, pp, enabled ? NULL :
	    pp->content));
	x.asset = tb_prompt_asset(t, id);
	content = marker_content(t, id);
	if (!content)
		content = enabled ? pp->content : "";
	/* The card's overrides, with {{original}}. */
	if (main && enabled && !pp->forbid_overrides &&
	    t->s.prefer_char_prompt && *t->system_prompt) {
		x.over = t->system_prompt;
		tb_item_note(t, x.item, "overridden by the card's "
		    "system_prompt ({{original}}: the preset's)");
	} else if (main && pp->forbid_overrides && *t->system_prompt)
		tb_item_note(t, x.item, "forbid_overrides: the card's "
		    "system_prompt is not used");
	if (strcmp(id, "jailbreak") == 0 && !pp->forbid_overrides &&
	    t->s.prefer_char_instructions && *t->phi) {
		x.over = t->phi;
		tb_item_note(t, x.item, "overridden by the card's "
		    "post_history_instructions ({{original}}: the "
		    "preset's)");
	} else if (strcmp(id, "jailbreak") == 0 &&
	    pp->forbid_overrides && *t->phi)
		tb_item_note(t, x.item, "forbid_overrides: the card's "
		    "post_history_instructions are not used");
	content = tb_rewrite(t, &x, ITEM_STAGE_MACROS, ITEM_STAGE_REGEX_POST,
	    content);
	if (*content)
		tb_push_item(t, &s->msgs, tb_role_of(pp->role), NULL, content,
		    id, x.item);
	else if (!enabled)
		tb_item_out(t, x.item, ENTRY_DISABLED, "main is disabled: its "
		    "place stays, for the Author's Note beside it");
	else if (strcmp(id, "personaDescription") == 0 &&
	    persona_moved(t))
		tb_item_out(t, x.item, ENTRY_MOVED, persona_moved(t));
	else
		tb_item_empty(t, x.item);
}

/* A marker missing from the order (bias: the settings' user prompt
 * bias), appended in its own slot. */
static void
collect_appended(struct tb *t, const char *id)
{
	struct arena *a = &t->run->arena;
	const struct preset *p = t->p;
	const char *content, *raw;
	enum item_source source;
	const struct preset_prompt *pp;
	size_t k;
	uint32_t it;

	for (k = 0; k < p->norder; k++)
		if (strcmp(p->order[k].prompt->identifier, id) == 0)
			return;
	if (strcmp(id, "bias") == 0) {
		if (!*t->s.user_prompt_bias)
			return;
		it = tb_item_add(t, id, ITEM_SOURCE_SETTINGS, ROLE_ASSISTANT,
		    -1, t->s.user_prompt_bias);
		tb_item_at(t, it, t->s.bias_node);
		if (t->gen == TAVERN_GEN_IMPERSONATE ||
		    t->gen == TAVERN_GEN_CONTINUE) {
			tb_item_out(t, it, ENTRY_TRIGGER, arena_printf(a,
			    "not sent on --type %s", t->type));
			return;
		}
		content = tb_macros(t, it, NULL, t->s.user_prompt_bias);
		if (*content)
			tb_push_item(t, &tb_slot_add(t, id)->msgs,
			    ROLE_ASSISTANT, NULL, content, id, it);
		else
			tb_item_empty(t, it);
		return;
	}
	pp = preset_find(p, id);
	raw = marker_raw(t, id, &source);
	content = tb_sub_as(t, tb_prompt_asset(t, id),
	    marker_content(t, id));
	if (!*raw && !*content)
		return;
	it = tb_item_add(t, id, source, tb_role_of(pp ? pp->role : NULL), -1,
	    raw);
	item_where(t, it, id, pp);
	tb_item_stage(t, it, ITEM_STAGE_MACROS, content);
	tb_item_note(t, it, "marker missing from prompt_order: "
	    "appended");
	if (*content)
		tb_push_item(t, &tb_slot_add(t, id)->msgs,
		    tb_role_of(pp ? pp->role : NULL), NULL, content, id, it);
	else if (strcmp(id, "personaDescription") == 0 &&
	    persona_moved(t))
		tb_item_out(t, it, ENTRY_MOVED, persona_moved(t));
	else
		tb_item_out(t, it, ENTRY_EMPTY, "marker missing from "
		    "prompt_order; empty after macros");
}

/* Collect the ordered prompts into slots; the in-chat ones into inj. */
void
tb_collect(struct tb *t, struct inj **injs, size_t *ninj)
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
		const char *id = pp->identifier;
		bool main = strcmp(id, "main") == 0;
		struct slot *s;

		if (!p->order[i].enabled && !main) {
			tb_item_out(t, prompt_item(t, pp, NULL), ENTRY_DISABLED,
			    "disabled in prompt_order");
			continue;
		}
		if (!preset_triggered(pp, t->type)) {
			tb_item_out(t, prompt_item(t, pp, NULL), ENTRY_TRIGGER,
			    arena_printf(a, "injection_trigger does not "
			    "name %s", t->type));
			continue;
		}
		if (slot_find(t, id)) {
			tb_item_out(t, prompt_item(t, pp, NULL),
			    ENTRY_DUPLICATE, "listed before in prompt_order");
			continue;
		}
		if (pp->in_chat && !is_collection(id)) {
			collect_inchat(t, pp, p->order[i].enabled, *injs,
			    ninj);
			continue;
		}
		/* Only the built-ins and the user's own prompts
		 * (system_prompt false) are placed. */
		if (pp->system_prompt && !builtin_prompt(id)) {
			tb_item_out(t, prompt_item(t, pp, NULL),
			    ENTRY_NOT_PLACED, "a system prompt SillyTavern "
			    "does not know");
			continue;
		}
		s = tb_slot_add(t, id);
		if (is_collection(id)) {
			tb_item_note(t, prompt_item(t, pp, ""), strcmp(id,
			    "chatHistory") == 0 ? "the chat messages go here "
			    "(chat#N)" : "the example messages go here "
			    "(example#N)");
			continue;
		}
		collect_placed(t, pp, p->order[i].enabled, s);
	}
	/* Markers missing from the order are appended. */
	for (i = 0; i < LEN(appended); i++)
		collect_appended(t, appended[i]);
}

/* The Author's Note and kin beside main: at its start (BEFORE_PROMPT)
 * or its end (IN_PROMPT). */
void
tb_main_extensions(struct tb *t)
{
	struct slot *m = slot_find(t, "main");
	const char *before, *after;
	const uint32_t *bi, *ai;
	uint32_t nb, na;

	if (!m)
		return;
	before = tb_ext_collect(t, EXT_BEFORE_PROMPT, -1, -1, &bi, &nb);
	after = tb_ext_collect(t, EXT_IN_PROMPT, -1, -1, &ai, &na);
	if (*before) {
		struct tmsg x = { .role = ROLE_SYSTEM, .content = before,
			.id = "authorsNote", .items = bi, .nitems = nb };

		tb_insert_at(t->run, &m->msgs, 0, &x);
	}
	if (*after) {
		tb_push(t->run, &m->msgs, ROLE_SYSTEM, NULL, after,
		    "authorsNote");
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
	struct tmsg newchat, nudge = { .role = ROLE_SYSTEM,
	    .id = "groupNudge" };
	/* A group chat has its own new-chat prompt. */
	const char *ncp = t->grp ? t->p->new_group_chat_prompt :
	    t->p->new_chat_prompt, *nck = t->grp ? "new_group_chat_prompt" :
	    "new_chat_prompt";
	size_t i, first, k;
	long left = *lp;
	uint32_t nci, ngi = 0;

	nci = tb_item_add(t, "newMainChat", ITEM_SOURCE_PRESET, ROLE_SYSTEM,
	    -1, ncp);
	tb_item_preset(t, nci, nck);
	newchat.role = ROLE_SYSTEM;
	newchat.name = NULL;
	newchat.content = tb_macros(t, nci, NULL, ncp);
	newchat.id = "newMainChat";
	newchat.items = NULL;
	newchat.nitems = 0;
	if (*newchat.content)
		left -= (long)tb_tokens(t, &newchat);
	else
		tb_item_out(t, nci, ENTRY_EMPTY, arena_printf(a, "%s is empty",
		    nck));
	/* The group nudge closes the history (not on impersonate); its
	 * room is kept before the history fills. */
	if (t->grp && t->gen != TAVERN_GEN_IMPERSONATE) {
		ngi = tb_item_add(t, "groupNudge", ITEM_SOURCE_PRESET,
		    ROLE_SYSTEM, -1, t->p->group_nudge_prompt);
		tb_item_preset(t, ngi, "group_nudge_prompt");
		nudge.content = tb_macros(t, ngi, NULL,
		    t->p->group_nudge_prompt);
		if (*nudge.content)
			left -= (long)tb_tokens(t, &nudge);
		else
			tb_item_empty(t, ngi);
	} else if (t->grp)
		tb_item_skip(t, "groupNudge", ITEM_SOURCE_PRESET,
		    ROLE_SYSTEM, -1, t->p->group_nudge_prompt, ENTRY_TRIGGER,
		    "--type impersonate sends no group nudge");
	/* (On continue the message continued has left the history.) */
	if (hist->n && hist->v[hist->n - 1].role == ROLE_ASSISTANT &&
	    *t->p->send_if_empty) {
		struct tmsg e = { .role = ROLE_USER,
		    .content = t->p->send_if_empty,
		    .id = "emptyUserMessageReplacement" };
		uint32_t it = tb_item_add(t, e.id, ITEM_SOURCE_PRESET,
		    ROLE_USER, 0, t->p->send_if_empty);

		tb_item_preset(t, it, "send_if_empty");

		tb_item_stage(t, it, ITEM_STAGE_MACROS, e.content);
		tb_item_note(t, it,
		    "send_if_empty: the chat ends with a reply");
		tb_push_item(t, hist, e.role, e.name, e.content, e.id, it);
	}
	first = hist->n;
	while (first > 0) {
		struct tmsg *m = &hist->v[first - 1];
		long c;

		tb_prepare(t, m);
		/* An empty message costs nothing (but its name) and is
		 * not sent. */
		c = *m->content || m->name ? (long)tb_count(t, m) : 0;
		if (c > left) {
			for (k = 0; k < m->nitems; k++)
				tb_item_out(t, m->items[k], ENTRY_BUDGET,
				    arena_printf(a, "%ld tokens, %ld left of "
				    "the %ld-token budget", c, left,
				    t->budget));
			break;
		}
		if (!*m->content)
			for (k = 0; k < m->nitems; k++)
				tb_item_out(t, m->items[k], ENTRY_EMPTY,
				    "an empty message is not sent");
		else
			left -= c;
		first--;
	}
	/* Everything older than the first that did not fit is out too. */
	for (i = 0; first > 0 && i + 1 < first; i++)
		for (k = 0; k < hist->v[i].nitems; k++)
			tb_item_out(t, hist->v[i].items[k], ENTRY_BUDGET,
			    "older than a message that did not fit");
	if (*newchat.content) {
		left += (long)tb_tokens(t, &newchat);
		if ((long)tb_tokens(t, &newchat) <= left) {
			left -= (long)tb_tokens(t, &newchat);
			tb_push_item(t, &h->msgs, newchat.role, NULL,
			    newchat.content, newchat.id, nci);
			t->rep->items[nci].tokens = tb_tokens(t, &newchat);
			t->rep->items[nci].counted = true;
		} else
			tb_item_out(t, nci, ENTRY_BUDGET, arena_printf(a, "%zu "
			    "tokens, %ld left", tb_tokens(t, &newchat), left));
	}
	for (i = first; i < hist->n; i++)
		if (*hist->v[i].content)
			tb_push_m(t->run, &h->msgs, &hist->v[i]);
	if (nudge.content && *nudge.content) {
		t->rep->items[ngi].tokens = tb_tokens(t, &nudge);
		t->rep->items[ngi].counted = true;
		tb_push_item(t, &h->msgs, nudge.role, NULL, nudge.content,
		    nudge.id, ngi);
	}
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
	struct tmsg sep = { .role = ROLE_SYSTEM,
	    .content = tb_sub(t, t->p->new_example_chat_prompt),
	    .id = "newChat" };

	tb_example_blocks(t, &blocks);
	for (i = 0; i < blocks.n; i++) {
		struct tlist msgs = { NULL, 0, 0 };
		long need = *sep.content ? (long)tb_tokens(t, &sep) : 0;
		uint32_t si = 0;

		if (*sep.content) {
			si = tb_item_add(t, "newChat", ITEM_SOURCE_PRESET,
			    ROLE_SYSTEM, -1, t->p->new_example_chat_prompt);
			tb_item_preset(t, si, "new_example_chat_prompt");
			tb_item_stage(t, si, ITEM_STAGE_MACROS, sep.content);
			t->rep->items[si].tokens = (size_t)need;
			t->rep->items[si].counted = true;
		}
		tb_example_messages(t, blocks.v[i].content, &msgs);
		for (j = 0; j < msgs.n; j++) {
			uint32_t ei = tb_item_add(t, arena_printf(a,
			    "example#%zu", ne++), ITEM_SOURCE_CARD,
			    ROLE_SYSTEM, -1, msgs.v[j].content);

			tb_item_card(t, ei, "mes_example",
			    card_field_node(t->card, "mes_example"));
			tb_holds(t, &msgs.v[j], ei);
			need += (long)tb_count(t, &msgs.v[j]);
		}
		if (out || need > left) {
			const char *why = out ? "after an example block "
			    "that did not fit" : arena_printf(a, "its block "
			    "needs %ld tokens, %ld left", need, left);

			if (*sep.content)
				tb_item_out(t, si, ENTRY_BUDGET, why);
			for (j = 0; j < msgs.n; j++)
				tb_item_out(t, msgs.v[j].items[0], ENTRY_BUDGET,
				    why);
			out = true;
			continue;
		}
		left -= need;
		if (*sep.content)
			tb_push_item(t, &ex->msgs, sep.role, NULL,
			    sep.content, sep.id, si);
		for (j = 0; j < msgs.n; j++) {
			tb_push_m(t->run, &ex->msgs, &msgs.v[j]);
			ex->msgs.v[ex->msgs.n - 1].id = "example";
		}
	}
	*lp = left;
}

bool
tb_fill(struct tb *t, struct tlist *hist)
{
	struct slot *h = slot_find(t, "chatHistory");
	struct slot *ex = slot_find(t, "dialogueExamples");
	size_t i, j;
	long left;

	t->used = 0;
	for (i = 0; i < t->nslots; i++)
		for (j = 0; j < t->slots[i].msgs.n; j++)
			t->used += (long)tb_count(t, &t->slots[i].msgs.v[j]);
	left = t->budget - t->used;
	if (left < 0) {
		diag_plain(t->run, DIAG_ERROR, MSG_TAVERN_BUDGET,
		    (size_t)t->used, t->budget);
		return false;
	}
	if (ex && t->s.strip_examples)
		tb_item_card(t, tb_item_skip(t, "dialogueExamples",
		    ITEM_SOURCE_CARD, ROLE_SYSTEM, -1, t->mes_example,
		    ENTRY_DISABLED, "strip_examples is set"), "mes_example",
		    card_field_node(t->card, "mes_example"));
	/* pin_examples: the examples get the budget first. */
	if (ex && !t->s.strip_examples && t->s.pin_examples)
		fill_examples(t, ex, &left);
	if (h)
		fill_history(t, h, hist, &left);
	if (ex && !t->s.strip_examples && !t->s.pin_examples)
		fill_examples(t, ex, &left);
	return true;
}

/* Item it was read where message m's first item was (the message
 * continued: its line of the chat, or the card's greeting). */
static void
same_place(struct tb *t, uint32_t it, const struct tmsg *m)
{
	struct item *to = &t->rep->items[it];
	const struct item *from;

	if (!m->nitems)
		return;
	from = &t->rep->items[m->items[0]];
	to->has_src = from->has_src;
	to->src = from->src;
	to->span = from->span;
	to->field = from->field;
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
void
tb_continued(struct tb *t, struct tlist *hist, bool prefill)
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
	tb_resolve(t, &hist->v[i - 1]);
	m = hist->v[i - 1];
	memmove(&hist->v[i - 1], &hist->v[i], (hist->n - i) *
	    sizeof(*hist->v));
	hist->n--;
	t->continued = cm;
	for (i = 0; i < m.nitems; i++)
		tb_item_out(t, m.items[i], ENTRY_CONTINUED,
		    "sent at the end, as the message continued");
	s = tb_slot_add(t, "continue");
	if (prefill) {
		const char *pre = m.role == ROLE_ASSISTANT &&
		    t->format == FORMAT_ANTHROPIC ?
		    tb_sub(t, t->p->assistant_prefill) : "";

		text = *pre && *m.content ? arena_printf(a, "%s\n\n%s", pre,
		    m.content) : *pre ? pre : m.content;
		it = tb_item_add(t, "continuePrefill", ITEM_SOURCE_CHAT,
		    m.role, -1, m.content);
		same_place(t, it, &m);
		if (*text)
			tb_push_item(t, &s->msgs, m.role, m.name ?
			    tb_completion_name(a, cm->name) : NULL, text,
			    "continuePrefill", it);
		else
			tb_item_empty(t, it);
		return;
	}
	it = tb_item_add(t, "continue", ITEM_SOURCE_CHAT, m.role, -1,
	    m.content);
	same_place(t, it, &m);
	text = tb_macros(t, it, NULL, m.content);
	/* An empty message is not sent; its nudge still is. */
	if (*text)
		tb_push_item(t, &s->msgs, m.role, m.name, text, "continue", it);
	else
		tb_item_empty(t, it);
	last = tb_chat_post(t, t->chat.n - 1);
	if (!*last || last[strlen(last) - 1] != ' ')
		last = arena_printf(a, "%s%s", last, t->p->continue_postfix);
	t->env.last_chat_message = tb_trim(a, last);
	text = tb_sub(t, t->p->continue_nudge_prompt);
	t->env.last_chat_message = NULL;
	if (*text) {
		it = tb_item_add(t, "continueNudge", ITEM_SOURCE_PRESET,
		    ROLE_SYSTEM, -1, t->p->continue_nudge_prompt);
		tb_item_preset(t, it, "continue_nudge_prompt");
		tb_item_stage(t, it, ITEM_STAGE_MACROS, text);
		tb_push_item(t, &s->msgs, ROLE_SYSTEM, NULL, text,
		    "continueNudge", it);
	}
}
