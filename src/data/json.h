/*
 * json: JSON in and out.  json_parse() reads a source into the config
 * tree in one strict pass, giving each node the span of its text; a
 * syntax error is reported at the offending byte.  json_write() prints a
 * tree as JSON deterministically: keys in tree order, non-ASCII as UTF-8,
 * integers exact, floats in the shortest form that reads back the same.
 */
#ifndef JSON_H
#define JSON_H

#include <stdbool.h>
#include <stddef.h>

struct buf;
struct node;
struct run;
struct source;

bool json_parse(struct run *run, struct source *src, struct node **out);
/* Parse the one value in src->text[off..off+len) (a line of a JSON
 * Lines file): spans and messages are the file's. */
bool json_parse_range(struct run *run, const struct source *src, size_t off,
    size_t len, struct node **out);

/* indent < 0: compact, one line; else pretty with that many spaces. */
void json_write(struct buf *out, const struct node *n, int indent);
/* The same for a value nested level deep in a document written with
 * that indent (for writers that stream a document in pieces). */
void json_write_level(struct buf *out, const struct node *n, int indent,
    int level);
/* How many bytes from s (n of them) a JSON string holds as they are:
 * printable ASCII but '"' and '\\'.  Eight at a time: the readers and
 * the writer spend most of their time in string text. */
size_t json_plain_span(const char *s, size_t n);
/* A JSON string literal for s[0..len). */
void json_write_string(struct buf *out, const char *s, size_t len);

#endif
