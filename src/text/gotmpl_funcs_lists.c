/*
 * gotmpl_funcs_lists: Sprig's list functions (list, first, rest, append,
 * uniq, sortAlpha, slice, until, seq, chunk, ...) and their must*
 * spellings, with Sprig's panic texts for values that are not lists.
 */
#include "text/gotmpl_funcs.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/util.h"

/* Sprig: lists. */

static bool
f_list(A)
{
	size_t i;

	*out = gv_list_new(AR, n);
	for (i = 0; i < n; i++) {
		out->u.l->v[i] = a[i];
		out->u.l->v[i].iface = false;
	}
	return true;
}

static bool
f_first(A)
{
	ARGS_UNUSED;
	if (!gt_need_list(x, &a[0], "find first"))
		return false;
	*out = a[0].u.l->n ? a[0].u.l->v[0] : gv_nil();
	return true;
}

static bool
f_last(A)
{
	ARGS_UNUSED;
	if (!gt_need_list(x, &a[0], "find last"))
		return false;
	*out = a[0].u.l->n ? a[0].u.l->v[a[0].u.l->n - 1] : gv_nil();
	return true;
}

static bool
sub_list(struct gt_exec *x, const struct gv *l, size_t from, size_t to,
    struct gv *out)
{
	size_t i;

	*out = gt_list_of(x, to - from, NULL);
	for (i = from; i < to; i++)
		out->u.l->v[i - from] = l->u.l->v[i];
	return true;
}

static bool
f_rest(A)
{
	ARGS_UNUSED;
	if (!gt_need_list(x, &a[0], "find rest"))
		return false;
	if (!a[0].u.l->n) {
		*out = gt_list_of(x, 0, NULL);
		return true;
	}
	return sub_list(x, &a[0], 1, a[0].u.l->n, out);
}

static bool
f_initial(A)
{
	ARGS_UNUSED;
	if (!gt_need_list(x, &a[0], "find initial"))
		return false;
	if (!a[0].u.l->n) {
		*out = gt_list_of(x, 0, NULL);
		return true;
	}
	return sub_list(x, &a[0], 0, a[0].u.l->n - 1, out);
}

static bool
f_append(A)
{
	size_t i;

	ARGS_UNUSED;
	if (!gt_need_list(x, &a[0], "push"))
		return false;
	*out = gt_list_of(x, a[0].u.l->n + 1, NULL);
	for (i = 0; i < a[0].u.l->n; i++)
		out->u.l->v[i] = a[0].u.l->v[i];
	out->u.l->v[i] = a[1];
	return true;
}

static bool
f_prepend(A)
{
	size_t i;

	ARGS_UNUSED;
	if (!gt_need_list(x, &a[0], "prepend"))
		return false;
	*out = gt_list_of(x, a[0].u.l->n + 1, NULL);
	out->u.l->v[0] = a[1];
	for (i = 0; i < a[0].u.l->n; i++)
		out->u.l->v[i + 1] = a[0].u.l->v[i];
	return true;
}

static bool
f_reverse(A)
{
	size_t i, k;

	ARGS_UNUSED;
	if (!gt_need_list(x, &a[0], "find reverse"))
		return false;
	k = a[0].u.l->n;
	*out = gt_list_of(x, k, NULL);
	for (i = 0; i < k; i++)
		out->u.l->v[i] = a[0].u.l->v[k - 1 - i];
	return true;
}

static bool
in_list(const struct gv *l, const struct gv *v)
{
	size_t i;

	for (i = 0; i < l->u.l->n; i++)
		if (gv_deep_equal(&l->u.l->v[i], v))
			return true;
	return false;
}

static bool
f_has(A)
{
	ARGS_UNUSED;
	if (a[1].kind == GV_NIL || a[1].kind == GV_INVALID) {
		*out = gv_bool(false);
		return true;
	}
	if (!gt_need_list(x, &a[1], "find has"))
		return false;
	*out = gv_bool(in_list(&a[1], &a[0]));
	return true;
}

static bool
f_without(A)
{
	size_t i, k = 0;
	struct gv omit;

	if (!gt_need_list(x, &a[0], "find without"))
		return false;
	omit.kind = GV_LIST;
	omit.u.l = &(struct gv_list){ a + 1, n - 1 };
	*out = gt_list_of(x, a[0].u.l->n, NULL);
	for (i = 0; i < a[0].u.l->n; i++)
		if (!in_list(&omit, &a[0].u.l->v[i]))
			out->u.l->v[k++] = a[0].u.l->v[i];
	out->u.l->n = k;
	return true;
}

