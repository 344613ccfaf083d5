/*
 * The YAML reader is driven by libyaml's event API: each event is turned
 * into tree nodes at once and freed, and an explicit stack of the open
 * collections replaces recursion, so nesting costs heap (capped at
 * MAX_DEPTH), never C stack.
 *
 * Scalars follow the YAML 1.2 core schema, not libyaml's YAML 1.1 habits:
 * "yes", "on" and "0b1" stay strings, and "0777" is decimal 777.  Merge
 * keys ("<<") are not supported: "<<" is an ordinary key, so a document
 * that relies on them gets a key named "<<" and later stages say it is
 * unknown.
 */
#include "data/yamltree.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "base/arena.h"
#include "base/buf.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "diag/source.h"
#include "data/tree.h"
#include "base/util.h"

/* Deeper documents are refused; a profile is a handful of levels deep. */
#define MAX_DEPTH 1000
/* Semantic errors reported before the reader gives up on a source. */
#define MAX_ERRORS 20
/* Aliases may copy at most max(ALIAS_FLOOR, ALIAS_FACTOR x events)
 * nodes: plenty for real reuse, and a "billion laughs" document stops
 * after a few thousand copies instead of exhausting memory. */
#define ALIAS_FLOOR 100000
#define ALIAS_FACTOR 10
/*
 * The nodes are not the whole cost: one alias of a long string copies
 * all its bytes, and the template and emit stages copy them again into
 * the output, so a 4 KB document could print hundreds of megabytes.  The
 * text (scalars and keys) that aliases copy is capped at ALIAS_BYTES_FLOOR
 * plus ALIAS_BYTES_FACTOR times the size of the source: generous for a
 * profile that reuses a long persona a few times, linear in the input
 * whatever the document does.  Sharing the aliased nodes would save the
 * tree's memory but not the output's, so the copies stay and are counted.
 * Documented in strata-profile(5).
 */
#define ALIAS_BYTES_FLOOR ((size_t)4 << 20)
#define ALIAS_BYTES_FACTOR 16
/* How much of a key or value a message quotes, in code points. */

#define CORE_TAG "tag:yaml.org,2002:"

/* frame.pending when the table waits for a key, or for the value of a
 * duplicate key that is read and dropped. */
#define AWAIT_KEY (-1L)
#define SKIP_VALUE (-2L)

enum tag {
	TAG_NONE,               /* no tag: resolve by the core schema */
	TAG_BANG,               /* "!": the non-specific tag, a string */
	TAG_STR,
	TAG_INT,
	TAG_FLOAT,
	TAG_BOOL,
	TAG_NULL,
	TAG_MAP,
	TAG_SEQ,
	TAG_UNKNOWN,
};

/* What a scalar's text is under the core schema. */
enum form {
	FORM_STRING,
	FORM_NULL,
	FORM_BOOL,
	FORM_INT,
	FORM_INT_RANGE,         /* integer syntax, beyond 64 bits */
	FORM_FLOAT,
	FORM_FLOAT_RANGE,       /* float syntax, beyond double */
};

struct value {
	int64_t i;
	double f;
	bool b;
};

struct anchor {
	struct node *node;      /* NULL while the anchored collection is open */
	const char *text;       /* a scalar's own text, for use as a key */
	size_t textlen;
	size_t count;           /* nodes in the subtree, copies included */
	size_t bytes;           /* text (scalars, keys) in it, likewise */
	size_t height;          /* collection levels in it; 0 for a scalar */
	bool scalar;
};

struct frame {
	struct node *node;      /* the table or array being filled */
	bool flow;
	long anchor;            /* index in builder.anchors, or -1 */
	size_t count, height, bytes;
	long pending;           /* tables: member awaiting its value, or
	                         * AWAIT_KEY or SKIP_VALUE */
	uint32_t end;           /* end of the last item: block spans */
};

