#include "text/macros.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/rng.h"
#include "base/util.h"

#define F MACROS_FREE
#define T MACROS_TAVERN
#define NO MACROS_NOARGS
#define ONE MACROS_ONE
#define ANY MACROS_ANY

const struct macros_def macros_table[] = {
	/* 1: the literal forms */
	{ "<USER>", 1, T, NO }, { "<BOT>", 1, T, NO }, { "<CHAR>", 1, T, NO },
	{ "<CHARIFNOTGROUP>", 1, T, NO }, { "<GROUP>", 1, T, NO },
	{ "roll", 2, F, ONE },
	/* 3: instruct mode, empty in Chat Completion */
	{ "instructSystem", 3, T, NO }, { "instructSystemPrefix", 3, T, NO },
	{ "instructSystemSuffix", 3, T, NO }, { "instructInput", 3, T, NO },
	{ "instructUserPrefix", 3, T, NO }, { "instructUserSuffix", 3, T, NO },
	{ "instructOutput", 3, T, NO }, { "instructAssistantPrefix", 3, T, NO },
	{ "instructSeparator", 3, T, NO },
	{ "instructAssistantSuffix", 3, T, NO },
	{ "instructSystemPromptPrefix", 3, T, NO },
	{ "instructSystemPromptSuffix", 3, T, NO },
	{ "instructFirstOutput", 3, T, NO },
	{ "instructFirstAssistantPrefix", 3, T, NO },
	{ "instructLastOutput", 3, T, NO },
	{ "instructLastAssistantPrefix", 3, T, NO },
	{ "instructFirstInput", 3, T, NO },
	{ "instructFirstUserPrefix", 3, T, NO },
	{ "instructLastInput", 3, T, NO }, { "instructLastUserPrefix", 3, T, NO },
	{ "instructStop", 3, T, NO }, { "instructUserFiller", 3, T, NO },
	{ "instructSystemInstructionPrefix", 3, T, NO },
	{ "instructStoryStringPrefix", 3, T, NO },
	{ "instructStoryStringSuffix", 3, T, NO },
	{ "exampleSeparator", 3, T, NO }, { "chatSeparator", 3, T, NO },
	{ "chatStart", 3, T, NO }, { "systemPrompt", 3, T, NO },
	{ "defaultSystemPrompt", 3, T, NO }, { "instructSystemPrompt", 3, T, NO },
	/* 4: variables, local then global */
	{ "setvar", 4, T, ANY }, { "addvar", 4, T, ANY },
	{ "incvar", 4, T, ANY }, { "decvar", 4, T, ANY },
	{ "getvar", 4, T, ANY }, { "setglobalvar", 4, T, ANY },
	{ "addglobalvar", 4, T, ANY }, { "incglobalvar", 4, T, ANY },
	{ "decglobalvar", 4, T, ANY }, { "getglobalvar", 4, T, ANY },
	/* 5 */
	{ "newline", 5, F, NO }, { "trim", 5, F, NO }, { "noop", 5, F, NO },
	{ "input", 5, T, NO },
	/* 6: the environment, in SillyTavern's insertion order */
	{ "original", 6, T, NO }, { "charPrompt", 6, T, NO },
	{ "charInstruction", 6, T, NO }, { "charJailbreak", 6, T, NO },
	{ "description", 6, T, NO }, { "charDescription", 6, T, NO },
	{ "personality", 6, T, NO }, { "charPersonality", 6, T, NO },
	{ "scenario", 6, T, NO }, { "charScenario", 6, T, NO },
	{ "persona", 6, T, NO }, { "mesExamples", 6, T, NO },
	{ "mesExamplesRaw", 6, T, NO }, { "charVersion", 6, T, NO },
	{ "char_version", 6, T, NO }, { "charDepthPrompt", 6, T, NO },
	{ "creatorNotes", 6, T, NO }, { "user", 6, T, NO },
	{ "char", 6, T, NO }, { "group", 6, T, NO },
	{ "charIfNotGroup", 6, T, NO }, { "groupNotMuted", 6, T, NO },
	{ "notChar", 6, T, NO }, { "model", 6, T, NO },
	{ "lastChatMessage", 6, T, NO },
	/* registered by SillyTavern's extensions and initMacros() */
	{ "authorsNote", 6, T, NO }, { "charAuthorsNote", 6, T, NO },
	{ "defaultAuthorsNote", 6, T, NO }, { "summary", 6, T, NO },
	{ "lastGenerationType", 6, T, NO }, { "isMobile", 6, T, NO },
	/* 7: the chat */
	{ "maxPrompt", 7, T, NO }, { "lastMessage", 7, T, NO },
	{ "lastMessageId", 7, T, NO }, { "lastUserMessage", 7, T, NO },
	{ "lastCharMessage", 7, T, NO }, { "firstIncludedMessageId", 7, T, NO },
	{ "firstDisplayedMessageId", 7, T, NO }, { "lastSwipeId", 7, T, NO },
	{ "currentSwipeId", 7, T, NO },
	/* 8 */
	{ "reverse", 8, F, ONE }, { "//", 8, F, ANY },
	/* 9: time, from --now */
	{ "time", 9, F, NO }, { "date", 9, F, NO }, { "weekday", 9, F, NO },
	{ "isotime", 9, F, NO }, { "isodate", 9, F, NO },
	{ "datetimeformat", 9, F, ONE }, { "idle_duration", 9, T, NO },
	{ "time_UTC", 9, F, MACROS_UTC },
	{ "outlet", 10, T, ANY }, { "timeDiff", 10, T, ANY },
	/* 11 */
	{ "banned", 11, T, ANY }, { "random", 11, F, MACROS_LIST },
	{ "pick", 11, F, MACROS_LIST },
	{ NULL, 0, 0, 0 },
};

