/*
 * fp-garbage.c: what a frame-pointer walk meets in code built without frame
 * pointers, made on purpose (tests/cli/t0525-call-graph-auto.bats): while
 * garbage_leaf spins, rbp points at a fake frame on its stack whose return
 * address is no address at all (0xb2cc7ac1c3a49300, non-canonical), as
 * when such code uses rbp for data. The kernel's walk takes it as the
 * caller; prof must cut it off instead of showing [unknown+0xb2cc...].
 *
 *   usage: fp-garbage [SECONDS]   (default 2 s)
 *
 * Prints "ready" on stderr; nearly every sample is in garbage_leaf, called
 * as main;spin;garbage_leaf (what the CFI says); exits 0.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "duty-cycle.h"

static volatile uint64_t sink;

/* About 100 µs of arithmetic with rbp on the fake frame; rbp is swapped
 * back before anything else runs (frame pointers are on: the compiler
 * never gives rbp to an operand). */
NOINLINE static uint64_t garbage_leaf(uint64_t x)
{
	volatile uint64_t fake[2] = {0, 0xb2cc7ac1c3a49300ull};
	uint64_t fp = (uint64_t)(uintptr_t)fake, n = 40000;

	__asm__ volatile("xchg %%rbp, %[fp]\n"
			 "1:\n\t"
			 "imul %[x], %[x]\n\t"
			 "add $1, %[x]\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b\n\t"
			 "xchg %%rbp, %[fp]\n"
			 : [x] "+r"(x), [n] "+r"(n), [fp] "+r"(fp)
			 :
			 : "memory", "cc");
	return x + fake[0];
}

NOINLINE static void spin(uint64_t end)
{
	uint64_t x = 3;

	while (clock_ns(CLOCK_MONOTONIC) < end)
		x = garbage_leaf(x);
	sink = x;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;

	fprintf(stderr, "ready\n");
	spin(clock_ns(CLOCK_MONOTONIC) + (uint64_t)(seconds * 1e9));
	return 0;
}
