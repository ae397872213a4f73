/* time-arg.h: parsing the times of --since and --until (time-arg.c). */
#ifndef PROF_REPORT_TIME_ARG_H
#define PROF_REPORT_TIME_ARG_H

#include <stdint.h>

/* s as a CLOCK_MONOTONIC time, for recordings that started at start_mono
 * (monotonic ns) = start_wall (ns since the epoch, UTC; 0: unknown): "30",
 * "1.5" (seconds from the start), "03:14", "03:14:05[.f]" (a time of day,
 * UTC, on the start's day), "2026-11-26T03:14[:05][Z]". 0, -EINVAL (not a
 * time), or -ENODATA (a wall-clock time, and start_wall unknown). */
int time_arg_parse(const char *s, uint64_t start_mono, uint64_t start_wall, uint64_t *mono);

#endif
