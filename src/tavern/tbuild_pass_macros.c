/*
 * The macros pass: SillyTavern's substituteParams on a text, with the
 * build's macro environment; the macros' cost-cap diagnostics name the
 * text's asset.  On main and jailbreak the card's override is
 * substituted in its place, with {{original}} the text.
 */
#include "tavern/tbuild_int.h"

#include <string.h>

static bool
macros(const struct rewrite_ctx *cx, const void *what,
    const struct etext *in, struct etext *out)
{
	struct tb *t = cx->dialect;
	const struct tb_text *x = what;
	const char *was = t->env.asset, *r;

	if (x->asset)
		t->env.asset = x->asset;
	r = macro_expands(t->run, &t->env, in->s);
	t->env.asset = was;
	if (x->over)
		r = macro_expand(t->run, &t->env, x->over, strlen(x->over), r);
	/* No script made this stage. */
	t->fired = NULL;
	*out = *in;
	out->s = r;
	out->len = strlen(r);
	return true;
}

const struct rewrite_pass tb_pass_macros = {
	.name = "macros", .applies = TB_MACROS, .text = macros,
	.stage = ITEM_STAGE_MACROS,
};
