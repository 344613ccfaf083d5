#include "tavern/preset.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/util.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "tavern/field.h"
#include "text/tokenizer.h"

/* The built-in prompts, for a preset that lacks them. */
static const struct {
	const char *id, *content;
	bool marker, enabled;
} builtin[] = {
	{ "main", "Write {{char}}'s next reply in a fictional chat between "
	    "{{charIfNotGroup}} and {{user}}.", false, true },
	{ "worldInfoBefore", "", true, true },
	{ "personaDescription", "", true, true },
	{ "charDescription", "", true, true },
	{ "charPersonality", "", true, true },
	{ "scenario", "", true, true },
	{ "enhanceDefinitions", "If you have more knowledge of {{char}}, add "
	    "to the character's lore and personality to enhance them but "
	    "keep the Character Sheet's definitions absolute.", false,
	    false },
	{ "nsfw", "", false, true },
	{ "worldInfoAfter", "", true, true },
	{ "dialogueExamples", "", true, true },
	{ "chatHistory", "", true, true },
	{ "jailbreak", "", false, true },
};

const struct preset_prompt *
preset_find(const struct preset *p, const char *id)
{
	size_t i;

	for (i = 0; i < p->nprompts; i++)
		if (strcmp(p->prompts[i].identifier, id) == 0)
			return &p->prompts[i];
	return NULL;
}

bool
preset_triggered(const struct preset_prompt *pp, const char *type)
{
	size_t i;

	if (!pp->triggers || pp->triggers->u.array.n == 0)
		return true;
	for (i = 0; i < pp->triggers->u.array.n; i++) {
		const struct node *t = pp->triggers->u.array.items[i];

		if (t->kind == NODE_STRING && strcmp(t->u.str.s, type) == 0)
			return true;
	}
	return false;
}

static bool
read_prompt(struct run *run, const struct node *o, struct preset_prompt *pp)
{
	int64_t pos;
	bool ok = true;

	memset(pp, 0, sizeof(*pp));
	pp->node = o;
	ok &= field_str(run, o, "identifier", "", &pp->identifier);
	ok &= field_str(run, o, "role", "system", &pp->role);
	ok &= field_str(run, o, "content", "", &pp->content);
	ok &= field_bool(run, o, "system_prompt", false, &pp->system_prompt);
	ok &= field_bool(run, o, "marker", false, &pp->marker);
	ok &= field_bool(run, o, "forbid_overrides", false,
	    &pp->forbid_overrides);
	ok &= field_int(run, o, "injection_position", 0, &pos);
	/* SillyTavern compares with the number 1: "1" stays relative. */
	pp->in_chat = pos == 1 && tree_get(o, "injection_position")->kind !=
	    NODE_STRING;
	pp->has_depth = tree_get(o, "injection_depth") &&
	    tree_get(o, "injection_depth")->kind != NODE_NULL;
	ok &= field_int(run, o, "injection_depth", 4, &pp->depth);
	ok &= field_int(run, o, "injection_order", 100, &pp->order);
	ok &= field_array(run, o, "injection_trigger", &pp->triggers);
	if (strcmp(pp->role, "user") && strcmp(pp->role, "assistant"))
		pp->role = "system";
	return ok;
}

static const struct node *
order_list(const struct node *prompt_order)
{
	size_t i;

	if (!prompt_order)
		return NULL;
	for (i = 0; i < prompt_order->u.array.n; i++) {
		const struct node *e = prompt_order->u.array.items[i], *id;

		if (e->kind != NODE_TABLE)
			continue;
		id = tree_get(e, "character_id");
		if (id && ((id->kind == NODE_INT && id->u.i == 100001) ||
		    (id->kind == NODE_STRING &&
		    strcmp(id->u.str.s, "100001") == 0)))
			return tree_get(e, "order");
	}
	return NULL;
}

static void
add_builtin(struct run *run, struct preset *p, size_t b)
{
	struct preset_prompt *pp = &p->prompts[p->nprompts++];

	memset(pp, 0, sizeof(*pp));
	pp->identifier = builtin[b].id;
	pp->role = "system";
	pp->content = builtin[b].content;
	pp->system_prompt = true;
	pp->marker = builtin[b].marker;
	pp->depth = 4;
	pp->order = 100;
}

