/*
 * world_write: a world as SillyTavern writes it -- a world file's
 * {"entries": {...}} or a character card's character_book -- for
 * `strata card` and the JSON views.
 */
#include "tavern/world.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "data/tree.h"
#include "base/util.h"

static struct node *
strings_node(struct arena *a, const struct world_strings *s)
{
	struct node *arr = tree_array(a);
	size_t i;

	for (i = 0; i < s->n; i++)
		tree_push(a, arr, tree_str(a, s->v[i]));
	return arr;
}

static struct node *
tri_node(struct arena *a, int v)
{
	if (v == WORLD_UNSET)
		return tree_new(a, NODE_NULL, 0, span_make(0, 0));
	return tree_bool(a, v != 0);
}

static struct node *
num_node(struct arena *a, double d)
{
	if (d == floor(d) && fabs(d) < 1e15)
		return tree_int(a, (int64_t)d);
	return tree_float(a, d);
}

static struct node *
opt_int_node(struct arena *a, int64_t v, bool zero_is_null)
{
	if (v == WORLD_UNSET || (zero_is_null && v == 0))
		return tree_new(a, NODE_NULL, 0, span_make(0, 0));
	return tree_int(a, v);
}

static struct node *
triggers_node(struct arena *a, unsigned t)
{
	struct node *arr = tree_array(a);
	int k;

	for (k = 0; k < WORLD_TRIGGER__COUNT; k++)
		if (t & (1u << k))
			tree_push(a, arr, tree_str(a, world_trigger_name((int)k)));
	return arr;
}

static struct node *
delay_rec_node(struct arena *a, int64_t v)
{
	if (v == 0)
		return tree_bool(a, false);
	if (v == 1)
		return tree_bool(a, true);
	return tree_int(a, v);
}

struct node *
world_to_file(struct arena *a, const struct world *w)
{
	struct node *root = tree_table(a), *entries = tree_table(a);
	size_t i;
	int k;

	tree_put(a, root, "entries", entries);
	for (i = 0; i < w->n; i++) {
		const struct world_entry *e = &w->entries[i];
		struct node *t = tree_table(a), *f;
		char *key = arena_printf(a, "%lld", (long long)e->uid);

		if (tree_get(entries, key))
			key = arena_printf(a, "%lld_%zu", (long long)e->uid,
			    i);
		tree_put(a, entries, key, t);
		tree_put(a, t, "uid", tree_int(a, e->uid));
		tree_put(a, t, "key", strings_node(a, &e->key));
		tree_put(a, t, "keysecondary", strings_node(a,
		    &e->keysecondary));
		tree_put(a, t, "comment", tree_str(a, e->comment));
		tree_put(a, t, "content", tree_str(a, e->content));
		tree_put(a, t, "constant", tree_bool(a, e->constant));
		tree_put(a, t, "vectorized", tree_bool(a, e->vectorized));
		tree_put(a, t, "selective", tree_bool(a, e->selective));
		tree_put(a, t, "selectiveLogic",
		    tree_int(a, e->selective_logic));
		tree_put(a, t, "addMemo", tree_bool(a, *e->comment != '\0'));
		tree_put(a, t, "order", tree_int(a, e->order));
		tree_put(a, t, "position", tree_int(a, e->position));
		tree_put(a, t, "disable", tree_bool(a, e->disable));
		tree_put(a, t, "ignoreBudget", tree_bool(a, e->ignore_budget));
		tree_put(a, t, "excludeRecursion",
		    tree_bool(a, e->exclude_recursion));
		tree_put(a, t, "preventRecursion",
		    tree_bool(a, e->prevent_recursion));
		for (k = 0; k < WORLD_MATCH__COUNT; k++)
			tree_put(a, t, world_match_key((int)k, false),
			    tree_bool(a, (e->match >> k) & 1));
		tree_put(a, t, "delayUntilRecursion",
		    delay_rec_node(a, e->delay_until_recursion));
		tree_put(a, t, "probability", num_node(a, e->probability));
		tree_put(a, t, "useProbability",
		    tree_bool(a, e->use_probability));
		tree_put(a, t, "depth", tree_int(a, e->depth));
		tree_put(a, t, "outletName", tree_str(a, e->outlet_name));
		tree_put(a, t, "group", tree_str(a, e->group));
		tree_put(a, t, "groupOverride",
		    tree_bool(a, e->group_override));
		tree_put(a, t, "groupWeight", num_node(a, e->group_weight));
		tree_put(a, t, "scanDepth", opt_int_node(a, e->scan_depth,
		    false));
		tree_put(a, t, "caseSensitive", tri_node(a, e->case_sensitive));
		tree_put(a, t, "matchWholeWords",
		    tri_node(a, e->match_whole_words));
		tree_put(a, t, "useGroupScoring",
		    tri_node(a, e->use_group_scoring));
		tree_put(a, t, "automationId", tree_str(a, e->automation_id));
		tree_put(a, t, "role", tree_int(a, e->role));
		tree_put(a, t, "sticky", opt_int_node(a, e->sticky, true));
		tree_put(a, t, "cooldown", opt_int_node(a, e->cooldown, true));
		tree_put(a, t, "delay", opt_int_node(a, e->delay, true));
		tree_put(a, t, "triggers", triggers_node(a, e->triggers));
		f = tree_put(a, t, "characterFilter", tree_table(a));
		tree_put(a, f, "isExclude", tree_bool(a, e->filter_exclude));
		tree_put(a, f, "names", strings_node(a, &e->filter_names));
		tree_put(a, f, "tags", strings_node(a, &e->filter_tags));
		tree_put(a, t, "displayIndex", tree_int(a,
		    e->display_index == WORLD_UNSET ? (int64_t)i :
		    e->display_index));
	}
	return root;
}

