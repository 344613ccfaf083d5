/*
 * -f result: seed 002's BuildResult of a SillyTavern build -- the
 * messages, the variables as the build left them, the world-info
 * entries it activated, the regex scripts it ran (merged_regex), the
 * fingerprints --output delta compares, and on request the four stages
 * of every text (stages) and of each item (per_item).  --output history
 * keeps the chat's own messages; --output delta only what changed since
 * the fingerprints given.  The shapes are documented field by field in
 * strata-params(5).
 *
 * Fingerprints: FNV-1a 64 (hash.h), printed as 16 lowercase hex digits.
 * A message's is over its role, 0x1f, its name (empty when none), 0x1f,
 * its content; a variable's over its scope ("local" or "global"), 0x1f,
 * its name, 0x1f, its text; variables_hash over every variable's
 * fingerprint text in order (local then global, each in name order),
 * 0x1e after each.
 */
#include "emit/emit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/hash.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"
#include "prompt/chat.h"
#include "prompt/names.h"
#include "prompt/item.h"
#include "world/wi.h"
#include "world/world.h"

static const char *const stage_keys[ITEM_NSTAGES] = {
	"raw", "after_before_macro_regex", "after_macro", "after_regex",
};

static struct node *
null(struct arena *a)
{
	return tree_new(a, NODE_NULL, 0, span_make(0, 0));
}

static const char *
hex(struct arena *a, uint64_t h)
{
	return arena_printf(a, "%016llx", (unsigned long long)h);
}

static uint64_t
fp3(const char *x, const char *y, const char *z)
{
	uint64_t h = HASH_FNV_INIT;

	h = hash_fnv1a64(h, x, strlen(x));
	h = hash_fnv1a64(h, "\x1f", 1);
	h = hash_fnv1a64(h, y, strlen(y));
	h = hash_fnv1a64(h, "\x1f", 1);
	return hash_fnv1a64(h, z, strlen(z));
}

/* ---- where a text came from (SourcedContent) ---- */

/* The item's kind, as seed 002 tells its sources apart. */
enum kind {
	KIND_HISTORY,           /* a chat message */
	KIND_SANDBOX,           /* the sandbox's own extra system prompt */
	KIND_WORLD_BOOK,        /* a world-info slot */
	KIND_OTHER,             /* by its source: preset, character, ... */
};

static enum kind
kind(const struct item *it)
{
	if (strncmp(it->id, "chat#", 5) == 0)
		return KIND_HISTORY;
	if (strcmp(it->id, "sandbox.extra_system") == 0)
		return KIND_SANDBOX;
	if (it->source == ITEM_SOURCE_WORLD_INFO)
		return KIND_WORLD_BOOK;
	return KIND_OTHER;
}

/* Seed 002's name of the item's kind (its tag). */
static const char *
tag(const struct item *it, enum kind k)
{
	static const char *const names[] = { "history", "sandbox",
		"world_book" };

	if (k != KIND_OTHER)
		return names[k];
	return it->source == ITEM_SOURCE_CARD ? "character" :
	    item_source_name(it->source);
}

/* fast-tavern's name of the regex placement the text is under (its
 * TaggedContent target), or NULL: no script runs on it in a SillyTavern
 * build (fast-tavern says slashCommands there). */
static const char *
target(const struct item *it, enum kind k)
{
	if (k == KIND_WORLD_BOOK)
		return "worldBook";
	if (k != KIND_HISTORY)
		return NULL;
	if (it->role == ROLE_USER)
		return "userInput";
	if (it->role == ROLE_ASSISTANT)
		return "aiOutput";
	return NULL;
}

/* The world-info entries a world_book item joins: their ids, as
 * active_worldbook_entries names them. */
