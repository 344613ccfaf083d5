/*
 * The loop state of an [agent] profile: --state FILE.json (layers/agent.h
 * reads it), then the flags that add to it one tool at a time
 * (--prestart TOOL=FILE, --tool-result TOOL=FILE), then -H, whose
 * messages become the dialogue: an agent prompt quotes the recent
 * dialogue in a section instead of sending it as messages.
 */
#include "pipeline/stages.h"

#include <string.h>

#include "base/arena.h"
#include "diag/run.h"

/* TOOL=FILE flags onto *v (which has n calls). */
static bool
tool_files(struct run *run, const struct kv *kvs, size_t nkv,
    struct agent_call **v, size_t *n)
{
	struct agent_call *nv;
	size_t i;
	bool ok = true;

	if (!nkv)
		return true;
	nv = arena_array(&run->arena, *n + nkv + 1, sizeof(*nv));
	if (*n)
		memcpy(nv, *v, *n * sizeof(*nv));
	for (i = 0; i < nkv; i++) {
		struct source *arg = run_source_mem(run, kvs[i].opt,
		    kvs[i].arg, strlen(kvs[i].arg));
		const char *eq = strchr(arg->text, '=');
		struct source *f;
		size_t len;

		if (!eq || eq == arg->text) {
			diag_error(run, arg, span_make(0, arg->len),
			    MSG_AGENT_FLAG, "TOOL");
			ok = false;
			continue;
		}
		len = (size_t)(eq - arg->text);
		f = run_read(run, eq + 1, arg, span_make(len + 1,
		    arg->len - len - 1));
		if (!f) {
			ok = false;
			continue;
		}
		/* Like $(...): a file's final line endings are not part of
		 * the result. */
		while (f->len && (f->text[f->len - 1] == '\n' ||
		    f->text[f->len - 1] == '\r'))
			f->len--;
		nv[*n].tool = arena_strndup(&run->arena, arg->text, len);
		nv[*n].result = f->text;
		nv[*n].rlen = f->len;
		(*n)++;
	}
	*v = nv;
	return ok;
}

/* -H's messages as the dialogue; system texts stay the system base. */
static void
dialogue_from_history(struct run *run, struct inputs *in)
{
	struct agent_state *st = in->state;
	size_t i;

	st->dialogue = arena_array(&run->arena, in->nhist + 1,
	    sizeof(*st->dialogue));
	st->ndialogue = 0;
	for (i = 0; i < in->nhist; i++) {
		const struct message *m = &in->hist[i];
		struct agent_turn *t;

		if (m->role != ROLE_USER && m->role != ROLE_ASSISTANT)
			continue;
		t = &st->dialogue[st->ndialogue++];
		t->role = m->role;
		t->name = m->name;
		t->content = m->content;
		t->len = m->len;
	}
	in->nhist = 0;
}

/* The state's own dialogue gets the clean-up -H gets (cleanup.c). */
static void
clean_dialogue(struct run *run, const struct profile *p, struct inputs *in)
{
	struct agent_state *st = in->state;
	struct message *v = arena_array(&run->arena, st->ndialogue + 1,
	    sizeof(*v));
	size_t i, n = st->ndialogue;

	for (i = 0; i < n; i++) {
		v[i].role = st->dialogue[i].role;
		v[i].name = st->dialogue[i].name;
		v[i].content = st->dialogue[i].content;
		v[i].len = st->dialogue[i].len;
		v[i].origin = ORIGIN_HISTORY;
		v[i].has_src = st->dialogue[i].has_src;
		v[i].src = st->dialogue[i].src;
		v[i].span = st->dialogue[i].span;
	}
	cleanup_history(run, p, in, &v, &n);
	st->dialogue = arena_array(&run->arena, n + 1, sizeof(*st->dialogue));
	for (i = 0; i < n; i++) {
		st->dialogue[i].role = v[i].role;
		st->dialogue[i].name = v[i].name;
		st->dialogue[i].content = v[i].content;
		st->dialogue[i].len = v[i].len;
	}
	st->ndialogue = n;
}

bool
state_read(struct run *run, const struct options *opt,
    const struct profile *p, struct inputs *in)
{
	struct agent_state *st;
	bool ok = true;

	if (!agent_enabled(p)) {
		if (opt->state || opt->nprestarts || opt->ntool_results) {
			diag_plain(run, DIAG_ERROR, MSG_STATE_NO_AGENT, opt->state ? "--state" :
			    opt->nprestarts ? "--prestart" : "--tool-result");
			return false;
		}
		return true;
	}
	st = arena_alloc(&run->arena, sizeof(*st));
	memset(st, 0, sizeof(*st));
	in->state = st;
	if (opt->state) {
		struct source *src = run_read(run, opt->state, NULL,
		    span_make(0, 0));

		if (!src || !agent_state_read(run, src, st))
			return false;
	}
	ok = tool_files(run, opt->prestarts, opt->nprestarts, &st->prestart,
	    &st->nprestart) && ok;
	ok = tool_files(run, opt->tool_results, opt->ntool_results,
	    &st->tools, &st->ntools) && ok;
	if (in->histsrc)
		dialogue_from_history(run, in);
	else if (st->ndialogue)
		clean_dialogue(run, p, in);
	return ok;
}
