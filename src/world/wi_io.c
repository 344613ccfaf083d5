/*
 * wi_io: settings and timed-effect state in, results out, as trees.
 */
#include "world/wi.h"

#include <string.h>

#include "base/arena.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "data/tree.h"
#include "base/util.h"

static void
bad(struct run *run, const struct node *n, const char *key,
    const char *want)
{
	diag_warning(run, run_source(run, n->src), n->span, MSG_WI_SETTINGS,
	    key, want);
}

static void
set_int(struct run *run, const struct node *t, const char *key,
    int64_t *out)
{
	const struct node *n = tree_get(t, key);

	if (!n)
		return;
	if (n->kind == NODE_INT)
		*out = n->u.i;
	else if (n->kind == NODE_FLOAT)
		*out = (int64_t)n->u.f;
	else
		bad(run, n, key, "a number");
}

static void
set_bool(struct run *run, const struct node *t, const char *key,
    bool *out)
{
	const struct node *n = tree_get(t, key);

	if (!n)
		return;
	if (n->kind == NODE_BOOL)
		*out = n->u.b;
	else
		bad(run, n, key, "true or false");
}

bool
wi_settings_from_node(struct run *run, const struct node *root,
    struct wi_settings *s, int64_t *max_context)
{
	const struct node *w = tree_get(root, "world_info_settings");
	const struct node *o = tree_get(root, "oai_settings"), *n;
	int64_t strategy = s->strategy;

	if (!w)
		w = root;
	if (w->kind != NODE_TABLE) {
		bad(run, w, "world_info_settings", "an object");
		return false;
	}
	set_int(run, w, "world_info_depth", &s->depth);
	set_int(run, w, "world_info_budget", &s->budget_percent);
	set_int(run, w, "world_info_budget_cap", &s->budget_cap);
	set_int(run, w, "world_info_min_activations", &s->min_activations);
	set_int(run, w, "world_info_min_activations_depth_max",
	    &s->min_activations_depth_max);
	set_int(run, w, "world_info_max_recursion_steps",
	    &s->max_recursion_steps);
	set_bool(run, w, "world_info_include_names", &s->include_names);
	set_bool(run, w, "world_info_recursive", &s->recursive);
	set_bool(run, w, "world_info_case_sensitive", &s->case_sensitive);
	set_bool(run, w, "world_info_match_whole_words",
	    &s->match_whole_words);
	set_bool(run, w, "world_info_use_group_scoring",
	    &s->use_group_scoring);
	set_int(run, w, "world_info_character_strategy", &strategy);
	s->strategy = strategy >= 0 && strategy <= 2 ? (int)strategy : 1;
	set_bool(run, w, "world_info_overflow_alert", &s->overflow_alert);
	if (o && o->kind == NODE_TABLE) {
		int64_t ctx = -1, resp = -1;

		if ((n = tree_get(o, "wi_format")) && n->kind == NODE_STRING)
			s->wi_format = n->u.str.s;
		set_int(run, o, "openai_max_context", &ctx);
		set_int(run, o, "openai_max_tokens", &resp);
		if (ctx >= 0 && resp >= 0 && max_context)
			*max_context = ctx - resp;
	}
	return true;
}

void
wi_timed_from_node(struct run *run, const struct node *n,
    struct wi_timed *t)
{
	int type;
	size_t i;

