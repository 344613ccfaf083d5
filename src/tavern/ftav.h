/*
 * ftav: fast-tavern 0.1.8's own engine, read from its own input shapes
 * (buildPrompt's parameters: inline preset, character, globals, history,
 * view, outputFormat, systemRolePolicy, macros, variables,
 * globalVariables, options) and answered with its BuildPromptResult,
 * quirks included, as ../shared/reference/fast-tavern.md describes them.
 * SmartTavern (seed 002) normalises its assets to these shapes; this
 * module is how strata answers for fast-tavern, the seed's reference
 * engine.
 *
 * The module mirrors JavaScript where fast-tavern leans on it: values
 * keep their JSON type until fast-tavern would turn them into strings
 * (String(), Number(), template literals, truthiness) and ftav_js.c does
 * that conversion the way JavaScript does.  Where fast-tavern throws (a
 * history that is not a list, a message that is null, a prompt list or
 * prompt content of the wrong type, a null positionMap that is looked
 * into, functions JSON cannot carry) strata reports the value at its
 * JSON line:col and fails: the caller prints nothing.
 *
 * Ownership: every string and tree made here lives in the run's arena;
 * the compiled regexes live in a struct ftav for one build and are freed
 * before ftav_build() returns.  The params tree is borrowed.
 *
 * Files: ftav_js.c (JavaScript values), ftav_input.c (normalising
 * presets, world books, regex scripts and history; world-info
 * activation), ftav_text.c (macros, variables, regex scripts),
 * ftav.c (assembly, stages, the result).
 */
#ifndef FTAV_H
#define FTAV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "text/jsregex.h"

struct buf;
struct node;
struct run;

/* Are these parameters fast-tavern's (a key only buildPrompt has)? */
bool ftav_recognise(const struct node *params);
/* buildPrompt(params) into *out (a tree for json_write).  False after
 * reporting where fast-tavern would throw. */
bool ftav_build(struct run *run, const struct node *params,
    struct node **out);

/* A fast-tavern regex rule file (targets, view) as the SillyTavern
 * scripts that do the same, for a SillyTavern build's --regex; NULL
 * when in is not in fast-tavern's style (ftav_st.c). */
struct node *ftav_regex_for_tavern(struct run *run, const struct node *in);

/* ---- inside the module ---- */

enum ftav_role { FT_SYSTEM, FT_USER, FT_MODEL };
enum ftav_target { FT_USER_INPUT, FT_AI_OUTPUT, FT_SLASH, FT_WORLD,
	FT_REASONING };

struct ftav_entry {
	double index;
	const char *name, *content, *position;
	const char *role;               /* NULL: null */
	bool enabled, excl, prevent;
	int mode;                       /* 0 always, 1 keyword, 2 vector */
	const char **key, **sec;
	size_t nkey, nsec;
	int logic;                      /* 0 andAny 1 andAll 2 notAny 3 notAll */
	double order, depth, prob;
	int cs;                         /* -1 null, 0, 1 */
	const struct node *other;       /* NULL: {} */
	int prio;                       /* 1 global, 2 character */
	size_t seq;
};

struct ftav_script {
	const char *id, *name, *find, *replace;
	const char **trim;
	size_t ntrim;
	unsigned targets;               /* 1 << enum ftav_target */
	unsigned ntargets, nview;
	unsigned view;                  /* 1 user, 2 model */
	const char **tnames, **vnames;  /* in order, for the result */
	bool enabled, run_on_edit;
	int macro_mode;                 /* 0 none 1 raw 2 escaped */
	const struct node *min, *max;   /* NULL: null; else a number */
	/* the find regex, compiled once per build */
	int state;                      /* 0 not yet, 1 ok, -1 skipped */
	struct jsregex re;
};

struct ftav_kv {
	const char *key;
	const struct node *val;
};

/* Patterns fast-tavern runs on every text (ftav_text.c). */
enum {
	FP_SETVAR, FP_SETGLOBAL, FP_GETVAR, FP_GETGLOBAL,
	FP_SETVAR2, FP_SETGLOBAL2, FP_GETVAR2, FP_GETGLOBAL2,
	FP_ANGLE, FP_BRACE, FP_MATCH,
	FP__COUNT
};

struct ftav {
	struct run *run;
	struct ftav_kv *macros;
	size_t nmacros;
	struct node *local, *global;    /* the variable context */
	const struct node *view;        /* params.view, borrowed */
	struct jsregex pat[FP__COUNT];
	struct ftav_script *scripts;
	size_t nscripts;
	const struct node *rng;         /* options.rng, or NULL */
	size_t rng_calls;
	uint32_t rng_state;
	bool failed;                    /* an error was reported */
};

/* ftav_js.c: JavaScript's conversions of JSON values (NULL is
 * undefined). */
void ftav_tostring(struct buf *out, const struct node *v);
const char *ftav_str(struct run *run, const struct node *v);
double ftav_tonumber(const struct node *v);
bool ftav_truthy(const struct node *v);
void ftav_number(struct buf *out, double d);
/* JSON.stringify(v) with JavaScript's key order. */
void ftav_stringify(struct buf *out, const struct node *v);
/* String.prototype.trim / toLowerCase. */
void ftav_trim(const char **s, size_t *n);
char *ftav_lower(struct run *run, const char *s, size_t n);
/* A number node: an integer when it is one. */
struct node *ftav_num(struct run *run, double d);
/* {...v}: own enumerable properties of a spread value, in order. */
size_t ftav_spread(struct run *run, const struct node *v,
    struct ftav_kv **out);
/* Is name a property every plain object inherits? */
bool ftav_inherited(const char *name);

/* ftav_input.c */
bool ftav_worldbooks(struct ftav *ft, const struct node *in, int prio,
    struct ftav_entry ***out, size_t *n);
void ftav_regexes(struct ftav *ft, const struct node *in,
    struct ftav_script **out, size_t *n, size_t *cap);
bool ftav_activate(struct ftav *ft, const struct node *options,
    const char *scan, struct ftav_entry **all, size_t nall,
    struct ftav_entry ***active, size_t *nactive);
struct node *ftav_entry_tree(struct run *run, const struct ftav_entry *e);
struct node *ftav_script_tree(struct run *run, const struct ftav_script *s);

/* ftav_text.c */
bool ftav_text_init(struct ftav *ft);
void ftav_text_free(struct ftav *ft);
/* replaceMacros(text) with the variable context, into out. */
bool ftav_macros(struct ftav *ft, const char *s, size_t n, struct buf *out);
/* applyRegex on an item's afterMacro text, into out. */
bool ftav_regex(struct ftav *ft, enum ftav_target target, bool has_depth,
    double depth, const char *s, size_t n, struct buf *out);
/* Report where fast-tavern would throw. */
void ftav_throw(struct ftav *ft, const struct node *at, const char *what);

#endif
