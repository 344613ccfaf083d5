/*
 * gotmpl_funcs_encoding: JSON as Go's encoding/json writes and reads
 * it (toJson, fromJson and their spellings), base64 and base32, and the
 * hashes (sha1sum, sha256sum, adler32sum), decryptAES, and
 * derivePassword.
 */
#include "text/gotmpl_funcs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/base64.h"
#include "base/hash.h"
#include "base/kdf.h"
#include "base/util.h"

/* Sprig: JSON, as Go's encoding/json writes and reads it. */

static bool
json_float(struct buf *b, double f)
{
	double abs = fabs(f);
	struct buf t = BUF_INIT;
	size_t i;

	if (isnan(f) || isinf(f))
		return false;
	if (abs != 0 && (abs < 1e-6 || abs >= 1e21)) {
		gv_float_str(&t, f, 'e', -1);
		/* e-07 -> e-7 */
		for (i = 0; i + 2 < t.len; i++)
			if (t.data[i] == 'e' && t.data[i + 2] == '0' &&
			    i + 3 < t.len) {
				memmove(t.data + i + 2, t.data + i + 3,
				    t.len - i - 3);
				t.len--;
				break;
			}
		buf_put(b, t.data, t.len);
	} else {
		gv_float_str(&t, f, 'f', -1);
		buf_put(b, t.data, t.len);
	}
	buf_free(&t);
	return true;
}

static void
json_str(struct buf *b, const char *s, size_t n, bool html)
{
	size_t i = 0;

	buf_putc(b, '"');
	while (i < n) {
		uint32_t cp;
		size_t k = utf8_decode(s + i, n - i, &cp);
		unsigned char c = (unsigned char)s[i];

		if (!k) {
			buf_puts(b, "\\ufffd");
			i++;
			continue;
		}
		if (c == '"' || c == '\\') {
			buf_putc(b, '\\');
			buf_putc(b, c);
		} else if (c == '\n') {
			buf_puts(b, "\\n");
		} else if (c == '\r') {
			buf_puts(b, "\\r");
		} else if (c == '\t') {
			buf_puts(b, "\\t");
		} else if (c < 0x20 || (html && (c == '<' || c == '>' ||
		    c == '&'))) {
			buf_printf(b, "\\u00%02x", c);
		} else if (cp == 0x2028 || cp == 0x2029) {
			buf_printf(b, "\\u%04x", cp);
		} else {
			buf_put(b, s + i, k);
		}
		i += k;
	}
	buf_putc(b, '"');
}

static void
json_nl(struct buf *b, int indent, int level)
{
	int i;

	if (indent < 0)
		return;
	buf_putc(b, '\n');
	for (i = 0; i < indent * level; i++)
		buf_putc(b, ' ');
}

static bool
json_gv(struct buf *b, const struct gv *v, int indent, int level, bool html)
{
	size_t i;

	switch (v->kind) {
	case GV_INVALID:
	case GV_NIL:
		buf_puts(b, "null");
		return true;
	case GV_BOOL:
		buf_puts(b, v->u.b ? "true" : "false");
		return true;
	case GV_INT:
		buf_printf(b, "%lld", (long long)v->u.i);
		return true;
	case GV_FLOAT:
		return json_float(b, v->u.f);
	case GV_STRING:
		json_str(b, v->u.s.s, v->u.s.n, html);
		return true;
	case GV_VERSION: {
		struct buf t = BUF_INIT;

		gv_print(&t, v);
		json_str(b, t.data, t.len, html);
		buf_free(&t);
		return true;
	}
	case GV_LIST:
		buf_putc(b, '[');
		for (i = 0; i < v->u.l->n; i++) {
			if (i)
				buf_putc(b, ',');
			json_nl(b, indent, level + 1);
			if (!json_gv(b, &v->u.l->v[i], indent, level + 1,
			    html))
				return false;
		}
		if (v->u.l->n)
			json_nl(b, indent, level);
		buf_putc(b, ']');
		return true;
	case GV_MAP:
		buf_putc(b, '{');
		for (i = 0; i < v->u.m->n; i++) {
			if (i)
				buf_putc(b, ',');
			json_nl(b, indent, level + 1);
			json_str(b, v->u.m->items[i].k, v->u.m->items[i].kn,
			    html);
			buf_puts(b, indent >= 0 ? ": " : ":");
			if (!json_gv(b, &v->u.m->items[i].v, indent,
			    level + 1, html))
				return false;
		}
		if (v->u.m->n)
			json_nl(b, indent, level);
		buf_putc(b, '}');
		return true;
	}
	return false;
}

