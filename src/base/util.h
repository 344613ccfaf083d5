/*
 * util: allocation that never returns NULL, fatal errors, small string
 * helpers.  xmalloc() and friends call die() on failure, so no caller
 * checks for NULL.  The program name (progname) is the only mutable global
 * in strata; main() sets it once.
 */
#ifndef UTIL_H
#define UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

extern const char *progname;

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

/* A switch case that goes on into the next one, said so to gcc and clang
 * alike (clang does not read comments for -Wimplicit-fallthrough). */
#define FALLTHROUGH __attribute__((fallthrough))

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* xreallocarray() checks nmemb * size for overflow. */
void *xreallocarray(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Print "progname: fatal: ..." to stderr and exit 3.  A format that ends
 * in ':' gets ": strerror(errno)" appended. */
_Noreturn void die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0 when the
 * bytes there are not valid UTF-8 (overlong, surrogate, > U+10FFFF,
 * truncated).  *cp receives the code point, or U+FFFD when 0 is
 * returned. */
size_t utf8_decode(const char *s, size_t n, uint32_t *cp);
/* Write code point cp as UTF-8 into out (4 bytes room); return length. */
size_t utf8_encode(uint32_t cp, char *out);
/* How many UTF-16 code units s[0..n) is (JavaScript's length): two for a
 * code point above U+FFFF, one for any other, and one for each byte that
 * is not valid UTF-8 (read as U+FFFD).  Counting in pieces gives the sum
 * of the whole when the pieces split between characters. */
size_t utf16_length(const char *s, size_t n);
/* Number of code points in s[0..n); invalid bytes count one each. */
/* 3 when s[0..len) starts with a UTF-8 byte order mark, else 0: the
 * one check for it, so every reader skips the same bytes. */
size_t utf8_bom(const char *s, size_t len);
size_t utf8_count(const char *s, size_t n);
/* The columns s[0..n) takes on a terminal: East Asian wide and fullwidth
 * characters and emoji take two, combining marks and zero-width
 * characters none, others one. */
size_t utf8_width(const char *s, size_t n);
/* Human views (strata(1), SECURITY): how code point c is shown on a
 * terminal.  C0 controls other than tab and newline, DEL, C1 controls
 * and the bidirectional controls (U+061C, U+200E, U+200F, U+202A to
 * U+202E, U+2066 to U+2069) are written as "\uXXXX" into out (8 bytes
 * room) and the length returned; 0 for any other, shown as it is. */
size_t term_escape(uint32_t c, char *out);

/* The value of hex digit c, or -1. */
int hex_value(int c);
bool str_has_suffix(const char *s, const char *suffix);
/* Whether s[0..n) holds only spaces, tabs, CRs and LFs (or nothing). */
bool str_blank(const char *s, size_t n);
/* Edit distance, capped: returns a value > max when it exceeds max. */
size_t str_distance(const char *a, const char *b, size_t max);

/*
 * "Did you mean": the one rule for suggesting a known name in place of an
 * unknown key.  Feed the candidates to suggest_add(); suggest_best() is
 * the nearest within two edits (one for names of up to two letters, and
 * fewer edits than the key has letters), else the one sharing the longest
 * prefix of four or more ("usage" -> "usage_hint"), else NULL.  key must
 * be NUL-terminated and outlive the struct; the result is a candidate.
 */
struct suggest {
	const char *key;
	size_t keylen;
	const char *near;       /* best by distance */
	size_t neard;
	const char *prefix;     /* best by shared prefix */
	size_t prefixlen;
};

void suggest_init(struct suggest *s, const char *key);
void suggest_add(struct suggest *s, const char *candidate);
const char *suggest_best(const struct suggest *s);

#endif
