/*
 * paths.c: a workload whose call stacks keep being new ones, for the tests
 * and measurements of a live profiler's memory over hours (prof top): a
 * profiler that interns each distinct stack grows with every sample here,
 * unless it lets go of the stacks no window holds any more.
 *
 *   usage: paths [SECONDS [THREADS]]   (default 3 seconds, 1 thread)
 *
 * Each thread walks random paths DEPTH (20) calls deep through two
 * functions, go_left and go_right, one per bit of a pseudo-random number
 * (through walk, so each level is its own pair of frames), and burns about
 * 100 µs of CPU at the end of each: 2^20 distinct stacks, nearly every
 * sample a stack not seen before for the first hours at 99 Hz. All the
 * CPU is in burn_leaf, under walk. Prints "ready PID" on stderr once the
 * threads run, then runs SECONDS more and exits 0.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "duty-cycle.h"

#define DEPTH 20
#define MAX_THREADS 64

static uint64_t end_ns;

NOINLINE static uint64_t burn_leaf(uint64_t x)
{
	volatile uint64_t v = x | 1;

	for (int i = 0; i < BURN_ITERS * 10; i++) {
		uint64_t y = v;

		y ^= y << 13;
		y ^= y >> 7;
		y ^= y << 17;
		v = y;
	}
	return v;
}

static uint64_t walk(uint64_t bits, int depth);

/* Two callers of walk: their return addresses make the path's frames. The
 * "+ 1" after the call keeps it from being a tail call. */
NOINLINE static uint64_t go_left(uint64_t bits, int depth)
{
	return walk(bits >> 1, depth - 1) + 1;
}

NOINLINE static uint64_t go_right(uint64_t bits, int depth)
{
	return walk(bits >> 1, depth - 1) + 1;
}

NOINLINE static uint64_t walk(uint64_t bits, int depth)
{
	if (!depth)
		return burn_leaf(bits);
	return (bits & 1) ? go_left(bits, depth) : go_right(bits, depth);
}

static void *walker(void *arg)
{
	uint64_t x = (uintptr_t)arg * 0x9e3779b97f4a7c15ull + 1, sum = 0;

	while (clock_ns(CLOCK_MONOTONIC) < end_ns) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		sum += walk(x >> 20, DEPTH);
	}
	return (void *)(uintptr_t)(sum & 1);
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	double secs = argc > 1 ? strtod(argv[1], NULL) : 3;
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 1;

	if (argc > 3 || secs <= 0 || n < 1 || n > MAX_THREADS) {
		fprintf(stderr, "usage: paths [SECONDS [THREADS]]\n");
		return 2;
	}
	end_ns = clock_ns(CLOCK_MONOTONIC) + (uint64_t)(secs * 1e9);
	for (long i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, walker, (void *)(uintptr_t)i)) {
			perror("paths: pthread_create");
			return 1;
		}
	fprintf(stderr, "ready %d\n", (int)getpid());
	for (long i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}
