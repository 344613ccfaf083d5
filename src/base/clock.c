#include "base/clock.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

int64_t
clock_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t
clock_days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void
civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	int64_t era, doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

static bool
digits(const char *s, int n, int *out)
{
	int i, v = 0;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

bool
clock_parse(const char *s, int64_t *ms)
{
	int y, mo, d, h, mi, sec, frac = 0, fdig = 0, oh = 0, om = 0, sign;
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31,
		30, 31 };
	size_t i;

	if (strlen(s) < 20 || !digits(s, 4, &y) || s[4] != '-' ||
	    !digits(s + 5, 2, &mo) || s[7] != '-' || !digits(s + 8, 2, &d) ||
	    (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
	    !digits(s + 11, 2, &h) || s[13] != ':' ||
	    !digits(s + 14, 2, &mi) || s[16] != ':' ||
	    !digits(s + 17, 2, &sec))
		return false;
	i = 19;
	if (s[i] == '.') {
		for (i++; s[i] >= '0' && s[i] <= '9'; i++, fdig++)
			if (fdig < 3)
				frac = frac * 10 + (s[i] - '0');
		if (fdig == 0)
			return false;
		for (; fdig < 3; fdig++)
			frac *= 10;
	}
	if ((s[i] == 'Z' || s[i] == 'z') && s[i + 1] == '\0') {
		sign = 0;
	} else if ((s[i] == '+' || s[i] == '-') && digits(s + i + 1, 2, &oh) &&
	    s[i + 3] == ':' && digits(s + i + 4, 2, &om) && s[i + 6] == '\0') {
		sign = s[i] == '+' ? 1 : -1;
	} else {
		return false;
	}
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
	    (mo == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 ||
	    y % 400 == 0))) || h > 23 || mi > 59 || sec > 60 || oh > 23 ||
	    om > 59)
		return false;
	if (sec == 60)
		sec = 59;       /* a leap second: JavaScript has none */
	*ms = ((clock_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec
	    - sign * (oh * 3600 + om * 60)) * 1000) + frac;
	return true;
}

void
clock_iso(int64_t ms, char out[CLOCK_ISO_SIZE])
{
	int64_t days = ms >= 0 ? ms / 86400000 : -((-ms + 86399999) / 86400000);
	int64_t rest = ms - days * 86400000, y;
	int m, d;

	civil_from_days(days, &y, &m, &d);
	snprintf(out, CLOCK_ISO_SIZE, "%04lld-%02d-%02dT%02d:%02d:%02d.%03dZ",
	    (long long)y, m, d, (int)(rest / 3600000),
	    (int)(rest / 60000 % 60), (int)(rest / 1000 % 60),
	    (int)(rest % 1000));
}
