/*
 * profile: the format-neutral profile model and its loader.
 * profile_load() runs the profile layer's pipeline: extends.c reads the
 * profile (TOML or YAML) and the chain it extends and merges them, set.c
 * applies the --set overrides, schema.c checks every key against the
 * profile's tables (unknown keys with a suggestion, wrong types, bad
 * choices, missing and exclusive keys), and paths.c remembers where each
 * file's relative paths resolve.  The struct profile then gives typed
 * access; each field keeps its node, so later stages report errors (a
 * missing file, an unknown placeholder) at the key that named it.
 *
 * Ownership: everything lives in the run's arena and borrows from the
 * merged tree; the profile owns its private struct paths.
 */
#ifndef PROFILE_H
#define PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag/source.h"
#include "profile/set.h"
#include "prompt/entry.h"
#include "prompt/labels.h"
#include "prompt/names.h"

struct node;
struct paths;
struct run;

enum skill_mode {
	SKILL_INLINE,
	SKILL_OUTLINE,
};

/* A string value with the node it came from (for spans). */
struct pstr {
	const char *s;          /* NULL when the key is absent */
	size_t len;
	const struct node *node;
};

/* How an entry gives way to the token budget (pipeline/budget.h): cut
 * = "drop", "head" (the beginning goes, the end stays) or "tail" (the
 * end goes), indexed like schema_cut_modes. */
enum cut_how {
	CUT_DROP,
	CUT_HEAD,
	CUT_TAIL,
};

/* What a skill, context or injection says about the budget. */
struct pcut {
	bool has_cut, has_protect;
	enum cut_how cut;
	bool protect;
	struct pstr fallback;           /* fallback = "...", or s NULL */
};

/* [budget]: the prompt tokens a build may use and how it fits them. */
struct pbudget {
	const struct node *node;        /* the table, or NULL */
	int64_t max_tokens;             /* 0: none given */
	const struct node *max_node;
	int64_t keep_first;             /* history messages pinned */
	int margin;                     /* percent kept free of estimates */
	bool has_margin;
	struct pstr marker;             /* where a truncated text was cut */
	enum cut_how cut;               /* an entry's default */
	int history_priority;
	int protect_priority;           /* this priority or better is kept */
	const struct node *protect;     /* array of layer names, or NULL:
	                                 * ["persona"] */
};

struct pskill {
	struct pstr name, file, description;
	struct pstr show_path;          /* the outline's path; "" for none */
	struct pstr *files;             /* more files of an inline skill */
	size_t nfiles;
	enum skill_mode mode;
	int priority;
	bool has_priority;
	struct pcut cut;
	const struct node *node;
};

struct ptool {
	struct pstr file;               /* a definition file ... */
	const struct node *def;         /* ... or an inline definition */
	const struct node *node;
};

struct pcontext {
	struct pstr name, tag, file;
	bool required;
	struct pcut cut;
	const struct node *node;
};

struct pinject {
	struct pstr key, content, file;
	int priority;
	enum role role;
	enum placement placement;
	int depth;                      /* PLACE_DEPTH only */
	enum scope scope;
	bool enabled;
	/* anchor = "before:ID" / "after:ID": where a SillyTavern build puts
	 * it among the preset's prompts (strata-tavern(7)); anchor.s NULL:
	 * none.  anchor_id is ID (in the arena). */
	struct pstr anchor;
	const char *anchor_id;
	bool anchor_before;
	struct pcut cut;
	const struct node *node;
};

struct profile {
	const struct source *src;       /* the top profile */
	struct node *root;              /* merged and overridden */
	bool embedded;                  /* the built-in default */
	struct pstr name, description;
	struct pstr persona, format, prefix;
	struct pstr outline_header, outline_footer;
	enum lang lang;                 /* [prompt] lang */
	/* Every fixed string by enum label: the language's default, or
	 * [prompt.labels]' (outline_header/footer above win over both). */
	const char *labels[LABEL_COUNT];
	enum style style;
	bool keep_unknown_vars;
	/* The agent prompt (issue 11): [prompt] soul, scene ("chat" or
	 * "work"), disable_identity_hints inverted, agent. */
	struct pstr soul, scene;
	bool identity_hints, agent;
	const struct node *vars;        /* table of scalars, or NULL */
	struct pskill *skills;
	size_t nskills;
	struct ptool *tools;
	size_t ntools;
	struct pcontext *contexts;
	size_t ncontexts;
	struct pinject *injects;
	size_t ninjects;
	enum out_format output;         /* [output] format */
	bool has_output;
	struct pstr model;
	const struct node *params;      /* table, or NULL */
	int64_t max_tokens;             /* [output] max_tokens, or 0 */
	bool developer_as_system;       /* [output] developer_role = system */
	bool cache_auto;                /* [output] cache = "auto" */
	int64_t context;                /* [output] context, or 0 */
	const struct node *context_node;
	struct pbudget budget;          /* [budget] */
	/* Private (profile.c): where each file's relative paths resolve. */
	const struct paths *paths;
};

/*
 * Load path (NULL: the embedded default profile), merge its extends
 * chain, apply the --set overrides, validate.  Reports every error of
 * the stage; returns NULL if there were any.
 */
struct profile *profile_load(struct run *run, const char *path,
    const struct setting *sets, size_t nsets);
/* The same with the top file's format given: "toml", "yaml" or NULL (by
 * its name); path may be "-", standard input. */
struct profile *profile_load_as(struct run *run, const char *path,
    const char *format, const struct setting *sets, size_t nsets);

/*
 * --llm-profile NAME: [llm_profiles.NAME]'s prompt_prefix, model,
 * max_tokens and params replace the profile's [prompt] prefix and
 * [output] ones.  Reports a name the profile does not have.
 */
bool profile_use_llm(struct run *run, struct profile *p, const char *name);

/*
 * Open a file the profile names: a relative path is resolved against the
 * prompt directory of the profile file that wrote it (prompt.dir, else
 * prompts/ beside that file, else ../prompts/).  Errors are reported at
 * the naming node.  Returns NULL on error.
 */
struct source *profile_open(struct run *run, const struct profile *p,
    const struct pstr *path);
/* The top profile's prompt directory, where the agent templates and
 * includes are looked for; NULL for the embedded profile. */
const char *profile_prompt_dir(const struct profile *p);
/* The resolved path of a profile-named file, for messages and listings. */
const char *profile_resolve(struct run *run, const struct profile *p,
    const struct pstr *path);
/* The [tavern] table (checked: card, preset, chat, settings, user and
 * persona are strings; worlds and regex arrays of strings), or NULL. */
const struct node *profile_tavern(const struct profile *p);
/* The [hooks] table (checked: each point a command or a list of them,
 * timeout an integer), or NULL. */
const struct node *profile_hooks(const struct profile *p);

#endif
