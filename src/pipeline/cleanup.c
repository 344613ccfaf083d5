/*
 * The history clean-up (seed 004 §3.4), run on every history strata
 * reads -- -H, and the dialogue of --state -- right after it is read and
 * before anything composes it, because the agent prompt quotes the
 * dialogue inside a section: a message pass of the rewrite stage, which
 * runs after arrange, would never see it there.  The rules, each switched
 * by [cleanup] in the profile:
 *
 *   think       <think>...</think> blocks leave assistant messages, and so
 *               does an unclosed <think> at the start of a reply (on);
 *   prestart    <prestart>...</prestart> blocks leave every message: a
 *               prestart result belongs to its own turn, and the history
 *               is turns before this one; <prestart keep="true"> stays (on);
 *   empty       a message left empty is dropped: providers refuse empty
 *               content (on);
 *   first_user  when the history starts with an assistant message, a user
 *               message with this text goes first (off; Fay uses "你好").
 *
 * Every change is noted, with the message's place, for the debug view
 * and -f json.
 */
#include "pipeline/stages.h"

#include <string.h>

#include "base/arena.h"
#include "base/util.h"
#include "base/vec.h"
#include "data/tree.h"
#include "diag/run.h"
#include "prompt/rewrite.h"

struct rules {
	bool think, prestart, empty;
	const char *first_user;
};

static bool
flag(const struct node *t, const char *key, bool def)
{
	const struct node *v = tree_get(t, key);

	return v && v->kind == NODE_BOOL ? v->u.b : def;
}

static void
rules_of(const struct profile *p, struct rules *r)
{
	const struct node *t = tree_get(p->root, "cleanup");
	const struct node *f = tree_get(t, "first_user");

	r->think = flag(t, "think", true);
	r->prestart = flag(t, "prestart", true);
	r->empty = flag(t, "empty", true);
	r->first_user = f && f->kind == NODE_STRING && f->u.str.len ?
	    f->u.str.s : NULL;
}

/* pat in s[0..n): memchr() finds the candidates, as every message of
 * a long history is searched for the tags. */
static const char *
find(const char *s, size_t n, const char *pat)
{
	size_t k = strlen(pat);
	const char *end = s + n, *p;

	while ((size_t)(end - s) >= k &&
	    (p = memchr(s, pat[0], (size_t)(end - s) - k + 1)) != NULL) {
		if (memcmp(p, pat, k) == 0)
			return p;
		s = p + 1;
	}
	return NULL;
}

/*
 * s without its <think> blocks, into out; counts what went.  An opening
 * tag with no closing one is thinking cut off only at the very start of
 * the reply; anywhere else it is left as written.
 */
static void
strip_think(struct buf *out, const char *s, size_t n, size_t *blocks,
    bool *unclosed)
{
	size_t at = 0;

	for (;;) {
		const char *o = find(s + at, n - at, "<think>"), *c;

		if (!o)
			break;
		c = find(o + 7, n - (size_t)(o + 7 - s), "</think>");
		if (!c) {
			if (str_blank(s, (size_t)(o - s))) {
				*unclosed = true;
				n = (size_t)(o - s);
			}
			break;
		}
		buf_put(out, s + at, (size_t)(o - s) - at);
		(*blocks)++;
		at = (size_t)(c + 8 - s);
	}
	if (at < n)
		buf_put(out, s + at, n - at);
}

/* s without its <prestart> blocks but the keep="true" ones. */
static void
strip_prestart(struct buf *out, const char *s, size_t n, size_t *blocks)
{
	size_t at = 0, from = 0;

	for (;;) {
		const char *o = find(s + from, n - from, "<prestart"), *gt, *c;
		size_t attr;

		if (!o)
			break;
		gt = memchr(o, '>', n - (size_t)(o - s));
		attr = gt ? (size_t)(gt - o) - 9 : 0;
		/* "<prestart>" or "<prestart ...>", closed somewhere. */
		c = gt && (attr == 0 || o[9] == ' ') ? find(gt, n -
		    (size_t)(gt - s), "</prestart>") : NULL;
		if (!c) {
			from = (size_t)(o - s) + 9;
			continue;
		}
		from = (size_t)(c + 11 - s);
		if (find(o + 9, attr, "keep=\"true\"") ||
		    find(o + 9, attr, "keep='true'"))
			continue;
		buf_put(out, s + at, (size_t)(o - s) - at);
		(*blocks)++;
		at = from;
	}
	if (at < n)
		buf_put(out, s + at, n - at);
}

