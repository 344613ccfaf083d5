/*
 * Tool definitions: reading and checking them.  The prose section is
 * layers/tool_prose.c; the provider-native objects are the emitters'.
 *
 * Shapes read (the first rule that matches decides):
 *
 *   {"type": "function", "function": {name, description, parameters,
 *       strict?, usage_hint?}, usage_hint?, strict?}     OpenAI Chat
 *   {"tools": [...], "nextCursor"?, "_meta"?}           a tool list (MCP)
 *   {name, description, inputSchema, title?, outputSchema?,
 *       annotations?, icons?, execution?, _meta?, usage_hint?}   MCP
 *   {name, description, input_schema, usage_hint?}      Anthropic
 *   {name, description, parameters?, usage_hint?, type?, strict?}  ours
 *       (type "function" and strict make OpenAI Responses' flat shape)
 *
 * usage_hint and strict may sit beside "function" or inside it, not both.
 * A missing parameters schema reads as {"type":"object","properties":{}};
 * one without "type" gets "type": "object" (in a copy), which every
 * provider wants.
 */
#include "prompt/tool.h"

#include <string.h>

#include "base/arena.h"
#include "base/map.h"
#include "base/util.h"
#include "base/vec.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "prompt/names.h"

/* The strictest provider rule: OpenAI's ^[A-Za-z0-9_-]{1,64}$. */
#define NAME_MAX_LEN 64

static const char *const openai_keys[] = {
	"type", "function", "usage_hint", "strict", NULL
};
static const char *const function_keys[] = {
	"name", "description", "parameters", "strict", "usage_hint", NULL
};
static const char *const list_keys[] = {
	"tools", "nextCursor", "_meta", NULL
};
static const char *const mcp_keys[] = {
	"name", "title", "description", "inputSchema", "outputSchema",
	"annotations", "icons", "execution", "_meta", "usage_hint", NULL
};
static const char *const anthropic_keys[] = {
	"name", "description", "input_schema", "usage_hint", NULL
};
static const char *const our_keys[] = {
	"name", "description", "parameters", "usage_hint", "type", "strict",
	NULL
};

static const char *const schema_types[] = {
	"string", "number", "integer", "boolean", "object", "array", "null",
	NULL
};

/* The state of one tool_read() call. */
struct reader {
	struct run *run;
	bool deep;              /* MSG_TOO_DEEP reported for this tool */
};

/* What a definition holds, wherever its shape put it. */
struct fields {
	const struct node *body;        /* the table holding name */
	const char *what;               /* the shape, for messages */
	const char *schema_key;         /* "parameters", "inputSchema"... */
	const struct member *name, *description, *schema, *usage_hint;
	const struct member *strict;
};

static struct source *
src_of(struct run *run, const struct node *n)
{
	return run_source(run, n->src);
}

static bool
blank(const char *s)
{
	for (; *s; s++)
		if (!strchr(" \t\r\n\f\v", *s))
			return false;
	return true;
}

/* The allowed key that key was probably meant to be (util.h), or NULL. */
static const char *
suggest(const char *key, const char *const *keys)
{
	struct suggest sg;
	const char *const *k;

	suggest_init(&sg, key);
	for (k = keys; *k; k++)
		suggest_add(&sg, *k);
	return suggest_best(&sg);
}

/* Report keys of t that are not in keys; "what" names the shape. */
static bool
check_keys(struct run *run, const struct node *t, const char *const *keys,
    const char *what)
{
	const char *best;
	size_t i;
	bool ok = true;

	for (i = 0; i < t->u.table.n; i++) {
		const struct member *m = &t->u.table.items[i];

		if (names_index(keys, m->key, m->keylen) >= 0)
			continue;
		best = suggest(m->key, keys);
		if (best)
			diag_error(run, run_source(run, m->keysrc), m->keyspan,
			    MSG_TOOL_UNKNOWN_KEY_HINT, m->key, what, best);
		else
			diag_error(run, run_source(run, m->keysrc), m->keyspan,
			    MSG_TOOL_UNKNOWN_KEY, m->key, what);
		ok = false;
	}
	return ok;
}

