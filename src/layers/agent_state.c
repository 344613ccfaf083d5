/*
 * The loop state (--state FILE.json): one JSON object, every key
 * optional.  Its shape is checked by the schema checker (profile/schema.h)
 * like any other asset, so a wrong key or type is reported at its
 * path:line:col; memories and profile, which take two shapes each, are
 * checked here.
 */
#include "layers/agent.h"

#include <string.h>

#include "base/arena.h"
#include "data/load.h"
#include "data/tree.h"
#include "diag/run.h"
#include "profile/schema.h"

static const char *const turn_roles[] = { "user", "assistant", NULL };

static const struct schema_field turn_fields[] = {
	{ "role", SCHEMA_STRING, SCHEMA_REQUIRED, NULL, turn_roles },
	{ "name", SCHEMA_STRING, 0, NULL, NULL },
	{ "content", SCHEMA_STRING, SCHEMA_REQUIRED, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL },
};

static const struct schema_field prestart_fields[] = {
	{ "tool", SCHEMA_STRING, SCHEMA_REQUIRED, NULL, NULL },
	{ "args", SCHEMA_ANY, 0, NULL, NULL },
	{ "result", SCHEMA_STRING, 0, NULL, NULL },
	{ "include_history", SCHEMA_BOOL, 0, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL },
};

static const struct schema_field call_fields[] = {
	{ "tool", SCHEMA_STRING, SCHEMA_REQUIRED, NULL, NULL },
	{ "args", SCHEMA_ANY, 0, NULL, NULL },
	{ "result", SCHEMA_STRING, 0, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL },
};

static const struct schema turn_schema = { "a dialogue line", turn_fields,
	NULL, NULL, NULL };
static const struct schema prestart_schema = { "a prestart tool",
	prestart_fields, NULL, NULL, NULL };
static const struct schema call_schema = { "a tool run", call_fields, NULL,
	NULL, NULL };

/* memories and profile are absent here: they are checked by hand. */
static const struct schema_field state_fields[] = {
	{ "question", SCHEMA_STRING, 0, NULL, NULL },
	{ "dialogue", SCHEMA_TABLES, 0, &turn_schema, NULL },
	{ "prestart", SCHEMA_TABLES, 0, &prestart_schema, NULL },
	{ "tool_history", SCHEMA_TABLES, 0, &call_schema, NULL },
	{ "observation", SCHEMA_STRING, 0, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL },
};

static const struct schema state_schema = { "the state", state_fields,
	NULL, NULL, NULL };

static const char *
str(const struct node *t, const char *key, size_t *len)
{
	const struct node *v = tree_get(t, key);

	if (!v || v->kind != NODE_STRING) {
		*len = 0;
		return NULL;
	}
	*len = v->u.str.len;
	return v->u.str.s;
}

static struct agent_call *
calls(struct run *run, const struct node *arr, size_t *n)
{
	struct agent_call *v;
	size_t i, len;

	*n = 0;
	if (!arr)
		return NULL;
	v = arena_array(&run->arena, arr->u.array.n + 1, sizeof(*v));
	for (i = 0; i < arr->u.array.n; i++) {
		const struct node *e = arr->u.array.items[i], *keep;

		v[i].tool = str(e, "tool", &len);
		v[i].args = tree_get(e, "args");
		v[i].result = str(e, "result", &v[i].rlen);
		keep = tree_get(e, "include_history");
		v[i].keep = keep && keep->kind == NODE_BOOL && keep->u.b;
	}
	*n = arr->u.array.n;
	return v;
}

/* memories: text or a list of texts; profile: text or an object. */
static bool
two_shapes(struct run *run, const struct node *root, const char *key,
    bool list, const struct node **out)
{
	const struct node *v = tree_get(root, key);
	size_t i;

	*out = v;
	if (!v || v->kind == NODE_STRING || (!list && v->kind == NODE_TABLE))
		return true;
	if (list && v->kind == NODE_ARRAY) {
		for (i = 0; i < v->u.array.n; i++) {
			const struct node *e = v->u.array.items[i];

			if (e->kind != NODE_STRING) {
				diag_error(run, run_source(run, e->src),
				    e->span, MSG_STATE_MEMORY, tree_kind_article(
				    e->kind));
				return false;
			}
		}
		return true;
	}
	diag_error(run, run_source(run, v->src), v->span, list ?
	    MSG_STATE_MEMORIES : MSG_STATE_PROFILE, tree_kind_article(v->kind));
	return false;
}

bool
agent_state_read(struct run *run, struct source *src, struct agent_state *st)
{
	const struct node *root, *dia;
	struct node *tmp;
	size_t i, len;
	bool ok;

	if (!load_source(run, src, LOAD_JSON, &tmp))
		return false;
	root = tmp;
	if (root->kind != NODE_TABLE) {
		diag_error(run, src, root->span, MSG_STATE_NOT_OBJECT,
		    tree_kind_article(root->kind));
		return false;
	}
	/* The schema sees the state without memories and profile. */
	tmp = tree_table(&run->arena);
	for (i = 0; i < root->u.table.n; i++) {
		const struct member *m = &root->u.table.items[i];

		if (strcmp(m->key, "memories") && strcmp(m->key, "profile"))
			tree_add(&run->arena, tmp, m->key, m->keylen,
			    m->keysrc, m->keyspan, m->value);
	}
	ok = schema_check(run, tmp, &state_schema, "");
	ok = two_shapes(run, root, "memories", true, &st->memories) && ok;
	ok = two_shapes(run, root, "profile", false, &st->profile) && ok;
	if (!ok)
		return false;
	st->question = str(root, "question", &st->qlen);
	st->observation = str(root, "observation", &st->olen);
	dia = tree_get(root, "dialogue");
	if (dia) {
		st->has_dialogue = true;
		st->dialogue = arena_array(&run->arena, dia->u.array.n + 1,
		    sizeof(*st->dialogue));
		for (i = 0; i < dia->u.array.n; i++) {
			const struct node *e = dia->u.array.items[i];
			struct agent_turn *t = &st->dialogue[i];
			const char *role = str(e, "role", &len);

			t->role = strcmp(role, "user") == 0 ? ROLE_USER :
			    ROLE_ASSISTANT;
			t->name = str(e, "name", &len);
			t->content = str(e, "content", &t->len);
			t->has_src = true;
			t->src = e->src;
			t->span = e->span;
		}
		st->ndialogue = dia->u.array.n;
	}
	st->prestart = calls(run, tree_get(root, "prestart"), &st->nprestart);
	st->tools = calls(run, tree_get(root, "tool_history"), &st->ntools);
	return true;
}
