/* alloc-loop.c: a periodic allocation loop with a USDT probe per
 * allocation, for the bias of probe sampling (--every, --every-bytes,
 * windows): tests/cli/t0615-alloc-sampling.bats and bench/alloc-bias.sh.
 *
 *   alloc-loop [-p PERIOD] [-r RATE] [-s SMALL] [-b BIG] [-j MS]
 *
 * Allocates (malloc, touched, freed) PERIOD - 1 blocks of SMALL bytes
 * (class 0), then one of BIG bytes (class 1), over and over (default
 * PERIOD 4, SMALL 16, BIG 4096), each announced by alloc_demo:alloc
 * (arg0 = class, arg1 = size). Paced at RATE allocations a second
 * (default 20000) on the clock, so that a probe's trap (5-20 µs on a
 * loaded host) slows neither the count nor the class mix: the loop
 * catches up after a trap.
 * With -j MS, a job that runs once a second: for the first MS ms of each
 * second (of the monotonic clock) every allocation is of class 2 (64
 * bytes) instead.
 * Prints "ready" on stderr, then on SIGUSR1 and at SIGTERM (then exits)
 * "t_ns=T n0=N0 n1=N1 b0=B0 b1=B1 n2=N2": the monotonic time and its own
 * counts of allocations and bytes per class so far. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop, report;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		report = 1;
	else
		stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) static void alloc_one(int cls, long size)
{
	char *p = malloc((size_t)size);

	DTRACE_PROBE2(alloc_demo, alloc, cls, size);
	if (p) {
		p[0] = (char)cls;
		__asm__ volatile("" : : "r"(p) : "memory");
	}
	free(p);
}

static void print_counts(const unsigned long long *n, const unsigned long long *b)
{
	fprintf(stderr, "t_ns=%llu n0=%llu n1=%llu b0=%llu b1=%llu n2=%llu\n",
		(unsigned long long)now_ns(), n[0], n[1], b[0], b[1], n[2]);
}

int main(int argc, char **argv)
{
	long period = 4, rate = 20000, small = 16, big = 4096, job_ms = 0;
	unsigned long long n[3] = {0, 0, 0}, b[3] = {0, 0, 0};
	uint64_t next, step;
	int c;

	while ((c = getopt(argc, argv, "p:r:s:b:j:")) != -1) {
		long v = atol(optarg);

		if (v < 1 || (c == 'p' && v < 2)) {
			fprintf(stderr, "alloc-loop: bad -%c %s\n", c, optarg);
			return 2;
		}
		if (c == 'p')
			period = v;
		else if (c == 'r')
			rate = v;
		else if (c == 's')
			small = v;
		else if (c == 'b')
			big = v;
		else if (c == 'j')
			job_ms = v;
		else
			return 2;
	}
	signal(SIGUSR1, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	step = 1000000000ULL / (uint64_t)rate;
	fprintf(stderr, "ready\n");
	next = now_ns();
	for (unsigned long long i = 0; !stop; i++) {
		int cls = i % (unsigned long long)period == (unsigned long long)period - 1;
		long size = cls ? big : small;
		uint64_t t;

		while ((t = now_ns()) < next)
			;
		next += step;
		if (job_ms && t % 1000000000ULL < (uint64_t)job_ms * 1000000) {
			cls = 2;
			size = 64;
		}
		alloc_one(cls, size);
		n[cls]++;
		b[cls] += (unsigned long long)size;
		if (report) {
			report = 0;
			print_counts(n, b);
		}
	}
	print_counts(n, b);
	return 0;
}
