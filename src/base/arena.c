#include "base/arena.h"

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define ALIGN 16
#define BLOCK 65536

/*
 * Under AddressSanitizer, a block's free tail is poisoned, and so is a
 * red zone after each allocation (its rounding up to ALIGN plus REDZONE
 * bytes), so a write past the end of one arena object is caught as a
 * heap overflow instead of silently landing in the next object.  GCC
 * says __SANITIZE_ADDRESS__; clang says __has_feature(address_sanitizer).
 */
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_ASAN 1
#endif
#endif

#ifdef ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define REDZONE 16
#define poison(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define unpoison(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define REDZONE 0
#define poison(p, n) ((void)(p), (void)(n))
#define unpoison(p, n) ((void)(p), (void)(n))
#endif

struct arena_block {
	struct arena_block *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

void
arena_init(struct arena *a)
{
	a->head = NULL;
	a->total = 0;
	a->adopted = NULL;
	a->nadopted = a->capadopted = 0;
}

void
arena_free(struct arena *a)
{
	struct arena_block *b, *next;

	for (b = a->head; b; b = next) {
		next = b->next;
		unpoison(b->data, b->size);
		free(b);
	}
	while (a->nadopted)
		free(a->adopted[--a->nadopted]);
	free(a->adopted);
	arena_init(a);
}

void
arena_clear(struct arena *a)
{
	struct arena_block *b, *next;

	if (!a->head)
		return;
	for (b = a->head->next; b; b = next) {
		next = b->next;
		a->total -= sizeof(*b) + b->size;
		free(b);
	}
	a->head->next = NULL;
	a->head->used = 0;
	while (a->nadopted)
		free(a->adopted[--a->nadopted]);
}

void *
arena_adopt(struct arena *a, void *p)
{
	if (a->nadopted == a->capadopted) {
		a->capadopted = a->capadopted ? a->capadopted * 2 : 8;
		a->adopted = xreallocarray(a->adopted, a->capadopted,
		    sizeof(*a->adopted));
	}
	a->adopted[a->nadopted++] = p;
	return p;
}

/* n bytes, aligned, not zeroed: for callers that write them all. */
static void *
alloc_raw(struct arena *a, size_t n)
{
	struct arena_block *b = a->head;
	size_t need = (n + REDZONE + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	void *p;

	if (need < n)
		die("out of memory");
	if (!b || b->size - b->used < need) {
		size_t size = need > BLOCK / 4 ? need : BLOCK;

		if (size > SIZE_MAX - sizeof(*b))
			die("out of memory");
		b = xmalloc(sizeof(*b) + size);
		b->size = size;
		b->used = 0;
		poison(b->data, size);
		a->total += sizeof(*b) + size;
		if (size == need && a->head) {
			/* A big object gets a block of its own, kept
			 * behind the current one so its free space
			 * stays usable. */
			b->next = a->head->next;
			a->head->next = b;
		} else {
			b->next = a->head;
			a->head = b;
		}
	}
	p = b->data + b->used;
	b->used += need;
	unpoison(p, n);
	return p;
}

void *
arena_alloc(struct arena *a, size_t n)
{
	void *p = alloc_raw(a, n);

	memset(p, 0, n);
	return p;
}

void *
arena_array(struct arena *a, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		die("out of memory");
	return arena_alloc(a, nmemb * size);
}

void *
arena_grow(struct arena *a, void *old, size_t oldn, size_t newn, size_t size)
{
	void *p = arena_array(a, newn, size);

	if (old && oldn)
		memcpy(p, old, (oldn < newn ? oldn : newn) * size);
	return p;
}

char *
arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p;

	if (n == SIZE_MAX)
		die("out of memory");
	p = alloc_raw(a, n + 1);
	if (n)
		memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

/*
 * A format of only literal text, %s, %.*s and %% (most of the pipeline's:
 * "%s\n\n%s", "%.*s%s%s") is joined here without vsnprintf(), whose
 * setup per call costs more than the copying.  False, having consumed
 * nothing of the caller's, for any other conversion, a NULL string or
 * more than PIECES pieces: then vsnprintf() does it all.
 */
#define PIECES 16

static bool
join(struct arena *a, const char *fmt, va_list ap, char **out)
{
	struct {
		const char *s;
		size_t n;
	} v[PIECES];
	size_t nv = 0, total = 0, i;
	const char *f = fmt, *pct, *s;
	char *p;
	int prec;

	while (*f) {
		if (nv == PIECES)
			return false;
		if (*f != '%') {
			pct = strchr(f, '%');
			v[nv].s = f;
			v[nv].n = pct ? (size_t)(pct - f) : strlen(f);
			f += v[nv].n;
		} else if (f[1] == '%') {
			v[nv].s = f;
			v[nv].n = 1;
			f += 2;
		} else if (f[1] == 's') {
			if (!(s = va_arg(ap, const char *)))
				return false;
			v[nv].s = s;
			v[nv].n = strlen(s);
			f += 2;
		} else if (f[1] == '.' && f[2] == '*' && f[3] == 's') {
			prec = va_arg(ap, int);
			if (!(s = va_arg(ap, const char *)))
				return false;
			v[nv].s = s;
			v[nv].n = prec < 0 ? strlen(s) : strnlen(s, (size_t)prec);
			f += 4;
		} else {
			return false;
		}
		total += v[nv++].n;
	}
	if (total >= INT_MAX)   /* vsnprintf() fails on it: let it */
		return false;
	*out = p = alloc_raw(a, total + 1);
	for (i = 0; i < nv; i++) {
		memcpy(p, v[i].s, v[i].n);
		p += v[i].n;
	}
	*p = '\0';
	return true;
}

char *
arena_printf(struct arena *a, const char *fmt, ...)
{
	struct arena_block *b = a->head;
	size_t room = b ? b->size - b->used : 0, cap;
	va_list ap;
	int n;
	bool joined;
	char *p, small[256];

	/* GCC 12 with -fsanitize=undefined warns of a "null format string"
	 * on the sanitizer's own path unless told fmt is not NULL. */
	if (!fmt)
		die("arena_printf: no format");
	va_start(ap, fmt);
	joined = join(a, fmt, ap, &p);
	va_end(ap);
	if (joined)
		return p;
	/* Format once, straight into the current block's free space when
	 * it has some (else into the stack), and a second time only when
	 * the text is longer than that: a measuring pass of vsnprintf()
	 * over a long argument costs as much as the printing. */
	if (room >= sizeof small + REDZONE) {
		cap = room - REDZONE;
		p = (char *)b->data + b->used;
		unpoison(p, cap);
		va_start(ap, fmt);
		n = vsnprintf(p, cap, fmt, ap);
		va_end(ap);
		if (n < 0)
			die("vsnprintf:");
		poison(p, cap);
		if ((size_t)n < cap) {
			/* room and used are multiples of ALIGN, so this
			 * rounding stays within the block. */
			b->used += ((size_t)n + 1 + REDZONE + ALIGN - 1) &
			    ~(size_t)(ALIGN - 1);
			unpoison(p, (size_t)n + 1);
			return p;
		}
	} else {
		va_start(ap, fmt);
		n = vsnprintf(small, sizeof small, fmt, ap);
		va_end(ap);
		if (n < 0)
			die("vsnprintf:");
		if ((size_t)n < sizeof small)
			return arena_strndup(a, small, (size_t)n);
	}
	p = alloc_raw(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}
