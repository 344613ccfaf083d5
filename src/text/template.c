#include "text/template.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "diag/diag.h"
#include "data/json.h"
#include "diag/run.h"
#include "text/edit.h"
#include "text/templates.h"
#include "data/tree.h"
#include "base/util.h"

void
template_vars_init(struct run *run, struct tvars *v)
{
	map_init(&v->names, &run->arena);
	v->keep_unknown = false;
	v->dir = NULL;
}

struct tvar *
template_var_get(const struct tvars *v, const char *name, size_t len)
{
	return map_get(&v->names, name, len);
}

void
template_var(struct run *run, struct tvars *v, const char *name,
    const char *value, size_t len, const struct source *src,
    struct span span)
{
	struct map_item *it = map_intern(&v->names, name, strlen(name), NULL);
	struct tvar *t = it->value;

	if (!t)
		t = it->value = arena_alloc(&run->arena, sizeof(*t));
	t->name = name;
	t->value = value;
	t->len = len;
	t->node = NULL;
	t->src = src;
	t->span = span;
	t->used = false;
}

void
template_vars_from(struct run *run, struct tvars *v, const struct node *t)
{
	struct arena *a = &run->arena;
	size_t i;

	if (!t || t->kind != NODE_TABLE)
		return;
	for (i = 0; i < t->u.table.n; i++) {
		const struct member *m = &t->u.table.items[i];
		const struct node *x = m->value;
		const char *s = NULL;
		size_t len;

		switch (x->kind) {
		case NODE_STRING:
			s = x->u.str.s;
			break;
		case NODE_INT:
			s = arena_printf(a, "%" PRId64, x->u.i);
			break;
		case NODE_FLOAT: {
			/* The shortest text that reads back the same. */
			struct buf b = BUF_INIT;

			if (isnan(x->u.f)) {
				s = "nan";
				break;
			}
			if (isinf(x->u.f)) {
				s = x->u.f < 0 ? "-inf" : "inf";
				break;
			}
			json_write(&b, x, -1);
			s = arena_strndup(a, b.data, b.len);
			buf_free(&b);
			break;
		}
		case NODE_BOOL:
			s = x->u.b ? "true" : "false";
			break;
		case NODE_DATETIME:
			/* As written in the profile. */
			s = arena_strndup(a, run_source(run, x->src)->text +
			    x->span.off, x->span.len);
			break;
		default:
			continue;       /* the profile check reported it */
		}
		len = x->kind == NODE_STRING ? x->u.str.len : strlen(s);
		template_var(run, v, m->key, s, len, run_source(run,
		    m->keysrc), m->keyspan);
	}
}

/* The text of a scalar node, in the arena. */
static const char *
scalar_text(struct arena *a, const struct node *x, size_t *len)
{
	const char *s;

	switch (x->kind) {
	case NODE_STRING:
		*len = x->u.str.len;
		return x->u.str.s;
	case NODE_INT:
		s = arena_printf(a, "%" PRId64, x->u.i);
		break;
	case NODE_BOOL:
		s = x->u.b ? "true" : "false";
		break;
	case NODE_FLOAT: {
		struct buf b = BUF_INIT;

		json_write(&b, x, -1);
		s = arena_strndup(a, b.data, b.len);
		buf_free(&b);
		break;
	}
	default:
		s = "";
		break;
	}
	*len = strlen(s);
	return s;
}

void
template_var_node(struct run *run, struct tvars *v, const char *name,
    const struct node *value, const struct source *src, struct span span)
{
	struct tvar *t;
	size_t len;
	const char *s = scalar_text(&run->arena, value, &len);

	template_var(run, v, name, s, len, src, span);
	t = template_var_get(v, name, strlen(name));
	if (value->kind == NODE_ARRAY || value->kind == NODE_TABLE)
		t->node = value;
}

static bool
falsy_text(const char *s, size_t n)
{
	static const char *const no[] = { "", "false", "0", "off", "no" };
	size_t i;

	for (i = 0; i < LEN(no); i++)
		if (strlen(no[i]) == n && memcmp(no[i], s, n) == 0)
			return true;
	return false;
}

bool
template_truthy(const struct tvar *t)
{
	if (t->node && t->node->kind == NODE_ARRAY)
		return t->node->u.array.n > 0;
	if (t->node && t->node->kind == NODE_TABLE)
		return t->node->u.table.n > 0;
	return !falsy_text(t->value, t->len);
}

