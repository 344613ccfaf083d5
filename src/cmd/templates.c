/*
 * strata templates: the agent templates strata ships (text/templates.h)
 * -- which exist and where each would come from for a profile, one's
 * text, and all of them written out for editing.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/file.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "diag/run.h"
#include "profile/profile.h"
#include "text/templates.h"

const char cmd_templates_help[] =
    "usage: strata templates list [PROFILE]\n"
    "       strata templates show NAME [PROFILE]\n"
    "       strata templates export DIR\n"
    "\n"
    "The templates of the agent prompt are built in; a file of the same\n"
    "name in the profile's prompt directory replaces one.  list shows each\n"
    "and where it would come from, show prints the text a build would use,\n"
    "export writes the built-in ones into DIR (made if missing; an\n"
    "existing file is never overwritten).\n"
    "\n"
    "  -h, --help         show this help\n";

static int
usage(void)
{
	cmd_usage("templates");
	return EXIT_USAGE;
}

/* The prompt directory of the profile at path (NULL: the default). */
static bool
prompt_dir(struct run *run, const char *path, const char **dir)
{
	const struct profile *p = profile_load(run, path, NULL, 0);

	if (!p)
		return false;
	*dir = profile_prompt_dir(p);
	return true;
}

static void
list(struct run *run, const char *dir)
{
	const char *where;
	size_t i;

	for (i = 0; templates_names[i]; i++) {
		where = templates_where(run, dir, templates_names[i]);
		printf("%-22s %s\n    %s\n", templates_names[i], where ?
		    where : "(built-in)", templates_about[i]);
	}
}

static void
show(struct run *run, const char *dir, const char *name)
{
	struct source *src;
	size_t i, len = strlen(name);

	/* "soul" is soul.md, as list prints it. */
	for (i = 0; templates_names[i]; i++)
		if (strncmp(templates_names[i], name, len) == 0 &&
		    strcmp(templates_names[i] + len, ".md") == 0)
			name = templates_names[i];
	src = templates_open(run, dir, name, NULL, span_make(0, 0));

	if (src)
		fwrite(src->text, 1, src->len, stdout);
}

/* mkdir -p dir */
static bool
make_dirs(struct run *run, const char *dir)
{
	char *p = arena_strdup(&run->arena, dir), *s = p;

	while ((s = strchr(s + 1, '/'))) {
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST)
			return false;
		*s = '/';
	}
	return mkdir(p, 0777) == 0 || errno == EEXIST;
}

static void
export(struct run *run, const char *dir)
{
	const char *text, *path;
	struct stat st;
	size_t i, len;

	if (!make_dirs(run, dir)) {
		diag_plain(run, DIAG_ERROR, MSG_CANNOT_WRITE, dir);
		diag_system(run);
		return;
	}
	for (i = 0; templates_names[i]; i++) {
		path = arena_printf(&run->arena, "%s/%s", dir,
		    templates_names[i]);
		text = templates_builtin(templates_names[i], &len);
		if (lstat(path, &st) == 0) {
			diag_plain(run, DIAG_ERROR, MSG_TEMPLATE_EXISTS,
			    path);
			continue;
		}
		if (!file_replace(path, text, len)) {
			diag_plain(run, DIAG_ERROR, MSG_CANNOT_WRITE, path);
			diag_system(run);
		}
	}
}

/* The options (cmd.h: completions and docs are made from them). */
static const struct option templates_longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};
const struct cmd_opts cmd_templates_opts = { "h", templates_longopts };

int
cmd_templates(int argc, char **argv)
{
	const char *action, *dir = NULL;
	struct run run;
	int ch, status, n;

	while ((ch = getopt_long(argc, argv, cmd_templates_opts.shortopts,
	    cmd_templates_opts.longopts, NULL)) != -1) {
		if (ch != 'h')
			return usage();
		fputs(cmd_templates_help, stdout);
		return EXIT_OK;
	}
	if (optind >= argc)
		return usage();
	action = argv[optind++];
	n = argc - optind;
	if (!((strcmp(action, "list") == 0 && n <= 1) ||
	    (strcmp(action, "show") == 0 && (n == 1 || n == 2)) ||
	    (strcmp(action, "export") == 0 && n == 1)))
		return usage();
	run_init(&run);
	run.diag.color = isatty(STDERR_FILENO) && !(getenv("NO_COLOR") &&
	    *getenv("NO_COLOR"));
	if (strcmp(action, "list") == 0) {
		if (prompt_dir(&run, n ? argv[optind] : NULL, &dir))
			list(&run, dir);
	} else if (strcmp(action, "show") == 0) {
		if (prompt_dir(&run, n == 2 ? argv[optind + 1] : NULL, &dir))
			show(&run, dir, argv[optind]);
	} else {
		export(&run, argv[optind]);
	}
	fflush(stdout);
	status = diag_status(&run);
	run_free(&run);
	return status;
}
