/* Injections: the profile's [[inject]] entries and -i KEY[@ATTRS]=TEXT. */
#include "layers/layer_int.h"

#include <string.h>

#include "base/arena.h"
#include "data/frontmatter.h"
#include "data/tree.h"
#include "diag/run.h"

static bool
profile_injects(struct run *run, const struct profile *p,
    struct entry_vec *out)
{
	struct arena *a = &run->arena;
	size_t i;
	bool ok = true;

	for (i = 0; i < p->ninjects; i++) {
		const struct pinject *in = &p->injects[i];
		struct entry *e;

		if (strcmp(in->key.s, "tools") == 0) {
			diag_error(run, layer_src_of(run, in->key.node),
			    in->key.node->span, MSG_INJECT_TOOLS_KEY);
			ok = false;
			continue;
		}
		e = entry_new(a, in->key.s, "inject");
		e->priority = in->priority;
		e->role = in->role;
		e->placement = in->placement;
		e->depth = in->depth;
		e->scope = in->scope;
		e->enabled = in->enabled;
		if (in->file.s) {
			struct source *src = profile_open(run, p, &in->file);
			struct frontmatter fm;

			if (!src || !frontmatter_read(run, src, &fm)) {
				ok = false;
				continue;
			}
			layer_file_text(run, e, src, fm.body);
		} else {
			layer_string_text(run, e, &in->content);
		}
		layer_push(run, out, e);
	}
	return ok;
}

/* Text typed on the command line is taken as it is: trimmed only. */
static void
cli_injects(struct run *run, const struct layer_input *in,
    struct entry_vec *out)
{
	struct arena *a = &run->arena;
	size_t i;

	for (i = 0; i < in->ninjects; i++) {
		const struct cli_inject *ci = &in->injects[i];
		const char *text = ci->arg->text + ci->text.off;
		struct entry *e = entry_new(a, arena_strndup(a,
		    ci->arg->text + ci->key.off, ci->key.len), "cli");
		size_t n = entry_trim(&text, ci->text.len);

		entry_set_raw(a, e, arena_strndup(a, text, n), n, ci->arg->id,
		    span_make((size_t)(text - ci->arg->text), n), true);
		e->span = ci->text;
		e->priority = ci->priority;
		e->role = ci->role;
		e->placement = ci->placement;
		e->depth = ci->depth;
		e->scope = ci->scope;
		e->given = ci->given;
		layer_push(run, out, e);
	}
}

/* No -i may take the key "tools" (see profile_injects). */
static bool
cli_tools_key(struct run *run, const struct layer_input *in)
{
	size_t i;
	bool ok = true;

	for (i = 0; i < in->ninjects; i++) {
		const struct cli_inject *ci = &in->injects[i];

		if (ci->key.len == 5 && memcmp(ci->arg->text + ci->key.off,
		    "tools", 5) == 0) {
			diag_error(run, ci->arg, ci->key, MSG_INJECT_TOOLS_KEY);
			ok = false;
		}
	}
	return ok;
}

bool
layer_injects(struct run *run, const struct profile *p,
    const struct layer_input *in, struct entry_vec *out)
{
	bool ok = profile_injects(run, p, out);

	if (!cli_tools_key(run, in))
		return false;
	cli_injects(run, in, out);
	return ok;
}
