#include "profile/profile.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "base/buf.h"
#include "diag/diag.h"
#include "profile/embedded.h"
#include "data/load.h"
#include "diag/run.h"
#include "data/tree.h"
#include "base/util.h"

#define EXTENDS_MAX 32

/* The name of the built-in profile, as messages show it. */
#define EMBEDDED_NAME "(default)/default.toml"

/*
 * The schema.  Each key has a type; T_TABLES is an array of tables whose
 * entries are known by their `name` (or `key`); T_ANY is a free-form
 * table copied as it is (output.params); T_SCALARS a table of scalars
 * (vars); T_SCHEMA a JSON Schema table (checked by tool.c).
 */
enum ftype {
	T_STRING,
	T_BOOL,
	T_INT,
	T_PRIORITY,
	T_TABLE,
	T_TABLES,
	T_ANY,
	T_SCALARS,
	T_STRINGS,      /* an array of strings ([tavern] worlds) */
};

struct field {
	const char *name;
	enum ftype type;
	const struct field *sub;
	const char *const *choices;     /* for strings: allowed values */
};

#define styles names_styles
static const char *const modes[] = { "inline", "outline", NULL };
static const char *const roles[] = { "system", "developer", NULL };
#define scopes names_scopes
#define formats names_formats

static const struct field profile_fields[] = {
	{ "name", T_STRING, NULL, NULL },
	{ "description", T_STRING, NULL, NULL },
	{ NULL, 0, NULL, NULL },
};

static const struct field prompt_fields[] = {
	{ "dir", T_STRING, NULL, NULL },
	{ "persona", T_STRING, NULL, NULL },
	{ "format", T_STRING, NULL, NULL },
	{ "prefix", T_STRING, NULL, NULL },
	{ "style", T_STRING, NULL, styles },
	{ "outline_header", T_STRING, NULL, NULL },
	{ "outline_footer", T_STRING, NULL, NULL },
	{ "keep_unknown_vars", T_BOOL, NULL, NULL },
	{ NULL, 0, NULL, NULL },
};

static const struct field skill_fields[] = {
	{ "name", T_STRING, NULL, NULL },
	{ "file", T_STRING, NULL, NULL },
	{ "mode", T_STRING, NULL, modes },
	{ "description", T_STRING, NULL, NULL },
	{ "priority", T_PRIORITY, NULL, NULL },
	{ NULL, 0, NULL, NULL },
};

/* Inline tool definitions are checked by tool.c, which knows the three
 * shapes; here only `file` is ours. */
static const struct field tool_fields[] = {
	{ "file", T_STRING, NULL, NULL },
	{ "name", T_STRING, NULL, NULL },
	{ "description", T_STRING, NULL, NULL },
	{ "parameters", T_ANY, NULL, NULL },
	{ "usage_hint", T_STRING, NULL, NULL },
	{ NULL, 0, NULL, NULL },
};

static const struct field context_fields[] = {
	{ "name", T_STRING, NULL, NULL },
	{ "tag", T_STRING, NULL, NULL },
	{ "file", T_STRING, NULL, NULL },
	{ "required", T_BOOL, NULL, NULL },
	{ NULL, 0, NULL, NULL },
};

static const struct field inject_fields[] = {
	{ "key", T_STRING, NULL, NULL },
	{ "content", T_STRING, NULL, NULL },
	{ "file", T_STRING, NULL, NULL },
	{ "priority", T_PRIORITY, NULL, NULL },
	{ "role", T_STRING, NULL, roles },
	{ "scope", T_STRING, NULL, scopes },
	{ "enabled", T_BOOL, NULL, NULL },
	{ NULL, 0, NULL, NULL },
};

static const struct field output_fields[] = {
	{ "format", T_STRING, NULL, formats },
	{ "model", T_STRING, NULL, NULL },
	{ "max_tokens", T_INT, NULL, NULL },
	{ "params", T_ANY, NULL, NULL },
	{ NULL, 0, NULL, NULL },
};

/* SillyTavern inputs (tavern/tbuild.h); paths are relative to the
 * profile file.  Read through profile_tavern(). */
static const struct field tavern_fields[] = {
	{ "card", T_STRING, NULL, NULL },
	{ "preset", T_STRING, NULL, NULL },
	{ "chat", T_STRING, NULL, NULL },
	{ "settings", T_STRING, NULL, NULL },
	{ "worlds", T_STRINGS, NULL, NULL },
	{ "regex", T_STRINGS, NULL, NULL },
	{ "user", T_STRING, NULL, NULL },
	{ "persona", T_STRING, NULL, NULL },
	{ NULL, 0, NULL, NULL },
};

static const struct field top_fields[] = {
	{ "extends", T_STRING, NULL, NULL },
	{ "profile", T_TABLE, profile_fields, NULL },
	{ "prompt", T_TABLE, prompt_fields, NULL },
	{ "vars", T_SCALARS, NULL, NULL },
	{ "skills", T_TABLES, skill_fields, NULL },
	{ "tools", T_TABLES, tool_fields, NULL },
	{ "context", T_TABLES, context_fields, NULL },
	{ "inject", T_TABLES, inject_fields, NULL },
	{ "output", T_TABLE, output_fields, NULL },
	{ "tavern", T_TABLE, tavern_fields, NULL },
	{ NULL, 0, NULL, NULL },
};

