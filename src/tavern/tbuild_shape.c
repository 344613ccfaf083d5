/*
 * tbuild_shape: squash and post-processing, and what the provider
 * shaping takes of the preset and settings (struct item_request): the
 * reshaping itself, per provider, is emit/emit_shape.c's.
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

/* "Name: " for the character, which a group chat's message may carry
 * as any member's (SillyTavern's startsWithGroupName). */
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
	return item_prefixed(&t->run->arena, t->char_name, content);
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

static bool
starts_named(const char *content, const char *who)
{
	size_t n = strlen(who);

	return strncmp(content, who, n) == 0 && content[n] == ':' &&
	    content[n + 1] == ' ';
}

/* What SillyTavern's server does with the names a message still has
 * for the mistralai and xai sources, which take none: the examples'
 * speakers go in front of their text; for Mistral so does every other
 * name of a message that is not the system's (a name already in front
 * stays a name); for xAI the character's in front of each of its
 * messages, and only the user's messages keep their names. */
static void
source_names(struct tb *t, struct tlist *l)
{
	struct arena *a = &t->run->arena;
	enum preset_source src = preset_source(t->s.root);
	bool mistral = src == SOURCE_MISTRALAI;
	size_t i;

	if (!mistral && src != SOURCE_XAI)
		return;
	for (i = 0; i < l->n; i++) {
		struct tmsg *m = &l->v[i];
		bool sys = m->role == ROLE_SYSTEM;

		if (!m->name || (!mistral && m->role == ROLE_USER))
			continue;
		if (sys && strcmp(m->name, "example_assistant") == 0)
			m->content = bot_prefixed(t, m->content);
		else if (sys && strcmp(m->name, "example_user") == 0)
			m->content = item_prefixed(a, t->user_name,
			    m->content);
		else if (mistral && sys)
			continue;
		else if (mistral && starts_named(m->content, m->name))
			continue;
		else if (mistral)
			m->content = item_prefixed(a, m->name, m->content);
		else if (m->role == ROLE_ASSISTANT)
			m->content = bot_prefixed(t, m->content);
		m->name = NULL;
	}
}

/* SillyTavern's client sends the system messages of an o1 name (OpenAI's
 * and Azure's sources, openai/o1... on OpenRouter's) as the user's,
 * before the server's post-processing. */
void
tb_source_roles(struct tb *t, struct tlist *l, const char *model)
{
	const char *o = model ? preset_o_series(preset_source(t->s.root),
	    model) : NULL;
	size_t i;

	if (!o || o[1] != '1')
		return;
	for (i = 0; i < l->n; i++)
		if (l->v[i].role == ROLE_SYSTEM)
			l->v[i].role = ROLE_USER;
}

/* DeepSeek's server marks a last assistant message (a continuation, or
 * a prefill) with prefix: true, when the request has no tools (a
 * profile's tools go into a SillyTavern build's request). */
void
tb_last_flag(struct tb *t, struct chat *c)
{
	struct message *m = c->n ? &c->msgs[c->n - 1] : NULL;
	struct message_extra *x;

	if (!m || m->role != ROLE_ASSISTANT || c->tools.n ||
	    preset_source(t->s.root) != SOURCE_DEEPSEEK)
		return;
	x = arena_alloc(&t->run->arena, sizeof(*x));
	if (m->x)
		*x = *m->x;
	x->flag = "prefix";
	m->x = x;
}

/* The server's custom_prompt_post_processing (merge, semi, strict,
 * single), after the names went into the contents; then what the
 * source does with names left. */
