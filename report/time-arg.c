/* time-arg.c: the T of --since T / --until T, as a CLOCK_MONOTONIC time of
 * the recordings read: seconds from the start ("30", "1.5"), a time of day
 * on the day the recording started ("03:14", "03:14:05.5"), or a full ISO
 * time ("2026-11-26T03:14:05Z"). Wall-clock forms are UTC (recordings keep
 * their wall-clock start in UTC: META start-time-ns, start-time). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/time-arg.h"

#define NS 1000000000ULL

/* "SS" or "SS.fff" after a colon: ns, or -1. */
static int64_t seconds_part(const char *s, const char **end)
{
	char *e;
	double v;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	v = strtod(s, &e);
	if (e == s || v < 0 || v >= 61)
		return -1;
	*end = e;
	return (int64_t)(v * 1e9 + 0.5);
}

/* A time of day or a full ISO time: ns since the epoch, or -EINVAL. */
static int parse_wall(const char *s, uint64_t day_start_s, uint64_t *wall)
{
	struct tm tm;
	const char *p;
	int64_t sec_ns = 0;
	uint64_t base;

	memset(&tm, 0, sizeof(tm));
	if ((p = strptime(s, "%Y-%m-%dT%H:%M", &tm))) {
		base = (uint64_t)timegm(&tm);
	} else if ((p = strptime(s, "%H:%M", &tm))) {
		base = day_start_s + (uint64_t)tm.tm_hour * 3600 + (uint64_t)tm.tm_min * 60;
	} else {
		return -EINVAL;
	}
	if (*p == ':') {
		sec_ns = seconds_part(p + 1, &p);
		if (sec_ns < 0)
			return -EINVAL;
	}
	if (*p == 'Z')
		p++;
	if (*p)
		return -EINVAL;
	*wall = base * NS + (uint64_t)sec_ns;
	return 0;
}

int time_arg_parse(const char *s, uint64_t start_mono, uint64_t start_wall, uint64_t *mono)
{
	char *e;
	double v;
	uint64_t wall;

	if (!s || !*s)
		return -EINVAL;
	if (!strchr(s, ':')) {
		v = strtod(s, &e);
		if (e == s || *e || !(v >= 0) || v > 1e9)
			return -EINVAL;
		*mono = start_mono + (uint64_t)(v * 1e9 + 0.5);
		return 0;
	}
	if (!start_wall)
		return -ENODATA;
	if (parse_wall(s, start_wall / NS / 86400 * 86400, &wall))
		return -EINVAL;
	/* Before the start: its time from the start is negative. */
	if (wall < start_wall)
		*mono = start_wall - wall > start_mono ? 0 : start_mono - (start_wall - wall);
	else
		*mono = start_mono + (wall - start_wall);
	return 0;
}
