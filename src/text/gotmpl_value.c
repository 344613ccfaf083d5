/*
 * gotmpl_value: the values of the Go template engine -- what reflect
 * would see of the data and of the functions' results: constructors, the
 * sorted maps, JSON nodes in and out, truth, emptiness, Go's type and
 * kind names, deep equality and copies.
 */
#include "text/gotmpl_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/util.h"
#include "data/tree.h"

struct gv
gv_invalid(void)
{
	struct gv v = { GV_INVALID, false, NULL, { 0 } };
	return v;
}

struct gv
gv_nil(void)
{
	struct gv v = { GV_NIL, false, NULL, { 0 } };
	return v;
}

struct gv
gv_bool(bool b)
{
	struct gv v = { GV_BOOL, false, NULL, { 0 } };
	v.u.b = b;
	return v;
}

struct gv
gv_int(int64_t i)
{
	struct gv v = { GV_INT, false, NULL, { 0 } };
	v.u.i = i;
	return v;
}

struct gv
gv_int64(int64_t i)
{
	struct gv v = gv_int(i);
	v.type = "int64";
	return v;
}

struct gv
gv_float(double f)
{
	struct gv v = { GV_FLOAT, false, NULL, { 0 } };
	v.u.f = f;
	return v;
}

struct gv
gv_str(const char *s, size_t n)
{
	struct gv v = { GV_STRING, false, NULL, { 0 } };
	v.u.s.s = s ? s : "";
	v.u.s.n = n;
	return v;
}

struct gv
gv_cstr(const char *s)
{
	return gv_str(s, s ? strlen(s) : 0);
}

struct gv
gv_list_new(struct arena *a, size_t n)
{
	struct gv v = { GV_LIST, false, NULL, { 0 } };

	v.u.l = arena_alloc(a, sizeof(*v.u.l));
	v.u.l->v = arena_array(a, n ? n : 1, sizeof(struct gv));
	v.u.l->n = n;
	return v;
}

struct gv
gv_map_new(struct arena *a)
{
	struct gv v = { GV_MAP, false, NULL, { 0 } };

	v.u.m = arena_alloc(a, sizeof(*v.u.m));
	return v;
}

static int
keycmp(const char *a, size_t an, const char *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	return c ? c : an < bn ? -1 : an > bn;
}

