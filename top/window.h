/* window.h: prof top's rolling window (internal to top/): a ring of
 * WINDOW_SLOTS sub-interval tables, as Performance Co-Pilot's trace agent
 * keeps them. Each sub-interval counts samples per (thread, stack node)
 * and per thread; the window of the last N sub-intervals is their sum, so
 * "the last 10 s" is always exactly the last ten completed intervals, and
 * moving on clears the oldest table: memory stays constant.
 *
 * Bounds: a sub-interval keeps at most WINDOW_SLOT_STACKS distinct
 * (thread, stack) pairs (more are counted as overflow, still per thread)
 * and WINDOW_SLOT_THREADS threads (more are counted in one overflow
 * thread, tid 0). Tables grow geometrically up to those caps and are
 * reused. Functions return 0 or -errno; nothing here blocks or prints. */
#ifndef PROF_TOP_WINDOW_H
#define PROF_TOP_WINDOW_H

#include <stddef.h>
#include <stdint.h>

/* 60 completed intervals (the TUI's 60 s window) and the one being filled */
#define WINDOW_SLOTS 61
#define WINDOW_SLOT_STACKS 16384
#define WINDOW_SLOT_THREADS 4096
#define WINDOW_OVERFLOW_STACK UINT32_MAX /* node id of the overflow counts */

struct window_count {
	uint32_t tid, node; /* node 0 with count 0: an empty slot */
	uint32_t count;
};

/* --sched: where a thread's time went, as prof sched's buckets: on a CPU,
 * runnable (preempted, or woken and waiting), sleeping (S), I/O (D). */
enum window_sched {
	WINDOW_RUN, WINDOW_WAIT, WINDOW_SLEEP, WINDOW_IO, WINDOW_NSCHED,
	WINDOW_SCHED_NONE = WINDOW_NSCHED, /* stopped, exiting, unknown: not counted */
};

struct window_thread {
	uint32_t tid;       /* 0: the overflow thread */
	uint32_t count;     /* samples */
	uint32_t used;      /* 0: an empty slot */
	uint64_t ns[WINDOW_NSCHED];
};

struct window_slot {
	uint64_t index;     /* the interval it holds (n since the start) */
	uint64_t samples;
	struct window_count *stacks;
	size_t nstacks, stacks_mask; /* mask: capacity - 1, 0 when not allocated */
	struct window_thread *threads;
	size_t nthreads, threads_mask;
	int overflow_thread; /* samples of threads past the cap went to tid 0 */
};

struct window {
	uint64_t start_ns, interval_ns;
	uint64_t cur;        /* the interval being filled */
	struct window_slot slots[WINDOW_SLOTS];
};

void window__init(struct window *w, uint64_t start_ns, uint64_t interval_ns);
void window__release(struct window *w);
/* The interval `time_ns` falls in (intervals before the start: 0). */
uint64_t window__index(const struct window *w, uint64_t time_ns);
/* Moves on to interval `index` if it is later than the current one,
 * clearing the tables of the intervals it skips or reuses. */
void window__advance(struct window *w, uint64_t index);
/* Counts one sample at time_ns into its interval (one that left the ring
 * already: into the current one). 0 or -ENOMEM (then it is not counted). */
int window__add(struct window *w, uint64_t time_ns, uint32_t tid, uint32_t node);
/* The slot holding interval `index`, or NULL when it is not in the ring
 * any more (or not yet). */
const struct window_slot *window__slot(const struct window *w, uint64_t index);
/* The intervals [first, end) of a window of n of them ending at `end`
 * (0 or past the current one: the current one, which is not complete yet),
 * n capped at those still in the ring and at the intervals elapsed:
 * returns the count, first in *first. */
size_t window__range(const struct window *w, uint64_t end, size_t n, uint64_t *first);
/* A thread's samples in interval `index` (0 when not in the ring). */
uint32_t window__thread_count(const struct window *w, uint64_t index, uint32_t tid);
/* --sched: counts [from, to) of thread tid's time in bucket b, split over
 * the intervals it spans (those that left the ring are not counted).
 * 0 or -ENOMEM. */
int window__add_time(struct window *w, uint64_t from, uint64_t to, uint32_t tid,
		     enum window_sched b);

#endif
