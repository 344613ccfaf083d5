/*
 * The full build result as JSON: the messages (with where each came from,
 * its size, estimated tokens and fingerprint), every entry offered with
 * its metadata and status, the tools, and the fingerprint of the whole
 * request (messages, model, tools, parameters).  `strata debug --json` prints
 * the same document.
 */
#include "emit/emit.h"

#include "profile/profile.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/hash.h"
#include "prompt/chat.h"
#include "data/json.h"
#include "diag/run.h"
#include "diag/source.h"
#include "data/tree.h"
#include "world/wi.h"
#include "pipeline/budget.h"
#include "text/tokenizer.h"

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

/* Fold the fingerprint of what (a NUL, then the compact JSON of n) into
 * the request's. */
static uint64_t
fold_json(uint64_t all, const char *what, const struct node *n)
{
	struct buf b = BUF_INIT;

	json_write(&b, n, -1);
	all = emit_fingerprint_fold(all, emit_fingerprint(what, b.data,
	    b.len));
	buf_free(&b);
	return all;
}

/*
 * The request's fingerprint: each message's, then, when the request has
 * them, the model, each tool ({name, description, parameters[,
 * strict]}), [output.params] as written and [output] max_tokens, each
 * as a fingerprint of its own folded in.  strata(1) documents it.
 */
static uint64_t
request_fingerprint(struct run *run, const struct chat *c, uint64_t all)
{
	struct arena *a = &run->arena;
	size_t i;

	if (c->model)
		all = emit_fingerprint_fold(all, emit_fingerprint("model",
		    c->model, strlen(c->model)));
	for (i = 0; i < c->tools.n; i++) {
		const struct tool *t = c->tools.items[i];
		struct node *o = emit_tool(a, t, "parameters");

		if (t->strict)
			tree_put(a, o, "strict", (struct node *)t->strict);
		all = fold_json(all, "tool", o);
	}
	if (c->params)
		all = fold_json(all, "params", c->params);
	if (c->max_tokens)
		all = fold_json(all, "max_tokens", tree_int(a,
		    c->max_tokens));
	return all;
}

static struct node *
null(struct arena *a)
{
	return tree_new(a, NODE_NULL, 0, span_make(0, 0));
}

/* Parts, tool calls, the call a result answers, reasoning. */
static void
extra(struct arena *a, struct node *o, const struct message_extra *x)
{
	struct node *arr;
	size_t k;

	if (x->nparts) {
		arr = tree_put(a, o, "parts", tree_array(a));
		for (k = 0; k < x->nparts; k++) {
			const struct part *p = &x->parts[k];
			struct node *q = tree_table(a);

			tree_put(a, q, "type", tree_str(a, p->kind ==
			    PART_TEXT ? "text" : p->kind == PART_IMAGE ?
			    "image" : "file"));
			if (p->kind == PART_TEXT) {
				tree_put(a, q, "text", tree_strref(a, p->data,
				    p->len));
			} else {
				if (p->media_type)
					tree_put(a, q, "media_type",
					    tree_str(a, p->media_type));
				if (p->filename)
					tree_put(a, q, "filename",
					    tree_str(a, p->filename));
				if (p->url)
					tree_put(a, q, "url", tree_strref(a,
					    p->data, p->len));
				else
					tree_put(a, q, "base64_bytes",
					    tree_int(a, (int64_t)p->len));
			}
			tree_push(a, arr, q);
		}
	}
	if (x->ncalls) {
		arr = tree_put(a, o, "tool_calls", tree_array(a));
		for (k = 0; k < x->ncalls; k++) {
			struct node *q = tree_table(a);

			tree_put(a, q, "id", tree_str(a, x->calls[k].id));
			tree_put(a, q, "name", tree_str(a, x->calls[k].name));
			tree_put(a, q, "arguments",
			    (struct node *)x->calls[k].args);
			tree_push(a, arr, q);
		}
	}
	if (x->call_id) {
		tree_put(a, o, "tool_call_id", tree_str(a, x->call_id));
		tree_put(a, o, "tool_name", tree_str(a, x->call_name));
		tree_put(a, o, "is_error", tree_bool(a, x->is_error));
	}
	/* The reasoning before an assistant message, and what its
	 * provider signed (history "reasoning" and "strata"). */
	if (x->reasoning)
		tree_put(a, o, "reasoning", tree_strref(a, x->reasoning,
		    x->reasoning_len));
	if (x->replay)
		tree_put(a, o, "strata", (struct node *)x->replay);
}

static const char *
placement_name(enum placement p)
{
	return p == PLACE_USER ? "user" : p == PLACE_DEPTH ? "in-chat" :
	    "system";
}

/* One entry: its metadata, status and content.  A base entry (the
 * prefix, the history's system text) comes before every priority and
 * has none. */
