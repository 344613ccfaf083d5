/* The placeholders pass: {{NAME}} expanded from [vars] and -v. */
#include "pipeline/rewrite.h"

#include "text/template.h"

static bool
placeholders(const struct rewrite_ctx *cx, const struct entry *e,
    const struct etext *in, struct etext *out)
{
	return template_expand(cx->run, rewrite_profile_of(cx)->vars, in,
	    out);
}

const struct rewrite_pass rewrite_placeholders = {
	"placeholders", ENTRY_TEMPLATE, placeholders, NULL, NULL, 0,
};
