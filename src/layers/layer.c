#include "layers/layer.h"

#include <string.h>

#include "base/arena.h"
#include "base/vec.h"
#include "data/tree.h"
#include "diag/run.h"
#include "layers/agent.h"
#include "layers/layer_int.h"

const struct source *
layer_src_of(struct run *run, const struct node *n)
{
	return n ? run_source(run, n->src) : NULL;
}

void
layer_push(struct run *run, struct entry_vec *out, struct entry *e)
{
	avec_push(&run->arena, out, e);
}

void
layer_file_text(struct run *run, struct entry *e, const struct source *src,
    size_t body)
{
	entry_set_raw(&run->arena, e, src->text + body, src->len - body,
	    src->id, span_make(body, src->len - body), true);
	e->rewrite = ENTRY_TEMPLATE | ENTRY_TIDY | ENTRY_CRLF;
}

/*
 * Where a profile string's value sits in its source.  A multi-line
 * string without escapes ("""...""" or '''...''', after the newline the
 * opening delimiter may be followed by) holds the value's bytes as they
 * are, so its bytes map one to one and a message points at the very
 * placeholder, lines below the string's start.  Any other string maps as
 * a whole: its escapes make offsets differ.
 */
static bool
verbatim_at(const struct source *src, const struct pstr *p, size_t *off)
{
	static const size_t skip[] = { 5, 4, 3 };
	const struct span sp = p->node->span;
	size_t i;

	if (!src || sp.off + sp.len > src->len)
		return false;
	for (i = 0; i < sizeof(skip) / sizeof(skip[0]); i++) {
		const char *t = src->text + sp.off;

		if (sp.len < 6 + p->len || (t[0] != '"' && t[0] != '\'') ||
		    t[1] != t[0] || t[2] != t[0] || skip[i] + p->len + 3 >
		    sp.len || memcmp(t + skip[i], p->s, p->len) != 0)
			continue;
		if (skip[i] > 3 && t[3] != '\n' && t[3] != '\r')
			continue;
		*off = sp.off + skip[i];
		return true;
	}
	return false;
}

void
layer_string_text(struct run *run, struct entry *e, const struct pstr *p)
{
	const struct source *src = layer_src_of(run, p->node);
	size_t off;

	if (verbatim_at(src, p, &off))
		entry_set_raw(&run->arena, e, p->s, p->len, p->node->src,
		    span_make(off, p->len), true);
	else
		entry_set_raw(&run->arena, e, p->s, p->len, p->node->src,
		    p->node->span, false);
	/* The entry as a whole is the string, not its value. */
	e->span = p->node->span;
	e->rewrite = ENTRY_TEMPLATE | ENTRY_TIDY;
}

bool
layer_collect_profile(struct run *run, const struct profile *p,
    struct entry_vec *out, struct tool_list *list)
{
	bool ok = true;

	ok = layer_prefix(run, p, out) && ok;
	ok = layer_persona(run, p, out) && ok;
	ok = layer_skills(run, p, out) && ok;
	ok = layer_tools(run, p, out, list) && ok;
	return ok;
}

bool
layer_collect_turn(struct run *run, const struct profile *p,
    const struct layer_input *in, struct entry_vec *out)
{
	bool ok = true;

	ok = layer_injects(run, p, in, out) && ok;
	ok = layer_contexts(run, p, in, out) && ok;
	return ok;
}

bool
layer_collect(struct run *run, const struct profile *p,
    const struct layer_input *in, struct entry_vec *out,
    struct tool_list *list)
{
	bool ok;

	/* An agent prompt is its own layout of sections (layer_agent.c). */
	if (agent_enabled(p))
		return layer_agent(run, p, in, out, list);
	ok = layer_collect_profile(run, p, out, list);
	return layer_collect_turn(run, p, in, out) && ok;
}
