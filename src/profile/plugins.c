#include "profile/plugins.h"

#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/map.h"
#include "base/path.h"
#include "data/load.h"
#include "data/tree.h"
#include "diag/run.h"
#include "profile/paths.h"
#include "profile/schema.h"

/*
 * The plugins directory: dir as its profile file writes it, relative to
 * that file; from --set, relative to the current directory; by default
 * plugins/ beside the top profile.
 */
static const char *
plugins_dir(struct run *run, const struct paths *pd, const struct node *t,
    const char *topfile)
{
	struct arena *a = &run->arena;
	const struct node *d = tree_get(t, "dir");

	if (!d)
		return paths_join(a, path_dir(a, topfile ? topfile : "."),
		    "plugins");
	if (!paths_known(pd, d->src))
		return d->u.str.s;
	return paths_join(a, path_dir(a, run_source(run, d->src)->path),
	    d->u.str.s);
}

/* Push the elements of array key of plugin tree pt onto root's. */
static void
append(struct arena *a, struct node *root, const struct node *pt,
    const char *key)
{
	const struct node *from = tree_get(pt, key);
	struct node *to;
	size_t i;

	if (!from || from->kind != NODE_ARRAY || from->u.array.n == 0)
		return;
	to = tree_get(root, key);
	if (!to) {
		to = tree_new(a, NODE_ARRAY, from->src, from->span);
		tree_set(a, root, key, strlen(key), from->src, from->span, to);
	}
	for (i = 0; i < from->u.array.n; i++)
		tree_push(a, to, from->u.array.items[i]);
}

/* One enabled plugin, named by string node name. */
static bool
plugin(struct run *run, struct node *root, struct paths *pd,
    const char *dir, const struct node *name)
{
	static const char *const files[] = { "plugin.toml", "plugin.yaml",
		"plugin.yml" };
	struct arena *a = &run->arena;
	const char *pdir = paths_join(a, dir, name->u.str.s), *path = NULL;
	struct source *src;
	struct node *t;
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]) && !path; i++) {
		const char *f = paths_join(a, pdir, files[i]);

		if (access(f, F_OK) == 0)
			path = f;
	}
	if (!path) {
		diag_error(run, run_source(run, name->src), name->span,
		    MSG_PLUGIN_NOT_FOUND, name->u.str.s, pdir, pdir);
		return false;
	}
	if (!load_file(run, path, LOAD_GUESS, run_source(run, name->src),
	    name->span, &t, &src))
		return false;
	if (t->kind != NODE_TABLE || !schema_check(run, t, &schema_plugin, ""))
		return false;
	paths_add(pd, src->id, pdir, false);
	append(a, root, t, "skills");
	append(a, root, t, "tools");
	return true;
}

bool
plugins_load(struct run *run, struct node *root, struct paths *pd,
    const char *topfile)
{
	const struct node *t = tree_get(root, "plugins");
	const struct node *en = tree_get(t, "enabled");
	struct map seen;
	const char *dir;
	size_t i;
	bool ok = true;

	if (!en || en->kind != NODE_ARRAY || en->u.array.n == 0)
		return true;
	dir = plugins_dir(run, pd, t, topfile);
	map_init(&seen, &run->arena);
	for (i = 0; i < en->u.array.n; i++) {
		const struct node *name = en->u.array.items[i];

		if (map_get(&seen, name->u.str.s, name->u.str.len)) {
			diag_error(run, run_source(run, name->src),
			    name->span, MSG_PLUGIN_TWICE, name->u.str.s);
			ok = false;
			continue;
		}
		map_put(&seen, name->u.str.s, name->u.str.len, (void *)name);
		ok = plugin(run, root, pd, dir, name) && ok;
	}
	return ok;
}
