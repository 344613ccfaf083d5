/*
 * gotmpl_funcs_dicts: Sprig's dictionaries (dict, get, set, pick, merge,
 * dig, ...), its defaults and flow (default, empty, coalesce, ternary,
 * fail) and its reflection (typeOf, kindOf, deepEqual, deepCopy).
 */
#include "text/gotmpl_funcs.h"

#include <string.h>

#include "base/arena.h"
#include "base/util.h"

/* Sprig: dicts. */

static bool
f_dict(A)
{
	size_t i;

	*out = gv_map_new(AR);
	for (i = 0; i < n; i += 2) {
		struct gv k = gt_strval(x, &a[i]);

		gv_map_set(AR, out->u.m, k.u.s.s, k.u.s.n, i + 1 < n ?
		    a[i + 1] : gv_cstr(""));
	}
	return true;
}

static bool
f_get(A)
{
	struct gv *v;

	ARGS_UNUSED;
	if (a[0].kind != GV_MAP) {
		*out = gv_cstr("");
		return true;
	}
	v = gv_map_get(a[0].u.m, a[1].u.s.s, a[1].u.s.n);
	*out = v ? *v : gv_cstr("");
	return true;
}

static bool
f_set(A)
{
	ARGS_UNUSED;
	if (a[0].kind != GV_MAP)
		return gt_fail(x, "assignment to entry in nil map");
	gv_map_set(AR, a[0].u.m, a[1].u.s.s, a[1].u.s.n, a[2]);
	*out = a[0];
	return true;
}

static bool
f_unset(A)
{
	ARGS_UNUSED;
	if (a[0].kind == GV_MAP)
		gv_map_del(a[0].u.m, a[1].u.s.s, a[1].u.s.n);
	*out = a[0];
	return true;
}

static bool
f_haskey(A)
{
	ARGS_UNUSED;
	*out = gv_bool(a[0].kind == GV_MAP && gv_map_get(a[0].u.m,
	    a[1].u.s.s, a[1].u.s.n));
	return true;
}

static bool
f_pluck(A)
{
	size_t i, k = 0;

	*out = gt_list_of(x, n, NULL);
	for (i = 1; i < n; i++) {
		struct gv *v = a[i].kind == GV_MAP ? gv_map_get(a[i].u.m,
		    a[0].u.s.s, a[0].u.s.n) : NULL;

		if (v)
			out->u.l->v[k++] = *v;
	}
	out->u.l->n = k;
	return true;
}

static bool
f_keys(A)
{
	size_t i, j, k = 0, total = 0;

	for (i = 0; i < n; i++)
		if (a[i].kind == GV_MAP)
			total += a[i].u.m->n;
	*out = gt_list_of(x, total, "[]string");
	for (i = 0; i < n; i++)
		if (a[i].kind == GV_MAP)
			for (j = 0; j < a[i].u.m->n; j++)
				out->u.l->v[k++] = gv_str(a[i].u.m->items[j].k,
				    a[i].u.m->items[j].kn);
	return true;
}

static bool
f_values(A)
{
	size_t i;

	ARGS_UNUSED;
	if (a[0].kind != GV_MAP) {
		*out = gt_list_of(x, 0, NULL);
		return true;
	}
	*out = gt_list_of(x, a[0].u.m->n, NULL);
	for (i = 0; i < a[0].u.m->n; i++)
		out->u.l->v[i] = a[0].u.m->items[i].v;
	return true;
}

static bool
pick_omit(struct gt_exec *x, struct gv *a, size_t n, struct gv *out,
    bool pick)
{
	size_t i, j;

	*out = gv_map_new(AR);
	if (a[0].kind != GV_MAP)
		return true;
	for (i = 0; i < a[0].u.m->n; i++) {
		const struct gv_item *it = &a[0].u.m->items[i];
		bool listed = false;

		for (j = 1; j < n; j++)
			if (a[j].u.s.n == it->kn && memcmp(a[j].u.s.s, it->k,
			    it->kn) == 0)
				listed = true;
		if (listed == pick)
			gv_map_set(AR, out->u.m, it->k, it->kn, it->v);
	}
	return true;
}