static struct node *
wb_entries(struct arena *a, const struct chat *c, const struct item *it)
{
	const struct wi_result *w = c->world_info;
	struct node *arr = tree_array(a);
	long long d = -1;
	int pos = -1, role = -1;
	size_t i;

	if (strcmp(it->id, "worldInfoBefore") == 0)
		pos = WORLD_BEFORE;
	else if (strcmp(it->id, "worldInfoAfter") == 0)
		pos = WORLD_AFTER;
	else if (sscanf(it->id, "customDepthWI_%lld_%d", &d, &role) == 2)
		pos = WORLD_DEPTH;
	for (i = 0; w && pos >= 0 && i < w->nactivated; i++) {
		const struct wi_record *r = w->activated[i];
		const struct world_entry *e = r->entry;

		if (e->position != pos || (pos == WORLD_DEPTH &&
		    (e->depth_at != d || e->role != role)))
			continue;
		tree_push(a, arr, tree_str(a, arena_printf(a, "%s.%lld",
		    r->world, (long long)e->uid)));
	}
	return arr;
}

static struct node *
sourced(struct arena *a, const struct chat *c, const struct item *it,
    const char *text, const char *by)
{
	struct node *o = tree_table(a), *src = tree_table(a);
	enum kind k = kind(it);
	const char *t = tag(it, k), *tg = target(it, k);
	bool hist = k == KIND_HISTORY, sandbox = k == KIND_SANDBOX;
	const char *pos = it->place ? it->place : it->depth >= 0 && !hist ?
	    "in-chat" : "relative";
	size_t i;

	tree_put(a, src, "type", tree_str(a, hist ? arena_printf(a,
	    "history.%s", names_role(it->role)) : sandbox ? it->id :
	    arena_printf(a, "%s.%s", t, pos)));
	/* Seed 002 names the sandbox's own item so. */
	tree_put(a, src, "id", tree_str(a, sandbox ? "extra_system" :
	    it->id));
	tree_put(a, src, "origin", tree_str(a, sandbox ? "sandbox" :
	    item_source_name(it->source)));
	if (!hist)
		tree_put(a, src, "position", tree_str(a, pos));
	if (it->depth >= 0 && !hist)
		tree_put(a, src, "depth", tree_int(a, it->depth));
	tree_put(a, src, "derived_role", tree_str(a, names_role(it->role)));
	tree_put(a, src, "target", tg ? tree_str(a, tg) : null(a));
	if (hist)
		tree_put(a, src, "index", tree_int(a, strtoll(it->id + 5,
		    NULL, 10)));
	if (k == KIND_WORLD_BOOK)
		tree_put(a, src, "entries", wb_entries(a, c, it));
	if (it->field)
		tree_put(a, src, "field", tree_str(a, it->field));
	/* A preset prompt's own fields (its text is the stage's). */
	for (i = 0; it->object && it->object->kind == NODE_TABLE &&
	    i < it->object->u.table.n; i++) {
		const struct member *m = &it->object->u.table.items[i];

		if (strcmp(m->key, "content") && !tree_get(src, m->key))
			tree_put(a, src, m->key, tree_copy(a, m->value));
	}
	tree_put(a, o, "source", src);
	tree_put(a, o, "tag", tree_str(a, t));
	tree_put(a, o, "role", tree_str(a, names_role(it->role)));
	if (text)
		tree_put(a, o, "text", tree_str(a, text));
	tree_put(a, o, "history_depth", hist ? tree_int(a, it->depth) :
	    null(a));
	if (by)
		tree_put(a, o, "regex_scripts", tree_str(a, by));
	return o;
}

/* Seed 002's thinking message before chat item it: source
 * history.thinking, its text the same at every stage (no regex, no
 * macros), the depth of the message it reasoned for. */
