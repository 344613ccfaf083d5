/*
 * What build and debug share: their options, parsed into the build
 * request (struct options) and what only the command reads (struct
 * cmd_pipeline_args).  pipeline.c runs what they name.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

#include "base/buf.h"
#include "base/util.h"
#include "base/vec.h"
#include "cmd/cmd.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "pipeline/assemble.h"
#include "pipeline/hook.h"
#include "tavern/titem.h"

void
cmd_push(struct kv **arr, size_t *n, size_t *cap, const char *optname,
    const char *arg)
{
	*arr = vec_grow(*arr, cap, *n + 1, sizeof(**arr));
	(*arr)[*n].opt = optname;
	(*arr)[*n].arg = arg;
	(*n)++;
}

/* "unknown format 'x' (expected a, b or c)", from the one list. */
bool
cmd_color_word(const char *arg)
{
	if (strcmp(arg, "auto") == 0 || strcmp(arg, "always") == 0 ||
	    strcmp(arg, "never") == 0)
		return true;
	fprintf(stderr, "%s: --color: unknown word '%s' (expected auto, "
	    "always or never)\n", progname, arg);
	return false;
}

bool
cmd_profile_format(const char *arg)
{
	if (strcmp(arg, "toml") == 0 || strcmp(arg, "yaml") == 0)
		return true;
	fprintf(stderr, "%s: --profile-format: unknown format '%s' (expected "
	    "toml or yaml)\n", progname, arg);
	return false;
}

void
cmd_bad_format(const char *arg)
{
	struct buf b = BUF_INIT;
	size_t i;

	buf_printf(&b, "%s: unknown format '", progname);
	buf_put_term(&b, arg, strlen(arg));
	buf_puts(&b, "' (expected ");
	for (i = 0; names_formats[i]; i++)
		buf_printf(&b, "%s%s", i == 0 ? "" : names_formats[i + 1] ?
		    ", " : " or ", names_formats[i]);
	buf_puts(&b, ")\n");
	fputs(b.data, stderr);
	buf_free(&b);
}

/* Long options with no short form. */
enum { OPT_SET_JSON = 256, OPT_REMOVE, OPT_SCOPE, OPT_STATE, OPT_PRESTART,
	OPT_TOOL_RESULT, OPT_IMAGE, OPT_LLM_PROFILE, OPT_DATA };

/* --scope global,session: the bit set of the scopes named. */
static bool
scopes(const char *arg, unsigned *out)
{
	const char *p = arg;
	int k;

	*out = 0;
	for (;;) {
		size_t n = strcspn(p, ",");

		k = names_index(names_scopes, p, n);
		if (k < 0) {
			fprintf(stderr, "%s: --scope: unknown scope '%.*s' "
			    "(expected global, session or turn, "
			    "comma-separated)\n", progname, (int)n, p);
			return false;
		}
		*out |= 1u << k;
		if (!p[n])
			return true;
		p += n + 1;
	}
}

void
cmd_options_free(struct options *opt)
{
	free(opt->contexts);
	free(opt->vars);
	free(opt->sets);
	free(opt->injects);
	free((void *)opt->tavern.worlds);
	free((void *)opt->tavern.regex);
	free(opt->removes);
	free(opt->prestarts);
	free(opt->tool_results);
	free(opt->images);
	free(opt->global_vars);
	free(opt->macros);
	if (opt->hooks)
		free((void *)opt->hooks->v);
	free(opt->hooks);
	memset(opt, 0, sizeof(*opt));
}

/* --hook POINT=COMMAND: a point of seed 002's that a build runs. */
static bool
hook_arg(const char *verb, const char *arg, struct options *opt)
{
	const char *eq = strchr(arg, '=');
	struct hook *v;
	size_t i, n;

	for (i = 0; eq && hook_points[i]; i++)
		if (strlen(hook_points[i]) == (size_t)(eq - arg) &&
		    strncmp(hook_points[i], arg, (size_t)(eq - arg)) == 0)
			break;
	if (!eq || !eq[1] || !hook_points[i]) {
		fprintf(stderr, "%s %s: --hook takes POINT=COMMAND with one "
		    "of seed 002's points (see strata(1), HOOKS), not '%s'\n",
		    progname, verb, arg);
		return false;
	}
	if (!hook_point_runs(hook_points[i])) {
		fprintf(stderr, "%s %s: --hook %s: strata %s calls no model, "
		    "so it never reaches this point (see strata(1), "
		    "HOOKS)\n", progname, verb, hook_points[i], verb);
		return false;
	}
	if (!opt->hooks)
		opt->hooks = xcalloc(1, sizeof(*opt->hooks));
	n = opt->hooks->n;
	v = xrealloc((void *)opt->hooks->v, (n + 1) * sizeof(*v));
	v[n].point = hook_points[i];
	v[n].command = eq + 1;
	opt->hooks->v = v;
	opt->hooks->n = n + 1;
	return true;
}