static struct node *
entry(struct run *run, const struct emit_counter *count,
    const struct entry *e)
{
	struct arena *a = &run->arena;
	struct node *o = tree_table(a);

	tree_put(a, o, "key", tree_str(a, e->key));
	tree_put(a, o, "layer", tree_str(a, e->layer));
	tree_put(a, o, "status", tree_str(a, entry_status_name(e->status)));
	tree_put(a, o, "priority", e->base ? null(a) :
	    tree_int(a, e->priority));
	tree_put(a, o, "base", tree_bool(a, e->base));
	tree_put(a, o, "role", tree_str(a, names_role(e->role)));
	tree_put(a, o, "placement", tree_str(a,
	    placement_name(e->placement)));
	if (e->placement == PLACE_DEPTH)
		tree_put(a, o, "depth", tree_int(a, e->depth));
	tree_put(a, o, "scope", tree_str(a, names_scope(e->scope)));
	tree_put(a, o, "enabled", tree_bool(a, e->enabled));
	tree_put(a, o, "source", where(run, e->has_src, e->src, e->span));
	tree_put(a, o, "bytes", tree_int(a, (int64_t)e->len));
	tree_put(a, o, "tokens", tree_int(a, (int64_t)(e->content ?
	    emit_count(count, e->content, e->len) : 0)));
	/* Messages are numbered from 1 in every view (strata(1)). */
	tree_put(a, o, "message", e->message >= 0 ?
	    tree_int(a, e->message + 1) : null(a));
	tree_put(a, o, "content", e->content ?
	    tree_strref(a, e->content, e->len) : null(a));
	return o;
}

/* Message *ip with where it came from, its size and fingerprint. */
static struct node *
message(struct run *run, const struct chat *c, size_t *ip, struct arena *a)
{
	size_t at = *ip;
	const struct message *m = &c->msgs[(*ip)++];
	struct node *o = tree_table(a), *keys;
	const char *role = names_role(m->role), *w;
	uint64_t h = emit_fingerprint(role, m->content, m->len);
	struct emit_counter count;
	size_t k;

	emit_counter_init(&count, c);
	tree_put(a, o, "role", tree_str(a, role));
	if (m->name)
		tree_put(a, o, "name", tree_str(a, m->name));
	tree_put(a, o, "origin", tree_str(a, names_origin(m->origin)));
	tree_put(a, o, "content", tree_strref(a, m->content, m->len));
	if (m->x)
		extra(a, o, m->x);
	tree_put(a, o, "bytes", tree_int(a, (int64_t)m->len));
	tree_put(a, o, "tokens", tree_int(a,
	    (int64_t)emit_count(&count, m->content, m->len)));
	tree_put(a, o, "fingerprint", tree_str(a, fingerprint(a, h)));
	w = m->has_src && !m->nentries ? emit_where_in(run, a, m->src,
	    m->span) : NULL;
	tree_put(a, o, "source", w ? tree_str(a, w) : tree_new(a, NODE_NULL,
	    0, span_make(0, 0)));
	keys = tree_put(a, o, "entries", tree_array(a));
	for (k = 0; k < m->nentries; k++)
		tree_push(a, keys, tree_str(a, m->entries[k]->key));
	/* The conversation up to and including this message, folded as the
	 * request's fingerprint folds it: where a provider's prompt cache
	 * would stop matching (strata diff, strata test). */
	if (c->prefix_fp)
		tree_put(a, o, "prefix_fingerprint", tree_str(a,
		    fingerprint(a, c->prefix_fp[at])));
	if (c->dialect == DIALECT_TAVERN)
		emit_json_tavern_message(a, c, at, o);
	return o;
}

/* The token budget and its cuts (pipeline/budget.h), as the debug view
 * shows them. */
static struct node *
budget(struct run *run, const struct budget_report *r)
{
	struct arena *a = &run->arena;
	struct node *o = tree_table(a), *l, *cuts;
	size_t i;

	if (!r->on) {
		tree_put(a, o, "tokens", null(a));
		tree_put(a, o, "none", tree_str(a, r->none));
		return o;
	}
	tree_put(a, o, "tokens", tree_int(a, r->budget));
	tree_put(a, o, "from", tree_str(a, r->from));
	tree_put(a, o, "counter", tree_str(a, r->counter));
	tree_put(a, o, "exact", tree_bool(a, r->exact));
	tree_put(a, o, "method", r->exact ? null(a) :
	    tree_str(a, TOKENIZER_ESTIMATE));
	tree_put(a, o, "margin", tree_int(a, r->margin));
	tree_put(a, o, "fitted_to", tree_int(a, r->room));
	tree_put(a, o, "used", tree_int(a, (int64_t)r->used));
	tree_put(a, o, "protected", tree_int(a,
	    (int64_t)r->protected_tokens));
	l = tree_put(a, o, "layers", tree_table(a));
	for (i = 0; i < r->nlayers; i++)
		tree_put(a, l, r->layers[i].layer, tree_int(a,
		    (int64_t)r->layers[i].tokens));
	cuts = tree_put(a, o, "cuts", tree_array(a));
	for (i = 0; i < r->ncuts; i++) {
		const struct budget_cut *k = &r->cuts[i];
		struct node *x = tree_table(a);

		tree_put(a, x, "key", k->key ? tree_str(a, k->key) : null(a));
		tree_put(a, x, "layer", tree_str(a, k->layer));
		tree_put(a, x, "priority", k->base ? null(a) :
		    tree_int(a, k->priority));
		tree_put(a, x, "cut", tree_str(a, k->fate == BUDGET_DROPPED ?
		    "dropped" : k->fate == BUDGET_FALLBACK ? "fallback" :
		    "truncated"));
		if (k->how)
			tree_put(a, x, "at", tree_str(a, k->how));
		tree_put(a, x, "tokens", k->counted ? tree_int(a,
		    (int64_t)k->was) : null(a));
		tree_put(a, x, "kept", tree_int(a, (int64_t)k->now));
		if (!k->key) {
			tree_put(a, x, "first", tree_int(a, (int64_t)k->first));
			tree_put(a, x, "last", tree_int(a, (int64_t)k->last));
			tree_put(a, x, "turns", tree_int(a, (int64_t)k->turns));
		} else {
			tree_put(a, x, "source", where(run, k->has_src, k->src,
			    k->span));
		}
		tree_push(a, cuts, x);
	}
	return o;
}

