#include "profile/schema.h"

#include <limits.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/map.h"
#include "base/path.h"
#include "base/util.h"
#include "data/tree.h"
#include "diag/run.h"
#include "prompt/labels.h"
#include "prompt/names.h"

/* ---- the profile's tables --------------------------------------------- */

const char *const schema_skill_modes[] = { "inline", "outline", NULL };
/* An injection goes into the system or the developer message, or, at a
 * depth, into the conversation as a message of its own (indexed like
 * enum role). */
const char *const schema_inject_roles[] = { "system", "developer", "user",
	"assistant", NULL };


/* [output] developer_role: where the developer message goes. */
const char *const schema_developer_roles[] = { "developer", "system",
	NULL };
const char *const schema_cache_modes[] = { "off", "auto", NULL };
const char *const schema_cut_modes[] = { "drop", "head", "tail", NULL };

/* What a skill, context or injection may say about the budget. */
#define CUT_FIELDS \
	{ "protect", SCHEMA_BOOL, 0, NULL, NULL }, \
	{ "fallback", SCHEMA_STRING, 0, NULL, NULL }, \
	{ "cut", SCHEMA_STRING, 0, NULL, schema_cut_modes },

static const struct schema_field profile_fields[] = {
	{ "name", SCHEMA_STRING, 0, NULL, NULL },
	{ "description", SCHEMA_STRING, 0, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL },
};

static const char *const schema_scenes[] = { "chat", "work", NULL };
/* [prompt.labels]: one string per name of prompt/labels.c (the unit
 * test test_profile checks the two lists agree). */
static const struct schema_field label_fields[] = {
	{ "tools_intro", SCHEMA_STRING, 0, NULL, NULL },
	{ "parameters", SCHEMA_STRING, 0, NULL, NULL },
	{ "none", SCHEMA_STRING, 0, NULL, NULL },
	{ "required", SCHEMA_STRING, 0, NULL, NULL },
	{ "optional", SCHEMA_STRING, 0, NULL, NULL },
	{ "one_of", SCHEMA_STRING, 0, NULL, NULL },
	{ "default", SCHEMA_STRING, 0, NULL, NULL },
	{ "when_to_use", SCHEMA_STRING, 0, NULL, NULL },
	{ "stop", SCHEMA_STRING, 0, NULL, NULL },
	{ "outline_header", SCHEMA_STRING, 0, NULL, NULL },
	{ "outline_footer", SCHEMA_STRING, 0, NULL, NULL },
	{ "prefix", SCHEMA_STRING, 0, NULL, NULL },
	{ "persona", SCHEMA_STRING, 0, NULL, NULL },
	{ "format", SCHEMA_STRING, 0, NULL, NULL },
	{ "skills", SCHEMA_STRING, 0, NULL, NULL },
	{ "tools", SCHEMA_STRING, 0, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL },
};

static const struct schema labels_schema = { "[prompt.labels]",
	label_fields, NULL, NULL, NULL };

static const struct schema_field prompt_fields[] = {
	{ "dir", SCHEMA_STRING, 0, NULL, NULL },
	{ "persona", SCHEMA_STRING, 0, NULL, NULL },
	{ "format", SCHEMA_STRING, 0, NULL, NULL },
	{ "prefix", SCHEMA_STRING, 0, NULL, NULL },
	{ "style", SCHEMA_STRING, 0, NULL, names_styles },
	{ "outline_header", SCHEMA_STRING, 0, NULL, NULL },
	{ "outline_footer", SCHEMA_STRING, 0, NULL, NULL },
	{ "keep_unknown_vars", SCHEMA_BOOL, 0, NULL, NULL },
	{ "soul", SCHEMA_STRING, 0, NULL, NULL },
	{ "scene", SCHEMA_STRING, 0, NULL, schema_scenes },
	{ "disable_identity_hints", SCHEMA_BOOL, 0, NULL, NULL },
	{ "agent", SCHEMA_BOOL, 0, NULL, NULL },
	{ "lang", SCHEMA_STRING, 0, NULL, labels_langs },
	{ "labels", SCHEMA_TABLE, 0, &labels_schema, NULL },
	{ NULL, 0, 0, NULL, NULL },
};

