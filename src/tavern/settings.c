#include "tavern/settings.h"

#include <string.h>

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
		ok &= field_int(run, d, "position", s->persona_position,
		    &s->persona_position);
		ok &= field_int(run, d, "depth", s->persona_depth,
		    &s->persona_depth);
		ok &= field_int(run, d, "role", s->persona_role,
		    &s->persona_role);
	}
	return ok;
}

bool
settings_read(struct run *run, const char *path, struct settings *s)
{
	struct node *root = NULL;
	const struct node *pu = NULL, *ext = NULL, *note = NULL, *vars = NULL;
	bool ok = true;

	memset(s, 0, sizeof(*s));
	if (path && !field_load(run, path, "settings.json", &root))
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
	ok &= field_str(run, note, "default", "", &s->note_default);
	ok &= field_int(run, note, "defaultPosition", 1, &s->note_position);
	ok &= field_int(run, note, "defaultInterval", 1, &s->note_interval);
	ok &= field_int(run, note, "defaultDepth", 4, &s->note_depth);
	ok &= field_int(run, note, "defaultRole", 0, &s->note_role);
	ok &= field_array(run, note, "chara", &s->note_chara);
	ok &= field_bool(run, note, "allowWIScan", false, &s->note_wi_scan);
	/* SillyTavern's default config.yaml; its code falls back to
	 * "Let's get started." */
	s->strict_placeholder = "[Start a new chat]";
	return ok;
}