static struct node *
thinking(struct arena *a, const struct item *it, bool with_text)
{
	struct node *o = tree_table(a), *src = tree_table(a);

	tree_put(a, src, "type", tree_str(a, "history.thinking"));
	tree_put(a, src, "id", tree_str(a, arena_printf(a, "%s.thinking",
	    it->id)));
	tree_put(a, src, "origin", tree_str(a,
	    item_source_name(it->source)));
	tree_put(a, src, "derived_role", tree_str(a, "thinking"));
	tree_put(a, src, "target", tree_str(a, "reasoning"));
	tree_put(a, o, "source", src);
	tree_put(a, o, "tag", tree_str(a, "history"));
	tree_put(a, o, "role", tree_str(a, "thinking"));
	if (with_text)
		tree_put(a, o, "text", tree_str(a, it->thinking));
	tree_put(a, o, "history_depth", tree_int(a, it->depth));
	return o;
}

/* The items in the request, in message order. */
static size_t
sent_items(struct arena *a, const struct chat *c, const uint32_t **out)
{
	const struct item_report *r = c->items;
	uint32_t *v = arena_array(a, r->n + 1, sizeof(*v));
	size_t i, n = 0;
	uint32_t j;

	for (i = 0; i < c->n; i++)
		for (j = 0; j < r->msg_nitems[i]; j++)
			v[n++] = r->msg_items[i][j];
	*out = v;
	return n;
}

static struct node *
stages(struct arena *a, const struct chat *c)
{
	const struct item_report *r = c->items;
	struct node *o = tree_table(a);
	const uint32_t *v;
	size_t n = sent_items(a, c, &v), i;
	int k;

	for (k = 0; k < ITEM_NSTAGES; k++) {
		struct node *arr = tree_array(a);

		for (i = 0; i < n; i++) {
			if (r->items[v[i]].thinking)
				tree_push(a, arr, thinking(a,
				    &r->items[v[i]], true));
			tree_push(a, arr, sourced(a, c, &r->items[v[i]],
			    r->items[v[i]].text[k], r->items[v[i]].by[k]));
		}
		tree_put(a, o, stage_keys[k], arr);
	}
	return o;
}

static struct node *
per_item(struct arena *a, const struct chat *c)
{
	const struct item_report *r = c->items;
	struct node *arr = tree_array(a);
	const uint32_t *v;
	size_t n = sent_items(a, c, &v), i;
	int k;

	for (i = 0; i < n; i++) {
		const struct item *it = &r->items[v[i]];
		struct node *o;

		if (it->thinking) {
			o = thinking(a, it, false);
			for (k = 0; k < ITEM_NSTAGES; k++)
				tree_put(a, o, stage_keys[k], tree_str(a,
				    it->thinking));
			tree_push(a, arr, o);
		}
		o = sourced(a, c, it, NULL, NULL);

		for (k = 0; k < ITEM_NSTAGES; k++)
			tree_put(a, o, stage_keys[k], tree_str(a,
			    it->text[k]));
		for (k = 0; k < ITEM_NSTAGES; k++)
			if (it->by[k])
				tree_put(a, o, arena_printf(a,
				    "%s_regex_scripts", stage_keys[k]),
				    tree_str(a, it->by[k]));
		tree_push(a, arr, o);
	}
	return arr;
}

/* ---- world info ---- */

static struct node *
world_entries(struct arena *a, const struct chat *c)
{
	const struct wi_result *w = c->world_info;
	struct node *arr = tree_array(a);
	size_t i, k;

	for (i = 0; w && i < w->nactivated; i++) {
		const struct wi_record *r = w->activated[i];
		const struct world_entry *e = r->entry;
		struct node *o = tree_table(a), *keys = tree_array(a);

		tree_put(a, o, "id", tree_str(a, arena_printf(a, "%s.%lld",
		    r->world, (long long)e->uid)));
		for (k = 0; k < e->key.n; k++)
			tree_push(a, keys, tree_str(a, e->key.v[k]));
		tree_put(a, o, "keywords", keys);
		tree_put(a, o, "position", tree_str(a,
		    world_position_name(e->position)));
		tree_put(a, o, "depth", e->position == WORLD_DEPTH ?
		    tree_int(a, e->depth) : null(a));
		tree_put(a, o, "activation_reason", tree_str(a,
		    r->reason == WI_BY_KEY && r->key ? r->key :
		    r->reason == WI_BY_CONSTANT ? "constant" :
		    wi_reason_name(r->reason)));
		tree_push(a, arr, o);
	}
	return arr;
}