static bool
f_uniq(A)
{
	size_t i, k = 0;

	ARGS_UNUSED;
	if (!gt_need_list(x, &a[0], "find uniq"))
		return false;
	*out = gt_list_of(x, a[0].u.l->n, NULL);
	for (i = 0; i < a[0].u.l->n; i++) {
		out->u.l->n = k;
		if (!in_list(out, &a[0].u.l->v[i]))
			out->u.l->v[k++] = a[0].u.l->v[i];
	}
	out->u.l->n = k;
	return true;
}

static bool
f_compact(A)
{
	size_t i, k = 0;

	ARGS_UNUSED;
	if (!gt_need_list(x, &a[0], "compact"))
		return false;
	*out = gt_list_of(x, a[0].u.l->n, NULL);
	for (i = 0; i < a[0].u.l->n; i++)
		if (!gv_empty(&a[0].u.l->v[i]))
			out->u.l->v[k++] = a[0].u.l->v[i];
	out->u.l->n = k;
	return true;
}

static bool
f_concat(A)
{
	size_t i, j, total = 0, k = 0;

	for (i = 0; i < n; i++) {
		if (!gt_need_list(x, &a[i], "concat"))
			return false;
		total += a[i].u.l->n;
	}
	*out = gt_list_of(x, total, NULL);
	for (i = 0; i < n; i++)
		for (j = 0; j < a[i].u.l->n; j++)
			out->u.l->v[k++] = a[i].u.l->v[j];
	return true;
}

static int
cmp_str(const void *p, const void *q)
{
	const struct gv *a = p, *b = q;
	int c = memcmp(a->u.s.s, b->u.s.s, a->u.s.n < b->u.s.n ? a->u.s.n :
	    b->u.s.n);

	return c ? c : a->u.s.n < b->u.s.n ? -1 : a->u.s.n > b->u.s.n;
}

static bool
f_sortalpha(A)
{
	ARGS_UNUSED;
	if (!gt_is_list(&a[0])) {
		*out = gt_list_of(x, 1, "[]string");
		out->u.l->v[0] = gt_strval(x, &a[0]);
		return true;
	}
	*out = gt_strslice(x, &a[0]);
	qsort(out->u.l->v, out->u.l->n, sizeof(struct gv), cmp_str);
	return true;
}

static bool
f_slice(A)
{
	int64_t start = 0, end;

	if (!gt_is_list(&a[0]))
		return gt_fail(x, "list should be type of slice or array but %s",
		    gv_kindname(&a[0]));
	end = (int64_t)a[0].u.l->n;
	if (!a[0].u.l->n) {
		*out = gv_nil();
		return true;
	}
	if (n > 1)
		start = gt_to_int64(&a[1]);
	if (n > 2)
		end = gt_to_int64(&a[2]);
	if (start < 0 || end < start || end > (int64_t)a[0].u.l->n)
		return gt_fail(x, "reflect.Value.Slice: slice index out of bounds");
	return sub_list(x, &a[0], (size_t)start, (size_t)end, out);
}

/* Sprig's untilStep. */
static bool
until_step(struct gt_exec *x, int64_t start, int64_t stop, int64_t step,
    struct gv *out)
{
	size_t k = 0, cap = 0;
	int64_t i;
	struct gv *v = NULL;

	*out = gt_list_of(x, 0, "[]int");
	if ((stop < start && step >= 0) || (stop >= start && step <= 0))
		return true;
	for (i = start; stop < start ? i > stop : i < stop; i += step) {
		if (k == cap) {
			v = arena_grow(AR, v, cap, cap ? cap * 2 : 16,
			    sizeof(*v));
			cap = cap ? cap * 2 : 16;
		}
		if (k >= 1000000)
			return gt_fail(x, "list longer than a million items");
		v[k++] = gv_int(i);
	}
	out->u.l->v = v;
	out->u.l->n = k;
	return true;
}

static bool
f_until(A)
{
	ARGS_UNUSED;
	return until_step(x, 0, a[0].u.i, a[0].u.i < 0 ? -1 : 1, out);
}

static bool
f_untilstep(A)
{
	ARGS_UNUSED;
	return until_step(x, a[0].u.i, a[1].u.i, a[2].u.i, out);
}