static bool
name_char(char c, bool first)
{
	/* A byte of a multi-byte UTF-8 character: names may be written in
	 * any script ({{角色}}); template_name_ok() checks the letters. */
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
	    (unsigned char)c >= 0x80 ||
	    (!first && ((c >= '0' && c <= '9') || c == '.' || c == '-'));
}

/* Characters that are not letters though UTF-8 spells them with high
 * bytes: spaces, general and CJK punctuation, full-width symbols. */
static bool
not_a_letter(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0xbf) || cp == 0xd7 || cp == 0xf7 ||
	    (cp >= 0x2000 && cp <= 0x206f) || (cp >= 0x3000 && cp <= 0x303f) ||
	    (cp >= 0xff00 && cp <= 0xff0f) || (cp >= 0xff1a && cp <= 0xff20) ||
	    (cp >= 0xff3b && cp <= 0xff40) || (cp >= 0xff5b && cp <= 0xff65) ||
	    cp == 0xfeff;
}

bool
template_name_ok(const char *s, size_t len)
{
	size_t i = 0, k;
	uint32_t cp;

	if (len == 0)
		return false;
	while (i < len) {
		if ((unsigned char)s[i] < 0x80) {
			if (!name_char(s[i], i == 0))
				return false;
			i++;
			continue;
		}
		k = utf8_decode(s + i, len - i, &cp);
		if (k == 0 || not_a_letter(cp))
			return false;
		i += k;
	}
	return true;
}

/*
 * The placeholder at text[i] ("{{", blanks, a name, blanks, "}}"): its
 * end, and the name in [*ns, *ne).  0 when there is none.
 */
static size_t
placeholder(const char *text, size_t len, size_t i, size_t *ns, size_t *ne)
{
	size_t e;

	if (text[i] != '{' || i + 1 >= len || text[i + 1] != '{')
		return 0;
	*ns = i + 2;
	while (*ns < len && (text[*ns] == ' ' || text[*ns] == '\t'))
		(*ns)++;
	*ne = *ns;
	while (*ne < len && name_char(text[*ne], *ne == *ns))
		(*ne)++;
	e = *ne;
	while (e < len && (text[e] == ' ' || text[e] == '\t'))
		e++;
	if (*ne == *ns || e + 1 >= len || text[e] != '}' || text[e + 1] != '}')
		return 0;
	return e + 2;
}

/* ---- The block language. ---- */

enum { MAX_DEPTH = 32 };

enum tag {
	TAG_NONE,               /* not a tag: literal text */
	TAG_NAME,               /* {{name}} */
	TAG_COMMENT,
	TAG_IF,
	TAG_ELSE,
	TAG_END_IF,
	TAG_EACH,
	TAG_END_EACH,
	TAG_INCLUDE,
	TAG_ESCAPE,             /* \{\{ or \}\} */
};

/* A tag found at text[at]: its kind, end, and argument [a0, a1). */
struct tok {
	enum tag kind;
	size_t at, end, a0, a1;
	size_t b0, b1;          /* each: the item name */
};

/* A binding of {{each}}: innermost last. */
struct bind {
	const char *name;
	size_t len;
	const struct node *value;
};

/* An include being expanded, for cycles. */
struct incl {
	const char *path;
	const struct incl *up;
};

struct ctx {
	struct run *run;
	struct tvars *v;
	const struct etext *in;
	const struct incl *incl;
	struct bind binds[MAX_DEPTH];
	size_t nbinds;
	unsigned depth;
	bool ok;
	/* The first "}}" at or after any position in [cfrom, cat] is at cat
	 * (cat == in->len: none), so finding tags stays linear. */
	bool cached;
	size_t cfrom, cat;
};

/* The output: the top level edits in (keeping origins) and begins the
 * edit at the first tag; a repeated or included body goes to a buffer. */
struct out {
	struct edit ed;
	bool begun;
	size_t lit;             /* not begun: in[0..lit) is the text so far */
	struct buf *b;
};

static void
begin(struct ctx *x, struct out *o)
{
	if (o->b || o->begun)
		return;
	edit_begin(&o->ed, x->run, x->in);
	edit_copy(&o->ed, 0, o->lit);
	o->begun = true;
}

