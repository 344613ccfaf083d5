/*
 * session: a conversation that lasts across runs, kept in one
 * SillyTavern chat file (chatfile.h) so that SillyTavern can open it and
 * strata can continue a SillyTavern chat.  What SillyTavern has fields
 * for is kept in them (name, is_user, is_system, send_date, mes, swipes,
 * chat_metadata.variables); strata's own state sits where SillyTavern
 * ignores it:
 *
 *   chat_metadata.strata = {"turn": N, "entries": [ENTRY...],
 *                           "profile_fingerprint": FP, "thread_id": ID}
 *       turn     turns completed (a reply ends a turn)
 *       profile_fingerprint  of the profile of the last build that
 *                wrote (session_profile_fp)
 *       thread_id  a UUID given once, on strata's first write
 *       entries  PromptStack entries of scope session or turn:
 *                {"key","content","priority","role","scope"}
 *   message.extra.strata = {"role": "tool"|"developer",
 *                           "tool_calls": [{"id","name","arguments"}],
 *                           "tool_call_id": ID, "is_error": BOOL,
 *                           "media": [{"media_type","path"}...]}
 *
 * A message's images are where SillyTavern 1.15 keeps them, so that it
 * shows them: extra.media = [{"url","type":"image"}...] (a local file as
 * a data: URL), extra.inline_image and extra.media_display; what it has
 * no field for (the media type of a plain URL, the file an image was
 * read from) is in extra.strata.media, one object per extra.media item.
 * Older chats' extra.image (one URL) and extra.file ({url,name,text})
 * are read too.
 *
 * Every change is made by session_update(): under an exclusive lock on
 * the file, the file is read afresh (never a stale copy), changed, and
 * replaced atomically (file.h), so a crash leaves the old or the new
 * file and concurrent writers all land.  A file that does not parse is
 * reported at its line and never written over.
 *
 * Ownership: everything read lives in the run's arena.
 */
#ifndef SESSION_H
#define SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/file.h"
#include "prompt/names.h"
#include "session/chatfile.h"

struct arena;
struct node;
struct part;
struct run;

/* Read path; a missing or empty file is a new session (*exists false). */
bool session_load(struct run *run, const char *path, struct chatfile *c,
    bool *exists);

/*
 * Change the session at path: lock it, read it, call fn, and if fn
 * returns true write the result atomically.  A missing file is created
 * only when fn succeeds.  Reports and returns false on any failure; the
 * file is then unchanged.
 */
typedef bool session_fn(struct run *run, struct chatfile *c, void *arg);
bool session_update(struct run *run, const char *path, session_fn *fn,
    void *arg);

/*
 * A session held locked across a whole read-build-write (build
 * --session): session_hold() locks it before anything is read,
 * session_hold_read() reads it once for the build, then
 * session_update_held() writes under the same lock, and session_release()
 * lets the next writer in (removing the file if the hold created it and
 * nothing was written).  Reports and returns false on failure.
 *
 * The path (here and in session_update()) is resolved one way: a
 * symbolic link is followed and its target replaced atomically in the
 * target's directory; a dangling link is an error, so nothing is ever
 * created outside the named path's directory.
 */
struct session_hold {
	struct file_lock lk;
	const char *path;       /* resolved, in the run's arena */
	bool created, written;
	/* The file as session_hold_read() read it under the lock, or NULL
	 * (not read, or written since): session_update_held() works on
	 * these bytes instead of reading the file again. */
	const struct source *src;
	/* The file's identity, size and time when src was read: a turn is
	 * not written over a file something else changed since. */
	unsigned long long dev, ino, size;
	long long mtime_s, mtime_ns;
};
bool session_hold(struct run *run, const char *path, struct session_hold *h);
/* Read the held file once, as a source named shown (the path as the
 * user gave it), into h->src: a build reads its session from it, and
 * the turn is written over the same bytes. */
bool session_hold_read(struct run *run, struct session_hold *h,
    const char *shown);
bool session_update_held(struct run *run, struct session_hold *h,
    session_fn *fn, void *arg);
void session_release(struct session_hold *h);

/* A message object as SillyTavern writes one. */
struct node *session_message(struct arena *a, enum role role,
    const char *name, const char *text, size_t len, int64_t now_ms);
