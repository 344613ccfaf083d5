#include "tavern/tbuild.h"

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
#include "tavern/tbuild_int.h"

/* --- the driver --- */

bool
tavern_wanted(const struct tavern_input *in, const struct node *pt)
{
	return pt || in->card || in->group || in->preset || in->chat ||
	    in->settings || in->nworlds || in->nregex;
}

static const char *
relative(struct run *run, const char *dir, const struct node *v)
{
	return dir ? path_join(&run->arena, dir, v->u.str.s) : v->u.str.s;
}

/* The profile's paths arr, then the command line's cli[0..ncli); *at
 * says where the profile named each (NULL for the command line's). */
static const char *const *
path_list(struct run *run, const char *dir, const struct node *arr,
    const char *const *cli, size_t ncli, size_t *n,
    const struct node *const **at)
{
	size_t na = arr ? arr->u.array.n : 0, i;
	const char **v = arena_array(&run->arena, na + ncli + 1, sizeof(*v));
	const struct node **w = arena_array(&run->arena, na + ncli + 1,
	    sizeof(*w));

	for (i = 0; i < na; i++) {
		v[i] = relative(run, dir, arr->u.array.items[i]);
		w[i] = arr->u.array.items[i];
	}
	for (i = 0; i < ncli; i++)
		v[na + i] = cli[i];
	*n = na + ncli;
	*at = w;
	return v;
}

