/*
 * The tools section of the system prompt.
 *
 * The prose format (strata-profile(5) copies this).  Nothing at all for
 * no tools; otherwise, with no newline after the last line (the
 * section's heading is the join style's business: layer.c):
 *
 *   You can call the following tools.
 *
 *   ### NAME
 *   DESCRIPTION
 *   Parameters:
 *   - PROP (TYPE, required|optional): DESCRIPTION. One of: V, V. Default: V.
 *     - PROP (TYPE, ...): ...          properties of an object, nested
 *   When to use: USAGE_HINT
 *
 *   ### NEXT_NAME
 *   ...
 *
 * "Parameters: none." when the schema has no properties; no "When to use"
 * line without a hint.  A property line has ": " and the rest only when
 * there is a description, enum or default; the description gets a "."
 * before "One of"/"Default" unless it ends in . ! ? : ; or their CJK
 * forms.  Enum values and defaults are compact JSON.  TYPE is the
 * schema's type ("string"), its type array or anyOf/oneOf alternatives
 * joined by " or " ("string or null"), "array of T" with items, "object"
 * for a schema with only properties, the JSON type of the enum values for
 * one with only an enum, else "any".  The properties of an object, of an
 * array's items ("array of object") and of the first object alternative
 * of anyOf/oneOf are listed under it, indented two spaces per level.
 * Descriptions and hints are trimmed; their later lines are indented to
 * the text of their item.  Properties come in schema order.
 */
#include "layers/tool_prose.h"

#include <string.h>

#include "base/buf.h"
#include "base/map.h"
#include "base/util.h"
#include "data/json.h"
#include "data/tree.h"
#include "prompt/labels.h"
#include "prompt/tool.h"

/* The words of the section: labels indexed by enum label. */
struct words {
	const char *const *l;
	const char *gap;        /* between sentences: " " after an ASCII stop */
};

static bool
space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' ||
	    c == '\v';
}

