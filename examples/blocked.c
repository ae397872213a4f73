/*
 * blocked.c: threads that block before a recording starts and stay blocked,
 * for the off-CPU tests of threads that never switch while prof records
 * (tests/cli/t0420-sched-blocked.bats).
 *
 *   usage: blocked SECONDS [EXIT_AFTER]
 *
 * Threads and what a profile of this program must show:
 *   condwaiter   blocks in pthread_cond_wait (a futex) in condwait_loop, never
 *                signalled: asleep (S) all along, no CPU.
 *   pipereader   blocks in read(2) on a pipe nobody writes in piperead_loop:
 *                asleep (S) all along, no CPU.
 *   exiter       blocks in nanosleep in exiter_nap and exits EXIT_AFTER
 *                seconds after the start (default: never, before SECONDS).
 *   blocked      the main thread, asleep in nanosleep until SECONDS are over.
 *
 * Prints "ready PID" on stderr once every thread is named and about to
 * block, and exits 0 SECONDS after the start.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "duty-cycle.h"

static pthread_barrier_t named; /* all threads named: print "ready" */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static int pipefd[2];
static double exit_after; /* exiter's life in seconds; 0: until the end */

static void nap(double s)
{
	struct timespec ts = {.tv_sec = (time_t)s, .tv_nsec = (long)((s - (time_t)s) * 1e9)};

	while (nanosleep(&ts, &ts))
		;
}

NOINLINE static void condwait_loop(void)
{
	pthread_mutex_lock(&lock);
	for (;;)
		pthread_cond_wait(&never, &lock);
}

NOINLINE static void piperead_loop(void)
{
	char c;

	while (read(pipefd[0], &c, 1) != 0)
		;
}

NOINLINE static void exiter_nap(void)
{
	nap(exit_after);
}

static void *condwaiter(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "condwaiter");
	pthread_barrier_wait(&named);
	condwait_loop();
	return NULL;
}

static void *pipereader(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "pipereader");
	pthread_barrier_wait(&named);
	piperead_loop();
	return NULL;
}

static void *exiter(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "exiter");
	pthread_barrier_wait(&named);
	exiter_nap();
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3;
	pthread_t t[3];

	exit_after = argc > 2 ? atof(argv[2]) : seconds + 1;
	if (pipe(pipefd) || pthread_barrier_init(&named, NULL, 4))
		return 1;
	pthread_setname_np(pthread_self(), "blocked");
	if (pthread_create(&t[0], NULL, condwaiter, NULL) ||
	    pthread_create(&t[1], NULL, pipereader, NULL) ||
	    pthread_create(&t[2], NULL, exiter, NULL))
		return 1;
	pthread_barrier_wait(&named);
	fprintf(stderr, "ready %d\n", (int)getpid());
	nap(seconds);
	return 0;
}
