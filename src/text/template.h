/*
 * template: the template language of profile files (persona, format,
 * skills, injections, the prefix) and of the agent templates
 * (templates.h):
 *
 *   {{name}}  {{name.field}}          a value (a list prints as "a, b")
 *   {{if cond}}...{{else}}...{{/if}}  cond is a name, "!" negates; falsy:
 *                                     "", false, 0, off, no, an empty list
 *   {{each list as x}}...{{/each}}    once per item, x bound to it
 *   {{include::path}}                 a file of the prompt directory
 *   {{// comment}}                    nothing
 *   \{\{  \}\}                        literal braces
 *   {{newline}}  {{random::a::b}}     SillyTavern's state-free macros
 *   {{roll 1d6}}  {{reverse::{{x}}}}  (text/macros.h), inner first
 *
 * Values come from [vars], the session, -v and the turn's inputs, the
 * later winning, then from the macro registry (names without case).  An
 * unknown name is an error at its span, unless the profile keeps unknown
 * placeholders as they are, and so is a macro that needs SillyTavern's
 * state or is given bad arguments; block errors (unclosed, stray, bad
 * include, include cycle) are errors at theirs.  Tokens are found by the
 * shared lexer (text/macro_lex.h).  It runs as a pass of the profile
 * build's rewrite plan (pipeline/rewrite.h).
 *
 * Names are found through a hash map, so defining n variables and
 * expanding text of length m take O(n + m) time.  The variables, the map
 * and every expanded text live in the run's arena; a struct tvars needs
 * no freeing.
 */
#ifndef TEMPLATE_H
#define TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/map.h"
#include "diag/source.h"
#include "prompt/entry.h"

struct arena;
struct node;
struct run;

struct tvar {
	const char *name;
	const char *value;      /* NUL-terminated text */
	size_t len;
	const struct node *node;        /* the value as read (JSON, YAML),
	                                 * or NULL: text */
	const struct source *src;       /* where it was defined */
	struct span span;
	bool used;
};

struct tvars {
	struct map names;       /* name -> struct tvar *, definition order */
	bool keep_unknown;
	const char *dir;        /* where {{include::}} looks; NULL: the
	                         * embedded templates only */
	/* The macros' time and randomness: --now and --seed (NULL: the
	 * clock, read once and only when a macro needs it). */
	const char *now, *seed;
	bool now_set, rng_set;
	bool seed_bad;                  /* --seed not a number: reported */
	int64_t now_ms;
	uint64_t rng;
};

void template_vars_init(struct run *run, struct tvars *v);
/* Is s[0..len) a variable name: a letter (of any script) or '_', then
 * letters, digits, '_', '.' or '-'? */
bool template_name_ok(const char *s, size_t len);
/* Add or override a variable (an override keeps the first position). */
void template_var(struct run *run, struct tvars *v, const char *name,
    const char *value, size_t len, const struct source *src,
    struct span span);
/* A JSON value (list, object or scalar) as a variable. */
void template_var_node(struct run *run, struct tvars *v, const char *name,
    const struct node *value, const struct source *src, struct span span);
/* Is a value true for {{if}}? */
bool template_truthy(const struct tvar *t);
/* A scalar node's text (numbers and booleans as written by JSON), in the
 * arena; "" for a list or an object. */
const char *template_scalar_text(struct arena *a, const struct node *x,
    size_t *len);
/* Every scalar of a [vars] table (numbers and booleans as their text,
 * their node kept for the Go dot). */
void template_vars_from(struct run *run, struct tvars *v,
    const struct node *table);
/* The variable of name, or NULL. */
struct tvar *template_var_get(const struct tvars *v, const char *name,
    size_t len);
/* The i-th variable in definition order, i < template_nvars(v). */
#define template_nvars(v) ((v)->names.n)
#define template_var_at(v, i) ((struct tvar *)(v)->names.items[(i)].value)

/*
 * Expand in into *out (text and origin runs in the run's arena; out may
 * be in when nothing changes).  A substituted value's run stands for its
 * placeholder.  Errors point where in's runs say the placeholder came
 * from.  Reports every unknown placeholder; false if any.
 */
bool template_expand(struct run *run, struct tvars *v,
    const struct etext *in, struct etext *out);

#endif
