/*
 * What build and debug share: their options, and the driver both use --
 * assemble, emit into a buffer, and write stdout only when everything
 * succeeded.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

#include "base/arena.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/util.h"
#include "base/vec.h"
#include "data/json.h"
#include "data/tree.h"
#include "cmd/cmd.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "emit/emit.h"
#include "emit/emit_html.h"
#include "pipeline/assemble.h"
#include "pipeline/hook.h"
#include "session/globals.h"
#include "session/session.h"
#include "tavern/titem.h"
#include "text/templates.h"

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
	OPT_TOOL_RESULT, OPT_IMAGE, OPT_LLM_PROFILE };

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

static void
options_free(struct options *opt)
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
		fprintf(stderr, "%s %s: --hook %s: strata %s runs hooks at "
		    "beforeVariablesSave and afterVariablesSave only (see "
		    "strata(1), HOOKS)\n", progname, verb, hook_points[i],
		    verb);
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
	return name;
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

/* Fill *opt (arrays on the heap: options_free()); returns -1 to go on,
 * else the exit status to return (after --help, or a usage error already
 * printed). */
static int
parse_options(int argc, char **argv, const char *verb, bool debug,
    struct options *opt)
{
	struct tavern_input *tv = &opt->tavern;
	size_t cap[10] = { 0 }; /* contexts, vars, sets, injects, removes,
	                         * prestarts, tool results, images,
	                         * global vars, macros */
	enum out_format f;
	enum tavern_stage stage;
	int ch;

