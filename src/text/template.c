#include "text/template.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/rng.h"
#include "diag/diag.h"
#include "data/json.h"
#include "diag/run.h"
#include "text/edit.h"
#include "text/macro_lex.h"
#include "text/macros.h"
#include "text/templates.h"
#include "data/tree.h"
#include "base/util.h"

/* A byte of a multi-byte UTF-8 character counts: names may be written
 * in any script ({{角色}}); template_name_ok() checks the letters. */
#define name_char mlex_name_char

/* ---- The block language. ---- */

enum { MAX_DEPTH = 32 };
/* The total expansion cap besides the cycle check (strata(1),
 * SECURITY): the bytes of every file included in one expansion, each
 * include counting TEMPLATE_INCLUDE_COST more. */
#define TEMPLATE_INCLUDE_MAX (16u << 20)
#define TEMPLATE_INCLUDE_COST 1024u

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
	TAG_MACRO,              /* {{name::args}} and the legacy forms */
};

/* A tag found at text[at]: its kind, end, and argument [a0, a1). */
struct tok {
	enum tag kind;
	size_t at, end, a0, a1;
	size_t b0, b1;          /* each: the item name */
	struct mlex_tok m;      /* what the lexer found */
	const struct macros_def *def;   /* a macro: its entry, or NULL
	                                 * (an unknown name) */
	bool nested;            /* a macro whose arguments hold tokens */
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
	struct mlex lx;         /* the lexer over in (its searches are
	                         * cached, so finding tags stays linear) */
	size_t lim;             /* the end of the text being expanded */
	/* {{pick}}'s seeds over in, counted once: the text's hash, and
	 * the UTF-16 offset u16 of byte u16_at, carried forward. */
	bool hashed;
	uint64_t hash;
	size_t u16_at, u16;
	size_t *included;       /* bytes included in the whole expansion,
	                         * shared with the nested contexts */
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

static size_t
blanks(const char *s, size_t i, size_t end)
{
	while (i < end && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

/* The end of s[from..end) without its trailing blanks. */
static size_t
blanks_back(const char *s, size_t from, size_t end)
{
	while (end > from && (s[end - 1] == ' ' || s[end - 1] == '\t'))
		end--;
	return end;
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

/* A macro with arguments at t (not a keyword): its registry entry; the
 * "::" form of an unknown name is a macro too (reported as unknown). */
static void
macro_tok(struct ctx *x, struct tok *t)
{
	const char *s = x->in->s;
	const struct mlex_tok *m = &t->m;
	size_t end;

	if (m->n0 == m->n1)
		return;
	t->def = macros_find(s + m->n0, m->n1 - m->n0);
	if (!t->def ? m->form != MLEX_COLONS : m->form == MLEX_OTHER &&
	    t->def->args != MACROS_UTC)
		return;
	t->kind = TAG_MACRO;
	t->a0 = m->form == MLEX_OTHER ? m->n1 : m->a0;
	t->a1 = m->in1;
	if (m->nested && (end = mlex_match(&x->lx, t->at)) &&
	    end <= x->lim) {
		/* Inner first: the arguments run to the matching "}}". */
		t->nested = true;
		t->end = end;
		t->a1 = blanks_back(s, t->a0, end - 2);
	}
}

/* The tag at text[i] (a '{' or a '\\'); TAG_NONE when there is none. */
static void
lex(struct ctx *x, size_t i, struct tok *t)
{
	const char *s = x->in->s;
	size_t c0, c1, e;

	memset(t, 0, sizeof(*t));
	t->at = i;
	if (s[i] == '\\') {
		if ((e = mlex_escape(s, x->lim, i))) {
			t->kind = TAG_ESCAPE;
			t->end = i + e;
		}
		return;
	}
	if (!mlex_at(&x->lx, i, &t->m) || t->m.end > x->lim)
		return;
	t->end = t->m.end;
	if (t->m.form == MLEX_COMMENT) {
		t->kind = TAG_COMMENT;
		return;
	}
	if (t->m.form == MLEX_BARE) {
		t->kind = TAG_NAME;
		t->a0 = t->m.n0;
		t->a1 = t->m.n1;
		/* A keyword alone is a tag of its own. */
		if (t->a1 - t->a0 == 4 && memcmp(s + t->a0, "else", 4) == 0)
			t->kind = TAG_ELSE;
		return;
	}
	c0 = t->m.in0;
	c1 = t->m.in1;
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
		return;
	}
	macro_tok(x, t);
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
	out->value = template_scalar_text(&x->run->arena, node, &out->len);
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
		s = template_scalar_text(&x->run->arena, t->node->u.array.items[i], &n);
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

/* ---- SillyTavern's state-free macros (text/macros.h). ---- */

/* The time of --now, or the clock's, read once. */
static int64_t
macro_now(struct ctx *x)
{
	struct tvars *v = x->v;

	if (!v->now_set) {
		v->now_set = true;
		if (!v->now) {
			v->now_ms = clock_now_ms();
		} else if (!clock_parse(v->now, &v->now_ms)) {
			/* Never the clock in place of a time asked for. */
			diag_plain(x->run, DIAG_ERROR, MSG_SESSION_BAD_TIME,
			    v->now);
			x->ok = false;
			v->now_ms = 0;
		}
	}
	return v->now_ms;
}

/* --seed when it is given: true and *seed set; a --seed that is not a
 * number is reported (once) and reads as 0. */
static bool
macro_seed(struct ctx *x, uint64_t *seed)
{
	struct tvars *v = x->v;

	*seed = 0;
	if (!v->seed)
		return false;
	if (macros_seed(v->seed, seed))
		return true;
	if (!v->seed_bad)
		diag_plain(x->run, DIAG_ERROR, MSG_TAVERN_SEED, v->seed);
	v->seed_bad = true;
	x->ok = false;
	return true;
}

/* The random state: from --seed as a tavern build seeds it, so the same
 * seed gives the same {{random}} and {{roll}} there and here. */
static uint64_t *
macro_rng(struct ctx *x)
{
	struct tvars *v = x->v;

	if (!v->rng_set) {
		uint64_t seed;

		v->rng = macro_seed(x, &seed) ? seed : (uint64_t)macro_now(x);
		v->rng = v->rng * 0x9e3779b97f4a7c15ULL + 1;
		v->rng_set = true;
	}
	return &v->rng;
}

/* A bare name that is a macro: {{newline}}, {{time_UTC-5}}.  Fills
 * t->def (and the arguments of time_UTC). */
static bool
bare_macro(struct ctx *x, struct tok *t)
{
	const char *s = x->in->s + t->a0;
	size_t n = t->a1 - t->a0;
	int h;

	if ((t->def = macros_find(s, n)))
		return true;
	if (n > 8 && strncasecmp(s, "time_UTC", 8) == 0 &&
	    macros_utc_offset(s + 8, n - 8, &h)) {
		t->def = macros_find("time_UTC", 8);
		t->a0 += 8;
		return true;
	}
	return false;
}

/* Is t {{trim}} (and no variable of that name)? */
static bool
is_trim(struct ctx *x, const struct tok *t)
{
	return t->a1 - t->a0 == 4 &&
	    strncasecmp(x->in->s + t->a0, "trim", 4) == 0 &&
	    !template_var_get(x->v, x->in->s + t->a0, 4);
}

/* The arguments of a nested macro, inner macros expanded first. */
static const char *
expand_args(struct ctx *x, const struct tok *t, size_t *len)
{
	struct buf b = BUF_INIT;
	struct out sub;
	size_t pos = t->a0, lim = x->lim;
	const char *r;

	memset(&sub, 0, sizeof(sub));
	sub.b = &b;
	x->lim = t->a1;
	body(x, &pos, &sub, NULL);
	x->lim = lim;
	*len = b.len;
	r = arena_strndup(&x->run->arena, b.data ? b.data : "", b.len);
	buf_free(&b);
	return r;
}

/*
 * The value of the state-free macro t->def with the arguments a[0..n)
 * in the form the lexer found; NULL with *why set when the arguments
 * do not fit it.
 */
static const char *
macro_value(struct ctx *x, const struct tok *t, const char *a, size_t n,
    const char **why)
{
	struct arena *ar = &x->run->arena;
	const struct macros_def *d = t->def;
	enum mlex_form form = t->kind == TAG_NAME ? MLEX_BARE : t->m.form;
	const char *r;
	char **items;
	size_t cnt;
	uint64_t seed;
	int h;

	switch (d->args) {
	case MACROS_NOARGS:
		if (form != MLEX_BARE) {
			/* {{time::UTC+2}}, the newer form of time_UTC */
			if (strcmp(d->name, "time") == 0 &&
			    form == MLEX_COLONS && n > 3 &&
			    strncasecmp(a, "UTC", 3) == 0 &&
			    macros_utc_offset(a + 3, n - 3, &h))
				return macros_time(ar, macro_now(x), h, "LT");
			*why = "takes no arguments";
			return NULL;
		}
		if (strcmp(d->name, "newline") == 0)
			return "\n";
		if ((r = macros_time_named(ar, macro_now(x), d->name,
		    strlen(d->name))))
			return r;
		return "";      /* noop, and trim where a variable hid it */
	case MACROS_ONE:
		if (form == MLEX_BARE) {
			*why = strcmp(d->name, "roll") == 0 ? "needs a dice "
			    "formula: {{roll 1d6}}, {{roll::3d6+4}}" :
			    arena_printf(ar, "needs an argument: {{%s::text}}",
			    d->name);
			return NULL;
		}
		if (strcmp(d->name, "roll") == 0) {
			if (!(r = macros_roll(ar, a, n, macro_rng(x))))
				*why = "is not a dice formula (1d6, 3d6+4, "
				    "d20 or 6)";
			return r;
		}
		if (strcmp(d->name, "reverse") == 0)
			return macros_reverse(ar, a, n);
		return macros_time(ar, macro_now(x), 0,
		    arena_strndup(ar, a, n));
	case MACROS_LIST:
		if (form == MLEX_BARE) {
			*why = arena_printf(ar, "needs a list: {{%s::a::b}} "
			    "or {{%s:a,b}}", d->name, d->name);
			return NULL;
		}
		cnt = macros_list(ar, a, n, &items);
		if (strcmp(d->name, "random") == 0)
			return items[(size_t)floor(macros_random(macro_rng(x)) *
			    (double)cnt)];
		macro_seed(x, &seed);
		if (!x->hashed) {
			x->hash = rng_cyrb53(x->in->s, x->in->len, 0);
			x->hashed = true;
		}
		/* Tags come left to right; a loop body goes back. */
		if (t->at < x->u16_at)
			x->u16_at = x->u16 = 0;
		x->u16 += utf16_length(x->in->s + x->u16_at, t->at - x->u16_at);
		x->u16_at = t->at;
		return items[macros_pick(ar, cnt, seed, x->hash, x->u16)];
	case MACROS_UTC:
		if (!macros_utc_offset(a, n, &h)) {
			*why = "needs an offset in hours: {{time_UTC+2}}";
			return NULL;
		}
		return macros_time(ar, macro_now(x), h, "LT");
	default:
		*why = "takes no arguments";
		return NULL;
	}
}

/* A macro (or a "{{name::...}}" of an unknown name) in strata's policy:
 * a value, or an error at its span. */
static void
do_macro(struct ctx *x, const struct tok *t, struct out *o)
{
	const char *s = x->in->s, *a = s + t->a0, *val, *why = NULL;
	size_t n = t->a1 - t->a0, n0 = t->m.n0, n1 = t->m.n1;
	/* What the messages quote: the name alone, or the whole inside. */
	const char *in = t->kind == TAG_NAME ? s + n0 : s + t->at + 2;
	int inside = t->kind == TAG_NAME ? (int)(n1 - n0) :
	    (int)(t->end - t->at - 4);

	if (!o)
		return;
	if (!t->def || t->def->need != MACROS_FREE) {
		if (x->v->keep_unknown) {
			out_lit(x, o, t->at, t->end);
			return;
		}
		if (!t->def)
			REPORT(x, t->at, t->end - t->at,
			    MSG_UNKNOWN_PLACEHOLDER, inside, in);
		else if (t->kind == TAG_NAME)
			REPORT(x, t->at, t->end - t->at,
			    MSG_MACRO_TAVERN_VAR, inside, in,
			    (int)(n1 - n0), s + n0);
		else
			REPORT(x, t->at, t->end - t->at,
			    MSG_MACRO_TAVERN_ONLY, inside, in);
		return;
	}
	if (t->nested) {
		bool ok = x->ok;

		x->ok = true;
		a = expand_args(x, t, &n);
		if (!x->ok)
			return;         /* reported inside */
		x->ok = ok;
	}
	if (!(val = macro_value(x, t, a, n, &why))) {
		REPORT(x, t->at, t->end - t->at, MSG_MACRO_ARGS, inside, in,
		    why);
		return;
	}
	out_put(x, o, val, strlen(val), t->at, t->end - t->at);
}

static void
do_name(struct ctx *x, const struct tok *t, struct out *o)
{
	struct tvar val, *var;
	const char *s;
	size_t n;

	if (!lookup(x, x->in->s + t->a0, t->a1 - t->a0, &val, &var)) {
		struct tok m = *t;

		/* Not a variable: a macro of the registry? */
		if (bare_macro(x, &m)) {
			do_macro(x, &m, o);
			return;
		}
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
	else if (found && val.node && val.node->kind == NODE_ARRAY)
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
	if (*x->included > TEMPLATE_INCLUDE_MAX) {
		REPORT(x, t->at, t->end - t->at, MSG_TEMPLATE_INCLUDE_TOTAL,
		    (size_t)TEMPLATE_INCLUDE_MAX);
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
	etext_of_source(x->run, src, &in);
	*x->included += in.len + TEMPLATE_INCLUDE_COST;
	me.path = path;
	me.up = x->incl;
	sub = *x;
	sub.in = &in;
	sub.incl = &me;
	sub.depth = x->depth + 1;
	sub.ok = true;
	mlex_init(&sub.lx, in.s, in.len, &x->run->arena);
	sub.lim = in.len;
	sub.hashed = false;
	sub.u16_at = sub.u16 = 0;
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
	size_t len = x->lim, i = *pos, last = *pos;
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
		if (t.kind == TAG_NAME && is_trim(x, &t)) {
			/* {{trim}}: itself and the line ends around it */
			size_t b = i, e = t.end;

			while (b > last && s[b - 1] == '\n') {
				b--;
				if (b > last && s[b - 1] == '\r')
					b--;
			}
			while (e < len && (s[e] == '\n' || (s[e] == '\r' &&
			    e + 1 < len && s[e + 1] == '\n')))
				e += s[e] == '\r' ? 2 : 1;
			out_lit(x, o, last, b);
			out_put(x, o, "", 0, b, e - b);
			i = last = *pos = e;
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
		case TAG_MACRO:
			do_macro(x, &t, o);
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
	size_t included = 0;

	memset(&x, 0, sizeof(x));
	x.included = &included;
	x.run = run;
	x.v = v;
	x.in = in;
	x.ok = true;
	mlex_init(&x.lx, in->s, in->len, &run->arena);
	x.lim = in->len;
	return expand_ctx(&x, out);
}