/* "type" beside a tool's name or "function": "function" if anything. */
static bool
check_function_type(struct run *run, const struct node *t)
{
	const struct node *type = tree_get(t, "type");

	if (!type)
		return true;
	if (type->kind != NODE_STRING) {
		diag_error(run, src_of(run, type), type->span,
		    MSG_TOOL_NOT_STRING, "type", tree_kind_name(type->kind));
		return false;
	}
	if (strcmp(type->u.str.s, "function") != 0) {
		diag_error(run, src_of(run, type), type->span,
		    MSG_TOOL_NOT_FUNCTION, type->u.str.s);
		return false;
	}
	return true;
}

/* A key that may sit beside "function" (outer) or inside it (inner). */
static const struct member *
either(struct run *run, const struct member *outer,
    const struct member *inner, bool *ok)
{
	if (outer && inner) {
		/* The error at the later of the two, the note at the first
		 * (a file may give the outer key after "function"). */
		const struct member *first = outer, *second = inner;

		if (outer->keysrc == inner->keysrc &&
		    outer->keyspan.off > inner->keyspan.off) {
			first = inner;
			second = outer;
		}
		diag_error(run, run_source(run, second->keysrc),
		    second->keyspan, MSG_TOOL_TWICE, second->key);
		diag_note(run, run_source(run, first->keysrc), first->keyspan,
		    MSG_TOOL_GIVEN_HERE);
		*ok = false;
	}
	return inner ? inner : outer;
}

static const struct member *
member(const struct node *t, const char *key)
{
	return tree_member(t, key, strlen(key));
}

/* Sort out the shape of definition t into f; false if it is broken. */
static bool
shape(struct run *run, const struct node *t, struct fields *f)
{
	const struct member *fn = member(t, "function");
	const struct node *body;
	bool ok = true;

	memset(f, 0, sizeof(*f));
	f->schema_key = "parameters";
	if (fn) {
		body = fn->value;
		ok &= check_keys(run, t, openai_keys, "an OpenAI tool definition");
		ok &= check_function_type(run, t);
		if (body->kind != NODE_TABLE) {
			diag_error(run, src_of(run, body), body->span,
			    MSG_TOOL_KEY_NOT_TABLE, "function",
			    tree_kind_name(body->kind));
			return false;
		}
		ok &= check_keys(run, body, function_keys, "an OpenAI function");
		f->body = body;
		f->what = "an OpenAI function";
		f->usage_hint = either(run, member(t, "usage_hint"),
		    member(body, "usage_hint"), &ok);
		f->strict = either(run, member(t, "strict"),
		    member(body, "strict"), &ok);
	} else {
		const char *const *keys = our_keys;

		body = t;
		f->what = "a tool definition";
		if (member(t, "inputSchema")) {
			keys = mcp_keys;
			f->what = "an MCP tool definition";
			f->schema_key = "inputSchema";
		} else if (member(t, "input_schema")) {
			keys = anthropic_keys;
			f->what = "an Anthropic tool definition";
			f->schema_key = "input_schema";
		} else {
			ok &= check_function_type(run, t);
			f->strict = member(t, "strict");
		}
		ok &= check_keys(run, t, keys, f->what);
		f->body = t;
		f->usage_hint = member(t, "usage_hint");
	}
	f->name = member(body, "name");
	f->description = member(body, "description");
	f->schema = member(body, f->schema_key);
	return ok;
}

/*
 * The string value of m (named key) in table t; a missing or blank value
 * is an error when required.  *out is NULL when there is none.
 */
