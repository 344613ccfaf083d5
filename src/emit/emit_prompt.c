/*
 * Texts for agent CLIs (codex exec, claude -p, llm), which keep the
 * conversation themselves and take one prompt, or a system text and a
 * user text:
 *
 *   prompt  the first turn: the system part, a blank line, the user
 *           part; a resumed turn: the [prompt] prefix (sent on every
 *           turn), a blank line, the user part -- nothing else;
 *   system  the system part: the system and developer messages;
 *   user    the user part: the current user turn.
 *
 * Each ends with one newline; an empty part prints nothing.
 */
#include "emit/emit.h"

#include <string.h>

#include "base/buf.h"
#include "prompt/chat.h"

/* The current turn: the last message, when the user's. */
static const struct message *
user_part(const struct chat *c)
{
	const struct message *m = c->n ? &c->msgs[c->n - 1] : NULL;

	return m && m->role == ROLE_USER && m->origin != ORIGIN_SYSTEM &&
	    m->origin != ORIGIN_DEVELOPER ? m : NULL;
}

/* The prefix entry's text, when it made it in. */
static const struct entry *
prefix(const struct chat *c)
{
	size_t i;

	for (i = 0; i < c->stack.nall; i++) {
		const struct entry *e = c->stack.all[i];

		if (e->status == ENTRY_ACTIVE &&
		    strcmp(e->key, "prefix") == 0 &&
		    strcmp(e->layer, "prompt") == 0)
			return e;
	}
	return NULL;
}

static void
part(struct buf *out, const char *s, size_t len)
{
	if (!len)
		return;
	if (out->len)
		buf_putc(out, '\n');
	buf_put(out, s, len);
	buf_putc(out, '\n');
}

bool
emit_prompt(struct run *run, const struct chat *c, struct buf *out)
{
	const struct message *u = user_part(c);
	const struct entry *p;
	const char *sys;
	size_t len;

	if (c->first_turn) {
		sys = emit_system_text(run, c, &len);
		part(out, sys, len);
	} else if ((p = prefix(c))) {
		part(out, p->content, p->len);
	}
	if (u)
		part(out, u->content, u->len);
	return true;
}

bool
emit_system(struct run *run, const struct chat *c, struct buf *out)
{
	size_t len;
	const char *sys = emit_system_text(run, c, &len);

	part(out, sys, len);
	return true;
}

bool
emit_user(struct run *run, const struct chat *c, struct buf *out)
{
	const struct message *u = user_part(c);

	(void)run;
	if (u)
		part(out, u->content, u->len);
	return true;
}
