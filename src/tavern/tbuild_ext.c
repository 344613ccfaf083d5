/*
 * tbuild_ext: the extension prompts (Author's Note, Character's Note,
 * persona, summary), world info (tbuild_wi.c runs the scan), and the examples.
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

/* The item of extension prompt key: its identifier and its input. */
static void
ext_kind(const char *key, const char **id, enum item_source *source)
{
	*id = key;
	*source = ITEM_SOURCE_WORLD_INFO;
	if (strcmp(key, "2_floating_prompt") == 0 ||
	    strcmp(key, "1_memory") == 0) {
		*id = key[0] == '2' ? "authorsNote" : "summary";
		*source = ITEM_SOURCE_CHAT;
	} else if (strncmp(key, "DEPTH_PROMPT", 12) == 0) {
		if (!key[12])
			*id = "charDepthPrompt";
		*source = ITEM_SOURCE_CARD;
	} else if (strcmp(key, "PERSONA_DESCRIPTION") == 0) {
		*id = "personaDescription";
		*source = ITEM_SOURCE_SETTINGS;
	}
}

void
tb_ext_add(struct tb *t, const char *key, const char *value, int position,
    int64_t depth, int role)
{
	struct ext e;
	enum item_source source;
	const char *id;

	e.key = key;
	e.value = value;
	e.position = position;
	e.depth = depth;
	e.role = role < 0 || role > 2 ? 0 : role;
	ext_kind(key, &id, &source);
	e.item = tb_item_add(t, id, source, tb_roles[e.role],
	    position == EXT_IN_CHAT ? depth : -1, value);
	if (!*tb_trim(&t->run->arena, value))
		tb_item_out(t, e.item, ENTRY_EMPTY, NULL);
	if (t->next == t->extcap)
		t->ext = avec_grow(&t->run->arena, t->ext, &t->extcap, t->next,
		    t->next + 1, sizeof(*t->ext));
	t->ext[t->next++] = e;
}

int
tb_ext_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ext *)a)->key,
	    ((const struct ext *)b)->key);
}

/* getExtensionPrompt: the values at (position, depth, role) in sorted
 * key order, trimmed, joined with "\n", substituted.  depth < 0: any.
 * The items joined go to *items (NULL: not wanted). */
const char *
tb_ext_collect(struct tb *t, int position, int64_t depth, int role,
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
		v = tb_trim(&t->run->arena, e->value);
		if (!*v)
			continue;
		if (b.len)
			buf_putc(&b, '\n');
		buf_puts(&b, v);
		vi[nv++] = e->item;
	}
	buf_putc(&b, '\0');
	r = tb_sub(t, b.data);
	buf_free(&b);
	/* One substitution for the group: its text is the first item's. */
	if (nv)
		tb_item_stage(t, vi[0], ITEM_STAGE_MACROS,
		    tb_trim(&t->run->arena, r));
	for (i = 1; i < nv; i++) {
		t->rep->items[vi[i]].joined = true;
		t->rep->items[vi[i]].into = vi[0];
		tb_item_note(t, vi[i], arena_printf(&t->run->arena, "joined to "
		    "%s and substituted with it", t->rep->items[vi[0]].id));
	}
	if (nv > 1)
		tb_item_note(t, vi[0], "the text of every extension prompt "
		    "joined here");
	if (!*r)
		for (i = 0; i < nv; i++)
			tb_item_empty(t, vi[i]);
	if (items) {
		*items = *r ? vi : NULL;
		*nitems = *r ? nv : 0;
	}
	return r;
}

/* --- extension prompts: Author's Note, Character's Note, persona --- */

static bool
meta_int(struct tb *t, const char *key, int64_t def, int64_t *out)
{
	return field_int(t->run, t->chat.meta, key, def, out);
}

bool
tb_authors_note(struct tb *t)
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
	tb_ext_add(t, "2_floating_prompt", note, (int)position, depth, (int)role);
	{
		const struct node *np = tree_get(t->chat.meta, "note_prompt");

		tb_item_at(t, t->ext[t->next - 1].item, np &&
		    np->kind == NODE_STRING ? np : t->s.note_node);
	}
	if (!t->an_fires)
		tb_item_out(t, t->ext[t->next - 1].item, ENTRY_INTERVAL,
		    interval > 0 ?
		    arena_printf(a, "note_interval %lld, %lld user message%s",
		    (long long)interval, (long long)n, n == 1 ? "" : "s") :
		    "note_interval 0: never");
	return true;
}