	memset(t, 0, sizeof(*t));
	if (!n || n->kind != NODE_TABLE)
		return;
	for (type = 0; type < 2; type++) {
		const struct node *m = tree_get(n, type ? "cooldown" : "sticky");
		struct wi_timed_effect *v;
		size_t k = 0;

		if (!m || m->kind != NODE_TABLE)
			continue;
		v = arena_array(&run->arena, m->u.table.n + 1, sizeof(*v));
		for (i = 0; i < m->u.table.n; i++) {
			const struct node *r = m->u.table.items[i].value;
			const struct node *f;

			if (r->kind != NODE_TABLE || !tree_get(r, "end"))
				continue;       /* ST drops these */
			v[k].key = m->u.table.items[i].key;
			v[k].start = 0;
			v[k].end = 0;
			if ((f = tree_get(r, "start")) && f->kind == NODE_INT)
				v[k].start = f->u.i;
			if ((f = tree_get(r, "end")) && f->kind == NODE_INT)
				v[k].end = f->u.i;
			if ((f = tree_get(r, "hash")) && f->kind == NODE_INT)
				v[k].hash = (uint64_t)f->u.i;
			if ((f = tree_get(r, "protected")) &&
			    f->kind == NODE_BOOL)
				v[k].protect = f->u.b;
			k++;
		}
		if (type) {
			t->cooldown = v;
			t->ncooldown = k;
		} else {
			t->sticky = v;
			t->nsticky = k;
		}
	}
}

struct node *
wi_timed_to_node(struct arena *a, const struct wi_timed *t)
{
	struct node *root = tree_table(a);
	int type;
	size_t i;

	for (type = 0; type < 2; type++) {
		struct node *m = tree_put(a, root, type ? "cooldown" :
		    "sticky", tree_table(a));
		const struct wi_timed_effect *v = type ? t->cooldown :
		    t->sticky;
		size_t n = type ? t->ncooldown : t->nsticky;

		for (i = 0; i < n; i++) {
			struct node *r;

			if (tree_get(m, v[i].key))
				continue;
			r = tree_put(a, m, v[i].key, tree_table(a));
			tree_put(a, r, "hash", tree_int(a, (int64_t)v[i].hash));
			tree_put(a, r, "start", tree_int(a, v[i].start));
			tree_put(a, r, "end", tree_int(a, v[i].end));
			tree_put(a, r, "protected", tree_bool(a, v[i].protect));
		}
	}
	return root;
}

static struct node *
strs(struct arena *a, const char *const *v, size_t n)
{
	struct node *arr = tree_array(a);
	size_t i;

	for (i = 0; i < n; i++)
		tree_push(a, arr, tree_str(a, v[i]));
	return arr;
}

/*
 * One record.  For a build (-f json) the book is "book" and "outcome"
 * says "activated" or "not activated" beside the reason; `strata wi
 * --json` keeps "world" and "activated".
 */
static struct node *
record_node(struct arena *a, const struct wi_record *r, bool build)
{
	struct node *t = tree_table(a);

	tree_put(a, t, build ? "book" : "world", tree_str(a, r->world));
	tree_put(a, t, "source", tree_str(a, wi_source_name(r->source)));
	tree_put(a, t, "uid", tree_int(a, r->entry->uid));
	tree_put(a, t, "comment", tree_str(a, r->entry->comment));
	if (build)
		tree_put(a, t, "outcome", tree_str(a, r->activated ?
		    "activated" : "not activated"));
	else
		tree_put(a, t, "activated", tree_bool(a, r->activated));
	tree_put(a, t, "reason", tree_str(a, wi_reason_name(r->reason)));
	tree_put(a, t, "pass", tree_int(a, r->pass));
	if (r->level || build)
		tree_put(a, t, "level", tree_int(a, r->level));
	if (r->key && (r->reason == WI_BY_KEY || r->activated)) {
		tree_put(a, t, "key", tree_str(a, r->key));
		tree_put(a, t, "in", tree_str(a, wi_where_name(r->where)));
		tree_put(a, t, "in_index", tree_int(a,
		    (int64_t)r->where_index));
		if (build && r->where == WI_IN_CARD)
			tree_put(a, t, "in_text", tree_str(a,
			    wi_match_name((int)r->where_index)));
	}
	if (r->roll >= 0) {
		tree_put(a, t, "roll", tree_float(a, r->roll));
		if (build)
			tree_put(a, t, "probability", tree_float(a,
			    r->entry->probability));
	}
	if (r->group)
		tree_put(a, t, "group", tree_str(a, r->group));
	if (r->winner >= 0)
		tree_put(a, t, "winner", tree_int(a, r->winner));
	if (r->reason == WI_BUDGET && r->tokens >= 0)
		tree_put(a, t, "tokens", tree_int(a, r->tokens));
	if (r->regex_limit)
		tree_put(a, t, "regex_limit", tree_bool(a, true));
	if (r->activated) {
		tree_put(a, t, "order", tree_int(a, r->entry->order));
		tree_put(a, t, "position", tree_str(a,
		    world_position_name(r->entry->position)));
	}
	return t;
}