#undef F
#undef T
#undef NO
#undef ONE
#undef ANY

const struct macros_def *
macros_find(const char *s, size_t n)
{
	const struct macros_def *d;

	for (d = macros_table; d->name; d++)
		if (strlen(d->name) == n && strncasecmp(d->name, s, n) == 0)
			return d;
	return NULL;
}

double
macros_random(uint64_t *state)
{
	uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ULL;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return (double)((x * 0x2545f4914f6cdd1dULL) >> 11) /
	    9007199254740992.0;
}

const char *
macros_roll(struct arena *a, const char *s, size_t n, uint64_t *rng)
{
	long count = 1, sides, add = 0, i, total = 0;
	char *f = arena_strndup(a, s, n), *p, *end;

	for (p = f; *p == ' '; p++)
		;
	if (*p == 'd' || *p == 'D')
		p++;
	else {
		count = strtol(p, &end, 10);
		if (end == p)
			return NULL;
		p = end;
		if (*p == '\0') {
			sides = count;
			count = 1;
			goto roll;
		}
		if (*p != 'd' && *p != 'D')
			return NULL;
		p++;
	}
	sides = strtol(p, &end, 10);
	if (end == p)
		return NULL;
	p = end;
	if (*p == '+' || *p == '-') {
		add = strtol(p, &end, 10);
		if (end == p + 1)
			return NULL;
		p = end;
	}
	while (*p == ' ')
		p++;
	if (*p)
		return NULL;
roll:
	if (count < 1 || sides < 1 || count > 1000)
		return NULL;
	for (i = 0; i < count; i++)
		total += 1 + (long)floor(macros_random(rng) * (double)sides);
	return arena_printf(a, "%ld", total + add);
}

