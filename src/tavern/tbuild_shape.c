/*
 * tbuild_shape: squash, post-processing, provider shaping and the
 * body fields (sampler, stops, custom body).
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

/* --- squash and post-processing --- */

static bool
squashable(const struct tmsg *m)
{
	return m->role == ROLE_SYSTEM && !m->name && !(m->id &&
	    (strcmp(m->id, "newMainChat") == 0 || strcmp(m->id, "newChat") ==
	    0 || strcmp(m->id, "groupNudge") == 0));
}

/* m joins o: its text after sep, its items after o's. */
static void
absorb(struct tb *t, struct tmsg *o, const struct tmsg *m, const char *sep)
{
	o->content = arena_printf(&t->run->arena, "%s%s%s", o->content, sep,
	    m->content);
	o->items = tb_items_cat(t, o->items, o->nitems, m->items, m->nitems);
	o->nitems += m->nitems;
}

void
tb_squash(struct tb *t, struct tlist *l)
{
	struct tlist out = { NULL, 0, 0 };
	size_t i;

	for (i = 0; i < l->n; i++) {
		struct tmsg *m = &l->v[i];

		if (m->role == ROLE_SYSTEM && !*m->content)
			continue;
		if (out.n && squashable(m) && squashable(&out.v[out.n - 1])) {
			absorb(t, &out.v[out.n - 1], m, "\n");
			continue;
		}
		tb_push_m(t->run, &out, m);
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

/* The same for the character's name, which a group chat's message may
 * carry as any member's (SillyTavern's startsWithGroupName). */
static const char *
bot_prefixed(struct tb *t, const char *content)
{
	size_t i, n;

	for (i = 0; t->grp && i < t->grp->n; i++) {
		n = strlen(t->grp->m[i].name);
		if (strncmp(content, t->grp->m[i].name, n) == 0 &&
		    content[n] == ':' && content[n + 1] == ' ')
			return content;
	}
	return prefixed(&t->run->arena, t->char_name, content);
}

/* Join runs of one role with "\n\n". */
static void
merge_roles(struct tb *t, struct tlist *l)
{
	struct tlist out = { NULL, 0, 0 };
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct tmsg *m = &l->v[i];

		if (out.n && out.v[out.n - 1].role == m->role) {
			absorb(t, &out.v[out.n - 1], m, "\n\n");
			continue;
		}
		tb_push_m(t->run, &out, m);
		out.v[out.n - 1].name = NULL;
	}
	*l = out;
}

/* The server's custom_prompt_post_processing (merge, semi, strict,
 * single), after the names went into the contents. */
void
tb_post_process(struct tb *t, struct tlist *l)
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
		if (m->role == ROLE_SYSTEM)
			who = strcmp(who, "example_assistant") == 0 ?
			    t->char_name : strcmp(who, "example_user") == 0 ?
			    t->user_name : NULL;
		if (who == t->char_name && m->role == ROLE_SYSTEM)
			m->content = bot_prefixed(t, m->content);
		else if (who)
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

			if (m->role == ROLE_USER)
				c = prefixed(a, t->user_name, c);
			else if (m->role == ROLE_ASSISTANT)
				c = bot_prefixed(t, c);
			if (b.len)
				buf_puts(&b, "\n\n");
			buf_puts(&b, c);
		}
		buf_putc(&b, '\0');
		tb_push(t->run, &out, ROLE_USER, NULL, arena_strdup(a, b.data),
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
			if (l->v[i].role == ROLE_SYSTEM)
				l->v[i].role = ROLE_USER;
		merge_roles(t, l);
	}
	if (mode == PRESET_POST_STRICT && l->n) {
		/* Start with system then user, or with user. */
		size_t at = l->v[0].role == ROLE_SYSTEM ? 1 : 0;

		if (at >= l->n || l->v[at].role != ROLE_USER) {
			struct tmsg ph = { .role = ROLE_USER,
			    .content = t->s.strict_placeholder };

			tb_holds(t, &ph, tb_item_add(t, "placeholder",
			    "settings", ROLE_USER, -1,
			    t->s.strict_placeholder));
			tb_item_note(t, ph.items[0], "strict post-processing: "
			    "a user message first");

			tb_insert_at(t->run, l, at, &ph);
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
void
tb_provider_shape(struct tb *t, struct tlist *l, bool claude)
{
	struct arena *a = &t->run->arena;
	/* Google's Gemma models take no system instruction. */
	bool sys = t->p->sysprompt && (claude || !t->env.model ||
	    !strstr(t->env.model, "gemma"));
	size_t i, lead = 0;

	while (sys && lead < l->n && l->v[lead].role == ROLE_SYSTEM &&
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
		if (who && *who && (example || (claude ?
		    m->role != ROLE_SYSTEM : i >= lead)))
			m->content = claude && !example ? arena_printf(a,
			    "%s: %s", who, m->content) : who == t->char_name &&
			    example ? bot_prefixed(t, m->content) :
			    prefixed(a, who, m->content);
		m->name = NULL;
		if (i >= lead && m->role == ROLE_SYSTEM)
			m->role = ROLE_USER;
		if (claude && i >= lead) {
			if (!*m->content)
				m->content = "\xe2\x80\x8b";
			m->blocks = true;
		}
	}
	if (claude && (lead == l->n || l->v[lead].role != ROLE_USER)) {
		/* SillyTavern adds it only after a system prompt that is
		 * all there is; a first message of the character's it sends
		 * as it is, and Claude refuses the request.  strata sends
		 * what Claude takes.  The text is SillyTavern's
		 * promptPlaceholder, as for strict post-processing. */
		struct tmsg ph = { .role = ROLE_USER,
		    .content = t->s.strict_placeholder, .blocks = true };

		tb_holds(t, &ph, tb_item_add(t, "promptPlaceholder", "settings",
		    ROLE_USER, -1, ph.content));
		tb_item_note(t, ph.items[0], lead == l->n ? "Claude: a user "
		    "message after a system prompt that is all there is" :
		    "Claude: the messages must start with the user's");
		tb_insert_at(t->run, l, lead, &ph);
	}
	if (claude && t->gen != TAVERN_GEN_QUIET &&
	    !(t->gen == TAVERN_GEN_CONTINUE && t->p->continue_prefill)) {
		bool imp = t->gen == TAVERN_GEN_IMPERSONATE;
		const char *raw = imp ? t->p->assistant_impersonation :
		    t->p->assistant_prefill;
		const char *s = tb_sub(t, raw);
		size_t n = strlen(s);
		uint32_t it;

		/* JavaScript's trimEnd(); only a non-empty prefill counts. */
		while (n && isspace((unsigned char)s[n - 1]))
			n--;
		if (*s) {
			it = tb_item_add(t, imp ? "assistantImpersonation" :
			    "assistantPrefill", "preset", ROLE_ASSISTANT, -1,
			    raw);
			tb_item_preset(t, it, imp ? "assistant_impersonation" :
			    "assistant_prefill");
			s = arena_strndup(a, s, n);
			tb_item_stage(t, it, TAVERN_STAGE_MACROS, s);
			tb_item_note(t, it, "Claude: the reply starts with it");
			tb_push_item(t, l, ROLE_ASSISTANT, NULL, *s ? s :
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
			tb_push_m(t->run, l, &rest.v[i]);
	}
}

/* For a format whose messages carry no name (the Responses API,
 * Ollama): each name into its text as SillyTavern's converters put it
 * for such providers, an example's as the user's or the character's,
 * unless the text starts with it. */
void
tb_names_in_text(struct tb *t, struct tlist *l)
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
			m->content = who == t->char_name ? bot_prefixed(t,
			    m->content) : prefixed(&t->run->arena, who,
			    m->content);
		m->name = NULL;
	}
}

/* The preset's Claude samplers; the Claude models SillyTavern limits
 * (Opus 4.1 and 4.5, Sonnet 4.5, Haiku 4.5) take temperature or top_p,
 * not both: top_p when it is below 1, else temperature. */
const struct node *
tb_claude_params(struct tb *t)
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
const struct node *
tb_responses_params(struct tb *t)
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
const struct node *
tb_with_stops(struct tb *t, const struct node *b)
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
		const char *x = t->s.stops_macros ? tb_sub(t, t->s.stops[i]) :
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
const struct node *
tb_custom_body(struct tb *t, const struct node *b)
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
