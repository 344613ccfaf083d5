/*
 * stchat: a minimal reader for SillyTavern chat files (.jsonl): a header
 * line (chat_metadata and, before 1.15, user and character names), then
 * one message per line.  Group chats saved by 1.12 and older have no
 * header: a first line with "mes" or "name" is a message.  A line that is
 * not JSON is an error at path:line:col; blank lines are skipped.  Only
 * the fields a prompt needs are kept (name, mes, is_user, is_system,
 * extra.type); the full reader comes later.
 *
 * Ownership: strings and the metadata tree live in the run's arena.
 */
#ifndef STCHAT_H
#define STCHAT_H

#include <stdbool.h>
#include <stddef.h>

struct node;
struct run;
struct source;

struct stchat_message {
	const char *name, *mes;
	bool is_user, is_system;
	const char *type;               /* extra.type, e.g. "narrator", or "" */
	unsigned line;
};

struct stchat {
	const struct node *metadata;    /* chat_metadata, or NULL */
	const char *user_name, *character_name; /* header; may be NULL */
	struct stchat_message *messages;        /* oldest first */
	size_t n;
};

bool stchat_read(struct run *run, struct source *src, struct stchat *out);

#endif
