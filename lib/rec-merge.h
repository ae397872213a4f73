/* rec-merge.h: several recordings (or one) written as one, keeping only
 * the samples and scheduler records of a time range: what `prof report -i
 * DIR`, `-i A -i B` and `--since/--until` read (report/input.c).
 *
 * Strings, frames and stack nodes are interned again (a stack seen in two
 * files is one stack), threads, mappings and events carried over with
 * their ids renumbered, events of the same name made one; the first
 * recording's META is kept (the earliest, when the caller sorts them),
 * numeric STATS add up. All recordings must come from one boot (their
 * times are CLOCK_MONOTONIC). */
#ifndef PROF_REC_MERGE_H
#define PROF_REC_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "recording.h"

/* One recording at a time, so that only one input is in memory at once:
 * new: the output `path` (0600; NULL + errno); add: r's records (the META
 * of the first added), its samples and scheduler records in [since,
 * until) (*kept counts the samples kept); r may be released after; finish:
 * the summed STATS, the file closed (0 or -errno); discard: removed. Both
 * free m. Tables of the output (strings, frames, stacks) grow with the
 * distinct ones of all inputs. */
struct rec_merge;
struct rec_merge *rec_merge__new(const char *path);
int rec_merge__add(struct rec_merge *m, const struct recording *r, uint64_t since, uint64_t until,
		   uint64_t *kept);
int rec_merge__finish(struct rec_merge *m);
void rec_merge__discard(struct rec_merge *m);

/* Writes recs[0 .. n) to a new recording `path` (mode 0600), keeping the
 * samples (and scheduler records) whose time is in [since, until); *kept
 * gets how many samples were kept. Blocks on writing; allocates tables
 * sized by the inputs, freed before returning. 0 or -errno. */
int rec_merge__write(const struct recording *const *recs, size_t n, uint64_t since, uint64_t until,
		     const char *path, uint64_t *kept);

/* The recording's start: META start-monotonic-ns (0 when missing), and
 * its wall-clock time in ns since the epoch, from META start-time-ns or
 * else start-time (seconds); 0 when neither is there. */
uint64_t rec_merge__start_mono(const struct recording *r);
uint64_t rec_merge__start_wall(const struct recording *r);

#endif
