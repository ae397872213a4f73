/*
 * lockwait.c: threads that spend their time blocked on locks in glibc, under
 * named functions, for the off-CPU stack tests of `prof record --sched`
 * (tests/cli/t0410-offcpu-dwarf.bats).
 *
 *   usage: lockwait [SECONDS [WAITERS]]   (default 3 s, 3 waiters; fractions allowed)
 *
 *   holder  takes the row mutex and holds it 20 ms (asleep in nanosleep, in
 *       holder_thread;hold_row_lock), releases it, wakes the committer,
 *       and sleeps 1 ms without it, in a loop: the mutex is held about 95%
 *       of the time.
 *   row-N (N = 1 .. WAITERS)  in a loop: row_thread;wait_for_row_lock, which
 *       calls pthread_mutex_lock and sleeps in the kernel (futex_wait)
 *       while the holder has the row; then update_row (a few ns under the
 *       mutex) and unlock. Off CPU nearly all the time, and nearly all of it
 *       below wait_for_row_lock.
 *   committer  in a loop: committer_thread;wait_for_commit, which sleeps in
 *       pthread_cond_wait until the holder's next release.
 *   lockwait  the main thread, in pthread_join.
 *
 * Its own functions are built without frame pointers, as distributions build
 * their packages (the pragma below; the Makefile's example rule asks for them;
 * lockwait-fp, built with -DLOCKWAIT_FP, keeps them),
 * and glibc's mutex and futex paths have none either: a frame-pointer walk of
 * a waiter's switch-out stack stops in libc (or wanders through whatever rbp
 * holds there), so `wait_for_row_lock` is lost; a DWARF unwind finds it.
 *
 * Prints "ready PID" on stderr once every thread is named and running; exits
 * 0 after SECONDS. Before that each row-N and the committer print "NAME
 * wall_ms W run_ms R": their run time from schedstat over their loop, so a
 * test can compare prof's off-CPU time of the thread with W - R.
 */
#ifndef LOCKWAIT_FP /* the Makefile's lockwait-fp keeps them */
#pragma GCC optimize("omit-frame-pointer")
#endif

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_WAITERS 16

static pthread_mutex_t row = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t commit_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t commit_c = PTHREAD_COND_INITIALIZER;
static unsigned long commit_gen;
static atomic_int stop, started;
static volatile unsigned long row_value;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* This thread's run time (ns) from /proc/self/task/TID/schedstat. */
static uint64_t run_ns(void)
{
	char path[64];
	unsigned long long run = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)gettid());
	f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%llu", &run) != 1)
			run = 0;
		fclose(f);
	}
	return run;
}

static void sleep_ns(long ns)
{
	struct timespec ts = {.tv_sec = ns / 1000000000L, .tv_nsec = ns % 1000000000L};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

__attribute__((noinline)) static void hold_row_lock(void)
{
	pthread_mutex_lock(&row);
	sleep_ns(20000000);
	pthread_mutex_unlock(&row);
}

static void *holder_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "holder");
	atomic_fetch_add(&started, 1);
	while (!atomic_load(&stop)) {
		hold_row_lock();
		pthread_mutex_lock(&commit_m);
		commit_gen++;
		pthread_cond_broadcast(&commit_c);
		pthread_mutex_unlock(&commit_m);
		sleep_ns(1000000);
	}
	/* Wake a committer still waiting, so that it sees stop. */
	pthread_mutex_lock(&commit_m);
	commit_gen++;
	pthread_cond_broadcast(&commit_c);
	pthread_mutex_unlock(&commit_m);
	return NULL;
}

__attribute__((noinline)) static void wait_for_row_lock(void)
{
	pthread_mutex_lock(&row);
}

__attribute__((noinline)) static void update_row(void)
{
	row_value++;
}

static void report(const char *name, uint64_t t0, uint64_t r0)
{
	fprintf(stderr, "%s wall_ms %.1f run_ms %.1f\n", name, (double)(now_ns() - t0) / 1e6,
		(double)(run_ns() - r0) / 1e6);
}

static void *row_thread(void *arg)
{
	char name[16];
	uint64_t t0, r0;

	snprintf(name, sizeof(name), "row-%d", (int)(long)arg);
	pthread_setname_np(pthread_self(), name);
	atomic_fetch_add(&started, 1);
	t0 = now_ns();
	r0 = run_ns();
	while (!atomic_load(&stop)) {
		wait_for_row_lock();
		update_row();
		pthread_mutex_unlock(&row);
	}
	report(name, t0, r0);
	return NULL;
}

__attribute__((noinline)) static void wait_for_commit(void)
{
	unsigned long gen;

	pthread_mutex_lock(&commit_m);
	gen = commit_gen;
	while (gen == commit_gen)
		pthread_cond_wait(&commit_c, &commit_m);
	pthread_mutex_unlock(&commit_m);
}

static void *committer_thread(void *arg)
{
	uint64_t t0, r0;

	(void)arg;
	pthread_setname_np(pthread_self(), "committer");
	atomic_fetch_add(&started, 1);
	t0 = now_ns();
	r0 = run_ns();
	while (!atomic_load(&stop))
		wait_for_commit();
	report("committer", t0, r0);
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3;
	int n = argc > 2 ? atoi(argv[2]) : 3, i;
	pthread_t th[MAX_WAITERS + 2];

	if (seconds <= 0 || n < 1 || n > MAX_WAITERS) {
		fprintf(stderr, "usage: lockwait [SECONDS [WAITERS (1..%d)]]\n", MAX_WAITERS);
		return 2;
	}
	if (pthread_create(&th[0], NULL, holder_thread, NULL) ||
	    pthread_create(&th[1], NULL, committer_thread, NULL))
		return 1;
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i + 2], NULL, row_thread, (void *)(long)(i + 1)))
			return 1;
	while (atomic_load(&started) < n + 2)
		sleep_ns(1000000);
	fprintf(stderr, "ready %d\n", (int)getpid());
	sleep_ns((long)(seconds * 1e9));
	atomic_store(&stop, 1);
	for (i = 0; i < n + 2; i++)
		pthread_join(th[i], NULL);
	return 0;
}
