/*
 * templates: the agent templates strata ships -- the current user input,
 * the reply context, the identity hint, the soul wrapper, the first-turn
 * instructions, the skill hint -- compiled into the binary
 * (prompts/templates/ in the source tree) and replaced by a file of the
 * same name under the profile's prompt directory.  {{include::}} finds
 * its files the same way.  A name that leaves the prompt directory
 * (absolute, "..", a symbolic link out) is refused.
 *
 * Ownership: sources belong to the run; names are static.
 */
#ifndef TEMPLATES_H
#define TEMPLATES_H

#include <stdbool.h>

#include "diag/span.h"

struct buf;
struct node;
struct run;
struct source;

/* The built-in templates, NULL-terminated, with one line on each. */
extern const char *const templates_names[];
extern const char *const templates_about[];

/* Relative, not empty, no "." or ".." component, no NUL or backslash. */
bool templates_safe_name(const char *name);
/*
 * The template or include name: dir/name when that file exists (dir
 * NULL: none), else the built-in one.  Errors -- an unsafe name, a
 * symbolic link out of dir, neither file -- are reported at span at of
 * from (NULL: with no place).
 */
struct source *templates_open(struct run *run, const char *dir,
    const char *name, const struct source *from, struct span at);
/* Where name would come from: dir/name, or NULL for the built-in one. */
const char *templates_where(struct run *run, const char *dir,
    const char *name);
/* The built-in text of name, or NULL. */
const char *templates_builtin(const char *name, size_t *len);
/* The language of a template file: "go" for a name ending in ".tmpl"
 * (Go text/template with Sprig, text/gotmpl.h), else "strata". */
const char *templates_language(const char *name);
/*
 * Render the Go template name -- dir/name, else the built-in one --
 * with data (a table, or NULL) as the dot, appending the text to out.
 * Every other .tmpl file under dir is parsed first, so {{template}} and
 * {{define}} reach across files as they do in Go; a name still missing
 * is looked up on disk, then built in.  *from_disk (may be NULL) says
 * where name came from.  Errors are reported; out then holds nothing
 * new.
 */
bool templates_render_go(struct run *run, const char *dir, const char *name,
    const struct node *data, struct buf *out, bool *from_disk);
/* The same, executing the template entry that name's file defines
 * ({{define "entry"}}); nothing when the file does not define it. */
bool templates_render_go_entry(struct run *run, const char *dir,
    const char *name, const char *entry, const struct node *data,
    struct buf *out);
/*
 * Which file a piece of the agent prompt comes from: strata's own md
 * (an .md template) when the prompt directory has that file -- a
 * profile's override in strata's language keeps working -- else
 * Alice's Go template tmpl, from the prompt directory or built in.
 */
const char *templates_agent_pick(struct run *run, const char *dir,
    const char *md, const char *tmpl);

#endif
