#include "layers/layer.h"

#include <limits.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "diag/diag.h"
#include "data/load.h"
#include "diag/run.h"
#include "text/template.h"
#include "prompt/tool.h"
#include "layers/tool_prose.h"
#include "data/tree.h"
#include "base/util.h"
#include "data/yamltree.h"

/* Built-in priorities of the generated layers (DESIGN.md). */
enum {
	PRIO_PREFIX = INT_MIN,          /* before all, history base too */
	PRIO_PERSONA = 30,
	PRIO_FORMAT = 35,
	PRIO_MEMORIES = 60,
	PRIO_SKILLS = 75,
	PRIO_TOOLS = 80,
	PRIO_DEFAULT = 100,
};

#define OUTLINE_HEADER "You can use these skills on demand:"
#define OUTLINE_FOOTER "Read a skill's file when you need its details."

static const struct source *
src_of(struct run *run, const struct node *n)
{
	return n ? run_source(run, n->src) : NULL;
}

/* The text between the delimiters is YAML; the body starts after. */
struct front {
	struct node *meta;      /* table, or NULL when there is none */
	size_t body;            /* offset of the body in the source */
};

static size_t
line_end(const char *s, size_t len, size_t i)
{
	while (i < len && s[i] != '\n')
		i++;
	return i;
}

static bool
is_delim(const char *s, size_t from, size_t to)
{
	if (to > from && s[to - 1] == '\r')
		to--;
	return to - from == 3 && memcmp(s + from, "---", 3) == 0;
}

/*
 * YAML front matter: a first line "---", then YAML, then a line "---".
 * It is parsed as its own source with the same name whose first line is
 * blanked and which ends at the closing line, so that messages point at
 * the right line and column of the real file.
 */
static bool
front_matter(struct run *run, struct source *src, struct front *fm)
{
	const char *s = src->text;
	size_t len = src->len, e = line_end(s, len, 0), i;
	struct source *yaml;
	char *copy;

	fm->meta = NULL;
	fm->body = 0;
	if (!is_delim(s, 0, e))
		return true;
	for (i = e + 1; i < len; i = e + 1) {
		e = line_end(s, len, i);
		if (is_delim(s, i, e))
			break;
	}
	if (i >= len) {
		diag_error(run, src, span_make(0, 3),
		    MSG_FRONT_MATTER_UNCLOSED);
		return false;
	}
	copy = arena_strndup(&run->arena, s, i);
	memset(copy, ' ', 3);
	yaml = run_source_mem(run, src->path, copy, i);
	if (!yamltree_parse(run, yaml, &fm->meta))
		return false;
	if (fm->meta->kind == NODE_NULL) {
		fm->meta = NULL;
	} else if (fm->meta->kind != NODE_TABLE) {
		diag_error(run, yaml, fm->meta->span, MSG_FRONT_MATTER_TABLE);
		return false;
	}
	fm->body = e < len ? e + 1 : len;
	return true;
}

static const char *
meta_string(struct run *run, const struct node *meta, const char *key,
    bool *ok)
{
	const struct node *n = meta ? tree_get(meta, key) : NULL;

	if (!n)
		return NULL;
	if (n->kind != NODE_STRING) {
		diag_error(run, src_of(run, n), n->span, MSG_WRONG_TYPE,
		    key, "a string", tree_kind_article(n->kind));
		*ok = false;
		return NULL;
	}
	return n->u.str.s;
}

/* A prompt file saved with CRLF line ends gives the same bytes as one
 * saved with LF: output must not depend on a checkout's settings. */
static void
crlf_to_lf(struct buf *b)
{
	size_t i, w = 0;

	for (i = 0; i < b->len; i++)
		if (!(b->data[i] == '\r' && i + 1 < b->len &&
		    b->data[i + 1] == '\n'))
			b->data[w++] = b->data[i];
	b->len = w;
	if (b->data)
		b->data[w] = '\0';
}

/* Expand a file's body (from offset body) into a trimmed arena string. */
static bool
expand_file(struct run *run, struct tvars *vars, struct source *src,
    size_t body, struct entry *e)
{
	struct buf b = BUF_INIT;
	const char *s;
	size_t n;
	bool ok;

	ok = template_expand(run, vars, src->text + body, src->len - body,
	    src, (uint32_t)body, true, span_make(body, 0), &b);
	crlf_to_lf(&b);
	s = b.data ? b.data : "";
	n = entry_trim(&s, b.len);
	e->content = arena_strndup(&run->arena, s, n);
	e->len = n;
	e->has_src = true;
	e->src = src->id;
	e->span = span_make(body, src->len - body);
	buf_free(&b);
	return ok;
}

