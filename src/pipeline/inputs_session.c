/*
 * --session FILE on build and debug: the session's visible messages are
 * the history (before -H's), its system texts the start of the history's
 * system prompt, its variables template variables (inputs.c sets them
 * between [vars] and -v), its entries join the stack (collect_session).
 * Nothing here writes the file: the command appends the turn once the
 * build has succeeded (cmd/pipeline.c), over the bytes read here when it
 * holds the session (opt->session_src).
 */
#include "pipeline/stages.h"

#include <limits.h>
#include <string.h>

#include "base/arena.h"
#include "data/tree.h"
#include "diag/run.h"

bool
inputs_session_load(struct run *run, const struct options *opt,
    struct inputs *in)
{
	bool exists;

	if (!opt->session)
		return true;
	in->sess = arena_alloc(&run->arena, sizeof(*in->sess));
	if (opt->session_src)
		return chatfile_read(run, opt->session_src, in->sess);
	return session_load(run, opt->session, in->sess, &exists);
}

/* The index after the last visible user message, or 0. */
static size_t
after_last_user(const struct chatfile *c)
{
	size_t i;
	bool hidden;

	for (i = c->msgs.n; i > 0; i--)
		if (session_role(c->msgs.v[i - 1].obj, &hidden) == ROLE_USER &&
		    !hidden)
			return i;
	return 0;
}

/* text then, if any, "\n\n" and the old contents of b */
/*
 * What a message carries beyond mes: its images and files (extra.media,
 * extra.image, extra.file: session.h), and from extra.strata an
 * assistant message's tool calls, a tool result's call (its tool's name
 * found on the call, in the messages before it).  NULL for a plain
 * message.  A bad image or file is reported and clears *ok.
 */
static struct message_extra *
session_extra(struct run *run, const struct source *src,
    const struct node *obj, const struct message *before, size_t nbefore,
    bool *ok)
{
	const struct node *extra = tree_get(obj, "extra");
	const struct node *st = extra ? tree_get(extra, "strata") : NULL;
	const struct node *calls = st ? tree_get(st, "tool_calls") : NULL;
	const struct node *id = st ? tree_get(st, "tool_call_id") : NULL;
	const struct node *err = st ? tree_get(st, "is_error") : NULL;
	/* An assistant's reasoning (where SillyTavern keeps it) and what
	 * its provider signed (strata reply keeps it), sent back by the
	 * emitters as each provider takes it. */
	const struct node *rs = extra ? tree_get(extra, "reasoning") : NULL;
	const struct node *replay = st ? tree_get(st, "replay") : NULL;
	struct message_extra *x;
	struct tool_call *v;
	const struct part *parts;
	size_t i, k, nparts;

	if (!session_parts(run, src, obj, &parts, &nparts))
		*ok = false;
	if (rs && (rs->kind != NODE_STRING || !rs->u.str.len))
		rs = NULL;
	if (replay && replay->kind != NODE_TABLE)
		replay = NULL;
	if (session_role(obj, &(bool){ false }) != ROLE_ASSISTANT)
		rs = replay = NULL;
	if (!(calls && calls->kind == NODE_ARRAY && calls->u.array.n) &&
	    !(id && id->kind == NODE_STRING) && !nparts && !rs && !replay)
		return NULL;
	x = arena_alloc(&run->arena, sizeof(*x));
	x->parts = parts;
	x->nparts = nparts;
	if (rs) {
		x->reasoning = rs->u.str.s;
		x->reasoning_len = rs->u.str.len;
	}
	x->replay = replay;
	if (calls && calls->kind == NODE_ARRAY) {
		v = arena_array(&run->arena, calls->u.array.n + 1, sizeof(*v));
		for (i = 0; i < calls->u.array.n; i++) {
			const struct node *c = calls->u.array.items[i];
			const struct node *cid = tree_get(c, "id");
			const struct node *name = tree_get(c, "name");
			const struct node *args = tree_get(c, "arguments");

			if (!cid || cid->kind != NODE_STRING || !name ||
			    name->kind != NODE_STRING)
				continue;
			v[x->ncalls].id = cid->u.str.s;
			v[x->ncalls].name = name->u.str.s;
			v[x->ncalls].args = args && args->kind == NODE_TABLE ?
			    args : tree_table(&run->arena);
			x->ncalls++;
		}
		x->calls = v;
	}
	if (id && id->kind == NODE_STRING) {
		x->call_id = id->u.str.s;
		x->is_error = err && err->kind == NODE_BOOL && err->u.b;
		for (i = nbefore; i-- > 0 && !x->call_name;)
			for (k = 0; before[i].x && k < before[i].x->ncalls; k++)
				if (strcmp(before[i].x->calls[k].id,
				    x->call_id) == 0)
					x->call_name = before[i].x->calls[k].name;
	}
	return x;
}

