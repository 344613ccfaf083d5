#include "world/world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "diag/diag.h"
#include "data/json.h"
#include "diag/run.h"
#include "data/tree.h"
#include "base/path.h"
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
world_match_key(int match, bool book)
{
	if (match < 0 || (size_t)match >= LEN(match_file))
		return "?";
	return book ? match_book[match] : match_file[match];
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
	e->depth_at = 4;
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
	/* fields_of()'s guesses, per kind of table: member i's field + 1
	 * in the table read last (0: none yet). */
	unsigned char guess[3][64];
};

/* The fields of a world-file entry, sorted by strcmp() for fields_of(). */
enum file_field {
	F_AUTOMATION_ID,
	F_CASE_SENSITIVE,
	F_CHARACTER_FILTER,
	F_COMMENT,
	F_CONSTANT,
	F_CONTENT,
	F_COOLDOWN,
	F_DELAY,
	F_DELAY_UNTIL_RECURSION,
	F_DEPTH,
	F_DISABLE,
	F_DISPLAY_INDEX,
	F_EXCLUDE_RECURSION,
	F_EXTENSIONS,
	F_GROUP,
	F_GROUP_OVERRIDE,
	F_GROUP_WEIGHT,
	F_IGNORE_BUDGET,
	F_KEY,
	F_KEYSECONDARY,
	F_MATCH_CHARACTER_DEPTH_PROMPT,
	F_MATCH_CHARACTER_DESCRIPTION,
	F_MATCH_CHARACTER_PERSONALITY,
	F_MATCH_CREATOR_NOTES,
	F_MATCH_PERSONA_DESCRIPTION,
	F_MATCH_SCENARIO,
	F_MATCH_WHOLE_WORDS,
	F_ORDER,
	F_OUTLET_NAME,
	F_POSITION,
	F_PREVENT_RECURSION,
	F_PROBABILITY,
	F_ROLE,
	F_SCAN_DEPTH,
	F_SELECTIVE,
	F_SELECTIVE_LOGIC,
	F_STICKY,
	F_TRIGGERS,
	F_UID,
	F_USE_GROUP_SCORING,
	F_USE_PROBABILITY,
	F_VECTORIZED,
	F__COUNT,
};
static const char *const file_fields[] = {
	"automationId", "caseSensitive", "characterFilter", "comment",
	"constant", "content", "cooldown", "delay",
	"delayUntilRecursion", "depth", "disable", "displayIndex",
	"excludeRecursion", "extensions", "group", "groupOverride",
	"groupWeight", "ignoreBudget", "key", "keysecondary",
	"matchCharacterDepthPrompt", "matchCharacterDescription",
	"matchCharacterPersonality", "matchCreatorNotes",
	"matchPersonaDescription", "matchScenario", "matchWholeWords",
	"order", "outletName", "position", "preventRecursion",
	"probability", "role", "scanDepth", "selective",
	"selectiveLogic", "sticky", "triggers", "uid",
	"useGroupScoring", "useProbability", "vectorized",
};

/* The fields of a character_book entry, sorted by strcmp() for fields_of(). */
enum book_field {
	B_COMMENT,
	B_CONSTANT,
	B_CONTENT,
	B_ENABLED,
	B_EXTENSIONS,
	B_ID,
	B_INSERTION_ORDER,
	B_KEYS,
	B_POSITION,
	B_SECONDARY_KEYS,
	B_SELECTIVE,
	B__COUNT,
};
static const char *const book_fields[] = {
	"comment", "constant", "content", "enabled", "extensions",
	"id", "insertion_order", "keys", "position", "secondary_keys",
	"selective",
};

