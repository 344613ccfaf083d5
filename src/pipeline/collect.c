/* Collect: the history's system texts and every layer's entries, with
 * their raw text, in the order they are offered to the stack. */
#include "pipeline/stages.h"

#include <limits.h>
#include <string.h>

#include "base/arena.h"
#include "base/vec.h"
#include "diag/run.h"

static void
add_base(struct run *run, struct entry_vec *out, const struct buf *b,
    enum role role, const struct source *src, struct span at)
{
	struct entry *e;

	if (!b->len)
		return;
	e = entry_new(&run->arena, role == ROLE_SYSTEM ? "history.system" :
	    "history.developer", "history");
	e->base = true;
	e->role = role;
	e->priority = INT_MIN + 1;      /* right after the prefix */
	entry_set_raw(&run->arena, e, arena_strndup(&run->arena, b->data,
	    b->len), b->len, src->id, at, false);
	avec_push(&run->arena, out, e);
}

bool
collect_turn(struct run *run, const struct options *opt,
    const struct profile *p, const struct inputs *in,
    struct entry *const *fixed, size_t nfixed, struct entry_vec *out)
{
	struct layer_input li;
	size_t i;

	if (in->histsrc) {
		add_base(run, out, &in->base, ROLE_SYSTEM, in->histsrc,
		    in->basespan);
		add_base(run, out, &in->devbase, ROLE_DEVELOPER, in->histsrc,
		    in->devspan);
	}
	/* The rewrite and the stack write into an entry: each turn gets
	 * copies. */
	for (i = 0; i < nfixed; i++) {
		struct entry *e = arena_alloc(&run->arena, sizeof(*e));

		*e = *fixed[i];
		avec_push(&run->arena, out, e);
	}
	collect_input(&li, opt, in);
	if (!layer_collect_turn(run, p, &li, out))
		return false;
	/* Then what collect() adds after the layers. */
	collect_agent(run, p, in, out);
	collect_session(run, in, out);
	return true;
}

void
collect_input(struct layer_input *li, const struct options *opt,
    const struct inputs *in)
{
	memset(li, 0, sizeof(*li));
	li->contexts = in->contexts;
	li->ncontexts = opt->ncontexts;
	li->injects = in->injects;
	li->ninjects = opt->ninjects;
	li->check_only = opt->check_only;
	li->state = in->state;
	li->user = in->user;
}

bool
collect(struct run *run, const struct options *opt, const struct profile *p,
    const struct inputs *in, enum dialect d, struct entry_vec *out,
    struct tool_list *tools)
{
	struct layer_input li;

	/* SillyTavern's history is its chat, a session's messages are in
	 * it, and the agent prompt is not its layout; the embedded profile
	 * gives it no persona, format or tools of its own, only the turn's
	 * (-i, --context). */
	if (in->histsrc && d == DIALECT_PROFILE) {
		add_base(run, out, &in->base, ROLE_SYSTEM, in->histsrc,
		    in->basespan);
		add_base(run, out, &in->devbase, ROLE_DEVELOPER, in->histsrc,
		    in->devspan);
	}
	collect_input(&li, opt, in);
	if (d == DIALECT_TAVERN && p->embedded)
		return layer_collect_turn(run, p, &li, out);
	if (!layer_collect(run, p, &li, out, tools))
		return false;
	if (d == DIALECT_TAVERN)
		return true;
	collect_agent(run, p, in, out);
	collect_session(run, in, out);
	return true;
}
