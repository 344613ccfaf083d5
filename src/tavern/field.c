#include "tavern/field.h"

#include <math.h>
#include <stdlib.h>

#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"

static const struct node *
get(const struct node *t, const char *key)
{
	const struct node *v;

	if (!t || t->kind != NODE_TABLE)
		return NULL;
	v = tree_get(t, key);
	return v && v->kind != NODE_NULL ? v : NULL;
}

static bool
wrong(struct run *run, const struct node *v, const char *key,
    const char *want)
{
	diag_error(run, run_source(run, v->src), v->span,
	    MSG_TAVERN_WRONG_TYPE, key, want, tree_kind_article(v->kind));
	return false;
}

bool
field_str(struct run *run, const struct node *t, const char *key,
    const char *def, const char **out)
{
	const struct node *v = get(t, key);

	*out = def;
	if (!v)
		return true;
	if (v->kind != NODE_STRING)
		return wrong(run, v, key, "a string");
	*out = v->u.str.s;
	return true;
}

bool
field_int(struct run *run, const struct node *t, const char *key,
    int64_t def, int64_t *out)
{
	const struct node *v = get(t, key);
	char *end;

	*out = def;
	if (!v)
		return true;
	if (v->kind == NODE_INT) {
		*out = v->u.i;
		return true;
	}
	if (v->kind == NODE_FLOAT && v->u.f == floor(v->u.f) &&
	    fabs(v->u.f) < 9e15) {
		*out = (int64_t)v->u.f;
		return true;
	}
	if (v->kind == NODE_STRING && v->u.str.len) {
		long long ll = strtoll(v->u.str.s, &end, 10);

		if (*end == '\0') {
			*out = ll;
			return true;
		}
	}
	return wrong(run, v, key, "an integer");
}

bool
field_bool(struct run *run, const struct node *t, const char *key,
    bool def, bool *out)
{
	const struct node *v = get(t, key);

	*out = def;
	if (!v)
		return true;
	if (v->kind != NODE_BOOL)
		return wrong(run, v, key, "true or false");
	*out = v->u.b;
	return true;
}

bool
field_table(struct run *run, const struct node *t, const char *key,
    const struct node **out)
{
	const struct node *v = get(t, key);

	*out = NULL;
	if (!v)
		return true;
	if (v->kind != NODE_TABLE)
		return wrong(run, v, key, "an object");
	*out = v;
	return true;
}

bool
field_array(struct run *run, const struct node *t, const char *key,
    const struct node **out)
{
	const struct node *v = get(t, key);

	*out = NULL;
	if (!v)
		return true;
	if (v->kind != NODE_ARRAY)
		return wrong(run, v, key, "an array");
	*out = v;
	return true;
}

const struct node *
field_number(const struct node *t, const char *key)
{
	const struct node *v = get(t, key);

	return v && (v->kind == NODE_INT || v->kind == NODE_FLOAT) ? v :
	    NULL;
}

struct source *
field_read(struct run *run, const char *path, const struct node *named)
{
	return named ? run_read(run, path, run_source(run, named->src),
	    named->span) : run_read(run, path, NULL, span_make(0, 0));
}

bool
field_load(struct run *run, const char *path, const struct node *named,
    const char *what, struct node **out)
{
	struct source *src = field_read(run, path, named);

	*out = NULL;
	if (!src || !json_parse(run, src, out))
		return false;
	if ((*out)->kind != NODE_TABLE) {
		diag_error(run, src, (*out)->span, MSG_TAVERN_NOT_OBJECT,
		    what, tree_kind_article((*out)->kind));
		return false;
	}
	return true;
}
