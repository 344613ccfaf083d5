/*
 * wi: the activation loop (SillyTavern's checkWorldInfo): the entries in
 * priority order, the skip rules, the passes and the budget.  Inclusion
 * groups are in wi_group.c, timed effects in wi_timed.c, the output per
 * slot in wi_out.c, key matching and the scan buffer in wi_scan.c.
 */
#include "world/wi_int.h"

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

int64_t
wi_tokens(struct engine *g, const char *t, size_t len, bool start)
{
	if (g->in->count_tokens)
		return g->in->count_tokens(g->in->count_tokens_ctx, t, len,
		    start);
	return wi_estimate_tokens(NULL, t, len);
}

const char *
wi_entry_key(struct engine *g, const struct item *it)
{
	return arena_printf(&g->run->arena, "%s.%lld", it->book->world->name,
	    (long long)it->e->uid);
}

/* A decorator SillyTavern knows: one that starts with "@@activate" or
 * "@@dont_activate" (so "@@activate_x" is known, and does nothing). */
static bool
known_decorator(const char *d, size_t n)
{
	return (n >= 10 && memcmp(d, "@@activate", 10) == 0) ||
	    (n >= 15 && memcmp(d, "@@dont_activate", 15) == 0);
}

/*
 * Decorators, as SillyTavern 1.15 parses them: the leading lines that
 * start with "@@" (lines split at '\n' only, so a '\r' stays part of
 * one).  A known one is taken, its text whole: only exactly
 * "@@activate" and "@@dont_activate" act.  An unknown one is dropped
 * and makes a following "@@@..." line a decorator with one '@' less;
 * otherwise a "@@@..." line is dropped.  The content starts at the
 * first other line; when there is none it is left as it was.
 */