static bool
string_field(struct run *run, const struct node *t, const struct member *m,
    const char *key, bool required, const char **out)
{
	const struct node *v;

	*out = NULL;
	if (!m) {
		if (required)
			diag_error(run, src_of(run, t), t->span, MSG_TOOL_MISSING,
			    key);
		return !required;
	}
	v = m->value;
	if (v->kind != NODE_STRING) {
		diag_error(run, src_of(run, v), v->span, MSG_TOOL_NOT_STRING, key,
		    tree_kind_name(v->kind));
		return false;
	}
	if (blank(v->u.str.s)) {
		if (required) {
			diag_error(run, src_of(run, v), v->span, MSG_TOOL_EMPTY,
			    key);
			return false;
		}
		return true;
	}
	*out = v->u.str.s;
	return true;
}

static bool
check_name(struct run *run, const struct node *v)
{
	const char *s = v->u.str.s;
	size_t i;

	for (i = 0; i < v->u.str.len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '-'))
			break;
	}
	if (i == v->u.str.len && i <= NAME_MAX_LEN)
		return true;
	diag_error(run, src_of(run, v), v->span, MSG_TOOL_BAD_NAME, s);
	return false;
}

static bool check_schema(struct reader *r, const struct node *s,
    const char *subject, int depth, bool top);

/* "type": a type name or a non-empty array of them. */
static bool
check_type(struct run *run, const struct node *type, bool top)
{
	size_t i;
	bool ok = true;

	if (top) {
		if (type->kind == NODE_STRING &&
		    strcmp(type->u.str.s, "object") == 0)
			return true;
		diag_error(run, src_of(run, type), type->span,
		    MSG_TOOL_TOP_TYPE);
		return false;
	}
	if (type->kind == NODE_STRING) {
		if (names_index(schema_types, type->u.str.s, type->u.str.len) >= 0)
			return true;
		diag_error(run, src_of(run, type), type->span,
		    MSG_TOOL_BAD_TYPE, type->u.str.s);
		return false;
	}
	if (type->kind != NODE_ARRAY || type->u.array.n == 0) {
		diag_error(run, src_of(run, type), type->span,
		    MSG_TOOL_TYPE_KIND, tree_kind_name(type->kind));
		return false;
	}
	for (i = 0; i < type->u.array.n; i++) {
		const struct node *e = type->u.array.items[i];

		if (e->kind != NODE_STRING) {
			diag_error(run, src_of(run, e), e->span,
			    MSG_TOOL_TYPE_KIND, tree_kind_name(e->kind));
			ok = false;
		} else if (names_index(schema_types, e->u.str.s,
		    e->u.str.len) < 0) {
			diag_error(run, src_of(run, e), e->span,
			    MSG_TOOL_BAD_TYPE, e->u.str.s);
			ok = false;
		}
	}
	return ok;
}

/* "required": property names, each one in props (which may be NULL;
 * when props is there but broken, only the names' kinds are checked). */
static bool
check_required(struct run *run, const struct node *req,
    const struct node *props)
{
	size_t i;
	bool ok = true;

	if (req->kind != NODE_ARRAY) {
		diag_error(run, src_of(run, req), req->span, MSG_TOOL_NOT_ARRAY,
		    "required", tree_kind_name(req->kind));
		return false;
	}
	for (i = 0; i < req->u.array.n; i++) {
		const struct node *e = req->u.array.items[i];

		if (e->kind != NODE_STRING) {
			diag_error(run, src_of(run, e), e->span,
			    MSG_TOOL_REQUIRED_KIND, tree_kind_name(e->kind));
			ok = false;
		} else if (!props || (props->kind == NODE_TABLE &&
		    !tree_getn(props, e->u.str.s, e->u.str.len))) {
			diag_error(run, src_of(run, e), e->span,
			    MSG_TOOL_REQUIRED_UNKNOWN, e->u.str.s);
			ok = false;
		}
	}
	return ok;
}