/* Index of k, or where it goes (*found false). */
static size_t
find(const struct gv_map *m, const char *k, size_t kn, bool *found)
{
	size_t lo = 0, hi = m->n;

	*found = false;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = keycmp(m->items[mid].k, m->items[mid].kn, k, kn);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void
gv_map_set(struct arena *a, struct gv_map *m, const char *k, size_t kn,
    struct gv v)
{
	bool found;
	size_t i = find(m, k, kn, &found);

	v.iface = false;
	if (found) {
		m->items[i].v = v;
		return;
	}
	if (m->n == m->cap) {
		m->items = arena_grow(a, m->items, m->cap, m->cap ? m->cap * 2 :
		    8, sizeof(*m->items));
		m->cap = m->cap ? m->cap * 2 : 8;
	}
	memmove(m->items + i + 1, m->items + i, (m->n - i) *
	    sizeof(*m->items));
	m->items[i].k = k;
	m->items[i].kn = kn;
	m->items[i].v = v;
	m->n++;
}

struct gv *
gv_map_get(const struct gv_map *m, const char *k, size_t kn)
{
	bool found;
	size_t i = find(m, k, kn, &found);

	return found ? &m->items[i].v : NULL;
}

bool
gv_map_del(struct gv_map *m, const char *k, size_t kn)
{
	bool found;
	size_t i = find(m, k, kn, &found);

	if (!found)
		return false;
	memmove(m->items + i, m->items + i + 1, (m->n - i - 1) *
	    sizeof(*m->items));
	m->n--;
	return true;
}

struct gv
gv_from_node(struct arena *a, const struct node *n)
{
	struct gv v;
	size_t i;

	switch (n->kind) {
	case NODE_TABLE:
		v = gv_map_new(a);
		for (i = 0; i < n->u.table.n; i++) {
			const struct member *m = &n->u.table.items[i];

			gv_map_set(a, v.u.m, m->key, m->keylen,
			    gv_from_node(a, m->value));
		}
		return v;
	case NODE_ARRAY:
		v = gv_list_new(a, n->u.array.n);
		for (i = 0; i < n->u.array.n; i++)
			v.u.l->v[i] = gv_from_node(a, n->u.array.items[i]);
		return v;
	case NODE_STRING:
		return gv_str(n->u.str.s, n->u.str.len);
	case NODE_INT:
		return gv_int(n->u.i);
	case NODE_FLOAT:
		return gv_float(n->u.f);
	case NODE_BOOL:
		return gv_bool(n->u.b);
	case NODE_DATETIME: {
		const struct datetime *d = &n->u.dt;

		return gv_cstr(arena_printf(a, "%04d-%02d-%02dT%02d:%02d:%02d",
		    d->year, d->month, d->day, d->hour, d->minute,
		    d->second));
	}
	case NODE_NULL:
		break;
	}
	return gv_nil();
}

struct node *
gv_to_node(struct arena *a, const struct gv *v)
{
	struct node *n;
	size_t i;

	switch (v->kind) {
	case GV_BOOL:
		return tree_bool(a, v->u.b);
	case GV_INT:
		return tree_int(a, v->u.i);
	case GV_FLOAT:
		return tree_float(a, v->u.f);
	case GV_STRING:
		return tree_strn(a, v->u.s.s, v->u.s.n);
	case GV_LIST:
		n = tree_array(a);
		for (i = 0; i < v->u.l->n; i++)
			tree_push(a, n, gv_to_node(a, &v->u.l->v[i]));
		return n;
	case GV_MAP:
		n = tree_table(a);
		for (i = 0; i < v->u.m->n; i++)
			tree_add(a, n, v->u.m->items[i].k, v->u.m->items[i].kn,
			    0, span_make(0, 0),
			    gv_to_node(a, &v->u.m->items[i].v));
		return n;
	default:
		return tree_new(a, NODE_NULL, 0, span_make(0, 0));
	}
}

bool
gv_truth(const struct gv *v)
{
	switch (v->kind) {
	case GV_INVALID:
	case GV_NIL:
		return false;
	case GV_BOOL:
		return v->u.b;
	case GV_INT:
		return v->u.i != 0;
	case GV_FLOAT:
		return v->u.f != 0;
	case GV_STRING:
		return v->u.s.n != 0;
	case GV_LIST:
		return v->u.l->n != 0;
	case GV_MAP:
		return v->u.m->n != 0;
	case GV_VERSION:
		return true;
	}
	return false;
}

bool
gv_empty(const struct gv *v)
{
	return !gv_truth(v);
}

const char *
gv_type(const struct gv *v)
{
	if (v->type)
		return v->type;
	switch (v->kind) {
	case GV_INVALID:
	case GV_NIL:
		return "<nil>";
	case GV_BOOL:
		return "bool";
	case GV_INT:
		return "int";
	case GV_FLOAT:
		return "float64";
	case GV_STRING:
		return "string";
	case GV_LIST:
		return "[]interface {}";
	case GV_MAP:
		return "map[string]interface {}";
	case GV_VERSION:
		return "*semver.Version";
	}
	return "?";
}

const char *
gv_kindname(const struct gv *v)
{
	switch (v->kind) {
	case GV_INVALID:
	case GV_NIL:
		return "invalid";
	case GV_INT:
		return v->type && strcmp(v->type, "int") != 0 ? v->type : "int";
	case GV_LIST:
		return "slice";
	case GV_MAP:
		return "map";
	case GV_VERSION:
		return "ptr";
	default:
		return gv_type(v);
	}
}

bool
gv_deep_equal(const struct gv *a, const struct gv *b)
{
	size_t i;

	if (a->kind != b->kind || strcmp(gv_type(a), gv_type(b)) != 0)
		return false;
	switch (a->kind) {
	case GV_INVALID:
	case GV_NIL:
		return true;
	case GV_BOOL:
		return a->u.b == b->u.b;
	case GV_INT:
		return a->u.i == b->u.i;
	case GV_FLOAT:
		return a->u.f == b->u.f;
	case GV_STRING:
		return a->u.s.n == b->u.s.n && memcmp(a->u.s.s, b->u.s.s,
		    a->u.s.n) == 0;
	case GV_LIST:
		if (a->u.l->n != b->u.l->n)
			return false;
		for (i = 0; i < a->u.l->n; i++)
			if (!gv_deep_equal(&a->u.l->v[i], &b->u.l->v[i]))
				return false;
		return true;
	case GV_MAP:
		if (a->u.m->n != b->u.m->n)
			return false;
		for (i = 0; i < a->u.m->n; i++)
			if (keycmp(a->u.m->items[i].k, a->u.m->items[i].kn,
			    b->u.m->items[i].k, b->u.m->items[i].kn) != 0 ||
			    !gv_deep_equal(&a->u.m->items[i].v,
			    &b->u.m->items[i].v))
				return false;
		return true;
	case GV_VERSION:
		return a->u.ver == b->u.ver;
	}
	return false;
}

struct gv
gv_deep_copy(struct arena *a, const struct gv *v)
{
	struct gv r = *v;
	size_t i;

	if (v->kind == GV_LIST) {
		r = gv_list_new(a, v->u.l->n);
		r.type = v->type;
		for (i = 0; i < v->u.l->n; i++)
			r.u.l->v[i] = gv_deep_copy(a, &v->u.l->v[i]);
	} else if (v->kind == GV_MAP) {
		r = gv_map_new(a);
		r.type = v->type;
		for (i = 0; i < v->u.m->n; i++)
			gv_map_set(a, r.u.m, v->u.m->items[i].k,
			    v->u.m->items[i].kn, gv_deep_copy(a,
			    &v->u.m->items[i].v));
	}
	return r;
}

struct gv
gv_unwrap(struct gv v)
{
	if (v.kind == GV_NIL)
		return gv_invalid();
	v.iface = false;
	return v;
}
