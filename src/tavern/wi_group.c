/*
 * wi_group: inclusion groups for the world-info engine, as SillyTavern's
 * filterByInclusionGroups runs them on a pass's new entries.
 */
#include "tavern/wi_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/util.h"

static int
group_score(struct engine *g, struct item *it, struct wi_record *r)
{
	struct wi_match m;
	int p = 0, s = 0;
	size_t i;

	/* SillyTavern's getScore: no primary keys, no score; secondary
	 * keys count whatever the entry's selective flag says. */
	if (it->e->key.n == 0)
		return 0;
	wi_item_prepare(g, it);
	for (i = 0; i < it->keys.nprimary; i++) {
		memset(&m, 0, sizeof(m));
		p += wi_item_key(g, it, r, it->keys.primary, i, &m);
	}
	for (i = 0; i < it->keys.nsecondary; i++) {
		memset(&m, 0, sizeof(m));
		s += wi_item_key(g, it, r, it->keys.secondary, i, &m);
	}
	if (it->e->selective_logic == WORLD_AND_ANY)
		return p + s;
	if (it->e->selective_logic == WORLD_AND_ALL &&
	    (size_t)s == it->e->keysecondary.n)
		return p + s;
	return p;
}

static void
lose(struct engine *g, struct item *it, enum wi_reason why,
    const char *group, int64_t winner)
{
	struct wi_record *r = &g->rec[it - g->items];

	it->removed = true;
	r->reason = why;
	r->group = group;
	r->winner = winner;
}

/* An array-index-like name ("0", "17"): JavaScript objects list those
 * first, in numeric order. */
static bool
index_like(const char *s, unsigned long *v)
{
	char *end;

	if (!*s || (s[0] == '0' && s[1]) || *s < '0' || *s > '9')
		return false;
	*v = strtoul(s, &end, 10);
	return *end == '\0' && *v < 4294967295ul;
}

/* One inclusion group of a pass: its members as they were grouped
 * (members another group removed stay listed, as in SillyTavern). */
struct grp {
	const char *name;
	unsigned long idx;
	bool is_index;
	size_t first;
	bool sticky;
	struct item **mem;
	size_t nm;
};

