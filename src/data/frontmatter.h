/*
 * frontmatter: the YAML front matter of a prompt or skill file -- a first
 * line "---" (after a byte order mark, if any: the mark is never part
 * of the body), YAML, then a line "---".
 * It is consumed, not sent: the body starts after the closing line.  The
 * YAML is parsed as a source of its own with the file's name, whose
 * first line is blanked and which ends at the closing line, so messages
 * point at the real file's line and column.  The tree lives in the run's
 * arena.
 */
#ifndef FRONTMATTER_H
#define FRONTMATTER_H

#include <stdbool.h>
#include <stddef.h>

struct node;
struct run;
struct source;

struct frontmatter {
	struct node *meta;      /* a table, or NULL when there is none */
	size_t body;            /* offset of the body in the source */
};

/* Split src; reports an unclosed block or YAML that is not a table. */
bool frontmatter_read(struct run *run, struct source *src,
    struct frontmatter *fm);
/* The string under key in fm's table, or NULL; reports (and clears *ok)
 * a value that is not a string. */
const char *frontmatter_string(struct run *run, const struct frontmatter *fm,
    const char *key, bool *ok);

#endif