/* activated (activation order) and considered (priority order). */
static void
records(struct arena *a, struct node *root, const struct wi_result *r,
    bool build)
{
	struct node *act, *con;
	size_t i;

	act = tree_put(a, root, "activated", tree_array(a));
	for (i = 0; i < r->nactivated; i++)
		tree_push(a, act, record_node(a, r->activated[i], build));
	con = tree_put(a, root, "considered", tree_array(a));
	for (i = 0; i < r->nrecords; i++)
		tree_push(a, con, record_node(a, &r->records[i], build));
}

struct node *
wi_build_node(struct arena *a, const struct wi_result *r)
{
	struct node *root = tree_table(a), *b;

	records(a, root, r, true);
	b = tree_put(a, root, "budget", tree_table(a));
	tree_put(a, b, "used", tree_int(a, r->tokens_used));
	tree_put(a, b, "available", tree_int(a, r->budget));
	tree_put(a, b, "overflow", tree_bool(a, r->overflow));
	tree_put(a, root, "passes", tree_int(a, r->passes));
	tree_put(a, root, "messages_scanned", tree_int(a,
	    (int64_t)r->chat_length));
	tree_put(a, root, "timed", wi_timed_to_node(a, &r->timed));
	return root;
}

struct node *
wi_result_to_node(struct arena *a, const struct wi_result *r)
{
	struct node *root = tree_table(a), *sl, *d, *o;
	size_t i;

	records(a, root, r, false);
	sl = tree_put(a, root, "slots", tree_table(a));
	tree_put(a, sl, "before", tree_str(a, r->before_formatted));
	tree_put(a, sl, "after", tree_str(a, r->after_formatted));
	tree_put(a, sl, "an_top", tree_str(a, r->an_top));
	tree_put(a, sl, "an_bottom", tree_str(a, r->an_bottom));
	d = tree_put(a, sl, "depth", tree_array(a));
	for (i = 0; i < r->ndepth; i++) {
		struct node *t = tree_table(a);
		static const char *const roles[] = {
			"system", "user", "assistant",
		};

		tree_put(a, t, "depth", tree_int(a, r->depth[i].depth));
		tree_put(a, t, "role", tree_str(a, roles[r->depth[i].role]));
		tree_put(a, t, "text", tree_str(a, r->depth[i].text));
		tree_push(a, d, t);
	}
	tree_put(a, sl, "em_top", strs(a, r->em_top, r->nem_top));
	tree_put(a, sl, "em_bottom", strs(a, r->em_bottom, r->nem_bottom));
	o = tree_put(a, sl, "outlets", tree_table(a));
	for (i = 0; i < r->noutlets; i++)
		if (!tree_get(o, r->outlets[i].name))
			tree_put(a, o, r->outlets[i].name,
			    tree_str(a, r->outlets[i].text));
	tree_put(a, root, "budget", tree_int(a, r->budget));
	tree_put(a, root, "tokens_used", tree_int(a, r->tokens_used));
	tree_put(a, root, "overflow", tree_bool(a, r->overflow));
	tree_put(a, root, "passes", tree_int(a, r->passes));
	tree_put(a, root, "timedWorldInfo", wi_timed_to_node(a, &r->timed));
	return root;
}
