/* The prefix, the persona and the format: one text each. */
#include "layers/layer_int.h"

#include <limits.h>

#include "base/arena.h"
#include "data/frontmatter.h"
#include "diag/run.h"

bool
layer_prefix(struct run *run, const struct profile *p, struct entry_vec *out)
{
	struct entry *e;

	if (!p->prefix.s)
		return true;
	e = entry_new(&run->arena, "prefix", "prompt");
	e->title = p->labels[LABEL_PREFIX];
	e->priority = INT_MIN;  /* before all, history base too */
	e->base = true;         /* text before everything, no heading */
	e->scope = SCOPE_GLOBAL;
	layer_string_text(run, e, &p->prefix);
	layer_push(run, out, e);
	return true;
}

static bool
file_layer(struct run *run, const struct profile *p, struct entry_vec *out,
    const struct pstr *path, const char *key, const char *title, int prio)
{
	struct source *src;
	struct frontmatter fm;
	struct entry *e;

	if (!path->s)
		return true;
	src = profile_open(run, p, path);
	if (!src || !frontmatter_read(run, src, &fm))
		return false;
	e = entry_new(&run->arena, key, key);
	e->title = title;
	e->priority = prio;
	e->scope = SCOPE_GLOBAL;
	layer_file_text(run, e, src, fm.body);
	layer_push(run, out, e);
	return true;
}

bool
layer_persona(struct run *run, const struct profile *p, struct entry_vec *out)
{
	bool ok = true;

	ok = file_layer(run, p, out, &p->persona, "persona",
	    p->labels[LABEL_PERSONA],
	    PRIO_PERSONA) && ok;
	ok = file_layer(run, p, out, &p->format, "format",
	    p->labels[LABEL_FORMAT],
	    PRIO_FORMAT) && ok;
	return ok;
}
