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
const char *const names_formats[] = { "openai", "anthropic", "gemini",
	"messages", "text", "json", NULL };

/* DESIGN.md's built-in priorities, lower first. */
static const struct {
	const char *name;
	int value;
} priorities[] = {
	{ "safety", 10 }, { "behavior", 20 }, { "persona", 30 },
	{ "format", 35 }, { "state", 40 }, { "relationship", 50 },
	{ "memories", 60 }, { "world_book", 65 }, { "knowledge", 70 },
	{ "skills", 75 }, { "tools", 80 }, { "reaction_plan", 90 },
};

const char *
names_role(enum role r)
{
	return names_roles[r];
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
		if (strlen(priorities[i].name) == len &&
		    memcmp(priorities[i].name, s, len) == 0) {
			*out = priorities[i].value;
			return true;
		}
	if (len == 0 || len > 12)
		return false;
	v = strtol(s, &end, 10);
	if (end != s + len || v < INT_MIN / 2 || v > INT_MAX / 2)
		return false;
	*out = (int)v;
	return true;
}
