/*
 * tchat: a SillyTavern chat as the prompt sees it.  Reads a .jsonl chat
 * (session/chatfile.h) and keeps the messages a prompt may use: hidden
 * ones (is_system) are dropped; each keeps its speaker, text (mes, or
 * the current swipe when mes is missing), user flag, narrator flag
 * (extra.type "narrator") and force_avatar.  The metadata is the
 * header's chat_metadata.  Everything lives in the run's arena.
 */
#ifndef TCHAT_H
#define TCHAT_H

#include <stdbool.h>
#include <stddef.h>

struct node;
struct run;

struct tchat_msg {
	const char *name;
	const char *text;
	bool is_user, narrator, force_avatar;
};

struct tchat {
	const char *id;                 /* file name without .jsonl */
	const struct node *meta;        /* chat_metadata, or NULL */
	const char *user_name;          /* the header's, or NULL */
	struct tchat_msg *msgs;         /* oldest first */
	size_t n, cap;
};

/* Read path (NULL: a new, empty chat).  Errors are reported. */
bool tchat_read(struct run *run, const char *path, struct tchat *c);
/* Append a message (the strings are borrowed). */
void tchat_add(struct run *run, struct tchat *c, const char *name,
    const char *text, bool is_user);
/* The number of user messages (the Author's Note interval counts them). */
size_t tchat_user_count(const struct tchat *c);

#endif
