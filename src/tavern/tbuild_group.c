/*
 * tbuild_group: a group chat in the SillyTavern build.  The group and
 * its members' cards are read first and the member who speaks is
 * chosen (group.c); the build then runs as for that member's card,
 * with these hooks: the group macros, the members' fields joined in
 * append mode, each member's Character's Note, a new chat's greetings
 * from every member (here); the names in the history, the examples
 * that open with any member's name, the group's new-chat prompt and
 * its nudge (beside the steps they change).
 */
#include "tavern/tbuild_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/path.h"
#include "data/tree.h"
#include "diag/run.h"
#include "tavern/card.h"
#include "tavern/group.h"
#include "tavern/tchat.h"

/* s with every pat replaced by with, pat compared without ASCII case
 * (JavaScript's replace(/<FIELDNAME>/gi, ...)). */
static const char *
replace_ci(struct arena *a, const char *s, const char *pat,
    const char *with)
{
	struct buf b = BUF_INIT;
	size_t n = strlen(pat);
	const char *r;

	while (*s) {
		if (strncasecmp(s, pat, n) == 0) {
			buf_puts(&b, with);
			s += n;
		} else
			buf_putc(&b, *s++);
	}
	buf_putc(&b, '\0');
	r = arena_strdup(a, b.data);
	buf_free(&b);
	return r;
}

/* The generator of the group's draws: --seed's, else the build's time
 * (--now's, or the clock's). */
static uint64_t
group_seed(const struct tavern_input *in, int64_t now_ms)
{
	if (in->seed)
		return strtoull(in->seed, NULL, 10) ^ 0x67726f7570ULL;
	return (uint64_t)now_ms;
}

/* getFirstCharacterMessage: first_mes, or one of it and the alternate
 * greetings drawn at random; "" when the member has none. */