struct builder {
	struct run *run;
	struct source *src;
	const unsigned char *text;      /* what libyaml reads: after a BOM */
	size_t n;
	size_t base;                    /* bytes skipped before text */
	size_t ci, bo;                  /* character ci starts at byte bo */
	struct frame *stack;            /* heap, freed by yamltree_parse */
	size_t depth, cap;
	struct anchor *anchors;         /* heap, freed by yamltree_parse */
	size_t nanchors, capanchors;
	struct node *names;             /* anchor name -> index (NODE_INT) */
	size_t events, expanded;
	size_t bytes_expanded, bytes_budget;
	unsigned errors0;
	bool seen_doc;
	struct node *root;
};

/*
 * libyaml 0.2.5 counts mark.index in characters, not bytes (and its
 * lines end at \r and U+0085 too), so a byte offset is found by walking
 * the text from the last mark converted.  Marks arrive nearly in order,
 * so the walk is linear overall.  The text was checked to be valid
 * UTF-8, so counting lead bytes counts characters.
 */
static uint32_t
mark_off(struct builder *b, const yaml_mark_t *m)
{
	while (b->ci < m->index && b->bo < b->n) {
		b->bo++;
		while (b->bo < b->n && (b->text[b->bo] & 0xc0) == 0x80)
			b->bo++;
		b->ci++;
	}
	while (b->ci > m->index && b->bo > 0) {
		b->bo--;
		while (b->bo > 0 && (b->text[b->bo] & 0xc0) == 0x80)
			b->bo--;
		b->ci--;
	}
	return (uint32_t)(b->base + b->bo);
}

/* The span of the one character at off (empty at a line end). */
static struct span
char_span(const struct source *src, size_t off)
{
	uint32_t c;
	size_t k;

	if (off >= src->len)
		return span_make(src->len, 0);
	if (src->text[off] == '\n' || src->text[off] == '\r')
		return span_make(off, 0);
	k = utf8_decode(src->text + off, src->len - off, &c);
	return span_make(off, k ? k : 1);
}

static struct span
event_span(struct builder *b, const yaml_event_t *ev)
{
	uint32_t s = mark_off(b, &ev->start_mark);
	uint32_t e = mark_off(b, &ev->end_mark);

	return span_make(s, e > s ? e - s : 0);
}

/* A tag as written: the core tags in their "!!int" shorthand. */
static const char *
tag_shown(struct run *run, const char *tag)
{
	size_t n = strlen(CORE_TAG);

	if (strncmp(tag, CORE_TAG, n) == 0)
		return arena_printf(&run->arena, "!!%s",
		    diag_shown(run, tag + n, strlen(tag + n)));
	return diag_shown(run, tag, strlen(tag));
}

static enum tag
tag_of(const char *tag)
{
	static const struct {
		const char *name;
		enum tag tag;
	} core[] = {
		{ "str", TAG_STR }, { "int", TAG_INT }, { "float", TAG_FLOAT },
		{ "bool", TAG_BOOL }, { "null", TAG_NULL }, { "map", TAG_MAP },
		{ "seq", TAG_SEQ },
	};
	size_t i, n = strlen(CORE_TAG);

	if (!tag)
		return TAG_NONE;
	if (strcmp(tag, "!") == 0)
		return TAG_BANG;
	if (strncmp(tag, CORE_TAG, n) != 0)
		return TAG_UNKNOWN;
	for (i = 0; i < LEN(core); i++)
		if (strcmp(tag + n, core[i].name) == 0)
			return core[i].tag;
	return TAG_UNKNOWN;
}

static bool
is_word(const char *s, size_t n, const char *const *words)
{
	for (; *words; words++)
		if (strlen(*words) == n && memcmp(s, *words, n) == 0)
			return true;
	return false;
}

/* [-+]?[0-9]+, 0x[0-9a-fA-F]+ or 0o[0-7]+, exactly in 64 bits. */
static enum form
integer(const char *s, size_t n, int64_t *out)
{
	uint64_t v = 0, limit;
	size_t i = 0;
	int base = 10, d;
	bool neg = false, range = false;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) {
		base = s[1] == 'x' ? 16 : 8;
		i = 2;
	} else if (n > 0 && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		i = 1;
	}
	if (i == n)
		return FORM_STRING;
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < n; i++) {
		d = hex_value(s[i]);
		if (d < 0 || d >= base)
			return FORM_STRING;
		if (v > (limit - (uint64_t)d) / (uint64_t)base)
			range = true;
		else
			v = v * (uint64_t)base + (uint64_t)d;
	}
	if (range)
		return FORM_INT_RANGE;
	if (!neg)
		*out = (int64_t)v;
	else if (v == (uint64_t)INT64_MAX + 1)
		*out = INT64_MIN;
	else
		*out = -(int64_t)v;
	return FORM_INT;
}

