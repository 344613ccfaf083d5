/*
 * tool: tool definitions, the one source of both the tool prose in the
 * system prompt and the provider-native `tools` of the request.  A
 * definition is read from a config tree node in one of the shapes in use
 * -- ours ({name, description, parameters, usage_hint}, which also reads
 * OpenAI Responses' flat form), OpenAI Chat's ({"type":"function",
 * "function":{...}}), MCP's ({name, description, inputSchema}) or
 * Anthropic's ({name, description, input_schema}) -- and its parameters
 * are checked to be a JSON Schema object.  Tools and the nodes they point at live in the run's arena and
 * borrow from the tree they were read from.
 */
#ifndef TOOL_H
#define TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag/source.h"

struct arena;
struct buf;
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

struct tool_list {
	struct tool **items;
	size_t n, cap;
	struct node *names;     /* name -> index, for duplicates */
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

/* The prose section for the system prompt, for tools in list order,
 * appended to out; nothing for an empty list.  The format is described at
 * the top of tool.c. */
void tool_prose(struct buf *out, const struct tool_list *list);

/*
 * Provider-native definitions, built in a as trees for json_write(); they
 * share t's parameters node.  OpenAI: {"type":"function","function":
 * {name, description, parameters, strict?}}.  Anthropic: {name,
 * description, input_schema}.  Gemini: one function declaration {name,
 * description, parametersJsonSchema}, which the caller puts into
 * "tools": [{"functionDeclarations": [...]}].
 */
struct node *tool_openai(struct arena *a, const struct tool *t);
struct node *tool_anthropic(struct arena *a, const struct tool *t);
struct node *tool_gemini(struct arena *a, const struct tool *t);

#endif