static void
note(struct run *run, struct inputs *in, const struct message *m,
    size_t pos, const char *rule, const char *change)
{
	struct cleanup_note *c;

	in->cleanups = avec_grow(&run->arena, in->cleanups, &in->capcleanups,
	    in->ncleanups, in->ncleanups + 1, sizeof(*in->cleanups));
	c = &in->cleanups[in->ncleanups++];
	c->message = pos + 1;
	c->rule = rule;
	c->change = change;
	c->has_src = m->has_src;
	c->src = m->src;
	c->span = m->span;
}

static const char *
plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* One message's tags; true if its text changed. */
static bool
clean_one(struct run *run, const struct rules *r, struct inputs *in,
    struct message *m, size_t pos)
{
	struct arena *a = &run->arena;
	struct buf b = BUF_INIT;
	const char *s = m->content;
	size_t n = m->len, blocks = 0;
	bool unclosed = false, changed = false;

	if (r->think && m->role == ROLE_ASSISTANT && find(s, n, "<think>")) {
		strip_think(&b, s, n, &blocks, &unclosed);
		if (blocks)
			note(run, in, m, pos, "think", arena_printf(a,
			    "removed %zu <think> block%s: the model's "
			    "thinking does not go back to it", blocks,
			    plural(blocks)));
		if (unclosed)
			note(run, in, m, pos, "think", arena_printf(a,
			    "removed an unclosed <think> at the start of the "
			    "reply: it is all thinking"));
		if (blocks || unclosed) {
			s = arena_strndup(a, b.data ? b.data : "", b.len);
			n = b.len;
			changed = true;
		}
		buf_reset(&b);
	}
	blocks = 0;
	if (r->prestart && find(s, n, "<prestart")) {
		strip_prestart(&b, s, n, &blocks);
		if (blocks) {
			note(run, in, m, pos, "prestart", arena_printf(a,
			    "removed %zu <prestart> block%s: a prestart result "
			    "belongs to its own turn (keep=\"true\" ones "
			    "stay)", blocks, plural(blocks)));
			s = arena_strndup(a, b.data ? b.data : "", b.len);
			n = b.len;
			changed = true;
		}
	}
	buf_free(&b);
	if (changed) {
		n = entry_trim(&s, n);
		message_set_text(run, m, s, n);
	}
	return changed;
}

void
cleanup_history(struct run *run, const struct profile *p, struct inputs *in,
    struct message **v, size_t *n)
{
	struct rules r;
	struct message *out, first;
	size_t i, k = 0;
	bool insert = false;

	rules_of(p, &r);
	/* In place (k <= i): a history of a million plain messages is not
	 * copied to be checked. */
	for (i = 0; i < *n; i++) {
		struct message m = (*v)[i];

		clean_one(run, &r, in, &m, i);
		if (r.empty && !m.x && str_blank(m.content, m.len)) {
			note(run, in, &m, i, "empty", arena_printf(&run->arena,
			    "dropped an empty %s message: providers refuse "
			    "empty content", names_role(m.role)));
			continue;
		}
		if (k == 0 && r.first_user && m.role == ROLE_ASSISTANT) {
			insert = true;
			note(run, in, &m, i, "first_user", arena_printf(
			    &run->arena, "inserted a user message \"%s\" "
			    "before it: the history started with an "
			    "assistant message", r.first_user));
		}
		(*v)[k++] = m;
	}
	if (insert) {
		/* Room as history.c gives it: two before, one after. */
		out = (struct message *)arena_array(&run->arena, k + 4,
		    sizeof(*out)) + 2;
		memset(&first, 0, sizeof(first));
		first.role = ROLE_USER;
		first.origin = ORIGIN_HISTORY;
		first.content = r.first_user;
		first.len = strlen(r.first_user);
		out[0] = first;
		memcpy(out + 1, *v, k * sizeof(*out));
		*v = out;
		k++;
	}
	*n = k;
}