/* toJson and its spellings: mode JSON_PRETTY (indent 2), JSON_RAW (no
 * HTML escapes), GT_MUST (an error for what JSON cannot hold, else ""). */
#define JSON_PRETTY 1
#define JSON_RAW 2

static bool
f_tojson(A)
{
	int mode = gt_callmode(x);
	const struct gv *v = &a[0];
	struct buf b = BUF_INIT;

	ARGS_UNUSED;
	if (!json_gv(&b, v, mode & JSON_PRETTY ? 2 : -1, 0,
	    !(mode & JSON_RAW))) {
		buf_free(&b);
		if (mode & GT_MUST)
			return gt_fail(x, "json: unsupported value: %s",
			    isnan(v->u.f) ? "NaN" : v->u.f > 0 ? "+Inf" :
			    "-Inf");
		*out = gv_cstr("");
		return true;
	}
	*out = gt_bstr(x, &b);
	return true;
}


struct jp {
	struct gt_exec *x;
	const char *s;
	size_t n, i;
	int depth;
	const char *err;
};

static void
jp_ws(struct jp *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' ||
	    p->s[p->i] == '\n' || p->s[p->i] == '\r'))
		p->i++;
}

static bool jp_value(struct jp *p, struct gv *out);

/* encoding/json's quoteChar. */
static const char *
jp_char(struct jp *p)
{
	unsigned char c = p->i < p->n ? (unsigned char)p->s[p->i] : 0;
	struct buf b = BUF_INIT;
	const char *r;

	if (p->i >= p->n)
		return NULL;
	if (c == '\'')
		return "'\\''";
	if (c == '"')
		return "'\"'";
	gv_quote(&b, (const char *)&c, 1);
	r = arena_printf(&gt_set(p->x)->run->arena, "'%.*s'",
	    (int)b.len - 2, b.data + 1);
	buf_free(&b);
	return r;
}

/* "invalid character 'x' what", or the end of input. */
static bool
jp_err(struct jp *p, const char *what)
{
	const char *c = jp_char(p);

	if (!p->err)
		p->err = c ? arena_printf(&gt_set(p->x)->run->arena,
		    "invalid character %s %s", c, what) :
		    "unexpected end of JSON input";
	return false;
}

static bool
jp_string(struct jp *p, struct gv *out)
{
	struct buf b = BUF_INIT;

	p->i++;
	while (p->i < p->n && p->s[p->i] != '"') {
		unsigned char c = (unsigned char)p->s[p->i];

		if (c < 0x20)
			goto bad;
		if (c != '\\') {
			buf_putc(&b, c);
			p->i++;
			continue;
		}
		if (++p->i >= p->n)
			goto bad;
		switch (p->s[p->i]) {
		case '"': buf_putc(&b, '"'); break;
		case '\\': buf_putc(&b, '\\'); break;
		case '/': buf_putc(&b, '/'); break;
		case 'b': buf_putc(&b, '\b'); break;
		case 'f': buf_putc(&b, '\f'); break;
		case 'n': buf_putc(&b, '\n'); break;
		case 'r': buf_putc(&b, '\r'); break;
		case 't': buf_putc(&b, '\t'); break;
		case 'u': {
			uint32_t cp = 0;
			int k;
			char enc[4];

			for (k = 1; k <= 4; k++) {
				int h = p->i + (size_t)k < p->n ?
				    hex_value(p->s[p->i + k]) : -1;

				if (h < 0)
					goto bad;
				cp = cp * 16 + (uint32_t)h;
			}
			p->i += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && p->i + 6 < p->n &&
			    p->s[p->i + 1] == '\\' && p->s[p->i + 2] == 'u') {
				uint32_t lo = 0;

				for (k = 3; k <= 6; k++) {
					int h = hex_value(p->s[p->i + k]);

					if (h < 0)
						goto bad;
					lo = lo * 16 + (uint32_t)h;
				}
				if (lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) +
					    (lo - 0xdc00);
					p->i += 6;
				}
			}
			if (cp >= 0xd800 && cp < 0xe000)
				cp = 0xfffd;
			buf_put(&b, enc, utf8_encode(cp, enc));
			break;
		}
		default:
			goto bad;
		}
		p->i++;
	}
	if (p->i >= p->n)
		goto bad;
	p->i++;
	*out = gt_bstr(p->x, &b);
	return true;