static void
prepend(struct buf *b, const struct buf *text)
{
	struct buf old = *b;

	if (!text->len)
		return;
	memset(b, 0, sizeof(*b));
	buf_put(b, text->data, text->len);
	if (old.len) {
		buf_puts(b, "\n\n");
		buf_put(b, old.data, old.len);
	}
	buf_free(&old);
}


bool
inputs_session_merge(struct run *run, const struct options *opt,
    struct inputs *in)
{
	const struct chatfile *c = in->sess;
	struct buf base = BUF_INIT, devbase = BUF_INIT;
	struct message *msgs;
	bool ok = true;
	size_t end, i, n = 0, before = 0, nh = in->nhist;

	if (!c) {
		in->first_turn = opt->turn != TURN_RESUME &&
		    (opt->turn == TURN_FIRST || in->nhist == 0);
		in->turn = 1;
		return true;
	}
	end = c->msgs.n;
	in->turn = session_turn(c) + 1;
	if (opt->regenerate) {
		if (!(end = after_last_user(c))) {
			diag_plain(run, DIAG_ERROR, MSG_SESSION_EMPTY,
			    opt->session, "user message", "regenerate");
			return false;
		}
		/* The reply being regenerated had ended the turn. */
		if (end < c->msgs.n && in->turn > 1)
			in->turn--;
	}
	msgs = (struct message *)arena_array(&run->arena,
	    end + in->nhist + 3, sizeof(*msgs)) + 2;
	for (i = 0; i < end; i++) {
		const struct chatfile_msg *cm = &c->msgs.v[i];
		struct message *m;
		bool hidden;
		enum role r = session_role(cm->obj, &hidden);
		size_t len;
		const char *text = chatfile_text(cm->obj, &len);

		if (hidden)
			continue;
		/* The turn regenerated is the user message at the end. */
		if (i + 1 < end || !opt->regenerate)
			before++;
		if (r == ROLE_SYSTEM || r == ROLE_DEVELOPER) {
			history_add_system(r == ROLE_SYSTEM ? &base : &devbase, text,
			    len);
			continue;
		}
		m = &msgs[n++];
		memset(m, 0, sizeof(*m));
		m->role = r;
		m->origin = "session";
		m->content = text;
		m->len = len;
		m->x = session_extra(run, c->src, cm->obj, msgs, n - 1,
		    &ok);
		if (cm->raw && c->src) {
			m->has_src = true;
			m->src = c->src->id;
			m->span = span_make((size_t)(cm->raw - c->src->text),
			    cm->rawlen);
		}
	}
	if (in->nhist)
		memcpy(msgs + n, in->hist, in->nhist * sizeof(*msgs));
	in->hist = msgs;
	in->nhist += n;
	in->histroom = in->nhist;
	prepend(&in->base, &base);
	prepend(&in->devbase, &devbase);
	buf_free(&base);
	buf_free(&devbase);
	if (!in->histsrc && (in->base.len || in->devbase.len))
		in->histsrc = c->src;
	in->first_turn = opt->turn == TURN_FIRST || (opt->turn == TURN_AUTO &&
	    before == 0 && nh == 0);
	return ok;
}

/* chat_metadata.strata.entries: {"key","content","priority","role",
 * "scope"}; one that is not such an object is skipped. */
void
collect_session(struct run *run, const struct inputs *in,
    struct entry_vec *out)
{
	const struct node *meta, *st, *v;
	struct arena *a = &run->arena;
	size_t i;

	if (!in->sess || !(meta = chatfile_metadata(in->sess)) ||
	    !(st = tree_get(meta, "strata")) || st->kind != NODE_TABLE ||
	    !(v = tree_get(st, "entries")) || v->kind != NODE_ARRAY)
		return;
	for (i = 0; i < v->u.array.n; i++) {
		const struct node *o = v->u.array.items[i], *key, *content,
		    *x;
		struct entry *e;
		int k;

		if (o->kind != NODE_TABLE || !(key = tree_get(o, "key")) ||
		    key->kind != NODE_STRING ||
		    !(content = tree_get(o, "content")) ||
		    content->kind != NODE_STRING)
			continue;
		e = entry_new(a, key->u.str.s, "session");
		if ((x = tree_get(o, "priority")) && x->kind == NODE_INT &&
		    x->u.i > INT_MIN && x->u.i < INT_MAX)
			e->priority = (int)x->u.i;
		if ((x = tree_get(o, "role")) && x->kind == NODE_STRING &&
		    (k = names_index(names_roles, x->u.str.s,
		    x->u.str.len)) >= 0)
			e->role = (enum role)k;
		e->scope = SCOPE_SESSION;
		if ((x = tree_get(o, "scope")) && x->kind == NODE_STRING &&
		    (k = names_index(names_scopes, x->u.str.s,
		    x->u.str.len)) >= 0)
			e->scope = (enum scope)k;
		entry_set_raw(a, e, content->u.str.s, content->u.str.len,
		    in->sess->src ? in->sess->src->id : 0, content->span,
		    false);
		e->has_src = in->sess->src != NULL;
		e->rewrite = ENTRY_TIDY;
		avec_push(a, out, e);
	}
}