static const struct schema_field skill_fields[] = {
	{ "name", SCHEMA_STRING, 0, NULL, NULL },
	{ "file", SCHEMA_STRING, SCHEMA_REQUIRED, NULL, NULL },
	{ "mode", SCHEMA_STRING, 0, NULL, schema_skill_modes },
	{ "description", SCHEMA_STRING, 0, NULL, NULL },
	{ "priority", SCHEMA_PRIORITY, 0, NULL, NULL },
	{ "show_path", SCHEMA_STRING, 0, NULL, NULL },
	{ "files", SCHEMA_STRINGS, 0, NULL, NULL },
	CUT_FIELDS
	{ NULL, 0, 0, NULL, NULL },
};

/* Inline tool definitions are checked by tool.c, which knows the three
 * shapes; here only their keys are. */
static const struct schema_field tool_fields[] = {
	{ "file", SCHEMA_STRING, SCHEMA_NONEMPTY, NULL, NULL },
	{ "name", SCHEMA_STRING, 0, NULL, NULL },
	{ "description", SCHEMA_STRING, 0, NULL, NULL },
	{ "parameters", SCHEMA_ANY, 0, NULL, NULL },
	{ "usage_hint", SCHEMA_STRING, 0, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL },
};

static const char *const tool_inline[] = { "name", "description",
	"parameters", "usage_hint", NULL };
static const char *const tool_need[] = { "file", "name", NULL };

static const struct schema_group tool_groups[] = {
	{ "file", tool_inline, MSG_TOOL_FILE_INLINE, tool_need,
	  "'file' or an inline 'name'" },
	{ NULL, NULL, 0, NULL, NULL },
};

static const struct schema_field context_fields[] = {
	{ "name", SCHEMA_STRING, SCHEMA_REQUIRED, NULL, NULL },
	{ "tag", SCHEMA_STRING, SCHEMA_NONEMPTY | SCHEMA_TAG, NULL, NULL },
	{ "file", SCHEMA_STRING, 0, NULL, NULL },
	{ "required", SCHEMA_BOOL, 0, NULL, NULL },
	CUT_FIELDS
	{ NULL, 0, 0, NULL, NULL },
};

static const struct schema_field inject_fields[] = {
	{ "key", SCHEMA_STRING, SCHEMA_REQUIRED, NULL, NULL },
	{ "content", SCHEMA_STRING, 0, NULL, NULL },
	{ "file", SCHEMA_STRING, 0, NULL, NULL },
	{ "priority", SCHEMA_PRIORITY, 0, NULL, NULL },
	{ "role", SCHEMA_STRING, 0, NULL, schema_inject_roles },
	{ "position", SCHEMA_STRING, 0, NULL, names_positions },
	{ "depth", SCHEMA_INT, 0, NULL, NULL },
	{ "scope", SCHEMA_STRING, 0, NULL, names_scopes },
	{ "enabled", SCHEMA_BOOL, 0, NULL, NULL },
	{ "anchor", SCHEMA_STRING, SCHEMA_ANCHOR, NULL, NULL },
	CUT_FIELDS
	{ NULL, 0, 0, NULL, NULL },
};

static const char *const inject_content[] = { "content", NULL };
static const char *const inject_need[] = { "content", "file", NULL };

static const struct schema_group inject_groups[] = {
	{ "file", inject_content, MSG_BOTH_GIVEN, inject_need,
	  "'content' or 'file'" },
	{ NULL, NULL, 0, NULL, NULL },
};

static const struct schema_field output_fields[] = {
	{ "format", SCHEMA_STRING, 0, NULL, names_formats },
	{ "model", SCHEMA_STRING, 0, NULL, NULL },
	{ "max_tokens", SCHEMA_INT, 0, NULL, NULL },
	{ "developer_role", SCHEMA_STRING, 0, NULL, schema_developer_roles },
	{ "params", SCHEMA_ANY, 0, NULL, NULL },
	{ "cache", SCHEMA_STRING, 0, NULL, schema_cache_modes },
	{ "context", SCHEMA_INT, 0, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL },
};