bad:
	buf_free(&b);
	return jp_err(p, "in string literal");
}

static bool
jp_value(struct jp *p, struct gv *out)
{
	struct gt_exec *x = p->x;

	jp_ws(p);
	if (p->i >= p->n) {
		p->err = "unexpected end of JSON input";
		return false;
	}
	if (++p->depth > 10000) {
		p->err = "exceeded max depth";
		return false;
	}
	switch (p->s[p->i]) {
	case '{':
		*out = gv_map_new(AR);
		p->i++;
		jp_ws(p);
		if (p->i < p->n && p->s[p->i] == '}') {
			p->i++;
			break;
		}
		for (;;) {
			struct gv k, v;

			jp_ws(p);
			if (p->i >= p->n || p->s[p->i] != '"')
				return jp_err(p,
				    "looking for beginning of object key string");
			if (!jp_string(p, &k))
				return false;
			jp_ws(p);
			if (p->i >= p->n || p->s[p->i] != ':')
				return jp_err(p, "after object key");
			p->i++;
			if (!jp_value(p, &v))
				return false;
			gv_map_set(AR, out->u.m, k.u.s.s, k.u.s.n, v);
			jp_ws(p);
			if (p->i < p->n && p->s[p->i] == ',') {
				p->i++;
				continue;
			}
			if (p->i < p->n && p->s[p->i] == '}') {
				p->i++;
				break;
			}
			return jp_err(p, "after object key:value pair");
		}
		break;
	case '[': {
		struct gv *v = NULL;
		size_t k = 0, cap = 0;

		p->i++;
		jp_ws(p);
		*out = gv_list_new(AR, 0);
		if (p->i < p->n && p->s[p->i] == ']') {
			p->i++;
			break;
		}
		for (;;) {
			if (k == cap) {
				v = arena_grow(AR, v, cap, cap ? cap * 2 : 8,
				    sizeof(*v));
				cap = cap ? cap * 2 : 8;
			}
			if (!jp_value(p, &v[k++]))
				return false;
			jp_ws(p);
			if (p->i < p->n && p->s[p->i] == ',') {
				p->i++;
				continue;
			}
			if (p->i < p->n && p->s[p->i] == ']') {
				p->i++;
				break;
			}
			return jp_err(p, "after array element");
		}
		out->u.l->v = v;
		out->u.l->n = k;
		break;
	}
	case '"':
		if (!jp_string(p, out))
			return false;
		break;
	default:
		if (p->n - p->i >= 4 && memcmp(p->s + p->i, "true", 4) == 0) {
			*out = gv_bool(true);
			p->i += 4;
		} else if (p->n - p->i >= 5 && memcmp(p->s + p->i, "false",
		    5) == 0) {
			*out = gv_bool(false);
			p->i += 5;
		} else if (p->n - p->i >= 4 && memcmp(p->s + p->i, "null",
		    4) == 0) {
			*out = gv_nil();
			p->i += 4;
		} else if (p->s[p->i] == '-' || (p->s[p->i] >= '0' &&
		    p->s[p->i] <= '9')) {
			size_t st = p->i;
			char tmp[64];

			while (p->i < p->n && strchr("+-0123456789.eE",
			    p->s[p->i]) && p->s[p->i])
				p->i++;
			if (p->i - st >= sizeof(tmp)) {
				p->err = "number too long";
				return false;
			}
			memcpy(tmp, p->s + st, p->i - st);
			tmp[p->i - st] = '\0';
			*out = gv_float(strtod(tmp, NULL));
		} else {
			return jp_err(p, "looking for beginning of value");
		}
	}
	p->depth--;
	return true;
}