static void
merge_into(struct gt_exec *x, struct gv_map *dst, const struct gv_map *src,
    bool overwrite)
{
	size_t i;

	for (i = 0; i < src->n; i++) {
		const struct gv_item *it = &src->items[i];
		struct gv *d = gv_map_get(dst, it->k, it->kn);

		if (d && d->kind == GV_MAP && it->v.kind == GV_MAP)
			merge_into(x, d->u.m, it->v.u.m, overwrite);
		else if (!d || overwrite || gv_empty(d))
			gv_map_set(AR, dst, it->k, it->kn, it->v);
	}
}

static bool
merge(struct gt_exec *x, struct gv *a, size_t n, struct gv *out, bool over)
{
	size_t i;

	if (a[0].kind != GV_MAP)
		return gt_fail(x, "assignment to entry in nil map");
	for (i = 1; i < n; i++)
		if (a[i].kind == GV_MAP)
			merge_into(x, a[0].u.m, a[i].u.m, over);
	*out = a[0];
	return true;
}


/* pick ('p'), omit. */
static bool
f_pick(A)
{
	return pick_omit(x, a, n, out, gt_callmode(x) == 'p');
}

/* merge, mergeOverwrite ('o'), and their must spellings. */
static bool
f_merge(A)
{
	return merge(x, a, n, out, gt_callmode(x) == 'o');
}

static bool
f_dig(A)
{
	const struct gv *d = &a[n - 1];
	size_t i;

	if (n < 3)
		return gt_fail(x, "dig needs at least three arguments");
	for (i = 0; i + 2 < n; i++) {
		struct gv *v;
		struct gv k = a[i];

		if (k.kind != GV_STRING)
			return gt_fail(x, "interface conversion: interface {} is %s, not string",
			    gv_type(&k));
		if (d->kind != GV_MAP)
			return gt_fail(x, "interface conversion: interface {} is %s, not map[string]interface {}",
			    d->kind == GV_NIL ? "nil" : gv_type(d));
		v = gv_map_get(d->u.m, k.u.s.s, k.u.s.n);
		if (!v) {
			*out = a[n - 2];
			return true;
		}
		d = v;
	}
	*out = *d;
	return true;
}

/* Sprig: defaults and flow. */

static bool
f_default(A)
{
	*out = n < 2 || gv_empty(&a[1]) ? a[0] : a[1];
	return true;
}

static bool
f_empty(A)
{
	ARGS_UNUSED;
	*out = gv_bool(gv_empty(&a[0]));
	return true;
}

static bool
f_coalesce(A)
{
	size_t i;

	ARGS_UNUSED;
	*out = gv_nil();
	for (i = 0; i < n; i++)
		if (!gv_empty(&a[i])) {
			*out = a[i];
			break;
		}
	return true;
}

static bool
f_all(A)
{
	size_t i;

	*out = gv_bool(true);
	for (i = 0; i < n; i++)
		if (gv_empty(&a[i]))
			*out = gv_bool(false);
	return true;
}

static bool
f_any(A)
{
	size_t i;

	*out = gv_bool(false);
	for (i = 0; i < n; i++)
		if (!gv_empty(&a[i]))
			*out = gv_bool(true);
	return true;
}

static bool
f_ternary(A)
{
	ARGS_UNUSED;
	*out = a[2].u.b ? a[0] : a[1];
	return true;
}

static bool
f_fail(A)
{
	ARGS_UNUSED;
	return gt_fail(x, "%.*s", (int)a[0].u.s.n, a[0].u.s.s);
}

/* Sprig: types. */

static bool
f_typeof(A)
{
	ARGS_UNUSED;
	*out = gv_cstr(a[0].kind == GV_NIL ? "<nil>" : gv_type(&a[0]));
	return true;
}

