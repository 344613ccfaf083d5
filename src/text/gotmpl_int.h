/*
 * gotmpl_int: what the parts of the Go template engine share -- values,
 * the syntax tree, the function table.  gotmpl_value.c makes and compares
 * values, gotmpl_lex.c and gotmpl_parse.c lex and parse (their
 * private header: gotmpl_lex.h), gotmpl_exec.c walks the tree,
 * gotmpl_fmt.c prints values as Go's fmt does, gotmpl_funcs*.c hold
 * the built-in and Sprig functions (their own private header:
 * gotmpl_funcs.h).
 *
 * Ownership: everything lives in the run's arena, except compiled regular
 * expressions (cached in the set, freed by gotmpl_free()).
 */
#ifndef GOTMPL_INT_H
#define GOTMPL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/map.h"
#include "diag/span.h"
#include "text/gotmpl.h"

struct run;
struct source;

/* Values, as Go's reflect sees them in a template. */
enum gv_kind {
	GV_INVALID,             /* no value: a missing map key */
	GV_NIL,                 /* a nil interface{} */
	GV_BOOL,
	GV_INT,
	GV_FLOAT,
	GV_STRING,
	GV_LIST,
	GV_MAP,
	GV_VERSION,             /* Sprig's *semver.Version */
};

struct gv {
	enum gv_kind kind;
	bool iface;             /* static type interface {} (an element of a
	                         * map or list, not yet unwrapped) */
	const char *type;       /* Go type when not the kind's usual one
	                         * ("int64", "[]string", "uint8") */
	union {
		bool b;
		int64_t i;
		double f;
		struct {
			const char *s;
			size_t n;
		} s;
		struct gv_list *l;
		struct gv_map *m;
		struct gv_version *ver;
	} u;
};

struct gv_list {
	struct gv *v;
	size_t n;
};

struct gv_item {
	const char *k;
	size_t kn;
	struct gv v;
};

/* Sorted by key, as Go prints and ranges maps; mutable in place (maps
 * are references in Go: Sprig's set changes the caller's map). */
struct gv_map {
	struct gv_item *items;
	size_t n, cap;
};

struct gv_version {
	uint64_t major, minor, patch;
	const char *pre, *meta, *original;
};

/* The syntax tree. */
enum gt_node_kind {
	GT_TEXT,
	GT_ACTION,
	GT_IF,
	GT_RANGE,
	GT_WITH,
	GT_TEMPLATE,
	GT_BREAK,
	GT_CONTINUE,
};

enum gt_arg_kind {
	GA_FIELD,               /* .A.B (fields[]; none: the dot) */
	GA_DOT,
	GA_VAR,                 /* $x.A.B */
	GA_FUNC,                /* an identifier naming a function */
	GA_CHAIN,               /* (pipe).A.B */
	GA_PIPE,                /* (pipe) */
	GA_NIL,
	GA_BOOL,
	GA_NUMBER,
	GA_STRING,
};

struct gt_pipe;

struct gt_arg {
	enum gt_arg_kind kind;
	struct span span;       /* Go's position: see the parser */
	const char *text;       /* as written, for messages */
	const char *name;       /* variable or function name */
	const char **fields;
	size_t nfields;
	struct gt_pipe *pipe;   /* GA_CHAIN, GA_PIPE */
	struct gv value;        /* constants */
	bool isfloat;           /* GA_NUMBER written as a float */
	const struct gt_func *fn;
};

struct gt_cmd {
	struct span span;
	struct gt_arg **args;
	size_t nargs;
	const char *text;
};

struct gt_pipe {
	struct span span;
	bool decl, assign;      /* := or = */
	const char *vars[2];
	size_t nvars;
	struct gt_cmd **cmds;
	size_t ncmds;
	const char *text;
};

struct gt_list;

struct gt_node {
	enum gt_node_kind kind;
	struct span span;
	const char *text;       /* GT_TEXT */
	size_t len;
	struct gt_pipe *pipe;
	struct gt_list *list, *elselist;
	const char *name;       /* GT_TEMPLATE */
};

struct gt_list {
	struct gt_node **v;
	size_t n, cap;
};