static bool
read_order(struct run *run, struct preset *p, const struct node *list)
{
	size_t i, b;
	bool ok = true;

	if (!list || list->kind != NODE_ARRAY) {
		/* SillyTavern makes 100001 from the default order. */
		p->order = arena_array(&run->arena, LEN(builtin),
		    sizeof(*p->order));
		for (b = 0; b < LEN(builtin); b++) {
			p->order[b].prompt = preset_find(p, builtin[b].id);
			p->order[b].enabled = builtin[b].enabled;
		}
		p->norder = LEN(builtin);
		return true;
	}
	p->order = arena_array(&run->arena, list->u.array.n + 1,
	    sizeof(*p->order));
	for (i = 0; i < list->u.array.n; i++) {
		const struct node *e = list->u.array.items[i];
		const char *id;
		bool en;

		if (e->kind != NODE_TABLE) {
			diag_error(run, run_source(run, e->src), e->span,
			    MSG_TAVERN_WRONG_TYPE, "order[]", "an object",
			    tree_kind_article(e->kind));
			ok = false;
			continue;
		}
		if (!field_str(run, e, "identifier", "", &id) ||
		    !field_bool(run, e, "enabled", true, &en)) {
			ok = false;
			continue;
		}
		p->order[p->norder].prompt = preset_find(p, id);
		p->order[p->norder].enabled = en;
		if (!p->order[p->norder].prompt) {
			/* SillyTavern skips it (a prompt deleted, its
			 * order entry left behind). */
			const struct node *v = tree_get(e, "identifier");

			diag_warning(run, run_source(run, v ? v->src :
			    e->src), v ? v->span : e->span,
			    MSG_TAVERN_UNKNOWN_PROMPT, id);
			continue;
		}
		p->norder++;
	}
	return ok;
}

/* The body's seed, taken out of it (from the body or its own table,
 * where a seed written as a string is), or NULL. */
static const struct node *
take_seed(struct arena *a, struct node *body)
{
	struct node *own = tree_get(body, "openai");
	const struct node *v = tree_get(body, "seed");

	if (v)
		tree_remove(a, body, "seed", 4);
	else if (own && (v = tree_get(own, "seed")))
		tree_remove(a, own, "seed", 4);
	return v;
}

/* The body's own "openai" table (fields sent as written), made when
 * missing. */
static struct node *
own_table(struct arena *a, struct node *body)
{
	struct node *t = tree_get(body, "openai");

	return t ? t : tree_put(a, body, "openai", tree_table(a));
}

static void
copy_number(struct run *run, struct node *body, const struct node *root,
    const char *from, const char *to)
{
	const struct node *v = field_number(root, from), *s;
	const char *b, *e;
	char *end, *text;
	double d;

	if (v) {
		tree_put(&run->arena, body, to, tree_copy(&run->arena, v));
		return;
	}
	/* A number written as a string: SillyTavern's Number() of it
	 * (blank is 0). */
	s = tree_get(root, from);
	if (!s || s->kind != NODE_STRING)
		return;
	for (b = s->u.str.s; *b && strchr(" \t\n\r\f\v", *b); b++)
		;
	for (e = b + strlen(b); e > b && strchr(" \t\n\r\f\v", e[-1]); e--)
		;
	text = arena_strndup(&run->arena, b, (size_t)(e - b));
	d = *text ? strtod(text, &end) : 0;
	if (*text && (*end || !isfinite(d) || !(isdigit((unsigned char)
	    text[*text == '-' || *text == '+']) || text[*text == '-' ||
	    *text == '+'] == '.'))) {
		diag_warning(run, run_source(run, s->src), s->span,
		    MSG_TAVERN_NOT_NUMBER, from);
		return;
	}
	tree_put(&run->arena, body, to, d == floor(d) && fabs(d) < 9e15 ?
	    tree_int(&run->arena, (int64_t)d) : tree_float(&run->arena, d));
}

/* What SillyTavern 1.15 sends Claude and Google from the preset: no
 * penalties; Claude top_k always (0 when unset); Google a single
 * candidate, top_k when not 0, the seed when set and its five safety
 * categories off. */
static bool
other_providers(struct run *run, struct preset *p, int64_t seed)
{
	struct arena *a = &run->arena;
	const struct node *k = field_number(p->root, "top_k");
	bool k0 = !k || (k->kind == NODE_INT ? k->u.i == 0 : k->u.f == 0);
	struct node *c, *g, *safety, *cat;
	bool ok = true, sp = false, old = false;
	static const char *const harms[] = { "HARASSMENT", "HATE_SPEECH",
		"SEXUALLY_EXPLICIT", "DANGEROUS_CONTENT", "CIVIC_INTEGRITY" };
	size_t i;

	/* use_sysprompt; a true older per-source field sets it too, for
	 * both, as SillyTavern's settings migration does on loading. */
	ok &= field_bool(run, p->root, "use_sysprompt", false, &sp);
	ok &= field_bool(run, p->root, "claude_use_sysprompt", false, &old);
	sp = sp || old;
	ok &= field_bool(run, p->root, "use_makersuite_sysprompt", false,
	    &old);
	p->sysprompt = sp || old;
	ok &= field_str(run, p->root, "assistant_prefill", "",
	    &p->assistant_prefill);
	ok &= field_str(run, p->root, "assistant_impersonation", "",
	    &p->assistant_impersonation);
	c = p->body_claude = tree_table(a);
	tree_put(a, c, "max_tokens", tree_int(a, p->max_tokens));
	copy_number(run, c, p->root, "temperature", "temperature");
	copy_number(run, c, p->root, "top_p", "top_p");
	tree_put(a, c, "top_k", k ? tree_copy(a, k) : tree_int(a, 0));
	tree_put(a, c, "stream", tree_bool(a, false));
	g = p->body_google = tree_table(a);
	tree_put(a, g, "n", tree_int(a, 1));
	tree_put(a, g, "max_tokens", tree_int(a, p->max_tokens));
	copy_number(run, g, p->root, "temperature", "temperature");
	copy_number(run, g, p->root, "top_p", "top_p");
	if (!k0)
		tree_put(a, g, "top_k", tree_copy(a, k));
	if (seed >= 0)
		tree_put(a, g, "seed", tree_int(a, seed));
	/* Every request turns Google's blocking off (a key strata does not
	 * translate: under the provider's own table). */
	safety = tree_put(a, tree_put(a, g, "gemini", tree_table(a)),
	    "safetySettings", tree_array(a));
	for (i = 0; i < LEN(harms); i++) {
		cat = tree_table(a);
		tree_put(a, cat, "category", tree_str(a, arena_printf(a,
		    "HARM_CATEGORY_%s", harms[i])));
		tree_put(a, cat, "threshold", tree_str(a, "OFF"));
		tree_push(a, safety, cat);
	}
	return ok;
}