/* Expand a profile string (escapes done: errors point at the string). */
static bool
expand_string(struct run *run, struct tvars *vars, const struct pstr *p,
    struct entry *e)
{
	struct buf b = BUF_INIT;
	const char *s;
	size_t n;
	bool ok;

	ok = template_expand(run, vars, p->s, p->len, src_of(run, p->node),
	    p->node->span.off, false, p->node->span, &b);
	s = b.data ? b.data : "";
	n = entry_trim(&s, b.len);
	e->content = arena_strndup(&run->arena, s, n);
	e->len = n;
	e->has_src = true;
	e->src = p->node->src;
	e->span = p->node->span;
	buf_free(&b);
	return ok;
}

static bool
file_layer(struct run *run, const struct profile *p, struct tvars *vars,
    struct stack *st, const struct pstr *path, const char *key,
    const char *title, int prio)
{
	struct source *src;
	struct front fm;
	struct entry *e;

	if (!path->s)
		return true;
	src = profile_open(run, p, path);
	if (!src || !front_matter(run, src, &fm))
		return false;
	e = entry_new(&run->arena, key, key);
	e->title = title;
	e->priority = prio;
	e->scope = SCOPE_GLOBAL;
	if (!expand_file(run, vars, src, fm.body, e))
		return false;
	stack_add(st, e);
	return true;
}

/* The part of a path after its last '/' and before its last '.'. */
static const char *
stem(struct arena *a, const char *path)
{
	const char *b = strrchr(path, '/'), *dot;

	b = b ? b + 1 : path;
	dot = strrchr(b, '.');
	return dot && dot != b ? arena_strndup(a, b, (size_t)(dot - b)) :
	    arena_strdup(a, b);
}

static bool
skills(struct run *run, const struct profile *p, struct tvars *vars,
    struct stack *st)
{
	struct arena *a = &run->arena;
	struct buf outline = BUF_INIT;
	const struct node *first = NULL;
	struct node *names = tree_table(a);     /* name -> its [[skills]] */
	const struct node *dup;
	size_t i, noutline = 0;
	bool ok = true;

	for (i = 0; i < p->nskills; i++) {
		const struct pskill *sk = &p->skills[i];
		struct source *src;
		struct front fm;
		const char *name, *desc;
		bool fok = true;

		src = profile_open(run, p, &sk->file);
		if (!src || !front_matter(run, src, &fm)) {
			ok = false;
			continue;
		}
		name = sk->name.s ? sk->name.s :
		    meta_string(run, fm.meta, "name", &fok);
		desc = sk->description.s ? sk->description.s :
		    meta_string(run, fm.meta, "description", &fok);
		if (!fok) {
			ok = false;
			continue;
		}
		if (!name)
			name = stem(a, sk->file.s);
		/* Names may come from front matter or the file name, where
		 * the profile check cannot see them. */
		dup = tree_get(names, name);
		if (dup) {
			diag_error(run, src_of(run, sk->node), sk->node->span,
			    MSG_DUPLICATE_ENTRY, "skill", name);
			diag_note(run, src_of(run, dup), dup->span,
			    MSG_FIRST_HERE);
			ok = false;
			continue;
		}
		tree_put(a, names, name, (struct node *)sk->node);
		if (sk->mode == SKILL_INLINE) {
			struct entry *e = entry_new(a,
			    arena_printf(a, "skill.%s", name), "skill");

			e->title = name;
			e->priority = sk->priority;
			e->scope = SCOPE_GLOBAL;
			if (!expand_file(run, vars, src, fm.body, e))
				ok = false;
			else
				stack_add(st, e);
			continue;
		}
		if (!desc) {
			diag_error(run, src_of(run, sk->node), sk->node->span,
			    MSG_OUTLINE_NO_DESCRIPTION, name);
			ok = false;
			continue;
		}
		if (!first)
			first = sk->node;
		buf_printf(&outline, "\n- %s: %s -> %s", name, desc,
		    sk->file.s);
		noutline++;
	}
	if (noutline) {
		struct entry *e = entry_new(a, "skills", "skill");
		const char *head = p->outline_header.s ? p->outline_header.s :
		    OUTLINE_HEADER;
		const char *foot = p->outline_footer.s ? p->outline_footer.s :
		    OUTLINE_FOOTER;
		char *text = arena_printf(a, "%s%s%s%s", head, outline.data,
		    *foot ? "\n" : "", foot);
		const char *t = text;

		e->title = "Skills";
		e->priority = PRIO_SKILLS;
		e->scope = SCOPE_GLOBAL;
		e->len = entry_trim(&t, strlen(text));
		e->content = t;
		e->has_src = true;
		e->src = first->src;
		e->span = first->span;
		stack_add(st, e);
	}
	buf_free(&outline);
	return ok;
}

