#include "prompt/entry.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "data/tree.h"

void
stack_init(struct stack *st, struct arena *a)
{
	memset(st, 0, sizeof(*st));
	st->arena = a;
	st->index = tree_table(a);
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
	e->status = ENTRY_ACTIVE;
	e->message = -1;
	return e;
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
	struct node *slot;
	size_t klen = strlen(e->key);

	push(st->arena, &st->all, &st->nall, &st->capall, e);
	if (!e->content || blank(e->content, e->len)) {
		if (e->status == ENTRY_ACTIVE)
			e->status = ENTRY_EMPTY;
		return;
	}
	e->status = e->enabled ? ENTRY_ACTIVE : ENTRY_DISABLED;
	slot = tree_getn(st->index, e->key, klen);
	if (slot) {
		struct entry *old = st->live[slot->u.i];

		old->status = ENTRY_REPLACED;
		old->replaced_by = e;
		e->pos = (size_t)slot->u.i;
		st->live[e->pos] = e;
		return;
	}
	e->pos = st->nlive;
	push(st->arena, &st->live, &st->nlive, &st->caplive, e);
	tree_add(st->arena, st->index, e->key, klen, 0, span_make(0, 0),
	    tree_int(st->arena, (int64_t)e->pos));
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

const char *
entry_status_name(enum entry_status s)
{
	switch (s) {
	case ENTRY_ACTIVE:
		return "active";
	case ENTRY_EMPTY:
		return "empty";
	case ENTRY_DISABLED:
		return "disabled";
	case ENTRY_REPLACED:
		return "replaced";
	case ENTRY_MISSING:
		break;
	}
	return "missing";
}
