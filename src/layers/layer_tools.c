/* Tools: the definitions go to the request's tools array; their prose
 * (prompt/tool.h) is one entry, "tools". */
#include "layers/layer_int.h"

#include "base/arena.h"
#include "base/buf.h"
#include "data/load.h"
#include "data/tree.h"
#include "diag/run.h"
#include "prompt/tool.h"
#include "layers/tool_prose.h"

bool
layer_tools(struct run *run, const struct profile *p, struct entry_vec *out,
    struct tool_list *list)
{
	struct buf b = BUF_INIT;
	struct entry *e;
	size_t i;
	bool ok = true;

	for (i = 0; i < p->ntools; i++) {
		const struct ptool *t = &p->tools[i];
		struct source *src;
		struct node *def;
		enum load_format fmt;

		if (t->def) {
			if (!tool_read(run, t->def, list))
				ok = false;
			continue;
		}
		fmt = load_format_of(t->file.s);
		if (fmt == LOAD_GUESS)
			fmt = LOAD_JSON;
		src = profile_open(run, p, &t->file);
		if (!src || !load_source(run, src, fmt, &def) ||
		    !tool_read(run, def, list))
			ok = false;
	}
	if (!ok || list->n == 0)
		return ok;
	/* The plain style has no headings of its own: give the section
	 * one, as the five-layer prompt does. */
	if (p->style == STYLE_PLAIN)
		buf_printf(&b, "## %s\n\n", p->labels[LABEL_TOOLS]);
	tool_prose(&b, list, p->labels);
	e = entry_new(&run->arena, "tools", "tools");
	e->title = p->labels[LABEL_TOOLS];
	e->priority = PRIO_TOOLS;
	e->scope = SCOPE_GLOBAL;
	entry_set_raw(&run->arena, e, arena_strndup(&run->arena,
	    b.data ? b.data : "", b.len), b.len, p->tools[0].node->src,
	    p->tools[0].node->span, false);
	layer_push(run, out, e);
	buf_free(&b);
	return true;
}
