#include "base/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *progname = "strata";

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

void *
xreallocarray(void *p, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		die("out of memory");
	return xrealloc(p, nmemb * size);
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void
die(const char *fmt, ...)
{
	va_list ap;
	int err = errno;
	size_t n = strlen(fmt);

	fflush(stdout);
	fprintf(stderr, "%s: fatal: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (n && fmt[n - 1] == ':')
		fprintf(stderr, " %s", strerror(err));
	fputc('\n', stderr);
	exit(3);
}

size_t
utf8_decode(const char *str, size_t n, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t c;
	size_t len, i;

	*cp = 0xfffd;           /* what an invalid sequence reads as */
	if (n == 0)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	} else if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		c = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		c = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((len == 2 && c < 0x80) || (len == 3 && c < 0x800) ||
	    (len == 4 && c < 0x10000) || c > 0x10ffff ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

size_t
utf16_length(const char *s, size_t n)
{
	size_t i = 0, u = 0, k;
	uint32_t cp;

	while (i < n) {
		k = utf8_decode(s + i, n - i, &cp);
		u += cp >= 0x10000 ? 2 : 1;
		i += k ? k : 1;
	}
	return u;
}

size_t
utf8_encode(uint32_t cp, char *out)
{
	unsigned char *o = (unsigned char *)out;

	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	} else if (cp < 0x800) {
		o[0] = (unsigned char)(0xc0 | (cp >> 6));
		o[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	} else if (cp < 0x10000) {
		o[0] = (unsigned char)(0xe0 | (cp >> 12));
		o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (unsigned char)(0xf0 | (cp >> 18));
	o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

size_t
utf8_count(const char *s, size_t n)
{
	size_t i = 0, count = 0, k;
	uint32_t cp;

	while (i < n) {
		k = utf8_decode(s + i, n - i, &cp);
		i += k ? k : 1;
		count++;
	}
	return count;
}

static bool
in_ranges(uint32_t cp, const uint32_t (*r)[2], size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (cp >= r[i][0] && cp <= r[i][1])
			return true;
	return false;
}

size_t
utf8_width(const char *s, size_t n)
{
	/* The common blocks of Unicode's East Asian Width W and F, and
	 * the emoji planes. */
	static const uint32_t wide[][2] = {
		{ 0x1100, 0x115f }, { 0x231a, 0x231b }, { 0x2329, 0x232a },
		{ 0x23e9, 0x23ec }, { 0x23f0, 0x23f0 }, { 0x23f3, 0x23f3 },
		{ 0x25fd, 0x25fe }, { 0x2614, 0x2615 }, { 0x2648, 0x2653 },
		{ 0x267f, 0x267f }, { 0x2693, 0x2693 }, { 0x26a1, 0x26a1 },
		{ 0x26aa, 0x26ab }, { 0x26bd, 0x26be }, { 0x26c4, 0x26c5 },
		{ 0x26ce, 0x26ce }, { 0x26d4, 0x26d4 }, { 0x26ea, 0x26ea },
		{ 0x26f2, 0x26f3 }, { 0x26f5, 0x26f5 }, { 0x26fa, 0x26fa },
		{ 0x26fd, 0x26fd }, { 0x2705, 0x2705 }, { 0x270a, 0x270b },
		{ 0x2728, 0x2728 }, { 0x274c, 0x274c }, { 0x274e, 0x274e },
		{ 0x2753, 0x2755 }, { 0x2757, 0x2757 }, { 0x2795, 0x2797 },
		{ 0x27b0, 0x27b0 }, { 0x27bf, 0x27bf }, { 0x2b1b, 0x2b1c },
		{ 0x2b50, 0x2b50 }, { 0x2b55, 0x2b55 }, { 0x2e80, 0x303e },
		{ 0x3041, 0x33ff }, { 0x3400, 0x4dbf }, { 0x4e00, 0x9fff },
		{ 0xa000, 0xa4cf }, { 0xa960, 0xa97f }, { 0xac00, 0xd7a3 },
		{ 0xf900, 0xfaff }, { 0xfe10, 0xfe19 }, { 0xfe30, 0xfe6f },
		{ 0xff00, 0xff60 }, { 0xffe0, 0xffe6 }, { 0x16fe0, 0x18cff },
		{ 0x1b000, 0x1b2ff }, { 0x1f004, 0x1f004 },
		{ 0x1f0cf, 0x1f0cf }, { 0x1f18e, 0x1f18e },
		{ 0x1f191, 0x1f19a }, { 0x1f200, 0x1f251 },
		{ 0x1f300, 0x1f64f }, { 0x1f680, 0x1f6ff },
		{ 0x1f7e0, 0x1f7eb }, { 0x1f90c, 0x1f9ff },
		{ 0x1fa70, 0x1faff }, { 0x20000, 0x3fffd },
	};
	static const uint32_t zero[][2] = {
		{ 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd },
		{ 0x0610, 0x061a }, { 0x064b, 0x065f }, { 0x0e31, 0x0e31 },
		{ 0x0e34, 0x0e3a }, { 0x0e47, 0x0e4e }, { 0x1ab0, 0x1aff },
		{ 0x1dc0, 0x1dff }, { 0x200b, 0x200f }, { 0x20d0, 0x20ff },
		{ 0x302a, 0x302d }, { 0x3099, 0x309a }, { 0xfe00, 0xfe0f },
		{ 0xfe20, 0xfe2f }, { 0xfeff, 0xfeff }, { 0xe0100, 0xe01ef },
	};
	size_t i = 0, w = 0, k;
	uint32_t cp;

	while (i < n) {
		k = utf8_decode(s + i, n - i, &cp);
		if (!k) {
			i++;
			w++;
			continue;
		}
		i += k;
		if (in_ranges(cp, zero, LEN(zero)))
			continue;
		w += in_ranges(cp, wide, LEN(wide)) ? 2 : 1;
	}
	return w;
}

int
hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool
str_has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

bool
str_blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' &&
		    s[i] != '\r')
			return false;
	return true;
}

size_t
str_distance(const char *a, const char *b, size_t max)
{
	size_t n = strlen(a), m = strlen(b), i, j, best;
	size_t *row;

	if (n > 64 || m > 64)
		return max + 1;
	row = xcalloc(m + 1, sizeof(*row));
	for (j = 0; j <= m; j++)
		row[j] = j;
	for (i = 1; i <= n; i++) {
		size_t diag = row[0];

		row[0] = i;
		best = row[0];
		for (j = 1; j <= m; j++) {
			size_t up = row[j], v;

			v = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best > max) {
			free(row);
			return max + 1;
		}
	}
	best = row[m];
	free(row);
	return best;
}

size_t
utf8_bom(const char *s, size_t len)
{
	return len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
}

void
suggest_init(struct suggest *s, const char *key)
{
	s->key = key;
	s->keylen = strlen(key);
	s->near = NULL;
	s->neard = 3;
	s->prefix = NULL;
	s->prefixlen = 3;
}

void
suggest_add(struct suggest *s, const char *candidate)
{
	size_t cap = strlen(candidate) / 3 + 1, d, p = 0;

	if (cap > 2)
		cap = 2;
	d = str_distance(s->key, candidate, cap);
	if (d <= cap && d < s->neard && d < s->keylen) {
		s->near = candidate;
		s->neard = d;
	}
	while (s->key[p] && s->key[p] == candidate[p])
		p++;
	if (p > s->prefixlen) {
		s->prefix = candidate;
		s->prefixlen = p;
	}
}

const char *
suggest_best(const struct suggest *s)
{
	return s->near ? s->near : s->prefix;
}

size_t
term_escape(uint32_t c, char *out)
{
	if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f ||
	    (c >= 0x80 && c < 0xa0) || c == 0x61c || c == 0x200e ||
	    c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
	    (c >= 0x2066 && c <= 0x2069))
		return (size_t)snprintf(out, 8, "\\u%04x", (unsigned)c);
	return 0;
}
