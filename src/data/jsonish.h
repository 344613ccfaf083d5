/*
 * jsonish: the forgiving JSON reader for text a model wrote.  Models wrap
 * JSON in prose, quote with ', leave trailing commas, write Python's
 * True/None, break lines inside strings; a planner loop must still get
 * the decision out.  jsonish_parse() reads one value starting at a given
 * offset of a source and stops where that value ends; it accepts, beyond
 * JSON:
 *
 *   - strings in single quotes ('it\'s'), with JSON's escapes plus \';
 *   - raw control characters (a line break) inside strings, kept as is;
 *   - a comma before } or ];
 *   - True, False, None for true, false, null;
 *   - keys that are bare identifiers ({action: "finish"}).
 *
 * Each of these is unambiguous: no input that JSON accepts reads any
 * differently.  Nodes go into the run's arena with spans into the source,
 * so a later check reports at the model's own text.  On failure nothing
 * is reported: *err holds the offset and the reason, and the caller, who
 * may try other starting points, decides what to say.
 */
#ifndef JSONISH_H
#define JSONISH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct node;
struct run;
struct source;

struct jsonish_error {
	uint32_t off;           /* where it went wrong */
	const char *why;        /* static text */
	uint32_t open;          /* the unclosed { [ or quote ... */
	bool has_open;          /* ... when there is one */
	bool truncated;         /* the text ended inside the value */
};

/*
 * Read the value at src->text[off..end).  On success *out is the value
 * and *stop the offset just past it.
 */
bool jsonish_parse(struct run *run, const struct source *src, size_t off,
    size_t end, struct node **out, size_t *stop, struct jsonish_error *err);

#endif
