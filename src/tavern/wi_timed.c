/*
 * wi_timed: SillyTavern's timed effects (sticky, cooldown) for the
 * world-info engine: the saved state read before the passes, and the
 * effects of the entries that activated added after them.
 */
#include "tavern/wi_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/rng.h"
#include "diag/run.h"

/* The entry a timed-effect key "<world>.<uid>" names (the world name may
 * hold dots: the uid is after the last one). */
static struct item *
find_item(struct engine *g, const char *key)
{
	const char *dot = strrchr(key, '.');
	char *end;
	long long uid;
	size_t i, wl;

	if (!dot || !dot[1])
		return NULL;
	uid = strtoll(dot + 1, &end, 10);
	if (*end)
		return NULL;
	wl = (size_t)(dot - key);
	for (i = 0; i < g->n; i++) {
		const char *w = g->items[i].book->world->name;

		if (g->items[i].e->uid == uid && strncmp(w, key, wl) == 0 &&
		    w[wl] == '\0')
			return &g->items[i];
	}
	return NULL;
}

static void
push_effect(struct engine *g, bool sticky, const struct wi_timed_effect *e)
{
	struct wi_timed_effect **v = sticky ? &g->timed.sticky :
	    &g->timed.cooldown;
	size_t *n = sticky ? &g->timed.nsticky : &g->timed.ncooldown;
	size_t *cap = sticky ? &g->capsticky : &g->capcooldown;

	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;

		*v = arena_grow(&g->run->arena, *v, *cap, nc, sizeof(**v));
		*cap = nc;
	}
	(*v)[(*n)++] = *e;
}

static bool
has_effect(const struct wi_timed_effect *v, size_t n, const char *key)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i].key, key) == 0)
			return true;
	return false;
}

static struct wi_timed_effect
new_effect(struct engine *g, struct item *it, int64_t length, bool prot)
{
	struct wi_timed_effect e;
	const char *key = wi_entry_key(g, it);
	char *h = arena_printf(&g->run->arena, "%s:%s", key, it->e->content);

	e.key = key;
	e.hash = rng_cyrb53(h, strlen(h), 0);
	e.start = (int64_t)g->chatlen;
	e.end = (int64_t)g->chatlen + length;
	e.protect = prot;
	return e;
}

/* Load chat_metadata.timedWorldInfo: drop what ended, start protected
 * cooldowns after stickies, mark what is active. */
void
wi_timed_load(struct engine *g)
{
	const struct wi_timed *t = g->in->timed;
	int64_t len = (int64_t)g->chatlen;
	int type;
	size_t i;

	if (!t)
		return;
	for (type = 0; type < 2; type++) {
		const struct wi_timed_effect *v = type == 0 ? t->sticky :
		    t->cooldown;
		size_t n = type == 0 ? t->nsticky : t->ncooldown;

		for (i = 0; i < n; i++) {
			struct item *it = find_item(g, v[i].key);

			if (len <= v[i].start && !v[i].protect)
				continue;       /* the chat did not advance */
			if (len >= v[i].end) {
				if (type == 0 && it && it->e->cooldown > 0) {
					struct wi_timed_effect c = new_effect(
					    g, it, it->e->cooldown, true);

					push_effect(g, false, &c);
				}
				continue;
			}
			if (!it) {
				push_effect(g, type == 0, &v[i]);
				continue;
			}
			if ((type == 0 ? it->e->sticky : it->e->cooldown) <= 0)
				continue;
			push_effect(g, type == 0, &v[i]);
		}
	}
	for (i = 0; i < g->timed.nsticky; i++) {
		struct item *it = find_item(g, g->timed.sticky[i].key);

		if (it)
			it->sticky = true;
	}
	for (i = 0; i < g->timed.ncooldown; i++) {
		struct item *it = find_item(g, g->timed.cooldown[i].key);

		if (it)
			it->cooldown = true;
	}
}

/* Timed effects for what activated now. */
void
wi_timed_save(struct engine *g, struct wi_result *out)
{
	size_t i;

	for (i = 0; i < out->nactivated; i++) {
		struct wi_record *r = out->activated[i];
		struct item *it = &g->items[r - g->rec];
		const char *key = wi_entry_key(g, it);
		struct wi_timed_effect eff;

		if (it->e->sticky > 0 &&
		    !has_effect(g->timed.sticky, g->timed.nsticky, key)) {
			eff = new_effect(g, it, it->e->sticky, false);
			push_effect(g, true, &eff);
		}
		if (it->e->cooldown > 0 &&
		    !has_effect(g->timed.cooldown, g->timed.ncooldown, key)) {
			eff = new_effect(g, it, it->e->cooldown, false);
			push_effect(g, false, &eff);
		}
	}
	out->timed = g->timed;
}
