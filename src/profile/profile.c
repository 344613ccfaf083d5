#include "profile/profile.h"

#include <limits.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "data/load.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "profile/embedded.h"
#include "profile/extends.h"
#include "profile/paths.h"
#include "profile/plugins.h"
#include "profile/schema.h"
#include "profile/set.h"

/* The name of the built-in profile, as messages show it. */
#define EMBEDDED_NAME "(default)/default.toml"

/* ---- typed access ----------------------------------------------------- */

/* Integer n (absent: *out unchanged) at least min, else an error. */
static bool
int_in(struct run *run, const struct node *n, const char *what,
    int64_t min, int64_t *out)
{
	if (!n || n->kind != NODE_INT)
		return true;
	if (n->u.i >= min) {
		*out = n->u.i;
		return true;
	}
	diag_error(run, run_source(run, n->src), n->span, MSG_WRONG_TYPE,
	    what, min ? "a positive integer" : "zero or a positive integer",
	    min ? "zero or negative" : "negative");
	return false;
}

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

/* What entry table e says about the budget. */
static struct pcut
cut_of(const struct node *e)
{
	struct pcut c;
	const struct node *n = tree_get(e, "protect");

	memset(&c, 0, sizeof(c));
	c.has_protect = n && n->kind == NODE_BOOL;
	c.protect = c.has_protect && n->u.b;
	n = tree_get(e, "cut");
	c.has_cut = n && n->kind == NODE_STRING;
	c.cut = (enum cut_how)index_of(schema_cut_modes, c.has_cut ?
	    n->u.str.s : NULL, CUT_DROP);
	c.fallback = pstr_of(e, "fallback");
	return c;
}

/* The entries of array key of root, and their count in *n. */
static const struct node *
array_of(const struct node *root, const char *key, size_t *n)
{
	const struct node *a = tree_get(root, key);

	*n = a && a->kind == NODE_ARRAY ? a->u.array.n : 0;
	return a;
}

/* The labels of [prompt] table t: its lang's, then [prompt.labels]. */
static void
fill_labels(struct profile *p, const struct node *t)
{
	const struct node *over = t ? tree_get(t, "labels") : NULL;
	size_t i;
	int l;

	p->lang = (enum lang)index_of(labels_langs, pstr_of(t, "lang").s, 0);
	for (i = 0; i < LABEL_COUNT; i++)
		p->labels[i] = labels_default(p->lang, (enum label)i);
	if (!over || over->kind != NODE_TABLE)
		return;
	for (i = 0; i < over->u.table.n; i++) {
		const struct member *m = &over->u.table.items[i];

		l = labels_find(m->key, m->keylen);
		if (l >= 0 && m->value->kind == NODE_STRING)
			p->labels[l] = m->value->u.str.s;
	}
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
	p->soul = pstr_of(t, "soul");
	p->scene = pstr_of(t, "scene");
	p->identity_hints = !bool_of(t, "disable_identity_hints", false);
	p->agent = bool_of(t, "agent", false);
	fill_labels(p, t);
	p->vars = tree_get(p->root, "vars");
}

/* A skill's further files, from array node f (or none). */
static void
fill_files(struct arena *a, struct pskill *s, const struct node *f)
{
	size_t i;

	s->nfiles = f && f->kind == NODE_ARRAY ? f->u.array.n : 0;
	s->files = arena_array(a, s->nfiles, sizeof(*s->files));
	for (i = 0; i < s->nfiles; i++) {
		const struct node *x = f->u.array.items[i];

		s->files[i].s = x->u.str.s;
		s->files[i].len = x->u.str.len;
		s->files[i].node = x;
	}
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
		s->show_path = pstr_of(e, "show_path");
		fill_files(a, s, tree_get(e, "files"));
		s->mode = (enum skill_mode)index_of(schema_skill_modes,
		    pstr_of(e, "mode").s, 0);
		s->has_priority = priority_of(e, 75, &s->priority);
		s->cut = cut_of(e);
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
		c->cut = cut_of(e);
		if (!c->tag.s)
			c->tag.s = arena_printf(a, "%s context", c->name.s);
		c->tag.len = strlen(c->tag.s);
	}
}

