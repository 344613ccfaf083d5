/* realpath() */
#define _DEFAULT_SOURCE

#include "text/templates.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "diag/run.h"
#include "profile/embedded.h"

const char *const templates_names[] = {
	"current_user_input.md",
	"reply_context.md",
	"identity_hint.md",
	"soul.md",
	"initial_prompt.md",
	"skill_hint.md",
	NULL,
};

const char *const templates_about[] = {
	"the user's message as sent: identity hint and attachments",
	"the message replied to, around the user's message",
	"first turn: how messages name their senders and mentions",
	"first turn, chat scene: the SOUL.md body",
	"first turn: the instructions before everything else",
	"the skills the profile enables",
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
	const char *path = strcmp(dir, ".") == 0 ? name :
	    arena_printf(&run->arena, "%s/%s", dir, name);
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