static bool
f_kindof(A)
{
	ARGS_UNUSED;
	*out = gv_cstr(gv_kindname(&a[0]));
	return true;
}

static bool
f_typeis(A)
{
	const char *t = a[1].kind == GV_NIL ? "<nil>" : gv_type(&a[1]);

	ARGS_UNUSED;
	*out = gv_bool(strlen(t) == a[0].u.s.n && memcmp(t, a[0].u.s.s,
	    a[0].u.s.n) == 0);
	return true;
}

static bool
f_typeislike(A)
{
	const char *t = a[1].kind == GV_NIL ? "<nil>" : gv_type(&a[1]);
	const char *like = arena_printf(AR, "*%.*s", (int)a[0].u.s.n,
	    a[0].u.s.s);

	ARGS_UNUSED;
	*out = gv_bool((strlen(t) == a[0].u.s.n && memcmp(t, a[0].u.s.s,
	    a[0].u.s.n) == 0) || strcmp(like, t) == 0);
	return true;
}

static bool
f_kindis(A)
{
	const char *k = gv_kindname(&a[1]);

	ARGS_UNUSED;
	*out = gv_bool(strlen(k) == a[0].u.s.n && memcmp(k, a[0].u.s.s,
	    a[0].u.s.n) == 0);
	return true;
}

static bool
f_deepequal(A)
{
	ARGS_UNUSED;
	*out = gv_bool(gv_deep_equal(&a[0], &a[1]));
	return true;
}

static bool
f_deepcopy(A)
{
	ARGS_UNUSED;
	*out = gv_deep_copy(AR, &a[0]);
	return true;
}

const struct gt_func gt_funcs_dicts[] = {
	{ "all", "a*", f_all, NULL, false, 0 },
	{ "any", "a*", f_any, NULL, false, 0 },
	{ "coalesce", "a*", f_coalesce, NULL, false, 0 },
	{ "deepCopy", "a", f_deepcopy, NULL, false, 0 },
	{ "deepEqual", "aa", f_deepequal, NULL, false, 0 },
	{ "default", "aa*", f_default, NULL, false, 0 },
	{ "dict", "a*", f_dict, NULL, false, 0 },
	{ "dig", "a*", f_dig, NULL, false, 0 },
	{ "empty", "a", f_empty, NULL, false, 0 },
	{ "fail", "s", f_fail, NULL, false, 0 },
	{ "get", "ms", f_get, NULL, false, 0 },
	{ "hasKey", "ms", f_haskey, NULL, false, 0 },
	{ "keys", "m*", f_keys, NULL, false, 0 },
	{ "kindIs", "sa", f_kindis, NULL, false, 0 },
	{ "kindOf", "a", f_kindof, NULL, false, 0 },
	{ "merge", "mm*", f_merge, NULL, false, 0 },
	{ "mergeOverwrite", "mm*", f_merge, NULL, false, 'o' },
	{ "mustDeepCopy", "a", f_deepcopy, NULL, false, 0 },
	{ "mustMerge", "mm*", f_merge, NULL, false, 0 },
	{ "mustMergeOverwrite", "mm*", f_merge, NULL, false, 'o' },
	{ "omit", "ms*", f_pick, NULL, false, 0 },
	{ "pick", "ms*", f_pick, NULL, false, 'p' },
	{ "pluck", "sm*", f_pluck, NULL, false, 0 },
	{ "set", "msa", f_set, NULL, false, 0 },
	{ "ternary", "aab", f_ternary, NULL, false, 0 },
	{ "typeIs", "sa", f_typeis, NULL, false, 0 },
	{ "typeIsLike", "sa", f_typeislike, NULL, false, 0 },
	{ "typeOf", "a", f_typeof, NULL, false, 0 },
	{ "unset", "ms", f_unset, NULL, false, 0 },
	{ "values", "m", f_values, NULL, false, 0 },
};
const size_t gt_nfuncs_dicts = LEN(gt_funcs_dicts);