/* fromJson, mustFromJson (GT_MUST: an error for bad JSON, else nil). */
static bool
f_fromjson(A)
{
	const struct gv *s = &a[0];
	struct jp p = { x, s->u.s.s, s->u.s.n, 0, 0, NULL };

	if (jp_value(&p, out)) {
		jp_ws(&p);
		if (p.i == p.n)
			return true;
		jp_err(&p, "after top-level value");
	}
	ARGS_UNUSED;
	if (gt_callmode(x) & GT_MUST)
		return gt_fail(x, "%s", p.err);
	*out = gv_nil();
	return true;
}


/* Sprig: encodings and hashes. */

static bool
f_b64enc(A)
{
	struct buf b = BUF_INIT;

	ARGS_UNUSED;
	base64_encode(&b, a[0].u.s.s, a[0].u.s.n);
	*out = gt_bstr(x, &b);
	return true;
}

/* base64.StdEncoding.DecodeString of s into b; false with *where the
 * byte Go's "illegal base64 data at input byte N" names. */
static bool
std_base64(const struct gv *s, struct buf *b, size_t *where)
{
	*where = s->u.s.n - s->u.s.n % 4;
	return !(s->u.s.n % 4) && base64_decode(b, s->u.s.s, s->u.s.n,
	    where) == BASE64_OK;
}

static bool
f_b64dec(A)
{
	struct buf b = BUF_INIT;
	size_t where;

	ARGS_UNUSED;
	if (!std_base64(&a[0], &b, &where)) {
		buf_free(&b);
		*out = gv_cstr(arena_printf(AR,
		    "illegal base64 data at input byte %zu", where));
		return true;
	}
	*out = gt_bstr(x, &b);
	return true;
}

static const char b32[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

static bool
f_b32enc(A)
{
	struct buf b = BUF_INIT;
	const unsigned char *s = (const unsigned char *)a[0].u.s.s;
	size_t i, len = a[0].u.s.n;

	ARGS_UNUSED;
	for (i = 0; i < len; i += 5) {
		uint64_t v = 0;
		size_t k, m = len - i < 5 ? len - i : 5, chars;

		for (k = 0; k < 5; k++)
			v = v << 8 | (k < m ? s[i + k] : 0);
		chars = (m * 8 + 4) / 5;
		for (k = 0; k < 8; k++)
			buf_putc(&b, k < chars ? b32[(v >> (35 - 5 * k)) &
			    31] : '=');
	}
	*out = gt_bstr(x, &b);
	return true;
}

static bool
f_b32dec(A)
{
	struct buf b = BUF_INIT;
	size_t i, len = a[0].u.s.n;
	uint64_t v = 0;
	int bits = 0;

	ARGS_UNUSED;
	for (i = 0; i < len; i++) {
		const char *p = a[0].u.s.s[i] ? strchr(b32, a[0].u.s.s[i]) :
		    NULL;

		if (a[0].u.s.s[i] == '=')
			break;
		if (!p) {
			buf_free(&b);
			*out = gv_cstr(arena_printf(AR,
			    "illegal base32 data at input byte %zu", i));
			return true;
		}
		v = v << 5 | (uint64_t)(p - b32);
		bits += 5;
		if (bits >= 8) {
			buf_putc(&b, (int)((v >> (bits - 8)) & 0xff));
			bits -= 8;
		}
	}
	*out = gt_bstr(x, &b);
	return true;
}

#define ROL(v, n) (((v) << (n)) | ((v) >> (32 - (n))))

static void
sha1(const unsigned char *s, size_t n, unsigned char out[20])
{
	uint32_t h[5] = { 0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476,
	    0xC3D2E1F0 };
	size_t total = ((n + 8) / 64 + 1) * 64, i, j;
	unsigned char blk[64];

	for (i = 0; i < total; i += 64) {
		uint32_t w[80], a, b, c, d, e, f, k, t;

		for (j = 0; j < 64; j++) {
			size_t p = i + j;

			blk[j] = p < n ? s[p] : p == n ? 0x80 : 0;
			if (p >= total - 8)
				blk[j] = (unsigned char)(((uint64_t)n * 8) >>
				    (8 * (total - 1 - p)));
		}
		for (j = 0; j < 16; j++)
			w[j] = (uint32_t)blk[4 * j] << 24 |
			    (uint32_t)blk[4 * j + 1] << 16 |
			    (uint32_t)blk[4 * j + 2] << 8 | blk[4 * j + 3];
		for (j = 16; j < 80; j++)
			w[j] = ROL(w[j - 3] ^ w[j - 8] ^ w[j - 14] ^ w[j - 16],
			    1);
		a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
		for (j = 0; j < 80; j++) {
			if (j < 20)
				f = (b & c) | (~b & d), k = 0x5A827999;
			else if (j < 40)
				f = b ^ c ^ d, k = 0x6ED9EBA1;
			else if (j < 60)
				f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDC;
			else
				f = b ^ c ^ d, k = 0xCA62C1D6;
			t = ROL(a, 5) + f + e + k + w[j];
			e = d, d = c, c = ROL(b, 30), b = a, a = t;
		}
		h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
	}
	for (i = 0; i < 20; i++)
		out[i] = (unsigned char)(h[i / 4] >> (24 - 8 * (i % 4)));
}

static bool
hex_out(struct gt_exec *x, const unsigned char *d, size_t n, struct gv *out)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++)
		buf_printf(&b, "%02x", d[i]);
	*out = gt_bstr(x, &b);
	return true;
}