	memset(opt, 0, sizeof(*opt));
	if (getenv("STRATA_LOG"))
		log_level(getenv("STRATA_LOG"), &opt->log_debug);
	while ((ch = getopt_long(argc, argv, cmd_pipeline_opts.shortopts,
	    cmd_pipeline_opts.longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'u':
			if (opt->user)
				return once(verb, "--user");
			opt->user = optarg;
			break;
		case 'H':
			if (opt->history)
				return once(verb, "--history");
			opt->history = optarg;
			break;
		case 'c':
			cmd_push(&opt->contexts, &opt->ncontexts, &cap[0],
			    "--context", optarg);
			break;
		case 'v':
			cmd_push(&opt->vars, &opt->nvars, &cap[1], "--var",
			    optarg);
			break;
		case 's':
			cmd_push(&opt->sets, &opt->nsets, &cap[2], "--set",
			    optarg);
			break;
		case OPT_SET_JSON:
			cmd_push(&opt->sets, &opt->nsets, &cap[2],
			    "--set-json", optarg);
			break;
		case 'i':
			cmd_push(&opt->injects, &opt->ninjects, &cap[3],
			    "--inject", optarg);
			break;
		case OPT_REMOVE:
			cmd_push(&opt->removes, &opt->nremoves, &cap[4],
			    "--remove", optarg);
			break;
		case OPT_SCOPE:
			if (!scopes(optarg, &opt->scopes))
				return EXIT_USAGE;
			break;
		case OPT_STATE:
			opt->state = optarg;
			break;
		case OPT_PRESTART:
			cmd_push(&opt->prestarts, &opt->nprestarts, &cap[5],
			    "--prestart", optarg);
			break;
		case OPT_TOOL_RESULT:
			cmd_push(&opt->tool_results, &opt->ntool_results,
			    &cap[6], "--tool-result", optarg);
			break;
		case 'f':
			/* Formats of a --params build only. */
			if (strcmp(optarg, "fast-tavern") == 0) {
				opt->format = optarg;
				break;
			}
			/* Seed 002's BuildResult: a SillyTavern build's
			 * messages, variables, world info and scripts. */
			if (strcmp(optarg, "result") == 0 && !debug) {
				opt->result = true;
				opt->format = NULL;
				break;
			}
			/* html is a view of the build, not a request body:
			 * the build keeps the profile's format. */
			if (strcmp(optarg, "html") == 0 && debug) {
				opt->html = true;
				break;
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
			break;
		case OPT_IMAGE:
			cmd_push(&opt->images, &opt->nimages, &cap[7],
			    "--image", optarg);
			break;
		case 'j':
			if (!debug) {
				fprintf(stderr, "%s %s: unrecognized option "
				    "'--json' (did you mean debug --json?)\n",
				    progname, verb);
				goto usage;
			}
			opt->json = true;
			break;
		case OPT_CARD: tv->card = optarg; break;
		case OPT_PRESET: tv->preset = optarg; break;
		case OPT_CHAT: tv->chat = optarg; break;
		case OPT_SETTINGS: tv->settings = optarg; break;
		case OPT_WORLD: push_path(&tv->worlds, &tv->nworlds, optarg);
			break;
		case OPT_REGEX: push_path(&tv->regex, &tv->nregex, optarg);
			break;
		case OPT_PERSONA_NAME: tv->persona_name = optarg; break;
		case OPT_PERSONA: tv->persona = optarg; break;
		case OPT_GREETING: tv->greeting = optarg; break;
		case OPT_TYPE:
			/* SillyTavern's generation types (checked by the
			 * tavern build); for a session, regenerate rebuilds
			 * the last turn. */
			tv->type = optarg;
			opt->regenerate = strcmp(optarg, "regenerate") == 0;
			break;
		case OPT_NOW:
			tv->now = optarg;
			opt->now = optarg;
			break;
		case OPT_SEED: tv->seed = optarg; break;
		case OPT_ALLOW_FILES:
			opt->allow_history_files = optarg;
			break;
		case OPT_GLOBAL_VAR:
			cmd_push(&opt->global_vars, &opt->nglobal_vars,
			    &cap[8], "--global-var", optarg);
			break;
		case OPT_GLOBALS:
			opt->globals = optarg;
			break;
		case OPT_EXTRA_SYSTEM:
			opt->extra_system = optarg;
			break;
		case OPT_VIEW:
			if (strcmp(optarg, "user_view") &&
			    strcmp(optarg, "assistant_view")) {
				fprintf(stderr, "%s %s: --view: unknown view "
				    "'%s' (expected user_view or "
				    "assistant_view)\n", progname, verb, optarg);
				return EXIT_USAGE;
			}
			opt->view = optarg;
			break;
		case OPT_OUTPUT:
			if (strcmp(optarg, "full") && strcmp(optarg,
			    "history") && strcmp(optarg, "delta")) {
				fprintf(stderr, "%s %s: --output: unknown output "
				    "'%s' (expected full, history or delta)\n",
				    progname, verb, optarg);
				return EXIT_USAGE;
			}
			opt->output = optarg;
			break;
		case OPT_MACRO:
			cmd_push(&opt->macros, &opt->nmacros, &cap[9],
			    "--macro", optarg);
			break;
		case OPT_PERSONA_FILE:
			opt->persona_file = optarg;
			break;
		case OPT_SINCE:
			opt->since = optarg;
			break;
		case OPT_HOOK:
			if (debug) {
				fprintf(stderr, "%s %s: --hook: debug saves "
				    "nothing, so no hook point is reached\n",
				    progname, verb);
				return EXIT_USAGE;
			}
			if (!hook_arg(verb, optarg, opt))
				return EXIT_USAGE;
			break;
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
			break;
		}
		case OPT_PARAMS:
			if (debug) {
				fprintf(stderr, "%s %s: unrecognized option "
				    "'--params' (did you mean build "
				    "--params?)\n", progname, verb);
				goto usage;
			}
			opt->params = optarg;
			break;
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
			break;
		}
		case 'q':
			opt->quiet = true;
			break;
		case OPT_STAGE:
			if (!debug) {
				fprintf(stderr, "%s %s: unrecognized option "
				    "'--stage' (did you mean debug --stage?)\n",
				    progname, verb);
				goto usage;
			}
			if (!tavern_stage_parse(optarg, &stage)) {
				fprintf(stderr, "%s: --stage: unknown stage "
				    "'%s' (expected raw, regex-pre, macros or "
				    "regex-post)\n", progname, optarg);
				return EXIT_USAGE;
			}
			opt->stage = optarg;
			break;
		case 'S':
			opt->session = optarg;
			break;
		case 'D':
			opt->dry_run = true;
			break;
		case 'R':
			if (strcmp(optarg, "first") == 0)
				opt->turn = TURN_FIRST;
			else if (strcmp(optarg, "resume") == 0)
				opt->turn = TURN_RESUME;
			else
				goto usage;
			break;
		case 'I':
			opt->input = optarg;
			break;
		case OPT_LLM_PROFILE:
			if (opt->llm_profile)
				return once(verb, "--llm-profile");
			opt->llm_profile = optarg;
			break;
		case 'E':
			if (strcmp(optarg, "chat") && strcmp(optarg, "work"))
				goto usage;
			opt->scene = optarg;
			break;
		case 'L':
			if (!log_level(optarg, &opt->log_debug))
				goto usage;
			break;
		case 'C':
			if (!cmd_color_word(optarg))
				return EXIT_USAGE;
			opt->color = optarg;
			break;
		case 'P':
			if (!cmd_profile_format(optarg))
				return EXIT_USAGE;
			opt->profile_format = optarg;
			break;
		case 'h':
			fputs(debug ? cmd_debug_help : cmd_build_help, stdout);
			return EXIT_OK;
		default:
			goto usage;
		}
	}
	/* With --session a regenerated turn is the session's last user
	 * message; without one, regenerate is a SillyTavern generation
	 * type like the others (the tavern build removes the last reply). */
	if (opt->regenerate && !opt->session)
		opt->regenerate = false;
	if (opt->regenerate && opt->user)
		goto usage;
	/* A SillyTavern build does not send images: say so rather than
	 * drop them.  (A [tavern] profile is checked by assemble().) */
	if (opt->nimages && tavern_wanted(tv, NULL)) {
		fprintf(stderr, "%s %s: --image cannot go with a SillyTavern "
		    "build (--card, --preset, --chat, --settings, --world or "
		    "--regex): it does not send images\n", progname, verb);
		goto usage;
	}
	if (opt->format && strcmp(opt->format, "fast-tavern") == 0 &&
	    !opt->params) {
		fprintf(stderr, "%s %s: -f fast-tavern prints the build of "
		    "--params FILE\n", progname, verb);
		goto usage;
	}
	if (((opt->output && strcmp(opt->output, "full")) || opt->since) &&
	    !opt->result && !opt->params) {
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
	if (opt->html && (opt->json || opt->stage)) {
		fprintf(stderr, "%s %s: -f html shows every stage of every "
		    "message; it goes with neither --json nor --stage\n",
		    progname, verb);
		goto usage;
	}
	if (opt->stage && opt->json) {
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

/* The turn build --session appends: the user's message. */
struct turn_arg {
	const struct options *opt;
	const struct chat *chat;
	int64_t now;
	const char *thread;             /* out: the session's thread_id */
};

/*
 * A SillyTavern build's state (tbuild.h): a new chat's greeting first,
 * the variables its macros changed, the timed world-info state.
 */
static void
put_tavern(struct run *run, struct chatfile *c, const struct tavern_state *ts,
    int64_t now)
{
	struct arena *a = &run->arena;
	const struct node *v = ts->vars_changed;
	struct node *vars;
	size_t i;

	if (ts->greeting && c->msgs.n == 0)
		chatfile_append(run, c, session_message(a, ROLE_ASSISTANT,
		    ts->char_name ? ts->char_name : "Assistant", ts->greeting,
		    strlen(ts->greeting), now));
	if (v && v->kind == NODE_TABLE && v->u.table.n) {
		vars = session_vars_mut(run, c);
		for (i = 0; i < v->u.table.n; i++) {
			const struct member *m = &v->u.table.items[i];

			tree_set(a, vars, m->key, m->keylen, 0, span_make(0, 0),
			    tree_copy(a, m->value));
		}
	}
	if (ts->timed)
		tree_set(a, chatfile_metadata_mut(run, c), "timedWorldInfo",
		    14, 0, span_make(0, 0), tree_copy(a, ts->timed));
}

/*
 * The entries this build added from the command line (-i) with scope
 * session or turn: the session keeps them (a turn's until the reply ends
 * it), replacing a kept one of the same key.
 */
static void
keep_entries(struct run *run, struct chatfile *c, const struct chat *chat)
{
	struct arena *a = &run->arena;
	struct node *st = session_state_mut(run, c), *old, *list;
	size_t i, k;

	for (i = 0; i < chat->stack.nall; i++) {
		const struct entry *e = chat->stack.all[i];
		struct node *o;

		if (strcmp(e->layer, "cli") || e->status != ENTRY_ACTIVE ||
		    e->scope == SCOPE_GLOBAL)
			continue;
		old = tree_get(st, "entries");
		list = tree_array(a);
		for (k = 0; old && old->kind == NODE_ARRAY &&
		    k < old->u.array.n; k++) {
			const struct node *x = old->u.array.items[k];
			const struct node *key = tree_get(x, "key");

			if (!key || key->kind != NODE_STRING ||
			    strcmp(key->u.str.s, e->key) != 0)
				tree_push(a, list, old->u.array.items[k]);
		}
		o = tree_table(a);
		tree_put(a, o, "key", tree_str(a, e->key));
		tree_put(a, o, "content", tree_strn(a, e->content, e->len));
		tree_put(a, o, "priority", tree_int(a, e->priority));
		tree_put(a, o, "role", tree_str(a, names_role(e->role)));
		tree_put(a, o, "scope", tree_str(a, names_scope(e->scope)));
		tree_push(a, list, o);
		tree_set(a, st, "entries", 7, 0, span_make(0, 0), list);
	}
}

/* --image: the turn's images go into the session with the file each
 * was read from (parts and --image are in the same order). */
static void
put_images(struct run *run, struct node *m, const struct options *opt,
    const struct message_extra *x)
{
	const char **path = arena_array(&run->arena, x->nparts + 1,
	    sizeof(*path));
	size_t i, k = 0;

	for (i = 0; i < x->nparts; i++) {
		const char *arg;

		if (x->parts[i].kind != PART_IMAGE || k >= opt->nimages)
			continue;
		arg = opt->images[k++].arg;
		if (!x->parts[i].url && strncmp(arg, "data:", 5) != 0)
			path[i] = arg;
	}
	session_put_media(&run->arena, m, x->parts, path, x->nparts);
}

static bool
append_turn(struct run *run, struct chatfile *c, void *arg)
{
	struct turn_arg *t = arg;
	const struct tavern_state *ts = t->opt->tavern.state;
	const struct message *turn = NULL;
	struct node *m;
	size_t i;

	session_set_profile(run, c, session_profile_fp(&run->arena,
	    t->chat->profile->root));
	session_thread(run, c, t->opt->tavern.seed, t->opt->now);
	t->thread = session_state_str(c, "thread_id");
	if (ts)
		put_tavern(run, c, ts, t->now);
	keep_entries(run, c, t->chat);
	for (i = 0; i < t->chat->n; i++)
		if (strcmp(t->chat->msgs[i].origin, "turn") == 0)
			turn = &t->chat->msgs[i];
	if (ts && ts->user) {
		chatfile_append(run, c, session_message(&run->arena, ROLE_USER,
		    ts->user_name ? ts->user_name : "User", ts->user,
		    strlen(ts->user), t->now));
		return true;
	}
	if (!(t->chat->user && t->chat->user_len) && !(turn && turn->x))
		return true;
	m = chatfile_append(run, c, session_message(&run->arena, ROLE_USER,
	    session_last_name(c, true, "User"), t->chat->user ?
	    t->chat->user : "", t->chat->user_len, t->now))->obj;
	if (turn && turn->x)
		put_images(run, m, t->opt, turn->x);
	return true;
}

/*
 * build --session: once the request is built, the session takes the
 * user's message (re-read under the lock: another writer may have been
 * first).  --dry-run, debug and a regenerated turn write nothing.
 */
static bool
save_turn(struct run *run, const struct options *opt, const struct chat *c,
    struct session_hold *hold, const char **thread)
{
	struct turn_arg t;

	t.opt = opt;
	t.thread = NULL;
	t.chat = c;
	if (!opt->now) {
		t.now = clock_now_ms();
	} else if (!clock_parse(opt->now, &t.now)) {
		diag_plain(run, DIAG_ERROR, MSG_SESSION_BAD_TIME, opt->now);
		return false;
	}
	if (!session_update_held(run, hold, append_turn, &t))
		return false;
	*thread = t.thread;
	return true;
}

/*
 * --log-level debug: what Alice's debug trace holds -- profile, model,
 * session, the templates used and where each came from, then the full
 * rendered request.  It holds the prompt: the man page says so.
 */
static void
trace(struct run *run, const struct options *opt, const struct chat *c,
    const struct buf *out, const char *thread)
{
	const struct profile *p = c->profile;
	struct chatfile sess;
	bool exists;
	size_t i;

	/* Nothing was written (debug, --dry-run, regenerate): the thread is
	 * the one the session file already has, if any. */
	if (opt->session && !thread && session_load(run, opt->session, &sess,
	    &exists) && exists)
		thread = session_state_str(&sess, "thread_id");

	fprintf(stderr, "%s: debug: profile %s (%s)\n", progname,
	    p->name.s ? p->name.s : "-", p->src ? p->src->path : "(default)");
	fprintf(stderr, "%s: debug: format %s, model %s\n", progname,
	    names_format(c->format), c->model ? c->model : "-");
	fprintf(stderr, "%s: debug: session %s, thread %s, turn %lld, %s\n",
	    progname, opt->session ? opt->session : "-", thread ? thread : "-",
	    (long long)c->turn, c->first_turn ? "first turn" : "resumed");
	for (i = 0; c->templates && i < c->templates->n; i++)
		fprintf(stderr, "%s: debug: template %s (%s) from %s\n",
		    progname, c->templates->v[i].name,
		    templates_language(c->templates->v[i].name),
		    c->templates->v[i].where);
	fprintf(stderr, "%s: debug: rendered input (%zu bytes):\n", progname,
	    out->len);
	if (out->len)
		fwrite(out->data, 1, out->len, stderr);
}

/*
 * beforeVariablesSave / afterVariablesSave: the variables the build is
 * about to save (after: has saved), {"local": {...}, "global": {...}},
 * through the user's hooks; before the save, what the hook returns is
 * what is saved.
 */
static bool
vars_hook(struct run *run, const struct options *opt, const char *point,
    struct node **vars)
{
	struct arena *a = &run->arena;
	struct tavern_state *ts = opt->tavern.state;
	struct node *d;
	size_t i;
	int k;

	if (!hook_wanted(opt->hooks, point))
		return true;
	if (!*vars) {
		*vars = tree_table(a);
		tree_put(a, *vars, "local", ts->vars_changed ?
		    tree_copy(a, ts->vars_changed) : tree_table(a));
		tree_put(a, *vars, "global", ts->globals_changed ?
		    tree_copy(a, ts->globals_changed) : tree_table(a));
	}
	d = *vars;
	if (!hook_run(run, opt->hooks, point, &d))
		return false;
	for (k = 0; k < 2; k++) {
		const struct node *t = tree_get(d, k ? "global" : "local");

		for (i = 0; i < t->u.table.n; i++)
			if (t->u.table.items[i].value->kind != NODE_STRING) {
				diag_plain(run, DIAG_ERROR, MSG_HOOK_VALUE,
				    point, t->u.table.items[i].key,
				    tree_kind_article(
				    t->u.table.items[i].value->kind));
				return false;
			}
	}
	*vars = d;
	if (strcmp(point, "beforeVariablesSave") == 0) {
		const struct node *l = tree_get(d, "local");
		const struct node *g = tree_get(d, "global");

		ts->vars_changed = l->u.table.n ? l : NULL;
		ts->globals_changed = g->u.table.n ? g : NULL;
	}
	return true;
}

/* The request is built: the session takes the turn (build --session,
 * not --dry-run or regenerate), the trace goes to stderr, the request to
 * stdout. */
static void
finish(struct run *run, const struct options *opt, struct session_hold *hold,
    const struct chat *c, const struct buf *out, bool debug, bool human)
{
	const char *thread = NULL;
	struct tavern_state *ts = opt->tavern.state;
	bool saves = !debug && ts && (hold || (!opt->dry_run &&
	    ts->globals_file));
	struct node *vars = NULL;

	if (saves && !vars_hook(run, opt, "beforeVariablesSave", &vars))
		return;
	if (hold && !save_turn(run, opt, c, hold, &thread))
		return;
	/* The global variables the build changed, unless --dry-run. */
	if (!debug && !opt->dry_run && ts && ts->globals_file &&
	    !globals_update(run, ts->globals_file, ts->globals_changed))
		return;
	if (saves && !vars_hook(run, opt, "afterVariablesSave", &vars))
		return;
	if (opt->log_debug)
		trace(run, opt, c, out, thread);
	if (human) {
		/* A human view: the text escaped, the view's own colours
		 * kept (strata(1), SECURITY). */
		struct buf t = BUF_INIT;

		buf_put_term_styled(&t, out->data ? out->data : "", out->len,
		    c->color);
		if (t.len && fwrite(t.data, 1, t.len, stdout) != t.len)
			diag_system(run);
		buf_free(&t);
		return;
	}
	if (out->len && fwrite(out->data, 1, out->len, stdout) != out->len)
		diag_system(run);
}

/* --since FILE: the fingerprints of a previous -f result. */
static bool
since(struct run *run, const char *path, struct emit_result *r)
{
	struct source *src = run_read(run, path, NULL, span_make(0, 0));
	struct node *n;
	const struct node *fp, *vh, *vf;

	if (!src || !json_parse(run, src, &n))
		return false;
	fp = tree_get(n, "fingerprints");
	vh = tree_get(n, "variables_hash");
	vf = tree_get(n, "variables_fingerprints");
	if (n->kind != NODE_TABLE || !fp || fp->kind != NODE_TABLE || !vh ||
	    vh->kind != NODE_STRING || !vf || vf->kind != NODE_TABLE) {
		diag_error(run, src, n->span, MSG_SINCE_NOT_RESULT);
		return false;
	}
	r->fingerprints = fp;
	r->vars_hash = vh->u.str.s;
	r->vars_fingerprints = vf;
	return true;
}

/*
 * -f result: seed 002's BuildResult of a SillyTavern build, with what
 * --output delta compares against (--since FILE, or --params' own
 * fingerprints).
 */
static bool
result(struct run *run, const struct options *opt, const struct chat *c,
    struct buf *out)
{
	struct emit_result r;

	memset(&r, 0, sizeof(r));
	r.output = opt->output ? opt->output : "full";
	r.stages = opt->include_stages;
	r.per_item = opt->include_per_item;
	r.fingerprints = opt->fingerprints;
	r.vars_fingerprints = opt->vars_fingerprints;
	r.vars_hash = opt->vars_hash;
	if (opt->since && !since(run, opt->since, &r))
		return false;
	if (opt->tavern.state) {
		r.locals = opt->tavern.state->locals;
		r.globals = opt->tavern.state->globals;
	}
	return emit_result(run, c, &r, out);
}

static int
run_pipeline(const struct options *opt, bool debug)
{
	struct run run;
	int status;

	run_init(&run);
	run.diag.color = emit_color(STDERR_FILENO, opt->color);
	status = cmd_pipeline_run(&run, opt, debug);
	run_free(&run);
	return status;
}

int
cmd_pipeline_run(struct run *run, const struct options *opt, bool debug)
{
	struct chat chat;
	struct buf out = BUF_INIT;
	struct options o = *opt;
	struct tavern_state ts;
	struct session_hold hold;
	emit_fn *fn;
	int status;
	/* The session is held locked from before it is read until the turn
	 * is written, so concurrent builds serialise (strata(1), SESSIONS). */
	bool held = opt->session && !debug && !opt->dry_run &&
	    !opt->regenerate;

	/* A SillyTavern build leaves what its chat keeps in ts. */
	memset(&ts, 0, sizeof(ts));
	o.tavern.state = &ts;
	/* A request body shows no message the budget left out. */
	o.tavern.skip_unsent = !debug && !opt->log_debug && opt->format &&
	    strcmp(opt->format, "json") != 0;
	opt = &o;
	if (held && !session_hold(run, opt->session, &hold))
		return diag_status(run);
	if (assemble(run, opt, &chat)) {
		chat.color = emit_color(STDOUT_FILENO, opt->color);
		chat.stage = opt->stage;
		if (opt->stage && !chat.tavern)
			diag_plain(run, DIAG_ERROR, MSG_TAVERN_STAGE_NONE,
			    opt->stage);
		if (debug)
			fn = opt->html ? emit_html : opt->json ?
			    emit_json : emit_debug;
		else
			fn = emit_for(chat.format);
		if ((opt->result ? result(run, opt, &chat, &out) :
		    fn(run, &chat, &out)) && run->diag.errors == 0)
			finish(run, opt, held ? &hold : NULL, &chat, &out,
			    debug, (debug &&
			    !opt->json) || (!debug && chat.format ==
			    FORMAT_TEXT && isatty(STDOUT_FILENO)));
	}
	if (held)
		session_release(&hold);
	status = diag_status(run);
	buf_free(&out);
	return status;
}

int
cmd_pipeline(int argc, char **argv, const char *verb, bool debug)
{
	struct options opt;
	int status = parse_options(argc, argv, verb, debug, &opt);

	if (status < 0)
		status = opt.params ? cmd_params(&opt) :
		    run_pipeline(&opt, debug);
	options_free(&opt);
	return status;
}