static bool
tools(struct run *run, const struct profile *p, struct stack *st,
    struct tool_list *list)
{
	struct buf b = BUF_INIT;
	struct entry *e;
	size_t i;
	bool ok = true;

	for (i = 0; i < p->ntools; i++) {
		const struct ptool *t = &p->tools[i];
		struct source *src;
		struct node *def;
		enum load_format fmt;

		if (t->def) {
			if (!tool_read(run, t->def, list))
				ok = false;
			continue;
		}
		fmt = load_format_of(t->file.s);
		if (fmt == LOAD_GUESS)
			fmt = LOAD_JSON;
		src = profile_open(run, p, &t->file);
		if (!src || !load_source(run, src, fmt, &def) ||
		    !tool_read(run, def, list))
			ok = false;
	}
	if (!ok || list->n == 0)
		return ok;
	/* The plain style has no headings of its own: give the section
	 * one, as the five-layer prompt does. */
	if (p->style == STYLE_PLAIN)
		buf_puts(&b, "## Tools\n\n");
	tool_prose(&b, list);
	e = entry_new(&run->arena, "tools", "tools");
	e->title = "Tools";
	e->priority = PRIO_TOOLS;
	e->scope = SCOPE_GLOBAL;
	e->content = arena_strndup(&run->arena, b.data ? b.data : "", b.len);
	e->len = b.len;
	e->has_src = true;
	e->src = p->tools[0].node->src;
	e->span = p->tools[0].node->span;
	stack_add(st, e);
	buf_free(&b);
	return true;
}

static bool
injects(struct run *run, const struct profile *p, struct tvars *vars,
    struct stack *st)
{
	struct arena *a = &run->arena;
	size_t i;
	bool ok = true;

	for (i = 0; i < p->ninjects; i++) {
		const struct pinject *in = &p->injects[i];
		struct entry *e = entry_new(a, in->key.s, "inject");

		e->priority = in->priority;
		e->role = in->role;
		e->scope = in->scope;
		e->enabled = in->enabled;
		if (in->file.s) {
			struct source *src = profile_open(run, p, &in->file);
			struct front fm;

			if (!src || !front_matter(run, src, &fm) ||
			    !expand_file(run, vars, src, fm.body, e)) {
				ok = false;
				continue;
			}
		} else if (!expand_string(run, vars, &in->content, e)) {
			ok = false;
			continue;
		}
		stack_add(st, e);
	}
	return ok;
}

static void
cli_injects(struct run *run, const struct layer_input *in, struct stack *st)
{
	struct arena *a = &run->arena;
	size_t i;

	for (i = 0; i < in->ninjects; i++) {
		const struct cli_inject *ci = &in->injects[i];
		const char *text = ci->arg->text + ci->text.off;
		struct entry *e = entry_new(a, arena_strndup(a,
		    ci->arg->text + ci->key.off, ci->key.len), "cli");
		size_t n = entry_trim(&text, ci->text.len);

		e->content = arena_strndup(a, text, n);
		e->len = n;
		e->has_src = true;
		e->src = ci->arg->id;
		e->span = ci->text;
		stack_add(st, e);
	}
}

static bool
contexts(struct run *run, const struct profile *p, struct layer_input *in,
    struct stack *st)
{
	struct arena *a = &run->arena;
	size_t i, k;
	bool ok = true;