static void
out_lit(struct ctx *x, struct out *o, size_t from, size_t to)
{
	if (!o || from == to)
		return;
	if (o->b)
		buf_put(o->b, x->in->s + from, to - from);
	else if (!o->begun && from == o->lit)
		o->lit = to;
	else {
		begin(x, o);
		edit_copy(&o->ed, from, to);
	}
}

static void
out_put(struct ctx *x, struct out *o, const char *s, size_t len,
    size_t at, size_t n)
{
	if (!o)
		return;
	if (o->b) {
		buf_put(o->b, s, len);
		return;
	}
	begin(x, o);
	edit_insert(&o->ed, s, len, at, n);
}

/* An error at text [at, at + n) of the input, wherever that came from. */
#define REPORT(x, at, n, ...) do { \
	uint32_t src_; \
	struct span sp_; \
	if (etext_locate((x)->in, (at), (n), &src_, &sp_)) \
		diag_error((x)->run, run_source((x)->run, src_), sp_, \
		    __VA_ARGS__); \
	else \
		diag_plain((x)->run, DIAG_ERROR, __VA_ARGS__); \
	(x)->ok = false; \
} while (0)

/* The first s[i] that is '{' or '\\', or NULL. */
static const char *
find_open(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '{' || s[i] == '\\')
			return s + i;
	return NULL;
}

/* "}}" in s[0..n), or NULL. */
static const char *
find_close(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i++)
		if (s[i] == '}' && s[i + 1] == '}')
			return s + i;
	return NULL;
}