static size_t
digits(const char *s, size_t n, size_t *i)
{
	size_t start = *i;

	while (*i < n && s[*i] >= '0' && s[*i] <= '9')
		(*i)++;
	return *i - start;
}

/*
 * [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?, [-+]?.inf and .nan
 * in their three spellings.  s must be NUL-terminated (libyaml's are).
 * strtod reads '.' as the decimal point because strata never calls
 * setlocale(), so LC_NUMERIC stays "C" whatever the environment says.
 */
static enum form
real(const char *s, size_t n, double *out)
{
	static const char *const inf[] = { "inf", "Inf", "INF", NULL };
	static const char *const nan[] = { ".nan", ".NaN", ".NAN", NULL };
	size_t i = 0, d;
	char *end;

	if (is_word(s, n, nan)) {
		*out = NAN;
		return FORM_FLOAT;
	}
	if (n > 0 && (s[0] == '-' || s[0] == '+'))
		i++;
	if (n - i == 4 && s[i] == '.' && is_word(s + i + 1, 3, inf)) {
		*out = s[0] == '-' ? -INFINITY : INFINITY;
		return FORM_FLOAT;
	}
	d = digits(s, n, &i);
	if (i < n && s[i] == '.') {
		i++;
		d += digits(s, n, &i);
	}
	if (d == 0)
		return FORM_STRING;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '-' || s[i] == '+'))
			i++;
		if (digits(s, n, &i) == 0)
			return FORM_STRING;
	}
	if (i != n)
		return FORM_STRING;
	errno = 0;
	*out = strtod(s, &end);
	if (errno == ERANGE && isinf(*out))
		return FORM_FLOAT_RANGE;
	return FORM_FLOAT;
}

static enum form
classify(const char *s, size_t n, struct value *v)
{
	static const char *const null[] = { "~", "null", "Null", "NULL", NULL };
	static const char *const yes[] = { "true", "True", "TRUE", NULL };
	static const char *const no[] = { "false", "False", "FALSE", NULL };
	enum form f;

	if (n == 0 || is_word(s, n, null))
		return FORM_NULL;
	if (is_word(s, n, yes) || is_word(s, n, no)) {
		v->b = s[0] != 'f' && s[0] != 'F';
		return FORM_BOOL;
	}
	f = integer(s, n, &v->i);
	if (f != FORM_STRING)
		return f;
	return real(s, n, &v->f);
}

static bool
soft(struct builder *b)
{
	return b->run->diag.errors - b->errors0 < MAX_ERRORS;
}

static struct frame *
top(struct builder *b)
{
	return b->depth ? &b->stack[b->depth - 1] : NULL;
}

static bool
awaits_key(const struct frame *f)
{
	return f && f->node->kind == NODE_TABLE && f->pending == AWAIT_KEY;
}