/* Long options without a short form: SillyTavern inputs. */
enum {
	OPT_CARD = 512,
	OPT_PRESET,
	OPT_CHAT,
	OPT_SETTINGS,
	OPT_WORLD,
	OPT_REGEX,
	OPT_PERSONA_NAME,
	OPT_PERSONA,
	OPT_GREETING,
	OPT_TYPE,
	OPT_NOW,
	OPT_SEED,
	OPT_STAGE,
	OPT_ALLOW_FILES,
	OPT_PARAMS,
	OPT_EXTRA_SYSTEM,
	OPT_GLOBAL_VAR,
	OPT_GLOBALS,
	OPT_BUDGET,
	OPT_VIEW,
	OPT_OUTPUT,
	OPT_MACRO,
	OPT_PERSONA_FILE,
	OPT_SINCE,
	OPT_HOOK,
	OPT_HOOK_TIMEOUT,
	OPT_GROUP,
	OPT_SPEAKER,
};

static void
push_path(const char *const **arr, size_t *n, const char *path)
{
	const char **v = vec_grow((void *)*arr, &(size_t){ *n }, *n + 1,
	    sizeof(*v));

	v[(*n)++] = path;
	*arr = v;
}

static bool
try_profile(char *buf, size_t size, const char *dir, size_t dirlen,
    const char *name)
{
	static const char *const exts[] = { "", ".toml", ".yaml", ".yml" };
	struct stat st;
	size_t i;

	if (dirlen == 0)
		return false;
	for (i = 0; i < LEN(exts); i++) {
		int n = snprintf(buf, size, "%.*s/%s%s", (int)dirlen, dir,
		    name, exts[i]);

		if (n > 0 && (size_t)n < size && stat(buf, &st) == 0 &&
		    S_ISREG(st.st_mode))
			return true;
	}
	return false;
}

const char *
cmd_find_profile(const char *name)
{
	static char found[PATH_MAX];
	char dir[PATH_MAX];
	const char *env, *p;
	struct stat st;
	ssize_t n;

	if (!name || !*name || name[0] == '/' || name[0] == '.' ||
	    name[0] == '-' || stat(name, &st) == 0)
		return name;
	/* 1. $STRATA_PATH, directories separated by ':' */
	for (env = getenv("STRATA_PATH"); env && *env; env = *p ? p + 1 : p) {
		p = env + strcspn(env, ":");
		if (try_profile(found, sizeof(found), env, (size_t)(p - env),
		    name))
			return found;
	}
	/* 2. the user's: $XDG_DATA_HOME/strata/profiles, else
	 * ~/.local/share/strata/profiles */
	if ((env = getenv("XDG_DATA_HOME")) && *env)
		snprintf(dir, sizeof(dir), "%s/strata/profiles", env);
	else if ((env = getenv("HOME")) && *env)
		snprintf(dir, sizeof(dir), "%s/.local/share/strata/profiles",
		    env);
	else
		dir[0] = '\0';
	if (try_profile(found, sizeof(found), dir, strlen(dir), name))
		return found;
	/* 3. beside the binary: BINDIR/../share/strata/profiles, so an
	 * installed tree works wherever it is copied (DESTDIR, a tarball) */
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n > 0) {
		char *slash;

		dir[n] = '\0';
		if ((slash = strrchr(dir, '/')) &&
		    (size_t)(slash - dir) + 32 < sizeof(dir)) {
			strcpy(slash, "/../share/strata/profiles");
			if (try_profile(found, sizeof(found), dir,
			    strlen(dir), name))
				return found;
		}
	}
	/* 4. where meson installed them: DATADIR/strata/profiles */
	if (try_profile(found, sizeof(found), STRATA_DATADIR "/profiles",
	    strlen(STRATA_DATADIR "/profiles"), name))
		return found;
	/* A file name (NAME.toml, ...) found nowhere is a file that
	 * cannot be read; a bare name found nowhere is said to be so, with
	 * where it was looked for, not that it has no format. */
	if ((p = strrchr(name, '.')) && (strcmp(p, ".toml") == 0 ||
	    strcmp(p, ".yaml") == 0 || strcmp(p, ".yml") == 0))
		return name;
	env = getenv("STRATA_PATH");
	fprintf(stderr, "%s: error: no profile named '%s': not a file here, "
	    "and no %s, %s.toml, %s.yaml or %s.yml in the directories of "
	    "$STRATA_PATH (%s), $XDG_DATA_HOME/strata/profiles "
	    "(~/.local/share/strata/profiles), share/strata/profiles beside "
	    "the strata binary, or the share/strata/profiles strata was "
	    "installed with (strata(1) DESCRIPTION)\n", progname, name,
	    name, name, name, name, env && *env ? env : "unset");
	exit(EXIT_INPUT);
}