static bool
f_sha1sum(A)
{
	unsigned char d[20];

	ARGS_UNUSED;
	sha1((const unsigned char *)a[0].u.s.s, a[0].u.s.n, d);
	return hex_out(x, d, 20, out);
}

static bool
f_sha256sum(A)
{
	unsigned char d[32];

	ARGS_UNUSED;
	sha256(a[0].u.s.s, a[0].u.s.n, d);
	return hex_out(x, d, 32, out);
}

/* Sprig's derivePassword: the Master Password algorithm.  The key is
 * scrypt (N 32768, r 8, p 2, 64 bytes) of the password, salted with the
 * scope, the user's length in bytes (big-endian 32 bits) and the user;
 * the seed is HMAC-SHA256 under that key of the scope, the site's length,
 * the site and the counter (big-endian 32 bits).  seed[0] picks one of
 * the type's templates, seed[i + 1] the i-th character from the set its
 * letter names.  An unknown type is not an error in Sprig: the result is
 * a sentence saying so. */
#define DP_SCOPE "com.lyndir.masterpassword"
/* Each call costs 32 MiB (freed before it returns) and about a quarter
 * of a second: a run may make this many, so a template cannot make a
 * render take minutes. */
#define GT_DERIVE_MAX 8

static const struct {
	const char *type;
	const char *const tmpl[21];
} dp_types[] = {
	{ "maximum", { "anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno" } },
	{ "long", { "CvcvnoCvcvCvcv", "CvcvCvcvnoCvcv", "CvcvCvcvCvcvno",
	    "CvccnoCvcvCvcv", "CvccCvcvnoCvcv", "CvccCvcvCvcvno",
	    "CvcvnoCvccCvcv", "CvcvCvccnoCvcv", "CvcvCvccCvcvno",
	    "CvcvnoCvcvCvcc", "CvcvCvcvnoCvcc", "CvcvCvcvCvccno",
	    "CvccnoCvccCvcv", "CvccCvccnoCvcv", "CvccCvccCvcvno",
	    "CvcvnoCvccCvcc", "CvcvCvccnoCvcc", "CvcvCvccCvccno",
	    "CvccnoCvcvCvcc", "CvccCvcvnoCvcc", "CvccCvcvCvccno" } },
	{ "medium", { "CvcnoCvc", "CvcCvcno" } },
	{ "short", { "Cvcn" } },
	{ "basic", { "aaanaaan", "aannaaan", "aaannaaa" } },
	{ "pin", { "nnnn" } },
};