bool
preset_read(struct run *run, const char *path, const struct node *named,
    struct preset **out)
{
	struct arena *a = &run->arena;
	struct preset *p = arena_alloc(a, sizeof(*p));
	const struct node *prompts, *po, *v;
	const char *post;
	int64_t names, seed;
	size_t i, b;
	bool ok = true;

	memset(p, 0, sizeof(*p));
	*out = NULL;
	if (!path)
		p->root = tree_table(a);
	else if (!field_load(run, path, named, "a preset",
	    &p->root))
		return false;
	ok &= field_array(run, p->root, "prompts", &prompts);
	ok &= field_array(run, p->root, "prompt_order", &po);
	ok &= field_int(run, p->root, "openai_max_context", 4095,
	    &p->max_context);
	ok &= field_int(run, p->root, "openai_max_tokens", 300,
	    &p->max_tokens);
	ok &= field_str(run, p->root, "wi_format", "{0}", &p->wi_format);
	ok &= field_str(run, p->root, "scenario_format", "{{scenario}}",
	    &p->scenario_format);
	ok &= field_str(run, p->root, "personality_format",
	    "{{personality}}", &p->personality_format);
	ok &= field_str(run, p->root, "new_chat_prompt", "[Start a new Chat]",
	    &p->new_chat_prompt);
	ok &= field_str(run, p->root, "new_group_chat_prompt",
	    "[Start a new group chat. Group members: {{group}}]",
	    &p->new_group_chat_prompt);
	ok &= field_str(run, p->root, "new_example_chat_prompt",
	    "[Example Chat]", &p->new_example_chat_prompt);
	ok &= field_str(run, p->root, "continue_nudge_prompt",
	    "[Continue your last message without repeating its original "
	    "content.]", &p->continue_nudge_prompt);
	ok &= field_str(run, p->root, "impersonation_prompt",
	    "[Write your next reply from the point of view of {{user}}, "
	    "using the chat history so far as a guideline for the writing "
	    "style of {{user}}. Don't write as {{char}} or system. Don't "
	    "describe actions of {{char}}.]", &p->impersonation_prompt);
	ok &= field_str(run, p->root, "group_nudge_prompt",
	    "[Write the next reply only as {{char}}.]",
	    &p->group_nudge_prompt);
	ok &= field_str(run, p->root, "send_if_empty", "", &p->send_if_empty);
	ok &= field_str(run, p->root, "continue_postfix", " ",
	    &p->continue_postfix);
	ok &= field_bool(run, p->root, "squash_system_messages", false,
	    &p->squash);
	ok &= field_bool(run, p->root, "continue_prefill", false,
	    &p->continue_prefill);
	ok &= field_int(run, p->root, "names_behavior", 0, &names);
	if (names < -1 || names > 2) {
		v = tree_get(p->root, "names_behavior");
		diag_error(run, run_source(run, v->src), v->span,
		    MSG_TAVERN_NAMES_BEHAVIOR, arena_printf(a, "%lld",
		    (long long)names));
		ok = false;
	}
	p->names = (enum preset_names)names;
	/* Older presets: names_in_completion true (exactly) means names
	 * in the completion, whatever names_behavior says, and "claude"
	 * post-processing is merge, as SillyTavern migrates them on
	 * selecting the preset. */
	v = tree_get(p->root, "names_in_completion");
	if (v && v->kind == NODE_BOOL && v->u.b)
		p->names = PRESET_NAMES_COMPLETION;
	ok &= field_str(run, p->root, "custom_prompt_post_processing", "",
	    &post);
	if (strcmp(post, "claude") == 0)
		post = "merge";
	if (strncmp(post, "merge", 5) == 0)
		p->post = PRESET_POST_MERGE;
	else if (strncmp(post, "semi", 4) == 0)
		p->post = PRESET_POST_SEMI;
	else if (strncmp(post, "strict", 6) == 0)
		p->post = PRESET_POST_STRICT;
	else if (strncmp(post, "single", 6) == 0)
		p->post = PRESET_POST_SINGLE;
	else if (*post) {
		v = tree_get(p->root, "custom_prompt_post_processing");
		diag_error(run, run_source(run, v->src), v->span,
		    MSG_TAVERN_POST_PROCESSING, post);
		ok = false;
	}
	if (!ok)
		return false;

