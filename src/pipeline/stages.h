/*
 * stages: the steps of the pipeline driver (assemble.c), one file each,
 * shared inside pipeline/ only: inputs.c reads what the command line
 * names (-v, -c, -i, -u; history.c reads -H, inputs_session.c the
 * session, inputs_turn.c the turn's template inputs and the agent
 * prompt), collect.c turns inputs and layers into entries, arrange.c
 * places the active entries into messages.  The rewrite stage has its
 * own header, rewrite.h (the profile build's plan, run by the driver in
 * prompt/rewrite.h that the SillyTavern build shares).  Everything
 * lives in the run's arena.
 */
#ifndef STAGES_H
#define STAGES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "layers/agent.h"
#include "layers/layer.h"
#include "pipeline/assemble.h"
#include "prompt/chat.h"
#include "session/session.h"
#include "text/template.h"

/* What the command line names, read. */
struct inputs {
	struct tvars vars;              /* [vars], then -v */
	struct context_input *contexts;
	struct cli_inject *injects;
	const struct source *user;      /* -u, or NULL */
	struct part *images;            /* --image, for the current turn */
	size_t nimages;
	/* -H: the non-system messages, and the system and developer texts
	 * split out of it. */
	const struct source *histsrc;   /* NULL without -H */
	struct message *hist;
	size_t nhist, histroom;         /* used, and room for */
	struct buf base, devbase;       /* freed by inputs_free() */
	/* --session: the chat file read, or NULL.  Its visible messages
	 * come first in hist, its system texts first in base. */
	struct chatfile *sess;
	bool first_turn;
	int64_t turn;
	/* The agent prompt (inputs_turn.c): on, the scene, and -u as typed
	 * when the user's message went through the templates. */
	bool agent;
	const char *scene;
	const struct source *rawuser;
	const struct node *soul;        /* SOUL.md's front matter, or NULL */
	struct chat_templates *templates;       /* used, for the trace */
	struct agent_state *state;      /* --state and its flags, or NULL */
	struct cleanup_note *cleanups;  /* what cleanup_history() changed */
	size_t ncleanups, capcleanups;
	/* The first history message of each, where the text points. */
	struct span basespan, devspan;
	/* --allow-history-files: the one directory history parts may name
	 * files in (borrowed), or NULL: none. */
	const char *allow_files;
	/* --now, parsed here once for the macros, the tavern build and the
	 * session's new messages; has_now false: the clock. */
	bool has_now;
	int64_t now_ms;
	/* A SillyTavern build's inputs and files (inputs_tavern.c), read
	 * here once; NULL: the profile's own build (the dialect is
	 * chosen from this, after the inputs are read). */
	struct tavern_input *tavern;
	struct tavern_files *tfiles;
	const char *tavern_globals;     /* the global variables file, or
	                                 * NULL */
};

/* The NAME=VALUE arguments, before the profile is loaded. */
bool inputs_split(struct run *run, const struct options *opt,
    struct setting **sets, struct setting **vars, struct setting **ctxs,
    struct setting **injs);
/* Variables, -c files, -u and -H.  Reports every error; false if any. */
bool inputs_read(struct run *run, const struct options *opt,
    const struct profile *p, const struct setting *vars,
    const struct setting *ctxs, const struct setting *injs,
    struct inputs *in);
void inputs_free(struct inputs *in);
/* One -i argument (the whole of src: KEY[@ATTR=VALUE...]=TEXT) into
 * *ci, as build parses it; false after reporting.  strata batch parses
 * its lines' "inject" with it too. */
bool inputs_inject(struct run *run, const struct source *src,
    struct cli_inject *ci);
/* A SillyTavern build's inputs into in->tavern and in->tfiles, when
 * tavern_wanted(); false after reporting. */
bool inputs_tavern(struct run *run, const struct options *opt,
    const struct profile *p, struct inputs *in);
/* The SillyTavern build of the turn in *in (assemble.c): what build
 * does when inputs_tavern() read its inputs.  Its state goes to *out
 * (NULL: dropped). */
struct assemble_out;
bool assemble_tavern(struct run *run, const struct options *opt,
    const struct profile *p, struct inputs *in, struct chat *c,
    struct assemble_out *out);
/* --session (inputs_session.c): read the file into in->sess (a missing
 * file is a new session), before the variables are set... */
bool inputs_session_load(struct run *run, const struct options *opt,
    struct inputs *in);
/* ...then, after -H, put its visible messages before -H's in in->hist,
 * its system texts before -H's in base, and decide the turn. */
bool inputs_session_merge(struct run *run, const struct options *opt,
    struct inputs *in);