static const char *
dp_chars(char c)
{
	switch (c) {
	case 'V': return "AEIOU";
	case 'C': return "BCDFGHJKLMNPQRSTVWXYZ";
	case 'v': return "aeiou";
	case 'c': return "bcdfghjklmnpqrstvwxyz";
	case 'A': return "AEIOUBCDFGHJKLMNPQRSTVWXYZ";
	case 'a': return "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz";
	case 'n': return "0123456789";
	case 'o': return "@&%?,=[]_:-+*$#!'^~;()/.";
	default: return "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz"
	    "0123456789!@#$%^&*()";
	}
}

static void
put_be32(struct buf *b, uint32_t v)
{
	buf_putc(b, (int)(v >> 24 & 0xff));
	buf_putc(b, (int)(v >> 16 & 0xff));
	buf_putc(b, (int)(v >> 8 & 0xff));
	buf_putc(b, (int)(v & 0xff));
}

static bool
f_derivepassword(A)
{
	const struct gv *type = &a[1], *pw = &a[2], *user = &a[3],
	    *site = &a[4];
	uint32_t counter = (uint32_t)a[0].u.i;
	unsigned char key[64], seed[32];
	struct buf salt = BUF_INIT, pass = BUF_INIT;
	const char *const *tmpl = NULL;
	const char *t;
	size_t i, ntmpl = 0;
	bool ok;

	ARGS_UNUSED;
	for (i = 0; i < LEN(dp_types); i++)
		if (strlen(dp_types[i].type) == type->u.s.n &&
		    memcmp(dp_types[i].type, type->u.s.s, type->u.s.n) == 0)
			tmpl = dp_types[i].tmpl;
	if (!tmpl) {
		buf_printf(&pass, "cannot find password template ");
		buf_put(&pass, type->u.s.s, type->u.s.n);
		*out = gt_bstr(x, &pass);
		return true;
	}
	if (gt_set(x)->derived >= GT_DERIVE_MAX)
		return gt_fail(x, "strata allows %d calls in one run (each "
		    "takes 32 MiB and about a quarter of a second)",
		    GT_DERIVE_MAX);
	gt_set(x)->derived++;
	while (ntmpl < 21 && tmpl[ntmpl])
		ntmpl++;
	buf_puts(&salt, DP_SCOPE);
	put_be32(&salt, (uint32_t)user->u.s.n);
	buf_put(&salt, user->u.s.s, user->u.s.n);
	ok = kdf_scrypt(pw->u.s.s, pw->u.s.n, salt.data, salt.len, 32768, 8,
	    2, key, sizeof(key));
	if (!ok) {
		buf_free(&salt);
		return gt_fail(x, "out of memory for scrypt (32 MiB)");
	}
	salt.len = strlen(DP_SCOPE);
	put_be32(&salt, (uint32_t)site->u.s.n);
	buf_put(&salt, site->u.s.s, site->u.s.n);
	put_be32(&salt, counter);
	hmac_sha256(key, sizeof(key), salt.data, salt.len, seed);
	buf_free(&salt);
	for (t = tmpl[seed[0] % ntmpl], i = 0; t[i]; i++) {
		const char *set = dp_chars(t[i]);

		buf_putc(&pass, set[seed[i + 1] % strlen(set)]);
	}
	*out = gt_bstr(x, &pass);
	return true;
}

static bool
f_adler32sum(A)
{
	uint32_t s1 = 1, s2 = 0;
	size_t i;

	ARGS_UNUSED;
	for (i = 0; i < a[0].u.s.n; i++) {
		s1 = (s1 + (unsigned char)a[0].u.s.s[i]) % 65521;
		s2 = (s2 + s1) % 65521;
	}
	*out = gv_cstr(arena_printf(AR, "%u", s2 << 16 | s1));
	return true;
}

/*
 * AES-256 decryption (FIPS 197), for Sprig's decryptAES: the S-box from
 * its definition (the inverse in GF(2^8), then the affine map), the key
 * schedule, and the inverse cipher.
 */
static uint8_t
rotl8(uint8_t v, int k)
{
	return (uint8_t)(v << k | v >> (8 - k));
}