/* Where an injection goes: position, role and depth together. */
static bool
inject_place(struct run *run, const struct node *e, struct pinject *in)
{
	struct pstr pos = pstr_of(e, "position");
	const struct node *role = tree_get(e, "role");
	const struct node *depth = tree_get(e, "depth"), *at = role;
	bool has_role = role && role->kind == NODE_STRING;
	bool has_depth = depth && depth->kind == NODE_INT;
	enum diag_msg msg = MSG_INCHAT_ROLE;

	if (has_depth) {
		if (depth->u.i < 0 || depth->u.i > INT_MAX / 2) {
			diag_error(run, run_source(run, depth->src),
			    depth->span, MSG_WRONG_TYPE, "inject.depth",
			    "an integer from 0 to 1073741823",
			    depth->u.i < 0 ? "negative" : "that large");
			return false;
		}
		in->depth = (int)depth->u.i;
	}
	switch (entry_place(index_of(names_positions, pos.s, -1), has_role,
	    &in->role, has_depth, &in->placement)) {
	case ENTRY_PLACE_OK:
		return true;
	case ENTRY_PLACE_INCHAT_ROLE:
		break;
	case ENTRY_PLACE_NEEDS_DEPTH:
		msg = MSG_INJECT_NEEDS_DEPTH;
		break;
	case ENTRY_PLACE_DEPTH:
		at = depth;
		FALLTHROUGH;
	case ENTRY_PLACE_ROLE:
		diag_error(run, run_source(run, at->src), at->span,
		    MSG_INJECT_POSITION, at == depth ? "depth" : "role",
		    pos.s);
		return false;
	}
	diag_error(run, run_source(run, role->src), role->span, msg,
	    role->u.str.s);
	return false;
}

/* anchor: a place among a SillyTavern preset's prompts, so only for an
 * injection into the system (or developer) prompt. */
static bool
inject_anchor(struct run *run, struct arena *a, const struct node *e,
    struct pinject *in)
{
	const char *id;
	size_t len;

	in->anchor = pstr_of(e, "anchor");
	if (!in->anchor.s || !schema_anchor_parse(in->anchor.s,
	    &in->anchor_before, &id, &len)) {
		in->anchor.s = NULL;
		return true;
	}
	in->anchor_id = arena_strndup(a, id, len);
	if (in->placement == PLACE_SYSTEM)
		return true;
	diag_error(run, run_source(run, in->anchor.node->src),
	    in->anchor.node->span, MSG_ANCHOR_PLACE,
	    in->placement == PLACE_DEPTH ? "a depth (an in-chat injection)" :
	    "position = \"user-context\"");
	return false;
}

static bool
fill_injects(struct run *run, struct profile *p)
{
	const struct node *arr = array_of(p->root, "inject", &p->ninjects);
	size_t i;
	bool ok = true;

	p->injects = arena_array(&run->arena, p->ninjects,
	    sizeof(*p->injects));
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
		in->cut = cut_of(e);
		if (!inject_place(run, e, in) ||
		    !inject_anchor(run, &run->arena, e, in))
			ok = false;
	}
	return ok;
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
	p->developer_as_system = index_of(schema_developer_roles,
	    pstr_of(t, "developer_role").s, 0) == 1;
	n = tree_get(t, "cache");
	p->cache_auto = n && n->kind == NODE_STRING &&
	    strcmp(n->u.str.s, "auto") == 0;
	n = tree_get(t, "context");
	if (!int_in(run, n, "output.context", 1, &p->context))
		return false;
	p->context_node = n;
	n = tree_get(t, "max_tokens");
	return int_in(run, n, "output.max_tokens", 1, &p->max_tokens);
}

/* [budget]: the numbers checked, the rest typed. */
static bool
fill_budget(struct run *run, struct profile *p)
{
	const struct node *t = tree_get(p->root, "budget"), *n;
	struct pbudget *b = &p->budget;
	int64_t margin = 10;
	bool ok;

	b->node = t;
	b->max_node = tree_get(t, "max_tokens");
	b->marker = pstr_of(t, "marker");
	if (!b->marker.s) {
		b->marker.s = "[...]";
		b->marker.len = 5;
	}
	b->cut = (enum cut_how)index_of(schema_cut_modes,
	    pstr_of(t, "cut").s, CUT_DROP);
	b->history_priority = 1000;
	n = tree_get(t, "history_priority");
	if (n && n->kind == NODE_INT)
		b->history_priority = (int)n->u.i;
	else if (n && n->kind == NODE_STRING)
		names_priority_parse(n->u.str.s, n->u.str.len,
		    &b->history_priority);
	b->protect_priority = 10;       /* "safety" */
	n = tree_get(t, "protect_priority");
	if (n && n->kind == NODE_INT)
		b->protect_priority = (int)n->u.i;
	else if (n && n->kind == NODE_STRING)
		names_priority_parse(n->u.str.s, n->u.str.len,
		    &b->protect_priority);
	b->protect = tree_get(t, "protect");
	ok = int_in(run, b->max_node, "budget.max_tokens", 1,
	    &b->max_tokens);
	if (!int_in(run, tree_get(t, "keep_first"), "budget.keep_first", 0,
	    &b->keep_first))
		ok = false;
	n = tree_get(t, "margin");
	b->has_margin = n && n->kind == NODE_INT;
	if (!int_in(run, n, "budget.margin", 0, &margin))
		ok = false;
	else if (margin > 90) {
		diag_error(run, run_source(run, n->src), n->span,
		    MSG_WRONG_TYPE, "budget.margin", "a percentage from 0 to "
		    "90", "more than 90");
		ok = false;
	}
	b->margin = (int)margin;
	return ok;
}

