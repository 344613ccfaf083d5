#include "layers/compose.h"

#include "base/buf.h"

void
compose_entries(struct buf *out, enum style style, struct entry **v,
    size_t n, size_t *starts)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct entry *e = v[i];

		if (i)
			buf_puts(out, style == STYLE_SECTIONS ?
			    "\n\n---\n\n" : "\n\n");
		if (!e->base) {
			if (style == STYLE_MARKDOWN)
				buf_printf(out, "## %s\n", e->key);
			else if (style == STYLE_SECTIONS)
				buf_printf(out, "**%s**\n", e->title);
			else if (style == STYLE_TAGGED)
				buf_printf(out, "<%s>\n", e->key);
		}
		if (starts)
			starts[i] = out->len;
		buf_put(out, e->content, e->len);
		if (!e->base && style == STYLE_TAGGED)
			buf_printf(out, "\n</%s>", e->key);
	}
}
