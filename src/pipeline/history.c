/*
 * The history (-H): a JSON array of {role, content[, name]}.  System and
 * developer messages are split out into in->base and in->devbase; the
 * others go to in->hist in order.  The array has two free slots before
 * the history and one after it, for arrange() to use in place, so the
 * messages are never copied.
 *
 * A history is the one input that grows without bound (a million
 * messages is 40 MB), and a JSON tree of it costs ~20 times its size.
 * So a plain history -- an array of objects of string members role,
 * content and name, nothing else -- is read by a small scanner straight
 * into messages whose text borrows the file's bytes (decoded only where
 * a string has escapes).  Anything else, including every error, makes
 * it give up without a word and the general reader (json.c's tree, the
 * checks below) read the file instead, so what is accepted and every
 * message reported are the general reader's.
 */
#include "pipeline/stages.h"

#include <string.h>

#include "base/arena.h"
#include "base/util.h"
#include "data/load.h"
#include "data/tree.h"
#include "diag/run.h"

static void
room(struct run *run, struct inputs *in, size_t n)
{
	in->hist = (struct message *)arena_array(&run->arena, n + 3,
	    sizeof(*in->hist)) + 2;
	in->nhist = 0;
	in->histroom = n;
	buf_reset(&in->base);
	buf_reset(&in->devbase);
}

/* One element, checked: a message, or text for the system prompt. */
static void
keep(struct inputs *in, enum role r, const char *text, size_t len,
    const char *name, const struct source *src, struct span span)
{
	struct message *m;

	if (r == ROLE_SYSTEM || r == ROLE_DEVELOPER) {
		struct buf *b = r == ROLE_SYSTEM ? &in->base : &in->devbase;
		size_t n = entry_trim(&text, len);

		if (!n)
			return;
		if (b->len)
			buf_puts(b, "\n\n");
		buf_put(b, text, n);
		return;
	}
	m = &in->hist[in->nhist++];
	m->role = r;
	m->origin = "history";
	m->content = text;
	m->len = len;
	m->name = name;
	m->has_src = true;
	m->src = src->id;
	m->span = span;
}

static bool
role_of(const char *s, enum role *r)
{
	static const char *const names[] = { "system", "developer", "user",
		"assistant" };
	size_t i;

	for (i = 0; i < LEN(names); i++)
		if (strcmp(names[i], s) == 0) {
			*r = (enum role)i;
			return true;
		}
	return false;
}

/*
 * The general reader: the whole JSON tree, then every element checked,
 * each problem reported where it is.
 */
static bool
slow(struct run *run, struct source *src, struct inputs *in)
{
	struct node *root;
	size_t i, j;
	bool ok = true;

	if (!load_source(run, src, LOAD_JSON, &root))
		return false;
	if (root->kind != NODE_ARRAY) {
		diag_error(run, src, root->span, MSG_HISTORY_NOT_ARRAY,
		    tree_kind_article(root->kind));
		return false;
	}
	room(run, in, root->u.array.n);
	for (i = 0; i < root->u.array.n; i++) {
		const struct node *e = root->u.array.items[i], *role, *content,
		    *name;
		enum role r;
		bool eok = true;

		if (e->kind != NODE_TABLE) {
			diag_error(run, src, e->span, MSG_HISTORY_ITEM,
			    tree_kind_article(e->kind));
			ok = false;
			continue;
		}
		for (j = 0; j < e->u.table.n; j++) {
			const struct member *mb = &e->u.table.items[j];

			if (strlen(mb->key) != mb->keylen || (strcmp(mb->key,
			    "role") && strcmp(mb->key, "content") &&
			    strcmp(mb->key, "name"))) {
				diag_error(run, src, mb->keyspan,
				    MSG_HISTORY_KEY, diag_shown(run, mb->key,
				    mb->keylen));
				eok = false;
			}
		}
		role = tree_get(e, "role");
		content = tree_get(e, "content");
		name = tree_get(e, "name");
		if (!role) {
			diag_error(run, src, e->span, MSG_HISTORY_MISSING,
			    "role");
			eok = false;
		} else if (role->kind != NODE_STRING ||
		    strlen(role->u.str.s) != role->u.str.len ||
		    !role_of(role->u.str.s, &r)) {
			diag_error(run, src, role->span, MSG_HISTORY_ROLE,
			    role->kind == NODE_STRING ? diag_shown(run,
			    role->u.str.s, role->u.str.len) :
			    tree_kind_article(role->kind));
			eok = false;
		}
		if (!content) {
			diag_error(run, src, e->span, MSG_HISTORY_MISSING,
			    "content");
			eok = false;
		} else if (content->kind != NODE_STRING) {
			diag_error(run, src, content->span,
			    MSG_HISTORY_CONTENT,
			    tree_kind_article(content->kind));
			eok = false;
		}
		if (name && name->kind != NODE_STRING) {
			diag_error(run, src, name->span, MSG_WRONG_TYPE,
			    "name", "a string", tree_kind_article(name->kind));
			eok = false;
		}
		if (!eok) {
			ok = false;
			continue;
		}
		keep(in, r, content->u.str.s, content->u.str.len,
		    name ? name->u.str.s : NULL, src, e->span);
	}
	return ok;
}