size_t
macros_list(struct arena *a, const char *s, size_t n, char ***items)
{
	size_t cap = 8, cnt = 0, i, start = 0;
	bool colons = false;
	char **v;

	for (i = 0; i + 1 < n; i++)
		if (s[i] == ':' && s[i + 1] == ':')
			colons = true;
	v = arena_array(a, cap, sizeof(*v));
	for (i = 0; i <= n; i++) {
		bool end = i == n, sep;

		sep = !end && (colons ? (s[i] == ':' && i + 1 < n &&
		    s[i + 1] == ':') : (s[i] == ',' && (i == 0 ||
		    s[i - 1] != '\\')));
		if (!end && !sep)
			continue;
		if (cnt == cap) {
			v = arena_grow(a, v, cap, cap * 2, sizeof(*v));
			cap *= 2;
		}
		if (colons)
			v[cnt++] = arena_strndup(a, s + start, i - start);
		else {
			/* trim, then \, -> , */
			size_t b = start, e = i, j;
			struct buf t = BUF_INIT;

			for (j = b; j < e; j++) {
				if (s[j] == '\\' && j + 1 < e && s[j + 1] ==
				    ',')
					continue;
				buf_putc(&t, s[j]);
			}
			buf_putc(&t, '\0');
			b = 0;
			e = strlen(t.data);
			while (b < e && isspace((unsigned char)t.data[b]))
				b++;
			while (e > b && isspace((unsigned char)t.data[e - 1]))
				e--;
			v[cnt++] = arena_strndup(a, t.data + b, e - b);
			buf_free(&t);
		}
		if (colons && sep)
			i++;
		start = i + 1;
	}
	*items = v;
	return cnt;
}

bool
macros_seed(const char *s, uint64_t *seed)
{
	const char *p;

	for (p = s; *p >= '0' && *p <= '9'; p++)
		;
	if (p == s || *p || p - s > 19)
		return false;
	*seed = strtoull(s, NULL, 10);
	return true;
}

size_t
macros_pick(struct arena *a, size_t cnt, uint64_t chat_hash,
    uint64_t text_hash, size_t off)
{
	struct rng_arc4 r;
	const char *seed = arena_printf(a, "%llu-%llu-%zu",
	    (unsigned long long)chat_hash, (unsigned long long)text_hash, off);

	/* The seed is a number, which seedrandom flattens to its decimal
	 * text and a NUL. */
	seed = arena_printf(a, "%llu",
	    (unsigned long long)rng_cyrb53(seed, strlen(seed), 0));
	rng_arc4_seed(&r, seed, strlen(seed) + 1);
	return (size_t)floor(rng_arc4_double(&r) * (double)cnt);
}

char *
macros_reverse(struct arena *a, const char *s, size_t n)
{
	char *r = arena_alloc(a, n + 1), *w = r + n;
	size_t i;
	uint32_t cp;

	*w = '\0';
	for (i = 0; i < n;) {
		size_t len = utf8_decode(s + i, n - i, &cp);

		if (len == 0)
			len = 1;
		w -= len;
		memcpy(w, s + i, len);
		i += len;
	}
	return r;
}