struct node *
world_to_book(struct arena *a, const struct world *w)
{
	struct node *root = tree_table(a), *entries = tree_array(a);
	size_t i;
	int k;

	tree_put(a, root, "name", tree_str(a, w->name));
	tree_put(a, root, "entries", entries);
	for (i = 0; i < w->n; i++) {
		const struct world_entry *e = &w->entries[i];
		struct node *t = tree_table(a), *x;

		tree_push(a, entries, t);
		tree_put(a, t, "id", tree_int(a, e->uid));
		tree_put(a, t, "keys", strings_node(a, &e->key));
		tree_put(a, t, "secondary_keys", strings_node(a,
		    &e->keysecondary));
		tree_put(a, t, "comment", tree_str(a, e->comment));
		tree_put(a, t, "content", tree_str(a, e->content));
		tree_put(a, t, "constant", tree_bool(a, e->constant));
		tree_put(a, t, "selective", tree_bool(a, e->selective));
		tree_put(a, t, "insertion_order", tree_int(a, e->order));
		tree_put(a, t, "enabled", tree_bool(a, !e->disable));
		tree_put(a, t, "position", tree_str(a, e->position == 0 ?
		    "before_char" : "after_char"));
		tree_put(a, t, "use_regex", tree_bool(a, true));
		x = tree_put(a, t, "extensions", tree_table(a));
		tree_put(a, x, "position", tree_int(a, e->position));
		tree_put(a, x, "exclude_recursion",
		    tree_bool(a, e->exclude_recursion));
		tree_put(a, x, "display_index", tree_int(a,
		    e->display_index == WORLD_UNSET ? (int64_t)i :
		    e->display_index));
		tree_put(a, x, "probability", num_node(a, e->probability));
		tree_put(a, x, "useProbability",
		    tree_bool(a, e->use_probability));
		tree_put(a, x, "depth", tree_int(a, e->depth));
		tree_put(a, x, "selectiveLogic",
		    tree_int(a, e->selective_logic));
		tree_put(a, x, "outlet_name", tree_str(a, e->outlet_name));
		tree_put(a, x, "group", tree_str(a, e->group));
		tree_put(a, x, "group_override",
		    tree_bool(a, e->group_override));
		tree_put(a, x, "group_weight", num_node(a, e->group_weight));
		tree_put(a, x, "prevent_recursion",
		    tree_bool(a, e->prevent_recursion));
		tree_put(a, x, "delay_until_recursion",
		    delay_rec_node(a, e->delay_until_recursion));
		tree_put(a, x, "scan_depth", opt_int_node(a, e->scan_depth,
		    false));
		tree_put(a, x, "match_whole_words",
		    tri_node(a, e->match_whole_words));
		tree_put(a, x, "use_group_scoring",
		    tri_node(a, e->use_group_scoring));
		tree_put(a, x, "case_sensitive",
		    tri_node(a, e->case_sensitive));
		tree_put(a, x, "automation_id", tree_str(a, e->automation_id));
		tree_put(a, x, "role", tree_int(a, e->role));
		tree_put(a, x, "vectorized", tree_bool(a, e->vectorized));
		tree_put(a, x, "sticky", opt_int_node(a, e->sticky, true));
		tree_put(a, x, "cooldown", opt_int_node(a, e->cooldown, true));
		tree_put(a, x, "delay", opt_int_node(a, e->delay, true));
		for (k = 0; k < WORLD_MATCH__COUNT; k++)
			tree_put(a, x, world_match_key((int)k, true),
			    tree_bool(a, (e->match >> k) & 1));
		tree_put(a, x, "ignore_budget", tree_bool(a, e->ignore_budget));
		tree_put(a, x, "triggers", triggers_node(a, e->triggers));
	}
	return root;
}
