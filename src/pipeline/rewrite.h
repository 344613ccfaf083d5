/*
 * rewrite: the profile build's rewrite plan -- its passes over the
 * entries' texts (before arrange decides what is in: a text that
 * expands to nothing is skipped, as an empty one is) and over the
 * arranged messages, run by the driver both dialects share
 * (prompt/rewrite.h).  Today's plan is two entry passes: placeholders
 * ({{NAME}}, text/template.h) and tidy (CRLF to LF for prompt files,
 * then trim).  A pass is its file here (rewrite_*.c) and one line in
 * the plan in rewrite.c; the SillyTavern build's plan is tavern/
 * tbuild_rewrite.c.  The context lives on the caller's stack and
 * borrows the profile and the variables.
 */
#ifndef PIPELINE_REWRITE_H
#define PIPELINE_REWRITE_H

#include "prompt/rewrite.h"

struct profile;
struct tvars;

/* What the profile build's passes read besides the text: cx.dialect
 * points at the whole, so a pass's cx is one of these. */
struct rewrite_profile {
	struct rewrite_ctx cx;
	const struct profile *profile;
	struct tvars *vars;     /* [vars] and -v; passes mark use */
};

/* Fill px for a build of profile p with variables vars. */
void rewrite_profile_init(struct rewrite_profile *px, struct run *run,
    const struct profile *p, struct tvars *vars);
/* The profile build's state a pass of its plan reads. */
const struct rewrite_profile *rewrite_profile_of(
    const struct rewrite_ctx *cx);

/* The passes of the standard plan. */
extern const struct rewrite_pass rewrite_placeholders;
extern const struct rewrite_pass rewrite_tidy;

/* The plan for profile p (today the same for every profile). */
void rewrite_plan_for(const struct profile *p, struct rewrite_plan *plan);

#endif
