#include "profile/set.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "base/map.h"
#include "base/vec.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "profile/schema.h"

/* The entries of one array of tables by identity (first one wins). */
struct entry_index {
	const struct node *arr;
	struct map ids;
};

struct setter {
	struct run *run;
	/* One per array of tables reached so far: a handful. */
	VEC(struct entry_index) idx;
};

/* One setting on its way down the tree. */
struct walk {
	const struct setting *s;
	const char *key;        /* the setting's name */
	size_t klen;
	const char *path;       /* the dotted path so far, for messages */
	struct node *t;         /* the table the next part names a key of */
	const struct node *arr; /* the array t is an entry of, or NULL */
	const struct schema *sch;       /* t's schema, or NULL: any key */
	bool in_vars;
};

/* ---- typing ----------------------------------------------------------- */

static struct node *
int_node(struct run *run, const struct setting *s, const char *v, size_t len)
{
	char *tmp = arena_strndup(&run->arena, v, len), *end;
	long long ll;
	struct node *n;

	errno = 0;
	ll = strtoll(tmp, &end, 10);
	if (!len || *end != '\0' || errno != 0)
		return NULL;
	n = tree_new(&run->arena, NODE_INT, s->src->id, s->value);
	n->u.i = ll;
	return n;
}

static struct node *
bool_node(struct run *run, const struct setting *s, const char *v, size_t len)
{
	struct node *n;
	bool b;

	if (len == 4 && memcmp(v, "true", 4) == 0)
		b = true;
	else if (len == 5 && memcmp(v, "false", 5) == 0)
		b = false;
	else
		return NULL;
	n = tree_new(&run->arena, NODE_BOOL, s->src->id, s->value);
	n->u.b = b;
	return n;
}

/* A key the schema does not know (params, or nothing): the value's own
 * look decides -- boolean, integer, float, else string. */
static struct node *
inferred(struct run *run, const struct setting *s, const char *v, size_t len)
{
	struct arena *a = &run->arena;
	struct node *n = bool_node(run, s, v, len);
	char *tmp, *end;
	double d;

	if (!n)
		n = int_node(run, s, v, len);
	if (n)
		return n;
	tmp = arena_strndup(a, v, len);
	d = strtod(tmp, &end);
	if (len && *end == '\0' && (v[0] == '-' || v[0] == '+' ||
	    v[0] == '.' || (v[0] >= '0' && v[0] <= '9'))) {
		/* 1e400 would be sent as null: JSON has no infinity. */
		if (isinf(d) || isnan(d)) {
			diag_error(run, s->src, s->value,
			    MSG_TOML_FLOAT_OVERFLOW);
			return NULL;
		}
		n = tree_new(a, NODE_FLOAT, s->src->id, s->value);
		n->u.f = d;
		return n;
	}
	return tree_new_string(a, v, len, s->src->id, s->value);
}

/* The value of a --set, typed as the key expects. */
static struct node *
typed_value(struct run *run, const struct setting *s, const char *path,
    const struct schema_field *f)
{
	const char *v = s->src->text + s->value.off, *want;
	size_t len = s->value.len;
	struct node *n = NULL;

	/* --set-json: any JSON value, checked with the profile after. */
	if (s->json)
		return json_parse_range(run, s->src, s->value.off, len, &n) ?
		    n : NULL;
	if (!f || f->type == SCHEMA_ANY)
		return inferred(run, s, v, len);
	switch (f->type) {
	case SCHEMA_STRING:
	case SCHEMA_SCALARS:
		return tree_new_string(&run->arena, v, len, s->src->id,
		    s->value);
	case SCHEMA_PRIORITY:
		/* A number stays a number, so that the range check speaks
		 * of it; anything else is a priority name. */
		n = int_node(run, s, v, len);
		return n ? n : tree_new_string(&run->arena, v, len,
		    s->src->id, s->value);
	case SCHEMA_BOOL:
		n = bool_node(run, s, v, len);
		want = "true or false";
		break;
	case SCHEMA_INT:
		n = int_node(run, s, v, len);
		want = "an integer";
		break;
	default:
		want = schema_type_text(f->type);
		break;
	}
	if (!n)
		diag_error(run, s->src, s->value, MSG_SET_BAD_VALUE, path, want,
		    arena_strndup(&run->arena, v, len));
	return n;
}

