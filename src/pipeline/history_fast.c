/*
 * The fast scanner of a plain history (history.c says when it serves):
 * messages straight from the file's bytes (history_int.h).
 */
#include "pipeline/history_int.h"


#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/base64.h"
#include "base/map.h"
#include "base/path.h"
#include "base/util.h"
#include "base/vec.h"
#include "data/json.h"
#include "data/load.h"
#include "data/tree.h"
#include "diag/run.h"

/* The fast scanner's state; any surprise makes it return false. */
struct scan {
	struct run *run;
	const char *s;
	size_t n, pos;
	struct buf tmp;         /* a decoded string with escapes */
	/* The messages, on the heap until the end, with history_room()'s
	 * free slots: two before in->hist, one after (room counts the
	 * others).  Doubled as needed, so the file is read once. */
	struct message *v;
	size_t room;
};

/* One element, checked: a message, or text for the system prompt. */
static void
keep(struct scan *sc, struct inputs *in, enum role r, const char *text,
    size_t len, const char *name, const struct source *src,
    struct span span)
{
	struct message *m;

	if (r == ROLE_SYSTEM || r == ROLE_DEVELOPER) {
		struct buf *b = r == ROLE_SYSTEM ? &in->base : &in->devbase;
		size_t n = entry_trim(&text, len);

		if (!n)
			return;
		if (!b->len)
			*(r == ROLE_SYSTEM ? &in->basespan : &in->devspan) =
			    span;
		if (b->len)
			buf_puts(b, "\n\n");
		buf_put(b, text, n);
		return;
	}
	if (in->nhist == sc->room) {
		sc->room = sc->room < 1024 ? 1024 : sc->room * 2;
		sc->v = xreallocarray(sc->v, sc->room + 3, sizeof(*sc->v));
	}
	m = &sc->v[2 + in->nhist++];
	memset(m, 0, sizeof(*m));
	m->role = r;
	m->origin = "history";
	m->content = text;
	m->len = len;
	m->name = name;
	m->has_src = true;
	m->src = src->id;
	m->span = span;
}

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
		i += json_plain_span(s + i, sc->n - i);
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

/*
 * A message name as OpenAI takes it: not empty, and no white space or
 * any of < | \ / > (its pattern ^[^\s<|\\/>]+$); CJK is fine.  The
 * other formats have no name, so the one rule serves them all.  What
 * is wrong, or NULL.
 */
static const char *
bad_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0)
		return "it is empty";
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= ' ' || c == 0x7f)
			return "it holds white space or a control character";
		if (strchr("<|\\/>", c))
			return "it holds one of < | \\ / >";
		/* U+00A0, U+3000 and the U+2000 spaces. */
		if ((c == 0xc2 && i + 1 < len && (unsigned char)s[i + 1] ==
		    0xa0) || (c == 0xe3 && i + 2 < len && (unsigned char)
		    s[i + 1] == 0x80 && (unsigned char)s[i + 2] == 0x80) ||
		    (c == 0xe2 && i + 2 < len && (unsigned char)s[i + 1] ==
		    0x80 && (unsigned char)s[i + 2] <= 0x8a))
			return "it holds white space or a control character";
	}
	return NULL;
}

/* {"role": ..., "content": ...[, "name": ...]} in any order, once each. */
static bool
element(struct scan *sc, const struct source *src, struct inputs *in)
{
	static const char *const keys[] = { "role", "content", "name" };
	static const size_t keylen[] = { 4, 7, 4 };
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
			if (keylen[k] == klen &&
			    memcmp(keys[k], key, klen) == 0)
				break;
		if (k == 3 || v[k] || !string(sc, &v[k], &vlen[k]))
			return false;
	} while (eat(sc, ','));
	if (!eat(sc, '}') || !v[0] || !v[1])
		return false;
	/* The first byte first (v[0] points into the text, a byte at
	 * least): the roles begin with different letters. */
	for (r = ROLE_SYSTEM; r <= ROLE_ASSISTANT; r++)
		if (names_role(r)[0] == v[0][0] &&
		    strlen(names_role(r)) == vlen[0] &&
		    memcmp(names_role(r), v[0], vlen[0]) == 0)
			break;
	/* A bad name is the general reader's to report. */
	if (r > ROLE_ASSISTANT || (v[2] && bad_name(v[2], vlen[2])))
		return false;
	keep(sc, in, r, v[1], vlen[1], v[2] ? arena_strndup(&sc->run->arena,
	    v[2], vlen[2]) : NULL, src, span_make(start, sc->pos - start));
	return true;
}

bool
history_fast(struct run *run, const struct source *src, struct inputs *in)
{
	struct scan sc = { run, src->text, src->len, 0, BUF_INIT, NULL, 0 };
	bool ok = false;

	history_room(run, in, 0);
	sc.pos = utf8_bom(sc.s, sc.n);
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
	if (!ok || !sc.v) {
		free(sc.v);
		return ok;
	}
	memset(sc.v, 0, 2 * sizeof(*sc.v));
	memset(sc.v + 2 + in->nhist, 0, sizeof(*sc.v));
	in->hist = (struct message *)arena_adopt(&run->arena, sc.v) + 2;
	in->histroom = sc.room;
	return true;
}
