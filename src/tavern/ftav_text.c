/*
 * ftav_text: what fast-tavern does to one text -- replaceMacros (the
 * variable macros in their fixed order, then <<key>>, then {{key}}) and
 * applyRegex (the scripts that apply to the item's target, the view and
 * the depth; macro tokens in the find regex; trim strings; the
 * replacement template's {{match}}, $$, $&, $n; the macro pass on each
 * replacement).  fast-tavern does all of this with JavaScript's
 * String.prototype.replace, so the patterns are its own, compiled once
 * per build by jsregex, and the replace loop is JavaScript's: every
 * match found first, then each replaced in order; an empty match moves
 * on by one character.  Reference: fast-tavern.md sections 4.6 and 5.
 */
#include "tavern/ftav.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "base/vec.h"
#include "data/tree.h"
#include "diag/run.h"

static const char *const patterns[FP__COUNT] = {
	[FP_SETVAR] = "\\{\\{\\s*setvar\\s*::\\s*([^:}]+)\\s*::\\s*([^}]*)\\s*\\}\\}",
	[FP_SETGLOBAL] = "\\{\\{\\s*setglobalvar\\s*::\\s*([^:}]+)\\s*::\\s*([^}]*)\\s*\\}\\}",
	[FP_GETVAR] = "\\{\\{\\s*getvar\\s*::\\s*([^}]+)\\s*\\}\\}",
	[FP_GETGLOBAL] = "\\{\\{\\s*getglobalvar\\s*::\\s*([^}]+)\\s*\\}\\}",
	[FP_SETVAR2] = "<<\\s*setvar\\s*::\\s*([^:>]+)\\s*::\\s*([^>]*)\\s*>>",
	[FP_SETGLOBAL2] = "<<\\s*setglobalvar\\s*::\\s*([^:>]+)\\s*::\\s*([^>]*)\\s*>>",
	[FP_GETVAR2] = "<<\\s*getvar\\s*::\\s*([^>]+)\\s*>>",
	[FP_GETGLOBAL2] = "<<\\s*getglobalvar\\s*::\\s*([^>]+)\\s*>>",
	[FP_ANGLE] = "<<\\s*([a-zA-Z0-9_]+)\\s*>>",
	[FP_BRACE] = "\\{\\{\\s*([a-zA-Z0-9_]+)\\s*\\}\\}",
	[FP_MATCH] = "\\{\\{\\s*match\\s*\\}\\}",
};

void
ftav_throw(struct ftav *ft, const struct node *at, const char *what)
{
	const struct source *src = at ? run_source(ft->run, at->src) : NULL;

	diag_error(ft->run, src, at ? at->span : span_make(0, 0),
	    MSG_FTAV_THROW, what);
	ft->failed = true;
}

/* A regex compiled without a word on stderr (fast-tavern skips a
 * script whose pattern JavaScript refuses). */
static bool
compile_quiet(const char *pat, size_t len, unsigned flags,
    struct jsregex *re)
{
	struct run scratch;
	struct jsregex_origin at;
	bool ok;

	run_init(&scratch);
	scratch.diag.capped = true;
	memset(&at, 0, sizeof(at));
	at.what = "findRegex";
	ok = jsregex_compile(&scratch, &at, pat, len, flags, re);
	run_free(&scratch);
	return ok;
}

bool
ftav_text_init(struct ftav *ft)
{
	size_t i;

	for (i = 0; i < FP__COUNT; i++) {
		unsigned f = JSREGEX_G | (i == FP_ANGLE || i == FP_BRACE ? 0 :
		    JSREGEX_I);

		if (!compile_quiet(patterns[i], strlen(patterns[i]), f,
		    &ft->pat[i]))
			die("fast-tavern pattern %zu does not compile", i);
	}
	return true;
}

void
ftav_text_free(struct ftav *ft)
{
	size_t i;

	for (i = 0; i < FP__COUNT; i++)
		jsregex_free(&ft->pat[i]);
	for (i = 0; i < ft->nscripts; i++)
		jsregex_free(&ft->scripts[i].re);
}

static size_t
char_len(const char *s, size_t n)
{
	uint32_t c;
	size_t k = utf8_decode(s, n, &c);

	return k ? k : 1;
}

/* One match's offsets (2 * (ngroups + 1)). */
typedef bool replace_fn(struct ftav *ft, const char *s, size_t n,
    const size_t *ov, uint32_t ngroups, struct buf *out, void *arg);

