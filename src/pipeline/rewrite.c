#include "pipeline/rewrite.h"

#include <string.h>

/* The profile build's plan: one line a pass, in the order they run. */
static const struct rewrite_pass *const standard[] = {
	&rewrite_placeholders,
	&rewrite_tidy,
};

void
rewrite_profile_init(struct rewrite_profile *px, struct run *run,
    const struct profile *p, struct tvars *vars)
{
	memset(px, 0, sizeof(*px));
	px->cx.run = run;
	px->cx.dialect = px;
	px->profile = p;
	px->vars = vars;
}

const struct rewrite_profile *
rewrite_profile_of(const struct rewrite_ctx *cx)
{
	return cx->dialect;
}

void
rewrite_plan_for(const struct profile *p, struct rewrite_plan *plan)
{
	plan->passes = standard;
	plan->n = sizeof(standard) / sizeof(standard[0]);
}
