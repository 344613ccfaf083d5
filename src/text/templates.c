/* realpath() */
#define _DEFAULT_SOURCE

#include "text/templates.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/path.h"
#include "base/util.h"
#include "diag/run.h"
#include "profile/embedded.h"
#include "text/gotmpl.h"

const char *const templates_names[] = {
	"current_user_input.md",
	"reply_context.md",
	"identity_hint.md",
	"soul.md",
	"initial_prompt.md",
	"skill_hint.md",
	"connector/bot_soul.md.tmpl",
	"connector/current_user_input.md.tmpl",
	"connector/reply_context.md.tmpl",
	"connector/runtime_skill_hint.md.tmpl",
	"connector/synthetic_mention.md.tmpl",
	"connector/help.md.tmpl",
	"llm/initial_prompt.md.tmpl",
	"goals/goal_start.tmpl",
	"goals/goal_continue.tmpl",
	"goals/goal_timeout.tmpl",
	NULL,
};

const char *const templates_about[] = {
	"the user's message as sent: identity hint and attachments",
	"the message replied to, around the user's message",
	"first turn: how messages name their senders and mentions",
	"first turn, chat scene: the SOUL.md body",
	"first turn: the instructions before everything else",
	"the skills the profile enables",
	"Alice, first turn, chat scene: the SOUL.md body",
	"Alice: the user's message with its identity hint and attachments",
	"Alice: the message replied to, around the user's message",
	"Alice, first turn: the skills the profile enables",
	"Alice: a message that mentions users, as the bot sends it",
	"Alice: the /help reply",
	"Alice, first turn: the instructions before everything else",
	"Alice: a goal begins (.Goal.Title, .Goal.Steps, .Goal.Deadline)",
	"Alice: a goal goes on (.Goal.Done against .Goal.Steps)",
	"Alice: a goal ran over (.Goal.OverMinutes)",
	NULL,
};

bool
templates_safe_name(const char *name)
{
	const char *p = name;

	if (!*name || *name == '/' || strchr(name, '\\'))
		return false;
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += n;
		if (*p == '/')
			p++;
	}
	return true;
}

const char *
templates_builtin(const char *name, size_t *len)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "prompts/templates/%s",
	    name) >= sizeof(path))
		return NULL;
	return embedded_find(path, len);
}

/* dir/name, when it is a file; *out_of_dir when its real path is
 * outside dir's. */
static const char *
on_disk(struct run *run, const char *dir, const char *name, bool *out_of_dir)
{
	const char *path = path_join(&run->arena, dir, name);
	char *rdir, *rpath;
	struct stat st;
	size_t n;

	*out_of_dir = false;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return NULL;
	rdir = realpath(dir, NULL);
	rpath = realpath(path, NULL);
	if (!rdir || !rpath || strncmp(rpath, rdir, n = strlen(rdir)) != 0 ||
	    (rpath[n] != '/' && strcmp(rdir, "/") != 0))
		*out_of_dir = true;
	free(rdir);
	free(rpath);
	return path;
}

const char *
templates_where(struct run *run, const char *dir, const char *name)
{
	bool out;

	return dir && templates_safe_name(name) ? on_disk(run, dir, name,
	    &out) : NULL;
}

struct source *
templates_open(struct run *run, const char *dir, const char *name,
    const struct source *from, struct span at)
{
	const char *path = NULL, *text;
	bool out = false;
	size_t len;

	if (!templates_safe_name(name)) {
		diag_error(run, from, at, MSG_TEMPLATE_INCLUDE_PATH, name);
		return NULL;
	}
	if (dir && (path = on_disk(run, dir, name, &out)) && out) {
		diag_error(run, from, at, MSG_TEMPLATE_SYMLINK_OUT, name);
		return NULL;
	}
	if (path)
		return run_read(run, path, from, at);
	if ((text = templates_builtin(name, &len)))
		return run_source_mem(run, arena_printf(&run->arena,
		    "(built-in)/templates/%s", name), text, len);
	diag_error(run, from, at, MSG_TEMPLATE_NOT_FOUND, name,
	    dir ? dir : "(none)");
	return NULL;
}

const char *
templates_language(const char *name)
{
	return gotmpl_is_name(name) ? "go" : "strata";
}

