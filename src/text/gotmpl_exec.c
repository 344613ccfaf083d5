/*
 * gotmpl_exec: walking the tree with a dot, as Go's exec.go does --
 * pipelines, fields, variables and their scopes, if/with/range, break
 * and continue, {{template}}, function calls checked against their
 * signatures, and Go's execution error texts at the node Go names.
 */
#include "text/gotmpl_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/util.h"
#include "data/tree.h"
#include "diag/run.h"

/* Go's maxExecDepth is 100000; a C stack holds far fewer frames. */
#define MAX_DEPTH 1000
#define MAX_NEST 10000
#define MAX_OUTPUT ((size_t)64 << 20)

struct gt_var {
	const char *name;
	struct gv v;
};

enum ctl {
	CTL_NONE,
	CTL_BREAK,
	CTL_CONTINUE,
};

struct gt_exec {
	struct gotmpl *set;
	struct run *run;
	const struct gt_tree *tree;
	struct buf *out;
	struct gt_var *vars;
	size_t nvars, cap;
	int depth;              /* nested lists */
	int tdepth;             /* {{template}} calls */
	const char *at_text;
	struct span at_span;
	const struct gt_func *callfn;
	struct span callspan;   /* the command of the call, for errors */
	const char *calltext;
	bool failed;
	enum ctl ctl;
};

struct arena *
gt_arena(struct gt_exec *x)
{
	return &x->run->arena;
}

const char *
gt_callname(struct gt_exec *x)
{
	return x->callfn->name;
}

int
gt_callmode(struct gt_exec *x)
{
	return x->callfn->mode;
}

struct gotmpl *
gt_set(struct gt_exec *x)
{
	return x->set;
}

static void
at(struct gt_exec *x, struct span sp, const char *text)
{
	x->at_span = sp;
	x->at_text = text;
}

/* Go's ErrorContext: the node's text. */
static const char *
context_text(struct gt_exec *x)
{
	return x->at_text ? x->at_text : "";
}

