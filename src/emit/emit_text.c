/*
 * A plain transcript for people and for tools that take text: each
 * message under a "=== role ===" line (a tool result says which call),
 * its images and files and tool calls a bracketed line each, then the
 * tools by name.
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
		if (m->x && m->x->call_id)
			buf_printf(out, " (result of %s %s%s)",
			    m->x->call_name, m->x->call_id, m->x->is_error ?
			    ", an error" : "");
		buf_puts(out, " ===\n");
		buf_put(out, m->content, m->len);
		if (m->len || !m->x)
			buf_putc(out, '\n');
		emit_extra_text(out, m);
	}
	if (c->tools.n) {
		buf_puts(out, c->n ? "\n=== tools ===\n" : "=== tools ===\n");
		for (i = 0; i < c->tools.n; i++)
			buf_printf(out, "%s\n", c->tools.items[i]->name);
	}
	return true;
}
