/*
 * One turn from texts in memory: the same inputs inputs.c reads from the
 * command line, built from a struct turn, then the driver's turn step.
 */
#include "pipeline/turn.h"

#include <string.h>

#include "base/arena.h"
#include "diag/run.h"
#include "pipeline/stages.h"
#include "tavern/tbuild.h"

bool
assemble_prime(struct run *run, const struct options *opt,
    const struct assembly *as, struct turn_prime *pr)
{
	struct entry_vec entries = { NULL, 0, 0 };
	bool ok;

	(void)opt;
	memset(pr, 0, sizeof(*pr));
	run->readcache_fill = true;
	ok = layer_collect_profile(run, as->profile, &entries, &pr->tools);
	run->readcache_fill = false;
	pr->entries = entries.v;
	pr->n = entries.n;
	return ok;
}

static struct source *
text_source(struct run *run, const struct turn *t, const char *what,
    const char *s, size_t len)
{
	return run_source_mem(run, arena_printf(&run->arena, "%s %s",
	    t->where, what), s, len);
}

static bool
injects(struct run *run, const struct turn *t, struct inputs *in)
{
	size_t i;
	bool ok = true;

	in->injects = arena_array(&run->arena, t->ninjects + 1,
	    sizeof(*in->injects));
	/* The syntax, priorities and places of build's -i. */
	for (i = 0; i < t->ninjects; i++) {
		const struct turn_kv *kv = &t->injects[i];
		const struct source *src = text_source(run, t, "inject",
		    kv->text, kv->textlen);

		if (!inputs_inject(run, src, &in->injects[i]))
			ok = false;
	}
	return ok;
}

bool
assemble_mem(struct run *run, const struct options *opt,
    const struct assembly *as, const struct turn_prime *pr,
    const struct turn *t, struct chat *c)
{
	struct entry_vec entries = { NULL, 0, 0 };
	struct options lopt = *opt;
	struct inputs in;
	size_t i;
	bool ok;

	memset(c, 0, sizeof(*c));
	lopt.user = lopt.history = NULL;
	lopt.ncontexts = lopt.ninjects = 0;
	/* The user message and the history are read where build reads -u
	 * and -H: before the history's cleanup, the session, the turn's
	 * inputs (first_turn, the agent prompt) and, for a [tavern]
	 * profile, the sandbox that makes the history the chat. */
	lopt.user_src = text_source(run, t, "user", t->user, t->userlen);
	lopt.history_src = t->history ? text_source(run, t, "history",
	    t->history, t->historylen) : NULL;
	if (!inputs_read(run, &lopt, as->profile, as->vars, as->ctxs,
	    as->injs, &in)) {
		inputs_free(&in);
		return false;
	}
	lopt.ncontexts = t->ncontexts;
	lopt.ninjects = t->ninjects;
	for (i = 0; i < t->nvars; i++) {
		const struct turn_kv *kv = &t->vars[i];

		template_var(run, &in.vars, arena_strndup(&run->arena,
		    kv->name, kv->namelen), kv->text, kv->textlen, NULL,
		    span_make(0, 0));
	}
	in.contexts = arena_array(&run->arena, t->ncontexts + 1,
	    sizeof(*in.contexts));
	for (i = 0; i < t->ncontexts; i++) {
		const struct turn_kv *kv = &t->contexts[i];
		struct context_input *ci = &in.contexts[i];

		ci->name = arena_strndup(&run->arena, kv->name, kv->namelen);
		ci->arg = text_source(run, t, "context", kv->name,
		    kv->namelen);
		ci->namespan = span_make(0, kv->namelen);
		ci->text = text_source(run, t, ci->name, kv->text,
		    kv->textlen);
	}
	ok = injects(run, t, &in);
	/* A profile with a [tavern] table builds as build builds it: the
	 * SillyTavern assembly, the profile's own entries among its
	 * prompts. */
	if (in.tavern)
		ok = ok && assemble_tavern(run, &lopt, as->profile, &in, c,
		    NULL);
	/* An [agent] layout reads the turn (its user message, the state):
	 * nothing of it is fixed, it is collected whole as build does. */
	else if (agent_enabled(as->profile))
		ok = ok && assemble_turn(run, &lopt, as->profile, &in, c);
	else
		ok = ok && collect_turn(run, &lopt, as->profile, &in,
		    pr->entries, pr->n, &entries) &&
		    assemble_entries(run, &lopt, as->profile, &in, &entries,
		    &pr->tools, c);
	inputs_free(&in);
	return ok;
}
