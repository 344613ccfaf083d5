/*
 * preset: a SillyTavern Chat Completion preset ("OpenAI Settings" JSON):
 * the prompts, the prompt_order SillyTavern uses (character_id 100001,
 * else the default order), the utility prompts and formats, names
 * behaviour, squash and post-processing, the context budget and the
 * sampler fields that go into the request body.  Everything borrows the
 * JSON tree, which lives in the run's arena.
 */
#ifndef PRESET_H
#define PRESET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct node;
struct run;

enum preset_names {
	PRESET_NAMES_NONE = -1,
	PRESET_NAMES_DEFAULT = 0,
	PRESET_NAMES_COMPLETION = 1,
	PRESET_NAMES_CONTENT = 2,
};

enum preset_post {
	PRESET_POST_NONE,
	PRESET_POST_MERGE,
	PRESET_POST_SEMI,
	PRESET_POST_STRICT,
	PRESET_POST_SINGLE,
};

struct preset_prompt {
	const char *identifier;
	const char *role;               /* system (default), user, assistant */
	const char *content;            /* "" for markers */
	bool system_prompt;             /* false: a user-made prompt */
	bool marker;
	bool forbid_overrides;
	bool in_chat;                   /* injection_position 1 */
	bool has_depth;                 /* injection_depth given */
	int64_t depth, order;           /* injection_depth (4), _order (100) */
	const struct node *triggers;    /* injection_trigger array, or NULL */
	const struct node *node;        /* the prompt's object, for spans */
};

struct preset_slot {
	const struct preset_prompt *prompt;
	bool enabled;
};

struct preset {
	struct node *root;
	struct preset_prompt *prompts;
	size_t nprompts;
	struct preset_slot *order;      /* prompt_order 100001 */
	size_t norder;
	int64_t max_context, max_tokens;
	const char *wi_format, *scenario_format, *personality_format,
	    *new_chat_prompt, *new_group_chat_prompt,
	    *new_example_chat_prompt, *continue_nudge_prompt,
	    *impersonation_prompt, *group_nudge_prompt, *send_if_empty,
	    *continue_postfix;
	enum preset_names names;
	enum preset_post post;
	bool squash, continue_prefill;
	struct node *body;              /* the sampler fields to send */
	/* For Claude and Google (strata-tavern(7), OTHER PROVIDERS):
	 * use_sysprompt (older presets: claude_use_sysprompt,
	 * use_makersuite_sysprompt), Claude's prefills, and the sampler
	 * fields SillyTavern sends each. */
	bool sysprompt;
	const char *assistant_prefill, *assistant_impersonation;
	struct node *body_claude, *body_google;
};

/* body (an OpenAI-compatible source's samplers) with what SillyTavern
 * 1.15 adds for the model name through a custom source: logit_bias from
 * the selected bias preset (settings.json's oai_settings.bias_presets),
 * in the model's token ids; reasoning_effort for OpenAI's reasoning
 * model names; verbosity for gpt-5 names.  A copy in the run's arena;
 * settings (all of settings.json) may be NULL.  When the model's bias
 * needs a tokenizer strata lacks, no logit_bias is added and *missing is
 * that tokenizer's family (else NULL): the caller warns
 * (MSG_TAVERN_BIAS_TOKENIZER) when it sends the body. */
struct node *preset_model_body(struct run *run, const struct preset *p,
    const struct node *settings, const char *model,
    const struct node *body, const char **missing);
/* The chat completion sources whose request strata shapes: settings.json's
 * oai_settings.chat_completion_source, as preset_source() reads it
 * (custom without one; SOURCE_OTHER for a source strata does not model,
 * which gets custom's body).  The bodies strata knows are custom's,
 * openai's (and the OpenAI-like azure_openai and openrouter's o-series,
 * gpt-5 and vision rules), deepseek's, mistralai's and xai's; vertexai
 * differs from makersuite in Google's thinking config only. */
enum preset_source {
	SOURCE_CUSTOM,
	SOURCE_OPENAI,
	SOURCE_AZURE_OPENAI,
	SOURCE_OPENROUTER,
	SOURCE_DEEPSEEK,
	SOURCE_MISTRALAI,
	SOURCE_XAI,
	SOURCE_VERTEXAI,
	SOURCE_OTHER
};
enum preset_source preset_source(const struct node *settings);
/* Whether src is one SillyTavern's client calls OpenAI-like (openai,
 * azure_openai, openrouter): its o-series, gpt-5 and vision rules apply.
 * preset_o_series(): model m's name after OpenRouter's "openai/" when it
 * is an o-series one (o1, o3, o4...) on such a source, else NULL. */
bool preset_gpt_source(enum preset_source src);
const char *preset_o_series(enum preset_source src, const char *m);
/* Whether the source sends the custom stopping strings for model. */
bool preset_source_stops(const struct node *settings, const char *model);
/* The preset's Google body for model: with SillyTavern's thinking
 * config (includeThoughts from show_thoughts, the budget or level from
 * the reasoning effort) for the models that take one. */
struct node *preset_google_body(struct run *run, const struct preset *p,
    const struct node *settings, const char *model);
/* Claude's extended thinking budget_tokens SillyTavern sends for model
 * (claude-3-7, -opus-4, -sonnet-4, -haiku-4-5 names) and the reasoning
 * effort (not auto), non-streaming; 0 for none. */
int64_t preset_claude_budget(const struct preset *p,
    const struct node *settings, const char *model);
/* Read and check the preset at path.  Errors are reported. */
bool preset_read(struct run *run, const char *path, const struct node *named,
    struct preset **out);
/* The prompt with this identifier, or NULL. */
const struct preset_prompt *preset_find(const struct preset *p,
    const char *identifier);
/* Whether the prompt's injection_trigger allows the generation type. */
bool preset_triggered(const struct preset_prompt *pp, const char *type);

#endif