	/* prompts[], then the built-ins it lacks. */
	p->prompts = arena_array(a, (prompts ? prompts->u.array.n : 0) +
	    LEN(builtin) + 1, sizeof(*p->prompts));
	for (i = 0; prompts && i < prompts->u.array.n; i++) {
		const struct node *o = prompts->u.array.items[i];

		if (o->kind != NODE_TABLE) {
			diag_error(run, run_source(run, o->src), o->span,
			    MSG_TAVERN_WRONG_TYPE, "prompts[]", "an object",
			    tree_kind_article(o->kind));
			ok = false;
			continue;
		}
		if (read_prompt(run, o, &p->prompts[p->nprompts]))
			p->nprompts++;
		else
			ok = false;
	}
	for (b = 0; b < LEN(builtin); b++)
		if (!preset_find(p, builtin[b].id))
			add_builtin(run, p, b);
	if (!ok || !read_order(run, p, order_list(po)))
		return false;

	/* The body: what SillyTavern sends to a custom OpenAI-compatible
	 * source; fields the preset lacks stay absent. */
	p->body = tree_table(a);
	copy_number(run, p->body, p->root, "temperature", "temperature");
	/* max_tokens and seed go out as the preset has them: a number in
	 * a string stays a string (SillyTavern passes both on as read). */
	v = tree_get(p->root, "openai_max_tokens");
	if (v && v->kind == NODE_STRING)
		tree_put(a, own_table(a, p->body), "max_tokens",
		    tree_copy(a, v));
	else
		tree_put(a, p->body, "max_tokens", tree_int(a,
		    p->max_tokens));
	tree_put(a, p->body, "stream", tree_bool(a, false));
	copy_number(run, p->body, p->root, "presence_penalty",
	    "presence_penalty");
	copy_number(run, p->body, p->root, "frequency_penalty",
	    "frequency_penalty");
	copy_number(run, p->body, p->root, "top_p", "top_p");
	if (!field_int(run, p->root, "seed", -1, &seed))
		return false;
	v = tree_get(p->root, "seed");
	if (seed >= 0 && v && v->kind == NODE_STRING)
		tree_put(a, own_table(a, p->body), "seed", tree_copy(a, v));
	else if (seed >= 0)
		tree_put(a, p->body, "seed", tree_int(a, seed));
	return other_providers(run, p, seed) && (*out = p, true);
}

/* A preset field that is a string, else settings.json's oai_settings
 * one (SillyTavern keeps the loaded setting when a preset lacks it),
 * else def. */
static const char *
setting_str(const struct preset *p, const struct node *settings,
    const char *key, const char *def)
{
	const struct node *v = tree_get(p->root, key), *oai;

	if (!v && settings && (oai = tree_get(settings, "oai_settings")))
		v = tree_get(oai, key);
	return v && v->kind == NODE_STRING ? v->u.str.s : def;
}

/* OPENAI_REASONING_EFFORT_MODELS of SillyTavern 1.15's server: the
 * names a custom source forwards reasoning_effort for, exactly. */
static bool
effort_model(const char *model)
{
	static const char *const names[] = { "o1", "o3-mini",
		"o3-mini-2025-01-31", "o4-mini", "o4-mini-2025-04-16", "o3",
		"o3-2025-04-16", "gpt-5", "gpt-5-2025-08-07", "gpt-5-mini",
		"gpt-5-mini-2025-08-07", "gpt-5-nano", "gpt-5-nano-2025-08-07",
		"gpt-5.1", "gpt-5.1-2025-11-13", "gpt-5.1-chat-latest",
		"gpt-5.2", "gpt-5.2-2025-12-11", "gpt-5.2-chat-latest" };
	size_t i;

	for (i = 0; i < LEN(names); i++)
		if (strcmp(model, names[i]) == 0)
			return true;
	return false;
}

/* The family SillyTavern's server tokenizes a model name with for the
 * logit bias, when it is not tiktoken's: NULL for an OpenAI encoding
 * (logit_bias() then encodes with strata's own SentencePiece models
 * where it has them). */