static bool
xerror(struct gt_exec *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static bool
xerror(struct gt_exec *x, const char *fmt, ...)
{
	va_list ap;
	struct buf b = BUF_INIT;

	if (x->failed)
		return false;
	x->failed = true;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	diag_error(x->run, x->tree->src, x->at_span, MSG_GOTMPL_EXEC,
	    x->tree->name, context_text(x), b.data);
	buf_free(&b);
	return false;
}

bool
gt_fail(struct gt_exec *x, const char *fmt, ...)
{
	va_list ap;
	struct buf b = BUF_INIT;
	bool r;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	at(x, x->callspan, x->calltext);
	r = xerror(x, "error calling %s: %s", x->callfn->name, b.data);
	buf_free(&b);
	return r;
}

static void
push(struct gt_exec *x, const char *name, struct gv v)
{
	if (x->nvars == x->cap) {
		x->vars = arena_grow(&x->run->arena, x->vars, x->cap,
		    x->cap ? x->cap * 2 : 16, sizeof(*x->vars));
		x->cap = x->cap ? x->cap * 2 : 16;
	}
	x->vars[x->nvars].name = name;
	x->vars[x->nvars].v = v;
	x->nvars++;
}

static bool
set_var(struct gt_exec *x, const char *name, struct gv v)
{
	size_t i;

	for (i = x->nvars; i-- > 0;)
		if (strcmp(x->vars[i].name, name) == 0) {
			x->vars[i].v = v;
			return true;
		}
	return xerror(x, "undefined variable: %s", name);
}

static bool
var_value(struct gt_exec *x, const char *name, struct gv *out)
{
	size_t i;

	for (i = x->nvars; i-- > 0;)
		if (strcmp(x->vars[i].name, name) == 0) {
			*out = x->vars[i].v;
			return true;
		}
	return xerror(x, "undefined variable: %s", name);
}

static bool eval_pipe(struct gt_exec *x, const struct gv *dot,
    const struct gt_pipe *p, struct gv *out);
static bool eval_cmd(struct gt_exec *x, const struct gv *dot,
    const struct gt_cmd *c, const struct gv *final, struct gv *out);

static const char *
iface_type(const struct gv *v)
{
	return v->iface ? "interface {}" : gv_type(v);
}

/* The semver methods Sprig's *semver.Version has. */
static bool
version_method(struct gt_exec *x, const struct gv_version *ver,
    const char *name, struct gv *out)
{
	struct buf b = BUF_INIT;

	if (strcmp(name, "Major") == 0)
		*out = gv_int(0), out->u.i = (int64_t)ver->major,
		out->type = "uint64";
	else if (strcmp(name, "Minor") == 0)
		*out = gv_int(0), out->u.i = (int64_t)ver->minor,
		out->type = "uint64";
	else if (strcmp(name, "Patch") == 0)
		*out = gv_int(0), out->u.i = (int64_t)ver->patch,
		out->type = "uint64";
	else if (strcmp(name, "Prerelease") == 0)
		*out = gv_cstr(ver->pre);
	else if (strcmp(name, "Metadata") == 0)
		*out = gv_cstr(ver->meta);
	else if (strcmp(name, "Original") == 0)
		*out = gv_cstr(ver->original);
	else if (strcmp(name, "String") == 0) {
		struct gv v = { GV_VERSION, false, NULL, { 0 } };

		v.u.ver = (struct gv_version *)ver;
		gv_print(&b, &v);
		*out = gv_str(arena_strndup(&x->run->arena, b.data, b.len),
		    b.len);
		buf_free(&b);
	} else
		return false;
	return true;
}

static bool
eval_field(struct gt_exec *x, const char *name, bool hasargs,
    const struct gv *recv, struct gv *out)
{
	if (recv->kind == GV_INVALID) {
		*out = gv_invalid();
		return true;
	}
	if (recv->kind == GV_NIL)
		return xerror(x, "nil pointer evaluating interface {}.%s",
		    name);
	if (recv->kind == GV_VERSION && version_method(x, recv->u.ver, name,
	    out)) {
		if (hasargs)
			return xerror(x, "wrong number of args for %s: want 0 got 1",
			    name);
		return true;
	}
	if (recv->kind == GV_MAP) {
		struct gv *v = gv_map_get(recv->u.m, name, strlen(name));

		if (hasargs)
			return xerror(x, "%s is not a method but has arguments",
			    name);
		if (!v) {
			*out = gv_invalid();
			return true;
		}
		*out = *v;
		out->iface = !recv->type;
		return true;
	}
	return xerror(x, "can't evaluate field %s in type %s", name,
	    recv->kind == GV_VERSION ? "*semver.Version" : iface_type(recv));
}

static bool
field_chain(struct gt_exec *x, struct gv recv, const char **f, size_t n,
    bool hasargs, struct gv *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!eval_field(x, f[i], i + 1 == n && hasargs, &recv, &recv))
			return false;
	}
	*out = recv;
	return true;
}

/* Go's validateType for a parameter of kind k ('a', 's', 'i', 'f', 'b',
 * 'm', 'v'). */
static bool
validate(struct gt_exec *x, char k, struct gv *v)
{
	const char *want;

	if (k == 'a' || k == 'v') {
		if (v->kind == GV_INVALID && k == 'a')
			*v = gv_nil();
		return true;
	}
	want = k == 's' ? "string" : k == 'i' ? "int" : k == 'f' ? "float64" :
	    k == 'b' ? "bool" : k == 'm' ? "map[string]interface {}" :
	    k == 'u' ? "uint32" : "?";
	if (v->kind == GV_INVALID) {
		if (k == 'm') {
			*v = gv_nil();
			return true;
		}
		return xerror(x, "invalid value; expected %s", want);
	}
	if ((k == 's' && v->kind == GV_STRING && !v->type) ||
	    (k == 'i' && v->kind == GV_INT && !v->type) ||
	    (k == 'f' && v->kind == GV_FLOAT) ||
	    (k == 'b' && v->kind == GV_BOOL) ||
	    (k == 'm' && v->kind == GV_MAP && !v->type) ||
	    (k == 'm' && v->kind == GV_NIL)) {
		v->iface = false;
		return true;
	}
	return xerror(x, "wrong type for value; expected %s; got %s", want,
	    v->kind == GV_NIL ? "interface {}" : gv_type(v));
}

/* A number constant for a uint32 parameter, as Go's reflect SetUint
 * stores it: any constant that is a whole number from 0 to 2^64-1,
 * truncated to its low 32 bits.  False for the others. */