/*
 * String.prototype.replace(re, fn): all matches first (g), or the first
 * (no g), then fn on each in order; the text between them kept.
 */
static bool
replace(struct ftav *ft, struct jsregex *re, const char *what,
    const char *s, size_t n, replace_fn *fn, void *arg, struct buf *out)
{
	size_t per = 2 * ((size_t)re->ngroups + 1), nm = 0, cap = 0, pos = 0,
	    last = 0, i;
	size_t *all = NULL;
	void *md = jsregex_match_data(re->ngroups);
	enum jsregex_result r;
	bool ok = true;

	while (pos <= n) {
		all = vec_grow(all, &cap, (nm + 1) * per, sizeof(*all));
		r = jsregex_match(re, md, s, n, pos, all + nm * per);
		if (r == JSREGEX_NOMATCH)
			break;
		if (r != JSREGEX_MATCH) {
			diag_plain(ft->run, DIAG_ERROR, MSG_FTAV_REGEX_LIMIT,
			    what);
			ft->failed = true;
			ok = false;
			break;
		}
		nm++;
		if (!(re->flags & JSREGEX_G))
			break;
		i = (nm - 1) * per;
		if (all[i + 1] == all[i]) {
			if (all[i + 1] >= n)
				break;
			pos = all[i + 1] + char_len(s + all[i + 1],
			    n - all[i + 1]);
		} else {
			pos = all[i + 1];
		}
	}
	jsregex_match_data_free(md);
	for (i = 0; ok && i < nm; i++) {
		const size_t *ov = all + i * per;

		buf_put(out, s + last, ov[0] - last);
		if (!fn(ft, s, n, ov, re->ngroups, out, arg))
			ok = false;
		last = ov[1];
	}
	if (ok)
		buf_put(out, s + last, n - last);
	free(all);
	return ok;
}

static const char *
group(struct ftav *ft, const char *s, const size_t *ov, uint32_t k,
    size_t *len)
{
	if (ov[2 * k] == SIZE_MAX) {
		*len = 0;
		return "";
	}
	*len = ov[2 * k + 1] - ov[2 * k];
	return s + ov[2 * k];
}

static char *
trimmed(struct ftav *ft, const char *s, size_t n)
{
	ftav_trim(&s, &n);
	return arena_strndup(&ft->run->arena, s, n);
}

/* The variable store for a scope: local (false) or global. */
static void
set_var(struct ftav *ft, bool global, const char *name, const char *val)
{
	struct node *t = global ? ft->global : ft->local;
	struct arena *a = &ft->run->arena;

	/* Assigning a string to __proto__ changes nothing. */
	if (strcmp(name, "__proto__") == 0 && !tree_get(t, name))
		return;
	tree_set(a, t, name, strlen(name), 0, span_make(0, 0),
	    tree_str(a, val));
}

/* stringifyVariableValue(ctx[name] ?? "") */
static void
get_var(struct ftav *ft, bool global, const char *name, struct buf *out)
{
	const struct node *v = tree_get(global ? ft->global : ft->local,
	    name);

	if (!v) {
		/* Inherited: Object.prototype is "{}", a method prints
		 * JSON.stringify's undefined. */
		if (strcmp(name, "__proto__") == 0)
			buf_puts(out, "{}");
		else if (ftav_inherited(name))
			buf_puts(out, "undefined");
		return;
	}
	switch (v->kind) {
	case NODE_NULL:
		break;
	case NODE_TABLE:
	case NODE_ARRAY:
		ftav_stringify(out, v);
		break;
	default:
		ftav_tostring(out, v);
	}
}

struct varop {
	bool set, global;
};

static bool
var_macro(struct ftav *ft, const char *s, size_t n, const size_t *ov,
    uint32_t ng, struct buf *out, void *arg)
{
	const struct varop *op = arg;
	size_t l1, l2;
	const char *g1 = group(ft, s, ov, 1, &l1);
	const char *name = trimmed(ft, g1, l1);

	if (op->set) {
		const char *g2 = group(ft, s, ov, 2, &l2);

		set_var(ft, op->global, name, trimmed(ft, g2, l2));
	} else {
		get_var(ft, op->global, name, out);
	}
	return true;
}