static const char *
bias_family(const char *m)
{
	static const char *const fam[][2] = { { "claude", "claude" },
		{ "llama3", "llama3" }, { "llama-3", "llama3" },
		{ "llama", "llama" }, { "mistral", "mistral" }, { "yi", "yi" },
		{ "deepseek", "deepseek" }, { "gemma", "gemma" },
		{ "gemini", "gemma" }, { "learnlm", "gemma" },
		{ "jamba", "jamba" }, { "qwen2", "qwen2" },
		{ "command-r", "command-r" }, { "command-a", "command-a" },
		{ "nemo", "nemo" } };
	static const char *const openai[] = { "o1-preview", "o1-mini",
		"o3-mini", "gpt-5", "o3", "o4-mini", "gpt-4o",
		"chatgpt-4o-latest", "gpt-4.1", "gpt-4.5", "gpt-4",
		"gpt-3.5-turbo" };
	size_t i;

	if (strcmp(m, "o1") == 0)
		return NULL;
	for (i = 0; i < LEN(openai); i++)
		if (strstr(m, openai[i]))
			return NULL;
	for (i = 0; i < LEN(fam); i++)
		if (strstr(m, fam[i][0]))
			return fam[i][1];
	return NULL;
}

struct bias {
	uint32_t id;
	const struct node *value;
};

static void
bias_set(struct bias **v, size_t *n, size_t *cap, uint32_t id,
    const struct node *value)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i].id == id) {
			(*v)[i].value = value;
			return;
		}
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*v = xreallocarray(*v, *cap, sizeof(**v));
	}
	(*v)[*n].id = id;
	(*v)[(*n)++].value = value;
}

static int
cmp_bias(const void *a, const void *b)
{
	const struct bias *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* "[1, 2]" (after trimming) whose JSON is an array of numbers: their
 * ids, as a Uint32Array keeps them; else false. */
static bool
raw_ids(struct run *run, const char *text, struct tokenizer_ids *out)
{
	const char *s = text, *e = text + strlen(text);
	struct run quiet;
	struct node *n = NULL;
	bool ok = false;
	size_t i;

	while (*s && strchr(" \t\n\r\f\v", *s))
		s++;
	while (e > s && strchr(" \t\n\r\f\v", e[-1]))
		e--;
	if (e - s < 2 || *s != '[' || e[-1] != ']')
		return false;
	run_init(&quiet);
	quiet.diag.capped = true;
	if (json_parse(&quiet, run_source_mem(&quiet, "bias", text,
	    strlen(text)), &n) && n->kind == NODE_ARRAY) {
		ok = true;
		for (i = 0; i < n->u.array.n; i++) {
			const struct node *x = n->u.array.items[i];

			if (x->kind != NODE_INT && x->kind != NODE_FLOAT)
				ok = false;
		}
		for (i = 0; ok && i < n->u.array.n; i++) {
			const struct node *x = n->u.array.items[i];
			double d = x->kind == NODE_INT ? (double)x->u.i :
			    x->u.f;
			int64_t t = isfinite(d) ? (int64_t)fmod(trunc(d),
			    4294967296.0) : 0;
			uint32_t id = (uint32_t)(t < 0 ? t + 4294967296 : t);

			if (out->len == out->cap) {
				out->cap = out->cap ? out->cap * 2 : 8;
				out->v = xreallocarray(out->v, out->cap,
				    sizeof(*out->v));
			}
			out->v[out->len++] = id;
		}
	}
	run_free(&quiet);
	(void)run;
	return ok;
}

/* settings.json's oai_settings.bias_presets, else SillyTavern's two
 * built-in ones. */
static const struct node *
bias_presets(struct run *run, const struct node *settings)
{
	struct arena *a = &run->arena;
	const struct node *oai = settings ? tree_get(settings,
	    "oai_settings") : NULL, *v;
	struct node *d, *list;
	static const struct { const char *text; int value; } anti[] = {
		{ " bond", -50 }, { " future", -50 }, { " bonding", -50 },
		{ " connection", -25 } };
	size_t i;

	if (oai && (v = tree_get(oai, "bias_presets")) &&
	    v->kind != NODE_NULL)
		return v;
	d = tree_table(a);
	tree_put(a, d, "Default (none)", tree_array(a));
	list = tree_put(a, d, "Anti-bond", tree_array(a));
	for (i = 0; i < LEN(anti); i++) {
		struct node *e = tree_table(a);

		tree_put(a, e, "text", tree_str(a, anti[i].text));
		tree_put(a, e, "value", tree_int(a, anti[i].value));
		tree_push(a, list, e);
	}
	return d;
}

static struct node *
logit_bias(struct run *run, const struct preset *p,
    const struct node *settings, const char *model, const char **missing)
{
	struct arena *a = &run->arena;
	const char *sel = setting_str(p, settings, "bias_preset_selected",
	    "Default (none)"), *fam = bias_family(model);
	const struct node *all = bias_presets(run, settings);
	const struct node *list = all->kind == NODE_TABLE ?
	    tree_get(all, sel) : NULL;
	enum tokenizer_kind kind = tokenizer_for_model(model);
	struct bias *v = NULL;
	size_t n = 0, cap = 0, i, j;
	struct node *out = NULL;

	if (!list || list->kind != NODE_ARRAY || list->u.array.n == 0)
		return NULL;
	if (fam && strcmp(fam, "claude") == 0)
		return NULL;    /* SillyTavern: no bias for Claude */
	/* A SentencePiece model strata ships (llama, mistral, yi) encodes
	 * the text as SillyTavern's server does, with the model's own
	 * dummy prefix; the others it lacks stay missing. */
	if (fam && tokenizer_is_sp(kind))
		fam = NULL;
	for (i = 0; i < list->u.array.n; i++) {
		const struct node *e = list->u.array.items[i], *t, *val;
		struct tokenizer_ids ids = TOKENIZER_IDS_INIT;

		if (e->kind != NODE_TABLE || !(t = tree_get(e, "text")) ||
		    t->kind != NODE_STRING || !*t->u.str.s)
			continue;
		val = tree_get(e, "value");
		if (!raw_ids(run, t->u.str.s, &ids)) {
			if (fam) {
				*missing = fam;
				free(v);
				return NULL;
			}
			tokenizer_encode(kind, t->u.str.s, t->u.str.len,
			    &ids);
		}
		for (j = 0; j < ids.len; j++)
			bias_set(&v, &n, &cap, ids.v[j], val);
		tokenizer_ids_free(&ids);
	}
	if (n) {
		qsort(v, n, sizeof(*v), cmp_bias);
		out = tree_table(a);
		for (i = 0; i < n; i++)
			if (v[i].value)
				tree_put(a, out, arena_printf(a, "%u",
				    (unsigned)v[i].id), tree_copy(a,
				    v[i].value));
	}
	free(v);
	return out;
}

static bool
ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && strcmp(s + n - k, tail) == 0;
}

