#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "check.h"
#include "data/tree.h"

int
main(void)
{
	struct arena a;
	struct node *t, *arr, *v, *c;
	char key[32];
	int i;

	arena_init(&a);
	t = tree_new(&a, NODE_TABLE, 0, span_make(0, 0));
	/* Enough keys to switch the table to its hash index. */
	for (i = 0; i < 5000; i++) {
		v = tree_new(&a, NODE_INT, 0, span_make((size_t)i, 1));
		v->u.i = i;
		snprintf(key, sizeof(key), "k%d", i);
		CHECK(tree_get(t, key) == NULL);
		tree_add(&a, t, key, strlen(key), 0, span_make(0, 0), v);
	}
	CHECK_INT(t->u.table.n, 5000);
	CHECK_INT(tree_get(t, "k4321")->u.i, 4321);
	CHECK_INT(tree_get(t, "k0")->u.i, 0);
	CHECK(tree_get(t, "k5000") == NULL);
	/* Order is document order. */
	CHECK_STR(t->u.table.items[17].key, "k17");
	/* Keys may hold NUL bytes. */
	v = tree_new_string(&a, "x\0y", 3, 0, span_make(0, 0));
	tree_add(&a, t, "a\0b", 3, 0, span_make(0, 0), v);
	CHECK(tree_getn(t, "a\0b", 3) == v);
	CHECK(tree_get(t, "a") == NULL);
	tree_set(&a, t, "k1", 2, 0, span_make(0, 0), v);
	CHECK(tree_get(t, "k1") == v);
	CHECK_INT(t->u.table.n, 5001);
	arr = tree_new(&a, NODE_ARRAY, 0, span_make(0, 0));
	for (i = 0; i < 100; i++)
		tree_push(&a, arr, v);
	CHECK_INT(arr->u.array.n, 100);
	c = tree_copy(&a, t);
	CHECK_INT(c->u.table.n, 5001);
	CHECK(tree_getn(c, "a\0b", 3) != v);
	CHECK_INT(tree_getn(c, "a\0b", 3)->u.str.len, 3);
	CHECK_STR(tree_kind_name(NODE_BOOL), "boolean");
	arena_free(&a);
	return check_done("test_tree");
}