/* anyOf, oneOf, allOf: arrays of schemas. */
static bool
check_alternatives(struct reader *r, const struct node *s, int depth)
{
	static const char *const keys[] = { "anyOf", "oneOf", "allOf" };
	struct run *run = r->run;
	size_t i, k;
	bool ok = true;

	for (k = 0; k < LEN(keys); k++) {
		const struct node *alts = tree_get(s, keys[k]);
		char *subject;

		if (!alts)
			continue;
		if (alts->kind != NODE_ARRAY) {
			diag_error(run, src_of(run, alts), alts->span,
			    MSG_TOOL_NOT_ARRAY, keys[k],
			    tree_kind_name(alts->kind));
			ok = false;
			continue;
		}
		if (alts->u.array.n == 0) {
			/* JSON Schema wants at least one alternative, and
			 * every provider refuses an empty list. */
			diag_error(run, src_of(run, alts), alts->span,
			    MSG_TOOL_EMPTY_ALTERNATIVES, keys[k]);
			ok = false;
			continue;
		}
		subject = arena_printf(&run->arena, "an '%s' entry", keys[k]);
		for (i = 0; i < alts->u.array.n; i++)
			ok &= check_schema(r, alts->u.array.items[i], subject,
			    depth + 1, false);
	}
	return ok;
}

/*
 * Check that s is a JSON Schema object as far as strata reads it: a table
 * whose type, properties, required, enum, items and alternatives have the
 * right kinds.  subject names s in messages.  Other keywords pass.
 */
static bool
check_schema(struct reader *r, const struct node *s, const char *subject,
    int depth, bool top)
{
	struct run *run = r->run;
	const struct node *type, *props, *req, *e, *items;
	size_t i;
	bool ok = true;

	if (s->kind != NODE_TABLE) {
		diag_error(run, src_of(run, s), s->span, MSG_TOOL_NOT_SCHEMA,
		    subject, tree_kind_name(s->kind));
		return false;
	}
	if (depth > TOOL_SCHEMA_DEPTH) {
		if (!r->deep)
			diag_error(run, src_of(run, s), s->span, MSG_TOO_DEEP,
			    TOOL_SCHEMA_DEPTH);
		r->deep = true;
		return false;
	}
	type = tree_get(s, "type");
	if (type)
		ok &= check_type(run, type, top);
	props = tree_get(s, "properties");
	if (props && props->kind != NODE_TABLE) {
		diag_error(run, src_of(run, props), props->span,
		    MSG_TOOL_KEY_NOT_TABLE, "properties",
		    tree_kind_name(props->kind));
		ok = false;
	} else if (props) {
		for (i = 0; i < props->u.table.n; i++) {
			const struct member *m = &props->u.table.items[i];
			char *sub = arena_printf(&run->arena, "property '%s'",
			    m->key);

			ok &= check_schema(r, m->value, sub, depth + 1, false);
		}
	}
	req = tree_get(s, "required");
	if (req)
		ok &= check_required(run, req, props);
	e = tree_get(s, "enum");
	if (e && e->kind != NODE_ARRAY) {
		diag_error(run, src_of(run, e), e->span, MSG_TOOL_NOT_ARRAY,
		    "enum", tree_kind_name(e->kind));
		ok = false;
	}
	items = tree_get(s, "items");
	if (items)
		ok &= check_schema(r, items, "'items'", depth + 1, false);
	ok &= check_alternatives(r, s, depth);
	return ok;
}

/* s with "type": "object" first, sharing s's values; s if it has a type. */
static const struct node *
object_typed(struct arena *a, const struct node *s)
{
	struct node *c, *type;
	struct span at = span_make(s->span.off, 0);
	size_t i;

	if (tree_get(s, "type"))
		return s;
	c = tree_new(a, NODE_TABLE, s->src, s->span);
	type = tree_new_string(a, "object", 6, s->src, at);
	tree_add(a, c, "type", 4, s->src, at, type);
	for (i = 0; i < s->u.table.n; i++) {
		const struct member *m = &s->u.table.items[i];

		tree_add(a, c, m->key, m->keylen, m->keysrc, m->keyspan,
		    m->value);
	}
	return c;
}