/* The macro table's value for key (exact, then lower-cased), or NULL. */
static const struct ftav_kv *
macro_of(struct ftav *ft, const char *key, size_t n)
{
	char *low = ftav_lower(ft->run, key, n);
	size_t i;

	for (i = 0; i < ft->nmacros; i++)
		if (strlen(ft->macros[i].key) == n &&
		    memcmp(ft->macros[i].key, key, n) == 0)
			return &ft->macros[i];
	for (i = 0; i < ft->nmacros; i++)
		if (strcmp(ft->macros[i].key, low) == 0)
			return &ft->macros[i];
	return NULL;
}

static bool
plain_macro(struct ftav *ft, const char *s, size_t n, const size_t *ov,
    uint32_t ng, struct buf *out, void *arg)
{
	bool brace = arg != NULL;
	size_t kl;
	const char *k = group(ft, s, ov, 1, &kl);
	const struct ftav_kv *m;
	char *low;

	if (brace) {
		low = ftav_lower(ft->run, k, kl);
		if (!strcmp(low, "getvar") || !strcmp(low, "setvar") ||
		    !strcmp(low, "getglobalvar") ||
		    !strcmp(low, "setglobalvar")) {
			buf_put(out, s + ov[0], ov[1] - ov[0]);
			return true;
		}
	}
	m = macro_of(ft, k, kl);
	if (!m)
		buf_put(out, s + ov[0], ov[1] - ov[0]);
	else
		ftav_tostring(out, m->val);
	return true;
}

bool
ftav_macros(struct ftav *ft, const char *s, size_t n, struct buf *out)
{
	static const struct varop ops[8] = {
		{ true, false }, { true, true }, { false, false },
		{ false, true }, { true, false }, { true, true },
		{ false, false }, { false, true },
	};
	struct buf a = BUF_INIT, b = BUF_INIT, t;
	size_t i;
	bool ok = true;

	if (n == 0)
		return true;
	buf_put(&a, s, n);
	for (i = 0; ok && i < FP__COUNT - 1; i++) {
		buf_reset(&b);
		if (i < 8)
			ok = replace(ft, &ft->pat[i], "a macro", a.data ?
			    a.data : "", a.len, var_macro, (void *)&ops[i],
			    &b);
		else
			ok = replace(ft, &ft->pat[i], "a macro", a.data ?
			    a.data : "", a.len, plain_macro,
			    i == FP_BRACE ? (void *)1 : NULL, &b);
		t = a;
		a = b;
		b = t;
	}
	if (ok)
		buf_put(out, a.data ? a.data : "", a.len);
	buf_free(&a);
	buf_free(&b);
	return ok;
}

/* ---- regex scripts ---- */

static void
escape_literal(struct buf *out, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strchr(".*+?^${}()|[]\\", s[i]) && s[i])
			buf_putc(out, '\\');
		buf_putc(out, s[i]);
	}
}

struct tokmode {
	int mode;
};

static bool
find_token(struct ftav *ft, const char *s, size_t n, const size_t *ov,
    uint32_t ng, struct buf *out, void *arg)
{
	const struct tokmode *m = arg;
	const struct ftav_kv *kv;
	size_t kl;
	const char *k;
	struct buf v = BUF_INIT;

	if (m->mode == 0) {
		escape_literal(out, s + ov[0], ov[1] - ov[0]);
		return true;
	}
	k = group(ft, s, ov, 1, &kl);
	kv = macro_of(ft, k, kl);
	if (!kv) {
		buf_put(out, s + ov[0], ov[1] - ov[0]);
		return true;
	}
	ftav_tostring(&v, kv->val);
	if (m->mode == 2)
		escape_literal(out, v.data ? v.data : "", v.len);
	else
		buf_put(out, v.data ? v.data : "", v.len);
	buf_free(&v);
	return true;
}

