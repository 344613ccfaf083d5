/*
 * assemble: the pipeline driver shared by build, debug and check.  It
 * loads the profile, reads the inputs the command line names (user text,
 * history, contexts; inputs.c), collects the layers into entries
 * (collect.c), rewrites them (rewrite.h), arranges them into messages
 * (arrange.c) and rewrites those.  Every stage reports all its errors,
 * then the driver stops.  The result lives in the run's arena.
 */
#ifndef ASSEMBLE_H
#define ASSEMBLE_H

#include <stdbool.h>
#include <stddef.h>

#include "prompt/chat.h"
#include "profile/profile.h"
#include "tavern/tbuild.h"

struct hooks;
struct run;

/* --turn: decided by the session (or -H), or forced. */
enum assemble_turn {
	TURN_AUTO,
	TURN_FIRST,
	TURN_RESUME,
};

/* A NAME=VALUE argument (-c, -v, -s, --set-json, -i) or a --remove KEY,
 * as typed. */
struct kv {
	const char *opt;        /* "--context", ... for messages */
	const char *arg;
};

struct options {
	const char *profile;    /* NULL: the embedded default */
	const char *user;       /* -u TEXT, "-" for stdin, or NULL */
	const char *history;    /* -H FILE, "-" for stdin, or NULL */
	const char *format;     /* -f, or NULL */
	struct kv *contexts, *vars, *sets, *injects, *removes;
	size_t ncontexts, nvars, nsets, ninjects, nremoves;
	unsigned scopes;        /* --scope: 1 << enum scope; 0: all */
	const char *state;      /* --state FILE, "-" for stdin, or NULL */
	struct kv *prestarts, *tool_results;    /* --prestart, --tool-result */
	size_t nprestarts, ntool_results;
	struct kv *images;      /* --image FILE|URL, in order */
	size_t nimages;
	bool check_only;        /* strata check */
	struct tavern_input tavern;     /* --card, --preset, ... (the
	                                 * worlds and regex arrays are
	                                 * on the heap) */
	const char *session;    /* --session FILE, or NULL */
	/* Its bytes as the command read them under its lock (session.h:
	 * session_hold_read()), or NULL: the pipeline reads the file. */
	const struct source *session_src;
	bool regenerate;        /* --type regenerate: no new user message */
	const char *now;        /* --now TIME, or NULL: the clock */
	enum assemble_turn turn;        /* --turn */
	const char *input;      /* --input FILE.json: template inputs */
	const char *data;       /* --data FILE.json|-: template data */
	const char *scene;      /* --scene chat|work, or NULL */
	const char *llm_profile;        /* --llm-profile NAME, or NULL */
	const char *profile_format;     /* --profile-format toml|yaml, or
	                                 * NULL: by the profile's name */
	const char *allow_history_files;        /* --allow-history-files
	                                         * DIR, or NULL */
	const char *extra_system;       /* --extra-system TEXT, or NULL */
	struct kv *global_vars;         /* --global-var NAME=VALUE */
	size_t nglobal_vars;
	const char *globals;            /* --globals FILE, or NULL */
	bool quiet;             /* -q: no note of what the budget cut */
	/* Seed 002's contract (strata-params(5)): */
	const char *view;       /* --view user_view|assistant_view, or NULL */
	const char *output;     /* --output full|history|delta, or NULL */
	struct kv *macros;      /* --macro NAME=TEXT */
	size_t nmacros;
	const char *persona_file;       /* --persona-file FILE, or NULL */
	const char *since;      /* --since FILE: the previous -f result */
	bool result;            /* -f result: seed 002's BuildResult */
	bool include_stages, include_per_item;  /* --params' own */
	/* --params' messages: a source of the params file's own text (so
	 * that -H's messages point there), read as -H is; NULL: none.
	 * strata batch gives a line's history so too. */
	struct source *history_src;
	/* A user message as a source (strata batch's lines), taken where
	 * -u's text is; NULL: -u or none. */
	const struct source *user_src;
	/* --output delta's previous state (--params or --since FILE):
	 * message fingerprints and variable fingerprints (name -> text
	 * tables, or NULL), and the variables' hash (or NULL). */
	const struct node *fingerprints, *vars_fingerprints;
	const char *vars_hash;
	struct hooks *hooks;    /* --hook POINT=COMMAND, --hook-timeout
	                         * (pipeline/hook.h), or NULL: none */
	bool run_hooks;         /* strata build: the profile's [hooks] run
	                         * too (never in debug, check, diff, test) */
};

/* What a build leaves besides the chat: a SillyTavern build's state
 * (tbuild.h), for the session and --globals to keep (zeroed for a
 * profile build), and --now as the build parsed it (has_now false: the
 * clock). */
struct assemble_out {
	struct tavern_state tavern;
	/* The hooks the build ran: the profile's [hooks], then --hook's
	 * (pipeline/hook.h); NULL: none.  The variables' points run from
	 * here. */
	const struct hooks *hooks;
	bool has_now;
	int64_t now_ms;
	/* The --session file's thread id as the build read it, or NULL
	 * (no session, no thread): the trace names it without reading the
	 * file again. */
	const char *thread;
};

/* Run the pipeline into *chat, and what else the build leaves into *out
 * (NULL: not wanted).  False (after reporting) on any error.  It is
 * assemble_load(), then the inputs opt names, then the turn step
 * (stages.h: assemble_turn()).  opt is only read. */
bool assemble(struct run *run, const struct options *opt, struct chat *chat,
    struct assemble_out *out);

/* What the load step keeps: the profile, and the NAME=VALUE arguments
 * split (in the run's arena). */
struct setting;
struct assembly {
	const struct profile *profile;
	struct setting *vars, *ctxs, *injs;
};
/* The load step: split the NAME=VALUE arguments, load the profile.  A
 * command that builds many turns from one profile (strata batch) calls
 * it once. */
bool assemble_load(struct run *run, const struct options *opt,
    struct assembly *as);

/* Where "-" is used more than once: a usage error, found before any
 * reading.  Returns the name of the second option, or NULL. */
const char *assemble_stdin_clash(const struct options *opt);

#endif
