/*
 * gotmpl_funcs_url: the functions of a location's text -- Go's path
 * package (base, dir, clean, ext, isAbs and their os* twins) and Sprig's
 * urlParse and urlJoin on Go's net/url rules.
 */
/* memmem() */
#define _GNU_SOURCE

#include "text/gotmpl_funcs.h"

#include <string.h>

#include "base/arena.h"
#include "base/util.h"

/* Go's path package: pure functions of the text. */
static void
path_clean(struct buf *b, const char *p, size_t n)
{
	bool rooted = n && p[0] == '/';
	size_t r = rooted, dotdot = rooted;

	buf_reset(b);
	if (!n) {
		buf_putc(b, '.');
		return;
	}
	if (rooted)
		buf_putc(b, '/');
	while (r < n) {
		if (p[r] == '/') {
			r++;
		} else if (p[r] == '.' && (r + 1 == n || p[r + 1] == '/')) {
			r++;
		} else if (p[r] == '.' && p[r + 1] == '.' && (r + 2 == n ||
		    p[r + 2] == '/')) {
			r += 2;
			if (b->len > dotdot) {
				b->len--;
				while (b->len > dotdot && b->data[b->len] != '/')
					b->len--;
			} else if (!rooted) {
				if (b->len > 0)
					buf_putc(b, '/');
				buf_puts(b, "..");
				dotdot = b->len;
			}
		} else {
			if ((rooted && b->len != 1) || (!rooted && b->len))
				buf_putc(b, '/');
			for (; r < n && p[r] != '/'; r++)
				buf_putc(b, p[r]);
		}
	}
	if (!b->len)
		buf_putc(b, '.');
	b->data[b->len] = '\0';
}

static bool
f_clean(A)
{
	struct buf b = BUF_INIT;

	ARGS_UNUSED;
	path_clean(&b, a[0].u.s.s, a[0].u.s.n);
	*out = gt_bstr(x, &b);
	return true;
}

static bool
f_base(A)
{
	const char *p = a[0].u.s.s;
	size_t len = a[0].u.s.n, i;

	ARGS_UNUSED;
	if (!len)
		return gt_ret_str(x, out, ".", 1);
	while (len && p[len - 1] == '/')
		len--;
	if (!len)
		return gt_ret_str(x, out, "/", 1);
	for (i = len; i > 0 && p[i - 1] != '/'; i--)
		;
	return gt_ret_str(x, out, p + i, len - i);
}

static bool
f_dir(A)
{
	struct buf b = BUF_INIT;
	size_t i = a[0].u.s.n;

	ARGS_UNUSED;
	while (i > 0 && a[0].u.s.s[i - 1] != '/')
		i--;
	path_clean(&b, a[0].u.s.s, i);
	*out = gt_bstr(x, &b);
	return true;
}

static bool
f_ext(A)
{
	size_t i = a[0].u.s.n;

	ARGS_UNUSED;
	while (i > 0 && a[0].u.s.s[i - 1] != '/') {
		if (a[0].u.s.s[i - 1] == '.')
			return gt_ret_str(x, out, a[0].u.s.s + i - 1,
			    a[0].u.s.n - i + 1);
		i--;
	}
	*out = gv_cstr("");
	return true;
}

static bool
f_isabs(A)
{
	ARGS_UNUSED;
	*out = gv_bool(a[0].u.s.n && a[0].u.s.s[0] == '/');
	return true;
}

/* Go's net/url: parsing a URL, printing one.  Errors are its texts. */

enum enc {
	ENC_PATH = 1,
	ENC_HOST,
	ENC_ZONE,
	ENC_USERPASS,
	ENC_FRAGMENT,
};

struct url {
	struct buf scheme, opaque, user, pass, host, path, rawpath, query,
	    frag, rawfrag;
	bool has_user, has_pass, force_query;
};