/* [budget] (pipeline/budget.h). */
static const struct schema_field budget_fields[] = {
	{ "max_tokens", SCHEMA_INT, 0, NULL, NULL },
	{ "keep_first", SCHEMA_INT, 0, NULL, NULL },
	{ "margin", SCHEMA_INT, 0, NULL, NULL },
	{ "marker", SCHEMA_STRING, 0, NULL, NULL },
	{ "cut", SCHEMA_STRING, 0, NULL, schema_cut_modes },
	{ "history_priority", SCHEMA_PRIORITY, 0, NULL, NULL },
	{ "protect", SCHEMA_STRINGS, 0, NULL, NULL },
	{ "protect_priority", SCHEMA_PRIORITY, 0, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL },
};

/* SillyTavern inputs (tavern/tbuild.h); paths are relative to the
 * profile file.  Read through profile_tavern(). */
static const struct schema_field tavern_fields[] = {
	{ "card", SCHEMA_STRING, 0, NULL, NULL },
	{ "group", SCHEMA_STRING, 0, NULL, NULL },
	{ "preset", SCHEMA_STRING, 0, NULL, NULL },
	{ "chat", SCHEMA_STRING, 0, NULL, NULL },
	{ "settings", SCHEMA_STRING, 0, NULL, NULL },
	{ "worlds", SCHEMA_STRINGS, 0, NULL, NULL },
	{ "regex", SCHEMA_STRINGS, 0, NULL, NULL },
	{ "user", SCHEMA_STRING, 0, NULL, NULL },
	{ "persona", SCHEMA_STRING, 0, NULL, NULL },
	{ "globals", SCHEMA_STRING, 0, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL },
};

/* [hooks] (pipeline/hook.h): seed 002's points, each a command or a
 * list of them; checked further where a build reads them. */
#define HOOK_FIELD(p) { p, SCHEMA_COMMANDS, 0, NULL, NULL }
static const struct schema_field hooks_fields[] = {
	HOOK_FIELD("beforeNormalizeAssets"), HOOK_FIELD("afterNormalizeAssets"),
	HOOK_FIELD("beforeRaw"), HOOK_FIELD("afterInsert"),
	HOOK_FIELD("afterRaw"), HOOK_FIELD("beforePostprocessUser"),
	HOOK_FIELD("afterPostprocessUser"),
	HOOK_FIELD("beforePostprocessAssistant"),
	HOOK_FIELD("afterPostprocessAssistant"),
	HOOK_FIELD("beforeVariablesSave"), HOOK_FIELD("afterVariablesSave"),
	HOOK_FIELD("beforeLLMCall"), HOOK_FIELD("afterLLMCall"),
	HOOK_FIELD("beforeStreamChunk"), HOOK_FIELD("afterStreamChunk"),
	HOOK_FIELD("beforeSaveResponse"), HOOK_FIELD("afterSaveResponse"),
	{ "timeout", SCHEMA_INT, 0, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL },
};
#undef HOOK_FIELD

static const struct schema profile_schema = { "[profile]", profile_fields,
	NULL, NULL, NULL };
static const struct schema prompt_schema = { "[prompt]", prompt_fields,
	NULL, NULL, NULL };
static const struct schema skill_schema = { "a skill", skill_fields, NULL,
	"name", "skill" };
static const struct schema tool_schema = { "a tool", tool_fields,
	tool_groups, NULL, NULL };
static const struct schema context_schema = { "a context", context_fields,
	NULL, "name", "context" };
static const struct schema inject_schema = { "an injection", inject_fields,
	inject_groups, NULL, NULL };
static const struct schema output_schema = { "[output]", output_fields,
	NULL, NULL, NULL };
static const struct schema tavern_schema = { "[tavern]", tavern_fields,
	NULL, NULL, NULL };
static const struct schema budget_schema = { "[budget]", budget_fields,
	NULL, NULL, NULL };
static const struct schema hooks_schema = { "[hooks]", hooks_fields,
	NULL, NULL, NULL };

/* [agent] (layers/agent.h) and the history clean-up switches. */
const char *const schema_agent_kinds[] = { "planner", "final", "importance",
	"profile", "reflection", "chat", NULL };
const char *const schema_agent_langs[] = { "en", "zh", NULL };

static const struct schema_field section_fields[] = {
	{ "title", SCHEMA_STRING, 0, NULL, NULL },
	{ "source", SCHEMA_STRING, SCHEMA_NONEMPTY, NULL, NULL },
	{ "file", SCHEMA_STRING, SCHEMA_NONEMPTY, NULL, NULL },
	{ "text", SCHEMA_STRING, 0, NULL, NULL },
	{ "empty", SCHEMA_STRING, 0, NULL, NULL },
	{ "after", SCHEMA_STRING, 0, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL },
};

