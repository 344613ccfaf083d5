/*
 * macros: the one registry of macro names, and the values of the macros
 * that need no SillyTavern state.  Both engines read it: the template
 * language of strata's own files (template.c), after the turn's inputs
 * and the variables, and SillyTavern's legacy engine (tavern/macro.c),
 * which runs its steps in the registry's order (reference/sillytavern.md
 * §4.2).  Names are compared without case, as SillyTavern does.
 *
 * A macro that needs no state (MACROS_FREE: {{newline}}, {{random}},
 * {{roll}}, {{pick}}, the time macros ...) has one implementation here,
 * called by both engines; its time is a number the caller gives (from
 * --now) and its randomness a state the caller seeds (from --seed).
 * Nothing here reads the clock, the environment or a file.
 *
 * Ownership: the table is static; the texts returned live in the arena
 * given.
 */
#ifndef MACROS_H
#define MACROS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;

/* What a macro needs to have a value. */
enum macros_need {
	MACROS_FREE,            /* nothing: usable in any text */
	MACROS_TAVERN,          /* a card, chat, persona or chat variables */
};

/* Its arguments, as strata's own files may write them. */
enum macros_args {
	MACROS_NOARGS,          /* {{newline}} */
	MACROS_ONE,             /* {{reverse::text}}, {{roll 1d6}} */
	MACROS_LIST,            /* {{random::a::b}}, {{random:a,b}} */
	MACROS_UTC,             /* {{time_UTC+2}} */
	MACROS_ANY,             /* the tavern engine parses them */
};

struct macros_def {
	const char *name;
	unsigned char step;     /* 1..11: SillyTavern's legacy order */
	unsigned char need;     /* enum macros_need */
	unsigned char args;     /* enum macros_args */
};

/* Every name, grouped by step in SillyTavern's order; within steps 4
 * and 6 in the order that engine tries them.  Ends with a NULL name. */
extern const struct macros_def macros_table[];

/* The macro of name s[0..n) (any case), or NULL. */
const struct macros_def *macros_find(const char *s, size_t n);

/* --seed as text: true and *seed set when s is 1 to 19 decimal digits
 * (a non-negative integer that fits), else false. */
bool macros_seed(const char *s, uint64_t *seed);

/* {{random}} and {{roll}}: the next number in [0, 1) of a xorshift
 * generator whose state the caller keeps (seeded from --seed). */
double macros_random(uint64_t *state);

/* A dice formula ("1d6", "d20", "3d6+4", a bare "6"; leading blanks
 * allowed) rolled: its total as text in a, or NULL when the formula is
 * not one (SillyTavern gives "" then). */
const char *macros_roll(struct arena *a, const char *f, size_t n,
    uint64_t *rng);

/* The items of a {{random}} or {{pick}} list s[0..n): split at "::"
 * when there is one, else at ',' (trimmed, "\," a comma).  At least
 * one item. */
size_t macros_list(struct arena *a, const char *s, size_t n, char ***items);

/* {{pick}}'s choice among cnt items: stable for a chat (chat_hash), a
 * text (text_hash: cyrb53 of the text as given) and an offset in UTF-16
 * units, with SillyTavern's cyrb53 and seedrandom. */
size_t macros_pick(struct arena *a, size_t cnt, uint64_t chat_hash,
    uint64_t text_hash, size_t off);

/* s[0..n) reversed by code points. */
char *macros_reverse(struct arena *a, const char *s, size_t n);

/* now_ms (+ offset_hours) formatted with a subset of moment.js's tokens
 * in English: "LT" is "3:45 PM", "LL" "November 22, 2025". */
const char *macros_time(struct arena *a, int64_t now_ms, int offset_hours,
    const char *fmt);
/* The value of a time macro without arguments (time, date, weekday,
 * isotime, isodate), or NULL when name is not one. */
const char *macros_time_named(struct arena *a, int64_t now_ms,
    const char *name, size_t n);
/* "+N" / "-N" of {{time_UTC+N}}: false when s[0..n) is not one. */
bool macros_utc_offset(const char *s, size_t n, int *hours);
/* {{timeDiff::A::B}}: the time from B to A as moment.js's humanize(true)
 * words it in English ("in 2 hours", "3 days ago"); A and B in ISO 8601
 * (UTC unless they say otherwise) or the common English forms a browser
 * reads; "Invalid date" when either is neither. */
const char *macros_time_diff(struct arena *a, const char *s1,
    const char *s2);

#endif
