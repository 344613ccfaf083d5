/*
 * titem: SillyTavern's generation types (--type), one spelling each.
 * The record the build keeps of each piece of text (struct item, its
 * stages) is the prompt model's: prompt/item.h.
 */
#ifndef TITEM_H
#define TITEM_H

#include <stdbool.h>

#include "prompt/item.h"

/* SillyTavern's generation types (--type). */
enum tavern_gen {
	TAVERN_GEN_NORMAL,
	TAVERN_GEN_CONTINUE,
	TAVERN_GEN_IMPERSONATE,
	TAVERN_GEN_SWIPE,
	TAVERN_GEN_REGENERATE,
	TAVERN_GEN_QUIET,
	TAVERN_NGENS,
};

/* A generation type's name (normal, continue, ...). */
const char *tavern_gen_name(enum tavern_gen g);
/* The generation type named name; false when there is none. */
bool tavern_gen_parse(const char *name, enum tavern_gen *g);

#endif
