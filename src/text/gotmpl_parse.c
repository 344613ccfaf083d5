/*
 * gotmpl_parse: Go template tokens (gotmpl_lex.c) into a tree, by Go's
 * rules -- the parser's grammar and its error texts ("unexpected EOF",
 * "function \"x\" not defined").  Positions are the ones Go gives its
 * nodes, so execution errors point where Go's do.
 */
/* memmem() */
#define _GNU_SOURCE

#include "text/gotmpl_lex.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/util.h"
#include "diag/run.h"


/* Nesting the parser follows (each level is a C stack frame or two). */
#define MAX_NEST 1000

#define FAIL(p, off, ...) do { gt_perror((p), (off), __VA_ARGS__); \
	return NULL; } while (0)

/* Parser. */

static struct token *
peek(struct parser *p)
{
	return &p->tok[p->i];
}

static struct token *
next(struct parser *p)
{
	struct token *t = &p->tok[p->i];

	if (t->t != T_EOF)
		p->i++;
	return t;
}

static struct token *
peek_nonspace(struct parser *p)
{
	while (p->tok[p->i].t == T_SPACE)
		p->i++;
	return &p->tok[p->i];
}

static struct token *
next_nonspace(struct parser *p)
{
	peek_nonspace(p);
	return next(p);
}

/* Go's item String() for "unexpected %s". */
static const char *
tokstr(struct parser *p, const struct token *t)
{
	if (t->t == T_EOF)
		return "EOF";
	if (t->t >= T_BLOCK)
		return arena_printf(&p->run->arena, "<%.*s>", (int)t->len,
		    p->s + t->off);
	if (t->len > 10) {
		struct buf b = BUF_INIT;
		const char *r;

		/* %.10q: the first ten runes, quoted. */
		size_t k = 0, cnt = 0;
		while (k < t->len && cnt < 10) {
			uint32_t cp;
			size_t l = utf8_decode(p->s + t->off + k, t->len - k,
			    &cp);

			k += l ? l : 1;
			cnt++;
		}
		gv_quote(&b, p->s + t->off, k);
		r = arena_printf(&p->run->arena, "%s...", b.data);
		buf_free(&b);
		return r;
	} else {
		struct buf b = BUF_INIT;
		const char *r;

		gv_quote(&b, p->s + t->off, t->len);
		r = arena_strdup(&p->run->arena, b.data);
		buf_free(&b);
		return r;
	}
}

static void
unexpected(struct parser *p, const struct token *t, const char *context)
{
	if (t->t == T_ERROR) {
		unsigned l1 = source_lineno(p->src, p->action),
		    l2 = source_lineno(p->src, t->off);
		const char *extra = "";

		if (p->action != UINT32_MAX && l1 != l2)
			extra = arena_printf(&p->run->arena,
			    "%s started at %s:%u",
			    str_has_suffix(t->msg, " action") ? "" :
			    " in action", p->name, l1);
		gt_perror(p, t->off, "%s%s", t->msg, extra);
		return;
	}
	gt_perror(p, t->off, "unexpected %s in %s", tokstr(p, t), context);
}

static void
list_add(struct parser *p, struct gt_list *l, struct gt_node *n)
{
	if (l->n == l->cap) {
		l->v = arena_grow(&p->run->arena, l->v, l->cap, l->cap ?
		    l->cap * 2 : 8, sizeof(*l->v));
		l->cap = l->cap ? l->cap * 2 : 8;
	}
	l->v[l->n++] = n;
}

static struct gt_node *
node_new(struct parser *p, enum gt_node_kind k, uint32_t off)
{
	struct gt_node *n = arena_alloc(&p->run->arena, sizeof(*n));

	n->kind = k;
	n->span = span_make(off, 0);
	return n;
}

static struct gt_pipe *pipeline(struct parser *p, const char *context,
    enum tok end);
static struct gt_list *item_list(struct parser *p, struct gt_node **end);

static const char *
tokdup(struct parser *p, const struct token *t)
{
	return arena_strndup(&p->run->arena, p->s + t->off, t->len);
}

static const char *
fields_text(struct parser *p, const char *head, const char **f, size_t n)
{
	struct buf b = BUF_INIT;
	const char *r;
	size_t i;

	buf_puts(&b, head);
	for (i = 0; i < n; i++)
		buf_printf(&b, ".%s", f[i]);
	r = arena_strndup(&p->run->arena, b.data ? b.data : "", b.len);
	buf_free(&b);
	return r;
}

