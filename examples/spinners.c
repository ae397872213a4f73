/*
 * spinners.c: threads that switch only when told to, so that a test can
 * count their context switches exactly: whatever a recorder attached
 * before the burst and stopped after it counts must equal the threads' own
 * /proc/PID/task/TID/status voluntary + nonvoluntary_ctxt_switches deltas.
 *
 *   usage: spinners [THREADS [SECONDS [CHUNK_US]]]
 *          (default 3 threads, 2 s bursts, 1000 µs chunks)
 *
 * Threads spin-1 .. spin-N wait (blocked, no switches at all) until the
 * process gets SIGUSR1; then each spins for SECONDS of wall time, which on
 * a machine with fewer CPUs than spinners means the scheduler preempts them
 * (state R), and after every 16th chunk of CHUNK_US of spinning it sleeps
 * 100 µs in
 * nanosleep (state S: a switch the kernel filter of prof's tracepoint
 * holds back, reported by the SWITCH record alone), and every 16th, offset
 * by 8, it calls sched_yield (state R, not preempted, when another thread
 * waits). Then it blocks again until the next SIGUSR1. "ready" goes to
 * stderr once every thread waits, "done K" after burst K once every thread
 * blocks again: between "done" and the next SIGUSR1 no thread switches.
 * SIGTERM or SIGINT ends it (exit 0).
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "duty-cycle.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER, idle = PTHREAD_COND_INITIALIZER;
static unsigned burst, waiting;
static uint64_t spin_ns, chunk_ns;
static pid_t tids[64];

static NOINLINE void spin_for(uint64_t end)
{
	unsigned chunks = 0;

	while (clock_ns(CLOCK_MONOTONIC) < end) {
		uint64_t until = clock_ns(CLOCK_MONOTONIC) + chunk_ns;

		while (clock_ns(CLOCK_MONOTONIC) < until)
			;
		chunks++;
		if (chunks % 16 == 0) {
			struct timespec ts = {0, 100000};

			nanosleep(&ts, NULL);
		} else if (chunks % 16 == 8) {
			sched_yield();
		}
	}
}

/* tid's state letter and its voluntary + nonvoluntary switches, from
 * /proc; 0 when unreadable. */
static char task_state(pid_t tid, unsigned long *switches)
{
	char path[64], line[256];
	unsigned long v;
	char state = 0;
	FILE *f;

	*switches = 0;
	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "State: %c", &state) == 1)
			continue;
		if (sscanf(line, "voluntary_ctxt_switches: %lu", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %lu", &v) == 1)
			*switches += v;
	}
	fclose(f);
	return state;
}

/* Each spinner counted itself waiting just before it blocks: waits until
 * every one is asleep (S) and its switch count held still over 5 ms, so
 * that its last switch-out came before "done". */
static void wait_blocked(unsigned n)
{
	unsigned long before[64], now;
	unsigned still = 0;

	while (still < n) {
		struct timespec ts = {0, 5000000};

		still = 0;
		for (unsigned i = 0; i < n; i++)
			task_state(tids[i], &before[i]);
		nanosleep(&ts, NULL);
		for (unsigned i = 0; i < n; i++)
			if (task_state(tids[i], &now) == 'S' && now == before[i])
				still++;
	}
}

static void *spinner(void *arg)
{
	unsigned seen = 0, i = (unsigned)(uintptr_t)arg;
	char name[16];

	snprintf(name, sizeof(name), "spin-%u", i);
	pthread_setname_np(pthread_self(), name);
	for (;;) {
		pthread_mutex_lock(&lock);
		tids[i - 1] = gettid();
		waiting++;
		pthread_cond_signal(&idle);
		while (burst == seen)
			pthread_cond_wait(&go, &lock);
		seen = burst;
		pthread_mutex_unlock(&lock);
		spin_for(clock_ns(CLOCK_MONOTONIC) + spin_ns);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 3;
	double secs = argc > 2 ? atof(argv[2]) : 2.0;
	double chunk_us = argc > 3 ? atof(argv[3]) : 1000;
	sigset_t set;
	pthread_t t;
	int sig;

	if (n < 1 || n > 64 || secs <= 0 || chunk_us <= 0) {
		fprintf(stderr, "usage: spinners [THREADS [SECONDS [CHUNK_US]]]\n");
		return 2;
	}
	spin_ns = (uint64_t)(secs * 1e9);
	chunk_ns = (uint64_t)(chunk_us * 1e3);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL); /* the threads inherit it */
	for (unsigned i = 1; i <= n; i++)
		if (pthread_create(&t, NULL, spinner, (void *)(uintptr_t)i))
			return 1;
	for (unsigned k = 0;; k++) {
		pthread_mutex_lock(&lock);
		while (waiting < n)
			pthread_cond_wait(&idle, &lock);
		pthread_mutex_unlock(&lock);
		wait_blocked(n);
		fprintf(stderr, k ? "done %u\n" : "ready\n", k);
		if (sigwait(&set, &sig) || sig != SIGUSR1)
			return 0;
		pthread_mutex_lock(&lock);
		waiting = 0;
		burst++;
		pthread_cond_broadcast(&go);
		pthread_mutex_unlock(&lock);
	}
}