void
tb_depth_prompts(struct tb *t)
{
	struct card_depth_prompt dp;

	if (t->s.memory_on && *t->memory) {
		const char *v = tb_trim(&t->run->arena, t->memory), *keep =
		    t->env.summary;

		t->env.summary = v;
		v = *t->s.memory_template ? tb_sub(t, t->s.memory_template) :
		    arena_printf(&t->run->arena, "Summary: %s", v);
		t->env.summary = keep;
		tb_ext_add(t, "1_memory", v, (int)t->s.memory_position,
		    t->s.memory_depth, (int)t->s.memory_role);
	}

	if (t->grp && tb_group_depth_prompts(t))
		;       /* append mode: every member's */
	else if (card_depth_prompt(t->card, &dp) && *t->depth_prompt) {
		tb_ext_add(t, "DEPTH_PROMPT", t->depth_prompt, EXT_IN_CHAT,
		    dp.depth, tb_role_of(dp.role) == ROLE_USER ? 1 :
		    tb_role_of(dp.role) == ROLE_ASSISTANT ? 2 : 0);
		tb_item_card(t, t->ext[t->next - 1].item,
		    "extensions.depth_prompt.prompt", tree_get(tree_get(
		    t->card->extensions, "depth_prompt"), "prompt"));
		/* The card's text; its macros ran as a card field. */
		tb_item_stage(t, t->ext[t->next - 1].item, ITEM_STAGE_RAW,
		    dp.prompt.s);
		tb_item_stage(t, t->ext[t->next - 1].item, ITEM_STAGE_MACROS,
		    t->depth_prompt);
	}
	if (t->s.persona_position == PERSONA_AT_DEPTH && *t->persona) {
		tb_ext_add(t, "PERSONA_DESCRIPTION", t->persona, EXT_IN_CHAT,
		    t->s.persona_depth, (int)t->s.persona_role);
		tb_item_at(t, t->ext[t->next - 1].item, t->s.persona_node);
		tb_item_stage(t, t->ext[t->next - 1].item, ITEM_STAGE_RAW,
		    t->s.persona);
		tb_item_stage(t, t->ext[t->next - 1].item, ITEM_STAGE_MACROS,
		    t->persona);
	}
}

/* --- world info --- */

static const char *
outlet(void *ctx, const char *name)
{
	struct tb *t = ctx;
	size_t i;

	for (i = 0; i < t->wi->noutlets; i++)
		if (strcmp(t->wi->outlets[i].name, name) == 0)
			return t->wi->outlets[i].text;
	return "";
}

