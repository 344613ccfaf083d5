#include "profile/extends.h"

#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/map.h"
#include "base/path.h"
#include "data/load.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "profile/paths.h"
#include "profile/schema.h"

/* The files being read, top first, for cycles and their message. */
struct chain {
	struct run *run;
	struct paths *pd;
	const char *files[EXTENDS_MAX + 1];
	size_t depth;
	enum load_format topfmt;        /* --profile-format, or LOAD_GUESS */
};

/* ---- merge ------------------------------------------------------------ */

static bool
all_have_ids(const struct node *arr)
{
	size_t i, len;

	for (i = 0; i < arr->u.array.n; i++)
		if (!schema_entry_id(arr->u.array.items[i], &len))
			return false;
	return true;
}

/* Arrays of tables merge by identity; other arrays are replaced. */
static struct node *
merge_array(struct arena *a, struct node *base, struct node *over,
    const struct schema *s)
{
	struct map pos;         /* identity -> entry index + 1 */
	size_t i, len;

	if (!all_have_ids(over) || !all_have_ids(base))
		return over;
	map_init(&pos, a);
	for (i = 0; i < base->u.array.n; i++) {
		const char *id = schema_entry_id(base->u.array.items[i], &len);
		struct map_item *it = map_intern(&pos, id, len, NULL);

		if (!it->value)
			it->value = (void *)(uintptr_t)(i + 1);
	}
	for (i = 0; i < over->u.array.n; i++) {
		struct node *e = over->u.array.items[i];
		const char *id = schema_entry_id(e, &len);
		struct map_item *it = map_intern(&pos, id, len, NULL);
		size_t j = (size_t)(uintptr_t)it->value;

		if (j) {
			tree_replace(base, j - 1, extends_merge(a,
			    base->u.array.items[j - 1], e, s));
		} else {
			it->value = (void *)(uintptr_t)(base->u.array.n + 1);
			tree_push(a, base, e);
		}
	}
	return base;
}

struct node *
extends_merge(struct arena *a, struct node *base, struct node *over,
    const struct schema *s)
{
	size_t i;

	if (base->kind == NODE_ARRAY && over->kind == NODE_ARRAY)
		return merge_array(a, base, over, s);
	if (base->kind != NODE_TABLE || over->kind != NODE_TABLE)
		return over;
	schema_drop_excluded(a, base, over, s);
	for (i = 0; i < over->u.table.n; i++) {
		const struct member *m = &over->u.table.items[i];
		struct member *bm = tree_member(base, m->key, m->keylen);

		/* The base's key keeps its place (and span). */
		if (bm)
			tree_set(a, base, m->key, m->keylen, m->keysrc,
			    m->keyspan, extends_merge(a, bm->value, m->value,
			    schema_sub(s, m->key, m->keylen)));
		else
			tree_add(a, base, m->key, m->keylen, m->keysrc,
			    m->keyspan, m->value);
	}
	return base;
}

/* ---- the chain -------------------------------------------------------- */

/* A cycle or a chain too deep, reported at the extends that named path. */
static bool
chain_ok(struct chain *c, const char *path, const struct source *from,
    const struct node *at)
{
	struct buf b = BUF_INIT;
	size_t i, k;

	for (i = 0; i < c->depth; i++) {
		if (!paths_same_file(c->files[i], path))
			continue;
		for (k = i; k < c->depth; k++)
			buf_printf(&b, "%s -> ", c->files[k]);
		buf_puts(&b, path);
		diag_error(c->run, from, at->span, MSG_EXTENDS_CYCLE, b.data);
		buf_free(&b);
		return false;
	}
	if (c->depth == EXTENDS_MAX) {
		diag_error(c->run, from, at->span, MSG_EXTENDS_DEPTH,
		    EXTENDS_MAX);
		return false;
	}
	return true;
}

/* Read one profile file: TOML or YAML, a table at the top. */
static struct node *
read_profile(struct run *run, const char *path, const struct source *from,
    const struct node *at, struct source **srcp, enum load_format given)
{
	enum load_format fmt = given != LOAD_GUESS ? given :
	    load_format_of(path);
	struct node *t;

	/* JSON reads as a tree too, but a profile is TOML or YAML. */
	if (fmt == LOAD_GUESS || fmt == LOAD_JSON) {
		if (from)
			diag_error(run, from, at->span, MSG_UNKNOWN_FILE_TYPE,
			    path);
		else
			diag_plain(run, DIAG_ERROR, MSG_PROFILE_FORMAT, path);
		return NULL;
	}
	if (!load_file(run, path, fmt, from,
	    at ? at->span : span_make(0, 0), &t, srcp))
		return NULL;
	if (t->kind != NODE_TABLE) {
		diag_error(run, *srcp, t->span, MSG_WRONG_TYPE, "the profile",
		    "a table", tree_kind_article(t->kind));
		return NULL;
	}
	return t;
}

static struct node *load_chain(struct chain *c, const char *path,
    const struct source *from, const struct node *at, const char **dirp);

/* The merged base of t (from src), if it extends one: *base stays NULL
 * when it does not.  *basedir gets the base's prompt directory. */
static bool
load_base(struct chain *c, const struct source *src, const struct node *t,
    struct node **base, const char **basedir)
{
	struct arena *a = &c->run->arena;
	const struct node *ext = tree_get(t, "extends");

	*base = NULL;
	if (!ext)
		return true;
	if (ext->kind != NODE_STRING) {
		diag_error(c->run, src, ext->span, MSG_WRONG_TYPE, "extends",
		    "a string", tree_kind_article(ext->kind));
		return false;
	}
	*base = load_chain(c, paths_join(a, path_dir(a, src->path),
	    ext->u.str.s), src, ext, basedir);
	return *base != NULL;
}

/* Load one profile file and, first, what it extends; *dirp gets its
 * prompt directory. */
static struct node *
load_chain(struct chain *c, const char *path, const struct source *from,
    const struct node *at, const char **dirp)
{
	struct arena *a = &c->run->arena;
	struct source *src;
	struct node *t, *base;
	const char *basedir = NULL;
	bool ok;

	if (at && !chain_ok(c, path, from, at))
		return NULL;
	t = read_profile(c->run, path, from, at, &src,
	    at ? LOAD_GUESS : c->topfmt);
	if (!t)
		return NULL;
	c->files[c->depth++] = path;
	ok = load_base(c, src, t, &base, &basedir);
	c->depth--;
	if (!ok)
		return NULL;
	*dirp = paths_prompt_dir(a, src->path, t, basedir);
	paths_add(c->pd, src->id, *dirp, false);
	if (!base)
		return t;
	t = extends_merge(a, base, t, &schema_profile);
	/* extends is spent: the merged tree is self-contained. */
	tree_remove(a, t, "extends", strlen("extends"));
	return t;
}

struct node *
extends_load(struct run *run, const char *path, enum load_format fmt,
    struct paths *pd, const char **topdir)
{
	struct chain c;

	memset(&c, 0, sizeof(c));
	c.run = run;
	c.pd = pd;
	c.topfmt = fmt;
	return load_chain(&c, path, NULL, NULL, topdir);
}