static const char *const section_source_others[] = { "file", "text", NULL };
static const char *const section_file_others[] = { "text", NULL };
static const char *const section_need[] = { "source", "file", "text", NULL };

static const struct schema_group section_groups[] = {
	{ "source", section_source_others, MSG_BOTH_GIVEN, section_need,
	  "'source', 'file' or 'text'" },
	{ "file", section_file_others, MSG_BOTH_GIVEN, NULL, NULL },
	{ NULL, NULL, 0, NULL, NULL },
};

static const struct schema section_schema = { "an agent section",
	section_fields, section_groups, NULL, NULL };

static const struct schema_field agent_fields[] = {
	{ "kind", SCHEMA_STRING, 0, NULL, schema_agent_kinds },
	{ "lang", SCHEMA_STRING, 0, NULL, schema_agent_langs },
	{ "system", SCHEMA_STRING, 0, NULL, NULL },
	{ "user_label", SCHEMA_STRING, 0, NULL, NULL },
	{ "assistant_label", SCHEMA_STRING, 0, NULL, NULL },
	{ "params_label", SCHEMA_STRING, 0, NULL, NULL },
	{ "empty", SCHEMA_STRING, 0, NULL, NULL },
	{ "after", SCHEMA_STRING, 0, NULL, NULL },
	{ "instructions", SCHEMA_STRING, 0, NULL, NULL },
	{ "sections", SCHEMA_TABLES, 0, &section_schema, NULL },
	{ NULL, 0, 0, NULL, NULL },
};

static const struct schema agent_schema = { "[agent]", agent_fields, NULL,
	NULL, NULL };

static const struct schema_field cleanup_fields[] = {
	{ "think", SCHEMA_BOOL, 0, NULL, NULL },
	{ "prestart", SCHEMA_BOOL, 0, NULL, NULL },
	{ "empty", SCHEMA_BOOL, 0, NULL, NULL },
	{ "first_user", SCHEMA_STRING, 0, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL },
};

static const struct schema cleanup_schema = { "[cleanup]", cleanup_fields,
	NULL, NULL, NULL };

static const struct schema_field plugins_fields[] = {
	{ "dir", SCHEMA_STRING, SCHEMA_NONEMPTY, NULL, NULL },
	{ "enabled", SCHEMA_STRINGS, 0, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL },
};

static const struct schema plugins_schema = { "[plugins]", plugins_fields,
	NULL, NULL, NULL };

static const struct schema_field plugin_fields[] = {
	{ "name", SCHEMA_STRING, 0, NULL, NULL },
	{ "description", SCHEMA_STRING, 0, NULL, NULL },
	{ "skills", SCHEMA_TABLES, 0, &skill_schema, NULL },
	{ "tools", SCHEMA_TABLES, 0, &tool_schema, NULL },
	{ NULL, 0, 0, NULL, NULL },
};

const struct schema schema_plugin = { "the plugin", plugin_fields, NULL,
	NULL, NULL };

/* [llm_profiles.NAME]: a model and its prompt prefix, chosen with
 * --llm-profile NAME (profile_use_llm()). */
static const struct schema_field llm_profile_fields[] = {
	{ "prompt_prefix", SCHEMA_STRING, 0, NULL, NULL },
	{ "model", SCHEMA_STRING, 0, NULL, NULL },
	{ "max_tokens", SCHEMA_INT, 0, NULL, NULL },
	{ "params", SCHEMA_ANY, 0, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL },
};

static const struct schema llm_profile_schema = { "an LLM profile",
	llm_profile_fields, NULL, NULL, NULL };

