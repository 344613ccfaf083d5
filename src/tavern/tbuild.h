/*
 * tbuild: the messages (and body fields) SillyTavern 1.15 sends to an
 * OpenAI-compatible Chat Completion endpoint, for a card, a preset, a
 * chat, settings.json and the user's message.  It follows SillyTavern's
 * own order (reference/sillytavern.md §5.4-§5.9): card fields, history,
 * Author's Note, Character's Note and persona as extension prompts,
 * world info (wi.h), the prompt manager's collection with markers filled
 * in place (or appended when missing from prompt_order), character
 * overrides with {{original}}, in-chat injections, the context budget
 * (history newest first, then examples), squash and post-processing.
 *
 * The result fills a struct chat (prompt/chat.h): messages with role,
 * content and name, the model, and params holding the sampler fields
 * SillyTavern sends, and tavern: every prompt and message the build met,
 * why each is in or out, and its text at the four stages (prompt/item.h),
 * which the passes of the dialect's rewrite plan make (prompt/rewrite.h,
 * tbuild_rewrite.c).
 * Everything lives in the run's arena; the input is borrowed.
 */
#ifndef TBUILD_H
#define TBUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag/source.h"
#include "prompt/entry.h"

struct card;
struct chat;
struct chatfile;
struct group;
struct node;
struct preset;
struct settings;
struct tchat;
struct run;

/* What a build changed that its chat keeps (build --session writes it
 * into the session once the build has succeeded). */
struct tavern_state {
	/* chat_metadata.variables the macros set or changed ({{setvar}},
	 * {{addvar}}, {{incvar}}, ...): name -> the new text; NULL if none. */
	const struct node *vars_changed;
	/* The global variables ({{setglobalvar}} ...) the build changed,
	 * the same way, and all of them as the build left them. */
	const struct node *globals_changed, *globals;
	/* All the chat's variables as the build left them (a table). */
	const struct node *locals;
	/* The global variables file the build read (--globals or the
	 * profile's [tavern] globals), to save them in; NULL: none.  Set
	 * by the caller of tavern_build(). */
	const char *globals_file;
	/* chat_metadata.timedWorldInfo after the scan, or NULL when no world
	 * info ran. */
	const struct node *timed;
	/* A new chat's first message (the card's greeting as sent), and the
	 * character's name; NULL when the chat had messages. */
	const char *greeting, *char_name;
	/* A new group chat's further greetings and who says each. */
	const char *const *more_greetings, *const *more_names;
	size_t nmore;
	/* The message typed as the chat keeps it (after the user-input
	 * regex scripts and the macros) and the persona's name; NULL when
	 * none was sent (a type other than normal). */
	const char *user, *user_name;
};

/* Where an entry of strata's own goes among the preset's prompts. */
enum tavern_place {
	TAVERN_PLACE_SYSTEM,    /* a system prompt: after main, or at its
	                         * anchor */
	TAVERN_PLACE_INCHAT,    /* an in-chat injection at its depth */
	TAVERN_PLACE_USER,      /* before the text of this turn's message */
};

/*
 * An entry of strata's own -- a profile's persona, format, skills, tool
 * prose, [[inject]] and [[context]], and -i -- as the pipeline composed
 * it (vars, templates, the stack), so that this layer knows nothing of
 * the pipeline.  They come in strata's order for each place; one the
 * stack left out has a reason, and is only shown (debug, -f json).
 */
struct tavern_entry {
	const char *key;        /* the entry's key: its item's identifier */
	const char *text;       /* final; a system entry's as its profile's
	                         * style composes it (heading included) */
	const char *raw;        /* as read, before strata's templates, or
	                         * NULL: text (shown as the raw stage; text
	                         * is the macros stage) */
	const char *role;       /* system, user or assistant */
	enum tavern_place place;
	int64_t depth;          /* TAVERN_PLACE_INCHAT */
	const char *anchor;     /* a prompt_order identifier, or NULL:
	                         * right after main */
	bool before;            /* before anchor, else after it */
	uint32_t anchor_src;    /* where anchor was written, for messages */
	struct span anchor_span;
	enum entry_status reason;       /* ENTRY_ACTIVE (0): offered; else
	                                 * why it is out */
	const char *note;       /* more words, or NULL */
	bool has_src;           /* src/span: where its text was read (the
	                         * profile, or the -i option) */
	uint32_t src;
	struct span span;
};

/*
 * The user's hooks at seed 002's points (pipeline/hook.h runs them;
 * the caller hands them over as this callback, so that this layer
 * knows nothing of the pipeline).  run() hands *data, a table, to the
 * point's commands and sets it to what they returned, with the same
 * keys, each of the same JSON type; anything deeper the build checks,
 * reporting at the returned tree's spans (its source is "hook POINT").
 */
struct tavern_hooks {
	bool (*wanted)(void *ctx, const char *point);
	bool (*run)(void *ctx, struct run *run, const char *point,
	    struct node **data);
	void *ctx;
};

/* Is point hooked? */
bool tavern_hooked(const struct tavern_hooks *h, const char *point);

/* One message of a sandbox (-H): role user, assistant or system (a
 * narrator's line); name NULL for the persona's or the character's. */
struct tavern_msg {
	const char *role, *name, *text;
	/* Seed 002's thinking message before this (assistant) one: its
	 * text, passed through untouched, and where it was read; NULL:
	 * none. */
	const char *thinking;
	uint32_t thinking_src;
	struct span thinking_span;
};

