/*
 * tbuild_own: strata's own entries (tavern_input.entries) placed among
 * the preset's prompts.
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

/* --- strata's own entries (tavern_input.entries) --- */

/* The item of strata's entry e (place: NULL, or its position's name). */
static uint32_t
own_item(struct tb *t, const struct tavern_entry *e, int64_t depth,
    const char *place)
{
	uint32_t it = tb_item_add(t, e->key, ITEM_SOURCE_PROFILE,
	    tb_role_of(e->role), depth,
	    e->raw ? e->raw : e->text);

	tb_item_stage(t, it, ITEM_STAGE_MACROS, e->text);
	t->rep->items[it].place = place;
	if (e->has_src) {
		t->rep->items[it].has_src = true;
		t->rep->items[it].src = e->src;
		t->rep->items[it].span = e->span;
	}
	if (e->reason)
		tb_item_out(t, it, e->reason, e->note);
	else if (e->note)
		tb_item_note(t, it, e->note);
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
bool
tb_own_anchors(struct tb *t)
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
void
tb_own_inchat(struct tb *t)
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
			tb_item_out(t, x.item, ENTRY_DEPTH,
			    "SillyTavern injects at depths 0 to 10000");
			continue;
		}
		/* system, user, else assistant */
		for (r = 0; r < 2 && tb_roles[r] != tb_role_of(e->role); r++)
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
void
tb_own_system(struct tb *t)
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
		tb_item_note(t, it, e->note ? arena_printf(a, "%s; %s", where,
		    e->note) : where);
		id = arena_printf(a, "strata:%s", where);
		for (k = 0; k < ng && strcmp(groups[k].id, id); k++)
			;
		if (k == ng) {
			memset(&groups[ng], 0, sizeof(groups[ng]));
			groups[ng].id = id;
			ranks[ng++] = rank;
			tb_push(t->run, &groups[k].msgs, ROLE_SYSTEM, NULL,
			    e->text, "strata");
			tb_last_holds(t, &groups[k].msgs, it);
			continue;
		}
		/* One more entry of that place: joined to the prompt. */
		groups[k].msgs.v[0].content = arena_printf(a, "%s%s%s",
		    groups[k].msgs.v[0].content, in->joiner ? in->joiner :
		    "\n\n", e->text);
		one = arena_array(a, 1, sizeof(*one));
		*one = it;
		t->rep->items[it].sep = in->joiner ? in->joiner : "\n\n";
		groups[k].msgs.v[0].items = tb_items_cat(t,
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
void
tb_own_context(struct tb *t, struct tlist *hist)
{
	const struct tavern_input *in = t->in;
	struct arena *a = &t->run->arena;
	struct tmsg *m = hist->n ? &hist->v[hist->n - 1] : NULL;
	const char *why = NULL;
	struct buf b = BUF_INIT;
	uint32_t *vi = NULL, nv = 0;
	size_t i;

	if (t->gen == TAVERN_GEN_CONTINUE ||
	    t->gen == TAVERN_GEN_IMPERSONATE)
		why = arena_printf(a, "--type %s sends no message of the "
		    "user's", t->type);
	else if (!m || m->role != ROLE_USER || !t->chat.n ||
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
			tb_item_out(t, it, ENTRY_NO_USER_MESSAGE, why);
			continue;
		}
		if (!vi)
			vi = arena_array(a, in->nentries + m->nitems + 1,
			    sizeof(*vi));
		vi[nv++] = it;
		buf_puts(&b, e->text);
		buf_puts(&b, "\n\n");
		tb_item_note(t, it, "before the text of this turn's message");
	}
	if (nv) {
		tb_resolve(t, m);
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
