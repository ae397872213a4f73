/* hold.c: a snapshot's capture pass: its threads held back to back. Up to
 * DUMP_HOLD_IN_FLIGHT threads are interrupted at a time (capture.c), so
 * that their trips to a stop overlap, and each is taken the moment its
 * stop is reported, whichever it is: a stopped thread waits at most for
 * the copies of the few stopped before it. One that has not stopped
 * within DUMP_HOLD_WAIT_NS (waiting for a CPU on a busy machine, or in
 * uninterruptible sleep) stays pending without counting as in flight. After the pass the
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
#define DUMP_HOLD_IN_FLIGHT 4

static void remove_at(pid_t *v, size_t *n, size_t i)
{
	v[i] = v[--*n];
}

/* Handles the stops reported within `ns`: all of them until none comes
 * (once == 0), or the first one of a thread of this snapshot (once == 1).
 * Returns how many of this snapshot's threads were handled. */
static size_t take_stops(struct dump_holder *h, struct dump_set *set, size_t stack_max,
			 const struct dump_maps *maps, uint64_t ns, int once)
{
	uint64_t start = dump_now_ns();
	size_t handled = 0;

	while (!once || !handled) {
		uint64_t spent = dump_now_ns() - start;
		pid_t tid;
		uint64_t since = 0;
		int sig, r = dump_next_stop(spent < ns ? ns - spent : 0, &tid, &sig, &since);
		size_t i;

		if (r == DUMP_STOP_NONE)
			break;
		for (i = 0; i < h->npend && set->t[h->pend[i]].tid != tid; i++)
			;
		if (i < h->npend) {
			struct dump_thread *t = &set->t[h->pend[i]];

			if (r == DUMP_STOP_STOPPED) {
				dump_take(t, stack_max, maps, sig, since);
			} else {
				t->pending = 0;
				t->err = -ESRCH;
			}
			h->pend[i] = h->pend[--h->npend];
			handled++;
			continue;
		}
		for (i = 0; i < h->nseized && h->seized[i] != tid; i++)
			;
		if (r == DUMP_STOP_STOPPED)
			dump_let_go(tid, sig); /* seized earlier, or not ours to keep */
		if (i < h->nseized)
			remove_at(h->seized, &h->nseized, i);
	}
	return handled;
}

/* Threads interrupted less than DUMP_HOLD_WAIT_NS ago and not stopped yet:
 * the ones still expected to stop soon. Counting them longer (50 ms) keeps
 * the late ones on a busy machine from stopping together and queueing for
 * their copies (p99 held 0.2-0.4 ms against 0.9-1.2 at load 19), but it
 * doubled the skew and did not change what a spinner paid
 * (docs/BENCHMARKS-dump-pause.md): not kept. */
static size_t in_flight(const struct dump_holder *h, const struct dump_set *set, uint64_t now)
{
	size_t n = 0;

	for (size_t i = 0; i < h->npend; i++)
		n += now - set->t[h->pend[i]].held_at < DUMP_HOLD_WAIT_NS;
	return n;
}

int dump_hold_pass(struct dump_holder *h, struct dump_set *set, size_t first,
		   const struct dump_opts *o, const struct dump_maps *maps,
		   volatile sig_atomic_t *stop)
{
	uint64_t late;
	size_t next = first;

	take_stops(h, set, o->stack_max, maps, 0, 0); /* seized ones that stopped */
	/* A few threads interrupted at a time: their stops (a wake-up and a
	 * trip through the scheduler each) overlap, while each stopped one
	 * waits at most for the copies of the few before it. */
	while (next < set->n && !*stop) {
		while (next < set->n && !*stop &&
		       in_flight(h, set, dump_now_ns()) < DUMP_HOLD_IN_FLIGHT) {
			struct dump_thread *t = &set->t[next++];

			t->tried = 1;
			t->syscall = -1;
			if (GROW(h->pend, h->pend_cap, h->npend + 1))
				return -ENOMEM;
			if (!dump_interrupt(t, o->stack_max))
				h->pend[h->npend++] = (size_t)(t - set->t);
			/* else gone (-ESRCH), or not allowed (-EPERM) */
		}
		/* the next stop; none within the wait: more threads go in flight */
		take_stops(h, set, o->stack_max, maps, DUMP_HOLD_WAIT_NS, 1);
	}
	late = dump_now_ns();
	while (h->npend && dump_now_ns() - late < DUMP_HOLD_LATE_NS)
		take_stops(h, set, o->stack_max, maps, DUMP_HOLD_LATE_NS - (dump_now_ns() - late), 0);
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
	uint64_t start = dump_now_ns();

	while (h->nseized && dump_now_ns() - start < ns)
		take_stops(h, set, 0, NULL, ns - (dump_now_ns() - start), 0);
}

void dump_holder__release(struct dump_holder *h)
{
	free(h->pend);
	free(h->seized);
	*h = (struct dump_holder){0};
}