/* A scalar's node; on an error, report it and give a null node. */
static struct node *
scalar(struct builder *b, const yaml_event_t *ev, struct span sp)
{
	const char *s = (const char *)ev->data.scalar.value;
	size_t n = ev->data.scalar.length;
	const char *tagname = (const char *)ev->data.scalar.tag;
	enum tag tag = tag_of(tagname);
	struct arena *a = &b->run->arena;
	uint32_t id = b->src->id;
	enum node_kind want = NODE_NULL;
	struct value v;
	struct node *node;
	enum form f;

	/* Quoted and block scalars are strings unless tagged otherwise. */
	if (tag == TAG_BANG || (tag == TAG_NONE &&
	    ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE))
		tag = TAG_STR;
	switch (tag) {
	case TAG_STR:
		return tree_new_string(a, s, n, id, sp);
	case TAG_UNKNOWN:
		diag_error(b->run, b->src, sp, MSG_YAML_UNKNOWN_TAG,
		    tag_shown(b->run, tagname));
		return tree_new(a, NODE_NULL, id, sp);
	case TAG_MAP:
	case TAG_SEQ:
		diag_error(b->run, b->src, sp, MSG_YAML_TAG_KIND,
		    tag_shown(b->run, tagname), "scalar");
		return tree_new(a, NODE_NULL, id, sp);
	case TAG_INT:
		want = NODE_INT;
		break;
	case TAG_FLOAT:
		want = NODE_FLOAT;
		break;
	case TAG_BOOL:
		want = NODE_BOOL;
		break;
	case TAG_NULL:
	case TAG_NONE:
	case TAG_BANG:
		break;
	}
	f = classify(s, n, &v);
	if (f == FORM_INT_RANGE && (tag == TAG_NONE || tag == TAG_INT ||
	    tag == TAG_FLOAT)) {
		diag_error(b->run, b->src, sp, MSG_YAML_INT_RANGE);
		return tree_new(a, NODE_NULL, id, sp);
	}
	if (f == FORM_FLOAT_RANGE && (tag == TAG_NONE || tag == TAG_FLOAT)) {
		diag_error(b->run, b->src, sp, MSG_YAML_FLOAT_RANGE);
		return tree_new(a, NODE_NULL, id, sp);
	}
	if (tag == TAG_FLOAT && f == FORM_INT) {
		f = FORM_FLOAT;
		v.f = (double)v.i;
	}
	if (tag != TAG_NONE) {
		static const enum form forms[] = {
			[NODE_INT] = FORM_INT, [NODE_FLOAT] = FORM_FLOAT,
			[NODE_BOOL] = FORM_BOOL, [NODE_NULL] = FORM_NULL,
		};

		if (f != forms[want]) {
			diag_error(b->run, b->src, sp, MSG_YAML_BAD_VALUE,
			    diag_shown(b->run, s, n), tree_kind_name(want),
			    tag_shown(b->run, tagname));
			return tree_new(a, NODE_NULL, id, sp);
		}
	}
	switch (f) {
	case FORM_NULL:
		return tree_new(a, NODE_NULL, id, sp);
	case FORM_BOOL:
		node = tree_new(a, NODE_BOOL, id, sp);
		node->u.b = v.b;
		return node;
	case FORM_INT:
		node = tree_new(a, NODE_INT, id, sp);
		node->u.i = v.i;
		return node;
	case FORM_FLOAT:
		node = tree_new(a, NODE_FLOAT, id, sp);
		node->u.f = v.f;
		return node;
	case FORM_STRING:
	case FORM_INT_RANGE:
	case FORM_FLOAT_RANGE:
		break;
	}
	return tree_new_string(a, s, n, id, sp);
}

/* Define (or redefine: the latest wins) an anchor; its index. */
static long
define(struct builder *b, const char *name)
{
	struct node *ix;

	if (b->nanchors == b->capanchors) {
		b->capanchors = b->capanchors ? b->capanchors * 2 : 16;
		b->anchors = xreallocarray(b->anchors, b->capanchors,
		    sizeof(*b->anchors));
	}
	memset(&b->anchors[b->nanchors], 0, sizeof(*b->anchors));
	ix = tree_new(&b->run->arena, NODE_INT, b->src->id, span_make(0, 0));
	ix->u.i = (int64_t)b->nanchors;
	tree_set(&b->run->arena, b->names, name, strlen(name), b->src->id,
	    span_make(0, 0), ix);
	return (long)b->nanchors++;
}

/* A complete value goes to the open collection, or becomes the root. */
static void
place(struct builder *b, struct node *v, size_t count, size_t height,
    size_t bytes)
{
	struct frame *f = top(b);

	if (!f) {
		b->root = v;
		return;
	}
	f->count += count;
	f->bytes += bytes;
	if (height + 1 > f->height)
		f->height = height + 1;
	f->end = v->span.off + v->span.len;
	if (f->node->kind == NODE_ARRAY) {
		tree_push(&b->run->arena, f->node, v);
		return;
	}
	if (f->pending >= 0)
		f->node->u.table.items[f->pending].value = v;
	f->pending = AWAIT_KEY;
}