/* Per profile file: the directory its relative paths resolve against. */
struct pdir {
	uint32_t src;
	char *dir;              /* arena */
	bool embedded;
};

struct loader {
	struct run *run;
	struct pdir *dirs;
	size_t ndirs, capdirs;
	const char *chain[EXTENDS_MAX + 1];
	size_t depth;
	const char *topdir;     /* prompt dir of the top profile */
	bool top_embedded;
};

/* The loader's directories outlive loading: the profile keeps them. */
struct profile_dirs {
	struct pdir *dirs;
	size_t n;
	const char *topdir;
	bool top_embedded;
};

static struct profile_dirs *dirs_of(const struct profile *p);

static const struct source *
src_of(struct run *run, const struct node *n)
{
	return run_source(run, n->src);
}

static const char *
choices_text(struct arena *a, const char *const *choices)
{
	struct buf b = BUF_INIT;
	const char *s;
	size_t i;

	for (i = 0; choices[i]; i++) {
		if (i)
			buf_puts(&b, choices[i + 1] ? ", " : " or ");
		buf_printf(&b, "'%s'", choices[i]);
	}
	if (i == 1)
		buf_puts(&b, "");
	s = arena_strndup(a, b.data ? b.data : "", b.len);
	buf_free(&b);
	return s;
}

static const char *
type_text(enum ftype t)
{
	switch (t) {
	case T_STRING:
		return "a string";
	case T_BOOL:
		return "a boolean";
	case T_INT:
		return "an integer";
	case T_PRIORITY:
		return "an integer or a priority name";
	case T_TABLE:
	case T_ANY:
	case T_SCALARS:
		return "a table";
	case T_TABLES:
		break;
	case T_STRINGS:
		return "an array of strings";
	}
	return "an array of tables";
}

/* " (did you mean 'x'?)" for the nearest field name, or "". */
static const char *
suggest(struct arena *a, const char *key, const struct field *fields)
{
	const char *best = NULL;
	size_t bestd = 3, d, i;

	for (i = 0; fields[i].name; i++) {
		size_t max = strlen(fields[i].name) / 3 + 1;

		d = str_distance(key, fields[i].name, max < 2 ? max : 2);
		if (d <= (max < 2 ? max : 2) && d < bestd) {
			bestd = d;
			best = fields[i].name;
		}
	}
	return best ? arena_printf(a, "; did you mean '%s'?", best) : "";
}

static const struct field *
find_field(const struct field *fields, const char *key, size_t len)
{
	size_t i;

	for (i = 0; fields[i].name; i++)
		if (strlen(fields[i].name) == len &&
		    memcmp(fields[i].name, key, len) == 0)
			return &fields[i];
	return NULL;
}

static const char *
dotted(struct arena *a, const char *prefix, const char *key)
{
	return *prefix ? arena_printf(a, "%s.%s", prefix, key) : key;
}

static bool check_table(struct run *run, const struct node *t,
    const struct field *fields, const char *prefix);
static const char *entry_id(const struct node *e);

