#include "prompt/item.h"

#include <string.h>

static const char *const names[ITEM_NSTAGES] = { "raw", "regex-pre",
	"macros", "regex-post" };

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