/* The session's entries (chat_metadata.strata.entries), into out. */
void collect_session(struct run *run, const struct inputs *in,
    struct entry_vec *out);
/* The turn's template inputs, and the agent prompt's user message. */
bool inputs_turn(struct run *run, const struct options *opt,
    const struct profile *p, struct inputs *in);
/* --input FILE or --data FILE (inputs_turn.c): one JSON object, each
 * member a variable with its JSON value (the Go dot keeps its type);
 * else not_object with kind's name for what the file holds. */
bool inputs_json_vars(struct run *run, const char *path,
    enum diag_msg not_object, const char *(*kind)(enum node_kind),
    struct tvars *v);
/* The agent prompt's system entries (inputs_turn.c). */
void collect_agent(struct run *run, const struct profile *p,
    const struct inputs *in, struct entry_vec *out);
/* -H: the history into in (history.c). */
bool history_read(struct run *run, const char *path, struct inputs *in);
/* A system or developer text of the history (or a session), trimmed,
 * onto the text that becomes the system prompt: b (in->base or
 * in->devbase), after a blank line when b has text already. */
void history_add_system(struct buf *b, const char *text, size_t len);
/* The same from a source already read (strata batch). */
bool history_parse(struct run *run, struct source *src, struct inputs *in);

/* --state, --prestart, --tool-result (state.c); for an [agent] profile
 * the history (-H) becomes the state's dialogue. */
bool state_read(struct run *run, const struct options *opt,
    const struct profile *p, struct inputs *in);

/*
 * The history clean-up (cleanup.c), right after a history is read: the
 * [cleanup] rules applied to v[0..*n) (user and assistant messages,
 * content in the arena or borrowed), each change noted in in.  The
 * result may hold one message more (first_user) or fewer (empty):
 * *v is replaced by a new array with room as history.c gives it.
 */
void cleanup_history(struct run *run, const struct profile *p,
    struct inputs *in, struct message **v, size_t *n);
/* Attached files (media.c): the cap on one, and whether s is a URL
 * (http, https, gs or data) rather than a path. */
#define MEDIA_MAX_MB 20
bool media_is_url(const char *s, size_t n);
/* An image or file part from ref: a URL kept (a data: URL split into its
 * media type and base64 bytes), or a file -- relative to dir unless
 * absolute or dir is NULL -- read, capped, sniffed and base64-encoded.
 * Errors at sp in src. */
bool media_part(struct run *run, const struct source *src, struct span sp,
    enum part_kind kind, const char *ref, size_t reflen, const char *dir,
    const char *media_type, struct part *out);
/* The same for a part that arrived as data (a history, a batch line):
 * a URL, or -- only when allow names a directory (--allow-history-files)
 * -- a regular file inside it once symbolic links and '..' are resolved.
 * Any other path is an error at sp naming the part. */
bool media_data_part(struct run *run, const struct source *src,
    struct span sp, enum part_kind kind, const char *ref, size_t reflen,
    const char *dir, const char *allow, const char *media_type,
    struct part *out);

/* What the layers read of the turn: contexts, injections, the agent
 * state, the user's message (the rest of *li is zeroed). */
void collect_input(struct layer_input *li, const struct options *opt,
    const struct inputs *in);
/* The history's system texts, then every layer's entries, into out
 * (for DIALECT_TAVERN: the layers' entries only, and with the embedded
 * profile only the turn's). */
bool collect(struct run *run, const struct options *opt,
    const struct profile *p, const struct inputs *in, enum dialect d,
    struct entry_vec *out, struct tool_list *tools);

/* The turn step of the driver (assemble.c): collect, rewrite, arrange
 * the inputs in into *c. */
bool assemble_turn(struct run *run, const struct options *opt,
    const struct profile *p, struct inputs *in, struct chat *c);
/* Its second half: the entries collected, and the tools, into *c. */
bool assemble_entries(struct run *run, const struct options *opt,
    const struct profile *p, struct inputs *in, struct entry_vec *entries,
    const struct tool_list *tools, struct chat *c);

/* The same with the profile's own layers collected already (strata
 * batch): copies of fixed[0..nfixed) stand in for them.  Not for an
 * [agent] layout (agent_enabled()), which is collected whole. */
bool collect_turn(struct run *run, const struct options *opt,
    const struct profile *p, const struct inputs *in,
    struct entry *const *fixed, size_t nfixed, struct entry_vec *out);

/* System, developer, the history, the current turn, into c->msgs. */
void arrange(struct run *run, struct chat *c, const struct inputs *in);

#endif