/* Put the image parts of parts[0..n) in msg's extra (see above); path[i]
 * is the local file part i was read from, or NULL. */
void session_put_media(struct arena *a, struct node *msg,
    const struct part *parts, const char *const *path, size_t n);
/* msg's content parts -- mes as a text part, then its images and files --
 * into *out and *n, or 0 (and *out NULL) when it has none but mes.
 * Images at a URL that is not http(s), gs or data (a SillyTavern server
 * path) are left out.  A data: URL not of the form data:TYPE;base64,BYTES
 * or of a media type no provider takes (part_media_ok), or a media
 * entry's non-string "type", is an error at its span in src: false. */
bool session_parts(struct run *run, const struct source *src,
    const struct node *msg, const struct part **out, size_t *n);
/* The name of the last message from the user (is_user true) or from the
 * character, or dflt. */
const char *session_last_name(const struct chatfile *c, bool user,
    const char *dflt);

/* chat_metadata.variables, created if missing. */
struct node *session_vars_mut(struct run *run, struct chatfile *c);
/* chat_metadata.strata, created if missing. */
struct node *session_state_mut(struct run *run, struct chatfile *c);
/* Turns completed. */
int64_t session_turn(const struct chatfile *c);
/* End a turn: the counter goes up and turn-scope entries go. */
void session_end_turn(struct run *run, struct chatfile *c);
/* Drop the entries of scope (SCOPE_SESSION or SCOPE_TURN); returns how
 * many went. */
size_t session_clear(struct run *run, struct chatfile *c, enum scope scope);

/* The fingerprint of a profile: "fnv1a64:" and the FNV-1a 64 of its
 * merged tree (--set overrides applied) written as compact JSON. */
const char *session_profile_fp(struct arena *a, const struct node *root);
/* Warn, at the stored value, when the session's profile_fingerprint is
 * not fp: it was built with another profile. */
void session_check_profile(struct run *run, const struct chatfile *c,
    const char *path, const char *fp);
/* Store fp as the session's profile_fingerprint. */
void session_set_profile(struct run *run, struct chatfile *c,
    const char *fp);
/* Give the session its thread_id unless it has one: a version-4 UUID
 * derived from seed (--seed) or else now (--now) when either is given,
 * else random.  One that is not a string is warned about at its span and
 * replaced. */
void session_thread(struct run *run, struct chatfile *c, const char *seed,
    const char *now);
/* chat_metadata.strata's member key when it is a string, else NULL. */
const char *session_state_str(const struct chatfile *c, const char *key);

/*
 * What build --session appends to its session (session_turn.c): the
 * profile's fingerprint and the thread id, a SillyTavern build's state
 * (a new chat's greeting, the variables its macros changed, the timed
 * world-info state), the entries the command line added with scope
 * session or turn, and the user's message with its images.  Everything
 * is borrowed; thread is filled in.
 */
struct chat;
struct session_turn {
	const struct chat *chat;        /* the build */
	const char *seed, *now;         /* --seed, --now as typed, or NULL */
	int64_t now_ms;                 /* the new messages' send_date */
	/* A SillyTavern build's (NULL for a profile build): a new chat's
	 * first message and who says it, the chat variables its macros
	 * changed, chat_metadata.timedWorldInfo after the scan, and the
	 * message typed as the chat keeps it, with the persona's name. */
	const char *greeting, *char_name;
	/* A new group chat's further greetings (after greeting) and who
	 * says each. */
	const char *const *more_greetings, *const *more_names;
	size_t nmore;
	const struct node *vars_changed, *timed;
	const char *user, *user_name;
	/* --image: each of the turn's images as given, in order (a local
	 * file is remembered by its path). */
	const char *const *images;
	size_t nimages;
	const char *thread;             /* out: the session's thread_id */
};
/* Append t's turn to the held session, under its lock.  Reports and
 * returns false on failure; the file is then unchanged. */
bool session_save_turn(struct run *run, struct session_hold *h,
    struct session_turn *t);

/* The role a message plays in a prompt: extra.strata.role, else
 * SillyTavern's rules (is_user: user; extra.type narrator: system;
 * otherwise assistant).  is_system messages are hidden from prompts:
 * *hidden says so. */
enum role session_role(const struct node *msg, bool *hidden);

#endif
