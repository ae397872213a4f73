/*
 * leaky.c: a program with a known leak and a known mix of allocations, for
 * `prof record --malloc` and `--leaks` (tests/cli/t0616-malloc.bats,
 * bench/malloc-overhead.sh).
 *
 *   usage: leaky [SECONDS [TICK_US]]   (default 3 s, a tick every 10000 us)
 *
 * Every tick (one thread, asleep in between), in this order:
 *   main;tick;leak_outer;leak_inner;malloc     1024 bytes, never freed: the leak
 *   main;tick;mix_small;malloc                 400 x 64 bytes, freed at once
 *   main;tick;mix_medium;calloc                50 x calloc(8, 128), freed
 *   main;tick;mix_large;malloc, then realloc   25 x malloc(1024) grown by
 *                                               realloc to 4096, freed
 * so by bytes allocated (realloc's new size counted, as prof counts it):
 * mix_small 25600, mix_medium 51200, mix_large 25600 + 102400 = 128000,
 * leak_inner 1024 a tick. With TICK_US 0 it runs flat out (the overhead
 * benchmark); "ticks N" says how many it did.
 *
 * Prints "ready PID" on stderr at the start, and at the end on stdout its
 * own totals, e.g. "leaked 307200 leak_inner", "allocated 7680000
 * mix_small", ..., "ticks 300", "seconds 3.001".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define LEAK_BYTES  1024
#define SMALL_N	    400
#define SMALL_BYTES 64
#define MEDIUM_N    50
#define LARGE_N	    25

static void *volatile sink; /* keeps the compiler from dropping the calls */
static uint64_t leaked, small_bytes, medium_bytes, large_bytes;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) static void leak_inner(void)
{
	char *p = malloc(LEAK_BYTES);

	if (p)
		p[0] = 1;
	sink = p; /* overwritten next tick: lost for good */
	leaked += LEAK_BYTES;
}

__attribute__((noinline)) static void leak_outer(void)
{
	leak_inner();
}

__attribute__((noinline)) static void mix_small(void)
{
	for (int i = 0; i < SMALL_N; i++) {
		sink = malloc(SMALL_BYTES);
		free(sink);
		small_bytes += SMALL_BYTES;
	}
}

__attribute__((noinline)) static void mix_medium(void)
{
	for (int i = 0; i < MEDIUM_N; i++) {
		sink = calloc(8, 128);
		free(sink);
		medium_bytes += 8 * 128;
	}
}

__attribute__((noinline)) static void mix_large(void)
{
	for (int i = 0; i < LARGE_N; i++) {
		char *p = malloc(1024), *q;

		if (!p)
			continue;
		p[0] = 1;
		q = realloc(p, 4096);
		sink = q ? q : p;
		free(sink);
		large_bytes += 1024 + 4096;
	}
}

__attribute__((noinline)) static void tick(void)
{
	leak_outer();
	mix_small();
	mix_medium();
	mix_large();
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3;
	long tick_us = argc > 2 ? atol(argv[2]) : 10000;
	uint64_t start = now_ns(), end = start + (uint64_t)(secs * 1e9), next = start, ticks = 0;

	fprintf(stderr, "ready %d\n", (int)getpid());
	while (now_ns() < end) {
		tick();
		ticks++;
		if (tick_us > 0) {
			struct timespec ts;

			next += (uint64_t)tick_us * 1000;
			ts.tv_sec = (time_t)(next / 1000000000ull);
			ts.tv_nsec = (long)(next % 1000000000ull);
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
	}
	printf("leaked %llu leak_inner\n", (unsigned long long)leaked);
	printf("allocated %llu mix_small\n", (unsigned long long)small_bytes);
	printf("allocated %llu mix_medium\n", (unsigned long long)medium_bytes);
	printf("allocated %llu mix_large\n", (unsigned long long)large_bytes);
	printf("ticks %llu\n", (unsigned long long)ticks);
	printf("seconds %.3f\n", (double)(now_ns() - start) / 1e9);
	return 0;
}