/* The fields of its extensions, sorted by strcmp() for fields_of(). */
enum ext_field {
	X_AUTOMATION_ID,
	X_CASE_SENSITIVE,
	X_COOLDOWN,
	X_DELAY,
	X_DELAY_UNTIL_RECURSION,
	X_DEPTH,
	X_DISPLAY_INDEX,
	X_EXCLUDE_RECURSION,
	X_GROUP,
	X_GROUP_OVERRIDE,
	X_GROUP_WEIGHT,
	X_IGNORE_BUDGET,
	X_MATCH_CHARACTER_DEPTH_PROMPT,
	X_MATCH_CHARACTER_DESCRIPTION,
	X_MATCH_CHARACTER_PERSONALITY,
	X_MATCH_CREATOR_NOTES,
	X_MATCH_PERSONA_DESCRIPTION,
	X_MATCH_SCENARIO,
	X_MATCH_WHOLE_WORDS,
	X_OUTLET_NAME,
	X_POSITION,
	X_PREVENT_RECURSION,
	X_PROBABILITY,
	X_ROLE,
	X_SCAN_DEPTH,
	X_SELECTIVE_LOGIC,
	X_STICKY,
	X_TRIGGERS,
	X_USE_PROBABILITY,
	X_USE_GROUP_SCORING,
	X_VECTORIZED,
	X__COUNT,
};
static const char *const ext_fields[] = {
	"automation_id", "case_sensitive", "cooldown", "delay",
	"delay_until_recursion", "depth", "display_index",
	"exclude_recursion", "group", "group_override", "group_weight",
	"ignore_budget", "match_character_depth_prompt",
	"match_character_description", "match_character_personality",
	"match_creator_notes", "match_persona_description",
	"match_scenario", "match_whole_words", "outlet_name",
	"position", "prevent_recursion", "probability", "role",
	"scan_depth", "selectiveLogic", "sticky", "triggers",
	"useProbability", "use_group_scoring", "vectorized",
};
/* The match* fields in enum world_match order. */
static const int file_match[] = {
	F_MATCH_PERSONA_DESCRIPTION,
	F_MATCH_CHARACTER_DESCRIPTION,
	F_MATCH_CHARACTER_PERSONALITY,
	F_MATCH_CHARACTER_DEPTH_PROMPT,
	F_MATCH_SCENARIO,
	F_MATCH_CREATOR_NOTES,
};
static const int book_match[] = {
	X_MATCH_PERSONA_DESCRIPTION,
	X_MATCH_CHARACTER_DESCRIPTION,
	X_MATCH_CHARACTER_PERSONALITY,
	X_MATCH_CHARACTER_DEPTH_PROMPT,
	X_MATCH_SCENARIO,
	X_MATCH_CREATOR_NOTES,
};

/*
 * The members of table t named in names[0..n) (sorted by strcmp()), into
 * v by field number: one pass over the members instead of a lookup per
 * field.  The first of duplicate keys wins, as with tree_get().  The
 * entries of one file list their fields in one order, so member i is
 * first tried as the field member i was in the table before (guess).
 */
static void
fields_of(const struct node *t, const char *const *names, size_t n,
    const struct node **v, unsigned char *guess)
{
	size_t i, lo, hi, mid, len;
	int c;

	memset(v, 0, n * sizeof(*v));
	for (i = 0; i < t->u.table.n; i++) {
		const struct member *m = &t->u.table.items[i];

		if (i < 64 && guess[i] && m->keylen ==
		    strlen(names[guess[i] - 1]) &&
		    memcmp(m->key, names[guess[i] - 1], m->keylen) == 0) {
			if (!v[guess[i] - 1])
				v[guess[i] - 1] = m->value;
			continue;
		}
		lo = 0;
		hi = n;
		while (lo < hi) {
			mid = (lo + hi) / 2;
			len = strlen(names[mid]);
			c = memcmp(m->key, names[mid], m->keylen < len ?
			    m->keylen : len);
			if (c == 0)
				c = m->keylen < len ? -1 : m->keylen > len;
			if (c == 0) {
				if (!v[mid])
					v[mid] = m->value;
				if (i < 64)
					guess[i] = (unsigned char)(mid + 1);
				break;
			}
			if (c < 0)
				hi = mid;
			else
				lo = mid + 1;
		}
	}
}

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

/* JavaScript's truthiness of a JSON value: SillyTavern tests most
 * entry flags with `if (entry.flag)`. */
static bool
js_truthy(const struct node *n)
{
	switch (n->kind) {
	case NODE_BOOL:
		return n->u.b;
	case NODE_INT:
		return n->u.i != 0;
	case NODE_FLOAT:
		return n->u.f != 0 && !isnan(n->u.f);
	case NODE_STRING:
		return n->u.str.len > 0;
	case NODE_NULL:
		return false;
	default:
		return true;    /* objects and arrays */
	}
}

/* A flag SillyTavern tests for truthiness: null keeps the default (a
 * world file's null selective and useProbability are read by the
 * caller), a value that is not a boolean is read as JavaScript reads
 * it, with a warning. */
static void
get_bool(struct reader *r, const struct node *n, const char *field,
    bool *out)
{

	if (!n || n->kind == NODE_NULL)
		return;
	*out = js_truthy(n);
	if (n->kind != NODE_BOOL && n->kind != NODE_NULL)
		diag_report(r->run, DIAG_WARNING, run_source(r->run, n->src),
		    n->span, MSG_WI_WRONG_TYPE, field, "true or false",
		    tree_kind_article(n->kind), *out ?
		    "SillyTavern reads it as true" :
		    "SillyTavern reads it as false");
}