static bool
literal_uint32(const struct gt_arg *a, struct gv *out)
{
	char clean[128], *w = clean, *end;
	const char *r = a->text;
	unsigned long long u;
	int base = 10;

	if (a->isfloat) {
		double f = a->value.u.f;

		if (a->value.kind != GV_FLOAT || !(f >= 0) || f != floor(f) ||
		    f >= 18446744073709551616.0)
			return false;
		*out = gv_int((int64_t)(uint32_t)(uint64_t)f);
		return true;
	}
	if (a->value.kind == GV_INT) {
		/* decimal, hex, octal, binary and character constants */
		if (a->value.u.i < 0)
			return false;
		*out = gv_int((int64_t)(uint32_t)a->value.u.i);
		return true;
	}
	/* above int64: the lexer kept no value, read the text again */
	if (*r == '+')
		r++;
	for (; *r && w < clean + sizeof(clean) - 1; r++)
		if (*r != '_')
			*w++ = *r;
	*w = '\0';
	w = clean;
	if (w[0] == '0' && (w[1] == 'x' || w[1] == 'X'))
		base = 16, w += 2;
	else if (w[0] == '0' && (w[1] == 'o' || w[1] == 'O'))
		base = 8, w += 2;
	else if (w[0] == '0' && (w[1] == 'b' || w[1] == 'B'))
		base = 2, w += 2;
	else if (w[0] == '0' && w[1])
		base = 8, w += 1;
	if (!isalnum((unsigned char)*w))
		return false;
	errno = 0;
	u = strtoull(w, &end, base);
	if (errno || *end)
		return false;
	*out = gv_int((int64_t)(uint32_t)u);
	return true;
}

/* Go's evalArg: an argument for a parameter of kind k. */
static bool
eval_arg(struct gt_exec *x, const struct gv *dot, char k,
    const struct gt_arg *a, struct gv *out)
{
	at(x, a->span, a->text);
	switch (a->kind) {
	case GA_DOT:
		*out = *dot;
		return validate(x, k, out);
	case GA_NIL:
		if (k == 'a' || k == 'v' || k == 'm') {
			*out = gv_nil();
			return true;
		}
		return xerror(x, "cannot assign nil to %s", k == 's' ?
		    "string" : k == 'i' ? "int" : k == 'f' ? "float64" :
		    k == 'u' ? "uint32" : "bool");
	case GA_FIELD:
		at(x, a->span, a->text);
		return field_chain(x, *dot, a->fields, a->nfields, false,
		    out) && validate(x, k, out);
	case GA_VAR:
		if (!var_value(x, a->name, out))
			return false;
		return field_chain(x, *out, a->fields, a->nfields, false,
		    out) && validate(x, k, out);
	case GA_PIPE:
		return eval_pipe(x, dot, a->pipe, out) && validate(x, k, out);
	case GA_FUNC: {
		struct gt_cmd c = { a->span, (struct gt_arg **)&a, 1,
		    a->text };

		return eval_cmd(x, dot, &c, NULL, out) && validate(x, k, out);
	}
	case GA_CHAIN: {
		struct gv r;

		if (!eval_pipe(x, dot, a->pipe, &r))
			return false;
		at(x, a->span, a->text);
		return field_chain(x, r, a->fields, a->nfields, false, out) &&
		    validate(x, k, out);
	}
	default:
		break;
	}
	switch (k) {
	case 'b':
		if (a->kind != GA_BOOL)
			return xerror(x, "expected bool; found %s", a->text);
		break;
	case 'f':
		if (a->kind != GA_NUMBER)
			return xerror(x, "expected float; found %s", a->text);
		*out = a->value;
		if (out->kind == GV_INT)
			*out = gv_float((double)out->u.i);
		return true;
	case 'i':
		if (a->kind != GA_NUMBER || a->isfloat)
			return xerror(x, "expected integer; found %s",
			    a->text);
		if (a->value.kind == GV_INVALID)
			return xerror(x, "%s overflows int", a->text);
		break;
	case 'u':
		if (a->kind != GA_NUMBER || !literal_uint32(a, out))
			return xerror(x, "expected unsigned integer; found %s",
			    a->text);
		return true;
	case 's':
		if (a->kind != GA_STRING)
			return xerror(x, "expected string; found %s", a->text);
		break;
	case 'm':
		return xerror(x, "can't handle %s for arg of type map[string]interface {}",
		    a->text);
	default:
		break;
	}
	*out = a->value;
	if (a->kind == GA_NUMBER && out->kind == GV_INVALID)
		return xerror(x, "%s overflows int", a->text);
	return true;
}