/* A preset field, else settings.json's oai_settings one (any kind). */
static const struct node *
setting_node(const struct preset *p, const struct node *settings,
    const char *key)
{
	const struct node *v = tree_get(p->root, key), *oai;

	if (!v && settings && (oai = tree_get(settings, "oai_settings")))
		v = tree_get(oai, key);
	return v;
}

/* Google's thinking budget for the reasoning effort e and max_tokens
 * n, as SillyTavern 1.15's server computes it by model family: a
 * number (*level NULL), a level (*level set), or neither (false). */
static bool
google_budget(const char *m, const char *e, int64_t n, int64_t *budget,
    const char **level)
{
	static const char *const efforts[] = { "low", "medium", "high",
		"max" };
	static const int64_t den[] = { 10, 4, 2, 1 };
	bool g3pro = strstr(m, "gemini-3-pro") != NULL;
	int64_t b = 0, lo, hi;
	size_t i;

	*level = NULL;
	if (g3pro || strstr(m, "gemini-3-flash")) {
		if (strcmp(e, "min") == 0)
			*level = g3pro ? "low" : "minimal";
		else if (strcmp(e, "low") == 0 || strcmp(e, "medium") == 0)
			*level = g3pro ? "low" : e;
		else if (strcmp(e, "high") == 0 || strcmp(e, "max") == 0)
			*level = "high";
		return *level != NULL;
	}
	if (strstr(m, "flash-lite"))
		lo = 512, hi = 24576;
	else if (strstr(m, "flash"))
		lo = 0, hi = 24576;
	else if (strstr(m, "pro"))
		lo = 128, hi = 32768;
	else
		return false;
	if (strcmp(e, "auto") == 0) {
		*budget = -1;
		return true;
	}
	if (strcmp(e, "min") == 0) {
		*budget = lo == 512 ? 0 : lo;
		return true;
	}
	for (i = 0; i < LEN(efforts); i++)
		if (strcmp(e, efforts[i]) == 0)
			b = n / den[i];
	*budget = b < lo ? lo : b > hi ? hi : b;
	return true;
}

