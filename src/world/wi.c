/*
 * wi: the activation loop (SillyTavern's checkWorldInfo), inclusion
 * groups, timed effects and the output per position.  Key matching and
 * the scan buffer are in wi_scan.c.
 */
#include "world/wi.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/rng.h"
#include "base/buf.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "base/util.h"

enum state { S_NONE, S_INITIAL, S_RECURSION, S_MIN_ACTIVATIONS };

/* How many items ahead the pass loop asks for an entry's memory. */
#define PREFETCH 8

struct item {
	const struct world_entry *e;
	const struct wi_book *book;
	int64_t order;                  /* e->order, for the sort */
	struct wi_keys keys;
	bool prepared;
	bool dec_activate, dec_dont;
	const char *content;            /* decorators removed */
	bool activated, failed;
	bool sticky, cooldown;          /* timed effects active now */
	bool forced;
	bool removed;                   /* out of this pass's batch */
	size_t ngroups;
	const char **groups;
};

struct engine {
	struct run *run;
	const struct wi_input *in;
	const struct wi_settings *s;
	struct wi_scan *sc;
	struct rng rng;
	struct item *items;
	struct wi_record *rec;
	size_t n;
	size_t chatlen;
	struct wi_timed timed;
	size_t capsticky, capcooldown;
};

static const char *const reason_names[] = {
	"not reached", "key", "constant", "sticky", "@@activate", "forced",
	"disabled", "trigger", "character filter", "delay", "cooldown",
	"delay until recursion", "recursion level", "exclude recursion",
	"@@dont_activate", "no keys", "no key matched",
	"secondary keys failed", "probability", "lost inclusion group",
	"group scoring", "group already won",
	"removed in a group's place", "over budget", "empty content",
	"emptied by regex",
};

/* The most messages an entry can scan: the deepest scan depth, or the
 * whole chat when too few activations deepen the scan pass by pass. */
static size_t
scan_reach(const struct engine *g)
{
	int64_t d = g->s->depth;
	size_t i;

	if (g->s->min_activations > 0)
		return SIZE_MAX;
	for (i = 0; i < g->n; i++)
		if (g->items[i].e->scan_depth != WORLD_UNSET &&
		    g->items[i].e->scan_depth > d)
			d = g->items[i].e->scan_depth;
	return d > 0 ? (size_t)d : 0;
}

const char *
wi_reason_name(enum wi_reason reason)
{
	return (size_t)reason < LEN(reason_names) ? reason_names[reason] :
	    "?";
}

const char *
wi_source_name(enum wi_source source)
{
	static const char *const names[] = {
		"chat", "persona", "character", "global",
	};

	return (size_t)source < LEN(names) ? names[source] : "?";
}

const char *
wi_where_name(enum wi_where where)
{
	static const char *const names[] = {
		"message", "card", "inject", "recursion",
	};

	return (size_t)where < LEN(names) ? names[where] : "?";
}

const char *
wi_match_name(int match)
{
	static const char *const names[] = {
		"persona description", "character description",
		"character personality", "character depth prompt",
		"scenario", "creator notes",
	};

	return match >= 0 && (size_t)match < LEN(names) ? names[match] : "?";
}

void
wi_settings_default(struct wi_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->depth = 2;
	s->budget_percent = 25;
	s->include_names = true;
	s->strategy = 1;
	s->wi_format = "{0}";
}

static int64_t
units_to_tokens(size_t units)
{
	return (int64_t)ceil((double)units / 3.35);
}

int64_t
wi_estimate_tokens(void *ctx, const char *text, size_t len)
{
	(void)ctx;
	return units_to_tokens(utf16_length(text, len));
}

static int64_t
tokens(struct engine *g, const char *t, size_t len)
{
	if (g->in->count_tokens)
		return g->in->count_tokens(g->in->count_tokens_ctx, t, len);
	return wi_estimate_tokens(NULL, t, len);
}

static const char *
entry_key(struct engine *g, const struct item *it)
{
	return arena_printf(&g->run->arena, "%s.%lld", it->book->world->name,
	    (long long)it->e->uid);
}

/* Decorators: leading lines "@@activate" / "@@dont_activate"; "@@@..."
 * escapes a line that should start with "@@". */