static char
param_kind(const struct gt_func *f, size_t i, bool *variadic, size_t *fixed)
{
	size_t n = strlen(f->params);

	*variadic = n && f->params[n - 1] == '*';
	*fixed = *variadic ? n - 2 : n;
	if (*variadic && i >= *fixed)
		return f->params[n - 2];
	return i < n ? f->params[i] : 'a';
}

static bool
call(struct gt_exec *x, const struct gv *dot, const struct gt_cmd *c,
    const struct gt_arg *fnarg, const struct gv *final, struct gv *out)
{
	const struct gt_func *f = fnarg->fn;
	size_t nargs = c->nargs - 1, numin = nargs + (final ? 1 : 0), i, fixed;
	bool variadic;
	struct gv *argv;
	const struct gt_func *saved;

	at(x, fnarg->span, fnarg->text);
	param_kind(f, 0, &variadic, &fixed);
	if (variadic && numin < fixed)
		return xerror(x, "wrong number of args for %s: want at least %zu got %zu",
		    f->name, fixed, nargs);
	if (!variadic && numin != fixed)
		return xerror(x, "wrong number of args for %s: want %zu got %zu",
		    f->name, fixed, numin);
	if (f->lazy) {
		bool isor = strcmp(f->name, "or") == 0;
		struct gv v = gv_invalid();

		for (i = 0; i < nargs; i++) {
			if (!eval_arg(x, dot, 'v', c->args[i + 1], &v))
				return false;
			v = gv_unwrap(v);
			if (gv_truth(&v) == isor) {
				*out = v;
				return true;
			}
		}
		if (final)
			v = gv_unwrap(*final);
		*out = v;
		return true;
	}
	argv = arena_array(&x->run->arena, numin + 1, sizeof(*argv));
	for (i = 0; i < nargs; i++)
		if (!eval_arg(x, dot, param_kind(f, i, &variadic, &fixed),
		    c->args[i + 1], &argv[i]))
			return false;
	if (final) {
		argv[i] = *final;
		if (!validate(x, param_kind(f, i, &variadic, &fixed),
		    &argv[i]))
			return false;
	}
	saved = x->callfn;
	x->callfn = f;
	x->callspan = c->span;
	x->calltext = c->text;
	*out = gv_invalid();
	if (!f->fn(x, argv, numin, out))
		return false;
	x->callfn = saved;
	return true;
}

static bool
not_a_function(struct gt_exec *x, const struct gt_cmd *c,
    const struct gv *final)
{
	if (c->nargs > 1 || final)
		return xerror(x, "can't give argument to non-function %s",
		    c->args[0]->text);
	return true;
}

static bool
eval_cmd(struct gt_exec *x, const struct gv *dot, const struct gt_cmd *c,
    const struct gv *final, struct gv *out)
{
	const struct gt_arg *a = c->args[0];
	bool hasargs = c->nargs > 1 || final;

	switch (a->kind) {
	case GA_FIELD:
		at(x, a->span, a->text);
		return field_chain(x, *dot, a->fields, a->nfields, hasargs,
		    out);
	case GA_CHAIN: {
		struct gv r;

		if (!eval_pipe(x, dot, a->pipe, &r))
			return false;
		at(x, a->span, a->text);
		return field_chain(x, gv_unwrap(r), a->fields, a->nfields,
		    hasargs, out);
	}
	case GA_FUNC:
		return call(x, dot, c, a, final, out);
	case GA_PIPE:
		return not_a_function(x, c, final) &&
		    eval_pipe(x, dot, a->pipe, out);
	case GA_VAR:
		at(x, a->span, a->text);
		if (!var_value(x, a->name, out))
			return false;
		if (!a->nfields)
			return not_a_function(x, c, final);
		return field_chain(x, *out, a->fields, a->nfields, hasargs,
		    out);
	default:
		break;
	}
	at(x, a->span, a->text);
	if (!not_a_function(x, c, final))
		return false;
	switch (a->kind) {
	case GA_DOT:
		*out = *dot;
		return true;
	case GA_NIL:
		return xerror(x, "nil is not a command");
	case GA_NUMBER:
		if (a->value.kind == GV_INVALID)
			return xerror(x, "%s overflows int", a->text);
		*out = a->value;
		return true;
	default:
		*out = a->value;
		return true;
	}
}

