#include "prompt/item.h"

#include <string.h>

#include "base/arena.h"

static const char *const names[ITEM_NSTAGES] = { "raw", "regex-pre",
	"macros", "regex-post" };
static const char *const sources[ITEM_NSOURCES] = { "preset", "card",
	"chat", "settings", "world info", "profile" };

const char *
item_source_name(enum item_source s)
{
	return sources[s];
}

const char *
item_stage_name(enum item_stage s)
{
	return names[s];
}

bool
item_stage_parse(const char *name, enum item_stage *s)
{
	size_t i;

	for (i = 0; i < ITEM_NSTAGES; i++)
		if (strcmp(name, names[i]) == 0) {
			*s = (enum item_stage)i;
			return true;
		}
	return false;
}

const char *
item_prefixed(struct arena *a, const char *who, const char *content)
{
	size_t n = strlen(who);

	/* SillyTavern's startsWith(`${name}: `), the space included. */
	if (strncmp(content, who, n) == 0 && content[n] == ':' &&
	    content[n + 1] == ' ')
		return content;
	return arena_printf(a, "%s: %s", who, content);
}

const char *
item_bot_prefixed(struct arena *a, const struct item_request *q,
    const char *content)
{
	size_t i, n;

	for (i = 0; i < q->nmembers; i++) {
		n = strlen(q->members[i]);
		if (strncmp(content, q->members[i], n) == 0 &&
		    content[n] == ':' && content[n + 1] == ' ')
			return content;
	}
	return item_prefixed(a, q->char_name, content);
}