/* parseFindRegex and new RegExp(): false when JavaScript refuses. */
static bool
compile_script(struct ftav *ft, struct ftav_script *sc)
{
	struct tokmode m = { sc->macro_mode };
	struct buf a = BUF_INIT, b = BUF_INIT;
	const char *p;
	size_t n, i, off = 0, len;
	unsigned flags = 0;
	bool ok;

	ok = replace(ft, &ft->pat[FP_BRACE], "findRegex", sc->find,
	    strlen(sc->find), find_token, &m, &a) &&
	    replace(ft, &ft->pat[FP_ANGLE], "findRegex", a.data ? a.data :
	    "", a.len, find_token, &m, &b);
	if (!ok) {
		buf_free(&a);
		buf_free(&b);
		return false;
	}
	p = b.data ? b.data : "";
	n = b.len;
	len = n;
	if (n && p[0] == '/') {
		for (i = n - 1; i > 0; i--) {
			size_t bs = 0, j;

			if (p[i] != '/')
				continue;
			for (j = i; j > 0 && p[j - 1] == '\\'; j--)
				bs++;
			if (bs % 2)
				continue;
			if (strspn(p + i + 1, "gimsuy") == n - i - 1) {
				off = 1;
				len = i - 1;
				for (j = i + 1; j < n; j++) {
					unsigned bit = p[j] == 'g' ?
					    JSREGEX_G : p[j] == 'i' ?
					    JSREGEX_I : p[j] == 'm' ?
					    JSREGEX_M : p[j] == 's' ?
					    JSREGEX_S : p[j] == 'u' ?
					    JSREGEX_U : JSREGEX_Y;

					if (flags & bit)
						flags |= JSREGEX_INERT;
					flags |= bit;
				}
			}
			break;
		}
	}
	ok = !(flags & JSREGEX_INERT) && jsregex_valid(p, n) &&
	    compile_quiet(p + off, len, flags, &sc->re);
	buf_free(&a);
	buf_free(&b);
	return ok;
}

/* GetSubstitution for a replacement string r with no capture groups. */
static void
substitution(struct buf *out, const char *r, size_t rn, const char *str,
    size_t sn, size_t pos, size_t mlen)
{
	size_t i;

	for (i = 0; i < rn; i++) {
		if (r[i] != '$' || i + 1 >= rn) {
			buf_putc(out, r[i]);
			continue;
		}
		switch (r[i + 1]) {
		case '$':
			buf_putc(out, '$');
			i++;
			break;
		case '&':
			buf_put(out, str + pos, mlen);
			i++;
			break;
		case '`':
			buf_put(out, str, pos);
			i++;
			break;
		case '\'':
			buf_put(out, str + pos + mlen, sn - pos - mlen);
			i++;
			break;
		default:
			buf_putc(out, '$');
		}
	}
}

struct subst {
	const char *with;
	size_t n;
};

static bool
subst_match(struct ftav *ft, const char *s, size_t n, const size_t *ov,
    uint32_t ng, struct buf *out, void *arg)
{
	const struct subst *w = arg;

	substitution(out, w->with, w->n, s, n, ov[0], ov[1] - ov[0]);
	return true;
}

/* The first needle[0..nl) in h[0..hl), or NULL. */
static const char *
find_bytes(const char *h, size_t hl, const char *needle, size_t nl)
{
	size_t i;

	for (i = 0; nl && i + nl <= hl; i++)
		if (h[i] == needle[0] && memcmp(h + i, needle, nl) == 0)
			return h + i;
	return NULL;
}

#define DOLLAR "\0DOLLAR\0"
#define DOLLAR_LEN 8

struct script_call {
	struct ftav_script *sc;
};

