#include "tavern/titem.h"

#include <string.h>

static const char *const names[TAVERN_NSTAGES] = { "raw", "regex-pre",
	"macros", "regex-post" };

const char *
tavern_stage_name(enum tavern_stage s)
{
	return names[s];
}

bool
tavern_stage_parse(const char *name, enum tavern_stage *s)
{
	size_t i;

	for (i = 0; i < TAVERN_NSTAGES; i++)
		if (strcmp(name, names[i]) == 0) {
			*s = (enum tavern_stage)i;
			return true;
		}
	return false;
}
