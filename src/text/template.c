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
#include "data/tree.h"
#include "base/util.h"

void
template_var(struct run *run, struct tvars *v, const char *name,
    const char *value, size_t len, const struct source *src,
    struct span span)
{
	size_t i;
	struct tvar *t;

	for (i = 0; i < v->n; i++)
		if (strcmp(v->items[i].name, name) == 0)
			break;
	if (i == v->n) {
		if (v->n == v->cap) {
			size_t cap = v->cap ? v->cap * 2 : 8;

			v->items = arena_grow(&run->arena, v->items, v->n, cap,
			    sizeof(*v->items));
			v->cap = cap;
		}
		v->n++;
	}
	t = &v->items[i];
	t->name = name;
	t->value = value;
	t->len = len;
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

static bool
name_char(char c, bool first)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
	    (!first && ((c >= '0' && c <= '9') || c == '.' || c == '-'));
}

bool
template_expand(struct run *run, struct tvars *v, const char *text,
    size_t len, const struct source *src, uint32_t off, bool exact,
    struct span whole, struct buf *out)
{
	size_t i = 0, last = 0, k;
	bool ok = true;

	while (i + 1 < len) {
		size_t s, e, ns, ne;

		if (text[i] != '{' || text[i + 1] != '{') {
			i++;
			continue;
		}
		s = i;
		ns = i + 2;
		while (ns < len && (text[ns] == ' ' || text[ns] == '\t'))
			ns++;
		ne = ns;
		while (ne < len && name_char(text[ne], ne == ns))
			ne++;
		e = ne;
		while (e < len && (text[e] == ' ' || text[e] == '\t'))
			e++;
		if (ne == ns || e + 1 >= len || text[e] != '}' ||
		    text[e + 1] != '}') {
			/* Not a placeholder here; one may start at the next
			 * brace ("{{{name}}}"). */
			i++;
			continue;
		}
		e += 2;
		for (k = 0; k < v->n; k++)
			if (strlen(v->items[k].name) == ne - ns &&
			    memcmp(v->items[k].name, text + ns, ne - ns) == 0)
				break;
		buf_put(out, text + last, s - last);
		if (k < v->n) {
			buf_put(out, v->items[k].value, v->items[k].len);
			v->items[k].used = true;
		} else if (v->keep_unknown) {
			buf_put(out, text + s, e - s);
		} else {
			diag_error(run, src, exact ?
			    span_make(off + s, e - s) : whole,
			    MSG_UNKNOWN_PLACEHOLDER, (int)(ne - ns),
			    text + ns);
			ok = false;
		}
		last = i = e;
	}
	buf_put(out, text + last, len - last);
	return ok;
}
