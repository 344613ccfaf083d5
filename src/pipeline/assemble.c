#include "pipeline/assemble.h"

#include <limits.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "diag/diag.h"
#include "layers/layer.h"
#include "data/load.h"
#include "diag/run.h"
#include "text/template.h"
#include "data/tree.h"
#include "base/util.h"

const char *
assemble_stdin_clash(const struct options *opt)
{
	int n = 0;
	size_t i;

	if (opt->user && strcmp(opt->user, "-") == 0)
		n++;
	if (opt->history && strcmp(opt->history, "-") == 0 && ++n > 1)
		return "--history";
	for (i = 0; i < opt->ncontexts; i++) {
		const char *eq = strchr(opt->contexts[i].arg, '=');

		if (eq && strcmp(eq + 1, "-") == 0 && ++n > 1)
			return "--context";
	}
	return NULL;
}

/*
 * A NAME=VALUE argument becomes a source of its own (named after the
 * option), so a message about it can point into it.
 */
static bool
split_kv(struct run *run, const struct kv *kv, const char *what,
    struct setting *out)
{
	struct source *src = run_source_mem(run, kv->opt, kv->arg,
	    strlen(kv->arg));
	const char *eq = strchr(src->text, '=');

	out->src = src;
	if (!eq || eq == src->text) {
		diag_error(run, src, span_make(0, src->len), MSG_SET_SYNTAX,
		    what);
		return false;
	}
	out->name = span_make(0, (size_t)(eq - src->text));
	out->value = span_make(out->name.len + 1,
	    src->len - out->name.len - 1);
	return true;
}

static bool
split_all(struct run *run, const struct kv *kvs, size_t n, const char *what,
    struct setting **out)
{
	size_t i;
	bool ok = true;

	*out = arena_array(&run->arena, n + 1, sizeof(**out));
	for (i = 0; i < n; i++)
		if (!split_kv(run, &kvs[i], what, &(*out)[i]))
			ok = false;
	return ok;
}

static bool
role_of(const char *s, enum role *r)
{
	static const char *const names[] = { "system", "developer", "user",
		"assistant" };
	size_t i;

	for (i = 0; i < LEN(names); i++)
		if (strcmp(names[i], s) == 0) {
			*r = (enum role)i;
			return true;
		}
	return false;
}

static struct message *
add_message(struct run *run, struct chat *c, enum role role,
    const char *origin)
{
	struct message *m;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;

		c->msgs = arena_grow(&run->arena, c->msgs, c->n, cap,
		    sizeof(*c->msgs));
		c->cap = cap;
	}
	m = &c->msgs[c->n++];
	memset(m, 0, sizeof(*m));
	m->role = role;
	m->origin = origin;
	return m;
}

/*
 * The history: a JSON array of {role, content[, name]}.  System and
 * developer messages are split out into *base (by role); the others are
 * appended to the chat in order.
 */
static bool
history(struct run *run, const char *path, struct chat *c, struct buf *base,
    struct buf *devbase, const struct source **basesrc)
{
	struct node *root;
	struct source *src;
	size_t i, j;
	bool ok = true;

	if (!load_file(run, path, LOAD_JSON, NULL, span_make(0, 0), &root,
	    &src))
		return false;
	if (root->kind != NODE_ARRAY) {
		diag_error(run, src, root->span, MSG_HISTORY_NOT_ARRAY,
		    tree_kind_article(root->kind));
		return false;
	}
	*basesrc = src;
	for (i = 0; i < root->u.array.n; i++) {
		const struct node *e = root->u.array.items[i], *role, *content,
		    *name;
		enum role r;
		struct message *m;
		bool eok = true;

		if (e->kind != NODE_TABLE) {
			diag_error(run, src, e->span, MSG_HISTORY_ITEM,
			    tree_kind_article(e->kind));
			ok = false;
			continue;
		}
		for (j = 0; j < e->u.table.n; j++) {
			const struct member *mb = &e->u.table.items[j];

			if (strlen(mb->key) != mb->keylen || (strcmp(mb->key,
			    "role") && strcmp(mb->key, "content") &&
			    strcmp(mb->key, "name"))) {
				diag_error(run, src, mb->keyspan,
				    MSG_HISTORY_KEY, diag_shown(run, mb->key,
				    mb->keylen));
				eok = false;
			}
		}
		role = tree_get(e, "role");
		content = tree_get(e, "content");
		name = tree_get(e, "name");
		if (!role) {
			diag_error(run, src, e->span, MSG_HISTORY_MISSING,
			    "role");
			eok = false;
		} else if (role->kind != NODE_STRING ||
		    strlen(role->u.str.s) != role->u.str.len ||
		    !role_of(role->u.str.s, &r)) {
			diag_error(run, src, role->span, MSG_HISTORY_ROLE,
			    role->kind == NODE_STRING ? diag_shown(run,
			    role->u.str.s, role->u.str.len) :
			    tree_kind_article(role->kind));
			eok = false;
		}
		if (!content) {
			diag_error(run, src, e->span, MSG_HISTORY_MISSING,
			    "content");
			eok = false;
		} else if (content->kind != NODE_STRING) {
			diag_error(run, src, content->span,
			    MSG_HISTORY_CONTENT,
			    tree_kind_article(content->kind));
			eok = false;
		}
		if (name && name->kind != NODE_STRING) {
			diag_error(run, src, name->span, MSG_WRONG_TYPE,
			    "name", "a string", tree_kind_article(name->kind));
			eok = false;
		}
		if (!eok) {
			ok = false;
			continue;
		}
		if (r == ROLE_SYSTEM || r == ROLE_DEVELOPER) {
			struct buf *b = r == ROLE_SYSTEM ? base : devbase;
			const char *t = content->u.str.s;
			size_t n = entry_trim(&t, content->u.str.len);

			if (!n)
				continue;
			if (b->len)
				buf_puts(b, "\n\n");
			buf_put(b, t, n);
			continue;
		}
		m = add_message(run, c, r, "history");
		m->content = content->u.str.s;
		m->len = content->u.str.len;
		m->name = name ? name->u.str.s : NULL;
		m->has_src = true;
		m->src = src->id;
		m->span = e->span;
	}
	return ok;
}

