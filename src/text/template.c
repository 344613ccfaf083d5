#include "text/template.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

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

bool
template_vars_from(struct run *run, struct tvars *v, const struct node *t)
{
	struct arena *a = &run->arena;
	size_t i;
	bool ok = true;

	if (!t || t->kind != NODE_TABLE)
		return true;
	for (i = 0; i < t->u.table.n; i++) {
		const struct member *m = &t->u.table.items[i];
		const struct node *x = m->value;
		const char *s = NULL;
		size_t len;

		if (!template_name_ok(m->key, m->keylen)) {
			diag_error(run, run_source(run, m->keysrc), m->keyspan,
			    MSG_BAD_VAR_NAME, (int)m->keylen, m->key);
			ok = false;
			continue;
		}

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
	return ok;
}

/*
 * Names: ASCII letters and '_', then also digits, '.' and '-' -- and
 * the letters, digits and marks of any script (\p{L}, \p{N}, \p{M}),
 * which PCRE2 classifies one code point at a time, so {{角色}} is a
 * name.  The pattern is compiled on first need and freed by namer_free.
 */
struct namer {
	pcre2_code *re;
	pcre2_match_data *md;
};

static void
namer_free(struct namer *nm)
{
	pcre2_match_data_free(nm->md);
	pcre2_code_free(nm->re);
}

/* The length of the well-formed UTF-8 sequence at s (< n), or 0. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	size_t k, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		k = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		k = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		k = 4;
	else
		return 0;
	if (k > n)
		return 0;
	for (i = 1; i < k; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return k;
}

/* The length of the name character at text[i] (< len), or 0. */
static size_t
name_char(struct namer *nm, const char *text, size_t len, size_t i,
    bool first)
{
	const unsigned char c = (unsigned char)text[i];
	PCRE2_UCHAR msg[128];
	PCRE2_SIZE off;
	size_t k;
	int err;

	if (c < 0x80)
		return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    c == '_' || (!first && ((c >= '0' && c <= '9') ||
		    c == '.' || c == '-'));
	k = utf8_len((const unsigned char *)text + i, len - i);
	if (k == 0)
		return 0;
	if (!nm->re) {
		nm->re = pcre2_compile((PCRE2_SPTR)"^[\\p{L}\\p{N}\\p{M}]$",
		    PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &err, &off,
		    NULL);
		if (!nm->re) {
			pcre2_get_error_message(err, msg, sizeof(msg));
			die("template: the name pattern: %s", (char *)msg);
		}
		nm->md = pcre2_match_data_create_from_pattern(nm->re, NULL);
		if (!nm->md)
			die("template: out of memory");
	}
	return pcre2_match(nm->re, (PCRE2_SPTR)text + i, k, 0, 0, nm->md,
	    NULL) >= 0 ? k : 0;
}

/* The end of the name starting at text[i]: i when there is none. */
static size_t
name_end(struct namer *nm, const char *text, size_t len, size_t i)
{
	size_t k, j = i;

	while (j < len && (k = name_char(nm, text, len, j, j == i)) > 0)
		j += k;
	return j;
}

bool
template_name_ok(const char *s, size_t len)
{
	struct namer nm = { NULL, NULL };
	bool ok = len > 0 && name_end(&nm, s, len, 0) == len;

	namer_free(&nm);
	return ok;
}

/*
 * The placeholder at text[i] ("{{", blanks, a name, blanks, "}}"): its
 * end, and the name in [*ns, *ne).  0 when there is none.
 */
static size_t
placeholder(struct namer *nm, const char *text, size_t len, size_t i,
    size_t *ns, size_t *ne)
{
	size_t e;

	if (text[i] != '{' || i + 1 >= len || text[i + 1] != '{')
		return 0;
	*ns = i + 2;
	while (*ns < len && (text[*ns] == ' ' || text[*ns] == '\t'))
		(*ns)++;
	*ne = name_end(nm, text, len, *ns);
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
	struct namer nm = { NULL, NULL };
	bool ok = true, changed = false;

	while (i + 1 < len) {
		const char *brace = memchr(text + i, '{', len - i - 1);
		struct tvar *t;
		struct span sp;
		uint32_t src;

		if (!brace)
			break;
		i = (size_t)(brace - text);
		e = placeholder(&nm, text, len, i, &ns, &ne);
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
	namer_free(&nm);
	if (!changed) {
		*out = *in;
		return ok;
	}
	edit_copy(&ed, last, len);
	edit_end(&ed, out);
	return ok;
}
