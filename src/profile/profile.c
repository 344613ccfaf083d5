#include "profile/profile.h"

#include <string.h>

#include "base/arena.h"
#include "base/util.h"
#include "data/load.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "profile/embedded.h"
#include "profile/extends.h"
#include "profile/paths.h"
#include "profile/schema.h"
#include "profile/set.h"

/* The name of the built-in profile, as messages show it. */
#define EMBEDDED_NAME "(default)/default.toml"

/* ---- typed access ----------------------------------------------------- */

static struct pstr
pstr_of(const struct node *t, const char *key)
{
	struct pstr p = { NULL, 0, NULL };
	const struct node *n = tree_get(t, key);

	if (n && n->kind == NODE_STRING) {
		p.s = n->u.str.s;
		p.len = n->u.str.len;
	}
	p.node = n;
	return p;
}

static bool
bool_of(const struct node *t, const char *key, bool dflt)
{
	const struct node *n = tree_get(t, key);

	return n && n->kind == NODE_BOOL ? n->u.b : dflt;
}

static int
index_of(const char *const *list, const char *s, int dflt)
{
	int i;

	if (!s)
		return dflt;
	for (i = 0; list[i]; i++)
		if (strcmp(list[i], s) == 0)
			return i;
	return dflt;
}

static bool
priority_of(const struct node *t, int dflt, int *out)
{
	const struct node *n = tree_get(t, "priority");

	*out = dflt;
	if (!n)
		return false;
	if (n->kind == NODE_INT)
		*out = (int)n->u.i;
	else if (n->kind == NODE_STRING)
		names_priority_parse(n->u.str.s, n->u.str.len, out);
	return true;
}

/* The entries of array key of root, and their count in *n. */
static const struct node *
array_of(const struct node *root, const char *key, size_t *n)
{
	const struct node *a = tree_get(root, key);

	*n = a && a->kind == NODE_ARRAY ? a->u.array.n : 0;
	return a;
}

static void
fill_prompt(struct profile *p)
{
	const struct node *t = tree_get(p->root, "profile");

	p->name = pstr_of(t, "name");
	p->description = pstr_of(t, "description");
	t = tree_get(p->root, "prompt");
	p->persona = pstr_of(t, "persona");
	p->format = pstr_of(t, "format");
	p->prefix = pstr_of(t, "prefix");
	p->outline_header = pstr_of(t, "outline_header");
	p->outline_footer = pstr_of(t, "outline_footer");
	p->style = (enum style)index_of(names_styles, pstr_of(t, "style").s,
	    0);
	p->keep_unknown_vars = bool_of(t, "keep_unknown_vars", false);
	p->vars = tree_get(p->root, "vars");
}

static void
fill_skills(struct arena *a, struct profile *p)
{
	const struct node *arr = array_of(p->root, "skills", &p->nskills);
	size_t i;

	p->skills = arena_array(a, p->nskills, sizeof(*p->skills));
	for (i = 0; i < p->nskills; i++) {
		struct pskill *s = &p->skills[i];
		const struct node *e = arr->u.array.items[i];

		s->node = e;
		s->name = pstr_of(e, "name");
		s->file = pstr_of(e, "file");
		s->description = pstr_of(e, "description");
		s->mode = (enum skill_mode)index_of(schema_skill_modes,
		    pstr_of(e, "mode").s, 0);
		s->has_priority = priority_of(e, 75, &s->priority);
	}
}

static void
fill_tools(struct arena *a, struct profile *p)
{
	const struct node *arr = array_of(p->root, "tools", &p->ntools);
	size_t i;

	p->tools = arena_array(a, p->ntools, sizeof(*p->tools));
	for (i = 0; i < p->ntools; i++) {
		struct ptool *tl = &p->tools[i];
		const struct node *e = arr->u.array.items[i];

		tl->node = e;
		tl->file = pstr_of(e, "file");
		if (!tl->file.node)
			tl->def = e;
	}
}

static void
fill_contexts(struct arena *a, struct profile *p)
{
	const struct node *arr = array_of(p->root, "context", &p->ncontexts);
	size_t i;

	p->contexts = arena_array(a, p->ncontexts, sizeof(*p->contexts));
	for (i = 0; i < p->ncontexts; i++) {
		struct pcontext *c = &p->contexts[i];
		const struct node *e = arr->u.array.items[i];

		c->node = e;
		c->name = pstr_of(e, "name");
		c->tag = pstr_of(e, "tag");
		c->file = pstr_of(e, "file");
		c->required = bool_of(e, "required", false);
		if (!c->tag.s)
			c->tag.s = arena_printf(a, "%s context", c->name.s);
		c->tag.len = strlen(c->tag.s);
	}
}

