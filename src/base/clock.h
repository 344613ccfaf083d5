/*
 * clock: the time strata writes (a session message's send_date) and,
 * later, the time macros read.  Time is milliseconds since the Unix
 * epoch, UTC.  A build that must give the same bytes twice takes its
 * time from --now, parsed here; otherwise from the system clock.  Pure
 * functions; nothing is allocated.
 */
#ifndef CLOCK_H
#define CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* The system clock. */
int64_t clock_now_ms(void);
/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
 * (m 1..12; d may run past the month: it counts on). */
int64_t clock_days_from_civil(int64_t y, int m, int d);
/*
 * An RFC 3339 date-time: 2026-11-23T09:30:00Z, with optional fraction
 * and a numeric offset (+08:00) instead of Z; a space may stand for T.
 * False if s is not one.
 */
bool clock_parse(const char *s, int64_t *ms);
#define CLOCK_ISO_SIZE 64
/* ms as JavaScript's toISOString() writes it: 2026-11-23T09:30:00.000Z
 * (24 bytes and a NUL). */
void clock_iso(int64_t ms, char out[CLOCK_ISO_SIZE]);

#endif