/* After the options: the profile, and stdin claimed once at most. */
static bool
operands(int argc, char **argv, const char *verb, struct options *opt)
{
	const char *clash;

	if (argc - optind > 1) {
		fprintf(stderr, "%s: %s takes one profile\n", progname, verb);
		return false;
	}
	if (optind < argc)
		opt->profile = cmd_find_profile(argv[optind]);
	clash = assemble_stdin_clash(opt);
	if (clash) {
		fprintf(stderr, "%s: %s -: standard input is already used by "
		    "another option\n", progname, clash);
		return false;
	}
	return true;
}

/* --log-level and STRATA_LOG: debug, or the quiet levels. */
static bool
log_level(const char *s, bool *debug)
{
	static const char *const levels[] = { "error", "warning", "info",
		"debug", NULL };

	if (names_index(levels, s, strlen(s)) < 0)
		return false;
	*debug = strcmp(s, "debug") == 0;
	return true;
}

/* An option that may be given once was given again: a usage error. */
static int
once(const char *verb, const char *name)
{
	fprintf(stderr, "%s %s: %s may be given once (one user message, "
	    "one history file)\n", progname, verb, name);
	cmd_usage(verb);
	return EXIT_USAGE;
}

/* --budget N as the --set it stands for. */
static char budget_set[48];

