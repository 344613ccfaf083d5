#include "tavern/world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "diag/diag.h"
#include "data/json.h"
#include "diag/run.h"
#include "data/tree.h"
#include "base/util.h"

static const char *const position_names[] = {
	"before", "after", "an_top", "an_bottom", "depth", "em_top",
	"em_bottom", "outlet",
};
static const char *const logic_names[] = {
	"AND_ANY", "NOT_ALL", "NOT_ANY", "AND_ALL",
};
static const char *const trigger_names[] = {
	"normal", "continue", "impersonate", "swipe", "regenerate", "quiet",
};
/* The match* field names: ST file spelling, then book spelling. */
static const char *const match_file[] = {
	"matchPersonaDescription", "matchCharacterDescription",
	"matchCharacterPersonality", "matchCharacterDepthPrompt",
	"matchScenario", "matchCreatorNotes",
};
static const char *const match_book[] = {
	"match_persona_description", "match_character_description",
	"match_character_personality", "match_character_depth_prompt",
	"match_scenario", "match_creator_notes",
};

const char *
world_position_name(int position)
{
	if (position >= 0 && (size_t)position < LEN(position_names))
		return position_names[position];
	return "unknown";
}

const char *
world_logic_name(int logic)
{
	if (logic >= 0 && (size_t)logic < LEN(logic_names))
		return logic_names[logic];
	return "AND_ANY";
}

const char *
world_trigger_name(int trigger)
{
	if (trigger >= 0 && (size_t)trigger < LEN(trigger_names))
		return trigger_names[trigger];
	return "?";
}

void
world_entry_default(struct world_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->comment = e->content = e->outlet_name = e->group = "";
	e->automation_id = "";
	e->selective = true;
	e->use_probability = true;
	e->order = 100;
	e->depth = 4;
	e->probability = 100;
	e->group_weight = 100;
	e->use_group_scoring = WORLD_UNSET;
	e->case_sensitive = WORLD_UNSET;
	e->match_whole_words = WORLD_UNSET;
	e->scan_depth = WORLD_UNSET;
	e->display_index = WORLD_UNSET;
}

/* Reading: one context per file. */
struct reader {
	struct run *run;
	const char *path;               /* JSON path prefix for messages */
};

static void
wrong_type(struct reader *r, const struct node *n, const char *field,
    const char *want, bool fatal)
{
	diag_report(r->run, fatal ? DIAG_ERROR : DIAG_WARNING,
	    run_source(r->run, n->src), n->span, MSG_WI_WRONG_TYPE, field,
	    want, tree_kind_article(n->kind),
	    fatal ? "SillyTavern refuses this file" :
	    "the default is used");
}

static void
get_bool(struct reader *r, const struct node *t, const char *field,
    bool *out)
{
	const struct node *n = tree_get(t, field);

	if (!n || n->kind == NODE_NULL)
		return;
	if (n->kind == NODE_BOOL)
		*out = n->u.b;
	else
		wrong_type(r, n, field, "true or false", false);
}

/* Nullable boolean: null means "use the global setting". */
static void
get_tri(struct reader *r, const struct node *t, const char *field,
    int *out)
{
	const struct node *n = tree_get(t, field);

	if (!n)
		return;
	if (n->kind == NODE_NULL)
		*out = WORLD_UNSET;
	else if (n->kind == NODE_BOOL)
		*out = n->u.b;
	else
		wrong_type(r, n, field, "true, false or null", false);
}

static bool
node_number(const struct node *n, double *out)
{
	char *end;

	switch (n->kind) {
	case NODE_INT:
		*out = (double)n->u.i;
		return true;
	case NODE_FLOAT:
		*out = n->u.f;
		return true;
	case NODE_STRING:
		/* JavaScript arithmetic turns "100" into 100. */
		if (n->u.str.len == 0)
			return false;
		*out = strtod(n->u.str.s, &end);
		return *end == '\0' && isfinite(*out);
	default:
		return false;
	}
}

/* A number; null keeps the default unless nullable (then WORLD_UNSET). */
static void
get_num(struct reader *r, const struct node *t, const char *field,
    double *out, bool nullable)
{
	const struct node *n = tree_get(t, field);
	double d;

	if (!n)
		return;
	if (n->kind == NODE_NULL) {
		if (nullable)
			*out = WORLD_UNSET;
		return;
	}
	if (node_number(n, &d))
		*out = d;
	else
		wrong_type(r, n, field, nullable ? "a number or null" :
		    "a number", false);
}

static void
get_int(struct reader *r, const struct node *t, const char *field,
    int64_t *out, bool nullable)
{
	double d = (double)*out;

	get_num(r, t, field, &d, nullable);
	if (d > 1e15)
		d = 1e15;
	if (d < -1e15)
		d = -1e15;
	*out = (int64_t)d;
}