/* The fast scanner's state; any surprise makes it return false. */
struct scan {
	struct run *run;
	const char *s;
	size_t n, pos;
	struct buf tmp;         /* a decoded string with escapes */
};

static void
ws(struct scan *sc)
{
	while (sc->pos < sc->n && (sc->s[sc->pos] == ' ' ||
	    sc->s[sc->pos] == '\t' || sc->s[sc->pos] == '\n' ||
	    sc->s[sc->pos] == '\r'))
		sc->pos++;
}

static bool
eat(struct scan *sc, char c)
{
	ws(sc);
	if (sc->pos >= sc->n || sc->s[sc->pos] != c)
		return false;
	sc->pos++;
	return true;
}

static bool
hex4(const char *s, uint32_t *out)
{
	size_t j;
	int d;

	*out = 0;
	for (j = 0; j < 4; j++) {
		if ((d = hex_value(s[j])) < 0)
			return false;
		*out = *out << 4 | (uint32_t)d;
	}
	return true;
}

/* A \u escape at s (n bytes left) into sc->tmp; its length, or 0. */
static size_t
unicode(struct scan *sc, const char *s, size_t n)
{
	uint32_t c, lo;
	char enc[4];

	if (n < 6 || !hex4(s + 2, &c))
		return 0;
	if (c >= 0xdc00 && c <= 0xdfff)
		return 0;
	if (c >= 0xd800 && c <= 0xdbff) {
		if (n < 12 || s[6] != '\\' || s[7] != 'u' ||
		    !hex4(s + 8, &lo) || lo < 0xdc00 || lo > 0xdfff)
			return 0;
		c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
		buf_put(&sc->tmp, enc, utf8_encode(c, enc));
		return 12;
	}
	buf_put(&sc->tmp, enc, utf8_encode(c, enc));
	return 6;
}

/*
 * A string at pos: *text borrows the file's bytes when there is no
 * escape, else points at a decoded copy in the arena.
 */