static void
parse_decorators(struct engine *g, struct item *it)
{
	const char *c = it->e->content, *nl;
	size_t n;

	it->content = c;
	while (c[0] == '@' && c[1] == '@') {
		if (c[2] == '@') {
			c++;
			break;
		}
		nl = strchr(c, '\n');
		n = nl ? (size_t)(nl - c) : strlen(c);
		while (n > 0 && (c[n - 1] == ' ' || c[n - 1] == '\t' ||
		    c[n - 1] == '\r'))
			n--;
		if (n == 10 && memcmp(c, "@@activate", 10) == 0)
			it->dec_activate = true;
		else if (n == 15 && memcmp(c, "@@dont_activate", 15) == 0)
			it->dec_dont = true;
		c = nl ? nl + 1 : c + strlen(c);
	}
	it->content = c;
}

static void
split_groups(struct engine *g, struct item *it)
{
	const char *s = it->e->group, *p;
	size_t cap = 1;

	if (!*s)
		return;         /* most entries: no array to allocate */
	for (p = s; *p; p++)
		if (*p == ',')
			cap++;
	it->groups = arena_array(&g->run->arena, cap, sizeof(*it->groups));
	while (*s) {
		p = strchr(s, ',');
		if (!p)
			p = s + strlen(s);
		if (p > s)
			it->groups[it->ngroups++] = arena_strndup(
			    &g->run->arena, s, (size_t)(p - s));
		if (!*p)
			break;
		s = p + 1;
		/* split(/,\s*\/) */
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' ||
		    *s == '\f' || *s == '\v')
			s++;
	}
}

