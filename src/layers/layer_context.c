/*
 * Context blocks: each [[context]] becomes "[tag]\n...\n[/tag]" in the
 * current user turn, with its content from -c NAME=FILE, else from the
 * profile's file.  -c names are matched through hash maps, so n of them
 * against n contexts take O(n) time.
 */
#include "layers/layer_int.h"

#include <string.h>

#include "base/arena.h"
#include "base/map.h"
#include "data/tree.h"
#include "diag/run.h"

/* "[tag]\n" text "\n[/tag]" in the arena. */
static char *
block(struct arena *a, const struct pstr *tag, const char *text, size_t n,
    size_t *len)
{
	char *b = arena_alloc(a, 2 * tag->len + n + 8), *w = b;

	*w++ = '[';
	memcpy(w, tag->s, tag->len);
	w += tag->len;
	memcpy(w, "]\n", 2);
	w += 2;
	memcpy(w, text, n);
	w += n;
	memcpy(w, "\n[/", 3);
	w += 3;
	memcpy(w, tag->s, tag->len);
	w += tag->len;
	*w++ = ']';
	*w = '\0';
	*len = (size_t)(w - b);
	return b;
}

/* Every -c must name a [[context]]; the last -c of a name wins. */
static bool
match_inputs(struct run *run, const struct profile *p,
    const struct layer_input *in, struct map *given)
{
	struct map known;
	size_t i;
	bool ok = true;

	map_init(&known, &run->arena);
	for (i = 0; i < p->ncontexts; i++)
		map_put(&known, p->contexts[i].name.s,
		    strlen(p->contexts[i].name.s), (void *)&p->contexts[i]);
	for (i = 0; i < in->ncontexts; i++) {
		const struct context_input *ci = &in->contexts[i];

		map_put(given, ci->name, strlen(ci->name), (void *)ci);
		if (!map_get(&known, ci->name, strlen(ci->name))) {
			diag_error(run, ci->arg, ci->namespan,
			    MSG_NO_SUCH_CONTEXT, ci->name);
			ok = false;
		}
	}
	return ok;
}

static bool
context(struct run *run, const struct profile *p, const struct pcontext *c,
    const struct context_input *ci, bool check_only, struct entry_vec *out)
{
	struct arena *a = &run->arena;
	const struct source *src = ci ? ci->text : NULL;
	struct entry *e = entry_new(a, arena_printf(a, "context.%s",
	    c->name.s), "context");
	const char *text;
	size_t n, len;

	e->title = c->name.s;
	e->role = ROLE_USER;
	e->placement = PLACE_USER;
	e->priority = PRIO_MEMORIES;
	if (!src && c->file.s) {
		src = profile_open(run, p, &c->file);
		if (!src)
			return false;
	}
	if (!src) {
		if (c->required && !check_only) {
			diag_error(run, layer_src_of(run, c->node),
			    c->node->span, MSG_CONTEXT_REQUIRED, c->name.s,
			    c->name.s);
			return false;
		}
		e->status = ENTRY_MISSING;
		e->has_src = true;
		e->src = c->node->src;
		e->span = c->node->span;
		layer_push(run, out, e);
		return true;
	}
	text = src->text;
	n = entry_trim(&text, src->len);
	if (!n && c->required && !check_only) {
		if (ci)
			diag_error(run, ci->arg, span_make(0, ci->arg->len),
			    MSG_CONTEXT_EMPTY, c->name.s, src->path);
		else
			diag_error(run, layer_src_of(run, c->file.node),
			    c->file.node->span, MSG_CONTEXT_EMPTY, c->name.s,
			    src->path);
		return false;
	}
	e->has_src = true;
	e->src = src->id;
	e->span = span_make(0, src->len);
	if (n) {
		const char *b = block(a, &c->tag, text, n, &len);

		entry_set_raw(a, e, b, len, src->id, span_make(0, src->len),
		    false);
	}
	layer_push(run, out, e);
	return true;
}

bool
layer_contexts(struct run *run, const struct profile *p,
    const struct layer_input *in, struct entry_vec *out)
{
	struct map given;       /* -c name -> its last context_input */
	size_t i;
	bool ok;

	map_init(&given, &run->arena);
	ok = match_inputs(run, p, in, &given);
	for (i = 0; i < p->ncontexts; i++) {
		const struct pcontext *c = &p->contexts[i];

		ok = context(run, p, c, map_get(&given, c->name.s,
		    strlen(c->name.s)), in->check_only, out) && ok;
	}
	return ok;
}
