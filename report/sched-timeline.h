/* sched-timeline.h: inside report/ only: the scheduler records of a
 * recording put in order per thread and walked into segments of time, each
 * in one bucket of enum sched_bucket. Both users of REC_CHUNK_SCHED build on
 * it: the scheduler view (sched-model.c) sums the segments, the off-CPU and
 * wall profiles (off-cpu.c) weigh stacks with them. The accounting rules
 * are the ones in sched.h; they live here, once.
 *
 * Cost: sched_timeline__init() sorts the records once (O(n log n) in
 * records, 16 bytes of scratch per record); each walk is linear in the
 * thread's records. Nothing here prints. */
#ifndef PROF_REPORT_SCHED_TIMELINE_H
#define PROF_REPORT_SCHED_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/keymap.h"
#include "lib/recording.h"
#include "report/sched.h"

#define SCHED_NONE UINT32_MAX

/* PERF_TYPE_TRACEPOINT and PERF_TYPE_SOFTWARE's clocks, as event
 * descriptions store them (linux/perf_event.h stays in record/). */
#define SCHED_EVENT_TYPE_SOFTWARE   1u
#define SCHED_EVENT_TYPE_TRACEPOINT RECORDING_EVENT_TYPE_TRACEPOINT
#define SCHED_EVENT_SW_CPU_CLOCK    0u
#define SCHED_EVENT_SW_TASK_CLOCK   1u
#define SCHED_SWITCH_EVENT	    "sched:sched_switch"

struct sched_tl_thread {
	uint32_t tid, pid;
	uint32_t first, n;   /* its OUT, IN and WAKE records: order[first .. first + n) */
	uint64_t start, end; /* its window: lifetime clipped to the recording */
	uint8_t has_init, init_state;
	uint8_t has_start, has_exit;
	uint64_t start_ev, exit_ev; /* first START, last EXIT */
	uint64_t init_time;
};

struct sched_timeline {
	const struct recording *r;
	uint64_t start, end;		 /* the recording's window */
	struct sched_tl_thread *threads; /* in order of first sight */
	size_t nthreads, threads_cap;
	uint32_t *order; /* indexes into r->sched, grouped by thread, by time */
	size_t norder;
	struct keymap tids; /* tid -> index in threads */
	size_t ncpus;	    /* highest CPU of an OUT or IN + 1 */
};

/* Indexes `r`: the window (META start-monotonic-ns, else the first record;
 * STATS duration-ns after it, else the last record), every target thread
 * (one with thread events, or an INIT, OUT or IN record: a WAKE alone names
 * a task the targets woke), its records sorted by time (file order on ties)
 * and its window (see sched.h). 0 or -ENOMEM. */
int sched_timeline__init(struct sched_timeline *tl, const struct recording *r);
void sched_timeline__release(struct sched_timeline *tl);
/* Index of `tid` in tl->threads, or SCHED_NONE. */
uint32_t sched_timeline__find(const struct sched_timeline *tl, uint32_t tid);

/* A span of one thread's time in one bucket. */
struct sched_seg {
	uint64_t from, to; /* inside the thread's window, from < to */
	uint32_t bucket;   /* enum sched_bucket */
	uint32_t cpu;	   /* SCHED_ON_CPU: its CPU, SCHED_NONE when unknown */
	uint32_t out;	   /* r->sched index of the OUT whose off-CPU period this is, or
			      SCHED_NONE (on CPU, before the first record, unknown) */
	uint32_t wake;	   /* SCHED_WOKEN: r->sched index of the WAKE that began it */
};

/* What one walk gives; reused from thread to thread (the arrays grow). */
struct sched_walk {
	struct sched_seg *segs; /* in time order, covering the thread's window */
	size_t nsegs, segs_cap;
	uint32_t *outs; /* OUT records taken, in time order */
	size_t nouts, outs_cap;
	uint32_t *wakes; /* WAKE records taken (duplicates dropped), in time order */
	size_t nwakes, wakes_cap;
	uint64_t inconsistent; /* records that did not fit the thread's state */
	uint32_t *scratch;
	size_t scratch_cap;
};

/* Walks thread `i` of `tl` into `w` (emptied first). 0 or -ENOMEM. */
int sched_timeline__walk(const struct sched_timeline *tl, size_t i, struct sched_walk *w);
void sched_walk__release(struct sched_walk *w);

/* The bucket an OUT of `state` starts: R and R+ preempted, S, D, else other. */
enum sched_bucket sched_bucket_of_state(unsigned state);

#endif