static const char *
greeting_of(struct tb *t, const struct card *c, uint64_t *rng)
{
	const struct card_text **v = arena_array(&t->run->arena,
	    c->alternate_greetings.n + 1, sizeof(*v));
	size_t n = 0, i;
	uint64_t z;

	if (c->first_mes.len)
		v[n++] = &c->first_mes;
	for (i = 0; i < c->alternate_greetings.n; i++)
		if (c->alternate_greetings.items[i].len)
			v[n++] = &c->alternate_greetings.items[i];
	if (!n)
		return "";
	if (n == 1)
		return c->first_mes.len ? c->first_mes.s : v[0]->s;
	z = (*rng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return v[z % n]->s;
}

/* The extra.gen_id of m, or 0. */
static int64_t
gen_id(const struct tchat_msg *m)
{
	const struct node *x = m->node ? tree_get(m->node, "extra") : NULL;
	const struct node *v = x && x->kind == NODE_TABLE ?
	    tree_get(x, "gen_id") : NULL;

	return v && v->kind == NODE_INT ? v->u.i : v && v->kind ==
	    NODE_FLOAT ? (int64_t)v->u.f : 0;
}

/* regenerateGroup: how many of c's last messages go, the last batch of
 * replies (those of the last reply's gen_id; without one, every reply
 * after the user's or a system message). */
static size_t
regen_count(const struct tchat *c)
{
	const struct tchat_msg *last = c->nall ? &c->all[c->nall - 1] : NULL;
	int64_t id = last && !last->is_user && !last->hidden ? gen_id(last) :
	    0;
	size_t n = 0;

	while (n < c->nall) {
		const struct tchat_msg *m = &c->all[c->nall - 1 - n];

		if (id && gen_id(m) && gen_id(m) != id)
			break;
		if (m->is_user || m->hidden)
			break;
		n++;
	}
	return n;
}

void
tb_group_regenerate(struct tb *t)
{
	size_t n;

	if (!t->grp_regen)
		return;
	for (n = regen_count(&t->chat); n > 0; n--) {
		const struct tchat_msg *m = &t->chat.all[t->chat.nall - 1];

		tb_item_at(t, tb_item_skip(t, arena_printf(&t->run->arena,
		    "chat#%zu", t->chat.n - 1), ITEM_SOURCE_CHAT,
		    ROLE_ASSISTANT, 0, m->text, ENTRY_REPLACED, "--type "
		    "regenerate in a group deletes the last batch of "
		    "replies, then sends as normal"),
		    m->node);
		tchat_pop(&t->chat);
	}
}

bool
tb_group_read(struct run *run, const struct tavern_input *in,
    struct group **out)
{
	if (!in->group) {
		diag_plain(run, DIAG_ERROR, MSG_GROUP_NEEDS);
		return false;
	}
	if (in->card) {
		diag_plain(run, DIAG_ERROR, MSG_GROUP_AND_CARD);
		return false;
	}
	if (in->greeting) {
		diag_plain(run, DIAG_ERROR, MSG_GROUP_GREETING);
		return false;
	}
	return group_read(run, in->group, in->group_at, out);
}

bool
tb_group_begin(struct tb *t, struct tavern_input *gin)
{
	struct run *run = t->run;
	struct group *g = t->f->grp;
	struct group_pick p;
	struct tchat chat;
	uint64_t rng;
	const char **greet;
	size_t i;
	bool ok;

	rng = group_seed(gin, t->f->now_ms);
	/* A new chat opens with every member's greeting (muted ones too). */
	greet = arena_array(&run->arena, g->n + 1, sizeof(*greet));
	/* The chat as the group sees it when the message is sent: the chat
	 * read (a copy: regenerate drops its last replies here), or the
	 * greetings of a new one. */
	if (tb_chat_given(gin) || gin->chatfile)
		chat = *t->f->chat;
	else {
		memset(&chat, 0, sizeof(chat));
		chat.id = "";
		for (i = 0; i < g->n; i++) {
			greet[i] = greeting_of(t, g->m[i].card, &rng);
			if (*greet[i])
				tchat_add(run, &chat, g->m[i].name,
				    greet[i], false);
		}
	}
	/* Regenerate deletes the last batch, then generates as normal. */
	if (gin->type && strcmp(gin->type, "regenerate") == 0) {
		size_t n;

		for (n = regen_count(&chat); n > 0; n--)
			tchat_pop(&chat);
		gin->type = "normal";
		t->grp_regen = true;
	}
	ok = group_pick(run, g, gin->speaker, &chat, gin->user, gin->type ?
	    gin->type : "normal", &rng, &p);
	if (!ok)
		return false;
	t->grp = g;
	t->speaker = p.speaker;
	t->grp_why = p.why;
	t->grp_greet = greet;
	gin->card = g->m[p.speaker].path;
	return true;
}

void
tb_group_env(struct tb *t)
{
	const char **names;
	size_t i;

	if (!t->grp)
		return;
	names = arena_array(&t->run->arena, t->grp->n + 1, sizeof(*names));
	for (i = 0; i < t->grp->n; i++)
		names[i] = t->grp->m[i].name;
	t->env.group = group_names(t->run, t->grp, true);
	t->env.group_not_muted = group_names(t->run, t->grp, false);
	t->env.members = names;
	t->env.nmembers = t->grp->n;
}

/* replaceAndPrepareForJoin: the member's text trimmed, the prefix and
 * suffix around it, <FIELDNAME> replaced in all three, each substituted
 * with {{char}} the member. */
static const char *
joined(struct tb *t, const struct group_member *m, const char *field,
    const char *text, bool examples)
{
	struct arena *a = &t->run->arena;
	const char *keep = t->env.char_name, *asset, *pre, *suf, *v;
	char *s;

	v = tb_trim(a, text);
	if (!*v)
		return "";
	if (examples && strncmp(v, "<START>", 7) != 0)
		v = arena_printf(a, "<START>\n%s", v);
	asset = arena_printf(a, "card '%s', field %s", m->path, field);
	t->env.char_name = m->name;
	pre = tb_card_text(t, "generation_mode_join_prefix",
	    replace_ci(a, t->grp->join_prefix, "<FIELDNAME>", field));
	suf = tb_card_text(t, "generation_mode_join_suffix",
	    replace_ci(a, t->grp->join_suffix, "<FIELDNAME>", field));
	s = (char *)replace_ci(a, v, "<FIELDNAME>", field);
	v = tb_card_text(t, asset, tb_trim(a, s));
	t->env.char_name = keep;
	return arena_printf(a, "%s%s%s", pre, v, suf);
}

/* collectField: the members' texts (the muted ones' only in mode 2, and
 * the speaker's), each joined, "\n" between. */
static const char *
collect(struct tb *t, const char *field, int which)
{
	struct buf b = BUF_INIT;
	const char *r;
	size_t i;

	for (i = 0; i < t->grp->n; i++) {
		const struct group_member *m = &t->grp->m[i];
		const struct card *c = m->card;
		const char *v;

		if (m->muted && i != t->speaker &&
		    t->grp->mode != GROUP_APPEND_DISABLED)
			continue;
		v = joined(t, m, field, which == 0 ? c->description.s :
		    which == 1 ? c->personality.s : which == 2 ?
		    c->scenario.s : c->mes_example.s, which == 3);
		if (!*v)
			continue;
		if (b.len)
			buf_putc(&b, '\n');
		buf_puts(&b, v);
	}
	buf_putc(&b, '\0');
	r = arena_strdup(&t->run->arena, b.data);
	buf_free(&b);
	return r;
}

void
tb_group_fields(struct tb *t)
{
	const struct node *meta = t->chat.meta, *sc, *ex;

	if (t->grp->mode == GROUP_SWAP)
		return;
	sc = meta ? tree_get(meta, "scenario") : NULL;
	ex = meta ? tree_get(meta, "mes_example") : NULL;
	t->description = collect(t, "Description", 0);
	t->personality = collect(t, "Personality", 1);
	t->scenario = sc && sc->kind == NODE_STRING && *tb_trim(
	    &t->run->arena, sc->u.str.s) ? tb_card_text(t,
	    "chat_metadata.scenario", tb_trim(&t->run->arena, sc->u.str.s)) :
	    collect(t, "Scenario", 2);
	t->mes_example = ex && ex->kind == NODE_STRING && *tb_trim(
	    &t->run->arena, ex->u.str.s) ? tb_card_text(t,
	    "chat_metadata.mes_example", tb_trim(&t->run->arena,
	    ex->u.str.s)) : collect(t, "Example Messages", 3);
}

/* getGroupDepthPrompts: in append mode each member's Character's Note
 * (not a muted one's, but the speaker's), DEPTH_PROMPT_<i> by its
 * place among those.  False in swap mode: the speaker's alone. */
bool
tb_group_depth_prompts(struct tb *t)
{
	struct arena *a = &t->run->arena;
	size_t i, k = 0;

	if (t->grp->mode == GROUP_SWAP)
		return false;
	for (i = 0; i < t->grp->n; i++) {
		const struct group_member *m = &t->grp->m[i];
		struct card_depth_prompt dp;
		const char *keep = t->env.char_name, *v;

		if (m->muted && i != t->speaker)
			continue;
		if (!card_depth_prompt(m->card, &dp))
			continue;
		t->env.char_name = m->name;
		v = tb_card_text(t, arena_printf(a, "card '%s', field "
		    "extensions.depth_prompt.prompt", m->path),
		    tb_trim(a, dp.prompt.s));
		t->env.char_name = keep;
		if (!*v)
			continue;
		tb_ext_add(t, arena_printf(a, "DEPTH_PROMPT_%zu", k++), v,
		    EXT_IN_CHAT, dp.depth, tb_role_of(dp.role) == ROLE_USER ?
		    1 : tb_role_of(dp.role) == ROLE_ASSISTANT ? 2 : 0);
		tb_item_card(t, t->ext[t->next - 1].item,
		    "extensions.depth_prompt.prompt", tree_get(tree_get(
		    m->card->extensions, "depth_prompt"), "prompt"));
		tb_item_stage(t, t->ext[t->next - 1].item, ITEM_STAGE_RAW,
		    dp.prompt.s);
		tb_item_stage(t, t->ext[t->next - 1].item, ITEM_STAGE_MACROS,
		    v);
	}
	return true;
}

/* A new group chat: every member's greeting, its macros run with
 * {{char}} the member. */
void
tb_group_greetings(struct tb *t)
{
	size_t i;

	for (i = 0; i < t->grp->n; i++) {
		const struct group_member *m = &t->grp->m[i];
		const char *keep = t->env.char_name, *s;

		if (!*t->grp_greet[i])
			continue;
		t->env.char_name = m->name;
		s = tb_sub_as(t, arena_printf(&t->run->arena, "card '%s', "
		    "greeting", m->path), tb_trim(&t->run->arena,
		    t->grp_greet[i]));
		t->env.char_name = keep;
		t->craw[t->chat.n] = t->grp_greet[i];
		t->cpre[t->chat.n] = t->grp_greet[i];
		tchat_add(t->run, &t->chat, m->name, s, false);
		t->cmac[t->chat.n - 1] = t->chat.msgs[t->chat.n - 1].text;
	}
}