static const struct schema_field top_fields[] = {
	{ "extends", SCHEMA_STRING, 0, NULL, NULL },
	{ "profile", SCHEMA_TABLE, 0, &profile_schema, NULL },
	{ "prompt", SCHEMA_TABLE, 0, &prompt_schema, NULL },
	{ "vars", SCHEMA_SCALARS, 0, NULL, NULL },
	{ "skills", SCHEMA_TABLES, 0, &skill_schema, NULL },
	{ "tools", SCHEMA_TABLES, 0, &tool_schema, NULL },
	{ "context", SCHEMA_TABLES, 0, &context_schema, NULL },
	{ "inject", SCHEMA_TABLES, 0, &inject_schema, NULL },
	{ "output", SCHEMA_TABLE, 0, &output_schema, NULL },
	{ "tavern", SCHEMA_TABLE, 0, &tavern_schema, NULL },
	{ "hooks", SCHEMA_TABLE, 0, &hooks_schema, NULL },
	{ "agent", SCHEMA_TABLE, 0, &agent_schema, NULL },
	{ "cleanup", SCHEMA_TABLE, 0, &cleanup_schema, NULL },
	{ "plugins", SCHEMA_TABLE, 0, &plugins_schema, NULL },
	{ "budget", SCHEMA_TABLE, 0, &budget_schema, NULL },
	{ "llm_profiles", SCHEMA_NAMED, 0, &llm_profile_schema, NULL },
	{ NULL, 0, 0, NULL, NULL },
};

const struct schema schema_profile = { "the profile", top_fields, NULL,
	NULL, NULL };

/* ---- lookups ---------------------------------------------------------- */

static const struct source *
src_of(struct run *run, const struct node *n)
{
	return run_source(run, n->src);
}

const struct schema_field *
schema_field(const struct schema *s, const char *key, size_t len)
{
	const struct schema_field *f;

	for (f = s->fields; f->name; f++)
		if (strlen(f->name) == len && memcmp(f->name, key, len) == 0)
			return f;
	return NULL;
}

const struct schema *
schema_sub(const struct schema *s, const char *key, size_t len)
{
	const struct schema_field *f = s ? schema_field(s, key, len) : NULL;

	return f ? f->sub : NULL;
}

const char *
schema_suggest(struct arena *a, const char *key, const struct schema *s)
{
	const struct schema_field *f;
	struct suggest sg;
	const char *best;

	suggest_init(&sg, key);
	for (f = s->fields; f->name; f++)
		suggest_add(&sg, f->name);
	best = suggest_best(&sg);
	return best ? arena_printf(a, "; did you mean '%s'?", best) : "";
}

const char *
schema_type_text(enum schema_type t)
{
	switch (t) {
	case SCHEMA_STRING:
		return "a string";
	case SCHEMA_BOOL:
		return "a boolean";
	case SCHEMA_INT:
		return "an integer";
	case SCHEMA_PRIORITY:
		return "an integer or a priority name";
	case SCHEMA_TABLE:
	case SCHEMA_ANY:
	case SCHEMA_SCALARS:
		return "a table";
	case SCHEMA_STRINGS:
		return "an array of strings";
	case SCHEMA_COMMANDS:
		return "a string or an array of strings";
	case SCHEMA_NAMED:
		return "a table of tables";
	case SCHEMA_TABLES:
		break;
	}
	return "an array of tables";
}

const char *
schema_entry_id(const struct node *e, size_t *len)
{
	const struct node *id;
	const char *s;

	if (!e || e->kind != NODE_TABLE)
		return NULL;
	id = tree_get(e, "name");
	if (!id)
		id = tree_get(e, "key");
	if (id) {
		if (id->kind != NODE_STRING)
			return NULL;
		*len = strlen(id->u.str.s);
		return id->u.str.s;
	}
	id = tree_get(e, "file");
	if (!id || id->kind != NODE_STRING)
		return NULL;
	s = id->u.str.s;
	*len = path_stem_len(s);
	return path_base(s);
}

bool
schema_anchor_parse(const char *s, bool *before, const char **id,
    size_t *idlen)
{
	const char *p;

	if (strncmp(s, "before:", 7) == 0)
		*before = true;
	else if (strncmp(s, "after:", 6) == 0)
		*before = false;
	else
		return false;
	*id = s + (*before ? 7 : 6);
	*idlen = strlen(*id);
	for (p = *id; *p; p++)
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			return false;
	return *idlen > 0;
}

/* ---- shapes: types, choices, unknown keys ----------------------------- */

static bool check_named(struct run *run, const struct node *t,
    const struct schema *s, const char *prefix);
static bool check_value(struct run *run, const struct schema_field *f,
    const struct node *v, const char *path);
static bool check_table(struct run *run, const struct node *t,
    const struct schema *s, const char *prefix);

static const char *
dotted(struct arena *a, const char *prefix, const char *key)
{
	return *prefix ? arena_printf(a, "%s.%s", prefix, key) : key;
}

