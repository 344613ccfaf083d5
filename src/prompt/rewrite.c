#include "prompt/rewrite.h"

#include <string.h>

#include "base/arena.h"
#include "diag/run.h"

static size_t
count(const struct rewrite_plan *plan, bool entries)
{
	size_t i, n = 0;

	for (i = 0; i < plan->n; i++)
		if (entries ? plan->passes[i]->entry != NULL :
		    plan->passes[i]->message != NULL)
			n++;
	return n;
}

static bool
entry(const struct rewrite_ctx *cx, const struct rewrite_plan *plan,
    size_t nstages, struct entry *e)
{
	struct etext *stages, cur = e->raw;
	size_t i, k = 0;
	bool ok = true;

	if (!e->rewrite || !e->content)
		return true;
	stages = arena_array(&cx->run->arena, nstages, sizeof(*stages));
	for (i = 0; i < plan->n; i++) {
		const struct rewrite_pass *pass = plan->passes[i];

		if (!pass->entry)
			continue;
		if (!(pass->applies & e->rewrite))
			stages[k] = cur;
		else if (!pass->entry(cx, e, &cur, &stages[k]))
			ok = false;
		cur = stages[k++];
	}
	e->stages = stages;
	e->nstages = nstages;
	e->content = cur.s;
	e->len = cur.len;
	return ok;
}

bool
rewrite_entries(const struct rewrite_ctx *cx,
    const struct rewrite_plan *plan, struct entry **v, size_t n)
{
	size_t i, nstages = count(plan, true);
	bool ok = true;

	for (i = 0; i < n; i++)
		ok = entry(cx, plan, nstages, v[i]) && ok;
	return ok;
}

bool
rewrite_messages(const struct rewrite_ctx *cx,
    const struct rewrite_plan *plan, struct chat *c)
{
	size_t i, j, k, nstages = count(plan, false);
	bool ok = true;

	if (!nstages)
		return true;
	for (j = 0; j < c->n; j++) {
		struct message *m = &c->msgs[j];
		struct etext *stages = arena_array(&cx->run->arena, nstages,
		    sizeof(*stages)), cur = { m->content, m->len, NULL, 0 };
		struct seg *g = NULL;

		if (m->has_src) {
			/* A history element: its text stands for it. */
			g = arena_alloc(&cx->run->arena, sizeof(*g));
			g->src = m->src;
			g->span = m->span;
			cur.segs = g;
			cur.nsegs = 1;
		}
		for (i = k = 0; i < plan->n; i++) {
			const struct rewrite_pass *pass = plan->passes[i];

			if (!pass->message)
				continue;
			if (!pass->message(cx, m, c->n - 1 - j, &cur,
			    &stages[k]))
				ok = false;
			cur = stages[k++];
		}
		m->stages = stages;
		m->nstages = nstages;
		message_set_text(cx->run, m, cur.s, cur.len);
	}
	return ok;
}

bool
rewrite_text(const struct rewrite_ctx *cx, const struct rewrite_plan *plan,
    unsigned from, unsigned to, unsigned kind, const void *what,
    const struct etext *in, struct etext *out)
{
	struct etext cur = *in, next;
	size_t i;
	bool ok = true;

	for (i = 0; i < plan->n; i++) {
		const struct rewrite_pass *pass = plan->passes[i];

		if (!pass->text || pass->stage < from || pass->stage > to)
			continue;
		next = cur;
		if ((pass->applies & kind) &&
		    !pass->text(cx, what, &cur, &next))
			ok = false;
		if (cx->record)
			cx->record(cx, what, pass, &cur, &next);
		cur = next;
	}
	*out = cur;
	return ok;
}

void
message_set_text(struct run *run, struct message *m, const char *s,
    size_t len)
{
	struct message_extra *x;
	size_t k;

	if (m->x && (len != m->len || memcmp(s, m->content, len) != 0)) {
		for (k = 0; k < m->x->nparts; k++)
			if (m->x->parts[k].kind != PART_TEXT)
				break;
		/* Text parts would say the old text: the new one is sent. */
		if (m->x->nparts && k == m->x->nparts) {
			x = arena_alloc(&run->arena, sizeof(*x));
			*x = *m->x;
			x->parts = NULL;
			x->nparts = 0;
			m->x = x;
		}
	}
	m->content = s;
	m->len = len;
}
