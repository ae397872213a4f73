/*
 * hotloop.c: one function with one known hot inner loop, for `prof annotate`
 * (the demo of docs/prof-annotate.md and tests/cli/t0530-annotate.bats).
 *
 *   usage: hotloop [SECONDS]      (default 2; fractions allowed)
 *
 * main() calls hot_function() over a 4096-element table until SECONDS have
 * passed, then prints the checksum on stdout and exits 0. A CPU profile
 * must show nearly all samples in hot_function, and nearly all of those on
 * the instructions of its inner loop (the line marked HOT below): the loop
 * runs 4096 times per call, the code around it once.
 *
 * Built -O2 -g -fno-omit-frame-pointer (the Makefile's rule for this file),
 * as services are: optimized code with DWARF line info. The loop carries a
 * dependency from one iteration to the next (sum feeds the next step), so
 * the compiler cannot vectorize it or fold it away, and the instructions
 * it compiles to are a few dozen bytes between one backward jump and its
 * target.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TABLE_LEN 4096

static uint32_t table[TABLE_LEN];

/* The function `prof annotate` looks at. noinline, noclone: it must keep its
 * own symbol (not hot_function.constprop.0); static: that symbol is in
 * .symtab only (gone when stripped). */
__attribute__((noinline, noclone)) static uint64_t hot_function(const uint32_t *v, size_t n,
							uint64_t seed)
{
	uint64_t sum = seed;

	for (size_t i = 0; i < n; i++)
		sum = (sum ^ v[i]) * 0x100000001b3ull + (sum >> 29); /* HOT */
	return sum;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? strtod(argv[1], NULL) : 2.0;
	uint64_t end, sum = 1;
	size_t i;

	if (!(seconds > 0 && seconds < 86400)) {
		fprintf(stderr, "usage: hotloop [SECONDS]\n");
		return 2;
	}
	for (i = 0; i < TABLE_LEN; i++)
		table[i] = (uint32_t)(i * 2654435761u);
	end = now_ns() + (uint64_t)(seconds * 1e9);
	while (now_ns() < end)
		sum = hot_function(table, TABLE_LEN, sum);
	printf("%llu\n", (unsigned long long)sum);
	return 0;
}