	for (k = 0; k < in->ncontexts; k++) {
		for (i = 0; i < p->ncontexts; i++)
			if (strcmp(p->contexts[i].name.s,
			    in->contexts[k].name) == 0)
				break;
		if (i == p->ncontexts) {
			diag_error(run, in->contexts[k].arg,
			    in->contexts[k].namespan, MSG_NO_SUCH_CONTEXT,
			    in->contexts[k].name);
			ok = false;
		}
	}
	for (i = 0; i < p->ncontexts; i++) {
		const struct pcontext *c = &p->contexts[i];
		const struct source *src = NULL;
		struct entry *e = entry_new(a, arena_printf(a, "context.%s",
		    c->name.s), "context");
		const char *text;
		size_t n;

		e->title = c->name.s;
		e->role = ROLE_USER;
		e->placement = PLACE_USER;
		e->priority = PRIO_MEMORIES;
		for (k = 0; k < in->ncontexts; k++)
			if (strcmp(c->name.s, in->contexts[k].name) == 0)
				src = in->contexts[k].text;
		if (!src && c->file.s) {
			src = profile_open(run, p, &c->file);
			if (!src) {
				ok = false;
				continue;
			}
		}
		if (!src) {
			if (c->required && !in->check_only) {
				diag_error(run, src_of(run, c->node),
				    c->node->span, MSG_CONTEXT_REQUIRED,
				    c->name.s, c->name.s);
				ok = false;
				continue;
			}
			e->status = ENTRY_MISSING;
			e->has_src = true;
			e->src = c->node->src;
			e->span = c->node->span;
			stack_add(st, e);
			continue;
		}
		text = src->text;
		n = entry_trim(&text, src->len);
		e->has_src = true;
		e->src = src->id;
		e->span = span_make(0, src->len);
		if (n) {
			char *block = arena_alloc(a, 2 * c->tag.len + n + 8);
			char *w = block;

			*w++ = '[';
			memcpy(w, c->tag.s, c->tag.len);
			w += c->tag.len;
			memcpy(w, "]\n", 2);
			w += 2;
			memcpy(w, text, n);
			w += n;
			memcpy(w, "\n[/", 3);
			w += 3;
			memcpy(w, c->tag.s, c->tag.len);
			w += c->tag.len;
			*w++ = ']';
			*w = '\0';
			e->content = block;
			e->len = (size_t)(w - block);
		}
		stack_add(st, e);
	}
	return ok;
}

bool
layer_collect(struct run *run, const struct profile *p,
    struct layer_input *in, struct stack *st, struct tool_list *list)
{
	struct tvars *vars = in->vars;
	bool ok = true;

	vars->keep_unknown = p->keep_unknown_vars;
	if (p->prefix.s) {
		struct entry *e = entry_new(&run->arena, "prefix", "prompt");

		e->title = "Prefix";
		e->priority = PRIO_PREFIX;
		e->base = true;         /* text before everything, no heading */
		e->scope = SCOPE_GLOBAL;
		if (expand_string(run, vars, &p->prefix, e))
			stack_add(st, e);
		else
			ok = false;
	}
	if (!file_layer(run, p, vars, st, &p->persona, "persona", "Persona",
	    PRIO_PERSONA))
		ok = false;
	if (!file_layer(run, p, vars, st, &p->format, "format", "Format",
	    PRIO_FORMAT))
		ok = false;
	if (!skills(run, p, vars, st))
		ok = false;
	if (!tools(run, p, st, list))
		ok = false;
	if (!injects(run, p, vars, st))
		ok = false;
	cli_injects(run, in, st);
	if (!contexts(run, p, in, st))
		ok = false;
	return ok;
}

void
layer_compose(struct buf *out, enum style style, struct entry **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct entry *e = v[i];

		if (i)
			buf_puts(out, style == STYLE_SECTIONS ?
			    "\n\n---\n\n" : "\n\n");
		if (e->base) {
			buf_put(out, e->content, e->len);
			continue;
		}
		switch (style) {
		case STYLE_PLAIN:
			buf_put(out, e->content, e->len);
			break;
		case STYLE_MARKDOWN:
			buf_printf(out, "## %s\n", e->key);
			buf_put(out, e->content, e->len);
			break;
		case STYLE_SECTIONS:
			buf_printf(out, "**%s**\n", e->title);
			buf_put(out, e->content, e->len);
			break;
		case STYLE_TAGGED:
			buf_printf(out, "<%s>\n", e->key);
			buf_put(out, e->content, e->len);
			buf_printf(out, "\n</%s>", e->key);
			break;
		}
	}
}
