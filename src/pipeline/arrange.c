/*
 * Arrange: the active entries into messages -- the system prompt, the
 * developer prompt, the history, then the current user turn (context
 * blocks, a blank line, the text) -- and the in-chat entries between
 * them, each where exactly its depth of conversation messages follow it.
 */
#include "pipeline/stages.h"

#include <string.h>

#include "base/arena.h"
#include "diag/run.h"
#include "layers/compose.h"
#include "profile/profile.h"
#include "prompt/inchat.h"

/* The entries of one role composed into *m; false when there are none. */
static bool
compose(struct run *run, struct chat *c, enum role role, enum origin origin,
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
	bool in_agent = agent_enabled(c->profile);
	const struct source *user = in->user;
	struct entry **v;
	size_t n = stack_select(&c->stack, PLACE_USER, ROLE_USER, &v), i;
	struct buf b = BUF_INIT;

	/* An agent prompt is its sections; the user's text is one. */
	if (in_agent) {
		agent_compose(&b, c->profile, v, n);
		user = NULL;
	}
	for (i = 0; !in_agent && i < n; i++) {
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
	m->origin = ORIGIN_TURN;
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

/* In-chat entries v[0..n) (one depth, one role) as one message. */
static void
inchat_message(struct run *run, struct entry **v, size_t n,
    struct message *m)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++) {
		if (i)
			buf_puts(&b, "\n\n");
		buf_put(&b, v[i]->content, v[i]->len);
	}
	memset(m, 0, sizeof(*m));
	m->role = v[0]->role;
	m->origin = ORIGIN_IN_CHAT;
	m->len = b.len;
	m->content = arena_adopt(&run->arena, buf_detach(&b));
	m->entries = v;
	m->nentries = n;
	m->has_src = v[0]->has_src;
	m->src = v[0]->src;
	m->span = v[0]->span;
	buf_free(&b);
}

/*
 * Put the in-chat entries into the conversation (prompt/inchat.h): an
 * entry at depth d goes before the last d conversation messages
 * (history and the current turn), at the top when d is more than there
 * are.  The entries come deepest first, then by priority and position;
 * neighbours of one depth and role join into one message.
 */
static void
place_inchat(struct run *run, struct chat *c, size_t first)
{
	static const struct inchat_rules rules = { NULL };
	struct entry **v, **g;
	struct message *msgs;
	struct inchat_piece *pc;
	struct inchat_slot *s;
	size_t n = stack_select_depth(&c->stack, &v), ns, i, k;

	if (!n)
		return;
	pc = arena_array(&run->arena, n, sizeof(*pc));
	for (i = 0; i < n; i++) {
		pc[i].depth = v[i]->depth;
		pc[i].order = 0;
		pc[i].role = v[i]->role;
		pc[i].index = i;
	}
	s = inchat_place(&run->arena, pc, n, c->n - first, &rules, &ns);
	msgs = arena_array(&run->arena, first + ns + 1, sizeof(*msgs));
	memcpy(msgs, c->msgs, first * sizeof(*msgs));
	for (i = 0; i < ns; i++) {
		if (!s[i].inject) {
			msgs[first + i] = c->msgs[first + s[i].msg];
			continue;
		}
		g = arena_array(&run->arena, s[i].n, sizeof(*g));
		for (k = 0; k < s[i].n; k++)
			g[k] = v[pc[s[i].first + k].index];
		inchat_message(run, g, s[i].n, &msgs[first + i]);
	}
	c->msgs = msgs;
	c->n = first + ns;
	c->cap = c->n + 1;
}

/* [output] developer_role = "system": the developer message joins the
 * system message (or becomes it), for servers that reject the role. */
static size_t
developer_as_system(struct run *run, struct message *head, size_t n)
{
	struct message *dev = &head[n - 1];
	struct entry **v;
	struct buf b = BUF_INIT;

	if (dev->role != ROLE_DEVELOPER)
		return n;
	dev->role = ROLE_SYSTEM;
	dev->origin = ORIGIN_SYSTEM;
	if (n == 1)
		return n;
	buf_put(&b, head[0].content, head[0].len);
	buf_puts(&b, "\n\n");
	buf_put(&b, dev->content, dev->len);
	v = arena_array(&run->arena, head[0].nentries + dev->nentries + 1,
	    sizeof(*v));
	memcpy(v, head[0].entries, head[0].nentries * sizeof(*v));
	memcpy(v + head[0].nentries, dev->entries,
	    dev->nentries * sizeof(*v));
	head[0].entries = v;
	head[0].nentries += dev->nentries;
	head[0].len = b.len;
	head[0].content = arena_adopt(&run->arena, buf_detach(&b));
	buf_free(&b);
	return 1;
}

void
arrange(struct run *run, struct chat *c, const struct inputs *in)
{
	struct message head[2], *msgs;
	size_t nhead = 0, i, k;

	if (compose(run, c, ROLE_SYSTEM, ORIGIN_SYSTEM, &head[nhead]))
		nhead++;
	if (compose(run, c, ROLE_DEVELOPER, ORIGIN_DEVELOPER, &head[nhead]))
		nhead++;
	if (nhead && c->profile->developer_as_system)
		nhead = developer_as_system(run, head, nhead);
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
	place_inchat(run, c, nhead);
	msgs = c->msgs;
	for (i = 0; i < c->n; i++)
		for (k = 0; k < msgs[i].nentries; k++)
			msgs[i].entries[k]->message = (int)i;
}
