/*
 * The pipeline driver: load, read the inputs, collect, rewrite the
 * entries, let the stack decide what is in, arrange, rewrite the
 * messages.  Each step reports all its errors; the driver stops after a
 * step that had any.
 */
#include "pipeline/assemble.h"

#include <string.h>

#include "base/arena.h"
#include "diag/run.h"
#include "pipeline/rewrite.h"
#include "pipeline/stages.h"

static void
check_warnings(struct run *run, struct chat *c, struct tvars *vars)
{
	size_t i;

	for (i = 0; i < template_nvars(vars); i++) {
		const struct tvar *t = template_var_at(vars, i);

		if (!t->used && t->src)
			diag_warning(run, t->src, t->span, MSG_UNUSED_VAR,
			    t->name);
	}
	for (i = 0; i < c->stack.nall; i++) {
		const struct entry *e = c->stack.all[i], *by = e->replaced_by;

		if (e->status != ENTRY_REPLACED || strcmp(e->layer, "inject") ||
		    strcmp(by->layer, "inject"))
			continue;
		diag_warning(run, run_source(run, by->src), by->span,
		    MSG_INJECT_REPLACED, e->key);
		diag_note(run, run_source(run, e->src), e->span,
		    MSG_FIRST_HERE);
	}
}

static void
output(struct chat *c, const struct options *opt, const struct profile *p)
{
	c->profile = p;
	c->format = p->has_output ? p->output : FORMAT_OPENAI;
	if (opt->format)
		names_format_parse(opt->format, &c->format);
	c->model = p->model.s;
	c->params = p->params;
	c->max_tokens = p->max_tokens;
}

bool
assemble_load(struct run *run, const struct options *opt,
    struct assembly *as)
{
	struct setting *sets;

	memset(as, 0, sizeof(*as));
	if (!inputs_split(run, opt, &sets, &as->vars, &as->ctxs, &as->injs))
		return false;
	as->profile = profile_load(run, opt->profile, sets, opt->nsets);
	return as->profile != NULL;
}

bool
assemble_entries(struct run *run, const struct options *opt,
    const struct profile *p, struct inputs *in, struct entry_vec *entries,
    const struct tool_list *tools, struct chat *c)
{
	struct rewrite_plan plan;
	struct rewrite_ctx cx;
	size_t i;

	memset(c, 0, sizeof(*c));
	stack_init(&c->stack, &run->arena);
	output(c, opt, p);
	c->tools = *tools;
	cx.run = run;
	cx.profile = p;
	cx.vars = &in->vars;
	rewrite_plan_for(p, &plan);
	if (!rewrite_entries(&cx, &plan, entries->v, entries->n))
		return false;
	/* Only now is an entry's text final: offer them in order, so an
	 * entry that expands to nothing is skipped, not live. */
	for (i = 0; i < entries->n; i++)
		stack_add(&c->stack, entries->v[i]);
	if (opt->check_only)
		check_warnings(run, c, &in->vars);
	arrange(run, c, in);
	return rewrite_messages(&cx, &plan, c);
}

bool
assemble_turn(struct run *run, const struct options *opt,
    const struct profile *p, struct inputs *in, struct chat *c)
{
	struct entry_vec entries = { NULL, 0, 0 };
	struct tool_list tools;

	memset(c, 0, sizeof(*c));
	memset(&tools, 0, sizeof(tools));
	if (!collect(run, opt, p, in, &entries, &tools))
		return false;
	return assemble_entries(run, opt, p, in, &entries, &tools, c);
}

bool
assemble(struct run *run, const struct options *opt, struct chat *c)
{
	struct assembly as;
	struct inputs in;
	bool ok;

	memset(c, 0, sizeof(*c));
	if (!assemble_load(run, opt, &as))
		return false;
	ok = inputs_read(run, opt, as.profile, as.vars, as.ctxs, as.injs,
	    &in) && assemble_turn(run, opt, as.profile, &in, c);
	inputs_free(&in);
	return ok;
}