static uint8_t
gmul(uint8_t a, uint8_t b)
{
	uint8_t r = 0;

	while (b) {
		if (b & 1)
			r ^= a;
		a = (uint8_t)(a << 1 ^ (a & 0x80 ? 0x1b : 0));
		b >>= 1;
	}
	return r;
}

struct aes {
	uint8_t sbox[256], inv[256];
	uint32_t w[60];
};

static void
aes_init(struct aes *k, const uint8_t key[32])
{
	uint8_t p = 1, q = 1, rcon = 1;
	uint32_t t;
	int i;

	/* p runs through the powers of 3, q through those of 3^-1. */
	do {
		p = (uint8_t)(p ^ p << 1 ^ (p & 0x80 ? 0x1b : 0));
		q ^= (uint8_t)(q << 1);
		q ^= (uint8_t)(q << 2);
		q ^= (uint8_t)(q << 4);
		if (q & 0x80)
			q ^= 0x09;
		k->sbox[p] = (uint8_t)(q ^ rotl8(q, 1) ^ rotl8(q, 2) ^
		    rotl8(q, 3) ^ rotl8(q, 4) ^ 0x63);
	} while (p != 1);
	k->sbox[0] = 0x63;
	for (i = 0; i < 256; i++)
		k->inv[k->sbox[i]] = (uint8_t)i;
	for (i = 0; i < 8; i++)
		k->w[i] = (uint32_t)key[4 * i] << 24 |
		    (uint32_t)key[4 * i + 1] << 16 |
		    (uint32_t)key[4 * i + 2] << 8 | key[4 * i + 3];
	for (i = 8; i < 60; i++) {
		t = k->w[i - 1];
		if (i % 8 == 0)
			t = t << 8 | t >> 24;
		if (i % 8 == 0 || i % 8 == 4)
			t = (uint32_t)k->sbox[t >> 24] << 24 |
			    (uint32_t)k->sbox[t >> 16 & 0xff] << 16 |
			    (uint32_t)k->sbox[t >> 8 & 0xff] << 8 |
			    k->sbox[t & 0xff];
		if (i % 8 == 0) {
			t ^= (uint32_t)rcon << 24;
			rcon = gmul(rcon, 2);
		}
		k->w[i] = k->w[i - 8] ^ t;
	}
}

static void
add_round_key(uint8_t s[16], const uint32_t *w)
{
	int c;

	for (c = 0; c < 4; c++) {
		s[4 * c] ^= (uint8_t)(w[c] >> 24);
		s[4 * c + 1] ^= (uint8_t)(w[c] >> 16);
		s[4 * c + 2] ^= (uint8_t)(w[c] >> 8);
		s[4 * c + 3] ^= (uint8_t)w[c];
	}
}

/* InvShiftRows and InvSubBytes: row r moves r columns right. */
static void
inv_shift_sub(const struct aes *k, uint8_t s[16])
{
	uint8_t t[16];
	int r, c;

	for (r = 0; r < 4; r++)
		for (c = 0; c < 4; c++)
			t[r + 4 * ((c + r) % 4)] = k->inv[s[r + 4 * c]];
	memcpy(s, t, 16);
}

static void
inv_mix_columns(uint8_t s[16])
{
	int c;

	for (c = 0; c < 4; c++) {
		uint8_t *a = s + 4 * c, a0 = a[0], a1 = a[1], a2 = a[2],
		    a3 = a[3];

		a[0] = gmul(a0, 14) ^ gmul(a1, 11) ^ gmul(a2, 13) ^ gmul(a3, 9);
		a[1] = gmul(a0, 9) ^ gmul(a1, 14) ^ gmul(a2, 11) ^ gmul(a3, 13);
		a[2] = gmul(a0, 13) ^ gmul(a1, 9) ^ gmul(a2, 14) ^ gmul(a3, 11);
		a[3] = gmul(a0, 11) ^ gmul(a1, 13) ^ gmul(a2, 9) ^ gmul(a3, 14);
	}
}