static bool
eval_pipe(struct gt_exec *x, const struct gv *dot, const struct gt_pipe *p,
    struct gv *out)
{
	struct gv v = gv_invalid();
	size_t i;
	bool have = false;

	at(x, p->span, p->text);
	for (i = 0; i < p->ncmds; i++) {
		struct gv r;

		if (!eval_cmd(x, dot, p->cmds[i], have ? &v : NULL, &r))
			return false;
		v = gv_unwrap(r);
		have = true;
	}
	for (i = 0; i < p->nvars; i++) {
		if (p->assign) {
			if (!set_var(x, p->vars[i], v))
				return false;
		} else {
			push(x, p->vars[i], v);
		}
	}
	*out = v;
	return true;
}

static bool walk_list(struct gt_exec *x, const struct gv *dot,
    const struct gt_list *l);

static bool
print_value(struct gt_exec *x, const struct gv *v)
{
	if (v->kind == GV_INVALID || v->kind == GV_NIL) {
		buf_puts(x->out, "<no value>");
		return true;
	}
	gv_print(x->out, v);
	if (x->out->len > MAX_OUTPUT) {
		x->failed = true;
		diag_error(x->run, x->tree->src, x->at_span, MSG_GOTMPL_OUTPUT,
		    MAX_OUTPUT >> 20);
		return false;
	}
	return true;
}

static bool
iteration(struct gt_exec *x, const struct gt_node *n, struct gv index,
    struct gv elem, size_t mark)
{
	const struct gt_pipe *p = n->pipe;
	bool ok;

	if (p->nvars > 0) {
		if (p->assign)
			ok = set_var(x, p->vars[0], p->nvars > 1 ? index : elem);
		else
			x->vars[x->nvars - 1].v = elem, ok = true;
		if (!ok)
			return false;
	}
	if (p->nvars > 1) {
		if (p->assign) {
			if (!set_var(x, p->vars[1], elem))
				return false;
		} else {
			x->vars[x->nvars - 2].v = index;
		}
	}
	ok = walk_list(x, &elem, n->list);
	x->nvars = mark;
	if (x->ctl == CTL_CONTINUE)
		x->ctl = CTL_NONE;
	return ok;
}

static bool
walk_range(struct gt_exec *x, const struct gv *dot, const struct gt_node *n)
{
	size_t outer = x->nvars, mark, i;
	struct gv v;
	bool ok = true, any = false;

	at(x, n->span, n->pipe->text);
	if (!eval_pipe(x, dot, n->pipe, &v))
		return false;
	mark = x->nvars;
	if (v.kind == GV_LIST) {
		for (i = 0; ok && i < v.u.l->n && x->ctl != CTL_BREAK; i++) {
			struct gv e = v.u.l->v[i];

			e.iface = !v.type || strcmp(v.type, "[]string") != 0;
			any = true;
			ok = iteration(x, n, gv_int((int64_t)i), e, mark);
		}
	} else if (v.kind == GV_MAP) {
		for (i = 0; ok && i < v.u.m->n && x->ctl != CTL_BREAK; i++) {
			struct gv e = v.u.m->items[i].v;

			e.iface = !v.type;
			any = true;
			ok = iteration(x, n, gv_str(v.u.m->items[i].k,
			    v.u.m->items[i].kn), e, mark);
		}
	} else if (v.kind != GV_INVALID) {
		struct buf b = BUF_INIT;

		gv_print(&b, &v);
		xerror(x, "range can't iterate over %s", b.data);
		buf_free(&b);
		return false;
	}
	if (x->ctl == CTL_BREAK)
		x->ctl = CTL_NONE;
	if (ok && !any && n->elselist)
		ok = walk_list(x, dot, n->elselist);
	x->nvars = outer;
	return ok;
}

