/*
 * A plain transcript for people and for tools that take text: each
 * message under a "=== role ===" line, then the tools by name.
 */
#include "emit/emit.h"

#include "base/buf.h"
#include "prompt/chat.h"

bool
emit_text(struct run *run, const struct chat *c, struct buf *out)
{
	size_t i;

	(void)run;
	for (i = 0; i < c->n; i++) {
		const struct message *m = &c->msgs[i];

		if (i)
			buf_putc(out, '\n');
		buf_printf(out, "=== %s", names_role(m->role));
		if (m->name)
			buf_printf(out, " (%s)", m->name);
		buf_puts(out, " ===\n");
		buf_put(out, m->content, m->len);
		buf_putc(out, '\n');
	}
	if (c->tools.n) {
		buf_puts(out, c->n ? "\n=== tools ===\n" : "=== tools ===\n");
		for (i = 0; i < c->tools.n; i++)
			buf_printf(out, "%s\n", c->tools.items[i]->name);
	}
	return true;
}