static void
aes_decrypt_block(const struct aes *k, uint8_t s[16])
{
	int round;

	add_round_key(s, k->w + 56);
	for (round = 13; round >= 1; round--) {
		inv_shift_sub(k, s);
		add_round_key(s, k->w + 4 * round);
		inv_mix_columns(s);
	}
	inv_shift_sub(k, s);
	add_round_key(s, k->w);
}

/* Sprig's decryptAES(password, base64): AES-256-CBC with the password's
 * first 32 bytes (zero-padded) as the key and the first block as the
 * IV, then the last byte's count of bytes cut off; Go's panics where the
 * data is too short or not whole blocks. */
static bool
f_decryptaes(A)
{
	struct buf b = BUF_INIT;
	uint8_t key[32] = { 0 }, prev[16], cur[16];
	struct aes *k;
	size_t where, i, len, cut;
	unsigned char *d;

	ARGS_UNUSED;
	if (!a[1].u.s.n) {
		*out = gv_cstr("");
		return true;
	}
	memcpy(key, a[0].u.s.s, a[0].u.s.n < 32 ? a[0].u.s.n : 32);
	if (!std_base64(&a[1], &b, &where)) {
		buf_free(&b);
		return gt_fail(x, "illegal base64 data at input byte %zu",
		    where);
	}
	len = b.len;
	if (len < 16) {
		buf_free(&b);
		return gt_fail(x, "runtime error: slice bounds out of range "
		    "[:16] with capacity %zu", len);
	}
	if ((len - 16) % 16) {
		buf_free(&b);
		return gt_fail(x, "crypto/cipher: input not full blocks");
	}
	if (len == 16) {
		buf_free(&b);
		return gt_fail(x, "runtime error: index out of range [-1]");
	}
	k = xmalloc(sizeof(*k));
	aes_init(k, key);
	d = (unsigned char *)b.data;
	memcpy(prev, d, 16);
	for (i = 16; i < len; i += 16) {
		size_t j;

		memcpy(cur, d + i, 16);
		aes_decrypt_block(k, d + i);
		for (j = 0; j < 16; j++)
			d[i + j] ^= prev[j];
		memcpy(prev, cur, 16);
	}
	free(k);
	cut = d[len - 1];
	if (cut > len - 16) {
		buf_free(&b);
		return gt_fail(x, "runtime error: slice bounds out of range "
		    "[:%lld]", (long long)(len - 16) - (long long)cut);
	}
	*out = gv_str(arena_strndup(AR, (char *)d + 16, len - 16 - cut),
	    len - 16 - cut);
	buf_free(&b);
	return true;
}

const struct gt_func gt_funcs_encoding[] = {
	{ "adler32sum", "s", f_adler32sum, NULL, false, 0 },
	{ "b32dec", "s", f_b32dec, NULL, false, 0 },
	{ "b32enc", "s", f_b32enc, NULL, false, 0 },
	{ "b64dec", "s", f_b64dec, NULL, false, 0 },
	{ "decryptAES", "ss", f_decryptaes, NULL, false, 0 },
	{ "derivePassword", "ussss", f_derivepassword, NULL, false, 0 },
	{ "b64enc", "s", f_b64enc, NULL, false, 0 },
	{ "fromJson", "s", f_fromjson, NULL, false, 0 },
	{ "mustFromJson", "s", f_fromjson, NULL, false, GT_MUST },
	{ "mustToJson", "a", f_tojson, NULL, false, GT_MUST },
	{ "mustToPrettyJson", "a", f_tojson, NULL, false, GT_MUST | JSON_PRETTY },
	{ "mustToRawJson", "a", f_tojson, NULL, false, GT_MUST | JSON_RAW },
	{ "sha1sum", "s", f_sha1sum, NULL, false, 0 },
	{ "sha256sum", "s", f_sha256sum, NULL, false, 0 },
	{ "toJson", "a", f_tojson, NULL, false, 0 },
	{ "toPrettyJson", "a", f_tojson, NULL, false, JSON_PRETTY },
	{ "toRawJson", "a", f_tojson, NULL, false, JSON_RAW },
};
const size_t gt_nfuncs_encoding = LEN(gt_funcs_encoding);
