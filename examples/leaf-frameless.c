/*
 * leaf-frameless.c: a hot leaf function without a frame of its own, in a
 * program built WITH frame pointers (-fno-omit-frame-pointer), for the test
 * of prof record's frameless-leaf fix. gcc sets up no frame in a leaf
 * function that needs no stack (-momit-leaf-frame-pointer, the default on
 * x86-64 here), so the kernel's frame-pointer walk, which starts at rbp,
 * starts at the caller's frame and reports the grand-caller next: the
 * caller is lost.
 *
 *   usage: leaf-frameless [SECONDS [indirect]]   (default 2)
 *
 * With "indirect", outer calls middle through a function pointer (call
 * *%rax): the call-site leaf fix (prof record --leaf-fix callsite) cannot
 * name middle then; the stack one can.
 *
 * Nearly every sample is in
 *   main;outer;middle;spin_leaf
 * and with the caller lost it would read main;outer;spin_leaf. Prints
 * "ready" on stderr, runs SECONDS of wall time, exits 0.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duty-cycle.h"

static volatile uint64_t sink;

/* Registers only: no stack, so no frame. About 50 µs per call. */
NOINLINE static uint64_t spin_leaf(uint64_t x)
{
	for (int i = 0; i < 20000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

NOINLINE static uint64_t middle(uint64_t x)
{
	return spin_leaf(x) + 1;
}

/* Set by main: middle, through a pointer the compiler cannot see through. */
static uint64_t (*volatile indirect_middle)(uint64_t);

NOINLINE static uint64_t outer(uint64_t x)
{
	if (indirect_middle)
		return indirect_middle(x) * 3;
	return middle(x) * 3;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	uint64_t end, x = 1;

	if (secs <= 0 || (argc > 2 && strcmp(argv[2], "indirect"))) {
		fprintf(stderr, "usage: leaf-frameless [SECONDS [indirect]]\n");
		return 2;
	}
	if (argc > 2)
		indirect_middle = middle;
	end = clock_ns(CLOCK_MONOTONIC) + (uint64_t)(secs * 1e9);
	fprintf(stderr, "ready\n");
	while (clock_ns(CLOCK_MONOTONIC) < end)
		for (int i = 0; i < 20; i++)
			x = outer(x);
	sink = x;
	return 0;
}