static const char *
choices_text(struct arena *a, const char *const *choices)
{
	struct buf b = BUF_INIT;
	const char *s;
	size_t i;

	for (i = 0; choices[i]; i++) {
		if (i)
			buf_puts(&b, choices[i + 1] ? ", " : " or ");
		buf_printf(&b, "'%s'", choices[i]);
	}
	s = arena_strndup(a, b.data ? b.data : "", b.len);
	buf_free(&b);
	return s;
}

static bool
check_string(struct run *run, const struct schema_field *f,
    const struct node *v, const char *path)
{
	const char *id;
	bool before;
	size_t i;

	if (memchr(v->u.str.s, '\0', v->u.str.len)) {
		diag_error(run, src_of(run, v), v->span, MSG_NUL_IN_STRING,
		    path);
		return false;
	}
	if (f->flags & SCHEMA_TAG) {
		const char *bad = strpbrk(v->u.str.s, "\n\r") ?
		    "a line break" : strpbrk(v->u.str.s, "[]") ?
		    "'[' or ']'" : NULL;

		if (bad) {
			diag_error(run, src_of(run, v), v->span, MSG_BAD_TAG,
			    path, bad);
			return false;
		}
	}
	if ((f->flags & SCHEMA_ANCHOR) && !schema_anchor_parse(v->u.str.s,
	    &before, &id, &i)) {
		diag_error(run, src_of(run, v), v->span, MSG_BAD_ANCHOR, path,
		    diag_shown(run, v->u.str.s, v->u.str.len));
		return false;
	}
	if (!f->choices)
		return true;
	for (i = 0; f->choices[i]; i++)
		if (strcmp(f->choices[i], v->u.str.s) == 0)
			return true;
	diag_error(run, src_of(run, v), v->span, MSG_BAD_CHOICE, path,
	    choices_text(&run->arena, f->choices),
	    diag_shown(run, v->u.str.s, v->u.str.len));
	return false;
}

static bool
check_priority(struct run *run, const struct node *v, const char *path)
{
	int prio;

	if (v->kind == NODE_INT) {
		if (v->u.i >= INT_MIN / 2 && v->u.i <= INT_MAX / 2)
			return true;
		diag_error(run, src_of(run, v), v->span, MSG_PRIORITY_RANGE,
		    path);
		return false;
	}
	if (names_priority_parse(v->u.str.s, v->u.str.len, &prio))
		return true;
	diag_error(run, src_of(run, v), v->span, MSG_BAD_PRIORITY, path,
	    v->u.str.s);
	return false;
}

/* A table of scalars: every value a string, number or boolean. */
static bool
check_scalars(struct run *run, const struct node *v, const char *path)
{
	size_t i;
	bool ok = true;

	for (i = 0; i < v->u.table.n; i++) {
		const struct member *m = &v->u.table.items[i];
		const struct node *x = m->value;

		if (x->kind == NODE_TABLE || x->kind == NODE_ARRAY ||
		    x->kind == NODE_NULL) {
			diag_error(run, src_of(run, x), x->span,
			    MSG_WRONG_TYPE, dotted(&run->arena, path, m->key),
			    "a string, number or boolean",
			    tree_kind_article(x->kind));
			ok = false;
		}
	}
	return ok;
}

/* An array of strings, none of them empty. */
static bool
check_strings(struct run *run, const struct node *v, const char *path)
{
	size_t i;
	bool ok = true;

	for (i = 0; i < v->u.array.n; i++) {
		const struct node *x = v->u.array.items[i];
		const char *ep = arena_printf(&run->arena, "%s[%zu]", path,
		    i + 1);

		if (x->kind != NODE_STRING) {
			diag_error(run, src_of(run, x), x->span,
			    MSG_WRONG_TYPE, ep, "a string",
			    tree_kind_article(x->kind));
			ok = false;
		} else if (x->u.str.len == 0) {
			diag_error(run, src_of(run, x), x->span,
			    MSG_EMPTY_VALUE, ep);
			ok = false;
		}
	}
	return ok;
}