static const struct node *
empty_schema(struct arena *a)
{
	struct node *s = tree_table(a);

	tree_put(a, s, "type", tree_str(a, "object"));
	tree_put(a, s, "properties", tree_table(a));
	return s;
}

static bool
read_one(struct reader *r, const struct node *def, struct tool_list *list)
{
	struct run *run = r->run;
	struct fields f;
	const char *name, *desc, *hint;
	const struct node *schema, *strict = NULL;
	char *subject;
	struct tool *t, *first;
	bool ok;

	if (def->kind != NODE_TABLE) {
		diag_error(run, src_of(run, def), def->span, MSG_TOOL_NOT_TABLE,
		    tree_kind_name(def->kind));
		return false;
	}
	r->deep = false;
	ok = shape(run, def, &f);
	if (!f.body)
		return false;
	if (string_field(run, f.body, f.name, "name", true, &name))
		ok &= check_name(run, f.name->value);
	else
		ok = false;
	ok &= string_field(run, f.body, f.description, "description", true,
	    &desc);
	ok &= string_field(run, f.body, f.usage_hint, "usage_hint", false,
	    &hint);
	if (f.strict) {
		strict = f.strict->value;
		if (strict->kind != NODE_BOOL) {
			diag_error(run, src_of(run, strict), strict->span,
			    MSG_TOOL_NOT_BOOL, "strict",
			    tree_kind_name(strict->kind));
			ok = false;
		}
	}
	if (f.schema) {
		subject = arena_printf(&run->arena, "'%s'", f.schema_key);
		ok &= check_schema(r, f.schema->value, subject, 0, true);
		schema = f.schema->value;
	} else {
		schema = empty_schema(&run->arena);
	}
	if (!ok)
		return false;
	if (!list->names.arena)
		map_init(&list->names, &run->arena);
	first = map_get(&list->names, name, strlen(name));
	if (first) {
		diag_error(run, src_of(run, f.name->value),
		    f.name->value->span, MSG_TOOL_DUPLICATE, name);
		diag_note(run, run_source(run, first->src), first->span,
		    MSG_FIRST_HERE);
		return false;
	}
	t = arena_alloc(&run->arena, sizeof(*t));
	t->name = name;
	t->description = desc;
	t->usage_hint = hint;
	t->parameters = object_typed(&run->arena, schema);
	t->strict = strict;
	t->src = f.name->value->src;
	t->span = f.name->value->span;
	map_put(&list->names, name, strlen(name), t);
	list->items = avec_grow(&run->arena, list->items, &list->cap,
	    list->n, list->n + 1, sizeof(*list->items));
	list->items[list->n++] = t;
	return true;
}

/* {"tools": [...]}: a table with "tools" that is no tool itself. */
static bool
is_list(const struct node *n)
{
	return tree_get(n, "tools") && !tree_get(n, "name") &&
	    !tree_get(n, "function");
}

bool
tool_read(struct run *run, const struct node *n, struct tool_list *list)
{
	struct reader r = { run, false };
	const struct node *arr = n;
	size_t i;
	bool ok = true;

	if (n->kind == NODE_TABLE && is_list(n)) {
		ok = check_keys(run, n, list_keys, "a tool list");
		arr = tree_get(n, "tools");
		if (arr->kind != NODE_ARRAY) {
			diag_error(run, src_of(run, arr), arr->span,
			    MSG_TOOL_NOT_ARRAY, "tools",
			    tree_kind_name(arr->kind));
			return false;
		}
	} else if (n->kind != NODE_ARRAY) {
		return read_one(&r, n, list);
	}
	for (i = 0; i < arr->u.array.n; i++)
		ok &= read_one(&r, arr->u.array.items[i], list);
	return ok;
}
