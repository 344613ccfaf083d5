/*
 * tool: the tool model -- definitions read and checked, the one source of
 * both the tool prose in the system prompt (layers/tool_prose.h) and the
 * provider-native `tools` of the request (emit.h).  A definition is read
 * from a config tree node in one of the shapes in use -- ours ({name,
 * description, parameters, usage_hint}, which also reads OpenAI
 * Responses' flat form), OpenAI Chat's ({"type":"function",
 * "function":{...}}), MCP's ({name, description, inputSchema}) or
 * Anthropic's ({name, description, input_schema}) -- and its parameters
 * are checked to be a JSON Schema object.  Tools, the list's arrays and
 * its name index live in the arena of the run that read them, and borrow
 * from the tree they were read from.
 */
#ifndef TOOL_H
#define TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/map.h"
#include "diag/span.h"

struct node;
struct run;

struct tool {
	const char *name;
	const char *description;        /* as written (prose trims it) */
	const char *usage_hint;         /* NULL when none or blank */
	/* A JSON Schema object (table) with "type": "object" -- the
	 * definition's own node, or a copy that adds the type. */
	const struct node *parameters;
	const struct node *strict;      /* OpenAI's "strict" (a boolean
	                                 * node), NULL when not given */
	uint32_t src;                   /* source id of the name */
	struct span span;               /* the name's span: messages about
	                                 * the tool point here */
};

/* How deep a schema may nest (properties, items, anyOf...): deeper is an
 * error when read, and the prose stops there too. */
#define TOOL_SCHEMA_DEPTH 64

/* A zeroed list is empty; tool_read() fills it. */
struct tool_list {
	struct tool **items;    /* in definition order */
	size_t n, cap;
	struct map names;       /* name -> struct tool *, for duplicates */
};

/*
 * Read the definitions in n -- one tool table, an array of them, or a
 * table {"tools": [...]} (an MCP tools/list result) -- and append them to
 * list.  Errors (missing name or description, a name the providers
 * refuse, unknown keys, parameters that are not a JSON Schema object, a
 * name defined twice in list) are reported at their spans; a definition
 * with an error is not appended.  Returns false if there was any.  The
 * shapes and the checks are described at the top of tool.c.
 */
bool tool_read(struct run *run, const struct node *n, struct tool_list *list);

#endif