static bool
check_entries(struct run *run, const struct node *v, const struct schema *s,
    const char *path)
{
	struct arena *a = &run->arena;
	size_t i, len;
	bool ok = true;

	for (i = 0; i < v->u.array.n; i++) {
		const struct node *e = v->u.array.items[i];
		const char *id = schema_entry_id(e, &len);
		/* Name the entry as --set would: skills.diary. */
		const char *ep = id && !memchr(id, '[', len) ?
		    arena_printf(a, "%s.%.*s", path, (int)len, id) :
		    arena_printf(a, "%s[%zu]", path, i + 1);

		if (e->kind != NODE_TABLE) {
			diag_error(run, src_of(run, e), e->span,
			    MSG_WRONG_TYPE, ep, "a table",
			    tree_kind_article(e->kind));
			ok = false;
		} else if (!check_table(run, e, s, ep)) {
			ok = false;
		}
	}
	return ok;
}

static bool
check_value(struct run *run, const struct schema_field *f,
    const struct node *v, const char *path)
{
	enum node_kind k = v->kind;

	switch (f->type) {
	case SCHEMA_STRING:
		if (k == NODE_STRING)
			return check_string(run, f, v, path);
		break;
	case SCHEMA_BOOL:
		if (k == NODE_BOOL)
			return true;
		break;
	case SCHEMA_INT:
		if (k == NODE_INT)
			return true;
		break;
	case SCHEMA_PRIORITY:
		if (k == NODE_INT || k == NODE_STRING)
			return check_priority(run, v, path);
		break;
	case SCHEMA_TABLE:
		if (k == NODE_TABLE)
			return check_table(run, v, f->sub, path);
		break;
	case SCHEMA_ANY:
		if (k == NODE_TABLE)
			return true;
		break;
	case SCHEMA_SCALARS:
		if (k == NODE_TABLE)
			return check_scalars(run, v, path);
		break;
	case SCHEMA_TABLES:
		if (k == NODE_ARRAY)
			return check_entries(run, v, f->sub, path);
		break;
	case SCHEMA_STRINGS:
		if (k == NODE_ARRAY)
			return check_strings(run, v, path);
		break;
	case SCHEMA_COMMANDS:
		if (k == NODE_ARRAY)
			return check_strings(run, v, path);
		if (k == NODE_STRING && v->u.str.len == 0) {
			diag_error(run, src_of(run, v), v->span,
			    MSG_EMPTY_VALUE, path);
			return false;
		}
		if (k == NODE_STRING)
			return true;
		break;
	case SCHEMA_NAMED:
		if (k == NODE_TABLE)
			return check_named(run, v, f->sub, path);
		break;
	}
	diag_error(run, src_of(run, v), v->span, MSG_WRONG_TYPE, path,
	    schema_type_text(f->type), tree_kind_article(k));
	return false;
}

/* Every value of t a table, checked against s. */
static bool
check_named(struct run *run, const struct node *t, const struct schema *s,
    const char *prefix)
{
	const struct schema_field f = { "", SCHEMA_TABLE, 0, s, NULL };
	size_t i;
	bool ok = true;

	for (i = 0; i < t->u.table.n; i++) {
		const struct member *m = &t->u.table.items[i];

		ok = check_value(run, &f, m->value, dotted(&run->arena, prefix,
		    m->key)) && ok;
	}
	return ok;
}

static bool
check_table(struct run *run, const struct node *t, const struct schema *s,
    const char *prefix)
{
	size_t i;
	bool ok = true;

	for (i = 0; i < t->u.table.n; i++) {
		const struct member *m = &t->u.table.items[i];
		const struct schema_field *f = schema_field(s, m->key,
		    m->keylen);
		const char *path = dotted(&run->arena, prefix, m->key);

		if (!f) {
			diag_error(run, run_source(run, m->keysrc),
			    m->keyspan, MSG_UNKNOWN_KEY,
			    diag_shown(run, path, strlen(path)),
			    schema_suggest(&run->arena, m->key, s));
			ok = false;
		} else if (!check_value(run, f, m->value, path)) {
			ok = false;
		}
	}
	return ok;
}

/* ---- rules: required keys, exclusive groups, unique entries ----------- */

static bool
any_of(const struct node *t, const char *const *keys)
{
	for (; *keys; keys++)
		if (tree_get(t, *keys))
			return true;
	return false;
}

