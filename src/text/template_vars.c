/*
 * template_vars: the variables of strata's template language -- set from
 * the profile's [vars], the command line and JSON inputs, looked up by
 * name, tested for truth -- and the rule for a variable's name.
 */
#include "text/template.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"
#include "text/macro_lex.h"

void
template_vars_init(struct run *run, struct tvars *v)
{
	map_init(&v->names, &run->arena);
	v->keep_unknown = false;
	v->dir = NULL;
	v->now = v->seed = NULL;
	v->now_set = v->rng_set = false;
	v->now_ms = 0;
	v->rng = 0;
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
		/* Numbers and booleans keep their type for the Go dot. */
		if (x->kind == NODE_INT || x->kind == NODE_FLOAT ||
		    x->kind == NODE_BOOL)
			template_var_get(v, m->key, strlen(m->key))->node = x;
	}
}

const char *
template_scalar_text(struct arena *a, const struct node *x, size_t *len)
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
	const char *s = template_scalar_text(&run->arena, value, &len);

	template_var(run, v, name, s, len, src, span);
	t = template_var_get(v, name, strlen(name));
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

/* A byte of a multi-byte UTF-8 character counts: names may be written
 * in any script ({{角色}}); template_name_ok() checks the letters. */
#define name_char mlex_name_char

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
