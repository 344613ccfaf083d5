/*
 * diag: every message strata prints to stderr.  Errors are reported where
 * they are found -- with the source and span of the offending text -- and
 * the function that found them returns false; callers pass false up and
 * print nothing more.  All message texts sit in one catalogue below
 * (DIAG_MESSAGES), so the manual can list each one.  The diag state counts
 * what was reported and turns it into the exit status.
 *
 * Format: "path:line:col: error: message", then the source line and a
 * caret under the span.  Messages with no location read
 * "strata: error: message".  A catalogue text ending in ':' gets
 * ": strerror(errno)" appended, with errno as it was at the call.
 */
#ifndef DIAG_H
#define DIAG_H

#include <stdbool.h>
#include <stdio.h>

#include "source.h"

struct run;

/* Exit statuses, documented in strata(1). */
enum exit_status {
	EXIT_OK = 0,
	EXIT_INPUT = 1,         /* bad input: diagnostics were printed */
	EXIT_USAGE = 2,         /* bad command line */
	EXIT_SYSTEM = 3,        /* I/O or system error */
};

enum diag_level {
	DIAG_NOTE,
	DIAG_WARNING,
	DIAG_ERROR,
};

/*
 * The catalogue.  Keep each module's messages together; the name says the
 * module.  X(NAME, "printf format")
 */
#define DIAG_MESSAGES \
	/* general */ \
	X(MSG_CANNOT_READ, "cannot read %s:") \
	X(MSG_CANNOT_WRITE, "cannot write %s:") \
	X(MSG_TOO_LARGE, "%s is too large (%zu bytes; the limit is %zu)") \
	X(MSG_UNKNOWN_FILE_TYPE, "cannot tell the format of '%s': name it .toml, .yaml or .yml") \
	X(MSG_INVALID_UTF8, "invalid UTF-8") \
	X(MSG_NUL_BYTE, "NUL byte in text") \
	X(MSG_TOO_DEEP, "nesting deeper than %d levels") \
	/* toml */ \
	/* yaml */ \
	/* json */ \
	/* profile */ \
	/* end */

#define X(name, text) name,
enum diag_msg {
	DIAG_MESSAGES
	MSG__COUNT
};
#undef X

struct diag {
	unsigned errors, warnings;
	bool system_error;      /* an I/O or system failure: exit 3 */
	bool color;             /* colour the level words */
	bool quiet_notes;
};

void diag_init(struct diag *d);

/* Report at span sp of src; src may be NULL for no location. */
void diag_report(struct run *run, enum diag_level level,
    const struct source *src, struct span sp, enum diag_msg msg, ...);
#define diag_error(run, src, sp, ...) \
	diag_report((run), DIAG_ERROR, (src), (sp), __VA_ARGS__)
#define diag_warning(run, src, sp, ...) \
	diag_report((run), DIAG_WARNING, (src), (sp), __VA_ARGS__)
#define diag_note(run, src, sp, ...) \
	diag_report((run), DIAG_NOTE, (src), (sp), __VA_ARGS__)
/* An error with no location. */
void diag_plain(struct run *run, enum diag_level level, enum diag_msg msg,
    ...);
/* Mark the run as failed by an I/O or system error (exit 3). */
void diag_system(struct run *run);

const char *diag_text(enum diag_msg msg);
/* EXIT_OK, EXIT_INPUT or EXIT_SYSTEM, from what was reported. */
int diag_status(const struct run *run);

#endif