static void
get_small(struct reader *r, const struct node *t, const char *field,
    int *out, bool nullable)
{
	int64_t v = *out;

	get_int(r, t, field, &v, nullable);
	if (v > 1000000)
		v = 1000000;
	if (v < -1000000)
		v = -1000000;
	*out = (int)v;
}

static void
get_str(struct reader *r, const struct node *t, const char *field,
    const char **out)
{
	const struct node *n = tree_get(t, field);

	if (!n || n->kind == NODE_NULL)
		return;
	if (n->kind == NODE_STRING)
		*out = n->u.str.s;
	else
		wrong_type(r, n, field, "a string", false);
}

/* An array of strings.  fatal: SillyTavern calls array methods on it. */
static bool
get_strings(struct reader *r, const struct node *t, const char *field,
    struct world_strings *out, bool fatal)
{
	const struct node *n = tree_get(t, field);
	size_t i;

	if (!n || (n->kind == NODE_NULL && !fatal))
		return true;
	if (n->kind != NODE_ARRAY) {
		wrong_type(r, n, field, "an array of strings", fatal);
		return !fatal;
	}
	out->v = arena_array(&r->run->arena, n->u.array.n + 1,
	    sizeof(*out->v));
	out->n = 0;
	for (i = 0; i < n->u.array.n; i++) {
		const struct node *k = n->u.array.items[i];

		/* JavaScript would stringify a number key; anything else
		 * cannot be a key. */
		if (k->kind == NODE_STRING)
			out->v[out->n++] = k->u.str.s;
		else if (k->kind == NODE_INT)
			out->v[out->n++] = arena_printf(&r->run->arena,
			    "%lld", (long long)k->u.i);
		else
			wrong_type(r, k, field, "strings", false);
	}
	return true;
}

static void
get_delay_rec(struct reader *r, const struct node *t, const char *field,
    int64_t *out)
{
	const struct node *n = tree_get(t, field);
	double d;

	if (!n || n->kind == NODE_NULL)
		return;
	if (n->kind == NODE_BOOL)
		*out = n->u.b ? 1 : 0;
	else if (node_number(n, &d) && d >= 0 && d < 1e9)
		*out = (int64_t)d;
	else
		wrong_type(r, n, field, "true, false or a level number",
		    false);
}

static void
get_triggers(struct reader *r, const struct node *t, const char *field,
    unsigned *out)
{
	struct world_strings s = {0};
	size_t i;
	int k;

	get_strings(r, t, field, &s, false);
	for (i = 0; i < s.n; i++)
		for (k = 0; k < WORLD_TRIGGER__COUNT; k++)
			if (strcmp(s.v[i], trigger_names[k]) == 0)
				*out |= 1u << k;
	/* Only unknown names: SillyTavern's includes() never matches, so
	 * the entry never fires.  Keep that with a bit no type has. */
	if (s.n > 0 && *out == 0)
		*out = 1u << WORLD_TRIGGER__COUNT;
}

static void
get_filter(struct reader *r, const struct node *t, const char *field,
    struct world_entry *e)
{
	const struct node *n = tree_get(t, field);

	if (!n || n->kind == NODE_NULL)
		return;
	if (n->kind != NODE_TABLE) {
		wrong_type(r, n, field, "an object", false);
		return;
	}
	get_bool(r, n, "isExclude", &e->filter_exclude);
	get_strings(r, n, "names", &e->filter_names, false);
	get_strings(r, n, "tags", &e->filter_tags, false);
}

static void
clamp_entry(struct world_entry *e)
{
	if (e->selective_logic < 0 || e->selective_logic > 3)
		e->selective_logic = WORLD_AND_ANY;
	if (e->role < 0 || e->role > 2)
		e->role = 0;
	if (e->sticky < 0)
		e->sticky = 0;
	if (e->cooldown < 0)
		e->cooldown = 0;
	if (e->delay < 0)
		e->delay = 0;
}

/* A world-file entry (ST's own spelling). */
static bool
read_file_entry(struct reader *r, const struct node *t,
    struct world_entry *e)
{
	bool ok = true;
	double prob = 100, weight = 100;
	int k;