static bool
check_value(struct run *run, const struct field *f, const struct node *v,
    const char *path)
{
	struct arena *a = &run->arena;
	size_t i;
	int prio;
	bool ok = true;

	switch (f->type) {
	case T_STRING:
		if (v->kind != NODE_STRING)
			break;
		if (memchr(v->u.str.s, '\0', v->u.str.len)) {
			diag_error(run, src_of(run, v), v->span,
			    MSG_NUL_IN_STRING, path);
			return false;
		}
		if (f->choices) {
			for (i = 0; f->choices[i]; i++)
				if (strcmp(f->choices[i], v->u.str.s) == 0)
					return true;
			diag_error(run, src_of(run, v), v->span,
			    MSG_BAD_CHOICE, path,
			    choices_text(a, f->choices),
			    diag_shown(run, v->u.str.s, v->u.str.len));
			return false;
		}
		return true;
	case T_BOOL:
		if (v->kind == NODE_BOOL)
			return true;
		break;
	case T_INT:
		if (v->kind == NODE_INT)
			return true;
		break;
	case T_PRIORITY:
		if (v->kind == NODE_INT) {
			if (v->u.i >= INT_MIN / 2 && v->u.i <= INT_MAX / 2)
				return true;
			diag_error(run, src_of(run, v), v->span,
			    MSG_PRIORITY_RANGE, path);
			return false;
		}
		if (v->kind == NODE_STRING) {
			if (names_priority_parse(v->u.str.s, v->u.str.len, &prio))
				return true;
			diag_error(run, src_of(run, v), v->span,
			    MSG_BAD_PRIORITY, path, v->u.str.s);
			return false;
		}
		break;
	case T_TABLE:
		if (v->kind == NODE_TABLE)
			return check_table(run, v, f->sub, path);
		break;
	case T_ANY:
		if (v->kind == NODE_TABLE)
			return true;
		break;
	case T_SCALARS:
		if (v->kind != NODE_TABLE)
			break;
		for (i = 0; i < v->u.table.n; i++) {
			const struct member *m = &v->u.table.items[i];
			const struct node *x = m->value;

			if (x->kind == NODE_TABLE || x->kind == NODE_ARRAY ||
			    x->kind == NODE_NULL) {
				diag_error(run, src_of(run, x), x->span,
				    MSG_WRONG_TYPE, dotted(a, path, m->key),
				    "a string, number or boolean",
				    tree_kind_article(x->kind));
				ok = false;
			}
		}
		return ok;
	case T_STRINGS:
		if (v->kind != NODE_ARRAY)
			break;
		for (i = 0; i < v->u.array.n; i++)
			if (v->u.array.items[i]->kind != NODE_STRING) {
				v = v->u.array.items[i];
				goto wrong;
			}
		return true;
	case T_TABLES:
		if (v->kind != NODE_ARRAY)
			break;
		for (i = 0; i < v->u.array.n; i++) {
			const struct node *e = v->u.array.items[i];
			const char *id = entry_id(e);
			/* Name the entry as --set would: skills.diary. */
			const char *ep = id && !strchr(id, '[') ?
			    arena_printf(a, "%s.%s", path, id) :
			    arena_printf(a, "%s[%zu]", path, i + 1);

			if (e->kind != NODE_TABLE) {
				diag_error(run, src_of(run, e), e->span,
				    MSG_WRONG_TYPE, ep, "a table",
				    tree_kind_article(e->kind));
				ok = false;
			} else if (!check_table(run, e, f->sub, ep)) {
				ok = false;
			}
		}
		return ok;
	}
wrong:
	diag_error(run, src_of(run, v), v->span, MSG_WRONG_TYPE, path,
	    type_text(f->type), tree_kind_article(v->kind));
	return false;
}

static bool
check_table(struct run *run, const struct node *t, const struct field *fields,
    const char *prefix)
{
	size_t i;
	bool ok = true;

	for (i = 0; i < t->u.table.n; i++) {
		const struct member *m = &t->u.table.items[i];
		const struct field *f = find_field(fields, m->key, m->keylen);
		const char *path = dotted(&run->arena, prefix, m->key);

		if (!f) {
			diag_error(run, run_source(run, m->keysrc),
			    m->keyspan, MSG_UNKNOWN_KEY,
			    diag_shown(run, path, strlen(path)),
			    suggest(&run->arena, m->key, fields));
			ok = false;
			continue;
		}
		if (!check_value(run, f, m->value, path))
			ok = false;
	}
	return ok;
}

/* ---- extends ---------------------------------------------------------- */

/*
 * What an entry of an array of tables is known by, for extends merging
 * and --set: its name, else its key, else the stem of its file
 * ("skills/diary.md" is "diary").  Returns a NUL-terminated string in a
 * static buffer for stems, so callers compare it before the next call.
 */
static const char *
entry_id(const struct node *e)
{
	static char stem[256];
	const struct node *id;
	const char *b, *dot;
	size_t n;

	if (e->kind != NODE_TABLE)
		return NULL;
	id = tree_get(e, "name");
	if (!id)
		id = tree_get(e, "key");
	if (id)
		return id->kind == NODE_STRING ? id->u.str.s : NULL;
	id = tree_get(e, "file");
	if (!id || id->kind != NODE_STRING)
		return NULL;
	b = strrchr(id->u.str.s, '/');
	b = b ? b + 1 : id->u.str.s;
	dot = strrchr(b, '.');
	n = dot && dot != b ? (size_t)(dot - b) : strlen(b);
	if (n >= sizeof(stem))
		n = sizeof(stem) - 1;
	memcpy(stem, b, n);
	stem[n] = '\0';
	return stem;
}

static struct node *merge(struct arena *a, const struct node *base,
    const struct node *over);

/* Arrays of tables merge by name/key; other arrays are replaced. */
static struct node *
merge_array(struct arena *a, const struct node *base, const struct node *over)
{
	struct node *out, *pos;
	size_t i, j;

	for (i = 0; i < over->u.array.n; i++)
		if (!entry_id(over->u.array.items[i]))
			return tree_copy(a, over);
	for (i = 0; i < base->u.array.n; i++)
		if (!entry_id(base->u.array.items[i]))
			return tree_copy(a, over);
	/* Entries by name -> position, hashed so that merging stays
	 * linear. */
	out = tree_copy(a, base);
	pos = tree_table(a);
	for (j = 0; j < out->u.array.n; j++) {
		const char *id = entry_id(out->u.array.items[j]);

		if (!tree_get(pos, id))
			tree_put(a, pos, id, tree_int(a, (int64_t)j));
	}
	for (i = 0; i < over->u.array.n; i++) {
		const struct node *e = over->u.array.items[i];
		const char *id = entry_id(e);
		const struct node *at = tree_get(pos, id);

		if (at) {
			j = (size_t)at->u.i;
			out->u.array.items[j] = merge(a,
			    out->u.array.items[j], e);
		} else {
			tree_put(a, pos, id, tree_int(a,
			    (int64_t)out->u.array.n));
			tree_push(a, out, tree_copy(a, e));
		}
	}
	return out;
}

