/*
 * churn.c: a process whose threads come, go and get renamed while it is
 * being profiled, for the tests of thread tracking (new threads, exited
 * threads, renames) and of a recorder that must not spin once a thread of
 * its target has exited.
 *
 *   usage: churn [SECONDS]      (default 3; fractions allowed)
 *
 * Threads and what a CPU profile of this program must show:
 *   short-1, short-2, ...  one started every 100 ms by the main thread; each
 *       uses 50 ms of CPU in short_thread;short_work;burn, sleeps 100 ms and
 *       exits. About 10 per second; one or two alive at any time, so a
 *       recorder that attaches at any moment sees a thread of its target
 *       exit within 150 ms.
 *   before-rename / after-rename  one long-lived thread, 30% of a CPU in
 *       rename_thread;rename_work;burn; named "before-rename" for the first
 *       half of the run, then it renames itself "after-rename": the same
 *       stack must show up under both names, about half of it under each.
 *   late-thread  started 1 s into the run (if the run is longer), 30% of a
 *       CPU in late_thread;late_work;burn.
 *   churn  the main thread, asleep between spawns: (almost) no samples.
 * Expected shares of a 3 s run: short-* 50% together (about 1.7% each),
 * before-rename 15%, after-rename 15%, late-thread 20%. In general, for
 * SECONDS = D >= 1: short 0.5 D, each rename half 0.15 D, late 0.3 (D - 1)
 * CPU-seconds. About 1.1 CPUs busy on average.
 *
 * CPU shares are measured in each thread's own CPU time (see SPIN_CPU), so
 * they hold on a busy machine too. Prints "ready PID" on stderr once the
 * long-lived thread is named "before-rename", runs SECONDS from then, exits 0.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "duty-cycle.h"

#define SHORT_BUSY_NS 50000000ull /* each short-N thread: 50 ms of CPU, */
#define SHORT_IDLE_NS 100000000ull /* then 100 ms asleep */
#define SPAWN_NS 100000000ull /* a new short-N thread every 100 ms */
#define LATE_NS 1000000000ull /* late-thread starts 1 s into the run */

static pthread_barrier_t named; /* the long-lived thread is named: "ready" */
static uint64_t start_ns, end_ns; /* the run, on CLOCK_MONOTONIC */

/*
 * xorshift rounds through a volatile stack slot: the volatile keeps the loop
 * from being optimized away, the stack slot makes gcc give the function a
 * frame pointer (gcc omits it in leaf functions that don't touch the stack,
 * even with -fno-omit-frame-pointer, and frame-pointer unwinding then loses
 * the caller). Shared by all threads: the callers tell them apart.
 */
NOINLINE static void burn(void)
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

NOINLINE static void short_work(void)
{
	SPIN_CPU(SHORT_BUSY_NS, burn());
}

static void *short_thread(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "short-%d", (int)(intptr_t)arg);
	pthread_setname_np(pthread_self(), name);
	short_work();
	sleep_until(clock_ns(CLOCK_MONOTONIC) + SHORT_IDLE_NS);
	return NULL;
}

NOINLINE static void rename_work(uint64_t until)
{
	DUTY_CYCLE(until, SPIN_CPU(SLICE_NS * 30 / 100, burn()));
}

static void *rename_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "before-rename");
	pthread_barrier_wait(&named);
	rename_work(start_ns + (end_ns - start_ns) / 2);
	pthread_setname_np(pthread_self(), "after-rename");
	rename_work(end_ns);
	return NULL;
}

NOINLINE static void late_work(uint64_t until)
{
	DUTY_CYCLE(until, SPIN_CPU(SLICE_NS * 30 / 100, burn()));
}

static void *late_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "late-thread");
	late_work(end_ns);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t renamer, late, shorts[2];
	int n = 0, have_late = 0;
	double secs = 3;
	uint64_t next;
	char *end;

	if (argc > 2 || (argc == 2 && ((secs = strtod(argv[1], &end)) <= 0 || *end))) {
		fprintf(stderr, "usage: churn [SECONDS]\n");
		return 2;
	}
	start_ns = clock_ns(CLOCK_MONOTONIC);
	end_ns = start_ns + (uint64_t)(secs * 1e9);
	pthread_barrier_init(&named, NULL, 2);
	if (pthread_create(&renamer, NULL, rename_thread, NULL)) {
		perror("churn: pthread_create");
		return 1;
	}
	pthread_barrier_wait(&named);
	fprintf(stderr, "ready %d\n", (int)getpid());

	/* Spawn short-N every 100 ms; each lives 150 ms, so short-(N-2) is
	 * gone when short-N starts. */
	for (next = start_ns; next < end_ns; next += SPAWN_NS) {
		if (!have_late && next >= start_ns + LATE_NS) {
			if (pthread_create(&late, NULL, late_thread, NULL)) {
				perror("churn: pthread_create");
				return 1;
			}
			have_late = 1;
		}
		if (n >= 2)
			pthread_join(shorts[n % 2], NULL);
		if (pthread_create(&shorts[n % 2], NULL, short_thread, (void *)(intptr_t)(n + 1))) {
			perror("churn: pthread_create");
			return 1;
		}
		n++;
		sleep_until(next + SPAWN_NS);
	}
	for (int i = n > 2 ? n - 2 : 0; i < n; i++)
		pthread_join(shorts[i % 2], NULL);
	if (have_late)
		pthread_join(late, NULL);
	pthread_join(renamer, NULL);
	return 0;
}
