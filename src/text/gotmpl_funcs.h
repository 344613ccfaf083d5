/*
 * gotmpl_funcs: what the families of template functions share, private
 * to src/text/gotmpl_funcs*.c.  Each family file (gotmpl_funcs_go.c for
 * text/template's builtins, gotmpl_funcs_strings.c, _lists, _dicts,
 * _math, _url, _encoding, _regex and _semver for Sprig's) defines its
 * functions and one table of them, with their Go signatures;
 * gotmpl_funcs.c finds a name across the tables and holds Sprig's
 * conversions below.
 *
 * Ownership: a function borrows its arguments and puts its result and
 * every string it makes in the run's arena (AR); gt_bstr() takes a
 * buf's text into the arena and frees the buf.  Only compiled regular
 * expressions live outside the arena (gotmpl_funcs_regex.c: the set owns
 * them).
 */
#ifndef GOTMPL_FUNCS_H
#define GOTMPL_FUNCS_H

#include "diag/run.h"
#include "text/gotmpl_int.h"

/* A function's parameters, its arena, and the silencer for the ones a
 * body does not read. */
#define A struct gt_exec *x, struct gv *a, size_t n, struct gv *out
#define AR (&gt_set(x)->run->arena)
#define ARGS_UNUSED (void)x; (void)a; (void)n

/* A mode bit: the must* spelling, which fails where the other gives a
 * zero value. */
#define GT_MUST 0x100

/* The families' tables (gotmpl_funcs_FAMILY.c). */
#define GT_FAMILY(f) \
	extern const struct gt_func gt_funcs_##f[]; \
	extern const size_t gt_nfuncs_##f;
GT_FAMILY(go)
GT_FAMILY(strings)
GT_FAMILY(lists)
GT_FAMILY(dicts)
GT_FAMILY(math)
GT_FAMILY(url)
GT_FAMILY(encoding)
GT_FAMILY(regex)
GT_FAMILY(semver)
#undef GT_FAMILY

/* b's text, in the arena. */
const char *gt_sdup(struct gt_exec *x, const struct buf *b);
/* b's text as a string value; b is freed. */
struct gv gt_bstr(struct gt_exec *x, struct buf *b);
/* Sprig's strval: strings as they are, others as %v. */
struct gv gt_strval(struct gt_exec *x, const struct gv *v);
/* cast.ToInt64 and cast.ToFloat64: 0 for what they cannot read. */
int64_t gt_to_int64(const struct gv *v);
double gt_to_float(const struct gv *v);
bool gt_is_list(const struct gv *v);
/* A list value, else Sprig's panic text ("Cannot what on type T"). */
bool gt_need_list(struct gt_exec *x, const struct gv *v, const char *what);
/* Sprig's strslice: a []string of v's items (nil items dropped). */
struct gv gt_strslice(struct gt_exec *x, const struct gv *v);
/* An n-item list of Go type `type`. */
struct gv gt_list_of(struct gt_exec *x, size_t n, const char *type);
/* *out = a copy of s in the arena; true. */
bool gt_ret_str(struct gt_exec *x, struct gv *out, const char *s, size_t n);

#endif