static bool
var_known(struct parser *p, const char *name, size_t len)
{
	size_t i;

	for (i = p->nvars; i-- > 0;)
		if (strlen(p->vars[i]) == len &&
		    memcmp(p->vars[i], name, len) == 0)
			return true;
	return false;
}

static void
var_push(struct parser *p, const char *name)
{
	if (p->nvars == p->capvars) {
		p->vars = arena_grow(&p->run->arena, p->vars, p->capvars,
		    p->capvars ? p->capvars * 2 : 8, sizeof(*p->vars));
		p->capvars = p->capvars ? p->capvars * 2 : 8;
	}
	p->vars[p->nvars++] = name;
}

/* What term() returns where no term starts: not NULL (an error). */
static struct gt_arg noterm;

static struct gt_arg *
term(struct parser *p)
{
	struct token *t = next_nonspace(p);
	struct gt_arg *a = arena_alloc(&p->run->arena, sizeof(*a));
	struct buf b = BUF_INIT;

	a->span = span_make(t->off, t->len);
	a->text = tokdup(p, t);
	switch (t->t) {
	case T_IDENT:
		a->kind = GA_FUNC;
		a->name = a->text;
		a->fn = gt_func_find(p->s + t->off, t->len);
		if (!a->fn)
			FAIL(p, t->off, "function \"%s\" not defined",
			    a->name);
		if (a->fn->refused) {
			diag_error(p->run, p->src, a->span, MSG_GOTMPL_REFUSED,
			    a->name, a->fn->refused);
			p->failed = true;
			return NULL;
		}
		return a;
	case T_DOT:
		a->kind = GA_DOT;
		return a;
	case T_NIL:
		a->kind = GA_NIL;
		return a;
	case T_VARIABLE:
		if (!var_known(p, p->s + t->off, t->len))
			FAIL(p, t->off, "undefined variable \"%s\"", a->text);
		a->kind = GA_VAR;
		a->name = a->text;
		return a;
	case T_FIELD:
		a->kind = GA_FIELD;
		a->fields = arena_alloc(&p->run->arena, sizeof(char *));
		a->fields[0] = a->text + 1;
		a->nfields = 1;
		return a;
	case T_BOOL:
		a->kind = GA_BOOL;
		a->value = gv_bool(t->len == 4);
		return a;
	case T_NUMBER:
	case T_CHAR:
		a->kind = GA_NUMBER;
		return gt_number(p, t, a) ? a : NULL;
	case T_LPAREN:
		a->kind = GA_PIPE;
		if (++p->depth > MAX_NEST) {
			p->failed = true;
			diag_error(p->run, p->src, a->span, MSG_TOO_DEEP,
			    MAX_NEST);
			return NULL;
		}
		if (!(a->pipe = pipeline(p, "parenthesized pipeline",
		    T_RPAREN)))
			return NULL;
		p->depth--;
		a->span = a->pipe->span;
		a->text = arena_printf(&p->run->arena, "(%s)", a->pipe->text);
		return a;
	case T_STRING:
	case T_RAWSTRING:
		a->kind = GA_STRING;
		if (!gt_unquote(p, p->s + t->off, t->len, &b)) {
			buf_free(&b);
			FAIL(p, t->off, "invalid syntax");
		}
		a->value = gv_str(arena_strndup(&p->run->arena, b.data ?
		    b.data : "", b.len), b.len);
		buf_free(&b);
		return a;
	default:
		p->i--;
		if (t->t == T_SPACE)
			p->i++;
		return &noterm;         /* no term here */
	}
}

static bool
is_noterm(const struct gt_arg *a)
{
	return a == &noterm;
}

