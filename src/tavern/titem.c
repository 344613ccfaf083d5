#include "tavern/titem.h"

#include <string.h>

/* The one spelling of each generation type, as SillyTavern names it. */
static const char *const gens[TAVERN_NGENS] = {
	[TAVERN_GEN_NORMAL] = "normal",
	[TAVERN_GEN_CONTINUE] = "continue",
	[TAVERN_GEN_IMPERSONATE] = "impersonate",
	[TAVERN_GEN_SWIPE] = "swipe",
	[TAVERN_GEN_REGENERATE] = "regenerate",
	[TAVERN_GEN_QUIET] = "quiet",
};

const char *
tavern_gen_name(enum tavern_gen g)
{
	return gens[g];
}

bool
tavern_gen_parse(const char *name, enum tavern_gen *g)
{
	size_t i;

	for (i = 0; i < TAVERN_NGENS; i++)
		if (strcmp(name, gens[i]) == 0) {
			*g = (enum tavern_gen)i;
			return true;
		}
	return false;
}
