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
#include "base/buf.h"
#include "base/file.h"
#include "base/path.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "data/load.h"
#include "data/tree.h"
#include "diag/run.h"
#include "profile/profile.h"
#include "text/edit.h"
#include "text/template.h"
#include "text/templates.h"

const char cmd_templates_help[] =
    "usage: strata templates list [PROFILE]\n"
    "       strata templates show NAME [PROFILE]\n"
    "       strata templates export DIR\n"
    "       strata templates render [--prompt-dir DIR] [--data FILE|-] NAME\n"
    "\n"
    "The templates of the agent prompt are built in; a file of the same\n"
    "name in the profile's prompt directory replaces one.  list shows each,\n"
    "where it would come from and its language (.tmpl: Go text/template\n"
    "with Sprig; others: strata's {{...}}), show prints the text a build\n"
    "would use, export writes the built-in Go ones into DIR (made if\n"
    "missing; an existing file is never overwritten), render expands one\n"
    "with the\n"
    "JSON object of --data as its variables (Go: the dot).\n"
    "\n"
    "  -p, --prompt-dir DIR  where render looks first (default: the\n"
    "                        default profile's prompt directory)\n"
    "  -d, --data FILE|-     the template's data, a JSON object\n"
    "  -h, --help            show this help\n";

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
		printf("%-36s %-6s %s\n    %s\n", templates_names[i],
		    templates_language(templates_names[i]), where ?
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

/* --data: a JSON object (NULL: none, an empty dot). */
static bool
read_data(struct run *run, const char *path, struct node **out)
{
	*out = NULL;
	if (!path)
		return true;
	if (!load_file(run, path, LOAD_JSON, NULL, span_make(0, 0), out,
	    NULL))
		return false;
	if ((*out)->kind != NODE_TABLE) {
		diag_error(run, run_source(run, (*out)->src), (*out)->span,
		    MSG_GOTMPL_DATA, tree_kind_json((*out)->kind));
		return false;
	}
	return true;
}

/* A strata-language template: the data's members as its variables. */
static bool
render_strata(struct run *run, const char *dir, const char *name,
    const struct node *data, struct buf *out)
{
	struct source *src = templates_open(run, dir, name, NULL,
	    span_make(0, 0));
	struct tvars v;
	struct etext in, res;
	size_t i;

	if (!src)
		return false;
	template_vars_init(run, &v);
	v.dir = dir;
	for (i = 0; data && i < data->u.table.n; i++) {
		const struct member *m = &data->u.table.items[i];

		template_var_node(run, &v, m->key, m->value,
		    run_source(run, m->keysrc), m->keyspan);
	}
	etext_of_source(run, src, &in);
	if (!template_expand(run, &v, &in, &res))
		return false;
	buf_put(out, res.s, res.len);
	return true;
}

static void
render(struct run *run, const char *dir, const char *data_path,
    const char *name)
{
	struct node *data;
	struct buf b = BUF_INIT;
	bool ok;

	if (!read_data(run, data_path, &data))
		return;
	if (strcmp(templates_language(name), "go") == 0 ||
	    !str_has_suffix(name, ".md"))
		ok = templates_render_go(run, dir, name, data, &b, NULL);
	else
		ok = render_strata(run, dir, name, data, &b);
	if (ok)
		fwrite(b.data ? b.data : "", 1, b.len, stdout);
	buf_free(&b);
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
		/* The agent prompt uses Alice's Go templates unless a .md
		 * file replaces one: export those, not dead twins. */
		if (strcmp(templates_language(templates_names[i]), "go") != 0)
			continue;
		path = arena_printf(&run->arena, "%s/%s", dir,
		    templates_names[i]);
		text = templates_builtin(templates_names[i], &len);
		if (strchr(templates_names[i], '/') &&
		    !make_dirs(run, path_dir(&run->arena, path))) {
			diag_plain(run, DIAG_ERROR, MSG_CANNOT_WRITE, path);
			diag_system(run);
			continue;
		}
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
	{ "prompt-dir", required_argument, NULL, 'p' },
	{ "data", required_argument, NULL, 'd' },
	{ NULL, 0, NULL, 0 },
};
const struct cmd_opts cmd_templates_opts = { "hp:d:", templates_longopts };

int
cmd_templates(int argc, char **argv)
{
	const char *action, *dir = NULL, *pdir = NULL, *data = NULL;
	struct run run;
	int ch, status, n;

	while ((ch = getopt_long(argc, argv, cmd_templates_opts.shortopts,
	    cmd_templates_opts.longopts, NULL)) != -1) {
		if (ch == 'p') {
			pdir = optarg;
			continue;
		}
		if (ch == 'd') {
			data = optarg;
			continue;
		}
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
	    (strcmp(action, "export") == 0 && n == 1) ||
	    (strcmp(action, "render") == 0 && n == 1)))
		return usage();
	if ((pdir || data) && strcmp(action, "render") != 0)
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
	} else if (strcmp(action, "render") == 0) {
		if (pdir || prompt_dir(&run, NULL, &dir))
			render(&run, pdir ? pdir : dir, data, argv[optind]);
	} else {
		export(&run, argv[optind]);
	}
	fflush(stdout);
	status = diag_status(&run);
	run_free(&run);
	return status;
}