/* ---- variables ---- */

static int
by_key(const void *x, const void *y)
{
	const struct member *const *p = x, *const *q = y;

	return strcmp((*p)->key, (*q)->key);
}

/* t's members in name order (t may be NULL). */
static size_t
sorted(struct arena *a, const struct node *t, const struct member ***out)
{
	size_t n = t && t->kind == NODE_TABLE ? t->u.table.n : 0, i;
	const struct member **v = arena_array(a, n + 1, sizeof(*v));

	for (i = 0; i < n; i++)
		v[i] = &t->u.table.items[i];
	qsort(v, n, sizeof(*v), by_key);
	*out = v;
	return n;
}

static const char *
var_text(struct arena *a, const struct node *v)
{
	struct buf b = BUF_INIT;
	const char *s;

	if (v->kind == NODE_STRING)
		return v->u.str.s;
	json_write(&b, v, 0);
	buf_putc(&b, '\0');
	s = arena_strdup(a, b.data);
	buf_free(&b);
	return s;
}

struct vars {
	struct node *tables[2];         /* local, global: all */
	struct node *fps;               /* "local.NAME" -> fingerprint */
	const char *hash;
};

static void
variables(struct arena *a, const struct emit_result *r, struct vars *out)
{
	static const char *const scopes[2] = { "local", "global" };
	const struct node *in[2];
	uint64_t h = HASH_FNV_INIT;
	int s;

	in[0] = r->locals;
	in[1] = r->globals;
	out->fps = tree_table(a);
	for (s = 0; s < 2; s++) {
		const struct member **v;
		size_t n = sorted(a, in[s], &v), i;

		out->tables[s] = tree_table(a);
		for (i = 0; i < n; i++) {
			const char *t = var_text(a, v[i]->value);
			const char *fp = hex(a, fp3(scopes[s], v[i]->key, t));

			tree_put(a, out->tables[s], v[i]->key,
			    tree_copy(a, v[i]->value));
			tree_put(a, out->fps, arena_printf(a, "%s.%s",
			    scopes[s], v[i]->key), tree_str(a, fp));
			h = hash_fnv1a64(h, fp, strlen(fp));
			h = hash_fnv1a64(h, "\x1e", 1);
		}
	}
	out->hash = hex(a, h);
}

/* The variables whose fingerprint is not the one given (and those given
 * that are gone, as null). */
static struct node *
vars_delta(struct arena *a, const struct vars *v, const struct node *old)
{
	static const char *const scopes[2] = { "local", "global" };
	struct node *o = tree_table(a);
	size_t i;
	int s;

	for (s = 0; s < 2; s++) {
		struct node *t = tree_put(a, o, scopes[s], tree_table(a));

		for (i = 0; i < v->tables[s]->u.table.n; i++) {
			const struct member *m = &v->tables[s]->u.table.items[i];
			const char *key = arena_printf(a, "%s.%s", scopes[s],
			    m->key);
			const struct node *was = old ? tree_get(old, key) :
			    NULL;
			const struct node *now = tree_get(v->fps, key);

			if (!was || was->kind != NODE_STRING ||
			    strcmp(was->u.str.s, now->u.str.s))
				tree_put(a, t, m->key, tree_copy(a, m->value));
		}
	}
	for (i = 0; old && i < old->u.table.n; i++) {
		const struct member *m = &old->u.table.items[i];
		const char *dot = strchr(m->key, '.');

		if (!dot || tree_get(v->fps, m->key))
			continue;
		for (s = 0; s < 2; s++)
			if ((size_t)(dot - m->key) == strlen(scopes[s]) &&
			    strncmp(m->key, scopes[s], (size_t)(dot -
			    m->key)) == 0)
				tree_put(a, tree_get(o, scopes[s]), dot + 1,
				    null(a));
	}
	return o;
}

