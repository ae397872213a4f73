/*
 * recurse.c: a call chain deeper than the kernel's limit on call chains
 * (kernel.perf_event_max_stack, 127 by default), built with frame pointers,
 * for the tests of truncated stacks.
 *
 *   usage: recurse [SECONDS] [DEPTH]   (default 2 s, depth 200)
 *
 * Every sample is in main;descend;descend;...(DEPTH times);bottom. With
 * frame pointers the kernel stops after 127 frames: the stack must end in
 * a [truncated] root, not be re-rooted at some descend frame. The dwarf
 * unwinder has no such limit. Prints "ready" on stderr, runs SECONDS of
 * wall time, exits 0.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "duty-cycle.h"

static volatile uint64_t sink;

NOINLINE static uint64_t bottom(uint64_t x)
{
	volatile uint64_t v = x; /* a stack slot: bottom gets a frame */

	for (int i = 0; i < 20000; i++)
		v = v * 6364136223846793005ull + 1442695040888963407ull;
	return v;
}

NOINLINE static uint64_t descend(int depth, uint64_t x)
{
	if (depth <= 1)
		return bottom(x) + 1;
	return descend(depth - 1, x) + 1; /* not a tail call: the frame stays */
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	int depth = argc > 2 ? atoi(argv[2]) : 200;
	uint64_t end, x = 1;

	if (secs <= 0 || depth < 1 || depth > 100000) {
		fprintf(stderr, "usage: recurse [SECONDS] [DEPTH]\n");
		return 2;
	}
	end = clock_ns(CLOCK_MONOTONIC) + (uint64_t)(secs * 1e9);
	fprintf(stderr, "ready\n");
	while (clock_ns(CLOCK_MONOTONIC) < end)
		x = descend(depth, x);
	sink = x;
	return 0;
}