/*
 * A key is added at once, with its value to come, so that document
 * order holds and a duplicate is found where it is written.
 */
static bool
key(struct builder *b, struct frame *f, const char *s, size_t n,
    struct span sp)
{
	struct member *m = tree_member(f->node, s, n);
	const char *k;

	f->end = sp.off + sp.len;
	if (m) {
		k = diag_shown(b->run, s, n);
		diag_error(b->run, b->src, sp, MSG_YAML_DUP_KEY, k);
		diag_note(b->run, run_source(b->run, m->keysrc), m->keyspan,
		    MSG_YAML_FIRST_KEY, k);
		f->pending = SKIP_VALUE;
		return soft(b);
	}
	tree_add(&b->run->arena, f->node, s, n, b->src->id, sp, NULL);
	f->bytes += n;
	f->pending = (long)f->node->u.table.n - 1;
	return true;
}

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool
scalar_event(struct builder *b, const yaml_event_t *ev)
{
	const char *s = (const char *)ev->data.scalar.value;
	size_t n = ev->data.scalar.length;
	struct span sp = event_span(b, ev);
	unsigned errors = b->run->diag.errors;
	struct frame *f = top(b);
	struct node *v;
	long ai;

	/* A block scalar's marks run on to the next token; the caret
	 * belongs on its text. */
	if (ev->data.scalar.style == YAML_LITERAL_SCALAR_STYLE ||
	    ev->data.scalar.style == YAML_FOLDED_SCALAR_STYLE)
		while (sp.len > 0 &&
		    is_space(b->src->text[sp.off + sp.len - 1]))
			sp.len--;
	/* A key is used as its text, whatever type it would have; only a
	 * tag to check or an anchor to keep needs its node. */
	if (awaits_key(f) && !ev->data.scalar.tag && !ev->data.scalar.anchor)
		return key(b, f, s, n, sp);
	v = scalar(b, ev, sp);
	if (ev->data.scalar.anchor) {
		ai = define(b, (const char *)ev->data.scalar.anchor);
		b->anchors[ai].node = v;
		b->anchors[ai].scalar = true;
		b->anchors[ai].text = arena_strndup(&b->run->arena, s, n);
		b->anchors[ai].textlen = n;
		b->anchors[ai].count = 1;
		b->anchors[ai].bytes = n;
	}
	if (b->run->diag.errors != errors && !soft(b))
		return false;
	if (awaits_key(f))
		return key(b, f, s, n, sp);
	place(b, v, 1, 0, n);
	return true;
}

/* Charge the text an alias of a copies; false when over the budget. */
static bool
copy_bytes(struct builder *b, const struct anchor *a, struct span sp)
{
	if (a->bytes > b->bytes_budget - b->bytes_expanded) {
		diag_error(b->run, b->src, sp, MSG_YAML_ALIAS_BYTES,
		    b->bytes_budget);
		return false;
	}
	b->bytes_expanded += a->bytes;
	return true;
}

static bool
alias_event(struct builder *b, const yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;
	struct span sp = event_span(b, ev);
	struct node *ix = tree_get(b->names, name);
	struct frame *f = top(b);
	struct anchor *a = ix ? &b->anchors[ix->u.i] : NULL;
	size_t budget;
	struct node *v;

	if (!a || !a->node) {
		diag_error(b->run, b->src, sp,
		    a ? MSG_YAML_ALIAS_CYCLE : MSG_YAML_NO_ANCHOR,
		    diag_shown(b->run, name, strlen(name)));
		if (awaits_key(f))
			f->pending = SKIP_VALUE;
		else
			place(b, tree_new(&b->run->arena, NODE_NULL,
			    b->src->id, sp), 1, 0, 0);
		return soft(b);
	}
	if (awaits_key(f)) {
		if (a->scalar)
			return copy_bytes(b, a, sp) &&
			    key(b, f, a->text, a->textlen, sp);
		diag_error(b->run, b->src, sp, MSG_YAML_COMPLEX_KEY,
		    a->node->kind == NODE_TABLE ? "mapping" : "sequence");
		f->pending = SKIP_VALUE;
		return soft(b);
	}
	budget = ALIAS_FACTOR * b->events;
	if (budget < ALIAS_FLOOR)
		budget = ALIAS_FLOOR;
	if (a->count > budget - b->expanded) {
		diag_error(b->run, b->src, sp, MSG_YAML_ALIAS_BUDGET, budget);
		return false;
	}
	b->expanded += a->count;
	if (!copy_bytes(b, a, sp))
		return false;
	if (b->depth + a->height > MAX_DEPTH) {
		diag_error(b->run, b->src, sp, MSG_TOO_DEEP, MAX_DEPTH);
		return false;
	}
	/* A copy, not a shared node: later stages may edit one place. */
	v = tree_copy(&b->run->arena, a->node);
	v->span = sp;
	place(b, v, a->count, a->height, a->bytes);
	return true;
}

