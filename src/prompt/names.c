#include "prompt/names.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

const char *const names_roles[] = { "system", "developer", "user",
	"assistant", NULL };
const char *const names_scopes[] = { "global", "session", "turn", NULL };
const char *const names_styles[] = { "plain", "markdown", "sections",
	"tagged", NULL };
const char *const names_positions[] = { "system", "developer",
	"user-context", "depth", NULL };
const char *const names_formats[] = { "openai", "anthropic", "gemini",
	"messages", "text", "json", "responses", "ollama", "prompt", "system",
	"user", "review", NULL };
static const char *const names_origins[] = { "system", "developer",
	"history", "session", "turn", "in-chat" };

/*
 * DESIGN.md's built-in priorities, lower first, then seed 000's names
 * for the same slots (PromptStack's PRIORITY_* constants, lower case
 * without the prefix; the constants themselves are accepted too).
 */
static const struct {
	const char *name;
	int value;
} priorities[] = {
	{ "safety", 10 }, { "behavior", 20 }, { "persona", 30 },
	{ "format", 35 }, { "state", 40 }, { "relationship", 50 },
	{ "memories", 60 }, { "world_book", 65 }, { "knowledge", 70 },
	{ "skills", 75 }, { "tools", 80 }, { "reaction_plan", 90 },
	{ "character_profile", 30 }, { "character_state", 40 },
	{ "character_relationship", 50 }, { "character_memories", 60 },
	{ "knowledge_rag", 70 }, { "tool_instructions", 80 },
};

/* "PRIORITY_KNOWLEDGE_RAG" reads as "knowledge_rag". */
static bool
constant_name(const char *s, size_t len, const char *name)
{
	size_t i, n = strlen(name);

	if (len != n + 9 || memcmp(s, "PRIORITY_", 9) != 0)
		return false;
	for (i = 0; i < n; i++)
		if (s[9 + i] != (name[i] >= 'a' && name[i] <= 'z' ?
		    name[i] - 'a' + 'A' : name[i]))
			return false;
	return true;
}

const char *
names_role(enum role r)
{
	return r == ROLE_TOOL ? "tool" : names_roles[r];
}

const char *
names_origin(enum origin o)
{
	return names_origins[o];
}

const char *
names_scope(enum scope s)
{
	return names_scopes[s];
}

const char *
names_style(enum style s)
{
	return names_styles[s];
}

const char *
names_format(enum out_format f)
{
	return names_formats[f];
}

int
names_index(const char *const *list, const char *s, size_t len)
{
	int i;

	for (i = 0; list[i]; i++)
		if (strlen(list[i]) == len && memcmp(list[i], s, len) == 0)
			return i;
	return -1;
}

bool
names_format_parse(const char *s, enum out_format *out)
{
	int i = names_index(names_formats, s, strlen(s));

	if (i < 0)
		return false;
	*out = (enum out_format)i;
	return true;
}

bool
names_priority_parse(const char *s, size_t len, int *out)
{
	size_t i;
	char *end;
	long v;

	for (i = 0; i < LEN(priorities); i++)
		if ((strlen(priorities[i].name) == len &&
		    memcmp(priorities[i].name, s, len) == 0) ||
		    constant_name(s, len, priorities[i].name)) {
			*out = priorities[i].value;
			return true;
		}
	if (len == 0 || len > 12)
		return false;
	/* strtol skips leading blanks and takes a sign: only digits and
	 * one leading minus are a number here. */
	if (!(s[0] == '-' || (s[0] >= '0' && s[0] <= '9')))
		return false;
	v = strtol(s, &end, 10);
	if (end != s + len || v < INT_MIN / 2 || v > INT_MAX / 2)
		return false;
	*out = (int)v;
	return true;
}
