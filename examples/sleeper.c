/*
 * sleeper.c: a process that mostly sleeps or blocks, for the off-CPU and
 * scheduler-state tests: a CPU profile of it is nearly empty, a sched chart
 * of it is nearly all Sleeping.
 *
 *   usage: sleeper [SECONDS]      (default 3; fractions allowed)
 *
 * Threads and what a profile of this program must show:
 *   sleeper       sleeps in nanosleep (50 ms at a time) in sleeper_loop:
 *                 no CPU samples, always Sleeping (S).
 *   waiter        blocks in pthread_cond_wait (a futex) in waiter_loop; the
 *                 main thread wakes it every 200 ms, about 5 wake-ups a
 *                 second, each a few µs of CPU: Sleeping nearly all the time.
 *   ticker        5% of one CPU in ticker_thread;tick_work;burn_tick (0.5 ms
 *                 of every 10 ms slice): nearly all the CPU samples (about 50
 *                 a second at 999 Hz).
 *   sleeper-main  the main thread, sleeping between pokes: Sleeping.
 * Total CPU is about 0.05 of one CPU.
 *
 * Prints "ready PID" on stderr once all threads are named (a few ms after
 * the start) and exits 0 SECONDS after the start.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "duty-cycle.h"

#define NAP_NS 50000000ull /* sleeper's nap: 50 ms */
#define POKE_NS 200000000ull /* waiter is woken every 200 ms */

static pthread_barrier_t named; /* all threads named: print "ready" */
static uint64_t end_ns; /* end of the run, on CLOCK_MONOTONIC */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t poked = PTHREAD_COND_INITIALIZER;
static unsigned pokes; /* under lock: pokes sent */
static int done; /* under lock: the run is over */

/*
 * xorshift rounds through a volatile stack slot: the volatile keeps the loop
 * from being optimized away, the stack slot makes gcc give the function a
 * frame pointer (gcc omits it in leaf functions that don't touch the stack,
 * even with -fno-omit-frame-pointer, and frame-pointer unwinding then loses
 * the caller).
 */
NOINLINE static void burn_tick(void)
{
	volatile uint64_t v = 1;
	uint64_t x = v;

	for (int i = 0; i < BURN_ITERS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	v = x;
}

NOINLINE static void tick_work(uint64_t until)
{
	DUTY_CYCLE(until, SPIN_CPU(SLICE_NS * 5 / 100, burn_tick()));
}

static void *ticker_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "ticker");
	pthread_barrier_wait(&named);
	tick_work(end_ns);
	return NULL;
}

NOINLINE static void sleeper_loop(uint64_t until)
{
	struct timespec nap = {.tv_sec = 0, .tv_nsec = (long)NAP_NS};

	while (clock_ns(CLOCK_MONOTONIC) < until)
		nanosleep(&nap, NULL);
}

static void *sleeper_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "sleeper");
	pthread_barrier_wait(&named);
	sleeper_loop(end_ns);
	return NULL;
}

/* Returns the number of wake-ups seen. */
NOINLINE static unsigned waiter_loop(void)
{
	unsigned seen = 0, wakeups = 0;

	pthread_mutex_lock(&lock);
	while (!done) {
		while (!done && seen == pokes)
			pthread_cond_wait(&poked, &lock);
		seen = pokes;
		wakeups++;
	}
	pthread_mutex_unlock(&lock);
	return wakeups;
}

static void *waiter_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "waiter");
	pthread_barrier_wait(&named);
	waiter_loop();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[3];
	double secs = 3;
	uint64_t t;
	char *end;
	int i;

	if (argc > 2 || (argc == 2 && ((secs = strtod(argv[1], &end)) <= 0 || *end))) {
		fprintf(stderr, "usage: sleeper [SECONDS]\n");
		return 2;
	}
	pthread_setname_np(pthread_self(), "sleeper-main");
	pthread_barrier_init(&named, NULL, 4);
	end_ns = clock_ns(CLOCK_MONOTONIC) + (uint64_t)(secs * 1e9);
	if (pthread_create(&th[0], NULL, sleeper_thread, NULL) ||
	    pthread_create(&th[1], NULL, waiter_thread, NULL) ||
	    pthread_create(&th[2], NULL, ticker_thread, NULL)) {
		perror("sleeper: pthread_create");
		return 1;
	}
	pthread_barrier_wait(&named);
	fprintf(stderr, "ready %d\n", (int)getpid());

	for (t = clock_ns(CLOCK_MONOTONIC) + POKE_NS; t < end_ns; t += POKE_NS) {
		sleep_until(t);
		/* Signal after unlocking, so the waiter wakes once, not twice
		 * (woken, then blocked on the mutex still held here). */
		pthread_mutex_lock(&lock);
		pokes++;
		pthread_mutex_unlock(&lock);
		pthread_cond_signal(&poked);
	}
	pthread_mutex_lock(&lock);
	done = 1;
	pthread_mutex_unlock(&lock);
	pthread_cond_signal(&poked);
	for (i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	return 0;
}
