#include "reply/args.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"

/* How deep a schema is followed: tool.c refuses deeper ones already. */
#define DEPTH_MAX 64

struct checker {
	struct run *run;
	const struct source *src;
	const char *tool;
	const char **why;
	bool quiet;             /* trying an anyOf alternative: no reports */
	bool ok;
};

#define PROBLEM(c, sp, ...) do { \
	(c)->ok = false; \
	if (!(c)->quiet) { \
		if ((c)->why && !*(c)->why) \
			*(c)->why = diag_format(&(c)->run->arena, __VA_ARGS__); \
		diag_error((c)->run, (c)->src, (sp), __VA_ARGS__); \
	} \
} while (0)

static void check(struct checker *c, const struct node *schema,
    const struct node *v, const char *path, unsigned depth);

static bool
integral(const struct node *v)
{
	return v->kind == NODE_INT || (v->kind == NODE_FLOAT &&
	    v->u.f == floor(v->u.f) && fabs(v->u.f) < 9.007199254740992e15);
}

static bool
is_type(const struct node *v, const char *type)
{
	if (strcmp(type, "string") == 0)
		return v->kind == NODE_STRING;
	if (strcmp(type, "integer") == 0)
		return integral(v);
	if (strcmp(type, "number") == 0)
		return v->kind == NODE_INT || v->kind == NODE_FLOAT;
	if (strcmp(type, "boolean") == 0)
		return v->kind == NODE_BOOL;
	if (strcmp(type, "null") == 0)
		return v->kind == NODE_NULL;
	if (strcmp(type, "object") == 0)
		return v->kind == NODE_TABLE;
	if (strcmp(type, "array") == 0)
		return v->kind == NODE_ARRAY;
	return true;    /* a type we do not know: not ours to refuse */
}

static const char *
json_type(const struct node *v)
{
	switch (v->kind) {
	case NODE_STRING: return "a string";
	case NODE_INT: return "an integer";
	case NODE_FLOAT: return "a number";
	case NODE_BOOL: return "a boolean";
	case NODE_NULL: return "null";
	case NODE_TABLE: return "an object";
	case NODE_ARRAY: return "an array";
	default: break;
	}
	return "a value";
}

static double
num(const struct node *v)
{
	return v->kind == NODE_INT ? (double)v->u.i : v->u.f;
}

/* JSON equality: numbers by value, tables by keys whatever their order. */
static bool
same(const struct node *a, const struct node *b)
{
	size_t i;

	if ((a->kind == NODE_INT || a->kind == NODE_FLOAT) &&
	    (b->kind == NODE_INT || b->kind == NODE_FLOAT))
		return num(a) == num(b);
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case NODE_STRING:
		return a->u.str.len == b->u.str.len &&
		    memcmp(a->u.str.s, b->u.str.s, a->u.str.len) == 0;
	case NODE_BOOL:
		return a->u.b == b->u.b;
	case NODE_NULL:
		return true;
	case NODE_ARRAY:
		if (a->u.array.n != b->u.array.n)
			return false;
		for (i = 0; i < a->u.array.n; i++)
			if (!same(a->u.array.items[i], b->u.array.items[i]))
				return false;
		return true;
	case NODE_TABLE:
		if (a->u.table.n != b->u.table.n)
			return false;
		for (i = 0; i < a->u.table.n; i++) {
			const struct member *m = &a->u.table.items[i];
			const struct node *o = tree_getn(b, m->key, m->keylen);

			if (!o || !same(m->value, o))
				return false;
		}
		return true;
	default:
		break;
	}
	return false;
}

/* "a string or null" from a type name or list. */
static const char *
type_words(struct arena *a, const struct node *type)
{
	struct buf b = BUF_INIT;
	const char *r;
	size_t i, n = type->kind == NODE_ARRAY ? type->u.array.n : 1;

	for (i = 0; i < n; i++) {
		const struct node *t = type->kind == NODE_ARRAY ?
		    type->u.array.items[i] : type;
		const char *w = t->kind == NODE_STRING ? t->u.str.s : "?";

		if (i)
			buf_puts(&b, i + 1 == n ? " or " : ", ");
		buf_printf(&b, "%s%s", strcmp(w, "integer") == 0 ||
		    strcmp(w, "object") == 0 || strcmp(w, "array") == 0 ?
		    "an " : strcmp(w, "null") == 0 ? "" : "a ", w);
	}
	r = arena_strndup(a, b.data ? b.data : "", b.len);
	buf_free(&b);
	return r;
}

static void
check_type(struct checker *c, const struct node *type, const struct node *v,
    const char *path)
{
	size_t i;

	if (type->kind == NODE_STRING) {
		if (is_type(v, type->u.str.s))
			return;
	} else if (type->kind == NODE_ARRAY) {
		for (i = 0; i < type->u.array.n; i++)
			if (type->u.array.items[i]->kind == NODE_STRING &&
			    is_type(v, type->u.array.items[i]->u.str.s))
				return;
	} else {
		return;
	}
	PROBLEM(c, v->span, MSG_ARGS_TYPE, c->tool, path,
	    type_words(&c->run->arena, type), json_type(v));
}

static void
check_enum(struct checker *c, const struct node *list, const struct node *v,
    const char *path)
{
	struct buf b = BUF_INIT;
	size_t i;

	if (list->kind != NODE_ARRAY)
		return;
	for (i = 0; i < list->u.array.n; i++)
		if (same(list->u.array.items[i], v))
			return;
	for (i = 0; i < list->u.array.n; i++) {
		if (i)
			buf_puts(&b, ", ");
		json_write(&b, list->u.array.items[i], -1);
	}
	PROBLEM(c, v->span, MSG_ARGS_ENUM, c->tool, path,
	    diag_shown(c->run, b.data ? b.data : "", b.len));
	buf_free(&b);
}