static int
cmp_grp(const void *a, const void *b)
{
	const struct grp *x = a, *y = b;

	if (x->is_index != y->is_index)
		return x->is_index ? -1 : 1;
	if (x->is_index)
		return x->idx < y->idx ? -1 : x->idx > y->idx;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* The pass's new entries, as SillyTavern's array: removing an entry
 * that is no longer there (splice at indexOf -1) removes the last. */
struct live {
	struct item **v;
	size_t n;
};

static void
drop(struct engine *g, struct live *l, struct item *it, enum wi_reason why,
    const char *group, int64_t winner)
{
	size_t i;

	for (i = 0; i < l->n && l->v[i] != it; i++)
		;
	if (i == l->n) {
		if (l->n == 0)
			return;
		it = l->v[--l->n];
		lose(g, it, WI_GROUP_SPLICE, group, winner);
		return;
	}
	memmove(l->v + i, l->v + i + 1, (l->n - i - 1) * sizeof(*l->v));
	l->n--;
	lose(g, it, why, group, winner);
}

static int
group_use_scoring(const struct engine *g, const struct item *it)
{
	return it->e->use_group_scoring == WORLD_UNSET ?
	    g->s->use_group_scoring : it->e->use_group_scoring;
}

/* SillyTavern's filterByInclusionGroups, step for step: the groups in
 * JavaScript object key order; timed effects for all groups, then
 * scoring for all, then each group's winner; members that another
 * group already removed are still in a group's list, and removing one
 * again removes the pass's last new entry instead. */
void
wi_apply_groups(struct engine *g, struct item **batch, size_t nb)
{
	struct grp *gs = NULL;
	struct live l;
	size_t ng = 0, cap = 0, i, j, k;

	for (i = 0; i < nb; i++)
		for (j = 0; j < batch[i]->ngroups; j++) {
			for (k = 0; k < ng; k++)
				if (strcmp(gs[k].name, batch[i]->groups[j]) == 0)
					break;
			if (k == ng) {
				if (ng == cap) {
					cap = cap ? cap * 2 : 8;
					gs = xreallocarray(gs, cap, sizeof(*gs));
				}
				memset(&gs[ng], 0, sizeof(gs[ng]));
				gs[ng].name = batch[i]->groups[j];
				gs[ng].is_index = index_like(gs[ng].name,
				    &gs[ng].idx);
				gs[ng].first = ng;
				gs[ng].mem = xcalloc(nb + 1, sizeof(*gs[ng].mem));
				ng++;
			}
			if (gs[k].nm == 0 || gs[k].mem[gs[k].nm - 1] != batch[i])
				gs[k].mem[gs[k].nm++] = batch[i];
		}
	if (ng == 0)
		return;
	if (ng > 1)
		qsort(gs, ng, sizeof(*gs), cmp_grp);
	l.v = xcalloc(nb + 1, sizeof(*l.v));
	memcpy(l.v, batch, nb * sizeof(*l.v));
	l.n = nb;
	/* Timed effects: a sticky member keeps only the sticky ones. */
	for (k = 0; k < ng; k++) {
		struct grp *gr = &gs[k];
		struct item *win = NULL;

		for (i = 0; i < gr->nm; i++)
			if (gr->mem[i]->sticky && !win)
				win = gr->mem[i];
		if (win) {
			for (i = 0; i < gr->nm; i++)
				if (!gr->mem[i]->sticky)
					drop(g, &l, gr->mem[i], WI_GROUP_LOST,
					    gr->name, win->e->uid);
			gr->sticky = true;
		}
		for (i = 0; i < gr->nm; i++)
			if (gr->mem[i]->cooldown)
				drop(g, &l, gr->mem[i], WI_COOLDOWN, gr->name,
				    -1);
	}
	/* Scoring: scored members below the group's best score lose. */
	for (k = 0; k < ng; k++) {
		struct grp *gr = &gs[k];
		bool any = g->s->use_group_scoring;
		int *score, max = INT_MIN;
		size_t keep = 0;

		for (i = 0; i < gr->nm; i++)
			any |= gr->mem[i]->e->use_group_scoring == 1;
		if (!any || gr->sticky)
			continue;
		score = xcalloc(gr->nm + 1, sizeof(*score));
		for (i = 0; i < gr->nm; i++) {
			score[i] = group_score(g, gr->mem[i],
			    &g->rec[gr->mem[i] - g->items]);
			if (score[i] > max)
				max = score[i];
		}
		for (i = 0; i < gr->nm; i++) {
			if (group_use_scoring(g, gr->mem[i]) && score[i] < max)
				drop(g, &l, gr->mem[i], WI_GROUP_SCORE,
				    gr->name, -1);
			else
				gr->mem[keep++] = gr->mem[i];
		}
		gr->nm = keep;
		free(score);
	}
	for (k = 0; k < ng; k++) {
		struct grp *gr = &gs[k];
		struct item *win = NULL;

		if (gr->sticky)
			continue;
		/* An entry of an earlier pass has this exact group string. */
		for (i = 0; i < g->n; i++)
			if (g->items[i].activated &&
			    strcmp(g->items[i].e->group, gr->name) == 0)
				break;
		if (i < g->n) {
			for (j = 0; j < gr->nm; j++)
				drop(g, &l, gr->mem[j], WI_GROUP_TAKEN,
				    gr->name, g->items[i].e->uid);
			continue;
		}
		if (gr->nm <= 1)
			continue;
		/* groupOverride: the highest order, the first on ties. */
		for (i = 0; i < gr->nm; i++)
			if (gr->mem[i]->e->group_override &&
			    (!win || gr->mem[i]->e->order > win->e->order))
				win = gr->mem[i];
		if (!win) {
			double total = 0, r, acc = 0;

			for (i = 0; i < gr->nm; i++)
				total += gr->mem[i]->e->group_weight;
			r = rng_double(&g->rng) * total;
			for (i = 0; i < gr->nm; i++) {
				acc += gr->mem[i]->e->group_weight;
				if (r <= acc) {
					win = gr->mem[i];
					break;
				}
			}
			if (!win)
				continue;
		}
		for (i = 0; i < gr->nm; i++)
			if (gr->mem[i] != win)
				drop(g, &l, gr->mem[i], WI_GROUP_LOST,
				    gr->name, win->e->uid);
	}
	for (k = 0; k < ng; k++)
		free(gs[k].mem);
	free(gs);
	free(l.v);
}