	get_int(r, t, "uid", &e->uid, false);
	ok &= get_strings(r, t, "key", &e->key, true);
	ok &= get_strings(r, t, "keysecondary", &e->keysecondary, true);
	get_str(r, t, "comment", &e->comment);
	get_str(r, t, "content", &e->content);
	get_bool(r, t, "constant", &e->constant);
	get_bool(r, t, "vectorized", &e->vectorized);
	get_bool(r, t, "selective", &e->selective);
	get_small(r, t, "selectiveLogic", &e->selective_logic, false);
	get_int(r, t, "order", &e->order, false);
	get_small(r, t, "position", &e->position, false);
	get_int(r, t, "depth", &e->depth, false);
	get_small(r, t, "role", &e->role, false);
	get_str(r, t, "outletName", &e->outlet_name);
	get_bool(r, t, "disable", &e->disable);
	get_bool(r, t, "ignoreBudget", &e->ignore_budget);
	get_bool(r, t, "excludeRecursion", &e->exclude_recursion);
	get_bool(r, t, "preventRecursion", &e->prevent_recursion);
	get_delay_rec(r, t, "delayUntilRecursion", &e->delay_until_recursion);
	get_num(r, t, "probability", &prob, false);
	e->probability = prob;
	get_bool(r, t, "useProbability", &e->use_probability);
	get_str(r, t, "group", &e->group);
	get_bool(r, t, "groupOverride", &e->group_override);
	get_num(r, t, "groupWeight", &weight, false);
	e->group_weight = weight;
	get_tri(r, t, "useGroupScoring", &e->use_group_scoring);
	get_int(r, t, "scanDepth", &e->scan_depth, true);
	get_tri(r, t, "caseSensitive", &e->case_sensitive);
	get_tri(r, t, "matchWholeWords", &e->match_whole_words);
	get_str(r, t, "automationId", &e->automation_id);
	get_int(r, t, "sticky", &e->sticky, false);
	get_int(r, t, "cooldown", &e->cooldown, false);
	get_int(r, t, "delay", &e->delay, false);
	for (k = 0; k < WORLD_MATCH__COUNT; k++) {
		bool b = false;

		get_bool(r, t, match_file[k], &b);
		if (b)
			e->match |= 1u << k;
	}
	get_triggers(r, t, "triggers", &e->triggers);
	get_filter(r, t, "characterFilter", e);
	get_int(r, t, "displayIndex", &e->display_index, true);
	e->extensions = tree_get(t, "extensions");
	clamp_entry(e);
	return ok;
}

/* A V2/V3 character_book entry: top-level fields, extensions.* win. */
static bool
read_book_entry(struct reader *r, const struct node *t, size_t index,
    struct world_entry *e)
{
	const struct node *x = tree_get(t, "extensions"), *p;
	bool ok = true, enabled = true;
	double prob = 100, weight = 100;
	int k;

	e->selective = false;           /* the importer's default */
	e->uid = (int64_t)index;
	e->display_index = (int64_t)index;
	get_int(r, t, "id", &e->uid, false);
	ok &= get_strings(r, t, "keys", &e->key, true);
	ok &= get_strings(r, t, "secondary_keys", &e->keysecondary, true);
	get_str(r, t, "comment", &e->comment);
	get_str(r, t, "content", &e->content);
	get_bool(r, t, "constant", &e->constant);
	get_bool(r, t, "selective", &e->selective);
	get_int(r, t, "insertion_order", &e->order, false);
	get_bool(r, t, "enabled", &enabled);
	e->disable = !enabled;
	p = tree_get(t, "position");
	e->position = p && p->kind == NODE_STRING &&
	    strcmp(p->u.str.s, "before_char") == 0 ? WORLD_BEFORE :
	    WORLD_AFTER;
	if (x && x->kind != NODE_TABLE && x->kind != NODE_NULL)
		wrong_type(r, x, "extensions", "an object", false);
	if (!x || x->kind != NODE_TABLE) {
		clamp_entry(e);
		return ok;
	}
	e->extensions = x;
	get_small(r, x, "position", &e->position, false);
	get_bool(r, x, "exclude_recursion", &e->exclude_recursion);
	get_bool(r, x, "prevent_recursion", &e->prevent_recursion);
	get_delay_rec(r, x, "delay_until_recursion",
	    &e->delay_until_recursion);
	get_int(r, x, "display_index", &e->display_index, true);
	get_num(r, x, "probability", &prob, false);
	e->probability = prob;
	get_bool(r, x, "useProbability", &e->use_probability);
	get_int(r, x, "depth", &e->depth, false);
	get_small(r, x, "role", &e->role, false);
	get_small(r, x, "selectiveLogic", &e->selective_logic, false);
	get_str(r, x, "group", &e->group);
	get_bool(r, x, "group_override", &e->group_override);
	get_num(r, x, "group_weight", &weight, false);
	e->group_weight = weight;
	get_tri(r, x, "use_group_scoring", &e->use_group_scoring);
	get_int(r, x, "scan_depth", &e->scan_depth, true);
	get_tri(r, x, "case_sensitive", &e->case_sensitive);
	get_tri(r, x, "match_whole_words", &e->match_whole_words);
	get_str(r, x, "automation_id", &e->automation_id);
	get_bool(r, x, "vectorized", &e->vectorized);
	get_int(r, x, "sticky", &e->sticky, false);
	get_int(r, x, "cooldown", &e->cooldown, false);
	get_int(r, x, "delay", &e->delay, false);
	get_triggers(r, x, "triggers", &e->triggers);
	get_bool(r, x, "ignore_budget", &e->ignore_budget);
	get_str(r, x, "outlet_name", &e->outlet_name);
	for (k = 0; k < WORLD_MATCH__COUNT; k++) {
		bool b = false;

		get_bool(r, x, match_book[k], &b);
		if (b)
			e->match |= 1u << k;
	}
	clamp_entry(e);
	return ok;
}

