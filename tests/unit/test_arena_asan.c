/*
 * test_arena_asan: the arena's AddressSanitizer poisoning.  Without
 * ASan there is nothing to check, and the test skips (exit 77).
 *
 * Run bare, it checks what is poisoned: the bytes just past each object,
 * the rounding after it, and the free tail of the block, while the object
 * itself stays usable.  Run with the argument "overflow", it writes one
 * byte past a 10-byte object -- inside the arena's block, where plain
 * malloc-level ASan would see nothing -- and must be stopped by ASan:
 * tests/meson.build registers that run with should_fail.
 */
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "check.h"

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_ASAN 1
#endif
#endif

#ifdef HAVE_ASAN
#include <sanitizer/asan_interface.h>

/* Keep the compiler from proving the write out of bounds itself. */
static volatile size_t past = 10;

int
main(int argc, char **argv)
{
	struct arena a;
	char *p, *q, *big;
	size_t i;

	arena_init(&a);
	p = arena_alloc(&a, 10);
	if (argc > 1 && strcmp(argv[1], "overflow") == 0) {
		p[past] = 'x';          /* ASan must stop here */
		arena_free(&a);
		fprintf(stderr, "test_arena_asan: overflow not caught\n");
		return 0;
	}
	q = arena_alloc(&a, 32);
	for (i = 0; i < 10; i++)
		CHECK(!__asan_address_is_poisoned(p + i));
	/* Past the end, through the rounding and the red zone, up to the
	 * next object. */
	for (i = 10; p + i < q; i++)
		CHECK(__asan_address_is_poisoned(p + i));
	CHECK(q - p >= 10 + 16);
	for (i = 0; i < 32; i++)
		CHECK(!__asan_address_is_poisoned(q + i));
	/* The block's free tail. */
	CHECK(__asan_address_is_poisoned(q + 32));
	CHECK(__asan_address_is_poisoned(q + 4096));
	/* A big object in a block of its own, poisoned after it too. */
	big = arena_alloc(&a, 100000);
	memset(big, 'x', 100000);
	CHECK(__asan_address_is_poisoned(big + 100000));
	/* A grown array copies from the old one, which stays readable. */
	p = arena_grow(&a, p, 10, 20, 1);
	CHECK(!__asan_address_is_poisoned(p + 19));
	CHECK(__asan_address_is_poisoned(p + 20));
	arena_free(&a);
	return check_done("test_arena_asan");
}
#else
int
main(void)
{
	puts("test_arena_asan: not built with AddressSanitizer; skipped");
	return 77;
}
#endif