/* interpolateReplacement, then replaceMacros, for one match. */
static bool
script_match(struct ftav *ft, const char *s, size_t n, const size_t *ov,
    uint32_t ng, struct buf *out, void *arg)
{
	struct ftav_script *sc = ((struct script_call *)arg)->sc;
	struct buf m = BUF_INIT, a = BUF_INIT, b = BUF_INIT;
	struct subst w;
	size_t i, k, gl;
	const char *g;
	bool ok;

	/* The match with every trim string taken out, in turn. */
	buf_put(&m, s + ov[0], ov[1] - ov[0]);
	for (k = 0; k < sc->ntrim; k++) {
		size_t tl = strlen(sc->trim[k]);
		const char *hit;

		if (!tl)
			continue;
		buf_reset(&a);
		for (i = 0; i < m.len; ) {
			hit = find_bytes(m.data + i, m.len - i, sc->trim[k],
			    tl);
			if (!hit) {
				buf_put(&a, m.data + i, m.len - i);
				break;
			}
			buf_put(&a, m.data + i, (size_t)(hit - m.data) - i);
			i = (size_t)(hit - m.data) + tl;
		}
		buf_reset(&m);
		buf_put(&m, a.data ? a.data : "", a.len);
	}
	w.with = m.data ? m.data : "";
	w.n = m.len;
	buf_reset(&a);
	ok = replace(ft, &ft->pat[FP_MATCH], "{{match}}", sc->replace,
	    strlen(sc->replace), subst_match, &w, &a);
	if (!ok)
		goto done;
	/* $$ -> a placeholder */
	buf_reset(&b);
	for (i = 0; i < a.len; i++) {
		if (a.data[i] == '$' && i + 1 < a.len && a.data[i + 1] == '$') {
			buf_put(&b, DOLLAR, DOLLAR_LEN);
			i++;
		} else {
			buf_putc(&b, a.data[i]);
		}
	}
	/* $& -> the trimmed match (itself a replacement string) */
	buf_reset(&a);
	for (i = 0; i < b.len; i++) {
		if (b.data[i] == '$' && i + 1 < b.len && b.data[i + 1] == '&') {
			substitution(&a, w.with, w.n, b.data, b.len, i, 2);
			i++;
		} else {
			buf_putc(&a, b.data[i]);
		}
	}
	/* $n, $nn -> groups */
	buf_reset(&b);
	for (i = 0; i < a.len; i++) {
		if (a.data[i] == '$' && i + 1 < a.len && a.data[i + 1] >= '0' &&
		    a.data[i + 1] <= '9') {
			unsigned num = (unsigned)(a.data[i + 1] - '0');

			i++;
			if (i + 1 < a.len && a.data[i + 1] >= '0' &&
			    a.data[i + 1] <= '9')
				num = num * 10 + (unsigned)(a.data[++i] - '0');
			if (num > 0 && num <= ng) {
				g = group(ft, s, ov, num, &gl);
				buf_put(&b, g, gl);
			}
		} else {
			buf_putc(&b, a.data[i]);
		}
	}
	/* the placeholder -> $ */
	buf_reset(&a);
	for (i = 0; i < b.len; i++) {
		if (b.len - i >= DOLLAR_LEN && memcmp(b.data + i, DOLLAR,
		    DOLLAR_LEN) == 0) {
			buf_putc(&a, '$');
			i += DOLLAR_LEN - 1;
		} else {
			buf_putc(&a, b.data[i]);
		}
	}
	ok = ftav_macros(ft, a.data ? a.data : "", a.len, out);
done:
	buf_free(&m);
	buf_free(&a);
	buf_free(&b);
	return ok;
}

static bool
by_depth(const struct ftav_script *sc, enum ftav_target t, bool has,
    double d)
{
	double min, max;

	if (t != FT_USER_INPUT && t != FT_AI_OUTPUT)
		return true;
	if (!has)
		return false;
	if (sc->min) {
		min = ftav_tonumber(sc->min);
		if (min != -1 && d < min)
			return false;
	}
	if (sc->max) {
		max = ftav_tonumber(sc->max);
		if (max != -1 && d > max)
			return false;
	}
	return true;
}

bool
ftav_regex(struct ftav *ft, enum ftav_target target, bool has_depth,
    double depth, const char *s, size_t n, struct buf *out)
{
	struct buf cur = BUF_INIT, next = BUF_INIT, t;
	int view = -1;
	size_t i;
	bool ok = true;

	if (ft->view && ft->view->kind == NODE_STRING)
		view = !strcmp(ft->view->u.str.s, "user") ? 0 :
		    !strcmp(ft->view->u.str.s, "model") ? 1 : -1;
	buf_put(&cur, s, n);
	for (i = 0; ok && i < ft->nscripts; i++) {
		struct ftav_script *sc = &ft->scripts[i];
		struct script_call call = { sc };

		if (!sc->enabled || !sc->ntargets || !sc->nview ||
		    !(sc->targets & (1u << target)) || view < 0 ||
		    !(sc->view & (1u << view)) ||
		    !by_depth(sc, target, has_depth, depth))
			continue;
		if (sc->state == 0)
			sc->state = compile_script(ft, sc) ? 1 : -1;
		if (sc->state < 0)
			continue;
		buf_reset(&next);
		ok = replace(ft, &sc->re, sc->id, cur.data ? cur.data : "",
		    cur.len, script_match, &call, &next);
		t = cur;
		cur = next;
		next = t;
	}
	if (ok)
		buf_put(out, cur.data ? cur.data : "", cur.len);
	buf_free(&cur);
	buf_free(&next);
	return ok;
}