static bool
string(struct scan *sc, const char **text, size_t *len)
{
	static const char plain[] = "\"\\/bfnrt";
	static const char value[] = "\"\\/\b\f\n\r\t";
	const char *s = sc->s, *p;
	size_t i, start, from, k;
	bool escaped = false;
	uint32_t cp;

	if (!eat(sc, '"'))
		return false;
	start = from = i = sc->pos;
	buf_reset(&sc->tmp);
	for (;;) {
		while (i < sc->n && (unsigned char)s[i] >= 0x20 &&
		    (unsigned char)s[i] < 0x80 && s[i] != '"' &&
		    s[i] != '\\')
			i++;
		if (i >= sc->n || (unsigned char)s[i] < 0x20)
			return false;
		if (s[i] == '"')
			break;
		if (s[i] != '\\') {
			if ((k = utf8_decode(s + i, sc->n - i, &cp)) == 0)
				return false;
			i += k;
			continue;
		}
		escaped = true;
		buf_put(&sc->tmp, s + from, i - from);
		if (i + 1 < sc->n && s[i + 1] != '\0' &&
		    (p = strchr(plain, s[i + 1])) != NULL) {
			buf_putc(&sc->tmp, value[p - plain]);
			k = 2;
		} else if (i + 1 >= sc->n || s[i + 1] != 'u' ||
		    (k = unicode(sc, s + i, sc->n - i)) == 0) {
			return false;
		}
		from = i += k;
	}
	sc->pos = i + 1;
	if (!escaped) {
		*text = s + start;
		*len = i - start;
		return true;
	}
	buf_put(&sc->tmp, s + from, i - from);
	*len = sc->tmp.len;
	*text = arena_strndup(&sc->run->arena, sc->tmp.data ? sc->tmp.data :
	    "", sc->tmp.len);
	return true;
}

/* {"role": ..., "content": ...[, "name": ...]} in any order, once each. */
static bool
element(struct scan *sc, const struct source *src, struct inputs *in)
{
	static const char *const keys[] = { "role", "content", "name" };
	const char *v[3] = { NULL, NULL, NULL }, *key;
	size_t vlen[3] = { 0, 0, 0 }, klen, k, start;
	enum role r;

	ws(sc);
	start = sc->pos;
	if (!eat(sc, '{'))
		return false;
	do {
		if (!string(sc, &key, &klen) || !eat(sc, ':'))
			return false;
		for (k = 0; k < 3; k++)
			if (strlen(keys[k]) == klen &&
			    memcmp(keys[k], key, klen) == 0)
				break;
		if (k == 3 || v[k] || !string(sc, &v[k], &vlen[k]))
			return false;
	} while (eat(sc, ','));
	/* count() sized the array; never trust it past its end. */
	if (!eat(sc, '}') || !v[0] || !v[1] || in->nhist == in->histroom)
		return false;
	for (r = ROLE_SYSTEM; r <= ROLE_ASSISTANT; r++)
		if (strlen(names_role(r)) == vlen[0] &&
		    memcmp(names_role(r), v[0], vlen[0]) == 0)
			break;
	if (r > ROLE_ASSISTANT)
		return false;
	keep(in, r, v[1], vlen[1], v[2] ? arena_strndup(&sc->run->arena,
	    v[2], vlen[2]) : NULL, src, span_make(start, sc->pos - start));
	return true;
}

/* Elements of a plain history: the '{' outside strings. */
static size_t
count(const char *s, size_t n)
{
	size_t i, k = 0;
	bool str = false;

	for (i = 0; i < n; i++) {
		if (str && s[i] == '\\')
			i++;
		else if (s[i] == '"')
			str = !str;
		else if (!str && s[i] == '{')
			k++;
	}
	return k;
}

static bool
fast(struct run *run, const struct source *src, struct inputs *in)
{
	struct scan sc = { run, src->text, src->len, 0, BUF_INIT };
	bool ok = false;

	sc.pos = utf8_bom(sc.s, sc.n);
	room(run, in, count(sc.s, sc.n));
	if (!eat(&sc, '['))
		goto out;
	if (!eat(&sc, ']')) {
		do {
			if (!element(&sc, src, in))
				goto out;
		} while (eat(&sc, ','));
		if (!eat(&sc, ']'))
			goto out;
	}
	ws(&sc);
	ok = sc.pos == sc.n;
out:
	buf_free(&sc.tmp);
	return ok;
}

bool
history_read(struct run *run, const char *path, struct inputs *in)
{
	struct source *src = run_read(run, path, NULL, span_make(0, 0));

	return src && history_parse(run, src, in);
}

bool
history_parse(struct run *run, struct source *src, struct inputs *in)
{
	in->histsrc = src;
	return fast(run, src, in) || slow(run, src, in);
}