enum regex_placement
tb_placement(const struct tchat_msg *m)
{
	return m->is_user ? REGEX_USER_INPUT : REGEX_AI_OUTPUT;
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
			struct tb_text x;

			tb_text_init(&x, TB_PROMPT, TB_NO_ITEM);
			x.place = REGEX_REASONING;
			x.depth = depth;
			r = tb_rewrite(t, &x, ITEM_STAGE_REGEX_POST,
			    ITEM_STAGE_REGEX_POST, m->reasoning);
			if (*r && strcmp(r, "\xe2\x80\x8b")) {
				count++;
				pre = tb_sub(t, st->reasoning_prefix);
				sep = tb_sub(t, st->reasoning_sep);
				suf = tb_sub(t, st->reasoning_suffix);
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

/* wi_input's message_text(): chat message i (oldest first) after the
 * prompt-time regex, made only when the scan reaches it. */
static const char *
wi_text(void *ctx, size_t i)
{
	return tb_chat_post(ctx, i);
}

/* The inject buffer: with allowWIScan the Author's and Character's
 * Notes, the summary with its own setting, and the quiet prompt. */
static const char *
wi_inject(struct tb *t)
{
	struct run *run = t->run;
	const char *s = "";
	size_t k;

	for (k = 0; k < t->next; k++) {
		const struct ext *e = &t->ext[k];

		if (((t->s.note_wi_scan && (strcmp(e->key,
		    "2_floating_prompt") == 0 || strcmp(e->key,
		    "DEPTH_PROMPT") == 0)) || (t->s.memory_scan &&
		    strcmp(e->key, "1_memory") == 0)) && *e->value)
			s = *s ? arena_printf(&run->arena, "%s\n%s", s,
			    e->value) : e->value;
	}
	if (t->quiet && *t->quiet)
		s = *s ? arena_printf(&run->arena, "%s\n%s", s, t->quiet) :
		    t->quiet;
	return s;
}

bool
tb_world_info(struct tb *t)
{
	struct run *run = t->run;
	struct wi_input wi;
	struct wi_message *msgs;
	const char **inject;
	size_t i, j;
	size_t k;

	memset(&wi, 0, sizeof(wi));
	msgs = arena_array(&run->arena, t->chat.n + 1, sizeof(*msgs));
	t->nrx = t->chat.n;
	/* SillyTavern regexes its chat once, for world info and the
	 * prompt: on continue both see the message continued at -1. */
	t->rx_shift = t->gen == TAVERN_GEN_CONTINUE && t->chat.n ? 1 : 0;
	t->rx_text = arena_array(&run->arena, t->nrx + 1, sizeof(char *));
	t->rx_out = arena_array(&run->arena, t->nrx + 1, sizeof(char *));
	t->rx_by = arena_array(&run->arena, t->nrx + 1, sizeof(char *));
	reasoning(t);
	/* Oldest first, as SillyTavern regexes them (its macros may set
	 * variables: the newest message's value is the one kept); what may
	 * wait does. */
	for (j = 0; j < t->nrx; j++) {
		const struct tchat_msg *m = &t->chat.msgs[j];

		msgs[j].name = m->name;
		t->rx_text[j] = m->text;
		if (!t->in->skip_unsent ||
		    !tb_regex_pure(t, tb_placement(m), m->text))
			msgs[j].text = tb_chat_post(t, j);
	}
	wi.messages = msgs;
	wi.nmessages = t->chat.n;
	wi.message_text = wi_text;
	wi.message_text_ctx = t;
	wi.match_text[WORLD_MATCH_PERSONA] = t->persona;
	wi.match_text[WORLD_MATCH_DESCRIPTION] = t->description;
	wi.match_text[WORLD_MATCH_PERSONALITY] = t->personality;
	wi.match_text[WORLD_MATCH_DEPTH_PROMPT] = t->depth_prompt;
	wi.match_text[WORLD_MATCH_SCENARIO] = t->scenario;
	wi.match_text[WORLD_MATCH_CREATOR_NOTES] = t->creator_notes;
	inject = arena_array(&run->arena, 1, sizeof(*inject));
	if (*(inject[0] = wi_inject(t))) {
		wi.inject = inject;
		wi.ninject = 1;
	}
	if (!tb_wi_run(t, &wi))
		return false;
	t->env.outlet = outlet;
	t->env.outlet_ctx = t;
	for (i = 0; i < t->wi->ndepth; i++) {
		const struct wi_depth_prompt *d = &t->wi->depth[i];

		/* A group opened by an entry without a depth has none
		 * (NaN in SillyTavern): it is never injected. */
		if (d->depth < 0)
			continue;
		tb_ext_add(t, arena_printf(&run->arena, "customDepthWI_%lld_%d",
		    (long long)d->depth, d->role), d->text, EXT_IN_CHAT,
		    d->depth, d->role);
		tb_item_world(t, t->ext[t->next - 1].item, WORLD_DEPTH,
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
			    t->wi->an_top ? t->wi->an_top : "", e->value,
			    t->wi->an_bottom ? t->wi->an_bottom : "");
			if (*s == '\n')
				s++;
			n = strlen(s);
			if (n && s[n - 1] == '\n')
				n--;
			e->value = arena_strndup(&run->arena, s, n);
			tb_item_stage(t, e->item, ITEM_STAGE_RAW, e->value);
			if (*tb_trim(&run->arena, e->value))
				tb_item_out(t, e->item, ENTRY_ACTIVE, NULL);
		}
	return true;
}

/* --- examples --- */

/* parseMesExamples: blocks split on <START> (any case). */
void
tb_example_blocks(struct tb *t, struct tlist *blocks_out)
{
	struct arena *a = &t->run->arena;
	const char *s = t->mes_example;
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < t->wi->nem_top; i++)
		tb_push(t->run, blocks_out, ROLE_SYSTEM, NULL, arena_printf(a,
		    "<START>\n%s\n", tb_em_block(a,
		    tb_sub(t, t->wi->em_top[i]))), NULL);
	if (*s && strcmp(s, "<START>")) {
		const char *p, *next;

		if (strncmp(s, "<START>", 7))
			s = arena_printf(a, "<START>\n%s", tb_trim(a, s));
		/* split(/<START>/gi).slice(1): s starts with <START> */
		for (p = s + 7;; p = next + 7) {
			for (next = p; *next && strncasecmp(next, "<START>",
			    7); next++)
				;
			buf_reset(&b);
			buf_put(&b, p, (size_t)(next - p));
			buf_putc(&b, '\0');
			tb_push(t->run, blocks_out, ROLE_SYSTEM, NULL,
			    arena_printf(a, "<START>\n%s\n",
			    tb_trim(a, b.data)), NULL);
			if (!*next)
				break;
		}
	}
	for (i = 0; i < t->wi->nem_bottom; i++)
		tb_push(t->run, blocks_out, ROLE_SYSTEM, NULL, arena_printf(a,
		    "<START>\n%s\n", tb_em_block(a,
		    tb_sub(t, t->wi->em_bottom[i]))), NULL);
	buf_free(&b);
}

/* parseExampleIntoIndividual: one block's lines into named messages. */
void
tb_example_messages(struct tb *t, const char *block, struct tlist *out)
{
	struct arena *a = &t->run->arena;
	const char *uprefix = arena_printf(a, "%s:", t->user_name);
	const char *cprefix = arena_printf(a, "%s:", t->char_name);
	/* In a group a line may open with any member's name; the reply's
	 * name is then the last such name met (SillyTavern's botName). */
	const char *bot = t->char_name;
	struct buf tmp = BUF_INIT;
	bool in_user = false, in_bot = false, first = true;
	const char *line = block;

#define FLUSH(who, sysname) do { \
	const char *m, *at, *prefix = arena_printf(a, "%s:", (who)); \
	buf_putc(&tmp, '\0'); \
	at = strstr(tmp.data, prefix); \
	m = at ? arena_printf(a, "%.*s%s", (int)(at - tmp.data), tmp.data, \
	    at + strlen(prefix)) : tmp.data; \
	m = tb_trim(a, m); \
	if (t->grp) \
		m = arena_printf(a, "%s: %s", (who), m); \
	tb_push(t->run, out, ROLE_SYSTEM, (sysname), m, NULL); \
	buf_reset(&tmp); \
} while (0)
	while (line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		const char *member = NULL;

		if (first) {
			/* the <START> heading */
			first = false;
			line = nl ? nl + 1 : NULL;
			continue;
		}
		for (size_t k = 0; t->grp && k < t->grp->n && !member; k++)
			if (strncmp(line, t->grp->m[k].name,
			    strlen(t->grp->m[k].name)) == 0 &&
			    line[strlen(t->grp->m[k].name)] == ':')
				member = t->grp->m[k].name;
		if (strncmp(line, uprefix, strlen(uprefix)) == 0) {
			in_user = true;
			if (in_bot)
				FLUSH(bot, "example_assistant");
			in_bot = false;
		} else if (strncmp(line, cprefix, strlen(cprefix)) == 0 ||
		    member) {
			if (strncmp(line, cprefix, strlen(cprefix)) != 0) {
				const char *colon = memchr(line, ':', len);

				bot = arena_strndup(a, line, (size_t)(colon -
				    line));
			}
			in_bot = true;
			if (in_user)
				FLUSH(t->user_name, "example_user");
			in_user = false;
		}
		if (tmp.len)
			buf_putc(&tmp, '\n');
		buf_put(&tmp, line, len);
		line = nl ? nl + 1 : NULL;
	}
	if (in_user)
		FLUSH(t->user_name, "example_user");
	else if (in_bot)
		FLUSH(bot, "example_assistant");
#undef FLUSH
	buf_free(&tmp);
}
