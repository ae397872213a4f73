/* hold.c: a snapshot's capture pass: its threads held one at a time, back
 * to back. Each thread is interrupted (capture.c) and taken the moment its
 * stop is reported; one that has not stopped within DUMP_HOLD_WAIT_NS
 * (waiting for a CPU on a busy machine, or in uninterruptible sleep) stays
 * pending while the next threads are interrupted, and any stop reported
 * meanwhile is taken at once, whichever thread it is: no stopped thread
 * waits for prof longer than one other thread's copy. After the pass the
 * pending ones get up to DUMP_HOLD_LATE_NS more; the rest stay seized
 * (their interrupt pending), are let go as soon as they stop, and the
 * kernel lets them go if prof exits first (PTRACE_O_EXITKILL is never
 * set). A stop request ends the pass before the next interrupt. */
#include "dump/dump.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "lib/grow.h"

#define DUMP_HOLD_WAIT_NS 2000000ull    /* 2 ms */
#define DUMP_HOLD_LATE_NS 1000000000ull /* 1 s */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void remove_at(pid_t *v, size_t *n, size_t i)
{
	v[i] = v[--*n];
}

/* Handles the stops reported within `ns`, until `want` (if any) is no
 * longer pending or none comes. */
static void take_stops(struct dump_holder *h, struct dump_set *set, size_t stack_max,
		       const struct dump_maps *maps, uint64_t ns, const struct dump_thread *want)
{
	uint64_t start = now_ns();

	while (!want || want->pending) {
		uint64_t spent = now_ns() - start;
		pid_t tid;
		int sig, r = dump_next_stop(spent < ns ? ns - spent : 0, &tid, &sig);
		size_t i;

		if (r == DUMP_STOP_NONE)
			return;
		for (i = 0; i < h->npend && set->t[h->pend[i]].tid != tid; i++)
			;
		if (i < h->npend) {
			struct dump_thread *t = &set->t[h->pend[i]];

			if (r == DUMP_STOP_STOPPED) {
				dump_take(t, stack_max, maps, sig);
			} else {
				t->pending = 0;
				t->err = -ESRCH;
			}
			h->pend[i] = h->pend[--h->npend];
			continue;
		}
		for (i = 0; i < h->nseized && h->seized[i] != tid; i++)
			;
		if (r == DUMP_STOP_STOPPED)
			dump_let_go(tid, sig); /* seized earlier, or not ours to keep */
		if (i < h->nseized)
			remove_at(h->seized, &h->nseized, i);
	}
}

int dump_hold_pass(struct dump_holder *h, struct dump_set *set, size_t first,
		   const struct dump_opts *o, const struct dump_maps *maps,
		   volatile sig_atomic_t *stop)
{
	uint64_t late;

	take_stops(h, set, o->stack_max, maps, 0, NULL); /* seized ones that stopped */
	for (size_t i = first; i < set->n && !*stop; i++) {
		struct dump_thread *t = &set->t[i];

		t->tried = 1;
		t->syscall = -1;
		if (GROW(h->pend, h->pend_cap, h->npend + 1))
			return -ENOMEM;
		if (dump_interrupt(t, o->stack_max))
			continue; /* gone (-ESRCH), or not allowed (-EPERM) */
		h->pend[h->npend++] = i;
		take_stops(h, set, o->stack_max, maps, DUMP_HOLD_WAIT_NS, t);
	}
	late = now_ns();
	while (h->npend && now_ns() - late < DUMP_HOLD_LATE_NS)
		take_stops(h, set, o->stack_max, maps, DUMP_HOLD_LATE_NS - (now_ns() - late), NULL);
	/* still not stopped: seized until they stop */
	for (size_t i = 0; i < h->npend; i++) {
		struct dump_thread *t = &set->t[h->pend[i]];

		t->pending = 0;
		t->err = -ETIMEDOUT;
		if (!GROW(h->seized, h->seized_cap, h->nseized + 1))
			h->seized[h->nseized++] = t->tid;
	}
	h->npend = 0;
	return 0;
}

void dump_holder__drain(struct dump_holder *h, struct dump_set *set, uint64_t ns)
{
	uint64_t start = now_ns();

	while (h->nseized && now_ns() - start < ns)
		take_stops(h, set, 0, NULL, ns - (now_ns() - start), NULL);
}

void dump_holder__release(struct dump_holder *h)
{
	free(h->pend);
	free(h->seized);
	*h = (struct dump_holder){0};
}