/* ---- entries by identity ---------------------------------------------- */

static struct map *
index_of(struct setter *st, const struct node *arr)
{
	struct entry_index *ix;
	size_t i, len;

	for (i = 0; i < st->idx.n; i++)
		if (st->idx.v[i].arr == arr)
			return &st->idx.v[i].ids;
	avec_push(&st->run->arena, &st->idx, (struct entry_index){ 0 });
	ix = &st->idx.v[st->idx.n - 1];
	ix->arr = arr;
	map_init(&ix->ids, &st->run->arena);
	for (i = 0; i < arr->u.array.n; i++) {
		struct node *e = arr->u.array.items[i];
		const char *id = schema_entry_id(e, &len);
		bool added;
		struct map_item *it;

		if (!id || !len)
			continue;
		it = map_intern(&ix->ids, id, len, &added);
		if (added)
			it->value = e;
	}
	return &ix->ids;
}

/* A setting changed what identifies an entry of arr: index it anew. */
static void
forget_index(struct setter *st, const struct node *arr)
{
	size_t i;

	for (i = 0; i < st->idx.n; i++)
		if (st->idx.v[i].arr == arr)
			st->idx.v[i] = st->idx.v[--st->idx.n];
}

/*
 * The entry of arr that key[e0..) names: the longest identity that the
 * rest starts with and a '.' or the end follows.  *end gets where the
 * identity ends.
 */
static struct node *
find_entry(struct setter *st, const struct node *arr, const char *key,
    size_t e0, size_t klen, size_t *end)
{
	const struct map *ids = index_of(st, arr);
	size_t p;

	for (p = klen; p > e0; p--) {
		struct node *e;

		if (p < klen && key[p] != '.')
			continue;
		e = map_get(ids, key + e0, p - e0);
		if (e) {
			*end = p;
			return e;
		}
	}
	return NULL;
}

/* ---- the walk --------------------------------------------------------- */

static size_t
part_end(const char *key, size_t i, size_t klen)
{
	while (i < klen && key[i] != '.')
		i++;
	return i;
}

static bool
no_entry(struct run *run, const struct walk *w, size_t e0)
{
	size_t e1 = part_end(w->key, e0, w->klen);

	diag_error(run, w->s->src, span_make(w->s->name.off + e0, e1 - e0),
	    MSG_SET_NO_ENTRY, w->path,
	    arena_strndup(&run->arena, w->key + e0, e1 - e0));
	return false;
}

/* Step from array member m into the entry that key[e0..) names; *next
 * gets where the part after the entry starts. */
static bool
into_entry(struct setter *st, struct walk *w, const struct member *m,
    const struct schema_field *f, size_t e0, size_t *next)
{
	struct run *run = st->run;
	struct node *e;
	size_t e1;

	e = find_entry(st, m->value, w->key, e0, w->klen, &e1);
	if (!e)
		return no_entry(run, w, e0);
	if (e1 >= w->klen) {
		diag_error(run, w->s->src, span_make(w->s->name.off + e0,
		    e1 - e0), MSG_SET_WHOLE_ENTRY, w->path,
		    arena_strndup(&run->arena, w->key, w->klen));
		return false;
	}
	w->arr = m->value;
	w->t = e;
	w->sch = f->sub;
	w->in_vars = false;
	w->path = arena_printf(&run->arena, "%s.%.*s", w->path,
	    (int)(e1 - e0), w->key + e0);
	*next = e1 + 1;
	return true;
}

