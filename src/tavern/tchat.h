/*
 * tchat: a SillyTavern chat as the prompt sees it.  Reads a .jsonl chat
 * (session/chatfile.h) and keeps the messages a prompt may use: hidden
 * ones (is_system) are only in the full list the macros read; each keeps its speaker, text (mes, or
 * the current swipe when mes is missing), user flag, narrator flag
 * (extra.type "narrator") and force_avatar.  The metadata is the
 * header's chat_metadata.  Everything lives in the run's arena.
 */
#ifndef TCHAT_H
#define TCHAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tavern_msg;

struct node;
struct run;

struct tchat_msg {
	const char *name;
	const char *text;
	bool is_user, narrator, force_avatar;
	bool hidden;                    /* is_system: in all[] only */
	int64_t swipe_id;               /* -1: none (not a number) */
	int64_t nswipes;                /* -1: no swipes array */
	const char *memory;             /* extra.memory, or NULL */
	const char *reasoning;          /* extra.reasoning, or NULL */
	/* A sandbox's thinking message before this one (tbuild.h, struct
	 * tavern_msg), or NULL; never regexed nor substituted. */
	const struct tavern_msg *thinking;
	const struct node *node;        /* its object in the chat file (for
	                                 * its line), or NULL: made here */
};

struct tchat {
	const char *id;                 /* file name without .jsonl */
	const struct node *meta;        /* chat_metadata, or NULL */
	const char *user_name;          /* the header's, or NULL */
	struct tchat_msg *msgs;         /* oldest first */
	size_t n, cap;
	/* Every message, the hidden ones too (SillyTavern's chat array,
	 * which its macros read): oldest first. */
	struct tchat_msg *all;
	size_t nall, allcap;
};

/* Read path (NULL: a new, empty chat).  Errors are reported. */
bool tchat_read(struct run *run, const char *path, const struct node *named,
    struct tchat *c);
/* The chat f, already read from path (a session the pipeline read:
 * the file is not read again). */
struct chatfile;
void tchat_from(struct run *run, const struct chatfile *f, const char *path,
    struct tchat *c);
/* Append a message to msgs and all (the strings are borrowed). */
void tchat_add(struct run *run, struct tchat *c, const char *name,
    const char *text, bool is_user);
/* The number of user messages (the Author's Note interval counts them). */
size_t tchat_user_count(const struct tchat *c);
/* Remove the newest message (msgs and all). */
void tchat_pop(struct tchat *c);

#endif
