#include "data/tree.h"

#include <string.h>

#include "base/arena.h"
#include "base/hash.h"
#include "base/util.h"

/* Tables above this many keys get a hash index, so that a document with
 * 100k keys in one table is read in linear time.  The hash is keyed per
 * process (hash.h), so keys crafted to collide cannot make it quadratic. */
#define INDEX_AT 16

struct tree_index {
	uint32_t *slots;        /* member index + 1; 0 = empty */
	size_t cap;             /* power of two */
};

static void
index_put(struct tree_index *ix, const struct member *items, size_t i)
{
	size_t mask = ix->cap - 1;
	size_t h = (size_t)hash_keyed(items[i].key, items[i].keylen) & mask;

	while (ix->slots[h])
		h = (h + 1) & mask;
	ix->slots[h] = (uint32_t)(i + 1);
}

static void
index_build(struct arena *a, struct node *t, size_t cap)
{
	struct tree_index *ix = arena_alloc(a, sizeof(*ix));
	size_t i;

	ix->cap = cap;
	ix->slots = arena_array(a, cap, sizeof(*ix->slots));
	for (i = 0; i < t->u.table.n; i++)
		index_put(ix, t->u.table.items, i);
	t->u.table.index = ix;
}

struct node *
tree_new(struct arena *a, enum node_kind kind, uint32_t src, struct span span)
{
	struct node *n = arena_alloc(a, sizeof(*n));

	n->kind = kind;
	n->src = src;
	n->span = span;
	return n;
}

struct node *
tree_new_string(struct arena *a, const char *s, size_t len, uint32_t src,
    struct span span)
{
	struct node *n = tree_new(a, NODE_STRING, src, span);

	n->u.str.s = arena_strndup(a, s, len);
	n->u.str.len = len;
	return n;
}

struct member *
tree_member(const struct node *t, const char *key, size_t len)
{
	const struct tree_index *ix;
	size_t i, h, mask;

	if (!t || t->kind != NODE_TABLE)
		return NULL;
	ix = t->u.table.index;
	if (ix) {
		mask = ix->cap - 1;
		for (h = (size_t)hash_keyed(key, len) & mask; ix->slots[h];
		    h = (h + 1) & mask) {
			struct member *m = &t->u.table.items[ix->slots[h] - 1];

			if (m->keylen == len && memcmp(m->key, key, len) == 0)
				return m;
		}
		return NULL;
	}
	for (i = 0; i < t->u.table.n; i++) {
		struct member *m = &t->u.table.items[i];

		if (m->keylen == len && memcmp(m->key, key, len) == 0)
			return m;
	}
	return NULL;
}

struct node *
tree_getn(const struct node *t, const char *key, size_t len)
{
	struct member *m = tree_member(t, key, len);

	return m ? m->value : NULL;
}

struct node *
tree_get(const struct node *t, const char *key)
{
	return tree_getn(t, key, strlen(key));
}

struct member *
tree_add(struct arena *a, struct node *t, const char *key, size_t keylen,
    uint32_t keysrc, struct span keyspan, struct node *value)
{
	struct member *m;
	size_t n = t->u.table.n;

	if (n == t->u.table.cap) {
		size_t cap = n ? n * 2 : 4;

		t->u.table.items = arena_grow(a, t->u.table.items, n, cap,
		    sizeof(*t->u.table.items));
		t->u.table.cap = cap;
	}
	m = &t->u.table.items[n];
	m->key = arena_strndup(a, key, keylen);
	m->keylen = keylen;
	m->keysrc = keysrc;
	m->keyspan = keyspan;
	m->value = value;
	t->u.table.n++;
	if (t->u.table.index) {
		if (t->u.table.n * 2 > t->u.table.index->cap)
			index_build(a, t, t->u.table.index->cap * 2);
		else
			index_put(t->u.table.index, t->u.table.items, n);
	} else if (t->u.table.n > INDEX_AT) {
		/* Also when a caller dropped the index of a big table. */
		size_t cap = 64;

		while (cap < t->u.table.n * 2)
			cap *= 2;
		index_build(a, t, cap);
	}
	return m;
}

void
tree_set(struct arena *a, struct node *t, const char *key, size_t keylen,
    uint32_t keysrc, struct span keyspan, struct node *value)
{
	struct member *m = tree_member(t, key, keylen);

	if (m)
		m->value = value;
	else
		tree_add(a, t, key, keylen, keysrc, keyspan, value);
}

void
tree_replace(struct node *arr, size_t i, struct node *value)
{
	if (i < arr->u.array.n)
		arr->u.array.items[i] = value;
}

