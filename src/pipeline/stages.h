/*
 * stages: the steps of the pipeline driver (assemble.c), one file each,
 * shared inside pipeline/ only: inputs.c reads what the command line
 * names (-v, -c, -i, -u; history.c reads -H), collect.c turns inputs and layers into
 * entries, arrange.c places the active entries into messages.  The
 * rewrite stage has its own header, rewrite.h, because later passes plug
 * into it.  Everything lives in the run's arena.
 */
#ifndef STAGES_H
#define STAGES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "layers/layer.h"
#include "pipeline/assemble.h"
#include "prompt/chat.h"
#include "text/template.h"

/* What the command line names, read. */
struct inputs {
	struct tvars vars;              /* [vars], then -v */
	struct context_input *contexts;
	struct cli_inject *injects;
	const struct source *user;      /* -u, or NULL */
	/* -H: the non-system messages, and the system and developer texts
	 * split out of it. */
	const struct source *histsrc;   /* NULL without -H */
	struct message *hist;
	size_t nhist, histroom;         /* used, and room for */
	struct buf base, devbase;       /* freed by inputs_free() */
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
/* -H: the history into in (history.c). */
bool history_read(struct run *run, const char *path, struct inputs *in);
/* The same from a source already read (strata batch). */
bool history_parse(struct run *run, struct source *src, struct inputs *in);

/* The history's system texts, then every layer's entries, into out. */
bool collect(struct run *run, const struct options *opt,
    const struct profile *p, const struct inputs *in,
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
 * batch): copies of fixed[0..nfixed) stand in for them. */
bool collect_turn(struct run *run, const struct options *opt,
    const struct profile *p, const struct inputs *in,
    struct entry *const *fixed, size_t nfixed, struct entry_vec *out);

/* System, developer, the history, the current turn, into c->msgs. */
void arrange(struct run *run, struct chat *c, const struct inputs *in);

#endif