const char *
macros_time(struct arena *a, int64_t now_ms, int offset_hours,
    const char *f)
{
	static const char *const months[] = { "January", "February",
		"March", "April", "May", "June", "July", "August",
		"September", "October", "November", "December" };
	static const char *const days[] = { "Sunday", "Monday", "Tuesday",
		"Wednesday", "Thursday", "Friday", "Saturday" };
	struct buf b = BUF_INIT;
	const char *r;
	struct tm tm;
	time_t t = (time_t)(now_ms / 1000 - (now_ms % 1000 < 0)) +
	    (time_t)offset_hours * 3600;
	int h12;

	gmtime_r(&t, &tm);
	h12 = tm.tm_hour % 12 ? tm.tm_hour % 12 : 12;
	while (*f) {
		if (*f == '[') {
			const char *e = strchr(f, ']');

			if (e) {
				buf_put(&b, f + 1, (size_t)(e - f - 1));
				f = e + 1;
				continue;
			}
		}
#define TOK(t) (strncmp(f, (t), strlen(t)) == 0 && (f += strlen(t), 1))
		if (TOK("YYYY"))
			buf_printf(&b, "%04d", tm.tm_year + 1900);
		else if (TOK("YY"))
			buf_printf(&b, "%02d", (tm.tm_year + 1900) % 100);
		else if (TOK("MMMM"))
			buf_puts(&b, months[tm.tm_mon]);
		else if (TOK("MMM"))
			buf_printf(&b, "%.3s", months[tm.tm_mon]);
		else if (TOK("MM"))
			buf_printf(&b, "%02d", tm.tm_mon + 1);
		else if (TOK("M"))
			buf_printf(&b, "%d", tm.tm_mon + 1);
		else if (TOK("DD"))
			buf_printf(&b, "%02d", tm.tm_mday);
		else if (TOK("D"))
			buf_printf(&b, "%d", tm.tm_mday);
		else if (TOK("dddd"))
			buf_puts(&b, days[tm.tm_wday]);
		else if (TOK("ddd"))
			buf_printf(&b, "%.3s", days[tm.tm_wday]);
		else if (TOK("HH"))
			buf_printf(&b, "%02d", tm.tm_hour);
		else if (TOK("H"))
			buf_printf(&b, "%d", tm.tm_hour);
		else if (TOK("hh"))
			buf_printf(&b, "%02d", h12);
		else if (TOK("h"))
			buf_printf(&b, "%d", h12);
		else if (TOK("mm"))
			buf_printf(&b, "%02d", tm.tm_min);
		else if (TOK("m"))
			buf_printf(&b, "%d", tm.tm_min);
		else if (TOK("ss"))
			buf_printf(&b, "%02d", tm.tm_sec);
		else if (TOK("s"))
			buf_printf(&b, "%d", tm.tm_sec);
		else if (TOK("A"))
			buf_puts(&b, tm.tm_hour < 12 ? "AM" : "PM");
		else if (TOK("a"))
			buf_puts(&b, tm.tm_hour < 12 ? "am" : "pm");
		else if (TOK("LT"))
			buf_printf(&b, "%d:%02d %s", h12, tm.tm_min,
			    tm.tm_hour < 12 ? "AM" : "PM");
		else if (TOK("LL"))
			buf_printf(&b, "%s %d, %04d", months[tm.tm_mon],
			    tm.tm_mday, tm.tm_year + 1900);
		else
			buf_putc(&b, *f++);
#undef TOK
	}
	buf_putc(&b, '\0');
	r = arena_strdup(a, b.data);
	buf_free(&b);
	return r;
}

const char *
macros_time_named(struct arena *a, int64_t now_ms, const char *s, size_t n)
{
	static const char *const names[][2] = { { "time", "LT" },
		{ "date", "LL" }, { "weekday", "dddd" }, { "isotime", "HH:mm" },
		{ "isodate", "YYYY-MM-DD" } };
	size_t i;

	for (i = 0; i < LEN(names); i++)
		if (strlen(names[i][0]) == n &&
		    strncasecmp(s, names[i][0], n) == 0)
			return macros_time(a, now_ms, 0, names[i][1]);
	return NULL;
}

bool
macros_utc_offset(const char *s, size_t n, int *hours)
{
	char num[24], *end;
	long h;

	if (n < 2 || n >= sizeof(num) || (s[0] != '+' && s[0] != '-'))
		return false;
	memcpy(num, s, n);
	num[n] = '\0';
	h = strtol(num, &end, 10);
	if (*end || end == num + 1 || h < -10000 || h > 10000)
		return false;
	*hours = (int)h;
	return true;
}

static int
month_days(int64_t y, int m)
{
	static const int n[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30,
		31 };

	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return n[m - 1];
}

/* n digits at *p: their value, else -1. */
static int64_t
digits(const char **p, int n)
{
	int64_t v = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return -1;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	return v;
}