bool
emit_json(struct run *run, const struct chat *c, struct buf *out)
{
	struct arena *a = &run->arena;
	struct node *doc = tree_table(a), *hole, *ents, *tools;
	uint64_t all = HASH_FNV_INIT, *prefix;
	struct chat view = *c;
	struct emit_counter count;
	size_t i, k;

	emit_counter_init(&count, c);
	tree_put(a, doc, "profile", tree_str(a, c->profile->src->path));
	tree_put(a, doc, "format", tree_str(a,
	    names_format(c->format)));
	tree_put(a, doc, "model", c->model ? tree_str(a, c->model) :
	    tree_new(a, NODE_NULL, 0, span_make(0, 0)));
	tree_put(a, doc, "tokenizer", tree_str(a, emit_counter_name(&count)));
	/* Consumed, never sent: SOUL.md's front matter (issue 11). */
	if (c->soul)
		tree_put(a, doc, "soul", tree_copy(a, c->soul));
	hole = tree_put(a, doc, "messages", tree_array(a));
	prefix = arena_array(a, c->n + 1, sizeof(*prefix));
	for (i = 0; i < c->n; i++) {
		all = emit_fingerprint_fold(all, emit_fingerprint(
		    names_role(c->msgs[i].role), c->msgs[i].content,
		    c->msgs[i].len));
		prefix[i] = all;
	}
	view.prefix_fp = prefix;
	ents = tree_put(a, doc, "entries", tree_array(a));
	/* In output order: each message's entries, then the others in the
	 * order they were offered. */
	for (i = 0; i < c->n; i++)
		for (k = 0; k < c->msgs[i].nentries; k++)
			tree_push(a, ents, entry(run, &count, c->msgs[i].entries[k]));
	for (i = 0; i < c->stack.nall; i++)
		if (c->stack.all[i]->message < 0)
			tree_push(a, ents, entry(run, &count, c->stack.all[i]));
	tools = tree_put(a, doc, "tools", tree_array(a));
	for (i = 0; i < c->tools.n; i++)
		tree_push(a, tools, tree_str(a, c->tools.items[i]->name));
	/* What the history clean-up changed, when it changed anything. */
	if (c->ncleanups) {
		struct node *cl = tree_put(a, doc, "cleanup", tree_array(a));

		for (i = 0; i < c->ncleanups; i++) {
			const struct cleanup_note *n = &c->cleanups[i];
			struct node *o = tree_table(a);

			tree_put(a, o, "message", tree_int(a,
			    (int64_t)n->message));
			tree_put(a, o, "rule", tree_str(a, n->rule));
			tree_put(a, o, "change", tree_str(a, n->change));
			tree_put(a, o, "source", where(run, n->has_src,
			    n->src, n->span));
			tree_push(a, cl, o);
		}
	}
	tree_put(a, doc, "fingerprint", tree_str(a, fingerprint(a,
	    request_fingerprint(run, c, all))));
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
	/* The token budget, when the profile asked for one or it cut. */
	if (c->budget && c->budget->shown)
		tree_put(a, doc, "budget", budget(run, c->budget));
	/* A SillyTavern build: every prompt and message it met. */
	if (c->dialect == DIALECT_TAVERN)
		tree_put(a, doc, "items", emit_json_tavern_items(run, c));
	/* A group chat's: who speaks, and why. */
	if (emit_tavern_speaker(c))
		tree_put(a, doc, "speaker", tree_str(a,
		    emit_tavern_speaker(c)));
	/* A SillyTavern build's world info: what each entry did, the
	 * budget, the timed-effects state to save. */
	if (c->world_info)
		tree_put(a, doc, "world_info", wi_build_node(a,
		    c->world_info));
	return emit_write(run, &view, doc, hole, 0, message, out);
}