/* The options (cmd.h: completions and docs are made from them). */
static const struct option pipeline_longopts[] = {
	{ "user", required_argument, NULL, 'u' },
	{ "history", required_argument, NULL, 'H' },
	{ "context", required_argument, NULL, 'c' },
	{ "var", required_argument, NULL, 'v' },
	{ "set", required_argument, NULL, 's' },
	{ "inject", required_argument, NULL, 'i' },
	{ "format", required_argument, NULL, 'f' },
	{ "json", no_argument, NULL, 'j' },
	{ "set-json", required_argument, NULL, OPT_SET_JSON },
	{ "remove", required_argument, NULL, OPT_REMOVE },
	{ "scope", required_argument, NULL, OPT_SCOPE },
	{ "session", required_argument, NULL, 'S' },
	{ "dry-run", no_argument, NULL, 'D' },
	{ "turn", required_argument, NULL, 'R' },
	{ "input", required_argument, NULL, 'I' },
	{ "data", required_argument, NULL, OPT_DATA },
	{ "scene", required_argument, NULL, 'E' },
	{ "llm-profile", required_argument, NULL, OPT_LLM_PROFILE },
	{ "log-level", required_argument, NULL, 'L' },
	{ "state", required_argument, NULL, OPT_STATE },
	{ "prestart", required_argument, NULL, OPT_PRESTART },
	{ "tool-result", required_argument, NULL, OPT_TOOL_RESULT },
	{ "color", required_argument, NULL, 'C' },
	{ "profile-format", required_argument, NULL, 'P' },
	{ "image", required_argument, NULL, OPT_IMAGE },
	{ "help", no_argument, NULL, 'h' },
	{ "card", required_argument, NULL, OPT_CARD },
	{ "group", required_argument, NULL, OPT_GROUP },
	{ "speaker", required_argument, NULL, OPT_SPEAKER },
	{ "preset", required_argument, NULL, OPT_PRESET },
	{ "chat", required_argument, NULL, OPT_CHAT },
	{ "settings", required_argument, NULL, OPT_SETTINGS },
	{ "world", required_argument, NULL, OPT_WORLD },
	{ "regex", required_argument, NULL, OPT_REGEX },
	{ "persona-name", required_argument, NULL, OPT_PERSONA_NAME },
	{ "persona", required_argument, NULL, OPT_PERSONA },
	{ "greeting", required_argument, NULL, OPT_GREETING },
	{ "type", required_argument, NULL, OPT_TYPE },
	{ "now", required_argument, NULL, OPT_NOW },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "stage", required_argument, NULL, OPT_STAGE },
	{ "budget", required_argument, NULL, OPT_BUDGET },
	{ "allow-history-files", required_argument, NULL, OPT_ALLOW_FILES },
	{ "quiet", no_argument, NULL, 'q' },
	{ "params", required_argument, NULL, OPT_PARAMS },
	{ "extra-system", required_argument, NULL, OPT_EXTRA_SYSTEM },
	{ "global-var", required_argument, NULL, OPT_GLOBAL_VAR },
	{ "globals", required_argument, NULL, OPT_GLOBALS },
	{ "view", required_argument, NULL, OPT_VIEW },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "macro", required_argument, NULL, OPT_MACRO },
	{ "persona-file", required_argument, NULL, OPT_PERSONA_FILE },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "hook", required_argument, NULL, OPT_HOOK },
	{ "hook-timeout", required_argument, NULL, OPT_HOOK_TIMEOUT },
	{ NULL, 0, NULL, 0 },
};
const struct cmd_opts cmd_pipeline_opts = { "u:H:c:v:s:i:f:hq",
	pipeline_longopts };

/* cmd_parse_options()'s answers: go on, a usage error, not this
 * function's option; else an exit status. */
#define GO_ON   (-1)
#define USAGE   (-2)
#define NOT_MINE        (-3)

/* What only the command reads: the view, --dry-run, the colours,
 * --params, --help. */
static int
cli_option(int ch, const char *verb, bool debug,
    struct cmd_pipeline_args *args)
{
	struct options *opt = &args->build;
	enum out_format f;
	enum item_stage stage;

	switch (ch) {
	case 'f':
		/* Formats of a --params build only. */
		if (strcmp(optarg, "fast-tavern") == 0) {
			opt->format = optarg;
			return GO_ON;
		}
		/* Seed 002's BuildResult: a SillyTavern build's
		 * messages, variables, world info and scripts. */
		if (strcmp(optarg, "result") == 0 && !debug) {
			opt->result = true;
			opt->format = NULL;
			return GO_ON;
		}
		/* html is a view of the build, not a request body:
		 * the build keeps the profile's format. */
		if (strcmp(optarg, "html") == 0 && debug) {
			args->html = true;
			return GO_ON;
		}
		if (strcmp(optarg, "html") == 0) {
			fprintf(stderr, "%s %s: -f html is the stage "
			    "inspector of a build: strata debug -f "
			    "html\n", progname, verb);
			return EXIT_USAGE;
		}
		if (!names_format_parse(optarg, &f)) {
			cmd_bad_format(optarg);
			return EXIT_USAGE;
		}
		opt->format = optarg;
		return GO_ON;
	case 'j':
		if (!debug) {
			fprintf(stderr, "%s %s: unrecognized option "
			    "'--json' (did you mean debug --json?)\n",
			    progname, verb);
			return USAGE;
		}
		args->json = true;
		return GO_ON;
	case OPT_PARAMS:
		if (debug) {
			fprintf(stderr, "%s %s: unrecognized option "
			    "'--params' (did you mean build "
			    "--params?)\n", progname, verb);
			return USAGE;
		}
		args->params = optarg;
		return GO_ON;
	case OPT_STAGE:
		if (!debug) {
			fprintf(stderr, "%s %s: unrecognized option "
			    "'--stage' (did you mean debug --stage?)\n",
			    progname, verb);
			return USAGE;
		}
		if (!item_stage_parse(optarg, &stage)) {
			fprintf(stderr, "%s: --stage: unknown stage "
			    "'%s' (expected raw, regex-pre, macros or "
			    "regex-post)\n", progname, optarg);
			return EXIT_USAGE;
		}
		args->stage = optarg;
		return GO_ON;
	case 'D':
		args->dry_run = true;
		return GO_ON;
	case 'L':
		if (!log_level(optarg, &args->log_debug))
			return USAGE;
		return GO_ON;
	case 'C':
		if (!cmd_color_word(optarg))
			return EXIT_USAGE;
		args->color = optarg;
		return GO_ON;
	case 'h':
		fputs(debug ? cmd_debug_help : cmd_build_help, stdout);
		return EXIT_OK;
	}
	return NOT_MINE;
}