static void
add_base(struct run *run, struct stack *st, struct buf *b, enum role role,
    const struct source *src)
{
	struct entry *e;

	if (!b->len)
		return;
	e = entry_new(&run->arena, role == ROLE_SYSTEM ? "history.system" :
	    "history.developer", "history");
	e->base = true;
	e->role = role;
	e->priority = INT_MIN + 1;      /* right after the prefix */
	e->content = arena_strndup(&run->arena, b->data, b->len);
	e->len = b->len;
	e->has_src = true;
	e->src = src->id;
	e->span = span_make(0, 0);
	stack_add(st, e);
}

static void
compose(struct run *run, struct chat *c, enum role role, const char *origin)
{
	struct entry **v;
	size_t n = stack_select(&c->stack, PLACE_SYSTEM, role, &v), i;
	struct buf b = BUF_INIT;
	struct message *m;

	if (!n)
		return;
	layer_compose(&b, c->profile->style, v, n);
	m = add_message(run, c, role, origin);
	m->len = b.len;
	m->content = arena_adopt(&run->arena, buf_detach(&b));
	m->entries = v;
	m->nentries = n;
	for (i = 0; i < n; i++)
		v[i]->message = (int)(c->n - 1);
	buf_free(&b);
}

/* The current user turn: context blocks, a blank line, the text. */
static void
user_turn(struct run *run, struct chat *c, const struct source *user)
{
	struct entry **v;
	size_t n = stack_select(&c->stack, PLACE_USER, ROLE_USER, &v), i;
	struct buf b = BUF_INIT;
	struct message *m;

	for (i = 0; i < n; i++) {
		if (i)
			buf_puts(&b, "\n\n");
		buf_put(&b, v[i]->content, v[i]->len);
	}
	if (user && user->len) {
		if (b.len)
			buf_puts(&b, "\n\n");
		buf_put(&b, user->text, user->len);
	}
	if (b.len) {
		m = add_message(run, c, ROLE_USER, "turn");
		m->len = b.len;
		m->content = arena_adopt(&run->arena, buf_detach(&b));
		m->entries = v;
		m->nentries = n;
		if (user) {
			m->has_src = true;
			m->src = user->id;
			m->span = span_make(0, user->len);
		}
		for (i = 0; i < n; i++)
			v[i]->message = (int)(c->n - 1);
	}
	buf_free(&b);
}

static void
check_warnings(struct run *run, struct chat *c, struct tvars *vars)
{
	size_t i;

	for (i = 0; i < vars->n; i++)
		if (!vars->items[i].used && vars->items[i].src)
			diag_warning(run, vars->items[i].src,
			    vars->items[i].span, MSG_UNUSED_VAR,
			    vars->items[i].name);
	for (i = 0; i < c->stack.nall; i++) {
		const struct entry *e = c->stack.all[i], *by = e->replaced_by;

		if (e->status != ENTRY_REPLACED || strcmp(e->layer, "inject") ||
		    strcmp(by->layer, "inject"))
			continue;
		diag_warning(run, run_source(run, by->src), by->span,
		    MSG_INJECT_REPLACED, e->key);
		diag_note(run, run_source(run, e->src), e->span,
		    MSG_FIRST_HERE);
	}
}