/* disable: SillyTavern tests `entry.disable == true`, so 1 and "1"
 * disable an entry and "true" does not. */
static void
get_disable(struct reader *r, const struct node *n, bool *out)
{
	char *end;
	double d;

	if (!n || n->kind == NODE_NULL)
		return;
	switch (n->kind) {
	case NODE_BOOL:
		*out = n->u.b;
		return;
	case NODE_INT:
		*out = n->u.i == 1;
		break;
	case NODE_FLOAT:
		*out = n->u.f == 1;
		break;
	case NODE_STRING:
		d = strtod(n->u.str.s, &end);
		while (*end == ' ' || *end == '\t' || *end == '\n' ||
		    *end == '\r')
			end++;
		*out = end != n->u.str.s && *end == '\0' && d == 1;
		break;
	default:
		*out = false;
		break;
	}
	diag_report(r->run, DIAG_WARNING, run_source(r->run, n->src),
	    n->span, MSG_WI_WRONG_TYPE, "disable", "true or false",
	    tree_kind_article(n->kind), *out ?
	    "SillyTavern's == true reads it as true" :
	    "SillyTavern's == true reads it as false");
}

/* Nullable boolean: null means "use the global setting". */
static void
get_tri(struct reader *r, const struct node *n, const char *field,
    int *out)
{

	if (!n)
		return;
	if (n->kind == NODE_NULL)
		*out = WORLD_UNSET;
	else if (n->kind == NODE_BOOL)
		*out = n->u.b;
	else {
		*out = js_truthy(n);
		diag_report(r->run, DIAG_WARNING, run_source(r->run, n->src),
		    n->span, MSG_WI_WRONG_TYPE, field, "true, false or null",
		    tree_kind_article(n->kind), *out ?
		    "SillyTavern reads it as true" :
		    "SillyTavern reads it as false");
	}
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
get_num(struct reader *r, const struct node *n, const char *field,
    double *out, bool nullable)
{
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
get_int(struct reader *r, const struct node *n, const char *field,
    int64_t *out, bool nullable)
{
	double d = (double)*out;

	get_num(r, n, field, &d, nullable);
	if (d > 1e15)
		d = 1e15;
	if (d < -1e15)
		d = -1e15;
	*out = (int64_t)d;
}

static void
get_small(struct reader *r, const struct node *n, const char *field,
    int *out, bool nullable)
{
	int64_t v = *out;

	get_int(r, n, field, &v, nullable);
	if (v > 1000000)
		v = 1000000;
	if (v < -1000000)
		v = -1000000;
	*out = (int)v;
}

/* position: SillyTavern places an entry by a strict switch on it, so a
 * string ("1") places it nowhere (WORLD_UNSET). */
static void
get_position(struct reader *r, const struct node *n, int *out)
{
	if (n && n->kind == NODE_STRING) {
		diag_report(r->run, DIAG_WARNING, run_source(r->run, n->src),
		    n->span, MSG_WI_WRONG_TYPE, "position", "a number",
		    tree_kind_article(n->kind),
		    "SillyTavern places the entry nowhere");
		*out = WORLD_UNSET;
		return;
	}
	get_small(r, n, "position", out, false);
}

static void
get_str(struct reader *r, const struct node *n, const char *field,
    const char **out)
{

	if (!n || n->kind == NODE_NULL)
		return;
	if (n->kind == NODE_STRING)
		*out = n->u.str.s;
	else
		wrong_type(r, n, field, "a string", false);
}

/* An array of strings.  fatal: SillyTavern calls array methods on it. */
static bool
get_strings(struct reader *r, const struct node *n, const char *field,
    struct world_strings *out, bool fatal)
{
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
get_delay_rec(struct reader *r, const struct node *n, const char *field,
    int64_t *out)
{
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
get_triggers(struct reader *r, const struct node *n, const char *field,
    unsigned *out)
{
	struct world_strings s = {0};
	size_t i;
	int k;

	get_strings(r, n, field, &s, false);
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
get_filter(struct reader *r, const struct node *n, const char *field,
    struct world_entry *e)
{
	if (!n || n->kind == NODE_NULL)
		return;
	if (n->kind != NODE_TABLE) {
		wrong_type(r, n, field, "an object", false);
		return;
	}
	get_bool(r, tree_get(n, "isExclude"), "isExclude",
	    &e->filter_exclude);
	get_strings(r, tree_get(n, "names"), "names", &e->filter_names,
	    false);
	get_strings(r, tree_get(n, "tags"), "tags", &e->filter_tags, false);
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
	const struct node *f[F__COUNT];
	bool ok = true;
	double prob = 100, weight = 100;
	int k;

	fields_of(t, file_fields, F__COUNT, f, r->guess[0]);
	get_int(r, f[F_UID], "uid", &e->uid, false);
	ok &= get_strings(r, f[F_KEY], "key", &e->key, false);
	ok &= get_strings(r, f[F_KEYSECONDARY], "keysecondary",
	    &e->keysecondary, false);
	get_str(r, f[F_COMMENT], "comment", &e->comment);
	get_str(r, f[F_CONTENT], "content", &e->content);
	get_bool(r, f[F_CONSTANT], "constant", &e->constant);
	get_bool(r, f[F_VECTORIZED], "vectorized", &e->vectorized);
	get_bool(r, f[F_SELECTIVE], "selective", &e->selective);
	if (f[F_SELECTIVE] && f[F_SELECTIVE]->kind == NODE_NULL)
		e->selective = false;           /* falsy, though new entries
		                                 * default to true */
	get_small(r, f[F_SELECTIVE_LOGIC], "selectiveLogic",
	    &e->selective_logic, false);
	get_int(r, f[F_ORDER], "order", &e->order, false);
	if (f[F_ORDER] && f[F_ORDER]->kind == NODE_NULL)
		e->order = 0;           /* b.order - a.order reads null as 0 */
	get_position(r, f[F_POSITION], &e->position);
	get_int(r, f[F_DEPTH], "depth", &e->depth, false);
	e->depth_at = !f[F_DEPTH] ? WORLD_UNSET :
	    f[F_DEPTH]->kind == NODE_NULL ? 0 : e->depth;
	get_small(r, f[F_ROLE], "role", &e->role, false);
	get_str(r, f[F_OUTLET_NAME], "outletName", &e->outlet_name);
	get_disable(r, f[F_DISABLE], &e->disable);
	get_bool(r, f[F_IGNORE_BUDGET], "ignoreBudget", &e->ignore_budget);
	get_bool(r, f[F_EXCLUDE_RECURSION], "excludeRecursion",
	    &e->exclude_recursion);
	get_bool(r, f[F_PREVENT_RECURSION], "preventRecursion",
	    &e->prevent_recursion);
	get_delay_rec(r, f[F_DELAY_UNTIL_RECURSION], "delayUntilRecursion",
	    &e->delay_until_recursion);
	get_num(r, f[F_PROBABILITY], "probability", &prob, false);
	e->probability = prob;
	get_bool(r, f[F_USE_PROBABILITY], "useProbability",
	    &e->use_probability);
	if (f[F_USE_PROBABILITY] && f[F_USE_PROBABILITY]->kind == NODE_NULL)
		e->use_probability = false;
	get_str(r, f[F_GROUP], "group", &e->group);
	get_bool(r, f[F_GROUP_OVERRIDE], "groupOverride", &e->group_override);
	get_num(r, f[F_GROUP_WEIGHT], "groupWeight", &weight, false);
	e->group_weight = weight;
	get_tri(r, f[F_USE_GROUP_SCORING], "useGroupScoring",
	    &e->use_group_scoring);
	get_int(r, f[F_SCAN_DEPTH], "scanDepth", &e->scan_depth, true);
	get_tri(r, f[F_CASE_SENSITIVE], "caseSensitive", &e->case_sensitive);
	get_tri(r, f[F_MATCH_WHOLE_WORDS], "matchWholeWords",
	    &e->match_whole_words);
	get_str(r, f[F_AUTOMATION_ID], "automationId", &e->automation_id);
	get_int(r, f[F_STICKY], "sticky", &e->sticky, false);
	get_int(r, f[F_COOLDOWN], "cooldown", &e->cooldown, false);
	get_int(r, f[F_DELAY], "delay", &e->delay, false);
	for (k = 0; k < WORLD_MATCH__COUNT; k++) {
		bool b = false;

		get_bool(r, f[file_match[k]], match_file[k], &b);
		if (b)
			e->match |= 1u << k;
	}
	get_triggers(r, f[F_TRIGGERS], "triggers", &e->triggers);
	get_filter(r, f[F_CHARACTER_FILTER], "characterFilter", e);
	get_int(r, f[F_DISPLAY_INDEX], "displayIndex", &e->display_index,
	    true);
	e->extensions = f[F_EXTENSIONS];
	clamp_entry(e);
	return ok;
}

/* A V2/V3 character_book entry: top-level fields, extensions.* win. */
static bool
read_book_entry(struct reader *r, const struct node *t, size_t index,
    struct world_entry *e)
{
	const struct node *f[B__COUNT], *x_f[X__COUNT], *x, *p;
	bool ok = true, enabled = true;
	double prob = 100, weight = 100;
	int k;

	fields_of(t, book_fields, B__COUNT, f, r->guess[1]);
	x = f[B_EXTENSIONS];
	e->selective = false;           /* the importer's default */
	e->uid = (int64_t)index;
	e->display_index = (int64_t)index;
	get_int(r, f[B_ID], "id", &e->uid, false);
	ok &= get_strings(r, f[B_KEYS], "keys", &e->key, false);
	ok &= get_strings(r, f[B_SECONDARY_KEYS], "secondary_keys",
	    &e->keysecondary, false);
	get_str(r, f[B_COMMENT], "comment", &e->comment);
	get_str(r, f[B_CONTENT], "content", &e->content);
	get_bool(r, f[B_CONSTANT], "constant", &e->constant);
	get_bool(r, f[B_SELECTIVE], "selective", &e->selective);
	get_int(r, f[B_INSERTION_ORDER], "insertion_order", &e->order, false);
	get_bool(r, f[B_ENABLED], "enabled", &enabled);
	e->disable = !enabled;
	p = f[B_POSITION];
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
	fields_of(x, ext_fields, X__COUNT, x_f, r->guess[2]);
	get_small(r, x_f[X_POSITION], "position", &e->position, false);
	get_bool(r, x_f[X_EXCLUDE_RECURSION], "exclude_recursion",
	    &e->exclude_recursion);
	get_bool(r, x_f[X_PREVENT_RECURSION], "prevent_recursion",
	    &e->prevent_recursion);
	get_delay_rec(r, x_f[X_DELAY_UNTIL_RECURSION], "delay_until_recursion",
	    &e->delay_until_recursion);
	get_int(r, x_f[X_DISPLAY_INDEX], "display_index", &e->display_index,
	    true);
	get_num(r, x_f[X_PROBABILITY], "probability", &prob, false);
	e->probability = prob;
	get_bool(r, x_f[X_USE_PROBABILITY], "useProbability",
	    &e->use_probability);
	get_int(r, x_f[X_DEPTH], "depth", &e->depth, false);
	e->depth_at = e->depth;
	get_small(r, x_f[X_ROLE], "role", &e->role, false);
	get_small(r, x_f[X_SELECTIVE_LOGIC], "selectiveLogic",
	    &e->selective_logic, false);
	get_str(r, x_f[X_GROUP], "group", &e->group);
	get_bool(r, x_f[X_GROUP_OVERRIDE], "group_override",
	    &e->group_override);
	get_num(r, x_f[X_GROUP_WEIGHT], "group_weight", &weight, false);
	e->group_weight = weight;
	get_tri(r, x_f[X_USE_GROUP_SCORING], "use_group_scoring",
	    &e->use_group_scoring);
	get_int(r, x_f[X_SCAN_DEPTH], "scan_depth", &e->scan_depth, true);
	get_tri(r, x_f[X_CASE_SENSITIVE], "case_sensitive",
	    &e->case_sensitive);
	get_tri(r, x_f[X_MATCH_WHOLE_WORDS], "match_whole_words",
	    &e->match_whole_words);
	get_str(r, x_f[X_AUTOMATION_ID], "automation_id", &e->automation_id);
	get_bool(r, x_f[X_VECTORIZED], "vectorized", &e->vectorized);
	get_int(r, x_f[X_STICKY], "sticky", &e->sticky, false);
	get_int(r, x_f[X_COOLDOWN], "cooldown", &e->cooldown, false);
	get_int(r, x_f[X_DELAY], "delay", &e->delay, false);
	get_triggers(r, x_f[X_TRIGGERS], "triggers", &e->triggers);
	get_bool(r, x_f[X_IGNORE_BUDGET], "ignore_budget", &e->ignore_budget);
	get_str(r, x_f[X_OUTLET_NAME], "outlet_name", &e->outlet_name);
	for (k = 0; k < WORLD_MATCH__COUNT; k++) {
		bool b = false;

		get_bool(r, x_f[book_match[k]], match_book[k], &b);
		if (b)
			e->match |= 1u << k;
	}
	clamp_entry(e);
	return ok;
}

const char *
world_file_name(struct arena *a, const char *path)
{
	return path_name(a, path, ".json");
}

bool
world_from_node(struct run *run, const struct node *root, const char *name,
    struct world *out)
{
	struct reader r;
	const struct node *entries, *book = NULL, *data;
	bool ok = true;
	size_t i;

	memset(&r, 0, sizeof(r));
	r.run = run;
	r.path = "";

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
	    world_file_name(&run->arena, src->path), out);
}
