/*
 * check: the unit tests' assertions.  Each failed CHECK prints where and
 * what, counts, and the test goes on; check_done() turns the count into
 * the exit status.
 */
#ifndef CHECK_H
#define CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond) do { \
	check_count++; \
	if (!(cond)) { \
		check_failures++; \
		fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
		    __LINE__, #cond); \
	} \
} while (0)

#define CHECK_STR(got, want) do { \
	const char *got_ = (got), *want_ = (want); \
	check_count++; \
	if (!got_ || !want_ || strcmp(got_, want_) != 0) { \
		check_failures++; \
		fprintf(stderr, "%s:%d: CHECK_STR failed: %s\n" \
		    "  got:  \"%s\"\n  want: \"%s\"\n", __FILE__, __LINE__, \
		    #got, got_ ? got_ : "(null)", want_ ? want_ : "(null)"); \
	} \
} while (0)

#define CHECK_INT(got, want) do { \
	long long got_ = (long long)(got), want_ = (long long)(want); \
	check_count++; \
	if (got_ != want_) { \
		check_failures++; \
		fprintf(stderr, "%s:%d: CHECK_INT failed: %s\n" \
		    "  got:  %lld\n  want: %lld\n", __FILE__, __LINE__, \
		    #got, got_, want_); \
	} \
} while (0)

static inline int
check_done(const char *name)
{
	fprintf(stderr, "%s: %d checks, %d failed\n", name, check_count,
	    check_failures);
	return check_failures ? 1 : 0;
}

#endif
