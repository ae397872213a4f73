/* tracefs.h: finding the kernel's tracepoints: where tracefs is mounted (or
 * mounting it), a tracepoint's id, and the offsets of its fields, read from
 * its format file through libtraceevent. */
#ifndef PROF_TRACEFS_H
#define PROF_TRACEFS_H

#include <stddef.h>
#include <stdint.h>

/* Where a field lies in a tracepoint's raw record. */
struct tp_field {
	uint16_t offset, size; /* size 0: the tracepoint has no such field */
};

#define TP_MAX_FIELDS 8

struct tracepoint {
	uint64_t id;                          /* perf_event_attr.config */
	struct tp_field field[TP_MAX_FIELDS]; /* in the order asked for */
	uint16_t raw_size;                    /* bytes of a whole record */
};

/* Finds tracefs in /proc/mounts (tracefs, or debugfs's tracing/), mounting it
 * at /sys/kernel/tracing when it is nowhere. Writes the directory to `dir`.
 * 0 or -errno; on error `why` says what failed, for the user. */
int tracefs_find(char *dir, size_t len, char *why, size_t whylen);

/* Reads SYSTEM:NAME's id and format under `dir` and looks up `fields`
 * (NULL-terminated names, at most TP_MAX_FIELDS). A field the format lacks
 * gets size 0. 0, -ENOENT (no such tracepoint), -EBADMSG (format not
 * understood), -errno. */
int tracepoint_load(const char *dir, const char *sys, const char *name,
		    const char *const *fields, struct tracepoint *tp);

#endif
