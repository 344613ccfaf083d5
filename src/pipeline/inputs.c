/* The command line's inputs: NAME=VALUE arguments, variables, -c files,
 * the user's text and the history. */
#include "pipeline/stages.h"

#include <string.h>

#include "base/arena.h"
#include "base/util.h"
#include "data/load.h"
#include "data/tree.h"
#include "diag/run.h"

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

bool
inputs_split(struct run *run, const struct options *opt,
    struct setting **sets, struct setting **vars, struct setting **ctxs,
    struct setting **injs)
{
	bool ok = true;

	ok = split_all(run, opt->sets, opt->nsets, "KEY", sets) && ok;
	ok = split_all(run, opt->vars, opt->nvars, "NAME", vars) && ok;
	ok = split_all(run, opt->contexts, opt->ncontexts, "NAME", ctxs) &&
	    ok;
	ok = split_all(run, opt->injects, opt->ninjects, "KEY", injs) && ok;
	return ok;
}

/*
 * The history: a JSON array of {role, content[, name]}.  System and
 * developer messages are split out into in->base and in->devbase; the
 * others go to in->hist in order, borrowing their text from the tree.
 * The array has two free slots before the history and one after it, for
 * arrange() to use in place: a million messages are not copied again.
 */
static bool
history(struct run *run, const char *path, struct inputs *in)
{
	struct buf *base = &in->base, *devbase = &in->devbase;
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
	in->histsrc = src;
	in->hist = (struct message *)arena_array(&run->arena,
	    root->u.array.n + 3, sizeof(*in->hist)) + 2;
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
		m = &in->hist[in->nhist++];
		m->role = r;
		m->origin = "history";
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
variables(struct run *run, const struct options *opt,
    const struct profile *p, const struct setting *vars, struct tvars *tv)
{
	size_t i;

	template_vars_init(run, tv);
	tv->keep_unknown = p->keep_unknown_vars;
	template_vars_from(run, tv, p->vars);
	for (i = 0; i < opt->nvars; i++) {
		const struct setting *s = &vars[i];

		template_var(run, tv, arena_strndup(&run->arena,
		    s->src->text + s->name.off, s->name.len),
		    s->src->text + s->value.off, s->value.len, NULL,
		    s->name);
	}
}

static bool
contexts(struct run *run, const struct options *opt,
    const struct setting *ctxs, struct inputs *in)
{
	size_t i;
	bool ok = true;

	in->contexts = arena_array(&run->arena, opt->ncontexts + 1,
	    sizeof(*in->contexts));
	for (i = 0; i < opt->ncontexts; i++) {
		const struct setting *s = &ctxs[i];
		struct context_input *ci = &in->contexts[i];
		const char *file = arena_strndup(&run->arena,
		    s->src->text + s->value.off, s->value.len);

		ci->name = arena_strndup(&run->arena,
		    s->src->text + s->name.off, s->name.len);
		ci->arg = s->src;
		ci->namespan = s->name;
		ci->text = run_read(run, file, s->src, s->value);
		if (!ci->text)
			ok = false;
	}
	return ok;
}

static const struct source *
user_text(struct run *run, const char *user)
{
	struct source *s;

	if (strcmp(user, "-") != 0)
		return run_source_mem(run, "--user", user, strlen(user));
	s = run_read(run, "-", NULL, span_make(0, 0));
	/* Like $(...) in the shell: a piped message loses its final line
	 * endings. */
	while (s && s->len && (s->text[s->len - 1] == '\n' ||
	    s->text[s->len - 1] == '\r'))
		s->text[--s->len] = '\0';
	return s;
}

bool
inputs_read(struct run *run, const struct options *opt,
    const struct profile *p, const struct setting *vars,
    const struct setting *ctxs, const struct setting *injs,
    struct inputs *in)
{
	size_t i;
	bool ok;

	memset(in, 0, sizeof(*in));
	variables(run, opt, p, vars, &in->vars);
	ok = contexts(run, opt, ctxs, in);
	in->injects = arena_array(&run->arena, opt->ninjects + 1,
	    sizeof(*in->injects));
	for (i = 0; i < opt->ninjects; i++) {
		in->injects[i].arg = injs[i].src;
		in->injects[i].key = injs[i].name;
		in->injects[i].text = injs[i].value;
	}
	if (opt->user) {
		in->user = user_text(run, opt->user);
		if (!in->user)
			ok = false;
	}
	if (opt->history && !history(run, opt->history, in))
		ok = false;
	return ok;
}

void
inputs_free(struct inputs *in)
{
	buf_free(&in->base);
	buf_free(&in->devbase);
}
