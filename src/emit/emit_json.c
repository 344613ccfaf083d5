/*
 * The full build result as JSON: the messages (with where each came from,
 * its size, estimated tokens and fingerprint), every entry offered with
 * its metadata and status, and the tools.  `strata debug --json` prints
 * the same document.
 */
#include "emit/emit.h"

#include "profile/profile.h"

#include <inttypes.h>
#include <stdio.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/hash.h"
#include "prompt/chat.h"
#include "data/json.h"
#include "diag/run.h"
#include "diag/source.h"
#include "data/tree.h"

static const char *
fingerprint(struct arena *a, uint64_t h)
{
	return arena_printf(a, "fnv1a64:%016" PRIx64, h);
}

/* Where an entry or message came from, or null. */
static struct node *
where(struct run *run, bool has, uint32_t src, struct span sp)
{
	const char *s = emit_where(run, has, src, sp);

	return s ? tree_str(&run->arena, s) :
	    tree_new(&run->arena, NODE_NULL, 0, span_make(0, 0));
}

static const char *
placement_name(enum placement p)
{
	return p == PLACE_USER ? "user" : "system";
}

bool
emit_json(struct run *run, const struct chat *c, struct buf *out)
{
	struct arena *a = &run->arena;
	struct node *doc = tree_table(a), *msgs, *ents, *tools;
	uint64_t all = HASH_FNV_INIT;
	size_t i, k;

	tree_put(a, doc, "profile", tree_str(a, c->profile->src->path));
	tree_put(a, doc, "format", tree_str(a,
	    names_format(c->format)));
	tree_put(a, doc, "model", c->model ? tree_str(a, c->model) :
	    tree_new(a, NODE_NULL, 0, span_make(0, 0)));
	msgs = tree_put(a, doc, "messages", tree_array(a));
	for (i = 0; i < c->n; i++) {
		const struct message *m = &c->msgs[i];
		struct node *o = tree_table(a), *keys;
		const char *role = names_role(m->role);
		uint64_t h = emit_fingerprint(role, m->content, m->len);

		all = emit_fingerprint_fold(all, h);
		tree_put(a, o, "role", tree_str(a, role));
		if (m->name)
			tree_put(a, o, "name", tree_str(a, m->name));
		tree_put(a, o, "origin", tree_str(a, m->origin));
		tree_put(a, o, "content", tree_strref(a, m->content, m->len));
		tree_put(a, o, "bytes", tree_int(a, (int64_t)m->len));
		tree_put(a, o, "tokens", tree_int(a,
		    (int64_t)emit_tokens(m->content, m->len)));
		tree_put(a, o, "fingerprint", tree_str(a, fingerprint(a, h)));
		tree_put(a, o, "source", where(run, m->has_src &&
		    !m->nentries, m->src, m->span));
		keys = tree_put(a, o, "entries", tree_array(a));
		for (k = 0; k < m->nentries; k++)
			tree_push(a, keys, tree_str(a, m->entries[k]->key));
		tree_put(a, o, "prefix_fingerprint", tree_str(a,
		    fingerprint(a, all)));
		tree_push(a, msgs, o);
	}
	ents = tree_put(a, doc, "entries", tree_array(a));
	for (i = 0; i < c->stack.nall; i++) {
		const struct entry *e = c->stack.all[i];
		struct node *o = tree_table(a);

		tree_put(a, o, "key", tree_str(a, e->key));
		tree_put(a, o, "layer", tree_str(a, e->layer));
		tree_put(a, o, "status", tree_str(a,
		    entry_status_name(e->status)));
		tree_put(a, o, "priority", tree_int(a, e->priority));
		tree_put(a, o, "role", tree_str(a, names_role(e->role)));
		tree_put(a, o, "placement", tree_str(a,
		    placement_name(e->placement)));
		tree_put(a, o, "scope", tree_str(a,
		    names_scope(e->scope)));
		tree_put(a, o, "enabled", tree_bool(a, e->enabled));
		tree_put(a, o, "source", where(run, e->has_src, e->src,
		    e->span));
		tree_put(a, o, "bytes", tree_int(a, (int64_t)e->len));
		tree_put(a, o, "tokens", tree_int(a,
		    (int64_t)(e->content ? emit_tokens(e->content, e->len) :
		    0)));
		tree_put(a, o, "message", e->message >= 0 ?
		    tree_int(a, e->message) :
		    tree_new(a, NODE_NULL, 0, span_make(0, 0)));
		tree_put(a, o, "content", e->content ?
		    tree_strref(a, e->content, e->len) :
		    tree_new(a, NODE_NULL, 0, span_make(0, 0)));
		tree_push(a, ents, o);
	}
	tools = tree_put(a, doc, "tools", tree_array(a));
	for (i = 0; i < c->tools.n; i++)
		tree_push(a, tools, tree_str(a, c->tools.items[i]->name));
	tree_put(a, doc, "fingerprint", tree_str(a, fingerprint(a, all)));
	/* What strata diff compares besides the messages: the format the
	 * profile builds for, the tools whole, the parameters. */
	tree_put(a, doc, "provider", tree_str(a, names_format(
	    c->profile->has_output ? c->profile->output : FORMAT_OPENAI)));
	tools = tree_put(a, doc, "tool_defs", tree_array(a));
	for (i = 0; i < c->tools.n; i++)
		tree_push(a, tools, emit_tool(a, c->tools.items[i],
		    "parameters"));
	tree_put(a, doc, "params", c->params ? tree_copy(a, c->params) :
	    tree_table(a));
	tree_put(a, doc, "max_tokens", tree_int(a, c->max_tokens));
	json_write(out, doc, 2);
	buf_putc(out, '\n');
	return true;
}