static void
parse_decorators(struct engine *g, struct item *it)
{
	const char *c = it->e->content, *line, *nl, *d;
	bool fallbacked = false;
	size_t n, dn;

	(void)g;
	it->content = c;
	if (c[0] != '@' || c[1] != '@')
		return;
	for (line = c;; line = nl + 1) {
		nl = strchr(line, '\n');
		n = nl ? (size_t)(nl - line) : strlen(line);
		if (n < 2 || line[0] != '@' || line[1] != '@') {
			it->content = line;
			return;
		}
		if (!(n >= 3 && line[2] == '@' && !fallbacked)) {
			d = line + (n >= 3 && line[2] == '@');
			dn = n - (size_t)(d - line);
			if (known_decorator(d, dn)) {
				if (dn == 10)
					it->dec_activate = true;
				else if (dn == 15 && d[2] == 'd')
					it->dec_dont = true;
				fallbacked = false;
			} else
				fallbacked = true;
		}
		if (!nl)
			return;         /* all decorators: content as is */
	}
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
void
wi_sort_desc(struct item **v, size_t n, struct item **tmp)
{
	size_t m = n / 2, i = 0, j = m, k = 0;

	if (n < 2)
		return;
	wi_sort_desc(v, m, tmp);
	wi_sort_desc(v + m, n - m, tmp);
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
		wi_sort_desc(lists[src], nl[src], tmp);
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
			wi_sort_desc(all + start, k - start, tmp);
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

void
wi_item_prepare(struct engine *g, struct item *it)
{
	if (!it->prepared) {
		wi_keys_prepare(g->sc, it->book, it->e, &it->keys);
		it->prepared = true;
	}
}

bool
wi_item_key(struct engine *g, struct item *it, struct wi_record *r,
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

	wi_item_prepare(g, it);
	for (i = 0; i < it->keys.nprimary; i++)
		if (wi_item_key(g, it, r, it->keys.primary, i, &m))
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
		hit = wi_item_key(g, it, r, it->keys.secondary, i, &m2);
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

/* The delayUntilRecursion levels, reading the books in order; the
 * first one is the level the passes start at. */
static void
read_levels(struct engine *g)
{
	const struct wi_input *in = g->in;
	size_t i, j, k;

	g->levels = xcalloc(g->n + 1, sizeof(*g->levels));
	for (i = 0; i < in->nbooks; i++) {
		const struct wi_book *b = &in->books[i];

		if (book_skipped(in, b))
			continue;
		for (k = 0; k < b->world->n; k++) {
			int64_t d = b->world->entries[k].delay_until_recursion;

			if (d <= 0)
				continue;
			for (j = 0; j < g->nlevels; j++)
				if (g->levels[j] == d)
					break;
			if (j == g->nlevels)
				g->levels[g->nlevels++] = d;
		}
	}
	qsort(g->levels, g->nlevels, sizeof(*g->levels), cmp_level);
	if (g->li < g->nlevels)
		g->level = g->levels[g->li++];
}

/* The engine before the first pass: items, records, levels, the scan
 * buffer, the timed effects and the budget. */
static void
start(struct engine *g, struct run *run, const struct wi_input *in,
    const struct wi_settings *s, struct wi_result *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	memset(g, 0, sizeof(*g));
	g->run = run;
	g->in = in;
	g->s = s;
	rng_seed(&g->rng, in->seed);
	for (i = 0; i < in->nmessages; i++)
		if (!in->messages[i].is_system)
			g->chatlen++;
	collect(g);
	g->rec = arena_array(&run->arena, g->n + 1, sizeof(*g->rec));
	for (i = 0; i < g->n; i++) {
		struct item *it = &g->items[i];
		struct wi_record *r = &g->rec[i];

		r->entry = it->e;
		r->world = it->book->world->name;
		r->source = it->book->source;
		r->roll = -1;
		r->winner = -1;
	}
	read_levels(g);
	g->sc = wi_scan_new(run, in, g->s, scan_reach(g));
	wi_timed_load(g);
	g->budget = (int64_t)llround((double)g->s->budget_percent *
	    (double)in->max_context / 100.0);
	if (g->budget == 0)
		g->budget = 1;
	if (g->s->budget_cap > 0 && g->budget > g->s->budget_cap)
		g->budget = g->s->budget_cap;
	out->budget = g->budget;
	out->chat_length = g->chatlen;
	g->batch = xcalloc(g->n + 1, sizeof(*g->batch));
}

/* A pass's batch: the items not yet decided that activate now, the
 * sticky ones first, then in priority order (stable). */
static size_t
candidates(struct engine *g, enum state state)
{
	struct item **tmp;
	size_t i, nb = 0, k = 0;

	for (i = 0; i < g->n; i++) {
		struct item *it = &g->items[i];
		struct wi_record *r = &g->rec[i];

		/* Priority order jumps about the entries: ask for the
		 * lines consider() reads a few items ahead, and then for
		 * the first key's text. */
		if (i + PREFETCH < g->n) {
			const char *e = (const char *)g->items[i + PREFETCH].e;

			__builtin_prefetch(e);
			__builtin_prefetch(e + 64);
			__builtin_prefetch(e + 128);
			__builtin_prefetch(e + 192);
		}
		if (i + PREFETCH / 2 < g->n)
			prefetch_key(&g->items[i + PREFETCH / 2]);
		if (it->activated || it->failed)
			continue;
		r->pass = g->pass;
		r->level = (int)g->level;
		if (consider(g, it, r, state, g->level)) {
			it->removed = false;
			g->batch[nb++] = it;
		}
	}
	tmp = xcalloc(nb + 1, sizeof(*tmp));
	for (i = 0; i < nb; i++)
		if (g->batch[i]->sticky)
			tmp[k++] = g->batch[i];
	for (i = 0; i < nb; i++)
		if (!g->batch[i]->sticky)
			tmp[k++] = g->batch[i];
	memcpy(g->batch, tmp, nb * sizeof(*g->batch));
	free(tmp);
	return nb;
}

static bool
starts_word(const char *c)
{
	return (c[0] >= 'a' && c[0] <= 'z') || (c[0] >= 'A' && c[0] <= 'Z') ||
	    (c[0] >= '0' && c[0] <= '9');
}

/* Probability, budget and activation for the pass's batch, in order;
 * the content of what activated (unless it prevents recursion) goes to
 * g->rectext.  Returns how many entries added to it. */
static size_t
activate(struct engine *g, size_t nb)
{
	const struct wi_input *in = g->in;
	size_t i, newc_at, newc_units = 0, nrec_text = 0;
	/* newc[0..safe_at) holds safe_tokens tokens and is never recounted
	 * (see count_tokens in wi.h). */
	size_t safe_at = 0;
	int64_t safe_tokens = 0;

	buf_reset(&g->newc);
	buf_reset(&g->rectext);
	for (i = 0; i < nb; i++) {
		struct item *it = g->batch[i];
		struct wi_record *r = &g->rec[it - g->items];
		const char *c;

		if (it->removed)
			continue;
		if (g->overflow && !it->e->ignore_budget) {
			r->reason = WI_BUDGET;
			r->tokens = -1;
			continue;
		}
		if (it->e->use_probability && it->e->probability != 100 &&
		    !it->sticky) {
			r->roll = rng_double(&g->rng) * 100;
			if (r->roll > it->e->probability) {
				r->reason = WI_PROBABILITY;
				it->failed = true;
				continue;
			}
		}
		c = in->substitute ? in->substitute(in->substitute_ctx,
		    it->content, it->book, it->e) : it->content;
		r->content = c;
		newc_at = g->newc.len;
		buf_puts(&g->newc, c);
		buf_putc(&g->newc, '\n');
		/* The estimate is a sum: count what was added. */
		newc_units += utf16_length(g->newc.data + newc_at,
		    g->newc.len - newc_at);
		/* After a newline, an ASCII letter or digit starts a new
		 * pre-token in both BPE encodings: the text before it
		 * counts the same whatever follows. */
		if (in->count_tokens && newc_at > safe_at && starts_word(c)) {
			safe_tokens += wi_tokens(g, g->newc.data + safe_at,
			    newc_at - safe_at, safe_at == 0);
			safe_at = newc_at;
		}
		if (!it->e->ignore_budget) {
			int64_t t = g->all_tokens + (in->count_tokens ?
			    safe_tokens + wi_tokens(g, g->newc.data + safe_at,
			    g->newc.len - safe_at, safe_at == 0) :
			    units_to_tokens(newc_units));

			if (t >= g->budget) {
				g->overflow = true;
				r->reason = WI_BUDGET;
				r->tokens = t;
				continue;
			}
		}
		it->activated = true;
		r->activated = true;
		r->order_index = g->nact++;
		if (!it->e->prevent_recursion) {
			if (nrec_text++)
				buf_putc(&g->rectext, '\n');
			buf_puts(&g->rectext, c);
		}
	}
	return nrec_text;
}

/* What the next pass is: recursion, a deeper min-activations scan, the
 * next delay level, or none. */
static enum state
next_state(struct engine *g, enum state state, size_t nrec_text)
{
	enum state next = S_NONE;

	if (g->s->recursive && !g->overflow && nrec_text > 0)
		next = S_RECURSION;
	if (g->s->recursive && !g->overflow && state == S_MIN_ACTIVATIONS &&
	    g->rectext.len + g->all.len > 0)
		next = S_RECURSION;
	if (next == S_NONE && !g->overflow && g->s->min_activations > 0 &&
	    (int64_t)g->nact < g->s->min_activations) {
		int64_t d = g->s->depth + g->skew;

		if (!((g->s->min_activations_depth_max > 0 &&
		    d > g->s->min_activations_depth_max) ||
		    d > (int64_t)g->chatlen)) {
			next = S_MIN_ACTIVATIONS;
			g->skew++;
		}
	}
	if (next == S_NONE && g->li < g->nlevels) {
		next = S_RECURSION;
		g->level = g->levels[g->li++];
	}
	return next;
}

/* The pass's recursion text joins the scan buffer and, in front,
 * allActivatedText = text + "\n" + allActivatedText, counted by what is
 * new: the estimate is a sum, and before an ASCII letter or digit after
 * a newline a BPE count splits (see activate()), so each pass costs the
 * new text, not all of it. */
static void
add_recursion(struct engine *g)
{
	char *t = arena_strndup(&g->run->arena, g->rectext.data,
	    g->rectext.len);
	bool split = g->all.len && starts_word(g->all.data);

	wi_scan_add_recursion(g->sc, t, g->pass);
	buf_putc(&g->rectext, '\n');
	g->all_units += utf16_length(g->rectext.data, g->rectext.len);
	if (!g->in->count_tokens) {
		g->all_tokens = units_to_tokens(g->all_units);
	} else if (split) {
		g->all_tokens = wi_tokens(g, g->rectext.data, g->rectext.len,
		    true) + g->all_cont;
		g->all_cont += wi_tokens(g, g->rectext.data, g->rectext.len,
		    false);
	}
	buf_put(&g->rectext, g->all.data ? g->all.data : "", g->all.len);
	buf_reset(&g->all);
	buf_put(&g->all, g->rectext.data, g->rectext.len);
	if (g->in->count_tokens && !split) {
		g->all_tokens = wi_tokens(g, g->all.data, g->all.len, true);
		g->all_cont = wi_tokens(g, g->all.data, g->all.len, false);
	}
}

bool
wi_run(struct run *run, const struct wi_input *in, struct wi_result *out)
{
	struct wi_settings defaults;
	struct engine g;
	struct buf t = BUF_INIT;
	enum state state = S_INITIAL, next;
	size_t i, nb, nrec_text;

	wi_settings_default(&defaults);
	start(&g, run, in, in->settings ? in->settings : &defaults, out);
	while (state != S_NONE) {
		if (g.s->max_recursion_steps > 0 &&
		    g.pass >= g.s->max_recursion_steps)
			break;
		g.pass++;
		wi_scan_set(g.sc, g.skew, state != S_MIN_ACTIVATIONS);
		nb = candidates(&g, state);
		wi_apply_groups(&g, g.batch, nb);
		nrec_text = activate(&g, nb);
		next = next_state(&g, state, nrec_text);
		if (next != S_NONE && nrec_text > 0)
			add_recursion(&g);
		state = next;
	}
	out->passes = g.pass;
	out->overflow = g.overflow;
	out->records = g.rec;
	out->nrecords = g.n;
	/* Records never decided in the last pass keep their reason. */
	wi_output(&g, out);
	wi_timed_save(&g, out);
	for (i = 0; i < out->nactivated; i++) {
		const char *c = out->activated[i]->content;

		if (i)
			buf_putc(&t, '\n');
		buf_puts(&t, c ? c : "");
	}
	out->tokens_used = t.len ? wi_tokens(&g, t.data, t.len, false) : 0;
	buf_free(&t);
	wi_scan_free(g.sc);
	free(g.batch);
	free(g.levels);
	buf_free(&g.all);
	buf_free(&g.newc);
	buf_free(&g.rectext);
	return true;
}