/* "HH[:mm[:ss[.fff]]]" at *p into milliseconds of the day. */
static bool
iso_time(const char **p, int64_t *ms)
{
	int64_t h, mi = 0, s = 0, frac = 0, scale = 1;

	if ((h = digits(p, 2)) < 0)
		return false;
	if (**p == ':') {
		(*p)++;
		if ((mi = digits(p, 2)) < 0)
			return false;
		if (**p == ':') {
			(*p)++;
			if ((s = digits(p, 2)) < 0)
				return false;
			if ((**p == '.' || **p == ',') &&
			    isdigit((unsigned char)(*p)[1])) {
				(*p)++;
				while (isdigit((unsigned char)**p)) {
					if (scale < 1000) {
						frac = frac * 10 + (**p - '0');
						scale *= 10;
					}
					(*p)++;
				}
			}
		}
	}
	if (mi > 59 || s > 59 || h > 24 ||
	    (h == 24 && (mi || s || frac)))
		return false;
	*ms = ((h * 60 + mi) * 60 + s) * 1000 + frac * 1000 / scale;
	return true;
}

/* moment.js's extended ISO 8601 forms (a date; then "T" or " " and a
 * time; then "Z" or an offset), local time being UTC. */
static bool
parse_iso(const char *s, int64_t *out)
{
	const char *p = s;
	int64_t y, m = 1, d = 1, t = 0, off = 0;

	while (isspace((unsigned char)*p))
		p++;
	if ((y = digits(&p, 4)) < 0 || *p++ != '-')
		return false;
	if ((m = digits(&p, 2)) < 0)
		return false;
	if (*p == '-') {
		p++;
		if ((d = digits(&p, 2)) < 0)
			return false;
	} else if (isdigit((unsigned char)*p)) {
		int64_t doy = m * 10 + (*p++ - '0');

		/* YYYY-DDD, a day of the year */
		if (doy < 1 || doy > 365 + (month_days(y, 2) == 29))
			return false;
		*out = (clock_days_from_civil(y, 1, 1) + doy - 1) * 86400000;
		return *p == '\0';
	}
	if (m < 1 || m > 12 || d < 1 || d > month_days(y, (int)m))
		return false;
	if (*p == 'T' || *p == ' ') {
		p++;
		if (!iso_time(&p, &t))
			return false;
		while (*p == ' ' && p[1] == 'Z')
			p++;
		if (*p == 'Z') {
			p++;
		} else if (*p == '+' || *p == '-') {
			int sign = *p++ == '-' ? -1 : 1;
			int64_t oh, om = 0;

			if ((oh = digits(&p, 2)) < 0)
				return false;
			if (*p == ':')
				p++;
			if (isdigit((unsigned char)*p) &&
			    (om = digits(&p, 2)) < 0)
				return false;
			off = sign * (oh * 60 + om) * 60000;
		}
	}
	if (*p)
		return false;
	*out = clock_days_from_civil(y, (int)m, (int)d) * 86400000 + t - off;
	return true;
}

/* What a browser's Date makes of the common English forms moment.js
 * hands it when a text is not ISO 8601: "November 29, 2026 4:13 AM",
 * "29 Nov 2026 16:13:05", "2026/11/29", "11/29/2026 10:00". */