bool
tree_remove(struct arena *a, struct node *t, const char *key, size_t keylen)
{
	struct member *m = tree_member(t, key, keylen);
	size_t i;

	if (!m)
		return false;
	i = (size_t)(m - t->u.table.items);
	memmove(m, m + 1, (t->u.table.n - i - 1) * sizeof(*m));
	t->u.table.n--;
	/* Members after i moved down: the index holds stale positions. */
	if (t->u.table.index)
		index_build(a, t, t->u.table.index->cap);
	return true;
}

void
tree_push(struct arena *a, struct node *arr, struct node *value)
{
	size_t n = arr->u.array.n;

	if (n == arr->u.array.cap) {
		size_t cap = n ? n * 2 : 4;

		arr->u.array.items = arena_grow(a, arr->u.array.items, n, cap,
		    sizeof(*arr->u.array.items));
		arr->u.array.cap = cap;
	}
	arr->u.array.items[arr->u.array.n++] = value;
}

const char *
tree_kind_name(enum node_kind kind)
{
	switch (kind) {
	case NODE_TABLE:
		return "table";
	case NODE_ARRAY:
		return "array";
	case NODE_STRING:
		return "string";
	case NODE_INT:
		return "integer";
	case NODE_FLOAT:
		return "float";
	case NODE_BOOL:
		return "boolean";
	case NODE_DATETIME:
		return "datetime";
	case NODE_NULL:
		break;
	}
	return "null";
}

struct node *
tree_table(struct arena *a)
{
	return tree_new(a, NODE_TABLE, 0, span_make(0, 0));
}

struct node *
tree_array(struct arena *a)
{
	return tree_new(a, NODE_ARRAY, 0, span_make(0, 0));
}

struct node *
tree_strn(struct arena *a, const char *s, size_t len)
{
	return tree_new_string(a, s, len, 0, span_make(0, 0));
}

struct node *
tree_strref(struct arena *a, const char *s, size_t len)
{
	struct node *n = tree_new(a, NODE_STRING, 0, span_make(0, 0));

	n->u.str.s = (char *)s;
	n->u.str.len = len;
	return n;
}

struct node *
tree_str(struct arena *a, const char *s)
{
	return tree_strn(a, s, strlen(s));
}

struct node *
tree_int(struct arena *a, int64_t i)
{
	struct node *n = tree_new(a, NODE_INT, 0, span_make(0, 0));

	n->u.i = i;
	return n;
}

struct node *
tree_float(struct arena *a, double f)
{
	struct node *n = tree_new(a, NODE_FLOAT, 0, span_make(0, 0));

	n->u.f = f;
	return n;
}

struct node *
tree_bool(struct arena *a, bool b)
{
	struct node *n = tree_new(a, NODE_BOOL, 0, span_make(0, 0));

	n->u.b = b;
	return n;
}

struct node *
tree_put(struct arena *a, struct node *t, const char *key, struct node *v)
{
	tree_add(a, t, key, strlen(key), 0, span_make(0, 0), v);
	return v;
}

const char *
tree_kind_json(enum node_kind kind)
{
	return kind == NODE_TABLE ? "an object" : tree_kind_article(kind);
}

const char *
tree_kind_article(enum node_kind kind)
{
	switch (kind) {
	case NODE_TABLE:
		return "a table";
	case NODE_ARRAY:
		return "an array";
	case NODE_STRING:
		return "a string";
	case NODE_INT:
		return "an integer";
	case NODE_FLOAT:
		return "a float";
	case NODE_BOOL:
		return "a boolean";
	case NODE_DATETIME:
		return "a datetime";
	case NODE_NULL:
		break;
	}
	return "null";
}

struct node *
tree_copy(struct arena *a, const struct node *n)
{
	struct node *c;
	size_t i;

	if (!n)
		return NULL;
	c = tree_new(a, n->kind, n->src, n->span);
	c->flags = n->flags;
	switch (n->kind) {
	case NODE_TABLE:
		for (i = 0; i < n->u.table.n; i++) {
			const struct member *m = &n->u.table.items[i];

			tree_add(a, c, m->key, m->keylen, m->keysrc,
			    m->keyspan, tree_copy(a, m->value));
		}
		break;
	case NODE_ARRAY:
		for (i = 0; i < n->u.array.n; i++)
			tree_push(a, c, tree_copy(a, n->u.array.items[i]));
		break;
	case NODE_STRING:
		c->u.str.s = arena_strndup(a, n->u.str.s, n->u.str.len);
		c->u.str.len = n->u.str.len;
		break;
	default:
		c->u = n->u;
		break;
	}
	return c;
}

bool
tree_has_string(const struct node *arr, const char *s)
{
	size_t i;

	if (!arr || arr->kind != NODE_ARRAY)
		return false;
	for (i = 0; i < arr->u.array.n; i++)
		if (arr->u.array.items[i]->kind == NODE_STRING &&
		    strcmp(arr->u.array.items[i]->u.str.s, s) == 0)
			return true;
	return false;
}