static void
trim(const char **s, size_t *len)
{
	while (*len && space(**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && space((*s)[*len - 1]))
		(*len)--;
}

static bool
blank(const char *s, size_t len)
{
	trim(&s, &len);
	return len == 0;
}

static void
indent(struct buf *out, int n)
{
	for (; n > 0; n--)
		buf_putc(out, ' ');
}

/*
 * Text trimmed; each later line (CRLF or LF) loses its trailing blanks
 * and, unless empty, gets ind spaces in front.
 */
static void
put_text(struct buf *out, const char *s, size_t len, int ind)
{
	const char *end, *nl;
	size_t n;

	bool first;

	trim(&s, &len);
	end = s + len;
	for (first = true;; first = false) {
		nl = memchr(s, '\n', (size_t)(end - s));
		n = (size_t)((nl ? nl : end) - s);
		while (n && space(s[n - 1]))
			n--;
		if (!first) {
			buf_putc(out, '\n');
			if (n)
				indent(out, ind);
		}
		buf_put(out, s, n);
		if (!nl)
			break;
		s = nl + 1;
	}
}

/* Does text (trimmed) end a sentence, so that no '.' is needed? */
static bool
ends_sentence(const char *s, size_t len)
{
	static const char *const cjk[] = {
		"\xe3\x80\x82", "\xef\xbc\x81", "\xef\xbc\x9f", "\xef\xbc\x9a",
		"\xef\xbc\x9b",         /* 。！？：； */
	};
	size_t i;

	trim(&s, &len);
	if (len == 0 || memchr(".!?:;", s[len - 1], 5))
		return true;
	for (i = 0; i < LEN(cjk); i++)
		if (len >= 3 && memcmp(s + len - 3, cjk[i], 3) == 0)
			return true;
	return false;
}

/* Does text (trimmed) end in a CJK character?  Then a full stop after
 * it is the ideographic one, whatever the language. */
static bool
ends_cjk(const char *s, size_t len)
{
	uint32_t cp;
	size_t i;

	trim(&s, &len);
	for (i = len; i > 0 && ((unsigned char)s[i - 1] & 0xc0) == 0x80; i--)
		;
	if (i == 0 || utf8_decode(s + i - 1, len - (i - 1), &cp) == 0)
		return false;
	return (cp >= 0x2e80 && cp <= 0x9fff) || (cp >= 0xac00 &&
	    cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) ||
	    (cp >= 0xff00 && cp <= 0xffef) || (cp >= 0x20000 &&
	    cp <= 0x3fffd);
}

/* Is s all ASCII? */
static bool
ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

static const char *
json_type(enum node_kind kind)
{
	switch (kind) {
	case NODE_TABLE:
		return "object";
	case NODE_ARRAY:
		return "array";
	case NODE_INT:
		return "integer";
	case NODE_FLOAT:
		return "number";
	case NODE_BOOL:
		return "boolean";
	case NODE_NULL:
		return "null";
	case NODE_STRING:
	case NODE_DATETIME:
		break;
	}
	return "string";
}

static const struct node *
string_at(const struct node *s, const char *key)
{
	const struct node *v = tree_get(s, key);

	return v && v->kind == NODE_STRING ? v : NULL;
}

static void
truncate_to(struct buf *out, size_t len)
{
	out->len = len;
	if (out->data)
		out->data[len] = '\0';
}

static bool put_type(struct buf *out, const struct node *s, int depth);

/* One type name; an array names its items' type when known. */
static void
put_type_name(struct buf *out, const struct node *s, const struct node *name,
    int depth)
{
	const struct node *items;
	size_t mark;

	buf_put(out, name->u.str.s, name->u.str.len);
	items = tree_get(s, "items");
	if (strcmp(name->u.str.s, "array") != 0 || !items)
		return;
	mark = out->len;
	buf_puts(out, " of ");
	if (!put_type(out, items, depth + 1))
		truncate_to(out, mark);
}

/* Is word one of the " or "-separated words of list[0..len)? */
static bool
has_word(const char *list, size_t len, const char *word, size_t wlen)
{
	const char *p = list, *end = list + len, *q;

	while (p < end) {
		q = strstr(p, " or ");
		if (!q || q > end)
			q = end;
		if ((size_t)(q - p) == wlen && memcmp(p, word, wlen) == 0)
			return true;
		p = q + 4;
	}
	return false;
}

/* anyOf/oneOf alternatives joined by " or ", duplicates once. */
static bool
put_alternatives(struct buf *out, const struct node *alts, int depth)
{
	struct buf word = BUF_INIT;
	size_t start = out->len, i;
	bool any = false;

	for (i = 0; i < alts->u.array.n; i++) {
		buf_reset(&word);
		if (!put_type(&word, alts->u.array.items[i], depth + 1))
			continue;
		if (has_word(out->data + start, out->len - start, word.data,
		    word.len))
			continue;
		if (any)
			buf_puts(out, " or ");
		buf_put(out, word.data, word.len);
		any = true;
	}
	buf_free(&word);
	return any;
}

/*
 * The type of schema s in words; false, with nothing written, when the
 * schema says nothing about it.
 */
static bool
put_type(struct buf *out, const struct node *s, int depth)
{
	const struct node *type, *alts, *e;
	size_t i, n = 0;
	const char *kind = NULL;

	if (s->kind != NODE_TABLE || depth > TOOL_SCHEMA_DEPTH)
		return false;
	type = tree_get(s, "type");
	if (type && type->kind == NODE_STRING) {
		put_type_name(out, s, type, depth);
		return true;
	}
	if (type && type->kind == NODE_ARRAY) {
		for (i = 0; i < type->u.array.n; i++) {
			e = type->u.array.items[i];
			if (e->kind != NODE_STRING)
				continue;
			if (n++)
				buf_puts(out, " or ");
			put_type_name(out, s, e, depth);
		}
		return n > 0;
	}
	alts = tree_get(s, "anyOf");
	if (!alts)
		alts = tree_get(s, "oneOf");
	if (alts && alts->kind == NODE_ARRAY &&
	    put_alternatives(out, alts, depth))
		return true;
	if (tree_get(s, "properties")) {
		buf_puts(out, "object");
		return true;
	}
	e = tree_get(s, "enum");
	if (e && e->kind == NODE_ARRAY && e->u.array.n) {
		for (i = 0; i < e->u.array.n; i++) {
			const char *k = json_type(e->u.array.items[i]->kind);

			if (kind && strcmp(kind, k) != 0)
				return false;
			kind = k;
		}
		buf_puts(out, kind);
		return true;
	}
	return false;
}

/* The schema whose properties are listed under s: s itself, its items,
 * or an alternative; NULL if none has any. */
static const struct node *
nested(const struct node *s, int depth)
{
	const struct node *props, *items, *alts, *r;
	const char *const keys[] = { "anyOf", "oneOf" };
	size_t i, k;

	if (s->kind != NODE_TABLE || depth > TOOL_SCHEMA_DEPTH)
		return NULL;
	props = tree_get(s, "properties");
	if (props && props->kind == NODE_TABLE && props->u.table.n)
		return s;
	items = tree_get(s, "items");
	if (items && (r = nested(items, depth + 1)))
		return r;
	for (k = 0; k < LEN(keys); k++) {
		alts = tree_get(s, keys[k]);
		if (!alts || alts->kind != NODE_ARRAY)
			continue;
		for (i = 0; i < alts->u.array.n; i++)
			if ((r = nested(alts->u.array.items[i], depth + 1)))
				return r;
	}
	return NULL;
}

/*
 * The names in schema s's "required", as a set: a schema may list
 * thousands of properties, all of them required, so the lines must not
 * search the array each.  On the heap: the caller calls map_free().
 */
static void
required_set(struct map *set, const struct node *s)
{
	const struct node *req = tree_get(s, "required");
	size_t i;

	map_init(set, NULL);
	if (!req || req->kind != NODE_ARRAY)
		return;
	for (i = 0; i < req->u.array.n; i++) {
		const struct node *e = req->u.array.items[i];

		if (e->kind == NODE_STRING)
			map_put(set, e->u.str.s, e->u.str.len, (void *)e);
	}
}

static void
put_values(struct buf *out, const struct node *arr)
{
	size_t i;

	for (i = 0; i < arr->u.array.n; i++) {
		if (i)
			buf_puts(out, ", ");
		json_write(out, arr->u.array.items[i], -1);
	}
}

/* After the type: ": DESCRIPTION. One of: V. Default: V." as far as the
 * property schema p has them. */
static void
put_details(struct buf *out, const struct node *p, int ind,
    const struct words *w)
{
	const struct node *desc = string_at(p, "description");
	const struct node *e = tree_get(p, "enum");
	const struct member *def = tree_member(p, "default", 7);

	if (desc && blank(desc->u.str.s, desc->u.str.len))
		desc = NULL;
	if (e && (e->kind != NODE_ARRAY || e->u.array.n == 0))
		e = NULL;
	if (desc || e || def)
		buf_puts(out, ":");
	if (desc) {
		buf_putc(out, ' ');
		put_text(out, desc->u.str.s, desc->u.str.len, ind + 2);
		if ((e || def) &&
		    !ends_sentence(desc->u.str.s, desc->u.str.len))
			buf_puts(out, ends_cjk(desc->u.str.s,
			    desc->u.str.len) && ascii(w->l[LABEL_STOP]) ?
			    "\xe3\x80\x82" : w->l[LABEL_STOP]);  /* 。 */
	}
	if (e) {
		if (desc)
			buf_puts(out, w->gap);
		else
			buf_putc(out, ' ');
		buf_puts(out, w->l[LABEL_ONE_OF]);
		buf_putc(out, ' ');
		put_values(out, e);
		buf_puts(out, w->l[LABEL_STOP]);
	}
	if (def) {
		buf_puts(out, desc || e ? w->gap : " ");
		buf_puts(out, w->l[LABEL_DEFAULT]);
		buf_putc(out, ' ');
		json_write(out, def->value, -1);
		buf_puts(out, w->l[LABEL_STOP]);
	}
}

/* One line per property of schema s, each starting with a newline. */
static void
put_properties(struct buf *out, const struct node *s, int ind, int depth,
    const struct words *w)
{
	const struct node *props = tree_get(s, "properties");
	const struct node *p, *sub;
	struct map required;
	size_t i;

	required_set(&required, s);
	for (i = 0; i < props->u.table.n; i++) {
		const struct member *m = &props->u.table.items[i];

		p = m->value;
		buf_putc(out, '\n');
		indent(out, ind);
		buf_puts(out, "- ");
		buf_put(out, m->key, m->keylen);
		buf_puts(out, " (");
		if (!put_type(out, p, depth + 1))
			buf_puts(out, "any");
		buf_puts(out, ", ");
		buf_puts(out, w->l[map_find(&required, m->key, m->keylen) ?
		    LABEL_REQUIRED : LABEL_OPTIONAL]);
		buf_putc(out, ')');
		put_details(out, p, ind, w);
		sub = depth < TOOL_SCHEMA_DEPTH ? nested(p, depth + 1) : NULL;
		if (sub)
			put_properties(out, sub, ind + 2, depth + 1, w);
	}
	map_free(&required);
}

static const char *
english(size_t i)
{
	return labels_default(LANG_EN, (enum label)i);
}

void
tool_prose(struct buf *out, const struct tool_list *list,
    const char *const *labels)
{
	const char *en[LABEL_COUNT];
	const struct node *props;
	struct words w;
	const char *stop;
	size_t i;

	if (list->n == 0)
		return;
	if (!labels) {
		for (i = 0; i < LABEL_COUNT; i++)
			en[i] = english(i);
		labels = en;
	}
	w.l = labels;
	stop = labels[LABEL_STOP];
	w.gap = *stop && (unsigned char)stop[strlen(stop) - 1] >= 0x80 ?
	    "" : " ";
	buf_puts(out, labels[LABEL_TOOLS_INTRO]);
	for (i = 0; i < list->n; i++) {
		const struct tool *t = list->items[i];

		buf_puts(out, "\n\n### ");
		buf_puts(out, t->name);
		buf_putc(out, '\n');
		put_text(out, t->description, strlen(t->description), 0);
		buf_putc(out, '\n');
		buf_puts(out, labels[LABEL_PARAMETERS]);
		props = tree_get(t->parameters, "properties");
		if (props && props->kind == NODE_TABLE && props->u.table.n) {
			put_properties(out, t->parameters, 0, 0, &w);
		} else {
			buf_putc(out, ' ');
			buf_puts(out, labels[LABEL_NONE]);
		}
		if (t->usage_hint) {
			buf_putc(out, '\n');
			buf_puts(out, labels[LABEL_WHEN_TO_USE]);
			buf_putc(out, ' ');
			put_text(out, t->usage_hint, strlen(t->usage_hint), 0);
		}
	}
}