static bool
parse_loose(const char *s, int64_t *out)
{
	static const char *const mon[] = { "jan", "feb", "mar", "apr", "may",
		"jun", "jul", "aug", "sep", "oct", "nov", "dec" };
	static const char *const wday[] = { "sun", "mon", "tue", "wed",
		"thu", "fri", "sat" };
	int64_t num[3], y = -1, m = -1, d = -1, h = 0, mi = 0, sec = 0;
	int nnum = 0, ampm = 0, k;
	bool have_time = false, slash = false;
	const char *p = s;

	while (*p) {
		if (isspace((unsigned char)*p) || *p == ',') {
			p++;
		} else if (isalpha((unsigned char)*p)) {
			const char *w = p;
			size_t n;

			while (isalpha((unsigned char)*p))
				p++;
			n = (size_t)(p - w);
			if (n == 2 && strncasecmp(w, "am", 2) == 0)
				ampm = 1;
			else if (n == 2 && strncasecmp(w, "pm", 2) == 0)
				ampm = 2;
			else if ((n == 3 && strncasecmp(w, "utc", 3) == 0) ||
			    (n == 3 && strncasecmp(w, "gmt", 3) == 0) ||
			    (n == 1 && (*w == 'z' || *w == 'Z')))
				;
			else {
				for (k = 0; k < 12; k++)
					if (n >= 3 && strncasecmp(w, mon[k], 3) == 0)
						break;
				if (k < 12 && m < 0) {
					m = k + 1;
					continue;
				}
				for (k = 0; k < 7; k++)
					if (n >= 3 && strncasecmp(w, wday[k], 3) == 0)
						break;
				if (k == 7)
					return false;
			}
		} else if (isdigit((unsigned char)*p)) {
			int64_t v = 0;
			const char *w = p;

			while (isdigit((unsigned char)*p) && p - w < 9)
				v = v * 10 + (*p++ - '0');
			if (*p == ':') {
				if (have_time)
					return false;
				have_time = true;
				h = v;
				p++;
				if ((mi = digits(&p, 2)) < 0)
					return false;
				if (*p == ':') {
					p++;
					if ((sec = digits(&p, 2)) < 0)
						return false;
				}
				continue;
			}
			if (*p == '/') {
				slash = true;
				p++;
			}
			if (nnum == 3)
				return false;
			num[nnum++] = v;
		} else {
			return false;
		}
	}
	if (slash && nnum == 3 && m < 0) {
		if (num[0] > 31) {
			y = num[0]; m = num[1]; d = num[2];
		} else {
			m = num[0]; d = num[1]; y = num[2];
		}
	} else if (m > 0 && nnum == 2) {
		if (num[0] > 31) {
			y = num[0]; d = num[1];
		} else {
			d = num[0]; y = num[1];
		}
	} else {
		return false;
	}
	if (y < 50)
		y += 2000;
	else if (y < 100)
		y += 1900;
	if (ampm) {
		if (h < 1 || h > 12)
			return false;
		h = h % 12 + (ampm == 2 ? 12 : 0);
	}
	if (m < 1 || m > 12 || d < 1 || d > month_days(y, (int)m) ||
	    h > 24 || mi > 59 || sec > 59)
		return false;
	*out = clock_days_from_civil(y, (int)m, (int)d) * 86400000 +
	    ((h * 60 + mi) * 60 + sec) * 1000;
	return true;
}

static bool
parse_when(const char *s, int64_t *ms)
{
	return parse_iso(s, ms) || parse_loose(s, ms);
}

const char *
macros_time_diff(struct arena *a, const char *s1, const char *s2)
{
	int64_t t1, t2, diff;
	double ms, days;
	long long seconds, minutes, hours, nday, months, years;
	const char *x;

	if (!parse_when(s1, &t1) || !parse_when(s2, &t2))
		return "Invalid date";
	diff = t1 - t2;
	ms = fabs((double)diff);
	days = ms / 864e5;
	seconds = llround(ms / 1e3);
	minutes = llround(ms / 6e4);
	hours = llround(ms / 36e5);
	nday = llround(days);
	months = llround(days * 4800 / 146097);
	years = llround(days * 4800 / 146097 / 12);
	if (seconds <= 44)
		x = "a few seconds";
	else if (minutes <= 1)
		x = "a minute";
	else if (minutes < 45)
		x = arena_printf(a, "%lld minutes", minutes);
	else if (hours <= 1)
		x = "an hour";
	else if (hours < 22)
		x = arena_printf(a, "%lld hours", hours);
	else if (nday <= 1)
		x = "a day";
	else if (nday < 26)
		x = arena_printf(a, "%lld days", nday);
	else if (months <= 1)
		x = "a month";
	else if (months < 11)
		x = arena_printf(a, "%lld months", months);
	else if (years <= 1)
		x = "a year";
	else
		x = arena_printf(a, "%lld years", years);
	return arena_printf(a, diff > 0 ? "in %s" : "%s ago", x);
}