/* The SillyTavern build's inputs. */
static int
tavern_option(int ch, struct options *opt, size_t *cap)
{
	struct tavern_input *tv = &opt->tavern;

	switch (ch) {
	case OPT_CARD: tv->card = optarg; return GO_ON;
	case OPT_GROUP: tv->group = optarg; return GO_ON;
	case OPT_SPEAKER: tv->speaker = optarg; return GO_ON;
	case OPT_PRESET: tv->preset = optarg; return GO_ON;
	case OPT_CHAT: tv->chat = optarg; return GO_ON;
	case OPT_SETTINGS: tv->settings = optarg; return GO_ON;
	case OPT_WORLD: push_path(&tv->worlds, &tv->nworlds, optarg);
		return GO_ON;
	case OPT_REGEX: push_path(&tv->regex, &tv->nregex, optarg);
		return GO_ON;
	case OPT_PERSONA_NAME: tv->persona_name = optarg; return GO_ON;
	case OPT_PERSONA: tv->persona = optarg; return GO_ON;
	case OPT_GREETING: tv->greeting = optarg; return GO_ON;
	case OPT_TYPE:
		/* SillyTavern's generation types (checked by the
		 * tavern build); for a session, regenerate rebuilds
		 * the last turn. */
		tv->type = optarg;
		opt->regenerate = strcmp(optarg, "regenerate") == 0;
		return GO_ON;
	case OPT_NOW:
		tv->now = optarg;
		opt->now = optarg;
		return GO_ON;
	case OPT_SEED: tv->seed = optarg; return GO_ON;
	case OPT_GLOBAL_VAR:
		cmd_push(&opt->global_vars, &opt->nglobal_vars,
		    &cap[8], "--global-var", optarg);
		return GO_ON;
	case OPT_GLOBALS:
		opt->globals = optarg;
		return GO_ON;
	case OPT_EXTRA_SYSTEM:
		opt->extra_system = optarg;
		return GO_ON;
	}
	return NOT_MINE;
}

/* Seed 002's contract: the views, the outputs, macros, hooks. */
static int
contract_option(int ch, const char *verb, bool debug, struct options *opt,
    size_t *cap)
{
	switch (ch) {
	case OPT_VIEW:
		if (strcmp(optarg, "user_view") &&
		    strcmp(optarg, "assistant_view")) {
			fprintf(stderr, "%s %s: --view: unknown view "
			    "'%s' (expected user_view or "
			    "assistant_view)\n", progname, verb, optarg);
			return EXIT_USAGE;
		}
		opt->view = optarg;
		return GO_ON;
	case OPT_OUTPUT:
		if (strcmp(optarg, "full") && strcmp(optarg,
		    "history") && strcmp(optarg, "delta")) {
			fprintf(stderr, "%s %s: --output: unknown output "
			    "'%s' (expected full, history or delta)\n",
			    progname, verb, optarg);
			return EXIT_USAGE;
		}
		opt->output = optarg;
		return GO_ON;
	case OPT_MACRO:
		cmd_push(&opt->macros, &opt->nmacros, &cap[9],
		    "--macro", optarg);
		return GO_ON;
	case OPT_PERSONA_FILE:
		opt->persona_file = optarg;
		return GO_ON;
	case OPT_SINCE:
		opt->since = optarg;
		return GO_ON;
	case OPT_HOOK:
		if (debug) {
			fprintf(stderr, "%s %s: --hook: debug runs no "
			    "hooks; it shows the build without them (see "
			    "strata(1), HOOKS)\n", progname, verb);
			return EXIT_USAGE;
		}
		if (!hook_arg(verb, optarg, opt))
			return EXIT_USAGE;
		return GO_ON;
	case OPT_HOOK_TIMEOUT: {
		size_t k = strspn(optarg, "0123456789");

		if (!opt->hooks)
			opt->hooks = xcalloc(1, sizeof(*opt->hooks));
		if (!k || optarg[k] || k > 6 || atoi(optarg) == 0) {
			fprintf(stderr, "%s %s: --hook-timeout takes a "
			    "positive number of seconds, not '%s'\n",
			    progname, verb, optarg);
			return EXIT_USAGE;
		}
		opt->hooks->timeout_ms = (unsigned)atoi(optarg) * 1000u;
		return GO_ON;
	}
	}
	return NOT_MINE;
}

