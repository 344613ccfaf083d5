/*
 * The regex passes (the scripts themselves: tbuild_regex.c).
 * regex-pre: on a message entering the chat, the scripts of its
 * placement that change the text stored, before its macros.
 * regex-post: on a text as the prompt takes it, the prompt-time scripts
 * at its depth; a chat message's result is made once (rx_at()),
 * world info and the history sharing it, as SillyTavern's one call.
 * Each leaves in t->fired the scripts that changed the text.
 */
#include "tavern/tbuild_int.h"

#include <string.h>

static void
put(const struct etext *in, const char *s, struct etext *out)
{
	*out = *in;
	out->s = s;
	out->len = s == in->s ? in->len : strlen(s);
}

static bool
regex_pre(const struct rewrite_ctx *cx, const void *what,
    const struct etext *in, struct etext *out)
{
	const struct tb_text *x = what;

	put(in, tb_regex(cx->dialect, x->place, false, REGEX_NO_DEPTH,
	    in->s), out);
	return true;
}

const struct rewrite_pass tb_pass_regex_pre = {
	.name = "regex-pre", .applies = TB_STORED, .text = regex_pre,
	.stage = ITEM_STAGE_REGEX_PRE,
};

/* Chat message j after the prompt-time regex at its depth, with its
 * reasoning in front when the prompt takes it; made once. */
static const char *
rx_at(struct tb *t, size_t j)
{
	if (!t->rx_out[j]) {
		t->rx_out[j] = tb_regex(t, tb_placement(&t->chat.msgs[j]),
		    true,
		    (int)(t->nrx - 1 - j) - t->rx_shift, t->rx_text[j]);
		t->rx_by[j] = tb_fired(t);
		if (t->reason && t->reason[j])
			t->rx_out[j] = *t->rx_out[j] || !t->reason_bare[j] ?
			    arena_printf(&t->run->arena, "%s%s",
			    t->reason[j], t->rx_out[j]) : t->reason_bare[j];
	}
	t->fired = t->rx_by[j];
	return t->rx_out[j];
}

static bool
regex_post(const struct rewrite_ctx *cx, const void *what,
    const struct etext *in, struct etext *out)
{
	struct tb *t = cx->dialect;
	const struct tb_text *x = what;

	put(in, x->chat >= 0 ? rx_at(t, (size_t)x->chat) :
	    tb_regex(t, x->place, true, x->depth, in->s), out);
	return true;
}

const struct rewrite_pass tb_pass_regex_post = {
	.name = "regex-post", .applies = TB_PROMPT, .text = regex_post,
	.stage = ITEM_STAGE_REGEX_POST,
};