/* Stable order-descending sort of items[lo..hi) by merging. */
static void
sort_desc(struct item **v, size_t n, struct item **tmp)
{
	size_t m = n / 2, i = 0, j = m, k = 0;

	if (n < 2)
		return;
	sort_desc(v, m, tmp);
	sort_desc(v + m, n - m, tmp);
	while (i < m && j < n)
		tmp[k++] = v[j]->order > v[i]->order ? v[j++] : v[i++];
	while (i < m)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

static bool
is_global(const struct wi_input *in, const char *name)
{
	size_t i;

	for (i = 0; i < in->nbooks; i++)
		if (in->books[i].source == WI_SOURCE_GLOBAL &&
		    strcmp(in->books[i].world->name, name) == 0)
			return true;
	return false;
}

static bool
book_skipped(const struct wi_input *in, const struct wi_book *b)
{
	size_t i;

	if (b->source == WI_SOURCE_GLOBAL)
		return false;
	if (is_global(in, b->world->name))
		return true;
	for (i = 0; i < in->nbooks; i++) {
		const struct wi_book *o = &in->books[i];

		if (o->source < b->source &&
		    strcmp(o->world->name, b->world->name) == 0)
			return true;
	}
	return false;
}

static bool forced(struct engine *g, const struct item *it);

/*
 * getSortedEntries(): [chat, persona, strategy(character, global)].  What
 * an item needs from its entry is read here, in book order, which walks
 * the entries (and their texts) through memory in order; the priority
 * order jumps about.
 */
static void
collect(struct engine *g)
{
	const struct wi_input *in = g->in;
	struct item **lists[4], **tmp, **all, *items;
	size_t nl[4] = {0}, total = 0, i, j, k, src;

	for (i = 0; i < in->nbooks; i++)
		total += in->books[i].world->n;
	for (src = 0; src < 4; src++)
		lists[src] = xcalloc(total + 1, sizeof(**lists));
	tmp = xcalloc(total + 1, sizeof(*tmp));
	all = xcalloc(total + 1, sizeof(*all));
	/* In book order, on the heap: they are copied in priority order
	 * below, into the arena. */
	items = xcalloc(total + 1, sizeof(*items));
	k = 0;
	for (i = 0; i < in->nbooks; i++) {
		const struct wi_book *b = &in->books[i];

		if (book_skipped(in, b))
			continue;
		for (j = 0; j < b->world->n; j++) {
			struct item *it = &items[k++];

			it->e = &b->world->entries[j];
			it->book = b;
			it->order = it->e->order;
			parse_decorators(g, it);
			split_groups(g, it);
			it->forced = forced(g, it);
			lists[b->source][nl[b->source]++] = it;
		}
	}
	for (src = 0; src < 4; src++)
		sort_desc(lists[src], nl[src], tmp);
	/* Combine: chat, persona, then character/global by strategy. */
	k = 0;
	for (src = 0; src < 2; src++)
		for (i = 0; i < nl[src]; i++)
			all[k++] = lists[src][i];
	{
		size_t a = WI_SOURCE_CHARACTER, b = WI_SOURCE_GLOBAL, start = k;

		if (g->s->strategy == 0 || g->s->strategy == 2) {
			a = WI_SOURCE_GLOBAL;
			b = WI_SOURCE_CHARACTER;
		}
		for (i = 0; i < nl[a]; i++)
			all[k++] = lists[a][i];
		for (i = 0; i < nl[b]; i++)
			all[k++] = lists[b][i];
		if (g->s->strategy == 0)
			sort_desc(all + start, k - start, tmp);
	}
	/* Re-lay the items in that order. */
	{
		struct item *sorted = arena_array(&g->run->arena, k + 1,
		    sizeof(*sorted));

		for (i = 0; i < k; i++)
			sorted[i] = *all[i];
		g->items = sorted;
		g->n = k;
	}
	for (src = 0; src < 4; src++)
		free(lists[src]);
	free(tmp);
	free(all);
	free(items);
}

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
	const char *key = entry_key(g, it);
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
static void
load_timed(struct engine *g)
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

static void
prepare(struct engine *g, struct item *it)
{
	if (!it->prepared) {
		wi_keys_prepare(g->sc, it->book, it->e, &it->keys);
		it->prepared = true;
	}
}

static bool
scan_key(struct engine *g, struct item *it, struct wi_record *r,
    struct wi_key *keys, size_t i, struct wi_match *m)
{
	bool ok = wi_scan_key(g->sc, it->e, keys, i, m);

	if (m->limit && !r->regex_limit) {
		r->regex_limit = true;
		diag_plain(g->run, DIAG_WARNING, MSG_WI_REGEX_LIMIT,
		    it->book->world->name, (long long)it->e->uid,
		    wi_key_text(keys, i));
	}
	m->limit = false;
	return ok;
}

/* Primary then secondary keys; sets the record's reason. */
static bool
match_entry(struct engine *g, struct item *it, struct wi_record *r)
{
	const struct world_entry *e = it->e;
	struct wi_match m = {0}, m2;
	size_t i;
	bool any = false, all = true, hit;

	prepare(g, it);
	for (i = 0; i < it->keys.nprimary; i++)
		if (scan_key(g, it, r, it->keys.primary, i, &m))
			break;
	if (!m.found) {
		r->reason = WI_NO_MATCH;
		return false;
	}
	r->key = wi_key_text(it->keys.primary, m.key);
	r->where = m.where;
	r->where_index = m.where_index;
	if (!e->selective || e->keysecondary.n == 0)
		return true;
	/* A secondary key that is empty after macros never matches. */
	if (it->keys.nsecondary < e->keysecondary.n) {
		all = false;
		if (e->selective_logic == WORLD_NOT_ALL)
			return true;
	}
	for (i = 0; i < it->keys.nsecondary; i++) {
		memset(&m2, 0, sizeof(m2));
		hit = scan_key(g, it, r, it->keys.secondary, i, &m2);
		if (hit)
			any = true;
		else
			all = false;
		if (e->selective_logic == WORLD_AND_ANY && hit)
			return true;
		if (e->selective_logic == WORLD_NOT_ALL && !hit)
			return true;
	}
	if (e->selective_logic == WORLD_NOT_ANY && !any)
		return true;
	if (e->selective_logic == WORLD_AND_ALL && all)
		return true;
	r->reason = WI_SECONDARY;
	return false;
}

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
	prepare(g, it);
	for (i = 0; i < it->keys.nprimary; i++) {
		memset(&m, 0, sizeof(m));
		p += scan_key(g, it, r, it->keys.primary, i, &m);
	}
	for (i = 0; i < it->keys.nsecondary; i++) {
		memset(&m, 0, sizeof(m));
		s += scan_key(g, it, r, it->keys.secondary, i, &m);
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
static void
apply_groups(struct engine *g, struct item **batch, size_t nb)
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

static bool
forced(struct engine *g, const struct item *it)
{
	size_t i;

	for (i = 0; i < g->in->nforced; i++)
		if (g->in->forced[i].uid == it->e->uid &&
		    strcmp(g->in->forced[i].world,
		    it->book->world->name) == 0)
			return true;
	return false;
}

static bool
filtered(struct engine *g, const struct world_entry *e)
{
	const struct wi_input *in = g->in;
	size_t i, j;
	bool hit = false;

	if (e->filter_names.n > 0) {
		for (i = 0; i < e->filter_names.n; i++)
			if (in->char_filename &&
			    strcmp(e->filter_names.v[i], in->char_filename) == 0)
				hit = true;
		if (e->filter_exclude ? hit : !hit)
			return true;
	}
	if (e->filter_tags.n > 0 && in->char_tags) {
		hit = false;
		for (i = 0; i < e->filter_tags.n; i++)
			for (j = 0; j < in->nchar_tags; j++)
				if (strcmp(e->filter_tags.v[i],
				    in->char_tags[j]) == 0)
					hit = true;
		if (e->filter_exclude ? hit : !hit)
			return true;
	}
	return false;
}

/* The skip rules and activation, in SillyTavern's order. */
static bool
consider(struct engine *g, struct item *it, struct wi_record *r,
    enum state state, int64_t level)
{
	const struct world_entry *e = it->e;
	bool st = it->sticky;

	r->key = NULL;
	if (e->disable)
		r->reason = WI_DISABLED;
	else if (e->triggers && !(e->triggers & (1u << g->in->trigger)))
		r->reason = WI_TRIGGER;
	else if (filtered(g, e))
		r->reason = WI_CHARACTER_FILTER;
	else if (e->delay > 0 && (int64_t)g->chatlen < e->delay)
		r->reason = WI_DELAY;
	else if (it->cooldown && !st)
		r->reason = WI_COOLDOWN;
	else if (e->delay_until_recursion && state != S_RECURSION && !st)
		r->reason = WI_DELAY_UNTIL_RECURSION;
	else if (state == S_RECURSION && e->delay_until_recursion > level &&
	    !st)
		r->reason = WI_RECURSION_LEVEL;
	else if (state == S_RECURSION && g->s->recursive &&
	    e->exclude_recursion && !st)
		r->reason = WI_EXCLUDE_RECURSION;
	else if (it->dec_activate)
		r->reason = WI_BY_DECORATOR;
	else if (it->dec_dont)
		r->reason = WI_DONT_ACTIVATE;
	else if (it->forced)
		r->reason = WI_BY_FORCE;
	else if (e->constant)
		r->reason = WI_BY_CONSTANT;
	else if (st)
		r->reason = WI_BY_STICKY;
	else if (e->key.n == 0)
		r->reason = WI_NO_KEYS;
	else if (match_entry(g, it, r))
		r->reason = WI_BY_KEY;
	return r->reason >= WI_BY_KEY && r->reason <= WI_BY_FORCE;
}

static int64_t
cmp64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

static int
cmp_level(const void *a, const void *b)
{
	return (int)cmp64(*(const int64_t *)a, *(const int64_t *)b);
}

static void output(struct engine *g, struct wi_result *out);

/* The text of an item's first key, which its entry (asked for earlier)
 * leads to: the prepared key, or the entry's own string. */
static void
prefetch_key(const struct item *it)
{
	if (it->prepared && it->keys.nprimary)
		__builtin_prefetch(wi_key_text(it->keys.primary, 0));
	else if (!it->prepared && it->e->key.n)
		__builtin_prefetch(it->e->key.v[0]);
}

bool
wi_run(struct run *run, const struct wi_input *in, struct wi_result *out)
{
	struct wi_settings defaults;
	struct engine g;
	struct item **batch;
	struct buf all = BUF_INIT, newc = BUF_INIT, rectext = BUF_INIT;
	int64_t *levels, level = 0, skew = 0, budget, all_tokens = 0;
	size_t nlevels = 0, li = 0, i, j, nb, nact = 0, newc_at, newc_units = 0;
	size_t all_units = 0;
	/* newc[0..safe_at) holds safe_tokens tokens and is never recounted
	 * (see count_tokens in wi.h). */
	size_t safe_at = 0;
	int64_t safe_tokens = 0;
	enum state state = S_INITIAL, next;
	bool overflow = false;
	int pass = 0;

	memset(out, 0, sizeof(*out));
	memset(&g, 0, sizeof(g));
	if (!in->settings)
		wi_settings_default(&defaults);
	g.run = run;
	g.in = in;
	g.s = in->settings ? in->settings : &defaults;
	rng_seed(&g.rng, in->seed);
	for (i = 0; i < in->nmessages; i++)
		if (!in->messages[i].is_system)
			g.chatlen++;
	collect(&g);
	g.rec = arena_array(&run->arena, g.n + 1, sizeof(*g.rec));
	levels = xcalloc(g.n + 1, sizeof(*levels));
	for (i = 0; i < g.n; i++) {
		struct item *it = &g.items[i];
		struct wi_record *r = &g.rec[i];

		r->entry = it->e;
		r->world = it->book->world->name;
		r->source = it->book->source;
		r->roll = -1;
		r->winner = -1;
	}
	/* The delayUntilRecursion levels, reading the books in order. */
	for (i = 0; i < in->nbooks; i++) {
		const struct wi_book *b = &in->books[i];
		size_t k;

		if (book_skipped(in, b))
			continue;
		for (k = 0; k < b->world->n; k++) {
			int64_t d = b->world->entries[k].delay_until_recursion;

			if (d <= 0)
				continue;
			for (j = 0; j < nlevels; j++)
				if (levels[j] == d)
					break;
			if (j == nlevels)
				levels[nlevels++] = d;
		}
	}
	qsort(levels, nlevels, sizeof(*levels), cmp_level);
	if (li < nlevels)
		level = levels[li++];
	g.sc = wi_scan_new(run, in, g.s, scan_reach(&g));
	load_timed(&g);
	budget = (int64_t)llround((double)g.s->budget_percent *
	    (double)in->max_context / 100.0);
	if (budget == 0)
		budget = 1;
	if (g.s->budget_cap > 0 && budget > g.s->budget_cap)
		budget = g.s->budget_cap;
	out->budget = budget;
	out->chat_length = g.chatlen;
	batch = xcalloc(g.n + 1, sizeof(*batch));

	while (state != S_NONE) {
		size_t nsucc = 0, nrec_text = 0;

		if (g.s->max_recursion_steps > 0 &&
		    pass >= g.s->max_recursion_steps)
			break;
		pass++;
		wi_scan_set(g.sc, skew, state != S_MIN_ACTIVATIONS);
		nb = 0;
		for (i = 0; i < g.n; i++) {
			struct item *it = &g.items[i];
			struct wi_record *r = &g.rec[i];

			/* Priority order jumps about the entries: ask for
			 * the lines consider() reads a few items ahead, and
			 * then for the first key's text. */
			if (i + PREFETCH < g.n) {
				const char *e = (const char *)
				    g.items[i + PREFETCH].e;

				__builtin_prefetch(e);
				__builtin_prefetch(e + 64);
				__builtin_prefetch(e + 128);
				__builtin_prefetch(e + 192);
			}
			if (i + PREFETCH / 2 < g.n)
				prefetch_key(&g.items[i + PREFETCH / 2]);
			if (it->activated || it->failed)
				continue;
			r->pass = pass;
			r->level = (int)level;
			if (consider(&g, it, r, state, level)) {
				it->removed = false;
				batch[nb++] = it;
			}
		}
		/* Sticky entries first, then priority order (stable). */
		{
			size_t k = 0;
			struct item **tmp = xcalloc(nb + 1, sizeof(*tmp));

			for (i = 0; i < nb; i++)
				if (batch[i]->sticky)
					tmp[k++] = batch[i];
			for (i = 0; i < nb; i++)
				if (!batch[i]->sticky)
					tmp[k++] = batch[i];
			memcpy(batch, tmp, nb * sizeof(*batch));
			free(tmp);
		}
		apply_groups(&g, batch, nb);
		buf_reset(&newc);
		newc_units = 0;
		safe_at = 0;
		safe_tokens = 0;
		buf_reset(&rectext);
		for (i = 0; i < nb; i++) {
			struct item *it = batch[i];
			struct wi_record *r = &g.rec[it - g.items];
			const char *c;

			if (it->removed)
				continue;
			if (overflow && !it->e->ignore_budget) {
				r->reason = WI_BUDGET;
				r->tokens = -1;
				continue;
			}
			if (it->e->use_probability &&
			    it->e->probability != 100 && !it->sticky) {
				r->roll = rng_double(&g.rng) * 100;
				if (r->roll > it->e->probability) {
					r->reason = WI_PROBABILITY;
					it->failed = true;
					continue;
				}
			}
			c = in->substitute ? in->substitute(in->substitute_ctx,
			    it->content, it->book, it->e) : it->content;
			r->content = c;
			newc_at = newc.len;
			buf_puts(&newc, c);
			buf_putc(&newc, '\n');
			/* The estimate is a sum: count what was added. */
			newc_units += utf16_length(newc.data + newc_at,
			    newc.len - newc_at);
			/* After a newline, an ASCII letter or digit starts a
			 * new pre-token in both BPE encodings: the text before
			 * it counts the same whatever follows. */
			if (in->count_tokens && newc_at > safe_at &&
			    ((c[0] >= 'a' && c[0] <= 'z') ||
			    (c[0] >= 'A' && c[0] <= 'Z') ||
			    (c[0] >= '0' && c[0] <= '9'))) {
				safe_tokens += tokens(&g, newc.data + safe_at,
				    newc_at - safe_at);
				safe_at = newc_at;
			}
			if (!it->e->ignore_budget) {
				int64_t t = all_tokens + (in->count_tokens ?
				    safe_tokens + tokens(&g, newc.data + safe_at,
				    newc.len - safe_at) :
				    units_to_tokens(newc_units));

				if (t >= budget) {
					overflow = true;
					r->reason = WI_BUDGET;
					r->tokens = t;
					continue;
				}
			}
			it->activated = true;
			r->activated = true;
			r->order_index = nact++;
			nsucc++;
			if (!it->e->prevent_recursion) {
				if (nrec_text++)
					buf_putc(&rectext, '\n');
				buf_puts(&rectext, c);
			}
		}
		next = S_NONE;
		if (g.s->recursive && !overflow && nrec_text > 0)
			next = S_RECURSION;
		if (g.s->recursive && !overflow &&
		    state == S_MIN_ACTIVATIONS && rectext.len + all.len > 0)
			next = S_RECURSION;
		if (next == S_NONE && !overflow && g.s->min_activations > 0 &&
		    (int64_t)nact < g.s->min_activations) {
			int64_t d = g.s->depth + skew;

			if (!((g.s->min_activations_depth_max > 0 &&
			    d > g.s->min_activations_depth_max) ||
			    d > (int64_t)g.chatlen)) {
				next = S_MIN_ACTIVATIONS;
				skew++;
			}
		}
		if (next == S_NONE && li < nlevels) {
			next = S_RECURSION;
			level = levels[li++];
		}
		if (next != S_NONE && nrec_text > 0) {
			char *t = arena_strndup(&run->arena, rectext.data,
			    rectext.len);

			wi_scan_add_recursion(g.sc, t, pass);
			/* allActivatedText = text + "\n" + allActivatedText,
			 * counted by what is new: the estimate is a sum, and
			 * before an ASCII letter or digit after a newline a
			 * BPE count splits (see above), so each pass costs
			 * the new text, not all of it. */
			bool split = all.len && ((all.data[0] >= 'a' &&
			    all.data[0] <= 'z') || (all.data[0] >= 'A' &&
			    all.data[0] <= 'Z') || (all.data[0] >= '0' &&
			    all.data[0] <= '9'));

			buf_putc(&rectext, '\n');
			all_units += utf16_length(rectext.data, rectext.len);
			if (!in->count_tokens)
				all_tokens = units_to_tokens(all_units);
			else if (split)
				all_tokens += tokens(&g, rectext.data,
				    rectext.len);
			buf_put(&rectext, all.data ? all.data : "", all.len);
			buf_reset(&all);
			buf_put(&all, rectext.data, rectext.len);
			if (in->count_tokens && !split)
				all_tokens = tokens(&g, all.data, all.len);
		}
		(void)nsucc;
		state = next;
	}
	out->passes = pass;
	out->overflow = overflow;
	out->records = g.rec;
	out->nrecords = g.n;
	/* Records never decided in the last pass keep their reason. */
	output(&g, out);
	/* Timed effects for what activated now. */
	for (i = 0; i < out->nactivated; i++) {
		struct wi_record *r = out->activated[i];
		struct item *it = &g.items[r - g.rec];
		const char *key = entry_key(&g, it);
		struct wi_timed_effect eff;

		if (it->e->sticky > 0 &&
		    !has_effect(g.timed.sticky, g.timed.nsticky, key)) {
			eff = new_effect(&g, it, it->e->sticky, false);
			push_effect(&g, true, &eff);
		}
		if (it->e->cooldown > 0 &&
		    !has_effect(g.timed.cooldown, g.timed.ncooldown, key)) {
			eff = new_effect(&g, it, it->e->cooldown, false);
			push_effect(&g, false, &eff);
		}
	}
	out->timed = g.timed;
	{
		struct buf t = BUF_INIT;

		for (i = 0; i < out->nactivated; i++) {
			const char *c = out->activated[i]->content;

			if (i)
				buf_putc(&t, '\n');
			buf_puts(&t, c ? c : "");
		}
		out->tokens_used = t.len ? tokens(&g, t.data, t.len) : 0;
		buf_free(&t);
	}
	wi_scan_free(g.sc);
	free(batch);
	free(levels);
	buf_free(&all);
	buf_free(&newc);
	buf_free(&rectext);
	return true;
}

/* Output. */
static const char *
join_rev(struct arena *a, const char **v, size_t n, bool reverse)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++) {
		if (i)
			buf_putc(&b, '\n');
		buf_puts(&b, v[reverse ? n - 1 - i : i]);
	}
	buf_putc(&b, '\0');
	return arena_adopt(a, buf_detach(&b));
}