/* minimum/maximum, min/maxLength, min/maxItems. */
static void
check_limits(struct checker *c, const struct node *schema,
    const struct node *v, const char *path)
{
	static const struct {
		const char *key;
		enum node_kind kind;    /* which values it applies to */
		bool min;
		const char *what;
	} limits[] = {
		{ "minimum", NODE_FLOAT, true, "a value" },
		{ "maximum", NODE_FLOAT, false, "a value" },
		{ "minLength", NODE_STRING, true, "a length" },
		{ "maxLength", NODE_STRING, false, "a length" },
		{ "minItems", NODE_ARRAY, true, "a count" },
		{ "maxItems", NODE_ARRAY, false, "a count" },
	};
	size_t i;

	for (i = 0; i < LEN(limits); i++) {
		const struct node *l = tree_get(schema, limits[i].key);
		double have, bound;
		enum node_kind k = v->kind == NODE_INT ? NODE_FLOAT : v->kind;

		if (!l || (l->kind != NODE_INT && l->kind != NODE_FLOAT) ||
		    k != limits[i].kind)
			continue;
		bound = num(l);
		have = k == NODE_FLOAT ? num(v) : k == NODE_STRING ?
		    (double)utf8_count(v->u.str.s, v->u.str.len) :
		    (double)v->u.array.n;
		if (limits[i].min ? have >= bound : have <= bound)
			continue;
		PROBLEM(c, v->span, MSG_ARGS_LIMIT, c->tool, path,
		    limits[i].what, limits[i].min ? "of at least" :
		    "of at most", (long long)bound);
	}
}

static void
check_object(struct checker *c, const struct node *schema,
    const struct node *v, const char *path, unsigned depth)
{
	const struct node *props = tree_get(schema, "properties");
	const struct node *req = tree_get(schema, "required");
	const struct node *extra = tree_get(schema, "additionalProperties");
	size_t i;

	if (req && req->kind == NODE_ARRAY)
		for (i = 0; i < req->u.array.n; i++) {
			const struct node *r = req->u.array.items[i];

			if (r->kind == NODE_STRING &&
			    !tree_getn(v, r->u.str.s, r->u.str.len))
				PROBLEM(c, v->span, MSG_ARGS_MISSING, c->tool,
				    diag_shown(c->run, r->u.str.s,
				    r->u.str.len));
		}
	for (i = 0; i < v->u.table.n; i++) {
		const struct member *m = &v->u.table.items[i];
		const struct node *ps = props && props->kind == NODE_TABLE ?
		    tree_getn(props, m->key, m->keylen) : NULL;
		const char *sub = arena_printf(&c->run->arena, "%s.%s", path,
		    diag_shown(c->run, m->key, m->keylen));

		if (ps)
			check(c, ps, m->value, sub, depth + 1);
		else if (extra && extra->kind == NODE_BOOL && !extra->u.b)
			PROBLEM(c, m->keyspan, MSG_ARGS_UNKNOWN, c->tool, sub);
		else if (extra && extra->kind == NODE_TABLE)
			check(c, extra, m->value, sub, depth + 1);
	}
}

static bool
passes(struct checker *c, const struct node *schema, const struct node *v,
    const char *path, unsigned depth)
{
	struct checker q = *c;

	q.quiet = true;
	q.ok = true;
	check(&q, schema, v, path, depth);
	return q.ok;
}

static void
check(struct checker *c, const struct node *schema, const struct node *v,
    const char *path, unsigned depth)
{
	const struct node *n;
	size_t i;

	if (!schema || schema->kind != NODE_TABLE || depth > DEPTH_MAX)
		return;
	if ((n = tree_get(schema, "anyOf")) || (n = tree_get(schema, "oneOf"))) {
		bool any = n->kind != NODE_ARRAY;

		for (i = 0; !any && i < n->u.array.n; i++)
			any = passes(c, n->u.array.items[i], v, path, depth + 1);
		if (!any)
			PROBLEM(c, v->span, MSG_ARGS_NO_MATCH, c->tool, path);
	}
	if ((n = tree_get(schema, "type"))) {
		bool was = c->ok;

		check_type(c, n, v, path);
		if (was && !c->ok)
			return;         /* the rest would only repeat it */
	}
	if ((n = tree_get(schema, "enum")))
		check_enum(c, n, v, path);
	if ((n = tree_get(schema, "const")) && !same(n, v)) {
		struct buf b = BUF_INIT;

		json_write(&b, n, -1);
		PROBLEM(c, v->span, MSG_ARGS_ENUM, c->tool, path,
		    diag_shown(c->run, b.data, b.len));
		buf_free(&b);
	}
	check_limits(c, schema, v, path);
	if (v->kind == NODE_TABLE)
		check_object(c, schema, v, path, depth);
	else if (v->kind == NODE_ARRAY && (n = tree_get(schema, "items")) &&
	    n->kind == NODE_TABLE)
		for (i = 0; i < v->u.array.n; i++)
			check(c, n, v->u.array.items[i],
			    arena_printf(&c->run->arena, "%s[%zu]", path, i),
			    depth + 1);
}

bool
args_check(struct run *run, const struct source *src, const char *tool,
    const struct node *schema, const struct node *value, const char **why)
{
	struct checker c = { run, src, tool, why, false, true };

	check(&c, schema, value, "args", 0);
	return c.ok;
}