static struct gt_arg *
operand(struct parser *p)
{
	struct gt_arg *a = term(p);
	const char **f = NULL;
	size_t n = 0, cap = 0;
	uint32_t chainpos;

	if (!a || is_noterm(a) || peek(p)->t != T_FIELD)
		return a;
	chainpos = peek(p)->off;
	while (peek(p)->t == T_FIELD) {
		struct token *t = next(p);

		if (n == cap) {
			f = arena_grow(&p->run->arena, f, cap, cap ? cap * 2 :
			    4, sizeof(*f));
			cap = cap ? cap * 2 : 4;
		}
		f[n++] = arena_strndup(&p->run->arena, p->s + t->off + 1,
		    t->len - 1);
	}
	switch (a->kind) {
	case GA_FIELD: {
		const char **all = arena_array(&p->run->arena, n + 1,
		    sizeof(*all));

		all[0] = a->fields[0];
		memcpy(all + 1, f, n * sizeof(*f));
		a->fields = all;
		a->nfields = n + 1;
		a->text = fields_text(p, "", all, n + 1);
		a->span = span_make(chainpos, 0);
		return a;
	}
	case GA_VAR:
		a->fields = f;
		a->nfields = n;
		a->text = fields_text(p, a->name, f, n);
		a->span = span_make(chainpos, 0);
		return a;
	case GA_BOOL:
	case GA_STRING:
	case GA_NUMBER:
	case GA_NIL:
	case GA_DOT:
		FAIL(p, chainpos, "unexpected . after term \"%s\"", a->text);
	default: {
		struct gt_arg *c = arena_alloc(&p->run->arena, sizeof(*c));

		c->kind = GA_CHAIN;
		c->span = span_make(chainpos, 0);
		if (a->kind == GA_PIPE) {
			c->pipe = a->pipe;
		} else {
			/* fn.Field: evaluate fn, then the fields */
			c->pipe = arena_alloc(&p->run->arena,
			    sizeof(*c->pipe));
			c->pipe->cmds = arena_alloc(&p->run->arena,
			    sizeof(*c->pipe->cmds));
			c->pipe->cmds[0] = arena_alloc(&p->run->arena,
			    sizeof(**c->pipe->cmds));
			c->pipe->cmds[0]->args = arena_alloc(&p->run->arena,
			    sizeof(struct gt_arg *));
			c->pipe->cmds[0]->args[0] = a;
			c->pipe->cmds[0]->nargs = 1;
			c->pipe->cmds[0]->text = a->text;
			c->pipe->cmds[0]->span = a->span;
			c->pipe->ncmds = 1;
			c->pipe->text = a->text;
			c->pipe->span = a->span;
		}
		c->fields = f;
		c->nfields = n;
		c->text = fields_text(p, a->text, f, n);
		return c;
	}
	}
}

static struct gt_cmd *
command(struct parser *p)
{
	struct gt_cmd *c = arena_alloc(&p->run->arena, sizeof(*c));
	struct buf b = BUF_INIT;
	size_t cap = 0;

	c->span = span_make(peek_nonspace(p)->off, 0);
	for (;;) {
		struct gt_arg *a;
		struct token *t;

		peek_nonspace(p);
		a = operand(p);
		if (!a) {
			buf_free(&b);
			return NULL;
		}
		if (!is_noterm(a)) {
			if (c->nargs == cap) {
				c->args = arena_grow(&p->run->arena, c->args,
				    cap, cap ? cap * 2 : 4, sizeof(*c->args));
				cap = cap ? cap * 2 : 4;
			}
			c->args[c->nargs++] = a;
			if (b.len)
				buf_putc(&b, ' ');
			buf_puts(&b, a->text);
		}
		t = next(p);
		if (t->t == T_SPACE)
			continue;
		if (t->t == T_RIGHT || t->t == T_RPAREN) {
			p->i--;
		} else if (t->t != T_PIPE) {
			buf_free(&b);
			unexpected(p, t, "operand");
			return NULL;
		}
		break;
	}
	if (!c->nargs) {
		buf_free(&b);
		FAIL(p, c->span.off, "empty command");
	}
	c->text = arena_strndup(&p->run->arena, b.data, b.len);
	buf_free(&b);
	return c;
}

