/*
 * nofp-deep.c: a program built WITHOUT frame pointers (-O2
 * -fomit-frame-pointer, see the Makefile), for the tests of
 * `prof record --call-graph dwarf`: the kernel's frame-pointer walk cannot
 * follow its stack, the CFI unwinder must.
 *
 *   usage: nofp-deep [SECONDS] [THREADS]   (default 2 s, 0 extra threads)
 *
 * Every sample of a CPU profile lands in one known chain:
 *   main;run_a;run_b;run_c;leaf             (the main thread)
 *   worker;run_a;run_b;run_c;leaf           (each extra thread, named "nofp-worker")
 * with leaf doing nearly all the work. Each function keeps values in
 * callee-saved registers across its call and has stack locals, so its CFI is
 * more than "CFA = rsp + 8": an unwinder that gets a rule wrong loses the
 * chain. Prints "ready" on stderr, runs SECONDS of wall time, prints
 * "cpu nofp-deep SECONDS" and "cpu nofp-worker SECONDS" (the CPU the main
 * thread and the workers together used), exits 0.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "duty-cycle.h"

static uint64_t end_ns;
static volatile uint64_t sink;

/* About 50 µs of arithmetic per call, on registers only. */
NOINLINE static uint64_t leaf(uint64_t x)
{
	for (int i = 0; i < 20000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

NOINLINE static uint64_t run_c(uint64_t x)
{
	volatile uint64_t local[4] = {x, x + 1, x + 2, x + 3};
	uint64_t a = local[1] * 3, b = local[2] ^ 5;
	uint64_t r = leaf(x + local[0]);

	return r + a + b + local[3];
}

NOINLINE static uint64_t run_b(uint64_t x)
{
	volatile uint64_t local[8];
	uint64_t a = x * 7, b = x ^ 0x55, c = x + 11;
	uint64_t r;

	for (int i = 0; i < 8; i++)
		local[i] = x + (uint64_t)i;
	r = run_c(x + local[7]);
	return r + a + b + c + local[3];
}

NOINLINE static uint64_t run_a(uint64_t x)
{
	volatile char pad[200];
	uint64_t a = x * 13, b = x + 17, c = x ^ 19, d = x - 23;
	uint64_t r;

	pad[0] = (char)x;
	pad[199] = (char)a;
	r = run_b(x + (uint64_t)pad[0]);
	return r + a + b + c + d + (uint64_t)pad[199];
}

static void run_until_end(uint64_t seed)
{
	uint64_t x = seed;

	while (clock_ns(CLOCK_MONOTONIC) < end_ns)
		for (int i = 0; i < 20; i++)
			x = run_a(x);
	sink = x;
}

static double worker_cpu[16]; /* seconds of CPU each worker used */

static void *worker(void *arg)
{
	uintptr_t i = (uintptr_t)arg;

	run_until_end(i);
	worker_cpu[i - 2] = (double)clock_ns(CLOCK_THREAD_CPUTIME_ID) / 1e9;
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	int nthreads = argc > 2 ? atoi(argv[2]) : 0;
	pthread_t th[16];
	double main_cpu, workers_cpu = 0;
	int i;

	if (secs <= 0 || nthreads < 0 || nthreads > 16) {
		fprintf(stderr, "usage: nofp-deep [SECONDS] [THREADS (0-16)]\n");
		return 2;
	}
	end_ns = clock_ns(CLOCK_MONOTONIC) + (uint64_t)(secs * 1e9);
	for (i = 0; i < nthreads; i++) {
		if (pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)(i + 2)))
			return 1;
		pthread_setname_np(th[i], "nofp-worker");
	}
	fprintf(stderr, "ready %d\n", (int)getpid());
	run_until_end(1);
	main_cpu = (double)clock_ns(CLOCK_THREAD_CPUTIME_ID) / 1e9;
	for (i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
		workers_cpu += worker_cpu[i];
	}
	/* What each thread really ran: tests compare sample shares with it. */
	fprintf(stderr, "cpu nofp-deep %.3f\ncpu nofp-worker %.3f\n", main_cpu, workers_cpu);
	return 0;
}
