#include "base/base64.h"

#include <stdint.h>

#include "base/buf.h"
#include "base/util.h"

static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t
base64_encoded_len(size_t n)
{
	if (n / 3 >= SIZE_MAX / 4 - 1)
		die("base64: %zu bytes is too much to encode", n);
	return (n + 2) / 3 * 4;
}

void
base64_encode(struct buf *out, const void *data, size_t n)
{
	const unsigned char *p = data;
	size_t i;
	char *o;

	buf_reserve(out, base64_encoded_len(n));
	o = out->data + out->len;
	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 |
		    p[i + 2];

		*o++ = alphabet[v >> 18];
		*o++ = alphabet[v >> 12 & 63];
		*o++ = alphabet[v >> 6 & 63];
		*o++ = alphabet[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		*o++ = alphabet[v >> 18];
		*o++ = alphabet[v >> 12 & 63];
		*o++ = i + 1 < n ? alphabet[v >> 6 & 63] : '=';
		*o++ = '=';
	}
	out->len = (size_t)(o - out->data);
	*o = '\0';
}

/* The 6-bit value of c, -1 for whitespace, -2 for '=', -3 otherwise. */
static int
sextet_of(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
		return -1;
	if (c == '=')
		return -2;
	return -3;
}

/* sextet_of() by table, filled on first use (the same values each time,
 * so a second filling changes nothing). */
static signed char sextets[256];
static bool sextets_ready;

static inline int
sextet(unsigned char c)
{
	if (!sextets_ready) {
		for (int i = 0; i < 256; i++)
			sextets[i] = (signed char)sextet_of((unsigned char)i);
		sextets_ready = true;
	}
	return sextets[c];
}

enum base64_error
base64_decode(struct buf *out, const char *s, size_t n, size_t *where)
{
	uint32_t acc = 0;
	size_t i, k = 0;        /* k: characters in the current group */
	size_t last = 0;        /* offset of the last data character */
	size_t pads = 0;
	char *o;
	int v;

	*where = 0;
	buf_reserve(out, n / 4 * 3 + 3);
	o = out->data + out->len;
	for (i = 0; i < n; i++) {
		/* Whole groups of four data characters, the common case,
		 * without the checks below (which see anything else). */
		while (k == 0 && i + 4 <= n) {
			int a = sextet((unsigned char)s[i]);
			int b = sextet((unsigned char)s[i + 1]);
			int c = sextet((unsigned char)s[i + 2]);
			int d = sextet((unsigned char)s[i + 3]);

			if ((a | b | c | d) < 0 || pads)
				break;
			acc = (uint32_t)a << 18 | (uint32_t)b << 12 |
			    (uint32_t)c << 6 | (uint32_t)d;
			*o++ = (char)(acc >> 16);
			*o++ = (char)(acc >> 8);
			*o++ = (char)acc;
			acc = 0;
			last = i + 3;
			i += 4;
		}
		if (i >= n)
			break;
		v = sextet((unsigned char)s[i]);
		if (v == -1)
			continue;
		if (v == -3) {
			*where = i;
			out->len = (size_t)(o - out->data);
			return BASE64_BAD_CHAR;
		}
		if (v == -2) {
			/* "xx==" or "xxx=": padding completes the group. */
			if (k + pads < 2 || k + pads >= 4) {
				*where = i;
				out->len = (size_t)(o - out->data);
				return BASE64_BAD_PAD;
			}
			pads++;
			continue;
		}
		if (pads) {
			*where = i;
			out->len = (size_t)(o - out->data);
			return BASE64_AFTER_PAD;
		}
		acc = acc << 6 | (uint32_t)v;
		last = i;
		if (++k == 4) {
			*o++ = (char)(acc >> 16);
			*o++ = (char)(acc >> 8);
			*o++ = (char)acc;
			acc = 0;
			k = 0;
		}
	}
	if (k == 1) {
		*where = last;
		out->len = (size_t)(o - out->data);
		return BASE64_TRUNCATED;
	}
	/* "xx=" (half the padding) is accepted, as Node accepts it. */
	if (k == 2) {
		*o++ = (char)(acc >> 4);
	} else if (k == 3) {
		*o++ = (char)(acc >> 10);
		*o++ = (char)(acc >> 2);
	}
	out->len = (size_t)(o - out->data);
	*o = '\0';
	return BASE64_OK;
}
