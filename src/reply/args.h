/*
 * args: check a tool call's arguments against the tool's JSON Schema --
 * the subset tool definitions use: type (a name or a list; an integral
 * float is an integer), enum, const, properties, required,
 * additionalProperties: false, items, anyOf/oneOf (any alternative
 * passes), minimum/maximum, minLength/maxLength, minItems/maxItems.
 * Keywords outside that subset are ignored, never guessed at.  Every
 * problem is reported at the argument's own span, named by its path
 * (args.city, args.stops[2].name).  Allocates nothing that outlives the
 * call but the messages' text, in the run's arena.
 */
#ifndef ARGS_H
#define ARGS_H

#include <stdbool.h>

struct node;
struct run;
struct source;

/*
 * Check value against schema for the tool named tool.  src is the text
 * the value was read from (for messages).  Reports every problem; *why
 * (may be NULL) gets the first one's text.  False if there was any.
 */
bool args_check(struct run *run, const struct source *src, const char *tool,
    const struct node *schema, const struct node *value, const char **why);

#endif