static bool
open_event(struct builder *b, const yaml_event_t *ev, enum node_kind kind)
{
	const char *anchor, *tagname;
	struct span sp = event_span(b, ev);
	struct frame *f = top(b);
	enum tag tag;
	bool flow, ok = true;

	if (kind == NODE_TABLE) {
		anchor = (const char *)ev->data.mapping_start.anchor;
		tagname = (const char *)ev->data.mapping_start.tag;
		flow = ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
	} else {
		anchor = (const char *)ev->data.sequence_start.anchor;
		tagname = (const char *)ev->data.sequence_start.tag;
		flow = ev->data.sequence_start.style ==
		    YAML_FLOW_SEQUENCE_STYLE;
	}
	if (awaits_key(f)) {
		diag_error(b->run, b->src, sp, MSG_YAML_COMPLEX_KEY,
		    kind == NODE_TABLE ? "mapping" : "sequence");
		return false;
	}
	if (b->depth >= MAX_DEPTH) {
		diag_error(b->run, b->src, sp, MSG_TOO_DEEP, MAX_DEPTH);
		return false;
	}
	tag = tag_of(tagname);
	if (tag == TAG_UNKNOWN) {
		diag_error(b->run, b->src, sp, MSG_YAML_UNKNOWN_TAG,
		    tag_shown(b->run, tagname));
		ok = soft(b);
	} else if (tag != TAG_NONE && tag != TAG_BANG &&
	    tag != (kind == NODE_TABLE ? TAG_MAP : TAG_SEQ)) {
		diag_error(b->run, b->src, sp, MSG_YAML_TAG_KIND,
		    tag_shown(b->run, tagname),
		    kind == NODE_TABLE ? "mapping" : "sequence");
		ok = soft(b);
	}
	if (b->depth == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 32;
		b->stack = xreallocarray(b->stack, b->cap, sizeof(*b->stack));
	}
	f = &b->stack[b->depth++];
	f->node = tree_new(&b->run->arena, kind, b->src->id, sp);
	f->flow = flow;
	f->anchor = anchor ? define(b, anchor) : -1;
	f->count = 1;
	f->height = 1;
	f->bytes = 0;
	f->pending = AWAIT_KEY;
	f->end = sp.off + sp.len;
	return ok;
}

static bool
close_event(struct builder *b, const yaml_event_t *ev)
{
	struct frame f;
	uint32_t end;

	if (b->depth == 0)      /* libyaml never does this */
		return true;
	f = b->stack[--b->depth];
	end = f.flow ? mark_off(b, &ev->end_mark) : f.end;
	if (end > f.node->span.off)
		f.node->span.len = end - f.node->span.off;
	if (f.anchor >= 0) {
		struct anchor *a = &b->anchors[f.anchor];

		a->node = f.node;
		a->count = f.count;
		a->height = f.height;
		a->bytes = f.bytes;
	}
	place(b, f.node, f.count, f.height, f.bytes);
	return true;
}