static bool
check_required(struct run *run, const struct node *t, const struct schema *s)
{
	const struct schema_field *f;
	bool ok = true;

	for (f = s->fields; f->name; f++) {
		const struct node *v = tree_get(t, f->name);

		if (!v && (f->flags & SCHEMA_REQUIRED)) {
			diag_error(run, src_of(run, t), t->span,
			    MSG_MISSING_KEY, s->what, f->name);
			ok = false;
		} else if (v && (f->flags & (SCHEMA_REQUIRED |
		    SCHEMA_NONEMPTY)) && v->kind == NODE_STRING &&
		    v->u.str.len == 0) {
			diag_error(run, src_of(run, v), v->span,
			    MSG_EMPTY_VALUE, f->name);
			ok = false;
		}
	}
	return ok;
}

static bool
check_groups(struct run *run, const struct node *t, const struct schema *s)
{
	const struct schema_group *g;
	bool ok = true;

	for (g = s->groups; g && g->key; g++) {
		const struct node *k = tree_get(t, g->key);

		if (k && any_of(t, g->others)) {
			diag_error(run, src_of(run, k), k->span, g->both,
			    s->what, g->others[0], g->key);
			ok = false;
		} else if (g->need && !any_of(t, g->need)) {
			diag_error(run, src_of(run, t), t->span,
			    MSG_NEEDS_ONE_OF, s->what, g->need_text);
			ok = false;
		}
	}
	return ok;
}

/* No two entries of arr with the same value of s->unique. */
static bool
check_unique(struct run *run, const struct node *arr, const struct schema *s)
{
	struct map seen;
	size_t i;
	bool ok = true;

	map_init(&seen, &run->arena);
	for (i = 0; i < arr->u.array.n; i++) {
		const struct node *v = tree_get(arr->u.array.items[i],
		    s->unique);
		const struct node *first;
		bool added;
		struct map_item *it;

		if (!v || v->kind != NODE_STRING)
			continue;
		it = map_intern(&seen, v->u.str.s, v->u.str.len, &added);
		if (added) {
			it->value = (void *)v;
			continue;
		}
		first = it->value;
		diag_error(run, src_of(run, v), v->span, MSG_DUPLICATE_ENTRY,
		    s->unique_what, v->u.str.s);
		diag_note(run, src_of(run, first), first->span,
		    MSG_FIRST_HERE);
		ok = false;
	}
	return ok;
}

/* The rules of t and of the tables below it, in the order of s. */
static bool
check_rules(struct run *run, const struct node *t, const struct schema *s)
{
	const struct schema_field *f;
	size_t i;
	bool ok = check_required(run, t, s);

	ok = check_groups(run, t, s) && ok;
	for (f = s->fields; f->name; f++) {
		const struct node *v = tree_get(t, f->name);

		if (!v || !f->sub)
			continue;
		if (f->type == SCHEMA_TABLE) {
			ok = check_rules(run, v, f->sub) && ok;
			continue;
		}
		if (f->type == SCHEMA_NAMED) {
			for (i = 0; i < v->u.table.n; i++)
				ok = check_rules(run, v->u.table.items[i].value,
				    f->sub) && ok;
			continue;
		}
		for (i = 0; i < v->u.array.n; i++)
			ok = check_rules(run, v->u.array.items[i], f->sub) &&
			    ok;
		if (f->sub->unique)
			ok = check_unique(run, v, f->sub) && ok;
	}
	return ok;
}

bool
schema_check(struct run *run, const struct node *t, const struct schema *s,
    const char *prefix)
{
	/* The rules read keys by their types, so they wait for the shapes
	 * to be right: one wrong type is one message. */
	if (!check_table(run, t, s, prefix))
		return false;
	return check_rules(run, t, s);
}

/* ---- extends ---------------------------------------------------------- */

static void
drop_all(struct arena *a, struct node *t, const char *const *keys)
{
	for (; *keys; keys++)
		tree_remove(a, t, *keys, strlen(*keys));
}

void
schema_drop_excluded(struct arena *a, struct node *base,
    const struct node *over, const struct schema *s)
{
	const struct schema_group *g;

	for (g = s ? s->groups : NULL; g && g->key; g++) {
		bool key = tree_get(over, g->key) != NULL;
		bool other = any_of(over, g->others);

		if (key)
			drop_all(a, base, g->others);
		if (other)
			tree_remove(a, base, g->key, strlen(g->key));
	}
}
