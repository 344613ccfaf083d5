#include "pipeline/rewrite.h"

#include <string.h>

#include "base/arena.h"
#include "diag/run.h"
#include "pipeline/stages.h"
#include "text/edit.h"
#include "text/template.h"

static bool
placeholders(const struct rewrite_ctx *cx, const struct entry *e,
    const struct etext *in, struct etext *out)
{
	return template_expand(cx->run, cx->vars, in, out);
}

const struct rewrite_pass rewrite_placeholders = {
	"placeholders", ENTRY_TEMPLATE, placeholders, NULL,
};

/* A prompt file saved with CRLF line ends gives the same bytes as one
 * saved with LF: output must not depend on a checkout's settings. */
static void
crlf_to_lf(struct run *run, const struct etext *in, struct etext *out)
{
	const char *cr = in->len ? memchr(in->s, '\r', in->len) : NULL;
	size_t i, last = 0;
	struct edit ed;

	*out = *in;
	if (!cr)
		return;
	edit_begin(&ed, run, in);
	for (i = (size_t)(cr - in->s); i + 1 < in->len; i++)
		if (in->s[i] == '\r' && in->s[i + 1] == '\n') {
			edit_copy(&ed, last, i);
			last = i + 1;
		}
	edit_copy(&ed, last, in->len);
	edit_end(&ed, out);
}

static bool
tidy(const struct rewrite_ctx *cx, const struct entry *e,
    const struct etext *in, struct etext *out)
{
	struct etext lf;
	const char *s;
	size_t n;
	struct edit ed;

	if (e->rewrite & ENTRY_CRLF)
		crlf_to_lf(cx->run, in, &lf);
	else
		lf = *in;
	s = lf.s;
	n = entry_trim(&s, lf.len);
	if (n == lf.len) {
		*out = lf;
		return true;
	}
	edit_begin(&ed, cx->run, &lf);
	edit_copy(&ed, (size_t)(s - lf.s), (size_t)(s - lf.s) + n);
	edit_end(&ed, out);
	return true;
}

const struct rewrite_pass rewrite_tidy = {
	"tidy", ENTRY_TIDY, tidy, NULL,
};

static const struct rewrite_pass *const standard[] = {
	&rewrite_placeholders,
	&rewrite_tidy,
};

void
rewrite_plan_for(const struct profile *p, struct rewrite_plan *plan)
{
	plan->passes = standard;
	plan->n = sizeof(standard) / sizeof(standard[0]);
}

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
