/*
 * phases.c: a program that works in phases, one after the other, for the
 * time-ordered views (`prof report --flamechart`, `prof svg --flamechart`
 * of a recording; tests/cli/t0310-flamechart.bats).
 *
 *   usage: phases [A_MS [B_MS]]      (default 400 and 800)
 *
 * The main thread (named "phases") runs phase_a until it has used A_MS of
 * CPU, then phase_b for B_MS, then phase_a again for A_MS. When phase_b
 * starts, it starts a second thread, "worker", that runs phase_c for A_MS
 * of its own CPU and ends. Each phase spins in its own burn function, so a
 * sample's stack names its phase: main;phase_a;burn_a, ...
 *
 * For each phase it prints, once the phase is over, its own clock:
 *   phase NAME TID START_NS END_NS CPU_NS
 * START and END on CLOCK_MONOTONIC, CPU the thread's CPU time in the phase
 * (CLOCK_THREAD_CPUTIME_ID), so a test can check a chart's order and each
 * phase's share of the samples against what the program measured.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "duty-cycle.h"

static volatile uint64_t sink;
static uint64_t a_ns = 400000000ull, b_ns = 800000000ull;

static NOINLINE void burn_a(void)
{
	for (unsigned i = 0; i < BURN_ITERS; i++)
		sink = sink * 31 + i;
}

static NOINLINE void burn_b(void)
{
	for (unsigned i = 0; i < BURN_ITERS; i++)
		sink = sink * 37 + i;
}

static NOINLINE void burn_c(void)
{
	for (unsigned i = 0; i < BURN_ITERS; i++)
		sink = sink * 41 + i;
}

/* Prints the phase line; one fprintf, so threads' lines never mix. */
static void report(const char *name, uint64_t start, uint64_t cpu0)
{
	uint64_t end = clock_ns(CLOCK_MONOTONIC);
	uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;

	printf("phase %s %ld %llu %llu %llu\n", name, (long)syscall(SYS_gettid),
	       (unsigned long long)start, (unsigned long long)end, (unsigned long long)cpu);
	fflush(stdout);
}

static NOINLINE void phase_a(void)
{
	uint64_t start = clock_ns(CLOCK_MONOTONIC), cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);

	SPIN_CPU(a_ns, burn_a());
	report("phase_a", start, cpu0);
}

static NOINLINE void phase_b(void)
{
	uint64_t start = clock_ns(CLOCK_MONOTONIC), cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);

	SPIN_CPU(b_ns, burn_b());
	report("phase_b", start, cpu0);
}

static NOINLINE void phase_c(void)
{
	uint64_t start = clock_ns(CLOCK_MONOTONIC), cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);

	SPIN_CPU(a_ns, burn_c());
	report("phase_c", start, cpu0);
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "worker");
	phase_c();
	return NULL;
}

static uint64_t parse_ms(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*end || !v || v > 600000) {
		fprintf(stderr, "phases: '%s' is not a phase length in ms (1..600000)\n", s);
		exit(2);
	}
	return (uint64_t)v * 1000000ull;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		a_ns = parse_ms(argv[1]);
	if (argc > 2)
		b_ns = parse_ms(argv[2]);
	pthread_setname_np(pthread_self(), "phases");
	phase_a();
	if (pthread_create(&t, NULL, worker, NULL)) {
		fprintf(stderr, "phases: cannot start the worker thread\n");
		return 1;
	}
	phase_b();
	phase_a();
	pthread_join(t, NULL);
	return 0;
}
