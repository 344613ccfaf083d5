/*
 * tbuild_rewrite: the SillyTavern dialect's rewrite plan, run by the
 * driver both builds share (prompt/rewrite.h).  Its passes are an
 * item's stages after raw, in order; a pass is its file and one line
 * below.  The record hook keeps each stage's text, and on an item the
 * stage and the regex scripts that made it.
 */
#include "tavern/tbuild_int.h"

#include <string.h>

/* The plan: one line a pass, in the order they run. */
static const struct rewrite_pass *const plan[] = {
	&tb_pass_regex_pre,
	&tb_pass_macros,
	&tb_pass_regex_post,
};

static void
record(const struct rewrite_ctx *cx, const void *what,
    const struct rewrite_pass *pass, const struct etext *in,
    const struct etext *out)
{
	struct tb *t = cx->dialect;
	const struct tb_text *x = what;
	struct item *it;
	unsigned k = pass->stage;
	/* t->fired: what the pass's scripts did (a pass that ran none,
	 * or did not apply, leaves NULL). */
	const char *by = out->s != in->s ? t->fired : NULL;

	t->stage[k] = out->s;
	t->stage_by[k] = by;
	if (x->item == TB_NO_ITEM)
		return;
	tb_item_stage(t, x->item, (enum item_stage)k, out->s);
	it = &t->rep->items[x->item];
	if (k > 0 && it->text[k] != it->text[k - 1])
		it->by[k] = by;
}

void
tb_text_init(struct tb_text *x, unsigned kind, uint32_t item)
{
	memset(x, 0, sizeof(*x));
	x->kind = kind;
	x->item = item;
	x->place = REGEX_USER_INPUT;
	x->depth = REGEX_NO_DEPTH;
	x->chat = -1;
}

const char *
tb_rewrite(struct tb *t, const struct tb_text *x, enum item_stage from,
    enum item_stage to, const char *s)
{
	struct etext in, out;

	if (!s)
		return s;
	if (!t->rw.run) {
		t->rw.run = t->run;
		t->rw.dialect = t;
		t->rw.record = record;
		t->plan.passes = plan;
		t->plan.n = LEN(plan);
	}
	in.s = s;
	in.len = strlen(s);
	in.segs = NULL;
	in.nsegs = 0;
	/* The passes report their own errors and keep going, as
	 * SillyTavern's do: the text is what they made of it. */
	(void)rewrite_text(&t->rw, &t->plan, from, to, x->kind, x, &in,
	    &out);
	return out.s;
}

const char *
tb_macros(struct tb *t, uint32_t it, const char *asset, const char *s)
{
	struct tb_text x;

	tb_text_init(&x, TB_MACROS, it);
	x.asset = asset;
	return tb_rewrite(t, &x, ITEM_STAGE_MACROS, ITEM_STAGE_REGEX_POST, s);
}

const char *
tb_chat_post(struct tb *t, size_t i)
{
	struct tb_text x;

	tb_text_init(&x, TB_PROMPT, TB_NO_ITEM);
	x.place = tb_placement(&t->chat.msgs[i]);
	x.chat = (long)i;
	return tb_rewrite(t, &x, ITEM_STAGE_REGEX_POST, ITEM_STAGE_REGEX_POST,
	    t->rx_text[i]);
}

const char *
tb_stored(struct tb *t, size_t i, enum regex_placement place,
    const char *asset, const char *raw)
{
	struct tb_text x;
	const char *s;

	tb_text_init(&x, TB_STORED | TB_MACROS, TB_NO_ITEM);
	x.asset = asset;
	x.place = place;
	s = tb_rewrite(t, &x, ITEM_STAGE_REGEX_PRE, ITEM_STAGE_MACROS, raw);

	t->craw[i] = raw;
	t->cpre[i] = t->stage[ITEM_STAGE_REGEX_PRE];
	t->cpre_by[i] = t->stage_by[ITEM_STAGE_REGEX_PRE];
	return s;
}
