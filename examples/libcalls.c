/*
 * libcalls.c: a loop over the vdso's clocks and a few libc functions, for
 * the tests of how frames in them are named (vdso symbols, libc aliases).
 *
 *   usage: libcalls [SECONDS]      (default 2; fractions allowed)
 *
 * One thread; each round calls clock_gettime(CLOCK_MONOTONIC) and
 * gettimeofday (both answered in the vdso, no system call), malloc, memcpy,
 * strlen and free on a 16 KB block. A CPU profile shows, besides
 * libcalls_round, the vdso's __vdso_clock_gettime and __vdso_gettimeofday
 * and libc's malloc, free, strlen and memcpy (under the names of their
 * CPU-specific versions, e.g. __memmove_avx_unaligned_erms).
 * Prints "ready PID" on stderr before the loop, and at the end the number of
 * rounds on stdout.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 16384

static char src[BLOCK];
static volatile size_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void libcalls_round(size_t len)
{
	struct timeval tv;
	char *p;
	int i;

	for (i = 0; i < 16; i++) {
		gettimeofday(&tv, NULL);
		sink += (size_t)tv.tv_usec + now_ns();
	}
	p = malloc(len + 1);
	if (!p)
		abort();
	memcpy(p, src, len);
	p[len] = '\0';
	sink += strlen(p);
	free(p);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? strtod(argv[1], NULL) : 2.0;
	uint64_t end, rounds = 0;

	if (!(seconds > 0 && seconds < 86400)) {
		fprintf(stderr, "usage: libcalls [SECONDS]\n");
		return 2;
	}
	memset(src, 'x', sizeof(src));
	fprintf(stderr, "ready %d\n", (int)getpid());
	end = now_ns() + (uint64_t)(seconds * 1e9);
	while (now_ns() < end) {
		libcalls_round(BLOCK - 1 - (rounds & 255));
		rounds++;
	}
	printf("%llu\n", (unsigned long long)rounds);
	return 0;
}