struct loadctx {
	struct run *run;
	const char *dir;
	bool all;               /* every file of dir parsed already */
};

/* Every .tmpl file under dir/rel, parsed (at most a few levels and
 * files: a prompt directory is small). */
static bool
preload(struct run *run, struct gotmpl *t, const char *dir, const char *rel,
    const char *skip, bool all, int depth, int *budget)
{
	const char *path = path_join(&run->arena, dir, rel);
	DIR *d = opendir(path);
	struct dirent *e;
	bool ok = true;

	if (!d)
		return true;
	while ((e = readdir(d)) && --*budget > 0) {
		const char *name = path_join(&run->arena, rel,
		    arena_strdup(&run->arena, e->d_name));
		struct stat st;

		if (e->d_name[0] == '.' || strcmp(name, skip) == 0)
			continue;
		if (stat(path_join(&run->arena, dir, name),
		    &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode) && depth < 4)
			ok = preload(run, t, dir, name, skip, all, depth + 1,
			    budget) && ok;
		else if (S_ISREG(st.st_mode) && (gotmpl_is_name(name) ||
		    (all && !str_has_suffix(name, ".md"))) &&
		    !gotmpl_defined(t, name)) {
			struct source *src = templates_open(run, dir, name,
			    NULL, span_make(0, 0));

			ok = src && gotmpl_parse(t, name, src) && ok;
		}
	}
	closedir(d);
	return ok;
}

static bool render_go(struct run *run, const char *dir, const char *name,
    const char *entry, const struct node *data, struct buf *out,
    bool *from_disk);

bool
templates_render_go(struct run *run, const char *dir, const char *name,
    const struct node *data, struct buf *out, bool *from_disk)
{
	return render_go(run, dir, name, NULL, data, out, from_disk);
}

bool
templates_render_go_entry(struct run *run, const char *dir,
    const char *name, const char *entry, const struct node *data,
    struct buf *out)
{
	return render_go(run, dir, name, entry, data, out, NULL);
}

const char *
templates_agent_pick(struct run *run, const char *dir, const char *md,
    const char *tmpl)
{
	return templates_where(run, dir, md) ? md : tmpl;
}

/* dir/name or the built-in name, parsed into t; else every other
 * file of dir.  Silent when none defines name. */
static bool
load(void *ctx, struct gotmpl *t, const char *name)
{
	struct loadctx *l = ctx;
	struct source *src;
	bool out = false;
	size_t len;

	if (!templates_safe_name(name))
		return false;
	if (!(l->dir && on_disk(l->run, l->dir, name, &out)) &&
	    !templates_builtin(name, &len)) {
		/* Go parses every file of the directory: a define may sit
		 * in a file of another name or language suffix. */
		int budget = 1000;

		if (!l->dir || l->all)
			return false;
		l->all = true;
		return preload(l->run, t, l->dir, "", "", true, 0, &budget) &&
		    gotmpl_defined(t, name);
	}
	src = templates_open(l->run, l->dir, name, NULL, span_make(0, 0));
	return src && gotmpl_parse(t, name, src);
}

static bool
render_go(struct run *run, const char *dir, const char *name,
    const char *entry, const struct node *data, struct buf *out,
    bool *from_disk)
{
	struct gotmpl *t = gotmpl_new(run);
	struct loadctx l = { run, dir, false };
	struct source *src;
	struct buf b = BUF_INIT;
	int budget = 1000;
	bool ok;

	if (from_disk)
		*from_disk = templates_where(run, dir, name) != NULL;
	if (!(src = templates_open(run, dir, name, NULL, span_make(0, 0))))
		return false;
	gotmpl_set_loader(t, load, &l);
	ok = gotmpl_parse(t, name, src);
	if (ok && dir)
		ok = preload(run, t, dir, "", name, false, 0, &budget);
	if (ok && entry && !gotmpl_defined(t, entry)) {
		gotmpl_free(t);
		return true;
	}
	if (ok)
		ok = gotmpl_execute(t, entry ? entry : name, data, &b);
	gotmpl_free(t);
	if (ok)
		buf_put(out, b.data ? b.data : "", b.len);
	buf_free(&b);
	return ok;
}
