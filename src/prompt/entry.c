#include "prompt/entry.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"

void
stack_init(struct stack *st, struct arena *a)
{
	memset(st, 0, sizeof(*st));
	st->arena = a;
	map_init(&st->index, a);
}

struct entry *
entry_new(struct arena *a, const char *key, const char *layer)
{
	struct entry *e = arena_alloc(a, sizeof(*e));

	e->key = key;
	e->title = key;
	e->layer = layer;
	e->priority = 100;
	e->role = ROLE_SYSTEM;
	e->placement = PLACE_SYSTEM;
	e->scope = SCOPE_TURN;
	e->enabled = true;
	e->given = ENTRY_GIVEN_ALL;
	e->status = ENTRY_ACTIVE;
	e->message = -1;
	return e;
}

void
entry_set_raw(struct arena *a, struct entry *e, const char *s, size_t len,
    uint32_t src, struct span span, bool exact)
{
	struct seg *g = arena_alloc(a, sizeof(*g));

	g->at = 0;
	g->src = src;
	g->span = span;
	g->exact = exact;
	e->raw.s = s;
	e->raw.len = len;
	e->raw.segs = g;
	e->raw.nsegs = 1;
	e->content = s;
	e->len = len;
	e->has_src = true;
	e->src = src;
	e->span = span;
}

bool
etext_locate(const struct etext *t, size_t at, size_t len, uint32_t *src,
    struct span *span)
{
	size_t lo = 0, hi = t->nsegs, end;
	const struct seg *g;

	if (!t->nsegs || at < t->segs[0].at)
		return false;
	/* The last run that starts at or before at. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->segs[mid].at <= at)
			lo = mid;
		else
			hi = mid;
	}
	g = &t->segs[lo];
	*src = g->src;
	if (!g->exact) {
		*span = g->span;
		return true;
	}
	end = lo + 1 < t->nsegs ? t->segs[lo + 1].at : t->len;
	if (at + len > end)
		len = end - at;
	*span = span_make(g->span.off + (at - g->at), len);
	return true;
}

static bool
blank(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' &&
		    s[i] != '\r' && s[i] != '\f' && s[i] != '\v')
			return false;
	return true;
}

size_t
entry_trim(const char **sp, size_t len)
{
	const char *s = *sp;
	size_t i, start = 0;

	/* Drop whole leading blank lines, keep a first line's indent. */
	for (i = 0; i < len; i++) {
		if (s[i] == '\n')
			start = i + 1;
		else if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			break;
	}
	if (i == len)
		start = len;
	while (len > start && (s[len - 1] == ' ' || s[len - 1] == '\t' ||
	    s[len - 1] == '\n' || s[len - 1] == '\r'))
		len--;
	*sp = s + start;
	return len - start;
}

static void
push(struct arena *a, struct entry ***arr, size_t *n, size_t *cap,
    struct entry *e)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;

		*arr = arena_grow(a, *arr, *n, c, sizeof(**arr));
		*cap = c;
	}
	(*arr)[(*n)++] = e;
}

void
stack_add(struct stack *st, struct entry *e)
{
	struct map_item *slot;
	bool added;

	push(st->arena, &st->all, &st->nall, &st->capall, e);
	if (!e->content || blank(e->content, e->len)) {
		if (e->status == ENTRY_ACTIVE)
			e->status = ENTRY_EMPTY;
		return;
	}
	e->status = e->enabled ? ENTRY_ACTIVE : ENTRY_DISABLED;
	slot = map_intern(&st->index, e->key, strlen(e->key), &added);
	if (!added) {
		/* The value is the position + 1, so that it is never NULL. */
		struct entry *old;

		e->pos = (size_t)((uintptr_t)slot->value - 1);
		old = st->live[e->pos];
		if (!(e->given & ENTRY_GIVEN_PRIORITY))
			e->priority = old->priority;
		if (!(e->given & ENTRY_GIVEN_PLACE)) {
			e->role = old->role;
			e->placement = old->placement;
			e->depth = old->depth;
		}
		if (!(e->given & ENTRY_GIVEN_SCOPE))
			e->scope = old->scope;
		old->status = ENTRY_REPLACED;
		old->replaced_by = e;
		st->live[e->pos] = e;
		return;
	}
	e->pos = st->nlive;
	slot->value = (void *)(uintptr_t)(e->pos + 1);
	push(st->arena, &st->live, &st->nlive, &st->caplive, e);
}

struct entry *
stack_remove(struct stack *st, const char *key)
{
	void *pos = map_get(&st->index, key, strlen(key));
	struct entry *e;

	if (!pos)
		return NULL;
	e = st->live[(size_t)((uintptr_t)pos - 1)];
	if (e->status != ENTRY_ACTIVE && e->status != ENTRY_DISABLED)
		return NULL;
	e->status = ENTRY_REMOVED;
	return e;
}