struct gt_tree {
	const char *name;
	const struct source *src;
	struct gt_list *root;
};

/* A template set. */
struct gotmpl {
	struct run *run;
	struct map trees;       /* name -> struct gt_tree */
	gotmpl_loader *load;
	void *loadctx;
	struct map regex;       /* pattern -> pcre2_code (owned) */
	unsigned derived;       /* derivePassword calls so far (its cap) */
};

/* The state of one execution, for the functions. */
struct gt_exec;

/* A function: its Go signature and its body.  Parameter types: 'a'
 * interface{}, 's' string, 'i' int, 'f' float64, 'b' bool, 'l' a list,
 * 'u' uint32 (number constants only: no value strata holds is one), 'v'
 * reflect.Value (the builtins: any, invalid allowed); a trailing '*'
 * makes the last variadic.  ret: the Go result type for messages. */
struct gt_func {
	const char *name;
	const char *params;
	bool (*fn)(struct gt_exec *x, struct gv *args, size_t n,
	    struct gv *out);
	const char *refused;    /* why strata refuses it, or NULL */
	bool lazy;              /* and/or: args evaluated by the executor */
	int mode;               /* which variant, for a body that serves
	                         * several names (gt_callmode) */
};

const struct gt_func *gt_func_find(const char *name, size_t len);

/* Function errors: gt_fail(x, fmt, ...) records "error calling NAME: "
 * + the text and returns false. */
bool gt_fail(struct gt_exec *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
struct arena *gt_arena(struct gt_exec *x);
/* The name and the mode of the function being called. */
const char *gt_callname(struct gt_exec *x);
int gt_callmode(struct gt_exec *x);
struct gotmpl *gt_set(struct gt_exec *x);

/* Values. */
struct gv gv_invalid(void);
struct gv gv_nil(void);
struct gv gv_bool(bool b);
struct gv gv_int(int64_t i);
struct gv gv_int64(int64_t i);
struct gv gv_float(double f);
struct gv gv_str(const char *s, size_t n);
struct gv gv_cstr(const char *s);
struct gv gv_list_new(struct arena *a, size_t n);
struct gv gv_map_new(struct arena *a);
/* Insert or replace key in m (kept sorted). */
void gv_map_set(struct arena *a, struct gv_map *m, const char *k, size_t kn,
    struct gv v);
struct gv *gv_map_get(const struct gv_map *m, const char *k, size_t kn);
bool gv_map_del(struct gv_map *m, const char *k, size_t kn);
struct gv gv_from_node(struct arena *a, const struct node *n);
/* The node for toJson; NULL for a value JSON cannot hold. */
struct node *gv_to_node(struct arena *a, const struct gv *v);
/* Go's truth: false, 0, "", nil, empty list or map are false. */
bool gv_truth(const struct gv *v);
/* Sprig's empty(). */
bool gv_empty(const struct gv *v);
/* Go's type and kind names ("[]interface {}", "slice"). */
const char *gv_type(const struct gv *v);
const char *gv_kindname(const struct gv *v);
bool gv_deep_equal(const struct gv *a, const struct gv *b);
struct gv gv_deep_copy(struct arena *a, const struct gv *v);
/* The value with its interface{} wrapper dropped (pipeline results). */
struct gv gv_unwrap(struct gv v);

/* Printing, as Go's fmt. */
/* %v of v (fmt.Sprint of one value). */
void gv_print(struct buf *b, const struct gv *v);
/* fmt.Sprint(args...): spaces between operands when neither is a
 * string. */
void gv_sprint(struct buf *b, const struct gv *v, size_t n);
/* fmt.Sprintln: spaces always, a newline at the end. */
void gv_sprintln(struct buf *b, const struct gv *v, size_t n);
/* fmt.Sprintf(format, args...). */
void gv_sprintf(struct buf *b, const char *fmt, size_t fn,
    const struct gv *v, size_t n);
/* strconv.Quote of s. */
void gv_quote(struct buf *b, const char *s, size_t n);
/* Go's shortest float formatting with %v rules (exponent at 21). */
void gv_float_str(struct buf *b, double f, char verb, int prec);

#endif
