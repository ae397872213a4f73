/* jit-timeline.h: JIT code over time (docs/prof-jvm.md, "Code that moves").
 *
 * A JVM recompiles and frees code while it is recorded, and reuses the
 * addresses: one JIT map read at the end names only what is there at the
 * end. The recorder reads the map of a process several times (snapshots);
 * each snapshot closes an epoch of that process: epoch e is the time
 * between snapshots e - 1 and e (epoch 0 begins with the recording). A
 * frame sampled in epoch e is named by snapshot e (the code there at the
 * epoch's end), else by snapshot e - 1 (at its start: the code was freed
 * during the epoch). Each piece of code (pid, start, size, name) is kept
 * once, with the epochs whose closing snapshots held it: a snapshot that
 * repeats the last one costs no memory. */
#ifndef PROF_JIT_TIMELINE_H
#define PROF_JIT_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "symbolize/perf-map.h"

/* Bounds on what a timeline keeps (an entry is 32 bytes): a snapshot that
 * would pass them is refused with -E2BIG, and the recorder stops taking
 * them. Twenty snapshots of javac's whole code cache, all different, are
 * well under these. */
#define JIT_TIMELINE_MAX_ENTRIES (2u << 20)
#define JIT_TIMELINE_MAX_NAME_BYTES (64u << 20)

/* What jit_timeline__lookup found. */
enum jit_found {
	JIT_NOT_FOUND = 0,
	JIT_AT_START = 1, /* in the snapshot that opened the epoch */
	JIT_AT_END = 2,   /* in the snapshot that closed it */
};

struct jit_timeline;

/* NULL + errno (ENOMEM). */
struct jit_timeline *jit_timeline__new(void);
void jit_timeline__free(struct jit_timeline *t);

/* Adds snapshot `m`, which closes epoch `epoch` of process pid. A pid's
 * snapshots come in epoch order (the first may be any epoch). Sets *gone
 * (may be NULL) to the entries of the pid's previous snapshot that m does
 * not have: code freed or replaced meanwhile. 0, -ENOMEM, -E2BIG (the
 * bounds above: nothing of m is kept), -EINVAL (out of order).
 * O(entries of m). */
int jit_timeline__add(struct jit_timeline *t, uint32_t pid, uint32_t epoch,
		      const struct perf_map *m, size_t *gone);

/* The code at addr in pid during epoch `epoch`: sets *name (owned by t)
 * and *off. The first call after an add sorts (O(n log n)); then
 * O(log n). */
enum jit_found jit_timeline__lookup(struct jit_timeline *t, uint32_t pid, uint32_t epoch,
				    uint64_t addr, const char **name, uint64_t *off);

/* Has pid a snapshot that closes epoch `epoch` (or a later one)? */
int jit_timeline__closed(const struct jit_timeline *t, uint32_t pid, uint32_t epoch);

size_t jit_timeline__entries(const struct jit_timeline *t);
size_t jit_timeline__name_bytes(const struct jit_timeline *t);

#endif
