/*
 * gotmpl: Go's text/template language with the Sprig functions, the
 * language of Alice's ".tmpl" prompt files (seed 003).  A set holds named
 * templates: gotmpl_parse() reads one source as the template of that name
 * (and every {{define}} and {{block}} in it); gotmpl_execute() runs one
 * with a config tree as the dot.  The data follows Go's rule for the maps
 * a program hands to text/template: tables are maps (ranged in sorted key
 * order), whole numbers ints, fractions float64s, null nil.
 *
 * Errors are Go's texts (parse and exec), reported as diagnostics at the
 * template's file:line:col; functions that read the clock, the
 * environment, the network or a random source are refused when the
 * template is parsed.  Execution is bounded: template depth, output size
 * and regular expression work (PCRE2 match and depth limits).
 *
 * Ownership: a set lives in the run's arena and borrows its sources (the
 * run's); gotmpl_free() releases the compiled regular expressions, the
 * only memory outside the arena.  Output is appended to the caller's buf.
 */
#ifndef GOTMPL_H
#define GOTMPL_H

#include <stdbool.h>
#include <stddef.h>

struct buf;
struct gotmpl;
struct node;
struct run;
struct source;

/*
 * Called for {{template "name"}} when no template of that name is
 * defined: parse one into t (gotmpl_parse) and return true, or return
 * false when there is none (the caller reports nothing; the executor
 * reports Go's "no template" error).
 */
typedef bool gotmpl_loader(void *ctx, struct gotmpl *t, const char *name);

struct gotmpl *gotmpl_new(struct run *run);
void gotmpl_free(struct gotmpl *t);
void gotmpl_set_loader(struct gotmpl *t, gotmpl_loader *load, void *ctx);
/* Parse src as the template called name. */
bool gotmpl_parse(struct gotmpl *t, const char *name,
    const struct source *src);
bool gotmpl_defined(const struct gotmpl *t, const char *name);
/* Execute template name with data (NULL: nil) as the dot, into out. */
bool gotmpl_execute(struct gotmpl *t, const char *name,
    const struct node *data, struct buf *out);

/* Whether a file name is in this language: it ends in ".tmpl". */
bool gotmpl_is_name(const char *name);

#endif
