/* PromptStack semantics: replace in place, empty skipped, order. */
#include <string.h>

#include "base/arena.h"
#include "check.h"
#include "prompt/entry.h"

static struct entry *
mk(struct arena *a, const char *key, const char *content, int prio)
{
	struct entry *e = entry_new(a, key, "inject");

	e->content = content;
	e->len = content ? strlen(content) : 0;
	e->priority = prio;
	return e;
}

static const char *
order(struct stack *st, struct arena *a)
{
	struct entry **v;
	size_t n = stack_select(st, PLACE_SYSTEM, ROLE_SYSTEM, &v), i;
	char *out = arena_alloc(a, 256);

	for (i = 0; i < n; i++) {
		if (i)
			strcat(out, ",");
		strcat(out, v[i]->key);
	}
	return out;
}

int
main(void)
{
	struct arena a;
	struct stack st;
	struct entry *first, *again, *blank, *off, *dev;
	const char *s;
	size_t n;

	arena_init(&a);
	stack_init(&st, &a);
	stack_add(&st, first = mk(&a, "a", "one", 50));
	stack_add(&st, mk(&a, "b", "two", 50));
	stack_add(&st, mk(&a, "c", "three", 10));
	CHECK_STR(order(&st, &a), "c,a,b");
	/* Same key: replaced in place, so it keeps its place among ties. */
	stack_add(&st, again = mk(&a, "a", "one again", 50));
	CHECK_STR(order(&st, &a), "c,a,b");
	CHECK(first->status == ENTRY_REPLACED);
	CHECK(first->replaced_by == again);
	CHECK(again->status == ENTRY_ACTIVE);
	/* Whitespace-only content is not added and removes nothing. */
	stack_add(&st, blank = mk(&a, "b", " \n\t ", 1));
	CHECK(blank->status == ENTRY_EMPTY);
	CHECK_STR(order(&st, &a), "c,a,b");
	stack_add(&st, mk(&a, "z", NULL, 1));
	CHECK_STR(order(&st, &a), "c,a,b");
	/* Disabled: kept out, and it does replace (it takes the new fields). */
	off = mk(&a, "c", "three off", 10);
	off->enabled = false;
	stack_add(&st, off);
	CHECK(off->status == ENTRY_DISABLED);
	CHECK_STR(order(&st, &a), "a,b");
	/* A new priority moves the replaced entry. */
	stack_add(&st, mk(&a, "b", "two first", -5));
	CHECK_STR(order(&st, &a), "b,a");
	/* Roles select separately. */
	dev = mk(&a, "d", "dev", 0);
	dev->role = ROLE_DEVELOPER;
	stack_add(&st, dev);
	CHECK_STR(order(&st, &a), "b,a");
	{
		struct entry **v;

		CHECK_INT(stack_select(&st, PLACE_SYSTEM, ROLE_DEVELOPER, &v),
		    1);
		CHECK(v[0] == dev);
	}
	/* Every entry offered is remembered, in order. */
	CHECK_INT(st.nall, 9);
	CHECK_STR(entry_status_name(ENTRY_MISSING), "missing");
	/* Trimming: leading blank lines go, a first line's indent stays. */
	s = "\n  \n  indented\nx  \n\n";
	n = entry_trim(&s, strlen(s));
	CHECK_INT(n, 12);
	CHECK(strncmp(s, "  indented\nx", n) == 0);
	s = " \n\t";
	CHECK_INT(entry_trim(&s, strlen(s)), 0);
	arena_free(&a);
	return check_done("test_entry");
}