static bool
alnum(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

/* net/url's shouldEscape for the modes urlParse and urlJoin use. */
static bool
should_escape(unsigned char c, enum enc mode)
{
	if (alnum(c))
		return false;
	if ((mode == ENC_HOST || mode == ENC_ZONE) &&
	    strchr("!$&'()*+,;=:[]<>\"", c) && c)
		return false;
	if (strchr("-_.~", c) && c)
		return false;
	if (strchr("$&+,/:;=?@", c) && c) {
		switch (mode) {
		case ENC_PATH:
			return c == '?';
		case ENC_USERPASS:
			return c == '@' || c == '/' || c == '?' || c == ':';
		case ENC_FRAGMENT:
			return false;
		default:
			break;
		}
	}
	if (mode == ENC_FRAGMENT && strchr("!()*", c) && c)
		return false;
	return true;
}

static int
unhex(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* unescape(s, mode) into out; false with Go's error text in *err. */
static bool
unescape(struct buf *out, const char *s, size_t n, enum enc mode,
    struct buf *err)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '%') {
			int v;

			if (i + 2 >= n || unhex((unsigned char)s[i + 1]) < 0 ||
			    unhex((unsigned char)s[i + 2]) < 0) {
				buf_puts(err, "invalid URL escape ");
				gv_quote(err, s + i, n - i > 3 ? 3 : n - i);
				return false;
			}
			v = unhex((unsigned char)s[i + 1]) << 4 |
			    unhex((unsigned char)s[i + 2]);
			if ((mode == ENC_HOST && v >> 4 < 8 &&
			    memcmp(s + i, "%25", 3) != 0) ||
			    (mode == ENC_ZONE && memcmp(s + i, "%25", 3) != 0 &&
			    v != ' ' && should_escape((unsigned char)v,
			    ENC_HOST))) {
				buf_puts(err, "invalid URL escape ");
				gv_quote(err, s + i, 3);
				return false;
			}
			buf_putc(out, (char)v);
			i += 2;
			continue;
		}
		if ((mode == ENC_HOST || mode == ENC_ZONE) && c < 0x80 &&
		    should_escape(c, mode)) {
			buf_puts(err, "invalid character ");
			gv_quote(err, s + i, 1);
			buf_puts(err, " in host name");
			return false;
		}
		buf_putc(out, (char)c);
	}
	return true;
}

static void
escape(struct buf *out, const char *s, size_t n, enum enc mode)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (should_escape(c, mode))
			buf_printf(out, "%%%02X", c);
		else
			buf_putc(out, (char)c);
	}
}

static bool
buf_is(const struct buf *b, const char *s, size_t n)
{
	return b->len == n && (!n || memcmp(b->data, s, n) == 0);
}

/* The raw form, kept only when escaping the decoded text would not give
 * it back (setPath, setFragment). */
static bool
set_escaped(struct buf *dec, struct buf *raw, const char *s, size_t n,
    enum enc mode, struct buf *err)
{
	struct buf e = BUF_INIT;

	if (!unescape(dec, s, n, mode, err))
		return false;
	escape(&e, dec->data ? dec->data : "", dec->len, mode);
	if (!buf_is(&e, s, n))
		buf_put(raw, s, n);
	buf_free(&e);
	return true;
}

