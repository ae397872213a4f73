/* jit-snapshots.h: the JIT maps of the JVMs being recorded, asked for
 * while recording (record/ internal; docs/prof-jvm.md, "Code that moves").
 *
 * Every JIT_SNAPSHOT_PERIOD_MS the run loop's tick asks each JVM target for
 * Compiler.perfmap (sampling paused meanwhile, as at the end) and keeps the
 * map in a timeline (symbolize/jit-timeline.h). Each snapshot closes an
 * epoch of its process; stack-intern.c tags a user frame inside the JIT
 * code's address range with the epoch of its sample's time, so frames at
 * one address in different epochs are different frames, each named by the
 * code there then. */
#ifndef PROF_JIT_SNAPSHOTS_H
#define PROF_JIT_SNAPSHOTS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Between two snapshots of a JVM (docs/prof-jvm.md has the cost measured):
 * the default of --jit-every. While a JVM frees or replaces code (its last
 * snapshot lacks entries of the one before), the period is halved, down to
 * JIT_SNAPSHOT_MIN_MS; while it does not, doubled back. */
#define JIT_SNAPSHOT_PERIOD_MS 5000
#define JIT_SNAPSHOT_MIN_MS 1000
/* Sampling is paused while a JVM writes its map: the period is at least
 * this many times the last pause (a map that takes 100 ms to write: asked
 * every 2 s at most), so that at most 5% of the time goes unsampled. */
#define JIT_SNAPSHOT_PAUSE_SHARE 20
/* A snapshot's ask may take this long; a JVM that does not answer in time
 * is asked again only after JIT_SNAPSHOT_BACKOFF periods. */
#define JIT_SNAPSHOT_DEADLINE_MS 2000
#define JIT_SNAPSHOT_BACKOFF 4
/* Processes looked at (targets and processes seen), at most. */
#define JIT_SNAPSHOT_MAX_PROCS 64
/* A process is looked at this many times (its /proc/PID/maps read: that
 * takes its mmap lock) before it is taken for not a JVM: a launcher maps
 * libjvm.so at once, a script that runs java does it in a child. */
#define JIT_SNAPSHOT_JVM_CHECKS 3

struct jit_proc {
	pid_t pid;
	int jvm;          /* 1 a JVM, 0 not (yet), -1 gone, refused or no JVM: not asked */
	int checks;       /* times its maps were read for libjvm.so */
	uint64_t next_ns; /* when to ask next */
	uint64_t period_ns; /* its period now (0: not asked yet) */
	uint64_t lo, hi;  /* the addresses its snapshots covered */
	uint64_t *times;  /* times[e]: when epoch e closed (CLOCK_MONOTONIC ns) */
	uint32_t ntimes;
	size_t times_cap;
};

struct jit_snapshots {
	struct jit_proc *procs;
	size_t nprocs, procs_cap;
	struct jit_timeline *timeline; /* NULL until the first snapshot */
	uint64_t period_ns;
	uint64_t next_scan_ns; /* when to look for new processes */
	int full; /* a bound was reached: no more snapshots */
	/* stats: asks, and how long they took, sampling paused for part */
	uint64_t asks, failed, ask_ns, paused_ns;
};

/* The epoch of a sample of pid taken at `time`, and the process it is of
 * (NULL: none, and epoch 0): the number of its snapshots taken before.
 * Called per sample: O(log snapshots) for a JVM, O(processes) for others. */
static inline uint32_t jit_snapshots__epoch(const struct jit_snapshots *js, uint32_t pid,
					    uint64_t time, const struct jit_proc **proc)
{
	size_t i;

	*proc = NULL;
	if (!js->timeline)
		return 0; /* no snapshot yet: the usual case */
	for (i = 0; i < js->nprocs; i++) {
		const struct jit_proc *p = &js->procs[i];
		uint32_t lo = 0, hi;

		if ((uint32_t)p->pid != pid || !p->ntimes)
			continue;
		hi = p->ntimes;
		while (lo < hi) { /* snapshots taken at or before time */
			uint32_t mid = lo + (hi - lo) / 2;

			if (p->times[mid] <= time)
				lo = mid + 1;
			else
				hi = mid;
		}
		*proc = p;
		return lo;
	}
	return 0;
}

struct recorder;
/* The run loop's tick: asks the JVMs whose time has come (blocks for up to
 * JIT_SNAPSHOT_DEADLINE_MS per JVM, sampling paused). Returns ms until it
 * wants to be called again, or -1. */
long jit_snapshots_tick(struct recorder *rec, uint64_t now);
/* Counters into the file's stats; the timeline is freed by release. */
void jit_snapshots_write_stats(struct recorder *rec);
void jit_snapshots_release(struct jit_snapshots *js);

#endif
