/* sched.h: the scheduler view of a recording made with `prof record --sched`:
 * per thread, time on CPU and off CPU by state, switch-outs by state, who
 * took its CPU when it was preempted, who woke it, and on which CPUs it ran.
 * `prof sched` renders it (svg/) or prints it as CSV (sched-csv.c).
 *
 * Time accounting, per thread, over [start, end] (its lifetime clipped to
 * the recording):
 *   IN .. OUT               on CPU (per CPU: the CPU of the IN)
 *   OUT(R+ or R) .. IN      SCHED_PREEMPTED: runnable, waiting for a CPU
 *   OUT(S) .. WAKE          SCHED_SLEEPING; then WAKE .. IN: SCHED_WOKEN
 *   OUT(D) .. WAKE          SCHED_DISK;     then WAKE .. IN: SCHED_WOKEN
 *   OUT(other) .. WAKE      SCHED_OTHER;    then WAKE .. IN: SCHED_WOKEN
 * SCHED_PREEMPTED + SCHED_WOKEN is "runnable" (R): the thread wanted a CPU.
 * Before a thread's first record: the INIT state if there is one (R = on
 * CPU when the first record is an OUT, else waiting for a CPU); a thread
 * created during the recording waits for a CPU until its first IN; else
 * the state is unknown and counted as SCHED_OTHER. A thread with no record
 * at all was on CPU all along if INIT says R, else in its INIT state. */
#ifndef PROF_SCHED_H
#define PROF_SCHED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/recording.h"
#include "lib/strtab.h"

enum sched_bucket {
	SCHED_ON_CPU = 0,
	SCHED_PREEMPTED, /* R: switched out while runnable */
	SCHED_WOKEN,     /* R: woken, waiting for a CPU (scheduling delay) */
	SCHED_SLEEPING,  /* S */
	SCHED_DISK,      /* D */
	SCHED_OTHER,     /* stopped, exiting, idle, unknown */
	SCHED_NBUCKETS
};

/* One name (a task that ran or woke) with how often and how long. */
struct sched_share {
	uint32_t name;  /* id in sched_profile.names */
	uint32_t tid;
	uint64_t count;
	uint64_t ns;    /* preemptors: the runnable time that followed */
};

struct sched_thread {
	uint32_t tid, pid;
	uint32_t name;        /* id in sched_profile.names: the last name */
	uint64_t start, end;  /* ns, CLOCK_MONOTONIC */
	uint64_t ns[SCHED_NBUCKETS];
	uint64_t switches[REC_STATE_COUNT]; /* switch-outs by prev state */
	uint64_t nswitches;   /* their sum */
	uint64_t *cpu_ns;     /* [sched_profile.ncpus]: time on CPU per CPU */
	struct sched_share *preemptors; /* who ran next after an R switch-out, by ns */
	size_t npreemptors;
	struct sched_share *wakers;     /* who woke it, by count */
	size_t nwakers;
};

struct sched_profile {
	struct strtab names;
	struct sched_thread *threads; /* sorted by name, then tid */
	size_t nthreads;
	size_t ncpus;         /* highest CPU seen + 1 */
	uint64_t start, end;  /* the recording's window, ns */
	uint64_t nrecords;    /* scheduler records read */
	uint64_t lost;        /* "sched-lost" stat: switch events the kernel dropped */
	uint64_t inconsistent;/* records that did not fit the thread's state */
};

/* -ENODATA when the recording has no scheduler records (not made with
 * --sched), -ENOMEM; else 0. */
int sched_profile__from_recording(struct sched_profile *sp, const struct recording *r);
void sched_profile__release(struct sched_profile *sp);

static inline const char *sched_profile__name(const struct sched_profile *sp, uint32_t id)
{
	return strtab__str(&sp->names, id);
}

/* "R" time: preempted + woken. */
static inline uint64_t sched_thread__runnable_ns(const struct sched_thread *t)
{
	return t->ns[SCHED_PREEMPTED] + t->ns[SCHED_WOKEN];
}

/* CSV, one row per thread after a header row:
 * tid,pid,name,start_ms,end_ms,switches,on_cpu_ms,runnable_ms,sleep_ms,iowait_ms,
 * other_ms,preempted_ms,wakeup_wait_ms,switches_r,switches_s,switches_d,
 * switches_other,top_preemptor,cpus
 * (names quoted per RFC 4180 when needed; cpus as "0:12.5 1:3.0" in ms).
 * 0 or -errno of the write. */
int sched_profile__write_csv(const struct sched_profile *sp, FILE *out);

#endif