struct node *
preset_google_body(struct run *run, const struct preset *p,
    const struct node *settings, const char *model)
{
	struct arena *a = &run->arena;
	struct node *out, *own, *tc;
	const struct node *st = setting_node(p, settings, "show_thoughts");
	const char *effort = setting_str(p, settings, "reasoning_effort",
	    "auto"), *level;
	bool thoughts = st ? st->kind == NODE_BOOL ? st->u.b :
	    st->kind != NODE_NULL : true;
	int64_t budget = 0;

	if (!model)
		model = "";
	/* Thinking models: gemini-2.5-flash and -pro (not the image
	 * ones), gemini-3-flash and -pro. */
	if (!((strncmp(model, "gemini-2.5-flash", 16) == 0 ||
	    strncmp(model, "gemini-2.5-pro", 14) == 0) &&
	    !ends_with(model, "-image") && !ends_with(model,
	    "-image-preview")) && strncmp(model, "gemini-3-flash", 14) &&
	    strncmp(model, "gemini-3-pro", 12))
		return p->body_google;
	out = tree_copy(a, p->body_google);
	own = tree_get(out, "gemini");
	if (!own)
		own = tree_put(a, out, "gemini", tree_table(a));
	tc = tree_put(a, own, "thinkingConfig", tree_table(a));
	if (google_budget(model, effort, p->max_tokens, &budget, &level)) {
		if (!level && budget == 0 &&
		    preset_source(settings) == SOURCE_VERTEXAI)
			thoughts = false;
		tree_put(a, tc, "includeThoughts", tree_bool(a, thoughts));
		if (level)
			tree_put(a, tc, "thinkingLevel", tree_str(a, level));
		else
			tree_put(a, tc, "thinkingBudget", tree_int(a, budget));
	} else
		tree_put(a, tc, "includeThoughts", tree_bool(a, thoughts));
	return out;
}

int64_t
preset_claude_budget(const struct preset *p, const struct node *settings,
    const char *model)
{
	static const char *const thinking[] = { "claude-3-7",
		"claude-opus-4", "claude-sonnet-4", "claude-haiku-4-5" };
	static const struct { const char *e; double f; } part[] = {
		{ "low", 0.1 }, { "medium", 0.25 }, { "high", 0.5 },
		{ "max", 0.95 } };
	const char *e = setting_str(p, settings, "reasoning_effort", "auto");
	double b = 0;
	size_t i;

	for (i = 0; i < LEN(thinking) && !(model && strncmp(model,
	    thinking[i], strlen(thinking[i])) == 0); i++)
		;
	if (i == LEN(thinking) || strcmp(e, "auto") == 0)
		return 0;
	if (strcmp(e, "min") == 0)
		b = 1024;
	for (i = 0; i < LEN(part); i++)
		if (strcmp(e, part[i].e) == 0)
			b = floor((double)p->max_tokens * part[i].f);
	return b < 1024 ? 1024 : b > 21333 ? 21333 : (int64_t)b;
}

enum preset_source
preset_source(const struct node *settings)
{
	static const char *const names[] = {
		[SOURCE_CUSTOM] = "custom", [SOURCE_OPENAI] = "openai",
		[SOURCE_AZURE_OPENAI] = "azure_openai",
		[SOURCE_OPENROUTER] = "openrouter",
		[SOURCE_DEEPSEEK] = "deepseek", [SOURCE_MISTRALAI] = "mistralai",
		[SOURCE_XAI] = "xai", [SOURCE_VERTEXAI] = "vertexai" };
	const struct node *oai = settings ?
	    tree_get(settings, "oai_settings") : NULL;
	const struct node *v = oai ?
	    tree_get(oai, "chat_completion_source") : NULL;
	size_t i;

	if (!v || v->kind != NODE_STRING)
		return SOURCE_CUSTOM;
	for (i = 0; i < LEN(names); i++)
		if (strcmp(v->u.str.s, names[i]) == 0)
			return (enum preset_source)i;
	return SOURCE_OTHER;
}

/* What SillyTavern 1.15 strips for the model name on an "OpenAI-like"
 * source (its client's gptSources: OpenAI's, Azure's and OpenRouter's)
 * for the o-series, gpt-5 and gpt vision names. */
enum strip {
	STRIP_MAXTOK = 1,       /* max_tokens sent as max_completion_tokens */
	STRIP_SAMPLING = 2,     /* no temperature, top_p */
	STRIP_PENALTIES = 4,    /* no presence_penalty, frequency_penalty */
	STRIP_BIAS_STOP = 8,    /* no logit_bias, stop */
};

bool
preset_gpt_source(enum preset_source src)
{
	return src == SOURCE_OPENAI || src == SOURCE_AZURE_OPENAI ||
	    src == SOURCE_OPENROUTER;
}

const char *
preset_o_series(enum preset_source src, const char *m)
{
	if (src == SOURCE_OPENROUTER) {
		if (strncmp(m, "openai/", 7) != 0)
			return NULL;
		m += 7;
	} else if (src != SOURCE_OPENAI && src != SOURCE_AZURE_OPENAI) {
		return NULL;
	}
	return m[0] == 'o' && (m[1] == '1' || m[1] == '3' || m[1] == '4') ?
	    m : NULL;
}

static unsigned
openai_strip(enum preset_source src, const char *m)
{
	unsigned all = STRIP_MAXTOK | STRIP_SAMPLING | STRIP_PENALTIES |
	    STRIP_BIAS_STOP;

	if (preset_o_series(src, m))
		return all;
	if (strstr(m, "gpt-5")) {
		if (strstr(m, "gpt-5-chat-latest"))
			return STRIP_MAXTOK;
		if ((strstr(m, "gpt-5.1") || strstr(m, "gpt-5.2")) &&
		    !strstr(m, "chat-latest"))
			return STRIP_MAXTOK | STRIP_PENALTIES |
			    STRIP_BIAS_STOP;
		return all;
	}
	if (strstr(m, "gpt") && strstr(m, "vision"))
		return STRIP_BIAS_STOP;
	return 0;
}