/* The build request's other options. */
static int
build_option(int ch, const char *verb, struct options *opt, size_t *cap)
{
	switch (ch) {
	case 'u':
		if (opt->user)
			return once(verb, "--user");
		opt->user = optarg;
		return GO_ON;
	case 'H':
		if (opt->history)
			return once(verb, "--history");
		opt->history = optarg;
		return GO_ON;
	case 'c':
		cmd_push(&opt->contexts, &opt->ncontexts, &cap[0],
		    "--context", optarg);
		return GO_ON;
	case 'v':
		cmd_push(&opt->vars, &opt->nvars, &cap[1], "--var",
		    optarg);
		return GO_ON;
	case 's':
		cmd_push(&opt->sets, &opt->nsets, &cap[2], "--set",
		    optarg);
		return GO_ON;
	case OPT_SET_JSON:
		cmd_push(&opt->sets, &opt->nsets, &cap[2],
		    "--set-json", optarg);
		return GO_ON;
	case 'i':
		cmd_push(&opt->injects, &opt->ninjects, &cap[3],
		    "--inject", optarg);
		return GO_ON;
	case OPT_REMOVE:
		cmd_push(&opt->removes, &opt->nremoves, &cap[4],
		    "--remove", optarg);
		return GO_ON;
	case OPT_SCOPE:
		if (!scopes(optarg, &opt->scopes))
			return EXIT_USAGE;
		return GO_ON;
	case OPT_STATE:
		opt->state = optarg;
		return GO_ON;
	case OPT_PRESTART:
		cmd_push(&opt->prestarts, &opt->nprestarts, &cap[5],
		    "--prestart", optarg);
		return GO_ON;
	case OPT_TOOL_RESULT:
		cmd_push(&opt->tool_results, &opt->ntool_results,
		    &cap[6], "--tool-result", optarg);
		return GO_ON;
	case OPT_IMAGE:
		cmd_push(&opt->images, &opt->nimages, &cap[7],
		    "--image", optarg);
		return GO_ON;
	case OPT_ALLOW_FILES:
		opt->allow_history_files = optarg;
		return GO_ON;
	case OPT_BUDGET: {
		/* --set budget.max_tokens=N, checked here. */
		size_t k = strspn(optarg, "0123456789");

		if (!k || optarg[k] || optarg[0] == '0' || k > 12) {
			fprintf(stderr, "%s %s: --budget takes a "
			    "positive number of tokens, not '%s'\n",
			    progname, verb, optarg);
			return EXIT_USAGE;
		}
		/* The last --budget wins, as the last --set does. */
		snprintf(budget_set, sizeof(budget_set),
		    "budget.max_tokens=%s", optarg);
		cmd_push(&opt->sets, &opt->nsets, &cap[2], "--budget",
		    budget_set);
		return GO_ON;
	}
	case 'q':
		opt->quiet = true;
		return GO_ON;
	case 'S':
		opt->session = optarg;
		return GO_ON;
	case 'R':
		if (strcmp(optarg, "first") == 0)
			opt->turn = TURN_FIRST;
		else if (strcmp(optarg, "resume") == 0)
			opt->turn = TURN_RESUME;
		else
			return USAGE;
		return GO_ON;
	case 'I':
		opt->input = optarg;
		return GO_ON;
	case OPT_DATA:
		if (opt->data)
			return once(verb, "--data");
		opt->data = optarg;
		return GO_ON;
	case OPT_LLM_PROFILE:
		if (opt->llm_profile)
			return once(verb, "--llm-profile");
		opt->llm_profile = optarg;
		return GO_ON;
	case 'E':
		if (strcmp(optarg, "chat") && strcmp(optarg, "work"))
			return USAGE;
		opt->scene = optarg;
		return GO_ON;
	case 'P':
		if (!cmd_profile_format(optarg))
			return EXIT_USAGE;
		opt->profile_format = optarg;
		return GO_ON;
	}
	return NOT_MINE;
}