/* ---- messages ---- */

/* Is message i the chat's own (every item of it a chat message)? */
static bool
from_history(const struct chat *c, size_t i)
{
	const struct item_report *r = c->items;
	uint32_t j;

	if (!r->msg_nitems[i])
		return false;
	for (j = 0; j < r->msg_nitems[i]; j++)
		if (strncmp(r->items[r->msg_items[i][j]].id, "chat#", 5))
			return false;
	return true;
}

static struct node *
message(struct arena *a, const struct message *m, const char *role)
{
	struct node *o = tree_table(a);

	tree_put(a, o, "role", tree_str(a, role));
	tree_put(a, o, "content", tree_strn(a, m->content ? m->content : "",
	    m->content ? m->len : 0));
	tree_put(a, o, "name", m->name ? tree_str(a, m->name) : null(a));
	return o;
}

bool
emit_result(struct run *run, const struct chat *c,
    const struct emit_result *r, struct buf *out)
{
	struct arena *a = &run->arena;
	struct node *res = tree_table(a), *msgs = tree_array(a);
	struct node *fps = tree_table(a);
	bool history = strcmp(r->output, "history") == 0;
	bool delta = strcmp(r->output, "delta") == 0;
	struct vars v;
	size_t i, k = 0;

	variables(a, r, &v);
	for (i = 0; i < c->n * 2; i++) {
		const struct message *m = &c->msgs[i / 2], *mt = m;
		struct message think;
		const char *key, *fp;
		const struct node *was;
		struct node *o;

		if (history && !from_history(c, i / 2))
			continue;
		/* Each message after its thinking, if it has one. */
		if (i % 2 == 0) {
			if (!m->x || !m->x->reasoning)
				continue;
			memset(&think, 0, sizeof(think));
			think.content = m->x->reasoning;
			think.len = m->x->reasoning_len;
			m = &think;
		}
		key = arena_printf(a, "%zu", k++);
		fp = hex(a, fp3(m == mt ? names_role(m->role) : "thinking",
		    m->name ? m->name : "", m->content ? m->content : ""));
		tree_put(a, fps, key, tree_str(a, fp));
		was = r->fingerprints ? tree_get(r->fingerprints, key) : NULL;
		if (delta && was && was->kind == NODE_STRING &&
		    strcmp(was->u.str.s, fp) == 0)
			continue;
		o = message(a, m, m == mt ? names_role(m->role) : "thinking");
		if (delta)
			tree_put(a, o, "index", tree_int(a, (int64_t)k - 1));
		tree_push(a, msgs, o);
	}
	tree_put(a, res, "output", tree_str(a, r->output));
	tree_put(a, res, "messages", msgs);
	if (delta) {
		tree_put(a, res, "message_count", tree_int(a, (int64_t)k));
		if (r->vars_hash && strcmp(r->vars_hash, v.hash) == 0)
			tree_put(a, res, "variables", null(a));
		else
			tree_put(a, res, "variables", vars_delta(a, &v,
			    r->vars_fingerprints));
	} else {
		struct node *vt = tree_put(a, res, "variables",
		    tree_table(a));

		tree_put(a, vt, "local", v.tables[0]);
		tree_put(a, vt, "global", v.tables[1]);
	}
	tree_put(a, res, "active_worldbook_entries", world_entries(a, c));
	tree_put(a, res, "merged_regex", c->merged_regex ?
	    tree_copy(a, c->merged_regex) : null(a));
	tree_put(a, res, "fingerprints", fps);
	tree_put(a, res, "variables_hash", tree_str(a, v.hash));
	tree_put(a, res, "variables_fingerprints", v.fps);
	if (r->stages)
		tree_put(a, res, "stages", stages(a, c));
	if (r->per_item)
		tree_put(a, res, "per_item", per_item(a, c));
	json_write(out, res, 2);
	buf_putc(out, '\n');
	return true;
}
