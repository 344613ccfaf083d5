/*
 * ftav_st: a fast-tavern regex rule file handed to a SillyTavern build
 * (--regex FILE).  fast-tavern's rules say where they apply with
 * targets and view; SillyTavern's scripts with placement, markdownOnly
 * and promptOnly.  ftav_regex_for_tavern() reads the file the way
 * fast-tavern's normalizeRegexes does (one rule, a list, {regexScripts:
 * [...]}, {scripts: [...]}, or a list of those; a rule with no id is
 * dropped, as fast-tavern drops it) and writes each rule as the
 * SillyTavern script that does the same in a SillyTavern build:
 *   targets userInput 1, aiOutput 2, slashCommands 3, worldBook 5,
 *           reasoning 6 (with fast-tavern's aliases);
 *   view    model: promptOnly, user: markdownOnly, both: both; no view
 *           or no target: the rule never runs (disabled);
 *   replaceRegex, trimRegex, macroMode none/raw/escaped, enabled,
 *           name: replaceString, trimStrings, substituteRegex 0/1/2,
 *           disabled, scriptName.
 * The values keep their source spans, so a pattern that does not
 * compile is still reported where it was written.
 */
#include "tavern/ftav.h"

#include <string.h>

#include "base/arena.h"
#include "data/tree.h"
#include "diag/run.h"

static bool
is_rule(const struct node *v)
{
	return v && v->kind == NODE_TABLE && tree_get(v, "findRegex");
}

/* Does this script read as fast-tavern's (targets, view or
 * replaceRegex, none of SillyTavern's own keys)? */
static bool
ft_style(const struct node *v)
{
	static const char *const st[] = { "placement", "replaceString",
		"markdownOnly", "promptOnly", "scriptName", "trimStrings",
		"substituteRegex", "disabled", NULL };
	size_t i;

	if (!is_rule(v))
		return false;
	for (i = 0; st[i]; i++)
		if (tree_get(v, st[i]))
			return false;
	return tree_get(v, "targets") || tree_get(v, "view") ||
	    tree_get(v, "replaceRegex");
}

static int
placement(const struct node *v)
{
	static const char *const names[] = { "userInput", "aiOutput",
		"slashCommands", "worldBook", "reasoning", "user", "model",
		"assistant_response", "preset", "world_book", NULL };
	static const int map[] = { 1, 2, 3, 5, 6, 1, 2, 2, 3, 5 };
	size_t i;

	for (i = 0; v && v->kind == NODE_STRING && names[i]; i++)
		if (strcmp(v->u.str.s, names[i]) == 0)
			return map[i];
	return -1;
}

static void
put(struct arena *a, struct node *t, const char *k, struct node *v)
{
	tree_put(a, t, k, v);
}

static void
convert(struct run *run, const struct node *r, struct node *out)
{
	struct arena *a = &run->arena;
	struct node *s, *pl;
	const struct node *v, *id = tree_get(r, "id");
	bool user = false, model = false, any = false;
	size_t i;
	int k;

	/* fast-tavern drops a rule whose id is empty. */
	if (!ftav_truthy(id) || (id->kind == NODE_STRING && !id->u.str.len))
		return;
	s = tree_new(a, NODE_TABLE, r->src, r->span);
	if ((v = tree_get(r, "id")) && v->kind == NODE_STRING)
		put(a, s, "id", (struct node *)v);
	if ((v = tree_get(r, "name")) && v->kind == NODE_STRING)
		put(a, s, "scriptName", (struct node *)v);
	put(a, s, "findRegex", (struct node *)tree_get(r, "findRegex"));
	if ((v = tree_get(r, "replaceRegex")))
		put(a, s, "replaceString", (struct node *)v);
	if ((v = tree_get(r, "trimRegex")) && v->kind == NODE_ARRAY)
		put(a, s, "trimStrings", (struct node *)v);
	pl = tree_new(a, NODE_ARRAY, r->src, r->span);
	v = tree_get(r, "targets");
	for (i = 0; v && v->kind == NODE_ARRAY && i < v->u.array.n; i++)
		if ((k = placement(v->u.array.items[i])) > 0) {
			tree_push(a, pl, tree_int(a, k));
			any = true;
		}
	put(a, s, "placement", pl);
	v = tree_get(r, "view");
	for (i = 0; v && v->kind == NODE_ARRAY && i < v->u.array.n; i++) {
		const struct node *x = v->u.array.items[i];

		if (x->kind != NODE_STRING)
			continue;
		if (!strcmp(x->u.str.s, "user") ||
		    !strcmp(x->u.str.s, "user_view"))
			user = true;
		else if (!strcmp(x->u.str.s, "model") ||
		    !strcmp(x->u.str.s, "model_view") ||
		    !strcmp(x->u.str.s, "assistant_view"))
			model = true;
	}
	put(a, s, "markdownOnly", tree_bool(a, user));
	put(a, s, "promptOnly", tree_bool(a, model));
	v = tree_get(r, "enabled");
	put(a, s, "disabled", tree_bool(a, (v && v->kind == NODE_BOOL &&
	    !v->u.b) || !any || !(user || model)));
	put(a, s, "runOnEdit", tree_bool(a, ftav_truthy(tree_get(r,
	    "runOnEdit"))));
	v = tree_get(r, "macroMode");
	put(a, s, "substituteRegex", tree_int(a, v && v->kind == NODE_STRING ?
	    !strcmp(v->u.str.s, "raw") ? 1 : !strcmp(v->u.str.s, "escaped") ?
	    2 : 0 : 0));
	if ((v = tree_get(r, "minDepth")) && (v->kind == NODE_INT ||
	    v->kind == NODE_FLOAT))
		put(a, s, "minDepth", (struct node *)v);
	if ((v = tree_get(r, "maxDepth")) && (v->kind == NODE_INT ||
	    v->kind == NODE_FLOAT))
		put(a, s, "maxDepth", (struct node *)v);
	tree_push(a, out, s);
}

static void
list(struct run *run, const struct node *l, struct node *out)
{
	size_t i;

	for (i = 0; i < l->u.array.n; i++)
		if (is_rule(l->u.array.items[i]))
			convert(run, l->u.array.items[i], out);
}

/* One file of fast-tavern's shapes: the rules, or false when it holds
 * none of fast-tavern's style. */
static bool
file(struct run *run, const struct node *f, struct node *out, bool *seen)
{
	const struct node *l;
	size_t i;

	if (!f)
		return false;
	if (f->kind == NODE_TABLE && ((l = tree_get(f, "regexScripts")) ||
	    (l = tree_get(f, "scripts"))) && l->kind == NODE_ARRAY) {
		for (i = 0; i < l->u.array.n; i++)
			*seen |= ft_style(l->u.array.items[i]);
		list(run, l, out);
		return true;
	}
	if (f->kind == NODE_ARRAY) {
		for (i = 0; i < f->u.array.n; i++) {
			const struct node *x = f->u.array.items[i];

			if (is_rule(x)) {
				*seen |= ft_style(x);
				convert(run, x, out);
			} else {
				file(run, x, out, seen);
			}
		}
		return true;
	}
	if (is_rule(f)) {
		*seen |= ft_style(f);
		convert(run, f, out);
	}
	return true;
}

struct node *
ftav_regex_for_tavern(struct run *run, const struct node *in)
{
	struct node *out;
	bool seen = false;

	if (!in)
		return NULL;
	out = tree_new(&run->arena, NODE_ARRAY, in->src, in->span);
	file(run, in, out, &seen);
	return seen ? out : NULL;
}
