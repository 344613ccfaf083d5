/*
 * chatfile: SillyTavern chat files (.jsonl), read and written so that
 * SillyTavern and strata can continue each other's conversations.  Line
 * 1 is a header -- 1.15's {"chat_metadata":{...},"user_name":"unused",
 * "character_name":"unused"} or the older {"user_name","character_name",
 * "create_date","chat_metadata"} -- then one message per line; group
 * chats saved by 1.12 and older have no header (a first line with "mes"
 * or "name" is a message).
 *
 * Every line keeps the bytes it was read with.  Writing prints a line as
 * read unless it was changed, and prints changed and new lines as
 * JSON.stringify() would (keys in their order, compact), so a chat that
 * strata continued differs from the original only in the lines strata
 * added or changed.  A line that is not a JSON object is an error at its
 * path:line:col; blank lines are skipped (and not written back).
 *
 * Ownership: lines, trees and strings live in the run's arena and borrow
 * the source; the caller owns the struct chatfile.
 */
#ifndef CHATFILE_H
#define CHATFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/vec.h"

struct buf;
struct node;
struct run;
struct source;

struct chatfile_msg {
	struct node *obj;       /* the message object: the truth */
	const char *raw;        /* its line as read, or NULL once changed
	                         * (or for a new message) */
	size_t rawlen;
	unsigned line;          /* 1-based line in the file; 0 if new */
};

struct chatfile {
	const struct source *src;       /* NULL for a new chat */
	struct node *header;            /* NULL: no header line (old group
	                                 * chat); written as read */
	const char *header_raw;         /* as read, or NULL once changed */
	size_t header_rawlen;
	VEC(struct chatfile_msg) msgs;  /* oldest first */
};

/* A chat with a 1.15 header and no messages. */
void chatfile_new(struct run *run, struct chatfile *c);
/* Parse src (empty text: a new chat).  Reports every bad line. */
bool chatfile_read(struct run *run, const struct source *src,
    struct chatfile *c);
/* The file's bytes: one line per header and message, '\n' after each. */
void chatfile_write(const struct chatfile *c, struct buf *out);

/* chat_metadata (a table), created in the header if missing: the caller
 * is about to change it, so the header is marked changed. */
struct node *chatfile_metadata_mut(struct run *run, struct chatfile *c);
/* chat_metadata, or NULL. */
const struct node *chatfile_metadata(const struct chatfile *c);

/* Append a message object (the caller built it); returns it. */
struct chatfile_msg *chatfile_append(struct run *run, struct chatfile *c,
    struct node *obj);
/* Mark message i changed: it will be written from its object. */
void chatfile_touch(struct chatfile *c, size_t i);
/* Drop the last n messages. */
void chatfile_drop(struct chatfile *c, size_t n);

/* Typed views of a message object. */
const char *chatfile_name(const struct node *msg);
/* mes, and its length; "" when absent. */
const char *chatfile_text(const struct node *msg, size_t *len);
bool chatfile_is_user(const struct node *msg);
bool chatfile_is_system(const struct node *msg);

#endif