static size_t
blanks(const char *s, size_t i, size_t end)
{
	while (i < end && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

static bool
word(const char *s, size_t i, size_t end, const char *w)
{
	size_t n = strlen(w);

	return i + n <= end && memcmp(s + i, w, n) == 0 &&
	    (i + n == end || s[i + n] == ' ' || s[i + n] == '\t' ||
	    s[i + n] == ':' || s[i + n] == '}');
}

/* A name at s[i..end): its end, or i when there is none. */
static size_t
name_end(const char *s, size_t i, size_t end)
{
	size_t e = i;

	while (e < end && name_char(s[e], e == i))
		e++;
	return e;
}

/* The first "}}" at or after s[from], or NULL. */
static const char *
close_after(struct ctx *x, size_t from)
{
	const char *s = x->in->s, *c;
	size_t len = x->in->len;

	if (x->cached && from >= x->cfrom && from <= x->cat)
		return x->cat < len ? s + x->cat : NULL;
	c = from < len ? find_close(s + from, len - from) : NULL;
	x->cached = true;
	x->cfrom = from;
	x->cat = c ? (size_t)(c - s) : len;
	return c;
}

/* The tag at text[i] (a '{' or a '\\'); TAG_NONE when there is none. */
static void
lex(struct ctx *x, size_t i, struct tok *t)
{
	const char *s = x->in->s;
	size_t len = x->in->len;
	const char *close;
	size_t c0, c1, e;

	memset(t, 0, sizeof(*t));
	t->at = i;
	if (s[i] == '\\') {
		if (i + 3 < len && ((s[i + 1] == '{' && s[i + 2] == '\\' &&
		    s[i + 3] == '{') || (s[i + 1] == '}' && s[i + 2] == '\\' &&
		    s[i + 3] == '}'))) {
			t->kind = TAG_ESCAPE;
			t->end = i + 4;
		}
		return;
	}
	if ((t->end = placeholder(s, len, i, &t->a0, &t->a1))) {
		t->kind = TAG_NAME;
		/* A keyword alone is a tag of its own. */
		if (t->a1 - t->a0 == 4 && memcmp(s + t->a0, "else", 4) == 0)
			t->kind = TAG_ELSE;
		return;
	}
	if (i + 1 >= len || s[i + 1] != '{')
		return;
	c0 = blanks(s, i + 2, len);
	if (c0 + 1 < len && s[c0] == '/' && s[c0 + 1] == '/') {
		close = close_after(x, c0 + 2);
		if (close) {
			t->kind = TAG_COMMENT;
			t->end = (size_t)(close - s) + 2;
		}
		return;
	}
	close = close_after(x, c0);
	if (!close)
		return;
	c1 = (size_t)(close - s);
	t->end = c1 + 2;
	while (c1 > c0 && (s[c1 - 1] == ' ' || s[c1 - 1] == '\t'))
		c1--;
	if (s[c0] == '/') {
		if (c1 - c0 == 3 && memcmp(s + c0, "/if", 3) == 0)
			t->kind = TAG_END_IF;
		else if (c1 - c0 == 5 && memcmp(s + c0, "/each", 5) == 0)
			t->kind = TAG_END_EACH;
		return;
	}
	if (word(s, c0, c1, "if")) {
		t->a0 = blanks(s, c0 + 2, c1);
		t->a1 = c1;
		e = t->a0 < c1 && s[t->a0] == '!' ? blanks(s, t->a0 + 1, c1) :
		    t->a0;
		if (e < c1 && name_end(s, e, c1) == c1)
			t->kind = TAG_IF;
		return;
	}
	if (word(s, c0, c1, "each")) {
		t->a0 = blanks(s, c0 + 4, c1);
		t->a1 = name_end(s, t->a0, c1);
		e = blanks(s, t->a1, c1);
		if (t->a1 > t->a0 && word(s, e, c1, "as")) {
			t->b0 = blanks(s, e + 2, c1);
			t->b1 = name_end(s, t->b0, c1);
			if (t->b1 > t->b0 && t->b1 == c1 &&
			    !memchr(s + t->b0, '.', t->b1 - t->b0))
				t->kind = TAG_EACH;
		}
		return;
	}
	if (c1 - c0 > 9 && memcmp(s + c0, "include::", 9) == 0) {
		t->kind = TAG_INCLUDE;
		t->a0 = blanks(s, c0 + 9, c1);
		t->a1 = c1;
	}
}

/* A value by name: an {{each}} binding, then a variable; a dotted name
 * walks into an object.  *var gets the variable when it is one. */
static bool
lookup(struct ctx *x, const char *s, size_t n, struct tvar *out,
    struct tvar **var)
{
	const struct node *node = NULL;
	size_t base = n, i, k;
	struct tvar *t;

	*var = NULL;
	for (i = 0; i < n; i++)
		if (s[i] == '.') {
			base = i;
			break;
		}
	/* An {{each}} item wins over a variable of its name. */
	for (i = x->nbinds; i-- > 0;)
		if (x->binds[i].len == base &&
		    memcmp(x->binds[i].name, s, base) == 0) {
			node = x->binds[i].value;
			break;
		}
	if (!node && (t = template_var_get(x->v, s, n))) {
		*var = t;
		*out = *t;
		return true;
	}
	if (!node) {
		if (base == n || !(t = template_var_get(x->v, s, base)) ||
		    !t->node)
			return false;
		*var = t;
		node = t->node;
	}
	while (base < n) {
		k = base + 1;
		for (i = k; i < n && s[i] != '.'; i++)
			;
		if (node->kind != NODE_TABLE ||
		    !(node = tree_getn(node, s + k, i - k)))
			return false;
		base = i;
	}
	memset(out, 0, sizeof(*out));
	out->value = scalar_text(&x->run->arena, node, &out->len);
	if (node->kind == NODE_ARRAY || node->kind == NODE_TABLE)
		out->node = node;
	return true;
}

/* A value's text: a list is its items' texts joined by ", ". */
static const char *
value_text(struct ctx *x, const struct tvar *t, size_t *len)
{
	struct buf b = BUF_INIT;
	const char *s;
	size_t i, n;

	if (!t->node || t->node->kind != NODE_ARRAY) {
		*len = t->len;
		return t->value;
	}
	for (i = 0; i < t->node->u.array.n; i++) {
		s = scalar_text(&x->run->arena, t->node->u.array.items[i], &n);
		if (i)
			buf_puts(&b, ", ");
		buf_put(&b, s, n);
	}
	*len = b.len;
	s = arena_strndup(&x->run->arena, b.data ? b.data : "", b.len);
	buf_free(&b);
	return s;
}

static enum tag body(struct ctx *x, size_t *pos, struct out *o,
    const struct tok *opener);
static bool expand_ctx(struct ctx *x, struct etext *res);

static void
unknown(struct ctx *x, const struct tok *t, size_t n0, size_t n1)
{
	uint32_t src;
	struct span sp;

	x->ok = false;
	if (etext_locate(x->in, t->at, t->end - t->at, &src, &sp))
		diag_error(x->run, run_source(x->run, src), sp,
		    MSG_UNKNOWN_PLACEHOLDER, (int)(n1 - n0), x->in->s + n0);
	else
		diag_plain(x->run, DIAG_ERROR, MSG_UNKNOWN_PLACEHOLDER,
		    (int)(n1 - n0), x->in->s + n0);
}

static void
do_name(struct ctx *x, const struct tok *t, struct out *o)
{
	struct tvar val, *var;
	const char *s;
	size_t n;

	if (!lookup(x, x->in->s + t->a0, t->a1 - t->a0, &val, &var)) {
		if (x->v->keep_unknown)
			out_lit(x, o, t->at, t->end);
		else if (o)
			unknown(x, t, t->a0, t->a1);
		return;
	}
	if (var && o)
		var->used = true;
	s = value_text(x, &val, &n);
	out_put(x, o, s, n, t->at, t->end - t->at);
}

static void
do_if(struct ctx *x, const struct tok *t, size_t *pos, struct out *o)
{
	const char *s = x->in->s;
	size_t a = t->a0;
	bool neg = false, yes = false;
	struct tvar val, *var;
	enum tag end;

	if (s[a] == '!') {
		neg = true;
		a = blanks(s, a + 1, t->a1);
	}
	if (lookup(x, s + a, t->a1 - a, &val, &var)) {
		if (var && o)
			var->used = true;
		yes = template_truthy(&val) != neg;
	} else if (o && !x->v->keep_unknown) {
		unknown(x, t, a, t->a1);
	}
	out_put(x, o, "", 0, t->at, t->end - t->at);
	end = body(x, pos, yes ? o : NULL, t);
	if (end == TAG_ELSE)
		end = body(x, pos, yes ? NULL : o, t);
	if (end == TAG_ELSE)
		REPORT(x, *pos, 0, MSG_TEMPLATE_STRAY, "else");
}

static void
do_each(struct ctx *x, const struct tok *t, size_t *pos, struct out *o)
{
	const char *s = x->in->s;
	struct tvar val, *var;
	struct buf b = BUF_INIT;
	struct out sub;
	size_t start = *pos, i, n = 0;
	bool found;

	found = lookup(x, s + t->a0, t->a1 - t->a0, &val, &var);
	if (!found && o && !x->v->keep_unknown)
		unknown(x, t, t->a0, t->a1);
	else if (found && o && (!val.node || val.node->kind != NODE_ARRAY))
		REPORT(x, t->a0, t->a1 - t->a0, MSG_TEMPLATE_NOT_LIST,
		    (int)(t->a1 - t->a0), s + t->a0);
	else if (found && val.node)
		n = val.node->u.array.n;
	if (var && o)
		var->used = true;
	if (!o || n == 0 || x->nbinds == MAX_DEPTH) {
		body(x, pos, NULL, t);
		out_put(x, o, "", 0, t->at, *pos - t->at);
		return;
	}
	memset(&sub, 0, sizeof(sub));
	sub.b = &b;
	for (i = 0; i < n && x->ok; i++) {
		x->binds[x->nbinds].name = s + t->b0;
		x->binds[x->nbinds].len = t->b1 - t->b0;
		x->binds[x->nbinds].value = val.node->u.array.items[i];
		x->nbinds++;
		*pos = start;
		body(x, pos, &sub, t);
		x->nbinds--;
	}
	/* The repeated text stands for the whole block. */
	out_put(x, o, b.data ? b.data : "", b.len, t->at, *pos - t->at);
	buf_free(&b);
}

static void
do_include(struct ctx *x, const struct tok *t, struct out *o)
{
	const char *path = arena_strndup(&x->run->arena, x->in->s + t->a0,
	    t->a1 - t->a0);
	const struct incl *up;
	struct incl me;
	struct source *src;
	struct etext in, res;
	struct seg *g;
	struct ctx sub;
	uint32_t sid;
	struct span sp;

	if (!o)
		return;
	if (!templates_safe_name(path)) {
		REPORT(x, t->a0, t->a1 - t->a0, MSG_TEMPLATE_INCLUDE_PATH,
		    path);
		return;
	}
	for (up = x->incl; up; up = up->up)
		if (strcmp(up->path, path) == 0) {
			REPORT(x, t->at, t->end - t->at,
			    MSG_TEMPLATE_INCLUDE_CYCLE, path);
			return;
		}
	if (x->depth >= MAX_DEPTH) {
		REPORT(x, t->at, t->end - t->at, MSG_TEMPLATE_DEPTH,
		    MAX_DEPTH);
		return;
	}
	if (!etext_locate(x->in, t->a0, t->a1 - t->a0, &sid, &sp))
		src = templates_open(x->run, x->v->dir, path, NULL, sp);
	else
		src = templates_open(x->run, x->v->dir, path,
		    run_source(x->run, sid), sp);
	if (!src) {
		x->ok = false;
		return;
	}
	g = arena_alloc(&x->run->arena, sizeof(*g));
	g->at = 0;
	g->src = src->id;
	g->span = span_make(0, src->len);
	g->exact = true;
	in.s = src->text;
	in.len = src->len;
	in.segs = g;
	in.nsegs = 1;
	me.path = path;
	me.up = x->incl;
	sub = *x;
	sub.in = &in;
	sub.incl = &me;
	sub.depth = x->depth + 1;
	sub.ok = true;
	sub.cached = false;
	if (!expand_ctx(&sub, &res))
		x->ok = false;
	/* A partial's last line end is the file's, not the text's. */
	if (res.len && res.s[res.len - 1] == '\n')
		res.len--;
	out_put(x, o, res.s, res.len, t->at, t->end - t->at);
}

/*
 * Text from *pos up to the tag that closes opener (or the end at the
 * top), into o (NULL: skipped, but still parsed).  Returns the closer
 * found: TAG_ELSE, TAG_END_IF, TAG_END_EACH, or TAG_NONE at the end.
 */
static enum tag
body(struct ctx *x, size_t *pos, struct out *o, const struct tok *opener)
{
	const char *s = x->in->s;
	size_t len = x->in->len, i = *pos, last = *pos;
	struct tok t;

	if (++x->depth > MAX_DEPTH + 1) {
		REPORT(x, i, 0, MSG_TEMPLATE_DEPTH, MAX_DEPTH);
		x->depth--;
		*pos = len;
		return TAG_NONE;
	}
	while (i < len) {
		const char *c = find_open(s + i, len - i);

		if (!c)
			break;
		i = (size_t)(c - s);
		lex(x, i, &t);
		if (t.kind == TAG_NONE) {
			i++;
			continue;
		}
		out_lit(x, o, last, i);
		*pos = t.end;
		switch (t.kind) {
		case TAG_ELSE:
		case TAG_END_IF:
		case TAG_END_EACH:
			if (opener && ((t.kind == TAG_END_EACH) ==
			    (opener->kind == TAG_EACH)) &&
			    !(t.kind == TAG_ELSE && opener->kind == TAG_EACH)) {
				out_put(x, o, "", 0, t.at, t.end - t.at);
				x->depth--;
				return t.kind;
			}
			REPORT(x, t.at, t.end - t.at, MSG_TEMPLATE_STRAY,
			    t.kind == TAG_ELSE ? "else" : t.kind == TAG_END_IF ?
			    "/if" : "/each");
			break;
		case TAG_NAME:
			do_name(x, &t, o);
			break;
		case TAG_COMMENT:
			out_put(x, o, "", 0, t.at, t.end - t.at);
			break;
		case TAG_ESCAPE:
			out_put(x, o, s[t.at + 1] == '{' ? "{{" : "}}", 2, t.at,
			    4);
			break;
		case TAG_IF:
			do_if(x, &t, pos, o);
			break;
		case TAG_EACH:
			do_each(x, &t, pos, o);
			break;
		case TAG_INCLUDE:
			do_include(x, &t, o);
			break;
		case TAG_NONE:
			break;
		}
		i = last = *pos;
	}
	out_lit(x, o, last, len);
	*pos = len;
	if (opener)
		REPORT(x, opener->at, opener->end - opener->at,
		    MSG_TEMPLATE_UNCLOSED, (int)(opener->end - opener->at),
		    s + opener->at, opener->kind == TAG_EACH ? "/each" : "/if");
	x->depth--;
	return TAG_NONE;
}

static bool
expand_ctx(struct ctx *x, struct etext *res)
{
	struct out o;
	size_t pos = 0;

	memset(&o, 0, sizeof(o));
	body(x, &pos, &o, NULL);
	if (!o.begun) {
		*res = *x->in;
		return x->ok;
	}
	edit_end(&o.ed, res);
	return x->ok;
}

bool
template_expand(struct run *run, struct tvars *v, const struct etext *in,
    struct etext *out)
{
	struct ctx x;

	memset(&x, 0, sizeof(x));
	x.run = run;
	x.v = v;
	x.in = in;
	x.ok = true;
	return expand_ctx(&x, out);
}
