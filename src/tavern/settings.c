#include "tavern/settings.h"

#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"
#include "tavern/field.h"

static bool
persona(struct run *run, const struct node *root, const struct node *pu,
    struct settings *s)
{
	const struct node *personas, *descs, *d = NULL;
	const char *avatar;
	bool ok = true;

	ok &= field_str(run, root, "username", "User", &s->user_name);
	ok &= field_str(run, pu, "persona_description", "", &s->persona);
	s->persona_node = tree_get(pu, "persona_description");
	ok &= field_int(run, pu, "persona_description_position", 0,
	    &s->persona_position);
	ok &= field_int(run, pu, "persona_description_depth", 2,
	    &s->persona_depth);
	ok &= field_int(run, pu, "persona_description_role", 0,
	    &s->persona_role);
	ok &= field_str(run, root, "user_avatar", "", &avatar);
	ok &= field_table(run, pu, "personas", &personas);
	ok &= field_table(run, pu, "persona_descriptions", &descs);
	if (!ok || !*avatar)
		return ok;
	ok &= field_str(run, personas, avatar, s->user_name, &s->user_name);
	ok &= field_table(run, descs, avatar, &d);
	if (d) {
		ok &= field_str(run, d, "description", s->persona,
		    &s->persona);
		if (tree_get(d, "description"))
			s->persona_node = tree_get(d, "description");
		ok &= field_int(run, d, "position", s->persona_position,
		    &s->persona_position);
		ok &= field_int(run, d, "depth", s->persona_depth,
		    &s->persona_depth);
		ok &= field_int(run, d, "role", s->persona_role,
		    &s->persona_role);
	}
	return ok;
}

/* getCustomStoppingStrings(): a string that is not a JSON array reads
 * as none (SillyTavern logs it; strata warns at the field). */
static bool
stops(struct run *run, const struct node *pu, struct settings *s)
{
	const char *text;
	const struct node *v;
	struct node *arr = NULL;
	struct source *src;
	struct run quiet;
	size_t i;

	if (!field_str(run, pu, "custom_stopping_strings", "", &text))
		return false;
	if (!*text)
		return true;
	v = tree_get(pu, "custom_stopping_strings");
	/* Parsed on a run of its own whose messages are counted, not
	 * shown: SillyTavern sends none then, and strata warns once. */
	run_init(&quiet);
	quiet.diag.capped = true;
	src = run_source_mem(&quiet, "custom_stopping_strings", text,
	    strlen(text));
	if (!json_parse(&quiet, src, &arr) || arr->kind != NODE_ARRAY) {
		run_free(&quiet);
		diag_warning(run, run_source(run, v->src), v->span,
		    MSG_TAVERN_STOPS);
		return true;
	}
	s->stops = arena_array(&run->arena, arr->u.array.n + 1,
	    sizeof(*s->stops));
	for (i = 0; i < arr->u.array.n; i++) {
		const struct node *x = arr->u.array.items[i];

		if (x->kind == NODE_STRING && x->u.str.len)
			s->stops[s->nstops++] = arena_strndup(&run->arena,
			    x->u.str.s, x->u.str.len);
	}
	run_free(&quiet);
	return true;
}

bool
settings_read(struct run *run, const char *path, const struct node *named,
    struct settings *s)
{
	struct node *root = NULL;
	const struct node *pu = NULL, *ext = NULL, *note = NULL, *vars = NULL;
	bool ok = true;

	memset(s, 0, sizeof(*s));
	if (path && !field_load(run, path, named, "settings.json",
	    &root))
		return false;
	s->root = root;
	ok &= field_table(run, root, "power_user", &pu);
	ok &= field_table(run, root, "extension_settings", &ext);
	ok &= field_table(run, ext, "note", &note);
	ok &= field_table(run, ext, "variables", &vars);
	ok &= field_table(run, vars, "global", &s->global_vars);
	ok &= field_table(run, root, "world_info_settings", &s->world_info);
	ok &= field_array(run, ext, "regex", &s->regex);
	s->extensions = ext;
	if (!ok)
		return false;
	ok &= persona(run, root, pu, s);
	ok &= field_bool(run, pu, "prefer_character_prompt", true,
	    &s->prefer_char_prompt);
	ok &= field_bool(run, pu, "prefer_character_jailbreak", true,
	    &s->prefer_char_instructions);
	ok &= field_bool(run, pu, "strip_examples", false, &s->strip_examples);
	ok &= field_bool(run, pu, "pin_examples", false, &s->pin_examples);
	ok &= field_bool(run, pu, "collapse_newlines", false,
	    &s->collapse_newlines);
	ok &= field_str(run, pu, "user_prompt_bias", "", &s->user_prompt_bias);
	s->bias_node = tree_get(pu, "user_prompt_bias");
	ok &= field_int(run, pu, "chat_truncation", 100, &s->chat_truncation);
	{
		const struct node *r = NULL;

		/* SillyTavern's defaults stand only for a settings.json
		 * without the table: one it has replaces them whole (a
		 * missing text is "", a missing max_additions no
		 * limit). */
		ok &= field_table(run, pu, "reasoning", &r);
		ok &= field_bool(run, r, "add_to_prompts", false,
		    &s->reasoning_add);
		ok &= field_int(run, r, "max_additions", r ? INT64_MAX : 1,
		    &s->reasoning_max);
		ok &= field_str(run, r, "prefix", r ? "" : "<think>\n",
		    &s->reasoning_prefix);
		ok &= field_str(run, r, "suffix", r ? "" : "\n</think>",
		    &s->reasoning_suffix);
		ok &= field_str(run, r, "separator", r ? "" : "\n\n",
		    &s->reasoning_sep);
	}
	ok &= field_str(run, note, "default", "", &s->note_default);
	s->note_node = tree_get(note, "default");
	ok &= field_int(run, note, "defaultPosition", 1, &s->note_position);
	ok &= field_int(run, note, "defaultInterval", 1, &s->note_interval);
	ok &= field_int(run, note, "defaultDepth", 4, &s->note_depth);
	ok &= field_int(run, note, "defaultRole", 0, &s->note_role);
	ok &= field_array(run, note, "chara", &s->note_chara);
	ok &= field_bool(run, note, "allowWIScan", false, &s->note_wi_scan);
	{
		const struct node *mem = NULL, *dis = ext ?
		    tree_get(ext, "disabledExtensions") : NULL;

		ok &= field_table(run, ext, "memory", &mem);
		s->memory_on = !tree_has_string(dis, "memory");
		ok &= field_str(run, mem, "template", "[Summary: {{summary}}]",
		    &s->memory_template);
		ok &= field_int(run, mem, "position", 0, &s->memory_position);
		ok &= field_int(run, mem, "depth", 2, &s->memory_depth);
		ok &= field_int(run, mem, "role", 0, &s->memory_role);
		ok &= field_bool(run, mem, "scan", false, &s->memory_scan);
	}
	/* SillyTavern's default config.yaml; its code falls back to
	 * "Let's get started." */
	s->strict_placeholder = "[Start a new chat]";
	ok &= field_bool(run, pu, "custom_stopping_strings_macro", true,
	    &s->stops_macros);
	ok &= stops(run, pu, s);
	return ok;
}