struct tavern_input {
	const char *card, *preset, *chat, *settings;    /* paths; card is
	                                                 * required */
	/* A group chat (--group FILE): its members' cards replace card;
	 * speaker (--speaker NAME) is the member who replies, or NULL:
	 * the group's activation strategy chooses (tavern/group.h). */
	const char *group, *speaker;
	/* The chat already read (--session: the session the pipeline
	 * read, whose path is chat), or NULL: chat is read here. */
	const struct chatfile *chatfile;
	/* Where the profile's [tavern] table named card, preset, chat,
	 * settings and group (NULL: the command line did, or nothing): a
	 * file that cannot be read is reported there. */
	const struct node *card_at, *preset_at, *chat_at, *settings_at,
	    *group_at;
	/* The same for each of worlds and regex (NULL or an array of
	 * their lengths, its entries NULL for the command line's). */
	const struct node *const *worlds_at, *const *regex_at;
	const char *const *worlds;      /* --world files, for world info */
	size_t nworlds;
	/* A --world file nothing names is global lore (seed 002's
	 * worldbook_files), not inactive. */
	bool worlds_active;
	const char *const *regex;       /* --regex files, after the global
	                                 * scripts */
	size_t nregex;
	/* Prompt texts get the display-only (markdownOnly) regex scripts,
	 * not the prompt-only ones (--view user_view). */
	bool user_view;
	const char *persona_name;       /* --persona-name, or NULL */
	const char *persona;            /* --persona TEXT, or NULL */
	const char *user;               /* the message typed, or NULL */
	const struct source *user_src;  /* where it was read (--user), or
	                                 * NULL */
	const char *greeting;           /* --greeting N, or NULL (0) */
	const char *type;               /* --type, or NULL (normal) */
	const char *now;                /* --now RFC 3339, or NULL */
	bool has_now;                   /* --now parsed by the caller: */
	int64_t now_ms;                 /* this, and now is not read */
	const char *seed;               /* --seed N, or NULL */
	/* A sandbox's messages (-H with a card): they replace the chat
	 * file -- no greeting, the messages as given.  has_msgs even when
	 * the list is empty. */
	const struct tavern_msg *msgs;
	size_t nmsgs;
	bool has_msgs;
	/* Variables given to the build (-v, --global-var, --globals):
	 * name -> value tables, over the chat's and settings' own; NULL:
	 * none. */
	const struct node *vars, *global_vars;
	/* The user's own macros (--macro NAME=TEXT): name -> text, or
	 * NULL. */
	const struct node *macros;
	/* The user's hooks at seed 002's points (struct tavern_hooks);
	 * run NULL: none. */
	struct tavern_hooks hooks;
	struct tavern_state *state;     /* filled when not NULL */
	/* strata's own entries (strata-tavern(7) "Profile entries"), and
	 * what joins two system entries of one place ("\n\n", or the
	 * sections style's rule). */
	const struct tavern_entry *entries;
	size_t nentries;
	const char *joiner;
	/* The caller prints only the request: a chat message the budget
	 * leaves out need not be regexed when its scripts can change
	 * nothing else (text/regex.h regex_set_pure()); its item's regex-post stage is
	 * then its macros stage.  Debug views leave this false. */
	bool skip_unsent;
};

/* True when in names any SillyTavern input, or the profile has a
 * [tavern] table (NULL: none). */
bool tavern_wanted(const struct tavern_input *in,
    const struct node *profile_tavern);
/*
 * Fill what the command line left unset from the profile's [tavern]
 * table (NULL: nothing): card (or group), preset, chat, settings,
 * worlds, regex
 * (paths relative to the directory of profile_path), user (the persona
 * name) and persona (its description).  Command-line values win;
 * --world and --regex add to the profile's lists.
 */
bool tavern_input_profile(struct run *run, struct tavern_input *in,
    const struct node *table, const char *profile_path);
/*
 * The SillyTavern files of a build, read once by the front half of the
 * pipeline (tavern_read()) before the dialect's build runs: the
 * settings, the card (or a group and its members' cards), the preset,
 * the chat (the session's, read by the caller, when in->chatfile).  In
 * the run's arena; the build that takes them changes the chat.
 */
struct world;
struct node;

struct tavern_files {
	struct settings *s;
	struct card *card;      /* NULL in a group chat: the speaker's */
	struct group *grp;      /* the group, or NULL */
	struct preset *p;
	struct tchat *chat;
	/* The --world files, each read (NULL where it failed), and the
	 * --regex files' scripts as SillyTavern's (NULL where one failed),
	 * in in's order. */
	struct world **worlds;
	const struct node **regex;
	/* The build's time: --now (parsed once, by the caller when it set
	 * has_now), else the clock, read once. */
	int64_t now_ms;
};

/* Check in's options (--type, --now, --seed, a group's) and read its
 * files into *f.  Errors are reported; false when any occurred. */
bool tavern_read(struct run *run, const struct tavern_input *in,
    struct tavern_files *f);
/* Build into c (whose profile, format and model the caller set) from in
 * and the files tavern_read() read for it.  Errors are reported; false
 * when any occurred. */
bool tavern_build(struct run *run, const struct tavern_input *in,
    const struct tavern_files *f, struct chat *c);

#endif
