#include "profile/paths.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/path.h"
#include "base/vec.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "profile/embedded.h"

/* The prompt directory of one profile file. */
struct pdir {
	uint32_t src;
	const char *dir;        /* arena */
	bool embedded;          /* the built-in profile: files in the binary */
};

/* At most one per file of an extends chain (32), so lookups scan. */
struct paths {
	struct arena *arena;    /* borrowed: the run's */
	VEC(struct pdir) dirs;
	const char *topdir;
	bool top_embedded;
};

struct paths *
paths_new(struct arena *a)
{
	struct paths *pd = arena_alloc(a, sizeof(*pd));

	memset(pd, 0, sizeof(*pd));
	pd->arena = a;
	return pd;
}

void
paths_add(struct paths *pd, uint32_t src, const char *dir, bool embedded)
{
	struct pdir d;

	d.src = src;
	d.dir = arena_strdup(pd->arena, dir);
	d.embedded = embedded;
	avec_push(pd->arena, &pd->dirs, d);
}

void
paths_set_top(struct paths *pd, const char *dir, bool embedded)
{
	pd->topdir = arena_strdup(pd->arena, dir);
	pd->top_embedded = embedded;
}

const char *
paths_top(const struct paths *pd)
{
	return pd->top_embedded ? NULL : pd->topdir;
}

static const struct pdir *
pdir_for(const struct paths *pd, uint32_t src)
{
	size_t i;

	for (i = 0; i < pd->dirs.n; i++)
		if (pd->dirs.v[i].src == src)
			return &pd->dirs.v[i];
	return NULL;
}

bool
paths_known(const struct paths *pd, uint32_t src)
{
	return pdir_for(pd, src) != NULL;
}

static bool
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Lexically tidy a path: drop "." components and fold "dir/.." pairs, so
 * that messages read "prompts/x.md" rather than "profiles/../prompts/x.md".
 * Leading ".." components are kept.
 */
static char *
tidy(struct arena *a, const char *p)
{
	size_t n = strlen(p), i = 0, ncomp = 0, up = 0, k;
	const char **comp = arena_array(a, n / 2 + 2, sizeof(*comp));
	size_t *clen = arena_array(a, n / 2 + 2, sizeof(*clen));
	bool abs = p[0] == '/';
	struct buf b = BUF_INIT;
	char *out;

	while (i < n) {
		size_t start, len;

		while (i < n && p[i] == '/')
			i++;
		start = i;
		while (i < n && p[i] != '/')
			i++;
		len = i - start;
		if (len == 0 || (len == 1 && p[start] == '.'))
			continue;
		if (len == 2 && p[start] == '.' && p[start + 1] == '.') {
			if (ncomp > up) {
				ncomp--;
				continue;
			}
			if (abs)
				continue;
			up++;
		}
		comp[ncomp] = p + start;
		clen[ncomp++] = len;
	}
	if (abs)
		buf_putc(&b, '/');
	for (k = 0; k < ncomp; k++) {
		if (k)
			buf_putc(&b, '/');
		buf_put(&b, comp[k], clen[k]);
	}
	if (!b.len)
		buf_putc(&b, '.');
	out = arena_strndup(a, b.data, b.len);
	buf_free(&b);
	return out;
}

char *
paths_join(struct arena *a, const char *dir, const char *path)
{
	const char *raw = path_join(a, dir, path);
	char *neat = tidy(a, raw);
	struct stat sr, sn;

	/* The tidy name reads better in messages, but "a/.." through a
	 * symbolic link is not where the kernel goes: keep the raw path
	 * when the two name different files (or only the raw one exists). */
	if (strstr(raw, "..") && stat(raw, &sr) == 0 &&
	    (stat(neat, &sn) != 0 || sr.st_dev != sn.st_dev ||
	    sr.st_ino != sn.st_ino))
		return arena_strdup(a, raw);
	return neat;
}

bool
paths_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (strcmp(a, b) == 0)
		return true;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	    sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

char *
paths_prompt_dir(struct arena *a, const char *srcpath, const struct node *t,
    const char *inherited)
{
	const struct node *prompt = tree_get(t, "prompt");
	const struct node *d = prompt ? tree_get(prompt, "dir") : NULL;
	char *here = path_dir(a, srcpath), *p;

	if (d && d->kind == NODE_STRING)
		return paths_join(a, here, d->u.str.s);
	p = paths_join(a, here, "prompts");
	if (is_dir(p))
		return p;
	p = paths_join(a, here, "../prompts");
	if (is_dir(p))
		return p;
	if (inherited)
		return arena_strdup(a, inherited);
	return paths_join(a, here, "prompts");
}

void
paths_override(struct arena *a, struct paths *pd, const struct node *d)
{
	const char *dir;
	size_t i;

	if (!d || d->kind != NODE_STRING || pdir_for(pd, d->src))
		return;
	dir = tidy(a, d->u.str.s);
	for (i = 0; i < pd->dirs.n; i++) {
		pd->dirs.v[i].dir = dir;
		pd->dirs.v[i].embedded = false;
	}
	pd->topdir = dir;
	pd->top_embedded = false;
}

/*
 * A path written in a profile file resolves against that file's prompt
 * directory.  One from --set resolves like the top profile's -- except
 * on the embedded profile, whose directory is not on disk: there a path
 * from the command line is relative to the current directory.
 */
static const char *
dir_for(const struct paths *pd, const struct node *at, bool *embedded)
{
	const struct pdir *d = at ? pdir_for(pd, at->src) : NULL;

	if (d) {
		*embedded = d->embedded;
		return d->dir;
	}
	*embedded = false;
	return pd->top_embedded ? "." : pd->topdir;
}

const char *
paths_resolve(struct run *run, const struct paths *pd, const char *path,
    const struct node *at)
{
	bool embedded;

	return paths_join(&run->arena, dir_for(pd, at, &embedded), path);
}

struct source *
paths_open(struct run *run, const struct paths *pd, const char *path,
    const struct node *at)
{
	bool embedded;
	const char *full = paths_join(&run->arena, dir_for(pd, at, &embedded),
	    path);
	const struct source *from = at ? run_source(run, at->src) : NULL;
	struct span sp = at ? at->span : span_make(0, 0);
	const char *text;
	size_t len;

	if (!embedded)
		return run_read(run, full, from, sp);
	text = embedded_find(full, &len);
	if (text)
		return run_source_mem(run, arena_printf(&run->arena,
		    "(default)/%s", full), text, len);
	errno = ENOENT;
	diag_error(run, from, sp, MSG_CANNOT_READ, full);
	return NULL;
}
