/* engine.h: the recorder's event sources behind one interface (the shape of
 * async-profiler's Engine). session.c owns the targets, the CPUs and the
 * run loop; at each step it walks rec_engines[] in order and calls the
 * step's op of every engine that was set up. An engine keeps its state in
 * the struct recorder (recorder.h) and feeds the decoder; adding a source
 * is one file and one line in the table (engines.c, docs/record-engines.md).
 *
 * Every op may be NULL (nothing to do at that step). Ops that return int
 * return 0 or -errno; setup fills rec->err when it fails. */
#ifndef PROF_RECORD_ENGINE_H
#define PROF_RECORD_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "recorder.h"

struct rec_engine {
	const char *name;
	/* Do the options ask for this source? (NULL: always) */
	int (*wanted)(const struct recorder *rec);
	/* Once, in table order, after the CPUs are listed and the output is
	 * open, before any target is touched. */
	int (*setup)(struct recorder *rec);
	/* CPU-wide mode (rec->cpu_wide): its events on CPU index i, opened
	 * once, before the first target. */
	int (*open_cpu)(struct recorder *rec, size_t i);
	/* Its events on a target thread (on every CPU where that is the
	 * kind): -ESRCH when the thread is gone, which the caller skips. */
	int (*open_thread)(struct recorder *rec, pid_t tid);
	/* Attach: a thread /proc lists, and the process once its threads and
	 * mappings were written; launch: the command, just before it runs. */
	void (*found_thread)(struct recorder *rec, uint64_t time, pid_t pid, pid_t tid);
	void (*found_process)(struct recorder *rec, pid_t pid, uint64_t time);
	void (*launched)(struct recorder *rec, pid_t pid, uint64_t time);
	/* How soon this source wants the loop to wake (ms), or -1: no wish.
	 * May act (open or close probe windows). */
	long (*tick_ms)(struct recorder *rec, uint64_t now);
	/* Each drain: every engine's mark first (note how far its rings go,
	 * in CPU-wide mode), then every engine's drain. */
	void (*mark)(struct recorder *rec);
	void (*drain)(struct recorder *rec);
	/* Records this source lost so far (the loop drains faster once any
	 * engine's count grows). */
	uint64_t (*lost)(const struct recorder *rec);
	/* Each flush of the output (at most FLUSH_NS apart). */
	int (*flush)(struct recorder *rec);
	/* Sampling is over, the targets still run: what was held back is
	 * processed now (before the JVM step and the end of the command). */
	int (*settle)(struct recorder *rec);
	/* Before the events are disabled for the last drain; after that
	 * drain (read final counts, unmap rings: the session closes the
	 * fds); and once every event is gone and pending frames resolved. */
	void (*stop)(struct recorder *rec);
	void (*close)(struct recorder *rec);
	void (*finish)(struct recorder *rec);
	/* Its counters into the file's stats; everything it holds (safe on a
	 * recorder never set up: replay and the fuzzer release through it). */
	void (*write_stats)(struct recorder *rec);
	void (*release)(struct recorder *rec);
};

/* engines.c: the sources, in the order every step walks them. */
extern const struct rec_engine *const rec_engines[];
extern const size_t rec_nengines;

/* Is engine k set up for this recording (rec->engines, set by session.c)? */
static inline int rec_engine_on(const struct recorder *rec, size_t k)
{
	return (rec->engines >> k) & 1;
}

/* for_each_engine(rec, k, op) stmt: stmt for each engine k that is set up
 * and has op, in table order (as the kernel's list_for_each). */
#define for_each_engine(rec, k, op)                                                                \
	for ((k) = 0; (k) < rec_nengines; (k)++)                                                   \
		if (rec_engine_on((rec), (k)) && rec_engines[(k)]->op)

/* The engines (engine-*.c). */
extern const struct rec_engine rec_engine_cpu;
extern const struct rec_engine rec_engine_probes;
extern const struct rec_engine rec_engine_sched;
extern const struct rec_engine rec_engine_jit;
extern const struct rec_engine rec_engine_defer;
extern const struct rec_engine rec_engine_flight;

/* perf-limits.c: what the kernel's perf settings allow. read_sysctl: the
 * number in a /proc/sys file, or dflt; paranoid: perf_event_paranoid (2
 * when unreadable); permission_hint: what to do when refused (a static
 * buffer, rewritten by each call). */
uint64_t perf_read_sysctl(const char *path, uint64_t dflt);
long perf_paranoid(void);
const char *perf_permission_hint(void);

#endif
