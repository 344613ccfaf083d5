/*
 * Arrange: the active entries into messages -- the system prompt, the
 * developer prompt, the history, then the current user turn (context
 * blocks, a blank line, the text).
 */
#include "pipeline/stages.h"

#include <string.h>

#include "base/arena.h"
#include "diag/run.h"
#include "layers/compose.h"
#include "profile/profile.h"

/* The entries of one role composed into *m; false when there are none. */
static bool
compose(struct run *run, struct chat *c, enum role role, const char *origin,
    struct message *m)
{
	struct entry **v;
	size_t n = stack_select(&c->stack, PLACE_SYSTEM, role, &v);
	struct buf b = BUF_INIT;

	if (!n)
		return false;
	compose_entries(&b, c->profile->style, v, n, NULL);
	memset(m, 0, sizeof(*m));
	m->role = role;
	m->origin = origin;
	m->len = b.len;
	m->content = arena_adopt(&run->arena, buf_detach(&b));
	m->entries = v;
	m->nentries = n;
	buf_free(&b);
	return true;
}

static bool
user_turn(struct run *run, struct chat *c, const struct inputs *in,
    struct message *m)
{
	const struct source *user = in->user;
	struct entry **v;
	size_t n = stack_select(&c->stack, PLACE_USER, ROLE_USER, &v), i;
	struct buf b = BUF_INIT;

	for (i = 0; i < n; i++) {
		if (i)
			buf_puts(&b, "\n\n");
		buf_put(&b, v[i]->content, v[i]->len);
	}
	if (user && user->len) {
		if (b.len)
			buf_puts(&b, "\n\n");
		buf_put(&b, user->text, user->len);
	}
	if (!b.len && !in->nimages) {
		buf_free(&b);
		return false;
	}
	memset(m, 0, sizeof(*m));
	m->role = ROLE_USER;
	m->origin = "turn";
	m->len = b.len;
	m->content = arena_adopt(&run->arena, buf_detach(&b));
	m->entries = v;
	m->nentries = n;
	if (in->nimages) {
		/* --image: the text, then the images, as parts. */
		struct message_extra *x = arena_alloc(&run->arena,
		    sizeof(*x));
		struct part *pt = arena_array(&run->arena, in->nimages + 1,
		    sizeof(*pt));
		size_t k = 0;

		if (m->len) {
			pt[k].kind = PART_TEXT;
			pt[k].data = m->content;
			pt[k++].len = m->len;
		}
		memcpy(pt + k, in->images, in->nimages * sizeof(*pt));
		x->parts = pt;
		x->nparts = k + in->nimages;
		m->x = x;
	}
	if (user) {
		m->has_src = true;
		m->src = user->id;
		m->span = span_make(0, user->len);
	}
	buf_free(&b);
	return true;
}

void
arrange(struct run *run, struct chat *c, const struct inputs *in)
{
	struct message head[2], *msgs;
	size_t nhead = 0, i, k;

	if (compose(run, c, ROLE_SYSTEM, "system", &head[nhead]))
		nhead++;
	if (compose(run, c, ROLE_DEVELOPER, "developer", &head[nhead]))
		nhead++;
	/* The history array has room around it (inputs.c): move it up to
	 * the composed messages in place. */
	if (in->hist) {
		msgs = in->hist - 2;
		if (in->nhist && nhead != 2)
			memmove(msgs + nhead, in->hist,
			    in->nhist * sizeof(*msgs));
	} else {
		msgs = arena_array(&run->arena, 3, sizeof(*msgs));
	}
	memcpy(msgs, head, nhead * sizeof(*msgs));
	c->msgs = msgs;
	c->n = nhead + in->nhist;
	c->cap = in->nhist + 3;
	if (user_turn(run, c, in, &msgs[c->n]))
		c->n++;
	for (i = 0; i < c->n; i++)
		for (k = 0; k < msgs[i].nentries; k++)
			msgs[i].entries[k]->message = (int)i;
}