bool
tavern_input_profile(struct run *run, struct tavern_input *in,
    const struct node *t, const char *profile_path)
{
	static const char *const keys[] = { "card", "preset", "chat",
		"settings" };
	const char **slots[4];
	const struct node **at[4];
	const char *dir = NULL;
	const struct node *v;
	size_t i;

	if (!t)
		return true;
	if (profile_path)
		dir = path_dir(&run->arena, profile_path);
	slots[0] = &in->card;
	slots[1] = &in->preset;
	slots[2] = &in->chat;
	slots[3] = &in->settings;
	at[0] = &in->card_at;
	at[1] = &in->preset_at;
	at[2] = &in->chat_at;
	at[3] = &in->settings_at;
	/* --group on the command line stands for the profile's card, and
	 * --card for its group. */
	if (in->card && !in->group)
		in->group = "";
	else if (in->group && !in->card)
		in->card = "";
	for (i = 0; i < LEN(keys); i++)
		if (!*slots[i] && (v = tree_get(t, keys[i]))) {
			*slots[i] = relative(run, dir, v);
			*at[i] = v;
		}
	if (!in->group && (v = tree_get(t, "group"))) {
		in->group = relative(run, dir, v);
		in->group_at = v;
	}
	if (in->group && !*in->group)
		in->group = NULL;
	if (in->card && !*in->card)
		in->card = NULL;
	if (!in->persona_name && (v = tree_get(t, "user")))
		in->persona_name = v->u.str.s;
	if (!in->persona && (v = tree_get(t, "persona")))
		in->persona = v->u.str.s;
	in->worlds = path_list(run, dir, tree_get(t, "worlds"), in->worlds,
	    in->nworlds, &in->nworlds, &in->worlds_at);
	in->regex = path_list(run, dir, tree_get(t, "regex"), in->regex,
	    in->nregex, &in->nregex, &in->regex_at);
	return true;
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

/* Every variable of list, as a table of texts in its order. */
static struct node *
vars_table(struct arena *a, const struct macro_vars *list)
{
	struct node *vars = tree_table(a);
	size_t i;

	for (i = 0; i < list->n; i++)
		tree_set(a, vars, list->v[i].name, strlen(list->v[i].name), 0,
		    span_make(0, 0), tree_str(a, list->v[i].value));
	return vars;
}

static void
save_state(struct tb *t, const struct macro_var *before, size_t nbefore,
    const struct macro_var *gbefore, size_t ngbefore,
    struct tavern_state *st)
{
	struct arena *a = &t->run->arena;

	memset(st, 0, sizeof(*st));
	st->vars_changed = vars_changed(t, &t->locals, before, nbefore);
	st->globals_changed = vars_changed(t, &t->globals, gbefore, ngbefore);
	st->globals = vars_table(a, &t->globals);
	st->locals = vars_table(a, &t->locals);
	st->timed = wi_timed_to_node(a, &t->wi->timed);
	if (!tb_chat_given(t->in) && t->chat.n && !t->chat.msgs[0].is_user) {
		st->greeting = t->chat.msgs[0].text;
		st->char_name = t->grp ? t->chat.msgs[0].name : t->char_name;
	}
	/* A new group chat: every member's greeting. */
	if (st->greeting && t->grp) {
		const char **g = arena_array(a, t->chat.n + 1, sizeof(*g));
		const char **nm = arena_array(a, t->chat.n + 1, sizeof(*nm));
		size_t i;

		for (i = 1; i < t->chat.n && !t->chat.msgs[i].is_user; i++) {
			g[st->nmore] = t->chat.msgs[i].text;
			nm[st->nmore++] = t->chat.msgs[i].name;
		}
		st->more_greetings = g;
		st->more_names = nm;
	}
	if (t->in->user && *t->in->user && t->gen == TAVERN_GEN_NORMAL &&
	    t->chat.n && t->chat.msgs[t->chat.n - 1].is_user) {
		st->user = t->chat.msgs[t->chat.n - 1].text;
		st->user_name = t->user_name;
	}
}

/* The prompt of --type impersonate, and --type quiet's. */
static void
type_prompts(struct tb *t)
{
	if (t->gen == TAVERN_GEN_IMPERSONATE) {
		uint32_t it = tb_item_add(t, "impersonate", ITEM_SOURCE_PRESET,
		    ROLE_SYSTEM, -1, t->p->impersonation_prompt);
		const char *s;

		tb_item_preset(t, it, "impersonation_prompt");
		s = tb_macros(t, it, NULL, t->p->impersonation_prompt);
		if (*s)
			tb_push_item(t, &tb_slot_add(t, "impersonate")->msgs,
			    ROLE_SYSTEM, NULL, s, "impersonate", it);
		else
			tb_item_empty(t, it);
	}
	if (t->quiet) {
		uint32_t it = tb_item_add(t, "quietPrompt",
		    ITEM_SOURCE_CHAT, ROLE_SYSTEM, -1, t->in->user);

		tb_item_at(t, it, tb_typed_node(t));
		tb_item_stage(t, it, ITEM_STAGE_MACROS, t->quiet);
		if (*t->quiet)
			tb_push_item(t, &tb_slot_add(t, "quietPrompt")->msgs,
			    ROLE_SYSTEM, NULL, t->quiet, "quietPrompt", it);
		else
			tb_item_empty(t, it);
	}
}

/* all as c's messages, each with its items; an item in no message and
 * out for no reason is "not placed". */
static void
messages_out(struct tb *t, const struct tlist *all, struct chat *c)
{
	size_t i, j;

	c->msgs = arena_array(&t->run->arena, all->n + 1, sizeof(*c->msgs));
	t->rep->msg_items = arena_array(&t->run->arena, all->n + 1,
	    sizeof(*t->rep->msg_items));
	t->rep->msg_nitems = arena_array(&t->run->arena, all->n + 1,
	    sizeof(*t->rep->msg_nitems));
	c->cap = all->n + 1;
	c->n = 0;
	for (i = 0; i < all->n; i++) {
		struct message *m = &c->msgs[c->n++];
		const char *think = NULL;

		memset(m, 0, sizeof(*m));
		m->role = all->v[i].role;
		m->name = all->v[i].name;
		m->content = all->v[i].content;
		m->len = strlen(m->content);
		for (j = 0; j < all->v[i].nitems; j++)
			if (t->rep->items[all->v[i].items[j]].thinking)
				think = t->rep->items[all->v[i].items[j]].
				    thinking;
		if (think) {
			struct message_extra *x = arena_alloc(&t->run->arena,
			    sizeof(*x));

			/* Seed 002's thinking: the reasoning before it. */
			x->reasoning = think;
			x->reasoning_len = strlen(think);
			m->x = x;
		}
		m->origin = m->role == ROLE_SYSTEM && (i == 0 ||
		    c->msgs[i - 1].origin == ORIGIN_SYSTEM) ? ORIGIN_SYSTEM :
		    ORIGIN_HISTORY;
		t->rep->msg_items[i] = all->v[i].items;
		t->rep->msg_nitems[i] = all->v[i].nitems;
		for (j = 0; j < all->v[i].nitems; j++)
			t->rep->items[all->v[i].items[j]].message = (long)i;
	}
	tb_last_flag(t, c);
	/* What was decided nowhere else: in no message, for no reason. */
	for (i = 0; i < t->rep->n; i++)
		if (t->rep->items[i].message < 0 && !t->rep->items[i].reason &&
		    strcmp(t->rep->items[i].id, "chatHistory") &&
		    strcmp(t->rep->items[i].id, "dialogueExamples"))
			tb_item_out(t, (uint32_t)i, ENTRY_NOT_PLACED, NULL);
}

/* The build's steps, in SillyTavern's order (tbuild_int.h). */
static bool
build(struct tb *t, struct chat *c)
{
	struct run *run = t->run;
	const struct tavern_input *in = t->in;
	struct macro_var *before, *gbefore;
	size_t nbefore, ngbefore;
	struct tlist hist = { NULL, 0, 0 }, all = { NULL, 0, 0 };
	struct inj *injs;
	size_t ninj, i, j;
	struct tavern_input gin;

	/* A group chat: the build is the speaker's, its card chosen here. */
	if (in->group || in->speaker) {
		gin = *in;
		t->in = in = &gin;
		if (!tb_group_begin(t, &gin))
			return false;
	}
	tb_take_inputs(t);
	if (!tb_hook_chat(t))
		return false;
	tb_setup_env(t);
	tb_group_env(t);
	if (!tb_own_anchors(t))
		return false;
	/* The chat's variables as loaded: the state saved is what changed. */
	nbefore = t->locals.n;
	before = arena_array(&run->arena, nbefore + 1, sizeof(*before));
	if (nbefore)
		memcpy(before, t->locals.v, nbefore * sizeof(*before));
	ngbefore = t->globals.n;
	gbefore = arena_array(&run->arena, ngbefore + 1, sizeof(*gbefore));
	if (ngbefore)
		memcpy(gbefore, t->globals.v, ngbefore * sizeof(*gbefore));
	t->env.model = c->model;
	tb_card_fields(t);
	if (!tb_regex_load(t) || !tb_chat_messages(t) ||
	    !tb_authors_note(t))
		return false;
	/* An item for each chat message and prompt, and room for more. */
	t->rep->items = avec_grow(&run->arena, t->rep->items, &t->rep->cap,
	    t->rep->n, t->chat.n + t->p->nprompts + 64,
	    sizeof(*t->rep->items));
	tb_depth_prompts(t);
	if (!tb_world_info(t))
		return false;
	tb_own_inchat(t);
	qsort(t->ext, t->next, sizeof(*t->ext), tb_ext_cmp);

	tb_collect(t, &injs, &ninj);
	tb_main_extensions(t);
	tb_own_system(t);
	type_prompts(t);
	tb_history(t, &hist);
	if (t->gen == TAVERN_GEN_CONTINUE && t->chat.n)
		tb_continued(t, &hist, true);
	tb_own_context(t, &hist);
	tb_inject(t, &hist, injs, ninj);
	if (t->gen == TAVERN_GEN_CONTINUE && t->chat.n)
		tb_continued(t, &hist, false);
	if (!tb_hook_list(t, "afterInsert", &hist))
		return false;
	t->budget = (long)(t->p->max_context - t->p->max_tokens) - 3;
	if (!tb_fill(t, &hist))
		return false;

	for (i = 0; i < t->nslots; i++)
		for (j = 0; j < t->slots[i].msgs.n; j++) {
			const struct tmsg *m = &t->slots[i].msgs.v[j];

			tb_push_m(run, &all, m);
		}
	if (!tb_hook_list(t, "afterRaw", &all) ||
	    !tb_hook_list(t, tb_hook_post(t, false), &all))
		return false;
	if (t->p->squash)
		tb_squash(t, &all);
	tb_source_roles(t, &all, c->model);
	tb_post_process(t, &all);
	if (!tb_hook_list(t, tb_hook_post(t, true), &all))
		return false;
	/* The provider shaping and the body fields are emit_shape()'s,
	 * from what the request needs of the preset and settings. */
	tb_request(t, c->model);
	c->params = NULL;
	c->max_tokens = 0;
	c->world_info = t->wi;
	messages_out(t, &all, c);
	t->rep->budget = t->budget;
	t->rep->used = t->used;
	t->rep->type = t->type;
	t->rep->tokenizer = tokenizer_name(t->tok);
	if (t->grp)
		t->rep->speaker = arena_printf(&run->arena, "%s speaks: %s",
		    t->grp->m[t->speaker].name, t->grp_why);
	c->dialect = DIALECT_TAVERN;
	c->items = t->rep;
	c->merged_regex = tb_regex_rules(t);
	if (in->state)
		save_state(t, before, nbefore, gbefore, ngbefore,
		    in->state);
	return true;
}

bool
tavern_build(struct run *run, const struct tavern_input *in,
    const struct tavern_files *f, struct chat *c)
{
	struct tb t;
	bool ok;

	memset(&t, 0, sizeof(t));
	t.run = run;
	t.in = in;
	t.f = f;
	t.format = c->format;
	t.rep = arena_array(&run->arena, 1, sizeof(*t.rep));
	t.wi = arena_alloc(&run->arena, sizeof(*t.wi));
	t.tok = tokenizer_for_model(c->model);
	regex_set_init(&t.scripts);
	ok = build(&t, c);
	regex_set_free(&t.scripts);
	tokenizer_release();
	return ok;
}