static struct node *
merge(struct arena *a, const struct node *base, const struct node *over)
{
	struct node *out;
	size_t i;

	if (base->kind == NODE_ARRAY && over->kind == NODE_ARRAY)
		return merge_array(a, base, over);
	if (base->kind != NODE_TABLE || over->kind != NODE_TABLE)
		return tree_copy(a, over);
	out = tree_copy(a, base);
	for (i = 0; i < over->u.table.n; i++) {
		const struct member *m = &over->u.table.items[i];
		struct member *bm = tree_member(out, m->key, m->keylen);

		if (bm)
			bm->value = merge(a, bm->value, m->value);
		else
			tree_add(a, out, m->key, m->keylen, m->keysrc,
			    m->keyspan, tree_copy(a, m->value));
	}
	return out;
}

static bool
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *
dir_of(struct arena *a, const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return arena_strdup(a, ".");
	if (slash == path)
		return arena_strdup(a, "/");
	return arena_strndup(a, path, (size_t)(slash - path));
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

static char *
join(struct arena *a, const char *dir, const char *path)
{
	const char *raw = path[0] == '/' || strcmp(dir, ".") == 0 ? path :
	    arena_printf(a, "%s/%s", dir, path);
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

static void
add_dir(struct loader *ld, uint32_t src, char *dir, bool embedded)
{
	if (ld->ndirs == ld->capdirs) {
		size_t cap = ld->capdirs ? ld->capdirs * 2 : 8;

		ld->dirs = arena_grow(&ld->run->arena, ld->dirs, ld->ndirs,
		    cap, sizeof(*ld->dirs));
		ld->capdirs = cap;
	}
	ld->dirs[ld->ndirs].src = src;
	ld->dirs[ld->ndirs].dir = dir;
	ld->dirs[ld->ndirs].embedded = embedded;
	ld->ndirs++;
}

/*
 * The prompt directory of one profile file: its own prompt.dir, else
 * prompts/ beside it, else ../prompts/, else the one of the profile it
 * extends, else (for the message when a file is missing) prompts/.
 */
static char *
prompt_dir(struct loader *ld, const struct source *src, const struct node *t,
    const char *inherited)
{
	struct arena *a = &ld->run->arena;
	const struct node *prompt = tree_get(t, "prompt");
	const struct node *d = prompt ? tree_get(prompt, "dir") : NULL;
	char *here = dir_of(a, src->path), *p;

	if (d && d->kind == NODE_STRING)
		return join(a, here, d->u.str.s);
	p = join(a, here, "prompts");
	if (is_dir(p))
		return p;
	p = join(a, here, "../prompts");
	if (is_dir(p))
		return p;
	if (inherited)
		return arena_strdup(a, inherited);
	return join(a, here, "prompts");
}

static bool
same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (strcmp(a, b) == 0)
		return true;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	    sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static bool
pdir_in(const struct loader *ld, uint32_t src)
{
	size_t i;

	for (i = 0; i < ld->ndirs; i++)
		if (ld->dirs[i].src == src)
			return true;
	return false;
}

/* Load one profile file and, first, what it extends; *dirp gets its
 * prompt directory. */
static struct node *
load_chain(struct loader *ld, const char *path, const struct source *from,
    const struct node *at, const char **dirp)
{
	struct run *run = ld->run;
	struct source *src;
	struct node *t, *base = NULL;
	const struct node *ext;
	const char *basedir = NULL;
	size_t i;

	for (i = 0; i < ld->depth; i++) {
		if (same_file(ld->chain[i], path)) {
			struct buf b = BUF_INIT;
			size_t k;

			for (k = i; k < ld->depth; k++)
				buf_printf(&b, "%s -> ", ld->chain[k]);
			buf_puts(&b, path);
			diag_error(run, from, at->span, MSG_EXTENDS_CYCLE,
			    b.data);
			buf_free(&b);
			return NULL;
		}
	}
	if (ld->depth == EXTENDS_MAX) {
		diag_error(run, from, at->span, MSG_EXTENDS_DEPTH, EXTENDS_MAX);
		return NULL;
	}
	/* JSON reads as a tree too, but a profile is TOML or YAML. */
	if (load_format_of(path) == LOAD_GUESS ||
	    load_format_of(path) == LOAD_JSON) {
		if (from)
			diag_error(run, from, at->span, MSG_UNKNOWN_FILE_TYPE,
			    path);
		else
			diag_plain(run, DIAG_ERROR, MSG_UNKNOWN_FILE_TYPE,
			    path);
		return NULL;
	}
	if (!load_file(run, path, LOAD_GUESS, from,
	    at ? at->span : span_make(0, 0), &t, &src))
		return NULL;
	if (t->kind != NODE_TABLE) {
		diag_error(run, src, t->span, MSG_WRONG_TYPE, "the profile",
		    "a table", tree_kind_article(t->kind));
		return NULL;
	}
	ld->chain[ld->depth++] = path;
	ext = tree_get(t, "extends");
	if (ext) {
		if (ext->kind != NODE_STRING) {
			diag_error(run, src, ext->span, MSG_WRONG_TYPE,
			    "extends", "a string", tree_kind_article(ext->kind));
			ld->depth--;
			return NULL;
		}
		base = load_chain(ld, join(&run->arena,
		    dir_of(&run->arena, src->path), ext->u.str.s), src, ext,
		    &basedir);
		if (!base) {
			ld->depth--;
			return NULL;
		}
	}
	ld->depth--;
	*dirp = prompt_dir(ld, src, t, basedir);
	add_dir(ld, src->id, (char *)*dirp, false);
	if (base) {
		t = merge(&run->arena, base, t);
		/* extends is spent: the merged tree is self-contained. */
		for (i = 0; i < t->u.table.n; i++)
			if (strcmp(t->u.table.items[i].key, "extends") == 0) {
				memmove(&t->u.table.items[i],
				    &t->u.table.items[i + 1],
				    (t->u.table.n - i - 1) *
				    sizeof(*t->u.table.items));
				t->u.table.n--;
				t->u.table.index = NULL;
				break;
			}
	}
	return t;
}

/* ---- --set ------------------------------------------------------------ */

/* The value of a --set, typed as the key expects. */
static struct node *
typed_value(struct run *run, const struct setting *s, const char *path,
    const struct field *f)
{
	struct arena *a = &run->arena;
	const char *v = s->src->text + s->value.off;
	size_t len = s->value.len;
	struct node *n;
	char *end;
	long long ll;
	double d;
	bool infer = !f || f->type == T_ANY;
	const char *want = NULL;

	if (f && (f->type == T_STRING || f->type == T_SCALARS))
		return tree_new_string(a, v, len, s->src->id, s->value);
	if (f && f->type == T_PRIORITY) {
		/* A number stays a number, so that the range check
		 * speaks of it; anything else is a priority name. */
		char *tmp = arena_strndup(a, v, len);

		errno = 0;
		ll = strtoll(tmp, &end, 10);
		if (len && *end == '\0' && errno == 0) {
			n = tree_new(a, NODE_INT, s->src->id, s->value);
			n->u.i = ll;
			return n;
		}
		return tree_new_string(a, v, len, s->src->id, s->value);
	}
	if (infer || f->type == T_BOOL) {
		if (len == 4 && memcmp(v, "true", 4) == 0) {
			n = tree_new(a, NODE_BOOL, s->src->id, s->value);
			n->u.b = true;
			return n;
		}
		if (len == 5 && memcmp(v, "false", 5) == 0) {
			n = tree_new(a, NODE_BOOL, s->src->id, s->value);
			n->u.b = false;
			return n;
		}
		want = "true or false";
	}
	if (infer || f->type == T_INT) {
		char *tmp = arena_strndup(a, v, len);

		errno = 0;
		ll = strtoll(tmp, &end, 10);
		if (len && *end == '\0' && errno == 0) {
			n = tree_new(a, NODE_INT, s->src->id, s->value);
			n->u.i = ll;
			return n;
		}
		want = "an integer";
		if (infer) {
			d = strtod(tmp, &end);
			if (len && *end == '\0' && (v[0] == '-' ||
			    v[0] == '+' || v[0] == '.' ||
			    (v[0] >= '0' && v[0] <= '9'))) {
				n = tree_new(a, NODE_FLOAT, s->src->id,
				    s->value);
				n->u.f = d;
				return n;
			}
			return tree_new_string(a, v, len, s->src->id,
			    s->value);
		}
	}
	if (!want)
		want = type_text(f->type);
	diag_error(run, s->src, s->value, MSG_SET_BAD_VALUE, path, want,
	    arena_strndup(a, v, len));
	return NULL;
}

static bool
apply_set(struct run *run, struct node *root, const struct setting *s)
{
	struct arena *a = &run->arena;
	const char *key = s->src->text + s->name.off;
	size_t klen = s->name.len, i = 0, j;
	const struct field *fields = top_fields, *f = NULL;
	/* Under [vars] every value is text, as with -v. */
	static const struct field vars_value = { "", T_STRING, NULL, NULL };
	struct node *t = root;
	const char *path = "";
	bool in_vars = false;

	while (i <= klen) {
		struct span comp;
		const char *c;
		size_t clen;
		struct member *m;
		bool last;

		for (j = i; j < klen && key[j] != '.'; j++)
			;
		c = key + i;
		clen = j - i;
		comp = span_make(s->name.off + i, clen);
		last = j >= klen;
		if (clen == 0) {
			diag_error(run, s->src, s->name, MSG_SET_SYNTAX, "KEY");
			return false;
		}
		path = *path ? arena_printf(a, "%s.%.*s", path, (int)clen, c)
		    : arena_strndup(a, c, clen);
		f = fields ? find_field(fields, c, clen) : in_vars ?
		    &vars_value : NULL;
		if (fields && !f) {
			diag_error(run, s->src, comp, MSG_UNKNOWN_KEY,
			    diag_shown(run, path, strlen(path)),
			    suggest(a, arena_strndup(a, c, clen), fields));
			return false;
		}
		if (last) {
			struct node *v = typed_value(run, s, path, f);

			if (!v)
				return false;
			tree_set(a, t, c, clen, s->src->id, comp, v);
			return true;
		}
		m = tree_member(t, c, clen);
		if (!m) {
			struct node *nt;

			if (f && f->type == T_TABLES) {
				size_t e0 = j + 1, e1;

				for (e1 = e0; e1 < klen && key[e1] != '.'; e1++)
					;
				diag_error(run, s->src, span_make(s->name.off +
				    e0, e1 - e0), MSG_SET_NO_ENTRY, path,
				    arena_strndup(a, key + e0, e1 - e0));
				return false;
			}
			nt = tree_new(a, NODE_TABLE, s->src->id, comp);
			m = tree_add(a, t, c, clen, s->src->id, comp, nt);
		}
		if (f && f->type == T_TABLES && m->value->kind == NODE_ARRAY) {
			/*
			 * What follows names the entry.  Names may hold dots
			 * (injection keys like global.safety), so take the
			 * longest entry name that the rest starts with and a
			 * '.' follows.
			 */
			size_t k, best = SIZE_MAX, bestlen = 0, e0 = j + 1, e1;

			for (k = 0; k < m->value->u.array.n; k++) {
				const char *id = entry_id(
				    m->value->u.array.items[k]);
				size_t n = id ? strlen(id) : 0;

				if (n && e0 + n <= klen &&
				    memcmp(id, key + e0, n) == 0 &&
				    (e0 + n == klen || key[e0 + n] == '.') &&
				    n > bestlen) {
					best = k;
					bestlen = n;
				}
			}
			for (e1 = e0; e1 < klen && key[e1] != '.'; e1++)
				;
			if (best == SIZE_MAX) {
				diag_error(run, s->src,
				    span_make(s->name.off + e0, e1 - e0),
				    MSG_SET_NO_ENTRY, path,
				    arena_strndup(a, key + e0, e1 - e0));
				return false;
			}
			e1 = e0 + bestlen;
			if (e1 >= klen) {
				diag_error(run, s->src,
				    span_make(s->name.off + e0, e1 - e0),
				    MSG_SET_WHOLE_ENTRY, path,
				    arena_strndup(a, key, klen));
				return false;
			}
			t = m->value->u.array.items[best];
			fields = f->sub;
			path = arena_printf(a, "%s.%.*s", path,
			    (int)(e1 - e0), key + e0);
			i = e1 + 1;
			continue;
		}
		if (m->value->kind != NODE_TABLE) {
			diag_error(run, s->src, comp, MSG_SET_NOT_TABLE,
			    arena_strndup(a, key, klen), (int)(j), key,
			    tree_kind_article(m->value->kind));
			return false;
		}
		t = m->value;
		fields = f ? f->sub : NULL;
		in_vars = f && f->type == T_SCALARS;
		if (f && (f->type == T_ANY || f->type == T_SCALARS))
			fields = NULL;
		i = j + 1;
	}
	return true;
}

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

static const struct node *
array_of(const struct node *root, const char *key, size_t *n)
{
	const struct node *a = tree_get(root, key);

	*n = a && a->kind == NODE_ARRAY ? a->u.array.n : 0;
	return a;
}

static bool
need(struct run *run, const struct node *e, const char *what,
    const char *key)
{
	const struct node *v = tree_get(e, key);

	if (!v) {
		diag_error(run, src_of(run, e), e->span, MSG_MISSING_KEY, what,
		    key);
		return false;
	}
	if (v->kind == NODE_STRING && v->u.str.len == 0) {
		diag_error(run, src_of(run, v), v->span, MSG_EMPTY_VALUE, key);
		return false;
	}
	return true;
}

/* Two entries of one array with the same name (hashed: linear). */
static bool
unique(struct run *run, const struct node *arr, const char *what,
    const char *key)
{
	struct node *seen = tree_table(&run->arena);
	size_t i;
	bool ok = true;

	for (i = 0; arr && i < arr->u.array.n; i++) {
		const struct node *a = tree_get(arr->u.array.items[i], key);
		const struct node *first;

		if (!a || a->kind != NODE_STRING)
			continue;
		first = tree_getn(seen, a->u.str.s, a->u.str.len);
		if (first) {
			diag_error(run, src_of(run, a), a->span,
			    MSG_DUPLICATE_ENTRY, what, a->u.str.s);
			diag_note(run, src_of(run, first), first->span,
			    MSG_FIRST_HERE);
			ok = false;
			continue;
		}
		tree_add(&run->arena, seen, a->u.str.s, a->u.str.len, 0,
		    span_make(0, 0), (struct node *)a);
	}
	return ok;
}

static bool
fill(struct run *run, struct profile *p)
{
	struct arena *a = &run->arena;
	const struct node *root = p->root, *t, *arr, *n;
	size_t i, cnt;
	bool ok = true;

	t = tree_get(root, "profile");
	p->name = pstr_of(t, "name");
	p->description = pstr_of(t, "description");
	t = tree_get(root, "prompt");
	p->persona = pstr_of(t, "persona");
	p->format = pstr_of(t, "format");
	p->prefix = pstr_of(t, "prefix");
	p->outline_header = pstr_of(t, "outline_header");
	p->outline_footer = pstr_of(t, "outline_footer");
	p->style = (enum style)index_of(styles, pstr_of(t, "style").s, 0);
	p->keep_unknown_vars = bool_of(t, "keep_unknown_vars", false);
	p->vars = tree_get(root, "vars");

	arr = array_of(root, "skills", &cnt);
	p->skills = arena_array(a, cnt, sizeof(*p->skills));
	p->nskills = cnt;
	for (i = 0; i < cnt; i++) {
		struct pskill *s = &p->skills[i];
		const struct node *e = arr->u.array.items[i];

		s->node = e;
		s->name = pstr_of(e, "name");
		s->file = pstr_of(e, "file");
		s->description = pstr_of(e, "description");
		s->mode = (enum skill_mode)index_of(modes,
		    pstr_of(e, "mode").s, 0);
		s->has_priority = priority_of(e, 75, &s->priority);
		if (!need(run, e, "a skill", "file"))
			ok = false;
	}
	ok = unique(run, arr, "skill", "name") && ok;

	arr = array_of(root, "tools", &cnt);
	p->tools = arena_array(a, cnt, sizeof(*p->tools));
	p->ntools = cnt;
	for (i = 0; i < cnt; i++) {
		struct ptool *tl = &p->tools[i];
		const struct node *e = arr->u.array.items[i];

		tl->node = e;
		tl->file = pstr_of(e, "file");
		if (tl->file.node) {
			if (e->u.table.n > 1) {
				diag_error(run, src_of(run, e),
				    tl->file.node->span, MSG_TOOL_FILE_INLINE);
				ok = false;
			}
			ok = need(run, e, "a tool", "file") && ok;
		} else {
			tl->def = e;
			if (!tree_get(e, "name")) {
				diag_error(run, src_of(run, e), e->span,
				    MSG_NEEDS_ONE_OF, "a tool",
				    "'file' or an inline 'name'");
				ok = false;
			}
		}
	}

	arr = array_of(root, "context", &cnt);
	p->contexts = arena_array(a, cnt, sizeof(*p->contexts));
	p->ncontexts = cnt;
	for (i = 0; i < cnt; i++) {
		struct pcontext *c = &p->contexts[i];
		const struct node *e = arr->u.array.items[i];

		c->node = e;
		c->name = pstr_of(e, "name");
		c->tag = pstr_of(e, "tag");
		c->file = pstr_of(e, "file");
		c->required = bool_of(e, "required", false);
		if (!need(run, e, "a context", "name"))
			ok = false;
		else if (!c->tag.s)
			c->tag.s = arena_printf(a, "%s context", c->name.s);
		if (c->tag.s)
			c->tag.len = strlen(c->tag.s);
	}
	ok = unique(run, arr, "context", "name") && ok;

	arr = array_of(root, "inject", &cnt);
	p->injects = arena_array(a, cnt, sizeof(*p->injects));
	p->ninjects = cnt;
	for (i = 0; i < cnt; i++) {
		struct pinject *in = &p->injects[i];
		const struct node *e = arr->u.array.items[i];

		in->node = e;
		in->key = pstr_of(e, "key");
		in->content = pstr_of(e, "content");
		in->file = pstr_of(e, "file");
		priority_of(e, 100, &in->priority);
		in->role = (enum role)index_of(roles, pstr_of(e, "role").s, 0);
		in->scope = (enum scope)index_of(scopes,
		    pstr_of(e, "scope").s, 0);
		in->enabled = bool_of(e, "enabled", true);
		if (!need(run, e, "an injection", "key"))
			ok = false;
		if (in->content.node && in->file.node) {
			diag_error(run, src_of(run, e), in->file.node->span,
			    MSG_BOTH_GIVEN, "an injection", "content", "file");
			ok = false;
		} else if (!in->content.node && !in->file.node) {
			diag_error(run, src_of(run, e), e->span,
			    MSG_NEEDS_ONE_OF, "an injection",
			    "'content' or 'file'");
			ok = false;
		}
	}

	t = tree_get(root, "output");
	p->model = pstr_of(t, "model");
	n = tree_get(t, "format");
	if (n && n->kind == NODE_STRING) {
		p->has_output = true;
		names_format_parse(n->u.str.s, &p->output);
	}
	p->params = tree_get(t, "params");
	n = tree_get(t, "max_tokens");
	if (n && n->kind == NODE_INT) {
		if (n->u.i <= 0) {
			diag_error(run, src_of(run, n), n->span,
			    MSG_WRONG_TYPE, "output.max_tokens",
			    "a positive integer", "zero or negative");
			ok = false;
		}
		p->max_tokens = n->u.i;
	}
	return ok;
}

struct profile *
profile_load(struct run *run, const char *path, const struct setting *sets,
    size_t nsets)
{
	struct arena *a = &run->arena;
	struct loader ld;
	struct profile *p;
	struct profile_dirs *pd;
	struct node *root;
	const char *topdir = NULL;
	size_t i;
	bool ok = true;

	memset(&ld, 0, sizeof(ld));
	ld.run = run;
	p = arena_alloc(a, sizeof(*p) + sizeof(*pd));
	pd = (struct profile_dirs *)(p + 1);
	if (path) {
		root = load_chain(&ld, path, NULL, NULL, &topdir);
	} else {
		const char *text;
		size_t len;
		struct source *src;

		text = embedded_find("profiles/default.toml", &len);
		if (!text)
			die("the embedded default profile is missing");
		src = run_source_mem(run, EMBEDDED_NAME, text, len);
		if (!load_source(run, src, LOAD_TOML, &root))
			die("the embedded default profile does not parse");
		topdir = "prompts";
		add_dir(&ld, src->id, arena_strdup(a, topdir), true);
		p->embedded = true;
		ld.top_embedded = true;
	}
	if (!root)
		return NULL;
	p->src = run_source(run, root->src);
	for (i = 0; i < nsets; i++)
		if (!apply_set(run, root, &sets[i]))
			ok = false;
	p->root = root;
	{
		const struct node *pr = tree_get(root, "prompt");
		const struct node *d = pr ? tree_get(pr, "dir") : NULL;

		/* A --set prompt.dir (a path from the command line, so
		 * relative to the current directory) wins for every file. */
		if (d && d->kind == NODE_STRING && !pdir_in(&ld, d->src)) {
			for (i = 0; i < ld.ndirs; i++) {
				ld.dirs[i].dir = tidy(a, d->u.str.s);
				ld.dirs[i].embedded = false;
			}
			topdir = tidy(a, d->u.str.s);
			ld.top_embedded = false;
		}
	}
	pd->dirs = ld.dirs;
	pd->n = ld.ndirs;
	pd->topdir = topdir;
	pd->top_embedded = ld.top_embedded;
	if (!check_table(run, root, top_fields, ""))
		ok = false;
	if (!ok)
		return NULL;
	if (!fill(run, p))
		return NULL;
	return p;
}

static struct profile_dirs *
dirs_of(const struct profile *p)
{
	return (struct profile_dirs *)(p + 1);
}

static const struct pdir *
pdir_for(const struct profile *p, uint32_t src)
{
	const struct profile_dirs *pd = dirs_of(p);
	size_t i;

	for (i = 0; i < pd->n; i++)
		if (pd->dirs[i].src == src)
			return &pd->dirs[i];
	return NULL;
}

/*
 * A path written in a profile file resolves against that file's prompt
 * directory.  One from --set resolves like the top profile's -- except
 * on the embedded profile, whose directory is not on disk: there a path
 * from the command line is relative to the current directory.
 */
static const char *
dir_for(const struct profile *p, const struct pstr *path, bool *embedded)
{
	const struct pdir *d = path->node ? pdir_for(p, path->node->src) :
	    NULL;

	if (d) {
		*embedded = d->embedded;
		return d->dir;
	}
	*embedded = false;
	return dirs_of(p)->top_embedded ? "." : dirs_of(p)->topdir;
}

const char *
profile_resolve(struct run *run, const struct profile *p,
    const struct pstr *path)
{
	bool embedded;

	return join(&run->arena, dir_for(p, path, &embedded), path->s);
}

struct source *
profile_open(struct run *run, const struct profile *p, const struct pstr *path)
{
	bool embedded;
	const char *full = join(&run->arena, dir_for(p, path, &embedded),
	    path->s);
	const struct source *from = path->node ?
	    run_source(run, path->node->src) : NULL;
	struct span at = path->node ? path->node->span : span_make(0, 0);

	if (embedded) {
		size_t len;
		const char *text = embedded_find(full, &len);

		if (text)
			return run_source_mem(run, arena_printf(&run->arena,
			    "(default)/%s", full), text, len);
		errno = ENOENT;
		diag_error(run, from, at, MSG_CANNOT_READ, full);
		return NULL;
	}
	return run_read(run, full, from, at);
}

const struct node *
profile_tavern(const struct profile *p)
{
	return tree_get(p->root, "tavern");
}
