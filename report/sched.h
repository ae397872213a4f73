/* sched.h: the scheduler view of a recording made with `prof record --sched`:
 * per thread, time on CPU and off CPU by state, switch-outs by state, who
 * took its CPU when it was preempted, who woke it, and on which CPUs it ran.
 * `prof sched` renders it (svg/) or prints it as CSV (sched-csv.c).
 *
 * The recording's window: META start-monotonic-ns (else the first record)
 * to that plus STATS duration-ns (else, in a file cut short, the last
 * record). A thread's window [start, end]: from the recording's start, or
 * from its creation when it was created while recording (a START after the
 * start and no INIT; its first record if that is earlier), to its EXIT (its
 * last record if that is later: the final switch-out follows the exit
 * event), else the recording's end; clipped to the recording's window.
 *
 * Threads: the recorded ones, those with thread events (START, NAME,
 * EXIT) or INIT, OUT or IN records. A WAKE names the task woken, and target
 * threads wake others (kworkers, other processes): a tid with only WAKE
 * records is not a thread of the view.
 *
 * Time accounting, per thread, over its window; records sorted by time:
 *   IN .. OUT               on CPU (per CPU: the CPU of the IN)
 *   OUT(R+ or R) .. IN      SCHED_PREEMPTED: runnable, waiting for a CPU
 *   OUT(S) .. WAKE          SCHED_SLEEPING; then WAKE .. IN: SCHED_WOKEN
 *   OUT(D) .. WAKE          SCHED_DISK;     then WAKE .. IN: SCHED_WOKEN
 *   OUT(other) .. WAKE      SCHED_OTHER;    then WAKE .. IN: SCHED_WOKEN
 * SCHED_PREEMPTED + SCHED_WOKEN is "runnable" (R): the thread wanted a CPU.
 * A WAKE while on CPU or runnable changes nothing (it still counts as a
 * wake-up). Before a thread's first record: on CPU when the first record is
 * an OUT (it was running to switch out; INIT, read from /proc, races with a
 * thread about to sleep); else the INIT state if there is one (R: waiting
 * for a CPU); a thread created during the recording waits for a CPU
 * (SCHED_WOKEN) until its first record; else the state is unknown and
 * counted as SCHED_OTHER. A thread with no OUT, IN or WAKE at all was on
 * CPU all along if INIT says R (on a CPU not known: not in cpu_ns), else in
 * its INIT state, else unknown (SCHED_OTHER). Every nanosecond of the window
 * is in exactly one bucket: the buckets add up to end - start.
 *
 * Records that do not fit count in `inconsistent`: an OUT while off CPU
 * (the IN was lost) or an IN while on CPU (the OUT was lost). The span
 * since the previous record is then unknown (SCHED_OTHER) and the record
 * is taken as it is: never a negative or overlapping span. Records of equal
 * time are taken in the order that fits (an OUT before an IN when on CPU, a
 * WAKE before an IN when off CPU). A WAKE repeating one of the same time and
 * waker (the kernel can report a wake-up twice) is dropped. */
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

/* One task (tid and its name then) that preempted or woke a thread, with
 * how often and how long. Names come from REC_SCHED_TASK records (the name
 * at the time, else the first one after), else from thread names, else the
 * tid; a waker tid 0 (an interrupt, or the idle task) is "[idle/irq]". */
struct sched_share {
	uint32_t name;  /* id in sched_profile.names */
	uint32_t tid;
	uint64_t count; /* preemptions, or wake-ups */
	uint64_t ns;    /* the runnable time that followed: preemptors, OUT(R or R+) ..
			   IN; wakers, WAKE .. IN when the wake-up ended a sleep */
};

struct sched_thread {
	uint32_t tid, pid;
	uint32_t name;        /* id in sched_profile.names: its last START/NAME
				 name, else its task name, else the tid */
	uint64_t start, end;  /* ns, CLOCK_MONOTONIC */
	uint64_t ns[SCHED_NBUCKETS];
	uint64_t switches[REC_STATE_COUNT]; /* switch-outs by prev state */
	uint64_t nswitches;   /* their sum */
	uint64_t *cpu_ns;     /* [sched_profile.ncpus]: time on CPU per CPU (owned) */
	struct sched_share *preemptors; /* who ran next after an R or R+
					   (preempted) switch-out; by ns, count, name, tid */
	size_t npreemptors;
	struct sched_share *wakers;     /* who woke it; by count, ns, name, tid */
	size_t nwakers;
};

struct sched_profile {
	struct strtab names;
	struct sched_thread *threads; /* sorted by name, then tid */
	size_t nthreads;
	size_t ncpus;         /* highest CPU of an OUT or IN + 1 */
	uint64_t start, end;  /* the recording's window, ns */
	uint64_t nrecords;    /* scheduler records read */
	uint64_t lost;        /* "sched-lost" stat: switch events the kernel dropped */
	uint64_t inconsistent;/* records that did not fit the thread's state */
};

/* Builds the view of `r` into `sp` (need not be initialized). Allocates;
 * costs a sort of the records, then time linear in them. -ENODATA when the
 * recording has no scheduler records (not made with --sched), -ENOMEM
 * (with `sp` released); else 0. */
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

/* CSV, one row per thread (in sp->threads order) after a header row:
 * tid,pid,name,start_ms,end_ms,switches,on_cpu_ms,runnable_ms,sleep_ms,iowait_ms,
 * other_ms,preempted_ms,wakeup_wait_ms,switches_r,switches_s,switches_d,
 * switches_other,top_preemptor,cpus
 * Times in ms with three decimals (rounded to the microsecond); start_ms and
 * end_ms from the recording's start. switches_r counts R and R+, _other T,
 * X, I and other. top_preemptor is preemptors[0]'s name, or empty. cpus
 * lists the CPUs with on-CPU time, ascending, as "0:12.500 1:3.000". Names
 * are quoted per RFC 4180 when they hold a comma, quote or line break;
 * lines end in "\n". 0 or -errno of the write. */
int sched_profile__write_csv(const struct sched_profile *sp, FILE *out);

#endif