static struct gt_pipe *
pipeline(struct parser *p, const char *context, enum tok end)
{
	struct gt_pipe *pp = arena_alloc(&p->run->arena, sizeof(*pp));
	struct buf b = BUF_INIT;
	size_t cap = 0, i;
	struct token *v;

	pp->span = span_make(peek_nonspace(p)->off, 0);
decls:
	if ((v = peek_nonspace(p))->t == T_VARIABLE) {
		struct token *after, *nx;
		size_t save = p->i;

		next(p);
		after = peek(p);
		nx = peek_nonspace(p);
		if (nx->t == T_ASSIGN || nx->t == T_DECLARE) {
			pp->assign = nx->t == T_ASSIGN;
			pp->decl = !pp->assign;
			next_nonspace(p);
			pp->vars[pp->nvars++] = tokdup(p, v);
			var_push(p, pp->vars[pp->nvars - 1]);
		} else if (nx->t == T_COMMA) {
			next_nonspace(p);
			pp->vars[pp->nvars++] = tokdup(p, v);
			var_push(p, pp->vars[pp->nvars - 1]);
			pp->decl = true;
			if (strcmp(context, "range") == 0 && pp->nvars < 2) {
				enum tok t = peek_nonspace(p)->t;

				if (t == T_VARIABLE || t == T_RIGHT ||
				    t == T_RPAREN)
					goto decls;
				FAIL(p, v->off,
				    "range can only initialize variables");
			}
			FAIL(p, v->off, "too many declarations in %s",
			    context);
		} else {
			(void)after;
			p->i = save;
		}
	}
	for (i = 0; i < pp->nvars; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", pp->vars[i]);
	if (pp->nvars)
		buf_puts(&b, pp->assign ? " = " : " := ");
	for (;;) {
		struct token *t = next_nonspace(p);

		if (t->t == end) {
			if (!pp->ncmds) {
				buf_free(&b);
				FAIL(p, t->off, "missing value for %s",
				    context);
			}
			for (i = 1; i < pp->ncmds; i++) {
				enum gt_arg_kind k = pp->cmds[i]->args[0]->kind;

				if (k == GA_BOOL || k == GA_DOT || k == GA_NIL ||
				    k == GA_NUMBER || k == GA_STRING) {
					buf_free(&b);
					FAIL(p, pp->cmds[i]->span.off,
					    "non executable command in pipeline stage %zu",
					    i + 1);
				}
			}
			pp->text = arena_strndup(&p->run->arena, b.data ?
			    b.data : "", b.len);
			buf_free(&b);
			return pp;
		}
		switch (t->t) {
		case T_BOOL: case T_CHAR: case T_DOT: case T_FIELD:
		case T_IDENT: case T_NUMBER: case T_NIL: case T_RAWSTRING:
		case T_STRING: case T_VARIABLE: case T_LPAREN: {
			struct gt_cmd *c;

			p->i--;
			if (!(c = command(p))) {
				buf_free(&b);
				return NULL;
			}
			if (pp->ncmds == cap) {
				pp->cmds = arena_grow(&p->run->arena, pp->cmds,
				    cap, cap ? cap * 2 : 4, sizeof(*pp->cmds));
				cap = cap ? cap * 2 : 4;
			}
			if (pp->ncmds)
				buf_puts(&b, " | ");
			buf_puts(&b, c->text);
			pp->cmds[pp->ncmds++] = c;
			break;
		}
		default:
			buf_free(&b);
			unexpected(p, t, context);
			return NULL;
		}
	}
}

static struct gt_node *if_control(struct parser *p, uint32_t off);

static bool
expect_right(struct parser *p, const char *context, uint32_t *off)
{
	struct token *t = next_nonspace(p);

	if (t->t != T_RIGHT) {
		unexpected(p, t, context);
		return false;
	}
	if (off)
		*off = t->off;
	return true;
}

/* The markers itemList returns: {{end}} and {{else}}. */
static struct gt_node end_mark, else_mark;

static struct gt_node *
control(struct parser *p, enum gt_node_kind kind, const char *context,
    bool allow_elseif)
{
	size_t nvars = p->nvars;
	struct gt_node *n = node_new(p, kind, 0), *endn;

	if (!(n->pipe = pipeline(p, context, T_RIGHT)))
		return NULL;
	n->span = n->pipe->span;
	if (kind == GT_RANGE)
		p->rangedepth++;
	n->list = item_list(p, &endn);
	if (kind == GT_RANGE)
		p->rangedepth--;
	if (!n->list)
		return NULL;
	if (endn == &else_mark) {
		if (allow_elseif && peek(p)->t == T_IF) {
			struct token *t = next(p);
			struct gt_node *in;

			n->elselist = arena_alloc(&p->run->arena,
			    sizeof(*n->elselist));
			if (!(in = if_control(p, t->off)))
				return NULL;
			list_add(p, n->elselist, in);
		} else {
			n->elselist = item_list(p, &endn);
			if (!n->elselist)
				return NULL;
			if (endn != &end_mark)
				FAIL(p, peek(p)->off, "expected end; found {{else}}");
		}
	}
	p->nvars = nvars;
	return n;
}

static struct gt_node *
if_control(struct parser *p, uint32_t off)
{
	(void)off;
	return control(p, GT_IF, "if", true);
}

static const char *
template_name(struct parser *p, const struct token *t, const char *context)
{
	struct buf b = BUF_INIT;
	const char *r;

	if (t->t != T_STRING && t->t != T_RAWSTRING) {
		unexpected(p, t, context);
		return NULL;
	}
	if (!gt_unquote(p, p->s + t->off, t->len, &b)) {
		buf_free(&b);
		gt_perror(p, t->off, "invalid syntax");
		return NULL;
	}
	r = arena_strndup(&p->run->arena, b.data ? b.data : "", b.len);
	buf_free(&b);
	return r;
}

static bool add_tree(struct parser *p, const char *name,
    struct gt_list *root, uint32_t off);

static struct gt_node *
action(struct parser *p)
{
	struct token *t = next_nonspace(p);
	struct gt_node *n;
	uint32_t off = t->off;

	switch (t->t) {
	case T_BLOCK: {
		struct token *nt = next_nonspace(p);
		const char *name = template_name(p, nt, "block clause");
		struct gt_list *body;
		struct gt_node *endn;
		size_t nvars, capvars;
		const char **saved;

		if (!name)
			return NULL;
		n = node_new(p, GT_TEMPLATE, nt->off);
		n->name = name;
		if (!(n->pipe = pipeline(p, "block clause", T_RIGHT)))
			return NULL;
		/* The block's body is a template of its own, with $
		 * its only variable. */
		saved = p->vars;
		nvars = p->nvars;
		capvars = p->capvars;
		p->vars = NULL;
		p->nvars = p->capvars = 0;
		var_push(p, "$");
		body = item_list(p, &endn);
		p->vars = saved;
		p->nvars = nvars;
		p->capvars = capvars;
		if (!body)
			return NULL;
		if (endn != &end_mark)
			FAIL(p, peek(p)->off,
			    "unexpected {{else}} in block clause");
		if (!add_tree(p, name, body, nt->off))
			return NULL;
		return n;
	}
	case T_BREAK:
	case T_CONTINUE: {
		struct token *r = next_nonspace(p);

		if (r->t != T_RIGHT) {
			unexpected(p, r, t->t == T_BREAK ? "{{break}}" :
			    "{{continue}}");
			return NULL;
		}
		if (!p->rangedepth)
			FAIL(p, off, "{{%s}} outside {{range}}",
			    t->t == T_BREAK ? "break" : "continue");
		return node_new(p, t->t == T_BREAK ? GT_BREAK : GT_CONTINUE,
		    off);
	}
	case T_ELSE:
		p->markoff = off;
		if (peek_nonspace(p)->t == T_IF)
			return &else_mark;
		return expect_right(p, "else", NULL) ? &else_mark : NULL;
	case T_END:
		p->markoff = off;
		return expect_right(p, "end", NULL) ? &end_mark : NULL;
	case T_IF:
		return control(p, GT_IF, "if", true);
	case T_RANGE:
		return control(p, GT_RANGE, "range", false);
	case T_WITH:
		return control(p, GT_WITH, "with", false);
	case T_TEMPLATE: {
		struct token *nt = next_nonspace(p);
		const char *name = template_name(p, nt, "template clause");

		if (!name)
			return NULL;
		n = node_new(p, GT_TEMPLATE, nt->off);
		n->name = name;
		if (next_nonspace(p)->t != T_RIGHT) {
			p->i--;
			if (!(n->pipe = pipeline(p, "template clause",
			    T_RIGHT)))
				return NULL;
		}
		return n;
	}
	default:
		break;
	}
	p->i--;
	n = node_new(p, GT_ACTION, peek(p)->off);
	if (!(n->pipe = pipeline(p, "command", T_RIGHT)))
		return NULL;
	return n;
}

static struct gt_node *
text_or_action(struct parser *p)
{
	struct token *t = next_nonspace(p);
	struct gt_node *n;

	switch (t->t) {
	case T_TEXT:
		n = node_new(p, GT_TEXT, t->off);
		n->text = p->s + t->off;
		n->len = t->len;
		return n;
	case T_LEFT: {
		uint32_t saved = p->action;

		p->action = t->off;
		n = action(p);
		p->action = saved;
		return n;
	}
	default:
		unexpected(p, t, "input");
		return NULL;
	}
}

static struct gt_list *
item_list(struct parser *p, struct gt_node **end)
{
	struct gt_list *l = arena_alloc(&p->run->arena, sizeof(*l));

	if (++p->depth > MAX_NEST) {
		if (!p->failed) {
			p->failed = true;
			diag_error(p->run, p->src, span_make(peek(p)->off, 0),
			    MSG_TOO_DEEP, MAX_NEST);
		}
		return NULL;
	}
	while (peek_nonspace(p)->t != T_EOF) {
		struct gt_node *n = text_or_action(p);

		if (!n)
			return NULL;
		if (n == &end_mark || n == &else_mark) {
			*end = n;
			p->depth--;
			return l;
		}
		list_add(p, l, n);
	}
	gt_perror(p, peek(p)->off, "unexpected EOF");
	return NULL;
}

static bool
empty_tree(const struct gt_list *l)
{
	size_t i;

	for (i = 0; l && i < l->n; i++)
		if (l->v[i]->kind != GT_TEXT || !str_blank(l->v[i]->text,
		    l->v[i]->len))
			return false;
	return true;
}

/* Go's Tree.add within one parse: a second non-empty definition is an
 * error; an empty one never replaces. */
static bool
add_tree(struct parser *p, const char *name, struct gt_list *root,
    uint32_t off)
{
	struct map_item *it = map_find(&p->set->trees, name, strlen(name));
	struct gt_tree *t;

	if (it && it->value) {
		struct gt_tree *old = it->value;

		if (old->src == p->src && !empty_tree(old->root) &&
		    !empty_tree(root)) {
			gt_perror(p, off,
			    "template: multiple definition of template \"%s\"",
			    name);
			return false;
		}
		if (old->src == p->src && empty_tree(root))
			return true;
	}
	t = arena_alloc(&p->run->arena, sizeof(*t));
	t->name = name;
	t->src = p->src;
	t->root = root;
	map_put(&p->set->trees, name, strlen(name), t);
	return true;
}

static bool
parse(struct parser *p)
{
	struct gt_list *root = arena_alloc(&p->run->arena, sizeof(*root));

	var_push(p, "$");
	while (peek(p)->t != T_EOF) {
		struct gt_node *n;

		if (peek(p)->t == T_LEFT) {
			size_t save = p->i;

			next(p);
			if (next_nonspace(p)->t == T_DEFINE) {
				struct token *nt = next_nonspace(p);
				const char *name;
				struct gt_list *body;
				struct gt_node *endn;
				size_t nvars = p->nvars;

				if (nt->t != T_STRING && nt->t != T_RAWSTRING) {
					unexpected(p, nt, "define clause");
					return false;
				}
				if (!(name = template_name(p, nt,
				    "define clause")) ||
				    !expect_right(p, "define clause", NULL))
					return false;
				p->nvars = 1;
				body = item_list(p, &endn);
				p->nvars = nvars;
				if (!body)
					return false;
				if (endn != &end_mark) {
					gt_perror(p, peek(p)->off,
					    "unexpected {{else}} in define clause");
					return false;
				}
				if (!add_tree(p, name, body, nt->off))
					return false;
				continue;
			}
			p->i = save;
		}
		if (!(n = text_or_action(p)))
			return false;
		if (n == &end_mark || n == &else_mark) {
			gt_perror(p, p->markoff, "unexpected {{%s}}",
			    n == &end_mark ? "end" : "else");
			return false;
		}
		list_add(p, root, n);
	}
	return add_tree(p, p->name, root, 0);
}

bool
gotmpl_parse(struct gotmpl *set, const char *name, const struct source *src)
{
	struct parser p;

	memset(&p, 0, sizeof(p));
	p.set = set;
	p.run = set->run;
	p.src = src;
	p.s = src->text;
	p.n = src->len;
	p.name = arena_strdup(&set->run->arena, name);
	p.action = UINT32_MAX;
	gt_lex(&p);
	return parse(&p) && !p.failed;
}

bool
gotmpl_is_name(const char *name)
{
	return str_has_suffix(name, ".tmpl");
}