void
stack_keep_scopes(struct stack *st, unsigned scopes)
{
	size_t i;

	for (i = 0; i < st->nlive; i++) {
		struct entry *e = st->live[i];

		/* The history's system text is the conversation's, not an
		 * entry of a scope. */
		if (e->status == ENTRY_ACTIVE && !e->base &&
		    !(scopes & (1u << e->scope)))
			e->status = ENTRY_OUT_OF_SCOPE;
	}
}

static int
by_priority(const void *pa, const void *pb)
{
	const struct entry *a = *(struct entry *const *)pa;
	const struct entry *b = *(struct entry *const *)pb;

	if (a->priority != b->priority)
		return a->priority < b->priority ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

size_t
stack_select(const struct stack *st, enum placement place, enum role role,
    struct entry ***out)
{
	struct entry **v = arena_array(st->arena, st->nlive + 1, sizeof(*v));
	size_t i, n = 0;

	for (i = 0; i < st->nlive; i++) {
		struct entry *e = st->live[i];

		if (e->status == ENTRY_ACTIVE && e->placement == place &&
		    e->role == role)
			v[n++] = e;
	}
	/* (priority, position) is a total order: qsort is deterministic. */
	qsort(v, n, sizeof(*v), by_priority);
	*out = v;
	return n;
}

static int
by_depth(const void *pa, const void *pb)
{
	const struct entry *a = *(struct entry *const *)pa;
	const struct entry *b = *(struct entry *const *)pb;

	if (a->depth != b->depth)
		return a->depth > b->depth ? -1 : 1;
	return by_priority(pa, pb);
}

size_t
stack_select_depth(const struct stack *st, struct entry ***out)
{
	struct entry **v = arena_array(st->arena, st->nlive + 1, sizeof(*v));
	size_t i, n = 0;

	for (i = 0; i < st->nlive; i++) {
		struct entry *e = st->live[i];

		if (e->status == ENTRY_ACTIVE && e->placement == PLACE_DEPTH)
			v[n++] = e;
	}
	qsort(v, n, sizeof(*v), by_depth);
	*out = v;
	return n;
}

/* The one spelling of each status, in the debug views, -f json and
 * the HTML page. */
static const char *const status_names[ENTRY__STATUS_COUNT] = {
	[ENTRY_ACTIVE] = "active",
	[ENTRY_EMPTY] = "empty",
	[ENTRY_DISABLED] = "disabled",
	[ENTRY_REPLACED] = "replaced",
	[ENTRY_MISSING] = "missing",
	[ENTRY_REMOVED] = "removed",
	[ENTRY_OUT_OF_SCOPE] = "out of scope",
	[ENTRY_BUDGET] = "budget",
	[ENTRY_TRIGGER] = "trigger",
	[ENTRY_INTERVAL] = "interval",
	[ENTRY_DUPLICATE] = "duplicate",
	[ENTRY_NOT_PLACED] = "not placed",
	[ENTRY_MOVED] = "moved",
	[ENTRY_NO_DEPTH] = "no depth",
	[ENTRY_DEPTH] = "depth",
	[ENTRY_NO_USER_MESSAGE] = "no user message",
	[ENTRY_CONTINUED] = "continued",
};

const char *
entry_status_name(enum entry_status s)
{
	return (unsigned)s < ENTRY__STATUS_COUNT && status_names[s] ?
	    status_names[s] : "missing";
}

enum entry_place_error
entry_place(int position, bool has_role, enum role *role, bool has_depth,
    enum placement *place)
{
	enum role want;

	*place = PLACE_SYSTEM;
	if (!has_role)
		*role = ROLE_SYSTEM;
	if (position < 0 && has_depth)
		position = 3;                   /* depth */
	switch (position) {
	case 3:                                 /* depth */
		*place = PLACE_DEPTH;
		return *role == ROLE_DEVELOPER ? ENTRY_PLACE_INCHAT_ROLE :
		    ENTRY_PLACE_OK;
	case 2:                                 /* user-context */
		if (has_depth)
			return ENTRY_PLACE_DEPTH;
		if (has_role && *role != ROLE_USER)
			return ENTRY_PLACE_ROLE;
		*place = PLACE_USER;
		*role = ROLE_USER;
		return ENTRY_PLACE_OK;
	case 0:                                 /* system */
	case 1:                                 /* developer */
		if (has_depth)
			return ENTRY_PLACE_DEPTH;
		want = position ? ROLE_DEVELOPER : ROLE_SYSTEM;
		if (has_role && *role != want)
			return ENTRY_PLACE_ROLE;
		*role = want;
		return ENTRY_PLACE_OK;
	default:
		break;
	}
	return *role == ROLE_USER || *role == ROLE_ASSISTANT ?
	    ENTRY_PLACE_NEEDS_DEPTH : ENTRY_PLACE_OK;
}