/* Handle one event; false stops the reader. */
static bool
event(struct builder *b, const yaml_event_t *ev)
{
	b->events++;
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (b->seen_doc) {
			diag_error(b->run, b->src, event_span(b, ev),
			    MSG_YAML_SECOND_DOC);
			return false;
		}
		b->seen_doc = true;
		return true;
	case YAML_SCALAR_EVENT:
		return scalar_event(b, ev);
	case YAML_ALIAS_EVENT:
		return alias_event(b, ev);
	case YAML_SEQUENCE_START_EVENT:
		return open_event(b, ev, NODE_ARRAY);
	case YAML_MAPPING_START_EVENT:
		return open_event(b, ev, NODE_TABLE);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return close_event(b, ev);
	default:
		return true;
	}
}

static void
syntax_error(struct builder *b, const yaml_parser_t *p)
{
	const char *problem = p->problem ? p->problem : "syntax error";
	size_t off;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		die("out of memory");
	case YAML_READER_ERROR:
		/* The reader counts bytes. */
		off = b->base + p->problem_offset;
		diag_error(b->run, b->src, char_span(b->src, off),
		    MSG_YAML_SYNTAX, problem);
		return;
	default:
		break;
	}
	off = mark_off(b, &p->problem_mark);
	if (off < b->src->len && b->src->text[off] == '\t')
		diag_error(b->run, b->src, char_span(b->src, off),
		    MSG_YAML_TAB);
	else
		diag_error(b->run, b->src, char_span(b->src, off),
		    MSG_YAML_SYNTAX, problem);
	if (p->context && p->context_mark.index != p->problem_mark.index)
		diag_note(b->run, b->src, char_span(b->src,
		    mark_off(b, &p->context_mark)), MSG_YAML_CONTEXT,
		    p->context);
}

/* libyaml would stop at these too, but with a vaguer message. */
static bool
check_text(struct run *run, struct source *src)
{
	const char *s = src->text;
	size_t i = 0, n = src->len, k;
	uint32_t c;

	while (i < n) {
		if ((unsigned char)s[i] < 0x80) {
			if (s[i] == '\0') {
				diag_error(run, src, span_make(i, 1),
				    MSG_NUL_BYTE);
				return false;
			}
			i++;
			continue;
		}
		k = utf8_decode(s + i, n - i, &c);
		if (k == 0) {
			diag_error(run, src, span_make(i, 1), MSG_INVALID_UTF8);
			return false;
		}
		i += k;
	}
	return true;
}

bool
yamltree_parse(struct run *run, struct source *src, struct node **out)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct builder b;
	bool more;

	*out = NULL;
	if (!check_text(run, src))
		return false;
	memset(&b, 0, sizeof(b));
	b.run = run;
	b.src = src;
	b.errors0 = run->diag.errors;
	b.bytes_budget = ALIAS_BYTES_FLOOR;
	if (src->len > (SIZE_MAX - b.bytes_budget) / ALIAS_BYTES_FACTOR)
		b.bytes_budget = SIZE_MAX;
	else
		b.bytes_budget += ALIAS_BYTES_FACTOR * src->len;
	/* The BOM is skipped here so that libyaml's character count starts
	 * at the text; forcing UTF-8 stops it guessing UTF-16. */
	b.base = utf8_bom(src->text, src->len);
	b.text = (const unsigned char *)src->text + b.base;
	b.n = src->len - b.base;
	b.names = tree_new(&run->arena, NODE_TABLE, src->id, span_make(0, 0));
	if (!yaml_parser_initialize(&parser))
		die("out of memory");
	yaml_parser_set_input_string(&parser, b.text, b.n);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
	do {
		if (!yaml_parser_parse(&parser, &ev)) {
			syntax_error(&b, &parser);
			break;
		}
		more = ev.type != YAML_STREAM_END_EVENT && event(&b, &ev);
		yaml_event_delete(&ev);
	} while (more);
	yaml_parser_delete(&parser);
	free(b.stack);
	free(b.anchors);
	if (run->diag.errors != b.errors0)
		return false;
	/* An empty document (nothing, comments, "---", "~") is an empty
	 * table, as an empty TOML file is. */
	if (!b.root || b.root->kind == NODE_NULL)
		b.root = tree_new(&run->arena, NODE_TABLE, src->id,
		    b.root ? b.root->span : span_make(0, 0));
	*out = b.root;
	return true;
}