bool
assemble(struct run *run, const struct options *opt, struct chat *c)
{
	struct setting *sets, *vars, *ctxs, *injs;
	struct context_input *cin;
	struct cli_inject *cinj;
	struct layer_input in;
	struct tvars tv;
	struct buf base = BUF_INIT, devbase = BUF_INIT;
	const struct source *user = NULL, *histsrc = NULL;
	const struct profile *p;
	size_t i;
	bool ok = true;

	memset(c, 0, sizeof(*c));
	memset(&tv, 0, sizeof(tv));
	stack_init(&c->stack, &run->arena);

	/* The command line's NAME=VALUE arguments. */
	ok = split_all(run, opt->sets, opt->nsets, "KEY", &sets) && ok;
	ok = split_all(run, opt->vars, opt->nvars, "NAME", &vars) && ok;
	ok = split_all(run, opt->contexts, opt->ncontexts, "NAME", &ctxs) &&
	    ok;
	ok = split_all(run, opt->injects, opt->ninjects, "KEY", &injs) && ok;
	if (!ok)
		return false;

	p = profile_load(run, opt->profile, sets, opt->nsets);
	if (!p)
		return false;
	c->profile = p;
	c->format = p->has_output ? p->output : FORMAT_OPENAI;
	if (opt->format)
		names_format_parse(opt->format, &c->format);
	c->model = p->model.s;
	c->params = p->params;
	c->max_tokens = p->max_tokens;

	/* Variables: the profile's, then -v. */
	template_vars_from(run, &tv, p->vars);
	for (i = 0; i < opt->nvars; i++) {
		const struct setting *s = &vars[i];

		template_var(run, &tv, arena_strndup(&run->arena,
		    s->src->text + s->name.off, s->name.len),
		    s->src->text + s->value.off, s->value.len, NULL,
		    s->name);
	}

	/* Inputs named on the command line. */
	cin = arena_array(&run->arena, opt->ncontexts + 1, sizeof(*cin));
	for (i = 0; i < opt->ncontexts; i++) {
		const struct setting *s = &ctxs[i];
		const char *file = arena_strndup(&run->arena,
		    s->src->text + s->value.off, s->value.len);

		cin[i].name = arena_strndup(&run->arena,
		    s->src->text + s->name.off, s->name.len);
		cin[i].arg = s->src;
		cin[i].namespan = s->name;
		cin[i].text = run_read(run, file, s->src, s->value);
		if (!cin[i].text)
			ok = false;
	}
	cinj = arena_array(&run->arena, opt->ninjects + 1, sizeof(*cinj));
	for (i = 0; i < opt->ninjects; i++) {
		cinj[i].arg = injs[i].src;
		cinj[i].key = injs[i].name;
		cinj[i].text = injs[i].value;
	}
	if (opt->user) {
		if (strcmp(opt->user, "-") == 0) {
			struct source *s = run_read(run, "-", NULL,
			    span_make(0, 0));

			/* Like $(...) in the shell: a piped message loses
			 * its final line endings. */
			while (s && s->len && (s->text[s->len - 1] == '\n' ||
			    s->text[s->len - 1] == '\r'))
				s->text[--s->len] = '\0';
			user = s;
		} else
			user = run_source_mem(run, "--user", opt->user,
			    strlen(opt->user));
		if (!user)
			ok = false;
	}
	/* SillyTavern inputs: the tavern assembly fills the chat. */
	if (ok && tavern_wanted(&opt->tavern, profile_tavern(p))) {
		struct tavern_input tin = opt->tavern;

		tin.user = user ? user->text : NULL;
		ok = tavern_input_profile(run, &tin, profile_tavern(p),
		    p->embedded ? NULL : p->src->path) &&
		    tavern_build(run, &tin, c);
		goto out;
	}
	if (opt->history && !history(run, opt->history, c, &base, &devbase,
	    &histsrc))
		ok = false;
	if (!ok)
		goto out;

	in.vars = &tv;
	in.contexts = cin;
	in.ncontexts = opt->ncontexts;
	in.injects = cinj;
	in.ninjects = opt->ninjects;
	in.check_only = opt->check_only;
	if (histsrc) {
		add_base(run, &c->stack, &base, ROLE_SYSTEM, histsrc);
		add_base(run, &c->stack, &devbase, ROLE_DEVELOPER, histsrc);
	}
	if (!layer_collect(run, p, &in, &c->stack, &c->tools)) {
		ok = false;
		goto out;
	}
	if (opt->check_only)
		check_warnings(run, c, &tv);

	/* Arrange: system, developer, history, the current turn.  The
	 * history messages were appended first; move them behind. */
	{
		size_t nhist = c->n;
		struct message *hist = arena_array(&run->arena, nhist + 1,
		    sizeof(*hist));

		if (nhist)
			memcpy(hist, c->msgs, nhist * sizeof(*hist));
		c->n = 0;
		compose(run, c, ROLE_SYSTEM, "system");
		compose(run, c, ROLE_DEVELOPER, "developer");
		for (i = 0; i < nhist; i++)
			*add_message(run, c, hist[i].role, "history") = hist[i];
		user_turn(run, c, user);
	}
out:
	buf_free(&base);
	buf_free(&devbase);
	return ok;
}
