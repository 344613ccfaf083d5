#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "check.h"

int
main(void)
{
	struct arena a;
	char *s, *big, *p;
	int *arr;
	size_t i;

	arena_init(&a);
	s = arena_strdup(&a, "hello");
	CHECK_STR(s, "hello");
	CHECK(((uintptr_t)arena_alloc(&a, 3) & 15) == 0);
	CHECK(((uintptr_t)arena_alloc(&a, 1) & 15) == 0);
	/* A big object gets its own block; small ones keep coming from the
	 * current block afterwards. */
	big = arena_alloc(&a, 1 << 20);
	memset(big, 'x', 1 << 20);
	p = arena_alloc(&a, 8);
	CHECK(p != NULL);
	CHECK_STR(s, "hello");
	for (i = 0; i < 8; i++)
		CHECK(p[i] == 0);
	arr = arena_array(&a, 4, sizeof(int));
	for (i = 0; i < 4; i++)
		arr[i] = (int)i;
	arr = arena_grow(&a, arr, 4, 100, sizeof(int));
	CHECK_INT(arr[3], 3);
	CHECK_INT(arr[99], 0);
	CHECK_STR(arena_printf(&a, "%d-%s", 42, "x"), "42-x");
	/* Formats of text, %s, %.*s and %% only are joined without
	 * vsnprintf(): the same results, precision included. */
	CHECK_STR(arena_printf(&a, "%s\n\n%s", "ab", ""), "ab\n\n");
	CHECK_STR(arena_printf(&a, "<%.*s|%.*s|%.*s>%%", 2, "abc", 9, "de",
	    -1, "fgh"), "<ab|de|fgh>%");
	CHECK_STR(arena_printf(&a, "%s", ""), "");
	CHECK_STR(arena_printf(&a, "100%% %s%s", "sure", "!"), "100% sure!");
	/* Longer than the stack buffer, and far into a block and past it. */
	for (i = 0; i < 40; i++) {
		size_t n = 1000 + i * 997;
		char *t = arena_alloc(&a, n + 1);

		memset(t, 'a' + (int)(i % 26), n);
		p = arena_printf(&a, "[%s]%d", t, (int)i);
		CHECK(strlen(p) == n + 2 + (i < 10 ? 1 : 2) && p[0] == '[' &&
		    p[n] == t[0] && p[n + 1] == ']');
		p = arena_printf(&a, "[%s]", t);
		CHECK(strlen(p) == n + 2 && p[n] == t[0] && p[n + 1] == ']');
	}
	CHECK_STR(arena_strndup(&a, "abcdef", 3), "abc");
	CHECK(a.total >= (1u << 20));
	arena_free(&a);
	CHECK(a.head == NULL);
	return check_done("test_arena");
}
