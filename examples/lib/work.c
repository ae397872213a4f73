/*
 * work.c: the hot code of examples/lib/app.c, in a shared library built
 * twice (see the Makefile): libwork-fp.so with frame pointers and
 * libwork-nofp.so without (-O2 -fomit-frame-pointer), so that
 * `prof record --call-graph auto` is tested where the hot code is in a
 * library of the program's own tree (tests/cli/t0525-call-graph-auto.bats).
 *
 * Nearly every sample lands in work_leaf, called as
 *   work_run;work_outer;work_inner;work_leaf
 * Each function keeps values in callee-saved registers across its call, so
 * without frame pointers its CFI is more than "CFA = rsp + 8".
 */
#include <stdint.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile uint64_t sink;

/* About 50 µs of xorshift steps, on registers only. */
NOINLINE static uint64_t work_leaf(uint64_t x)
{
	unsigned n = 30000;

	x |= 1;
	do {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		__asm__ volatile("" : "+r"(x));
	} while (--n);
	return x;
}

NOINLINE static uint64_t work_inner(uint64_t x)
{
	uint64_t a = x ^ 0x9e3779b97f4a7c15ull, b = work_leaf(x);
	volatile uint64_t local[4] = {a, b, a + b, a - b};

	return b + local[2] - a;
}

NOINLINE static uint64_t work_outer(uint64_t x)
{
	uint64_t a = x + 3, b = work_inner(a);
	volatile uint64_t local[2] = {a, b};

	return b ^ local[0];
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Runs work_outer until `seconds` of wall time have passed. */
NOINLINE void work_run(double seconds)
{
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9), x = 1;

	while (now_ns() < end)
		x = work_outer(x);
	sink = x;
}