static bool
f_seq(A)
{
	struct buf b = BUF_INIT;
	int64_t start, end, step, inc = 1;
	struct gv l;
	size_t i;

	switch (n) {
	case 1:
		start = 1;
		end = a[0].u.i;
		if (end < start)
			inc = -1;
		step = inc;
		break;
	case 2:
		start = a[0].u.i;
		end = a[1].u.i;
		step = inc = end < start ? -1 : 1;
		break;
	case 3:
		start = a[0].u.i;
		end = a[2].u.i;
		step = a[1].u.i;
		if (end < start) {
			inc = -1;
			if (step > 0) {
				*out = gv_cstr("");
				return true;
			}
		}
		break;
	default:
		*out = gv_cstr("");
		return true;
	}
	if (!until_step(x, start, end + inc, step, &l))
		return false;
	for (i = 0; i < l.u.l->n; i++)
		buf_printf(&b, "%s%lld", i ? " " : "",
		    (long long)l.u.l->v[i].u.i);
	*out = gt_bstr(x, &b);
	return true;
}

static bool
f_chunk(A)
{
	size_t len, cs, i, j, size;

	ARGS_UNUSED;
	if (!gt_is_list(&a[1]))
		return gt_fail(x, "Cannot chunk type %s", gv_kindname(&a[1]));
	if (a[0].u.i <= 0)
		return gt_fail(x, "runtime error: integer divide by zero");
	size = (size_t)a[0].u.i;
	len = a[1].u.l->n;
	cs = len ? (len - 1) / size + 1 : 0;
	*out = gt_list_of(x, cs, "[][]interface {}");
	for (i = 0; i < cs; i++) {
		size_t clen = i == cs - 1 && len % size ? len % size : size;

		out->u.l->v[i] = gt_list_of(x, clen, NULL);
		for (j = 0; j < clen; j++)
			out->u.l->v[i].u.l->v[j] = a[1].u.l->v[i * size + j];
	}
	return true;
}

const struct gt_func gt_funcs_lists[] = {
	{ "append", "aa", f_append, NULL, false, 0 },
	{ "chunk", "ia", f_chunk, NULL, false, 0 },
	{ "compact", "a", f_compact, NULL, false, 0 },
	{ "concat", "a*", f_concat, NULL, false, 0 },
	{ "first", "a", f_first, NULL, false, 0 },
	{ "has", "aa", f_has, NULL, false, 0 },
	{ "initial", "a", f_initial, NULL, false, 0 },
	{ "last", "a", f_last, NULL, false, 0 },
	{ "list", "a*", f_list, NULL, false, 0 },
	{ "mustAppend", "aa", f_append, NULL, false, 0 },
	{ "mustChunk", "ia", f_chunk, NULL, false, 0 },
	{ "mustCompact", "a", f_compact, NULL, false, 0 },
	{ "mustFirst", "a", f_first, NULL, false, 0 },
	{ "mustHas", "aa", f_has, NULL, false, 0 },
	{ "mustInitial", "a", f_initial, NULL, false, 0 },
	{ "mustLast", "a", f_last, NULL, false, 0 },
	{ "mustPrepend", "aa", f_prepend, NULL, false, 0 },
	{ "mustPush", "aa", f_append, NULL, false, 0 },
	{ "mustRest", "a", f_rest, NULL, false, 0 },
	{ "mustReverse", "a", f_reverse, NULL, false, 0 },
	{ "mustSlice", "aa*", f_slice, NULL, false, 0 },
	{ "mustUniq", "a", f_uniq, NULL, false, 0 },
	{ "mustWithout", "aa*", f_without, NULL, false, 0 },
	{ "prepend", "aa", f_prepend, NULL, false, 0 },
	{ "push", "aa", f_append, NULL, false, 0 },
	{ "rest", "a", f_rest, NULL, false, 0 },
	{ "reverse", "a", f_reverse, NULL, false, 0 },
	{ "seq", "i*", f_seq, NULL, false, 0 },
	{ "slice", "aa*", f_slice, NULL, false, 0 },
	{ "sortAlpha", "a", f_sortalpha, NULL, false, 0 },
	{ "tuple", "a*", f_list, NULL, false, 0 },
	{ "uniq", "a", f_uniq, NULL, false, 0 },
	{ "until", "i", f_until, NULL, false, 0 },
	{ "untilStep", "iii", f_untilstep, NULL, false, 0 },
	{ "without", "aa*", f_without, NULL, false, 0 },
};
const size_t gt_nfuncs_lists = LEN(gt_funcs_lists);