/* The typed view of a checked tree. */
static bool
fill(struct run *run, struct profile *p)
{
	fill_prompt(p);
	fill_skills(&run->arena, p);
	fill_tools(&run->arena, p);
	fill_contexts(&run->arena, p);
	bool ok = fill_injects(run, p);

	if (!fill_output(run, p))
		ok = false;
	return fill_budget(run, p) && ok;
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
	return profile_load_as(run, path, NULL, sets, nsets);
}

struct profile *
profile_load_as(struct run *run, const char *path, const char *format,
    const struct setting *sets, size_t nsets)
{
	struct arena *a = &run->arena;
	struct profile *p = arena_alloc(a, sizeof(*p));
	struct paths *pd = paths_new(a);
	const char *topdir = NULL;
	uint32_t first;
	bool ok;

	memset(p, 0, sizeof(*p));
	p->paths = pd;
	first = (uint32_t)run->sources.n;
	if (path) {
		p->root = extends_load(run, path, !format ? LOAD_GUESS :
		    strcmp(format, "yaml") == 0 ? LOAD_YAML : LOAD_TOML, pd,
		    &topdir);
		if (p->root)
			paths_set_top(pd, topdir, false);
	} else {
		p->root = load_embedded(run, pd);
		p->embedded = true;
	}
	if (!p->root)
		return NULL;
	/* The file that was run is the first read: the merged root may
	 * come from the base it extends. */
	p->src = run_source(run, first);
	if (!p->src)
		p->src = run_source(run, p->root->src);
	ok = set_apply(run, p->root, sets, nsets);
	/* A --set prompt.dir (a path from the command line, so relative to
	 * the current directory) wins for every file. */
	paths_override(a, pd, tree_get(tree_get(p->root, "prompt"), "dir"));
	ok = schema_check(run, p->root, &schema_profile, "") && ok;
	/* Plugins add tools and skills once the profile's keys are right. */
	if (ok)
		ok = plugins_load(run, p->root, pd, path);
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

const struct node *
profile_tavern(const struct profile *p)
{
	return tree_get(p->root, "tavern");
}

const struct node *
profile_hooks(const struct profile *p)
{
	return tree_get(p->root, "hooks");
}

const char *
profile_prompt_dir(const struct profile *p)
{
	return paths_top(p->paths);
}

bool
profile_use_llm(struct run *run, struct profile *p, const char *name)
{
	const struct node *all = tree_get(p->root, "llm_profiles");
	const struct node *l = tree_get(all, name), *n;
	struct pstr ps;

	if (!l || l->kind != NODE_TABLE) {
		struct buf b = BUF_INIT;
		size_t i;

		for (i = 0; all && all->kind == NODE_TABLE &&
		    i < all->u.table.n; i++)
			buf_printf(&b, "%s%s", i ? ", " : "",
			    all->u.table.items[i].key);
		diag_plain(run, DIAG_ERROR, MSG_LLM_PROFILE_NONE, name, name,
		    b.len ? b.data : "none");
		buf_free(&b);
		return false;
	}
	ps = pstr_of(l, "prompt_prefix");
	if (ps.s)
		p->prefix = ps;
	ps = pstr_of(l, "model");
	if (ps.s)
		p->model = ps;
	if ((n = tree_get(l, "params")))
		p->params = n;
	n = tree_get(l, "max_tokens");
	if (n && n->kind == NODE_INT) {
		if (n->u.i <= 0) {
			diag_error(run, run_source(run, n->src), n->span,
			    MSG_WRONG_TYPE, arena_printf(&run->arena,
			    "llm_profiles.%s.max_tokens", name),
			    "a positive integer", "zero or negative");
			return false;
		}
		p->max_tokens = n->u.i;
	}
	return true;
}
