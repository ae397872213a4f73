/*
 * blocked.c: threads that block before a recording starts and stay blocked,
 * for the off-CPU tests of threads that never switch while prof records
 * (tests/cli/t0420-sched-blocked.bats).
 *
 *   usage: blocked SECONDS [stdin]
 *
 * Threads and what a profile of this program must show:
 *   condwaiter   blocks in pthread_cond_wait (a futex) in condwait_loop, never
 *                signalled: asleep (S) all along, no CPU.
 *   pipereader   blocks in read(2) on a pipe nobody writes in piperead_loop:
 *                asleep (S) all along, no CPU.
 *   exiter       blocks in nanosleep in exiter_wait until the end; with
 *                "stdin", in read(2) of standard input instead, and exits
 *                (the thread, not the process) once a byte or EOF comes:
 *                a thread that ends in the middle of a recording.
 *   blocked      the main thread, asleep in nanosleep until SECONDS are over.
 *
 * Prints "ready PID" on stderr once every thread is named and about to
 * block, and exits 0 SECONDS after the start.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "duty-cycle.h"

static pthread_barrier_t named; /* all threads named: print "ready" */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static int pipefd[2];
static double seconds = 3;
static int exit_on_stdin;

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

NOINLINE static void exiter_wait(void)
{
	char c;

	if (!exit_on_stdin)
		nap(seconds + 1);
	else if (read(0, &c, 1) < 0)
		perror("blocked: read");
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
	exiter_wait();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[3];

	if (argc > 1)
		seconds = atof(argv[1]);
	exit_on_stdin = argc > 2 && !strcmp(argv[2], "stdin");
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