/* Set the last part c of the key in w->t. */
static bool
set_last(struct setter *st, struct walk *w, const struct schema_field *f,
    const char *c, size_t clen, struct span comp)
{
	struct node *v = typed_value(st->run, w->s, w->path, f);

	if (!v)
		return false;
	tree_set(&st->run->arena, w->t, c, clen, w->s->src->id, comp, v);
	if (w->arr && ((clen == 4 && (memcmp(c, "name", 4) == 0 ||
	    memcmp(c, "file", 4) == 0)) || (clen == 3 &&
	    memcmp(c, "key", 3) == 0)))
		forget_index(st, w->arr);
	return true;
}

/* Step into the table under part c (made if missing); *next gets where
 * the next part starts. */
static bool
step(struct setter *st, struct walk *w, const struct schema_field *f,
    const char *c, size_t j, size_t *next)
{
	struct run *run = st->run;
	size_t clen = (size_t)(w->key + j - c);
	struct span comp = span_make(w->s->name.off + (uint32_t)(c - w->key),
	    clen);
	struct member *m = tree_member(w->t, c, clen);

	if (!m && f && f->type == SCHEMA_TABLES)
		return no_entry(run, w, j + 1);
	if (!m)
		m = tree_add(&run->arena, w->t, c, clen, w->s->src->id, comp,
		    tree_new(&run->arena, NODE_TABLE, w->s->src->id, comp));
	if (f && f->type == SCHEMA_TABLES && m->value->kind == NODE_ARRAY)
		return into_entry(st, w, m, f, j + 1, next);
	if (m->value->kind != NODE_TABLE) {
		diag_error(run, w->s->src, comp, MSG_SET_NOT_TABLE,
		    arena_strndup(&run->arena, w->key, w->klen), (int)j,
		    w->key, tree_kind_article(m->value->kind));
		return false;
	}
	w->t = m->value;
	w->arr = NULL;
	w->in_vars = f && f->type == SCHEMA_SCALARS;
	w->sch = f && f->type != SCHEMA_ANY && f->type != SCHEMA_SCALARS ?
	    f->sub : NULL;
	*next = j + 1;
	return true;
}

static bool
apply_one(struct setter *st, struct node *root, const struct setting *s)
{
	struct arena *a = &st->run->arena;
	/* Under [vars] every value is text, as with -v. */
	static const struct schema_field vars_value = { "", SCHEMA_STRING, 0,
		NULL, NULL };
	struct walk w = { s, s->src->text + s->name.off, s->name.len, "",
		root, NULL, &schema_profile, false };
	size_t i = 0, j;

	for (;;) {
		const char *c = w.key + i;
		const struct schema_field *f;
		struct span comp;

		j = part_end(w.key, i, w.klen);
		comp = span_make(s->name.off + i, j - i);
		if (j == i) {
			diag_error(st->run, s->src, s->name, MSG_SET_SYNTAX,
			    "KEY");
			return false;
		}
		w.path = *w.path ? arena_printf(a, "%s.%.*s", w.path,
		    (int)(j - i), c) : arena_strndup(a, c, j - i);
		f = w.sch ? schema_field(w.sch, c, j - i) : w.in_vars ?
		    &vars_value : NULL;
		if (w.sch && !f) {
			diag_error(st->run, s->src, comp, MSG_UNKNOWN_KEY,
			    diag_shown(st->run, w.path, strlen(w.path)),
			    schema_suggest(a, arena_strndup(a, c, j - i),
			    w.sch));
			return false;
		}
		if (j >= w.klen)
			return set_last(st, &w, f, c, j - i, comp);
		if (!step(st, &w, f, c, j, &i))
			return false;
	}
}

bool
set_apply(struct run *run, struct node *root, const struct setting *sets,
    size_t n)
{
	struct setter st;
	size_t i;
	bool ok = true;

	memset(&st, 0, sizeof(st));
	st.run = run;
	for (i = 0; i < n; i++)
		if (!apply_one(&st, root, &sets[i]))
			ok = false;
	return ok;
}
