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
#include "data/tree.h"
#include "base/util.h"

void
template_vars_init(struct run *run, struct tvars *v)
{
	map_init(&v->names, &run->arena);
	v->keep_unknown = false;
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

bool
template_expand(struct run *run, struct tvars *v, const struct etext *in,
    struct etext *out)
{
	const char *text = in->s;
	size_t len = in->len, i = 0, last = 0, e, ns, ne;
	struct edit ed;
	bool ok = true, changed = false;

	while (i + 1 < len) {
		const char *brace = memchr(text + i, '{', len - i - 1);
		struct tvar *t;
		struct span sp;
		uint32_t src;

		if (!brace)
			break;
		i = (size_t)(brace - text);
		e = placeholder(text, len, i, &ns, &ne);
		if (!e) {
			/* One may start at the next brace ("{{{name}}}"). */
			i++;
			continue;
		}
		t = template_var_get(v, text + ns, ne - ns);
		if (!t && v->keep_unknown) {
			i = e;
			continue;
		}
		if (!changed)
			edit_begin(&ed, run, in);
		changed = true;
		edit_copy(&ed, last, i);
		if (t) {
			edit_insert(&ed, t->value, t->len, i, e - i);
			t->used = true;
		} else if (etext_locate(in, i, e - i, &src, &sp)) {
			diag_error(run, run_source(run, src), sp,
			    MSG_UNKNOWN_PLACEHOLDER, (int)(ne - ns),
			    text + ns);
			ok = false;
		} else {
			diag_plain(run, DIAG_ERROR, MSG_UNKNOWN_PLACEHOLDER,
			    (int)(ne - ns), text + ns);
			ok = false;
		}
		last = i = e;
	}
	if (!changed) {
		*out = *in;
		return ok;
	}
	edit_copy(&ed, last, len);
	edit_end(&ed, out);
	return ok;
}