static bool
walk_template(struct gt_exec *x, const struct gv *dot,
    const struct gt_node *n)
{
	const struct gt_tree *t = map_get(&x->set->trees, n->name,
	    strlen(n->name)), *saved;
	struct gt_var *vars;
	size_t nvars, cap;
	struct gv newdot = gv_invalid();
	bool ok;

	at(x, n->span, arena_printf(&x->run->arena, "{{template \"%s\"%s%s}}",
	    n->name, n->pipe ? " " : "", n->pipe ? n->pipe->text : ""));
	if (!t && x->set->load) {
		unsigned before = x->run->diag.errors;

		if (x->set->load(x->set->loadctx, x->set, n->name))
			t = map_get(&x->set->trees, n->name, strlen(n->name));
		if (x->run->diag.errors != before)
			return (x->failed = true, false);
	}
	if (!t)
		return xerror(x, "template \"%s\" not defined", n->name);
	if (x->tdepth >= MAX_DEPTH)
		return xerror(x, "exceeded maximum template depth (%d)",
		    MAX_DEPTH);
	if (n->pipe && !eval_pipe(x, dot, n->pipe, &newdot))
		return false;
	saved = x->tree;
	vars = x->vars;
	nvars = x->nvars;
	cap = x->cap;
	x->vars = NULL;
	x->nvars = x->cap = 0;
	push(x, "$", newdot);
	x->tree = t;
	x->tdepth++;
	ok = walk_list(x, &newdot, t->root);
	x->tdepth--;
	x->tree = saved;
	x->vars = vars;
	x->nvars = nvars;
	x->cap = cap;
	return ok;
}

static bool
walk(struct gt_exec *x, const struct gv *dot, const struct gt_node *n)
{
	struct gv v;
	size_t mark = x->nvars;
	bool ok = true;

	switch (n->kind) {
	case GT_TEXT:
		buf_put(x->out, n->text, n->len);
		return true;
	case GT_ACTION:
		if (!eval_pipe(x, dot, n->pipe, &v))
			return false;
		if (!n->pipe->nvars)
			return print_value(x, &v);
		return true;
	case GT_IF:
	case GT_WITH:
		if (!eval_pipe(x, dot, n->pipe, &v))
			return false;
		if (gv_truth(&v))
			ok = walk_list(x, n->kind == GT_WITH ? &v : dot,
			    n->list);
		else if (n->elselist)
			ok = walk_list(x, dot, n->elselist);
		x->nvars = mark;
		return ok;
	case GT_RANGE:
		return walk_range(x, dot, n);
	case GT_TEMPLATE:
		return walk_template(x, dot, n);
	case GT_BREAK:
		x->ctl = CTL_BREAK;
		return true;
	case GT_CONTINUE:
		x->ctl = CTL_CONTINUE;
		return true;
	}
	return true;
}

static bool
walk_list(struct gt_exec *x, const struct gv *dot, const struct gt_list *l)
{
	size_t i;

	if (++x->depth > MAX_NEST) {
		x->depth--;
		return xerror(x, "exceeded maximum template depth (%d)",
		    MAX_DEPTH);
	}
	for (i = 0; l && i < l->n; i++) {
		if (!walk(x, dot, l->v[i]))
			return x->depth--, false;
		if (x->ctl != CTL_NONE)
			break;
	}
	x->depth--;
	return true;
}

bool
gotmpl_execute(struct gotmpl *set, const char *name,
    const struct node *data, struct buf *out)
{
	struct gt_exec x;
	const struct gt_tree *t = map_get(&set->trees, name, strlen(name));
	struct gv dot;

	if (!t && set->load && set->load(set->loadctx, set, name))
		t = map_get(&set->trees, name, strlen(name));
	if (!t)
		return false;
	memset(&x, 0, sizeof(x));
	x.set = set;
	x.run = set->run;
	x.tree = t;
	x.out = out;
	dot = data ? gv_from_node(&set->run->arena, data) : gv_invalid();
	push(&x, "$", dot);
	return walk_list(&x, &dot, t->root) && !x.failed;
}

struct gotmpl *
gotmpl_new(struct run *run)
{
	struct gotmpl *t = arena_alloc(&run->arena, sizeof(*t));

	t->run = run;
	map_init(&t->trees, &run->arena);
	map_init(&t->regex, &run->arena);
	return t;
}

void
gotmpl_set_loader(struct gotmpl *t, gotmpl_loader *load, void *ctx)
{
	t->load = load;
	t->loadctx = ctx;
}

bool
gotmpl_defined(const struct gotmpl *t, const char *name)
{
	return map_get(&t->trees, name, strlen(name)) != NULL;
}
