/*
 * gotmpl_funcs_url: the functions of a location's text -- Go's path
 * package (base, dir, clean, ext, isAbs and their os* twins).
 */
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
};
const size_t gt_nfuncs_url = LEN(gt_funcs_url);
