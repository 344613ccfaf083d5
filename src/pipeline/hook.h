/*
 * hook: seed 002's hook points as external filters.  The user names a
 * command for a point (--hook POINT=COMMAND, or a profile's [hooks]
 * table); at that point strata runs it with /bin/sh -c, writes the
 * point's data as one JSON object on its standard input, and reads the
 * (possibly changed) object back from its standard output.  A command
 * that exits non-zero, is killed, prints something that is not one JSON
 * object, changes what it may not change, or runs past the timeout is
 * an error naming the hook; the caller then writes nothing.  No hook
 * runs unless the user asked for it: nothing in a card, a preset or a
 * chat can name one.
 *
 * Ownership: the result tree lives in the run's arena; the commands and
 * point names are borrowed.
 */
#ifndef HOOK_H
#define HOOK_H

#include <stdbool.h>
#include <stddef.h>

struct node;
struct run;

struct hook {
	const char *point;      /* one of hook_points[] */
	const char *command;    /* a shell command */
};

struct hooks {
	const struct hook *v;   /* in the order given */
	size_t n;
	unsigned timeout_ms;    /* each command's; 0: HOOK_TIMEOUT_MS */
};

#define HOOK_TIMEOUT_MS 10000u

/* Seed 002's points, NULL-terminated; those a strata build runs (all
 * but the six of a command that calls a model); and of them, those
 * inside the SillyTavern assembly (all but the variables' two). */
extern const char *const hook_points[];
bool hook_point_runs(const char *point);
bool hook_in_assembly(const char *point);

/*
 * The hooks of a build: a profile's [hooks] table (NULL: none; its
 * shape checked by the profile schema), each point's commands in the
 * table's order, then the command line's (cli, or NULL).  cli's
 * timeout wins over the table's.  NULL after reporting a point strata
 * build does not reach or a timeout that is not a positive number of
 * seconds; cli itself when there is no table.  In the run's arena.
 */
struct node;
struct hooks *hook_merge(struct run *run, const struct node *table,
    struct hooks *cli);

/* Does hooks name a command for point? */
bool hook_wanted(const struct hooks *hooks, const char *point);

/*
 * Run every command for point, in order, each on the output of the one
 * before: *data in, the last output out.  The output must be a JSON
 * object with the same keys as the input, each key's value of the same
 * JSON type.  False after reporting.
 */
bool hook_run(struct run *run, const struct hooks *hooks, const char *point,
    struct node **data);

#endif