/* SillyTavern's stringFormat(wi_format, text): every {0} replaced. */
static const char *
wi_format(struct arena *a, const char *fmt, const char *text)
{
	struct buf b = BUF_INIT;
	const char *p, *q;
	size_t k;

	if (!*text)
		return "";
	if (!fmt)
		fmt = "{0}";
	for (p = fmt; *p && (*p == ' ' || *p == '\t' || *p == '\n' ||
	    *p == '\r'); p++)
		;
	if (!*p)
		return text;
	for (p = fmt; (q = strstr(p, "{0}")) != NULL; p = q + 3) {
		buf_put(&b, p, (size_t)(q - p));
		buf_puts(&b, text);
	}
	buf_puts(&b, p);
	buf_putc(&b, '\0');
	(void)k;
	return arena_adopt(a, buf_detach(&b));
}

static void
output(struct engine *g, struct wi_result *out)
{
	struct arena *a = &g->run->arena;
	struct item **v, **tmp;
	const char **bef, **aft, **ant, **anb;
	size_t n = 0, i, j, nbef = 0, naft = 0, nant = 0, nanb = 0;
	const char ***dtexts;
	size_t *dn;
	int64_t *dkey;          /* each depth group's depth ?? 4 */

	v = xcalloc(g->n + 1, sizeof(*v));
	tmp = xcalloc(g->n + 1, sizeof(*tmp));
	out->activated = arena_array(a, g->n + 1, sizeof(*out->activated));
	for (i = 0; i < g->n; i++)
		if (g->rec[i].activated)
			out->activated[g->rec[i].order_index] = &g->rec[i];
	for (i = 0; i < g->n; i++)
		if (g->rec[i].activated)
			out->nactivated++;
	for (i = 0; i < out->nactivated; i++)
		v[n++] = &g->items[out->activated[i] - g->rec];
	sort_desc(v, n, tmp);
	bef = arena_array(a, n + 1, sizeof(*bef));
	aft = arena_array(a, n + 1, sizeof(*aft));
	ant = arena_array(a, n + 1, sizeof(*ant));
	anb = arena_array(a, n + 1, sizeof(*anb));
	out->em_top = arena_array(a, n + 1, sizeof(*out->em_top));
	out->em_bottom = arena_array(a, n + 1, sizeof(*out->em_bottom));
	out->depth = arena_array(a, n + 1, sizeof(*out->depth));
	out->outlets = arena_array(a, n + 1, sizeof(*out->outlets));
	dtexts = xcalloc(n + 1, sizeof(*dtexts));
	dn = xcalloc(n + 1, sizeof(*dn));
	dkey = xcalloc(n + 1, sizeof(*dkey));
	for (i = 0; i < n; i++) {
		struct item *it = v[i];
		struct wi_record *r = &g->rec[it - g->items];
		const char *c = r->content ? r->content : "";

		if (*c && g->in->regex)
			c = g->in->regex(g->in->regex_ctx, c,
			    it->e->position == WORLD_DEPTH ? it->e->depth :
			    WI_NO_DEPTH);
		if (!c || !*c) {
			r->reason = r->content && *r->content ?
			    WI_REGEX_EMPTY : WI_EMPTY;
			continue;
		}
		switch (it->e->position) {
		case WORLD_BEFORE:
			bef[nbef++] = c;
			break;
		case WORLD_AFTER:
			aft[naft++] = c;
			break;
		case WORLD_AN_TOP:
			ant[nant++] = c;
			break;
		case WORLD_AN_BOTTOM:
			anb[nanb++] = c;
			break;
		case WORLD_DEPTH:
			/* Grouped by (depth ?? 4, role); the group keeps the
			 * depth of the entry that opened it. */
			for (j = 0; j < out->ndepth; j++)
				if (dkey[j] == it->e->depth &&
				    out->depth[j].role == it->e->role)
					break;
			if (j == out->ndepth) {
				dkey[j] = it->e->depth;
				out->depth[j].depth = it->e->depth_at;
				out->depth[j].role = it->e->role;
				dtexts[j] = xcalloc(n + 1, sizeof(**dtexts));
				out->ndepth++;
			}
			dtexts[j][dn[j]++] = c;
			break;
		case WORLD_EM_TOP:
			/* prepended one by one: descending order */
			out->em_top[out->nem_top++] = c;
			break;
		case WORLD_EM_BOTTOM:
			out->em_bottom[out->nem_bottom++] = c;
			break;
		case WORLD_OUTLET:
			if (!*it->e->outlet_name)
				break;
			for (j = 0; j < out->noutlets; j++)
				if (strcmp(out->outlets[j].name,
				    it->e->outlet_name) == 0)
					break;
			if (j == out->noutlets) {
				out->outlets[j].name = it->e->outlet_name;
				out->outlets[j].text = c;
				out->noutlets++;
			} else {
				out->outlets[j].text = arena_printf(a,
				    "%s\n%s", out->outlets[j].text, c);
			}
			break;
		default:
			break;
		}
	}
	/* Prepending in a descending walk gives ascending order. */
	out->before = join_rev(a, bef, nbef, true);
	out->after = join_rev(a, aft, naft, true);
	out->an_top = join_rev(a, ant, nant, true);
	out->an_bottom = join_rev(a, anb, nanb, true);
	for (j = 0; j < out->ndepth; j++) {
		out->depth[j].text = join_rev(a, dtexts[j], dn[j], true);
		free(dtexts[j]);
	}
	/* EM-bottom entries are appended in ascending order. */
	for (i = 0; i < out->nem_bottom / 2; i++) {
		const char *t = out->em_bottom[i];

		out->em_bottom[i] = out->em_bottom[out->nem_bottom - 1 - i];
		out->em_bottom[out->nem_bottom - 1 - i] = t;
	}
	out->before_formatted = wi_format(a, g->s->wi_format, out->before);
	out->after_formatted = wi_format(a, g->s->wi_format, out->after);
	free(dtexts);
	free(dn);
	free(dkey);
	free(v);
	free(tmp);
}

const char *
wi_author_note(struct arena *a, const struct wi_result *r, const char *note)
{
	char *s = arena_printf(a, "%s\n%s\n%s", r->an_top, note, r->an_bottom);
	size_t n = strlen(s);

	if (n > 0 && s[n - 1] == '\n')
		s[--n] = '\0';
	if (s[0] == '\n')
		s++;
	return s;
}