/* What no one option says alone: the options that do not go together,
 * then the operands. */
static int
combination(int argc, char **argv, const char *verb,
    struct cmd_pipeline_args *args)
{
	struct options *opt = &args->build;

	/* With --session a regenerated turn is the session's last user
	 * message; without one, regenerate is a SillyTavern generation
	 * type like the others (the tavern build removes the last reply). */
	if (opt->regenerate && !opt->session)
		opt->regenerate = false;
	if (opt->regenerate && opt->user)
		goto usage;
	/* A SillyTavern build does not send images: say so rather than
	 * drop them.  (A [tavern] profile is checked by assemble().) */
	if (opt->nimages && tavern_wanted(&opt->tavern, NULL)) {
		fprintf(stderr, "%s %s: --image cannot go with a SillyTavern "
		    "build (--card, --preset, --chat, --settings, --world or "
		    "--regex): it does not send images\n", progname, verb);
		goto usage;
	}
	if (opt->format && strcmp(opt->format, "fast-tavern") == 0 &&
	    !args->params) {
		fprintf(stderr, "%s %s: -f fast-tavern prints the build of "
		    "--params FILE\n", progname, verb);
		goto usage;
	}
	if (((opt->output && strcmp(opt->output, "full")) || opt->since) &&
	    !opt->result && !args->params) {
		fprintf(stderr, "%s %s: --output %s and --since go with -f "
		    "result\n", progname, verb, opt->output ? opt->output :
		    "delta");
		goto usage;
	}
	if (opt->since && !(opt->output && strcmp(opt->output, "delta") ==
	    0)) {
		fprintf(stderr, "%s %s: --since FILE gives --output delta "
		    "the previous result\n", progname, verb);
		goto usage;
	}
	if (args->html && (args->json || args->stage)) {
		fprintf(stderr, "%s %s: -f html shows every stage of every "
		    "message; it goes with neither --json nor --stage\n",
		    progname, verb);
		goto usage;
	}
	if (args->stage && args->json) {
		fprintf(stderr, "%s %s: --stage picks a stage for the debug "
		    "view; --json prints every stage\n", progname, verb);
		goto usage;
	}
	if (operands(argc, argv, verb, opt))
		return -1;
usage:
	cmd_usage(verb);
	return EXIT_USAGE;
}

/* Fill *args (arrays on the heap: cmd_options_free()); returns -1 to go on,
 * else the exit status to return (after --help, or a usage error already
 * printed). */
int
cmd_parse_options(int argc, char **argv, const char *verb, bool debug,
    struct cmd_pipeline_args *args)
{
	struct options *opt = &args->build;
	size_t cap[10] = { 0 }; /* contexts, vars, sets, injects, removes,
	                         * prestarts, tool results, images,
	                         * global vars, macros */
	int ch, r;

	memset(args, 0, sizeof(*args));
	if (getenv("STRATA_LOG"))
		log_level(getenv("STRATA_LOG"), &args->log_debug);
	while ((ch = getopt_long(argc, argv, cmd_pipeline_opts.shortopts,
	    cmd_pipeline_opts.longopts,
	    NULL)) != -1) {
		r = cli_option(ch, verb, debug, args);
		if (r == NOT_MINE)
			r = tavern_option(ch, opt, cap);
		if (r == NOT_MINE)
			r = contract_option(ch, verb, debug, opt, cap);
		if (r == NOT_MINE)
			r = build_option(ch, verb, opt, cap);
		if (r == NOT_MINE || r == USAGE) {
			cmd_usage(verb);
			return EXIT_USAGE;
		}
		if (r != GO_ON)
			return r;
	}
	return combination(argc, argv, verb, args);
}