static bool
valid_port(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return true;
	if (s[0] != ':')
		return false;
	for (i = 1; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static const char *
last_of(const char *s, size_t n, char c)
{
	while (n--)
		if (s[n] == c)
			return s + n;
	return NULL;
}

static bool
parse_host(struct url *u, const char *h, size_t n, struct buf *err)
{
	const char *p;

	if (n && h[0] == '[') {
		const char *zone;

		if (!(p = last_of(h, n, ']'))) {
			buf_puts(err, "missing ']' in host");
			return false;
		}
		if (!valid_port(p + 1, (size_t)(h + n - p - 1))) {
			buf_puts(err, "invalid port ");
			gv_quote(err, p + 1, (size_t)(h + n - p - 1));
			buf_puts(err, " after host");
			return false;
		}
		zone = memmem(h, (size_t)(p - h), "%25", 3);
		if (zone)
			return unescape(&u->host, h, (size_t)(zone - h),
			    ENC_HOST, err) && unescape(&u->host, zone,
			    (size_t)(p - zone), ENC_ZONE, err) &&
			    unescape(&u->host, p, (size_t)(h + n - p),
			    ENC_HOST, err);
	} else if ((p = last_of(h, n, ':')) &&
	    !valid_port(p, (size_t)(h + n - p))) {
		buf_puts(err, "invalid port ");
		gv_quote(err, p, (size_t)(h + n - p));
		buf_puts(err, " after host");
		return false;
	}
	return unescape(&u->host, h, n, ENC_HOST, err);
}

static bool
parse_authority(struct url *u, const char *s, size_t n, struct buf *err)
{
	const char *at = last_of(s, n, '@'), *colon;
	size_t i, un;

	if (!parse_host(u, at ? at + 1 : s, at ? (size_t)(s + n - at - 1) :
	    n, err))
		return false;
	if (!at)
		return true;
	un = (size_t)(at - s);
	for (i = 0; i < un; i++)
		if (!alnum((unsigned char)s[i]) &&
		    !(strchr("-._:~!$&'()*+,;=%@", s[i]) && s[i])) {
			buf_puts(err, "net/url: invalid userinfo");
			return false;
		}
	u->has_user = true;
	colon = memchr(s, ':', un);
	if (!unescape(&u->user, s, colon ? (size_t)(colon - s) : un,
	    ENC_USERPASS, err))
		return false;
	if (colon) {
		u->has_pass = true;
		return unescape(&u->pass, colon + 1, (size_t)(at - colon - 1),
		    ENC_USERPASS, err);
	}
	return true;
}

/* url.Parse without the fragment (parse(rawURL, false)). */
static bool
parse_rest(struct url *u, const char *s, size_t n, struct buf *err)
{
	const char *q;
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < ' ' || s[i] == 0x7f) {
			buf_puts(err, "net/url: invalid control character in "
			    "URL");
			return false;
		}
	if (n == 1 && s[0] == '*') {
		buf_putc(&u->path, '*');
		return true;
	}
	/* getScheme */
	for (i = 0; i < n; i++) {
		char c = s[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
			continue;
		if ((c >= '0' && c <= '9') || c == '+' || c == '-' ||
		    c == '.') {
			if (i == 0)
				break;
			continue;
		}
		if (c == ':') {
			size_t k;

			if (i == 0) {
				buf_puts(err, "missing protocol scheme");
				return false;
			}
			for (k = 0; k < i; k++)
				buf_putc(&u->scheme, (char)(s[k] >= 'A' &&
				    s[k] <= 'Z' ? s[k] - 'A' + 'a' : s[k]));
			s += i + 1;
			n -= i + 1;
		}
		break;
	}
	q = memchr(s, '?', n);
	if (q && q == s + n - 1) {
		u->force_query = true;
		n--;
	} else if (q) {
		buf_put(&u->query, q + 1, (size_t)(s + n - q - 1));
		n = (size_t)(q - s);
	}
	if (!n || s[0] != '/') {
		const char *slash = memchr(s, '/', n);

		if (u->scheme.len) {
			buf_put(&u->opaque, s, n);
			return true;
		}
		if (memchr(s, ':', slash ? (size_t)(slash - s) : n)) {
			buf_puts(err, "first path segment in URL cannot "
			    "contain colon");
			return false;
		}
	}
	if (n >= 2 && s[0] == '/' && s[1] == '/' && (u->scheme.len ||
	    n < 3 || s[2] != '/')) {
		const char *slash = memchr(s + 2, '/', n - 2);
		size_t an = slash ? (size_t)(slash - s - 2) : n - 2;

		if (!parse_authority(u, s + 2, an, err))
			return false;
		s += 2 + an;
		n -= 2 + an;
	}
	return set_escaped(&u->path, &u->rawpath, s, n, ENC_PATH, err);
}

static void
url_free(struct url *u)
{
	struct buf *b[] = { &u->scheme, &u->opaque, &u->user, &u->pass,
	    &u->host, &u->path, &u->rawpath, &u->query, &u->frag,
	    &u->rawfrag };
	size_t i;

	for (i = 0; i < LEN(b); i++)
		buf_free(b[i]);
}

/* url.Parse; false with "parse \"URL\": why" in *err. */
static bool
url_parse(struct url *u, const char *s, size_t n, struct buf *err)
{
	const char *hash = memchr(s, '#', n);
	size_t un = hash ? (size_t)(hash - s) : n;
	struct buf why = BUF_INIT;
	bool ok;

	memset(u, 0, sizeof(*u));
	ok = parse_rest(u, s, un, &why);
	if (ok && hash && hash + 1 < s + n)
		ok = set_escaped(&u->frag, &u->rawfrag, hash + 1,
		    (size_t)(s + n - hash - 1), ENC_FRAGMENT, &why);
	else if (!ok)
		n = un;
	if (!ok) {
		buf_puts(err, "parse ");
		gv_quote(err, s, n);
		buf_printf(err, ": %.*s", (int)why.len, why.data);
		url_free(u);
	}
	buf_free(&why);
	return ok;
}

static struct gv
bval(struct gt_exec *x, const struct buf *b)
{
	return gv_str(gt_sdup(x, b), b->len);
}

/* Userinfo.String */
static void
userinfo(struct buf *out, const struct url *u)
{
	escape(out, u->user.data, u->user.len, ENC_USERPASS);
	if (u->has_pass) {
		buf_putc(out, ':');
		escape(out, u->pass.data, u->pass.len, ENC_USERPASS);
	}
}

static bool
f_urlparse(A)
{
	struct url u;
	struct buf err = BUF_INIT, ui = BUF_INIT;
	struct arena *ar = AR;
	const char *h;
	size_t hn;

	ARGS_UNUSED;
	if (!url_parse(&u, a[0].u.s.s, a[0].u.s.n, &err)) {
		gt_fail(x, "unable to parse url: %s", err.data);
		buf_free(&err);
		return false;
	}
	/* Hostname(): the port and the brackets off. */
	h = u.host.data ? u.host.data : "";
	hn = u.host.len;
	{
		const char *c = last_of(h, hn, ':');

		if (c && valid_port(c, (size_t)(h + hn - c)))
			hn = (size_t)(c - h);
		if (hn >= 2 && h[0] == '[' && h[hn - 1] == ']')
			h++, hn -= 2;
	}
	if (u.has_user)
		userinfo(&ui, &u);
	*out = gv_map_new(ar);
	gv_map_set(ar, out->u.m, "scheme", 6, bval(x, &u.scheme));
	gv_map_set(ar, out->u.m, "host", 4, bval(x, &u.host));
	gv_map_set(ar, out->u.m, "hostname", 8, gv_str(arena_strndup(ar, h,
	    hn), hn));
	gv_map_set(ar, out->u.m, "path", 4, bval(x, &u.path));
	gv_map_set(ar, out->u.m, "query", 5, bval(x, &u.query));
	gv_map_set(ar, out->u.m, "opaque", 6, bval(x, &u.opaque));
	gv_map_set(ar, out->u.m, "fragment", 8, bval(x, &u.frag));
	gv_map_set(ar, out->u.m, "userinfo", 8, gt_bstr(x, &ui));
	url_free(&u);
	return true;
}

/* Sprig's dictGetOrEmpty: a string member, "" when absent. */
static bool
member(struct gt_exec *x, const struct gv_map *m, const char *key,
    struct buf *out)
{
	const struct gv *v = gv_map_get(m, key, strlen(key));

	if (!v)
		return true;
	if (v->kind == GV_NIL || v->kind == GV_INVALID)
		return gt_fail(x, "runtime error: invalid memory address or "
		    "nil pointer dereference");
	if (v->kind != GV_STRING)
		return gt_fail(x, "unable to parse %s key, must be of type "
		    "string, but %s found", key, gv_kindname(v));
	buf_put(out, v->u.s.s, v->u.s.n);
	return true;
}

/* URL.String of a URL built from its fields (no raw forms). */
static void
url_string(struct buf *b, const struct url *u, bool user)
{
	struct buf p = BUF_INIT;
	const char *seg;

	if (u->scheme.len) {
		buf_put(b, u->scheme.data, u->scheme.len);
		buf_putc(b, ':');
	}
	if (u->opaque.len) {
		buf_put(b, u->opaque.data, u->opaque.len);
	} else {
		if (u->scheme.len || u->host.len || user) {
			if (u->host.len || u->path.len || user)
				buf_puts(b, "//");
			if (user) {
				userinfo(b, u);
				buf_putc(b, '@');
			}
			escape(b, u->host.data, u->host.len, ENC_HOST);
		}
		if (u->path.len == 1 && u->path.data[0] == '*')
			buf_putc(&p, '*');
		else
			escape(&p, u->path.data, u->path.len, ENC_PATH);
		if (p.len && p.data[0] != '/' && u->host.len)
			buf_putc(b, '/');
		seg = p.len ? memchr(p.data, '/', p.len) : NULL;
		if (!b->len && p.len && memchr(p.data, ':', seg ?
		    (size_t)(seg - p.data) : p.len))
			buf_puts(b, "./");
		buf_put(b, p.data, p.len);
		buf_free(&p);
	}
	if (u->query.len) {
		buf_putc(b, '?');
		buf_put(b, u->query.data, u->query.len);
	}
	if (u->frag.len) {
		buf_putc(b, '#');
		escape(b, u->frag.data, u->frag.len, ENC_FRAGMENT);
	}
}

static bool
f_urljoin(A)
{
	static const char *const keys[] = { "scheme", "host", "path",
	    "query", "opaque", "fragment" };
	struct url u, t;
	struct buf *field[6], ui = BUF_INIT, b = BUF_INIT, err = BUF_INIT;
	bool ok = true, user = false;
	size_t i;

	ARGS_UNUSED;
	memset(&u, 0, sizeof(u));
	memset(&t, 0, sizeof(t));
	field[0] = &u.scheme, field[1] = &u.host, field[2] = &u.path;
	field[3] = &u.query, field[4] = &u.opaque, field[5] = &u.frag;
	for (i = 0; ok && i < LEN(keys); i++)
		ok = member(x, a[0].u.m, keys[i], field[i]);
	if (ok && (ok = member(x, a[0].u.m, "userinfo", &ui)) && ui.len) {
		/* Sprig parses "proto://USERINFO@host" for it. */
		buf_printf(&b, "proto://%.*s@host", (int)ui.len, ui.data);
		if (url_parse(&t, b.data, b.len, &err)) {
			user = t.has_user;
			buf_put(&u.user, t.user.data, t.user.len);
			buf_put(&u.pass, t.pass.data, t.pass.len);
			u.has_pass = t.has_pass;
			url_free(&t);
		} else {
			ok = gt_fail(x, "unable to parse userinfo in dict: %s",
			    err.data);
		}
		b.len = 0;
	}
	if (ok) {
		url_string(&b, &u, user);
		*out = gt_bstr(x, &b);
	}
	buf_free(&b);
	buf_free(&ui);
	buf_free(&err);
	url_free(&u);
	return ok;
}

const struct gt_func gt_funcs_url[] = {
	{ "base", "s", f_base, NULL, false, 0 },
	{ "clean", "s", f_clean, NULL, false, 0 },
	{ "dir", "s", f_dir, NULL, false, 0 },
	{ "ext", "s", f_ext, NULL, false, 0 },
	{ "isAbs", "s", f_isabs, NULL, false, 0 },
	{ "osBase", "s", f_base, NULL, false, 0 },
	{ "osClean", "s", f_clean, NULL, false, 0 },
	{ "osDir", "s", f_dir, NULL, false, 0 },
	{ "osExt", "s", f_ext, NULL, false, 0 },
	{ "osIsAbs", "s", f_isabs, NULL, false, 0 },
	{ "urlJoin", "m", f_urljoin, NULL, false, 0 },
	{ "urlParse", "s", f_urlparse, NULL, false, 0 },
};
const size_t gt_nfuncs_url = LEN(gt_funcs_url);