void
tb_post_process(struct tb *t, struct tlist *l)
{
	struct arena *a = &t->run->arena;
	enum preset_post mode = t->p->post;
	size_t i;

	/* DeepSeek's server post-processes semi-strictly after it. */
	if (preset_source(t->s.root) == SOURCE_DEEPSEEK &&
	    (mode == PRESET_POST_NONE || mode == PRESET_POST_MERGE))
		mode = PRESET_POST_SEMI;
	if (mode == PRESET_POST_NONE) {
		source_names(t, l);
		return;
	}
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
			m->content = item_prefixed(a, who, m->content);
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
				c = item_prefixed(a, t->user_name, c);
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
			    ITEM_SOURCE_SETTINGS, ROLE_USER, -1,
			    t->s.strict_placeholder));
			tb_item_note(t, ph.items[0], "strict post-processing: "
			    "a user message first");

			tb_insert_at(t->run, l, at, &ph);
		}
	}
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

/*
 * What the provider shaping (emit/emit_shape.c) takes of this build:
 * use_sysprompt, the names, the placeholder, the assistant prefill of
 * the generation type after macros (SillyTavern's client substitutes
 * it for Claude only, and sends none on quiet, nor on continue with
 * continue_prefill), the samplers, every stop string after macros
 * (unless custom_stopping_strings_macro is off: SillyTavern substitutes
 * them all before each provider takes its share) and the custom
 * source's body fields.
 */
void
tb_request(struct tb *t, const char *model)
{
	struct arena *a = &t->run->arena;
	struct item_request *q = &t->rep->req;
	const char **stops;
	size_t i;

	q->sysprompt = t->p->sysprompt;
	q->user_name = t->user_name;
	q->char_name = t->char_name;
	if (t->grp && t->grp->n) {
		const char **names = arena_array(a, t->grp->n,
		    sizeof(*names));

		for (i = 0; i < t->grp->n; i++)
			names[i] = t->grp->m[i].name;
		q->members = names;
		q->nmembers = t->grp->n;
	}
	q->placeholder = t->s.strict_placeholder;
	if (t->format == FORMAT_ANTHROPIC && t->gen != TAVERN_GEN_QUIET &&
	    !(t->gen == TAVERN_GEN_CONTINUE && t->p->continue_prefill)) {
		bool imp = t->gen == TAVERN_GEN_IMPERSONATE;
		const char *raw = imp ? t->p->assistant_impersonation :
		    t->p->assistant_prefill;
		const char *key = imp ? "assistant_impersonation" :
		    "assistant_prefill";
		const char *s = tb_sub(t, raw);
		const struct node *at = tree_get(t->p->root, key);
		size_t n = strlen(s);

		/* JavaScript's trimEnd(); only a non-empty prefill counts. */
		while (n && isspace((unsigned char)s[n - 1]))
			n--;
		if (*s) {
			q->prefill_id = imp ? "assistantImpersonation" :
			    "assistantPrefill";
			q->prefill_key = key;
			q->prefill_raw = raw;
			q->prefill = arena_strndup(a, s, n);
			if (at) {
				q->prefill_has_src = true;
				q->prefill_src = at->src;
				q->prefill_span = at->span;
			}
		}
	}
	q->body = t->p->body;
	q->body_model = preset_model_body(t->run, t->p, t->s.root, model,
	    t->p->body, &q->bias_missing);
	q->body_claude = t->p->body_claude;
	q->claude_budget = preset_claude_budget(t->p, t->s.root, model);
	q->body_google = preset_google_body(t->run, t->p, t->s.root, model);
	stops = arena_array(a, t->s.nstops + 1, sizeof(*stops));
	for (i = 0; i < t->s.nstops; i++)
		stops[i] = t->s.stops_macros ? tb_sub(t, t->s.stops[i]) :
		    t->s.stops[i];
	q->stops = stops;
	q->nstops = preset_source_stops(t->s.root, model) ? t->s.nstops : 0;
	q->all_stops = preset_source(t->s.root) == SOURCE_MISTRALAI;
	/* Only the custom source takes these. */
	q->include_body = q->exclude_body = "";
	if (preset_source(t->s.root) == SOURCE_CUSTOM) {
		q->include_body = connection_str(t, "custom_include_body");
		q->exclude_body = connection_str(t, "custom_exclude_body");
	}
}