static void
fill_injects(struct arena *a, struct profile *p)
{
	const struct node *arr = array_of(p->root, "inject", &p->ninjects);
	size_t i;

	p->injects = arena_array(a, p->ninjects, sizeof(*p->injects));
	for (i = 0; i < p->ninjects; i++) {
		struct pinject *in = &p->injects[i];
		const struct node *e = arr->u.array.items[i];

		in->node = e;
		in->key = pstr_of(e, "key");
		in->content = pstr_of(e, "content");
		in->file = pstr_of(e, "file");
		priority_of(e, 100, &in->priority);
		in->role = (enum role)index_of(schema_inject_roles,
		    pstr_of(e, "role").s, 0);
		in->scope = (enum scope)index_of(names_scopes,
		    pstr_of(e, "scope").s, 0);
		in->enabled = bool_of(e, "enabled", true);
	}
}

static bool
fill_output(struct run *run, struct profile *p)
{
	const struct node *t = tree_get(p->root, "output"), *n;

	p->model = pstr_of(t, "model");
	n = tree_get(t, "format");
	if (n && n->kind == NODE_STRING) {
		p->has_output = true;
		names_format_parse(n->u.str.s, &p->output);
	}
	p->params = tree_get(t, "params");
	n = tree_get(t, "cache");
	p->cache_auto = n && n->kind == NODE_STRING &&
	    strcmp(n->u.str.s, "auto") == 0;
	n = tree_get(t, "max_tokens");
	if (!n || n->kind != NODE_INT)
		return true;
	p->max_tokens = n->u.i;
	if (n->u.i > 0)
		return true;
	diag_error(run, run_source(run, n->src), n->span, MSG_WRONG_TYPE,
	    "output.max_tokens", "a positive integer", "zero or negative");
	return false;
}

/* The typed view of a checked tree. */
static bool
fill(struct run *run, struct profile *p)
{
	fill_prompt(p);
	fill_skills(&run->arena, p);
	fill_tools(&run->arena, p);
	fill_contexts(&run->arena, p);
	fill_injects(&run->arena, p);
	return fill_output(run, p);
}

/* ---- loading ---------------------------------------------------------- */

/* The built-in profile, whose prompt files are in the binary too. */
static struct node *
load_embedded(struct run *run, struct paths *pd)
{
	struct source *src;
	struct node *root;
	const char *text;
	size_t len;

	text = embedded_find("profiles/default.toml", &len);
	if (!text)
		die("the embedded default profile is missing");
	src = run_source_mem(run, EMBEDDED_NAME, text, len);
	if (!load_source(run, src, LOAD_TOML, &root))
		die("the embedded default profile does not parse");
	paths_add(pd, src->id, "prompts", true);
	paths_set_top(pd, "prompts", true);
	return root;
}

struct profile *
profile_load(struct run *run, const char *path, const struct setting *sets,
    size_t nsets)
{
	struct arena *a = &run->arena;
	struct profile *p = arena_alloc(a, sizeof(*p));
	struct paths *pd = paths_new(a);
	const char *topdir = NULL;
	bool ok;

	memset(p, 0, sizeof(*p));
	p->paths = pd;
	if (path) {
		p->root = extends_load(run, path, pd, &topdir);
		if (p->root)
			paths_set_top(pd, topdir, false);
	} else {
		p->root = load_embedded(run, pd);
		p->embedded = true;
	}
	if (!p->root)
		return NULL;
	p->src = run_source(run, p->root->src);
	ok = set_apply(run, p->root, sets, nsets);
	/* A --set prompt.dir (a path from the command line, so relative to
	 * the current directory) wins for every file. */
	paths_override(a, pd, tree_get(tree_get(p->root, "prompt"), "dir"));
	ok = schema_check(run, p->root, &schema_profile, "") && ok;
	if (!ok || !fill(run, p))
		return NULL;
	return p;
}

const char *
profile_resolve(struct run *run, const struct profile *p,
    const struct pstr *path)
{
	return paths_resolve(run, p->paths, path->s, path->node);
}

struct source *
profile_open(struct run *run, const struct profile *p, const struct pstr *path)
{
	return paths_open(run, p->paths, path->s, path->node);
}