static const char *
base_name(struct arena *a, const char *path)
{
	const char *s = strrchr(path, '/');
	size_t n;

	s = s ? s + 1 : path;
	n = strlen(s);
	if (n > 5 && strcmp(s + n - 5, ".json") == 0)
		n -= 5;
	return arena_strndup(a, s, n);
}

bool
world_from_node(struct run *run, const struct node *root, const char *name,
    struct world *out)
{
	struct reader r = { run, "" };
	const struct node *entries, *book = NULL, *data;
	bool ok = true;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->name = name ? name : "";
	if (root->kind != NODE_TABLE) {
		diag_error(run, run_source(run, root->src), root->span,
		    MSG_WI_NOT_WORLD, tree_kind_article(root->kind));
		return false;
	}
	entries = tree_get(root, "entries");
	/* A card: data.character_book. */
	if (!entries && (data = tree_get(root, "data")) &&
	    data->kind == NODE_TABLE)
		book = tree_get(data, "character_book");
	else if (!entries)
		book = tree_get(root, "character_book");
	if (book) {
		if (book->kind != NODE_TABLE) {
			wrong_type(&r, book, "character_book", "an object",
			    true);
			return false;
		}
		entries = tree_get(book, "entries");
		root = book;
	}
	if (!entries) {
		diag_error(run, run_source(run, root->src), root->span,
		    MSG_WI_NO_ENTRIES);
		return false;
	}
	if (entries->kind == NODE_ARRAY) {
		const struct node *bn = tree_get(root, "name");

		out->from_book = true;
		/* SillyTavern imports a book under its own name. */
		if (bn && bn->kind == NODE_STRING && *bn->u.str.s)
			out->name = bn->u.str.s;
		out->entries = arena_array(&run->arena, entries->u.array.n,
		    sizeof(*out->entries));
		for (i = 0; i < entries->u.array.n; i++) {
			const struct node *t = entries->u.array.items[i];
			struct world_entry *e = &out->entries[out->n];

			if (t->kind != NODE_TABLE) {
				wrong_type(&r, t, "entries[]", "an object",
				    true);
				ok = false;
				continue;
			}
			world_entry_default(e);
			e->src = t->src;
			e->span = t->span;
			ok &= read_book_entry(&r, t, i, e);
			out->n++;
		}
		return ok;
	}
	if (entries->kind != NODE_TABLE) {
		wrong_type(&r, entries, "entries", "an object", true);
		return false;
	}
	out->entries = arena_array(&run->arena, entries->u.table.n,
	    sizeof(*out->entries));
	for (i = 0; i < entries->u.table.n; i++) {
		const struct member *m = &entries->u.table.items[i];
		struct world_entry *e = &out->entries[out->n];
		char *end;

		if (m->value->kind != NODE_TABLE) {
			wrong_type(&r, m->value, m->key, "an object", true);
			ok = false;
			continue;
		}
		world_entry_default(e);
		e->src = m->value->src;
		e->span = m->value->span;
		/* No uid field: the key is the uid. */
		e->uid = strtoll(m->key, &end, 10);
		ok &= read_file_entry(&r, m->value, e);
		out->n++;
	}
	return ok;
}

bool
world_read(struct run *run, struct source *src, const char *name,
    struct world *out)
{
	struct node *root;

	memset(out, 0, sizeof(*out));
	if (!json_parse(run, src, &root))
		return false;
	return world_from_node(run, root, name ? name :
	    base_name(&run->arena, src->path), out);
}

/* Writing. */
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
			tree_push(a, arr, tree_str(a, trigger_names[k]));
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
			tree_put(a, t, match_file[k],
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
			tree_put(a, x, match_book[k],
			    tree_bool(a, (e->match >> k) & 1));
		tree_put(a, x, "ignore_budget", tree_bool(a, e->ignore_budget));
		tree_put(a, x, "triggers", triggers_node(a, e->triggers));
	}
	return root;
}