/* And for xAI's (its client again): grok-3-mini takes no penalties
 * nor stop, grok-4 and grok-code no penalties and, but for
 * grok-4-fast-non-reasoning, no stop. */
static unsigned
xai_strip(const char *m)
{
	if (strstr(m, "grok-3-mini"))
		return STRIP_PENALTIES | STRIP_BIAS_STOP;
	if (strstr(m, "grok-4") || strstr(m, "grok-code"))
		return STRIP_PENALTIES | (strstr(m,
		    "grok-4-fast-non-reasoning") ? 0 : STRIP_BIAS_STOP);
	return 0;
}

bool
preset_source_stops(const struct node *settings, const char *model)
{
	enum preset_source src = preset_source(settings);

	if (!model)
		model = "";
	if (preset_gpt_source(src))
		return !(openai_strip(src, model) & STRIP_BIAS_STOP);
	if (src == SOURCE_XAI)
		return !(xai_strip(model) & STRIP_BIAS_STOP);
	return true;
}

struct node *
preset_model_body(struct run *run, const struct preset *p,
    const struct node *settings, const char *model,
    const struct node *body, const char **missing)
{
	struct arena *a = &run->arena;
	struct node *out = tree_copy(a, body), *own = NULL, *bias;
	const char *effort = setting_str(p, settings, "reasoning_effort",
	    "auto");
	const char *verb = setting_str(p, settings, "verbosity", "auto");
	enum preset_source src = preset_source(settings);
	bool openai = src == SOURCE_OPENAI;
	bool deepseek = src == SOURCE_DEEPSEEK;
	bool mistral = src == SOURCE_MISTRALAI;
	bool xai = src == SOURCE_XAI;
	unsigned strip;
	const struct node *v;

	if (!model)
		model = "";
	strip = preset_gpt_source(src) ? openai_strip(src, model) : xai ?
	    xai_strip(model) : 0;
	/* Fields strata does not translate go in params' own "openai"
	 * table, sent as written. */
#define OWN() (own ? own : (own = own_table(a, out)))
	*missing = NULL;
	if (deepseek) {
		/* DeepSeek: no seed, bias, effort nor verbosity; a top_p
		 * of 0 is sent as Number.EPSILON. */
		take_seed(a, out);
		v = tree_get(out, "top_p");
		if (v && (v->kind == NODE_INT ? v->u.i == 0 :
		    v->kind == NODE_FLOAT && v->u.f == 0))
			tree_put(a, out, "top_p", tree_float(a, DBL_EPSILON));
		return out;
	}
	if (mistral) {
		/* Mistral: the seed is random_seed, safe_prompt false. */
		v = take_seed(a, out);
		tree_put(a, OWN(), "safe_prompt", tree_bool(a, false));
		if (v)
			tree_put(a, OWN(), "random_seed", tree_copy(a, v));
		return out;
	}
	if (strip & STRIP_MAXTOK) {
		v = tree_get(out, "max_tokens");
		tree_remove(a, out, "max_tokens", 10);
		if (v)
			tree_put(a, OWN(), "max_completion_tokens",
			    tree_copy(a, v));
	}
	if (strip & STRIP_SAMPLING) {
		tree_remove(a, out, "temperature", 11);
		tree_remove(a, out, "top_p", 5);
	}
	if (strip & STRIP_PENALTIES) {
		tree_remove(a, out, "presence_penalty", 16);
		tree_remove(a, out, "frequency_penalty", 17);
	}
	if (xai) {
		/* xAI: no bias; the effort, only for grok-3-mini, is high
		 * or low. */
		if (strcmp(effort, "auto") && *effort &&
		    strstr(model, "grok-3-mini"))
			tree_put(a, OWN(), "reasoning_effort", tree_str(a,
			    strcmp(effort, "high") == 0 ||
			    strcmp(effort, "max") == 0 ? "high" : "low"));
		return out;
	}
	if (!(strip & STRIP_BIAS_STOP) &&
	    (bias = logit_bias(run, p, settings, model, missing)))
		tree_put(a, OWN(), "logit_bias", bias);
	if (strcmp(effort, "auto") && *effort && effort_model(model))
		tree_put(a, OWN(), "reasoning_effort", tree_str(a,
		    strcmp(effort, "min") == 0 ? (openai &&
		    strncmp(model, "gpt-5", 5) == 0 ? "minimal" : "low") :
		    strcmp(effort, "max") == 0 ? "high" : effort));
	if (strcmp(verb, "auto") && *verb && strncmp(model, "gpt-5", 5) == 0)
		tree_put(a, OWN(), "verbosity", tree_str(a, verb));
#undef OWN
	return out;
}
