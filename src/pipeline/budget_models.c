/*
 * The model table: context windows and largest replies as each provider
 * documents them (late 2025), and the tokenizer strata counts with.
 * OpenAI's encodings are exact; Claude, Gemini and the open models are
 * estimated (tokenizer.h: tokenizer_estimate), so a budget from them
 * keeps [budget] margin free.  The open models are the names Ollama's
 * library uses; the window is the model's own, not Ollama's num_ctx
 * (set [output.params] num_ctx and the budget follows it).
 * strata-profile(5) prints this table; test_budget checks they agree.
 */
#include "pipeline/budget.h"

#include <string.h>

#include "base/path.h"

#define O200K "o200k_base"
#define CL100K "cl100k_base"

static const struct budget_model models[] = {
	/* OpenAI */
	{ "gpt-5", 400000, 128000, O200K, "OpenAI" },
	{ "gpt-4.1", 1047576, 32768, O200K, "OpenAI" },
	{ "gpt-4.5", 128000, 16384, O200K, "OpenAI" },
	{ "gpt-4o", 128000, 16384, O200K, "OpenAI" },
	{ "chatgpt-4o", 128000, 16384, O200K, "OpenAI" },
	{ "gpt-4-turbo", 128000, 4096, CL100K, "OpenAI" },
	{ "gpt-4-32k", 32768, 4096, CL100K, "OpenAI" },
	{ "gpt-4", 8192, 4096, CL100K, "OpenAI" },
	{ "gpt-3.5-turbo", 16385, 4096, CL100K, "OpenAI" },
	{ "o1", 200000, 100000, O200K, "OpenAI" },
	{ "o1-mini", 128000, 65536, O200K, "OpenAI" },
	{ "o1-preview", 128000, 32768, O200K, "OpenAI" },
	{ "o3", 200000, 100000, O200K, "OpenAI" },
	{ "o3-mini", 200000, 100000, O200K, "OpenAI" },
	{ "o4-mini", 200000, 100000, O200K, "OpenAI" },
	/* Anthropic */
	{ "claude-3", 200000, 4096, NULL, "Anthropic" },
	{ "claude-3-5", 200000, 8192, NULL, "Anthropic" },
	{ "claude-3-7", 200000, 64000, NULL, "Anthropic" },
	{ "claude-sonnet-4", 200000, 64000, NULL, "Anthropic" },
	{ "claude-opus-4", 200000, 32000, NULL, "Anthropic" },
	{ "claude-haiku-4", 200000, 64000, NULL, "Anthropic" },
	/* Google */
	{ "gemini-1.5-pro", 2097152, 8192, NULL, "Gemini" },
	{ "gemini-1.5-flash", 1048576, 8192, NULL, "Gemini" },
	{ "gemini-2.0-flash", 1048576, 8192, NULL, "Gemini" },
	{ "gemini-2.5-pro", 1048576, 65536, NULL, "Gemini" },
	{ "gemini-2.5-flash", 1048576, 65536, NULL, "Gemini" },
	/* Open models, as Ollama names them */
	{ "llama2", 4096, 4096, NULL, "open" },
	{ "llama3", 8192, 8192, NULL, "open" },
	{ "llama3.1", 131072, 131072, NULL, "open" },
	{ "llama3.2", 131072, 131072, NULL, "open" },
	{ "llama3.3", 131072, 131072, NULL, "open" },
	{ "mistral", 32768, 32768, NULL, "open" },
	{ "mistral-nemo", 131072, 131072, NULL, "open" },
	{ "mixtral", 32768, 32768, NULL, "open" },
	{ "qwen2.5", 32768, 8192, NULL, "open" },
	{ "qwen3", 40960, 32768, NULL, "open" },
	{ "gemma2", 8192, 8192, NULL, "open" },
	{ "gemma3", 131072, 8192, NULL, "open" },
	{ "phi3", 4096, 4096, NULL, "open" },
	{ "phi4", 16384, 16384, NULL, "open" },
	{ "deepseek-r1", 131072, 32768, NULL, "open" },
};

#define NMODELS (sizeof(models) / sizeof(models[0]))

const struct budget_model *
budget_models(size_t *n)
{
	*n = NMODELS;
	return models;
}

/* Does name start with prefix, followed by the end, '-', ':' or a
 * version the prefix does not spell ("gpt-4o" is not "gpt-4")? */
static bool
matches(const char *name, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	if (n > len || memcmp(name, prefix, n) != 0)
		return false;
	return n == len || name[n] == '-' || name[n] == ':' ||
	    name[n] == '@';
}

const struct budget_model *
budget_model(const char *model)
{
	const struct budget_model *best = NULL;
	size_t i, len;

	if (!model)
		return NULL;
	/* "openai/gpt-4o", "models/gemini-2.5-pro", "library/llama3" */
	model = path_base(model);
	len = strlen(model);
	for (i = 0; i < NMODELS; i++)
		if (matches(model, len, models[i].prefix) && (!best ||
		    strlen(models[i].prefix) > strlen(best->prefix)))
			best = &models[i];
	return best;
}
