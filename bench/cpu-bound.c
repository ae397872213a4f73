/*
 * cpu-bound.c: the benchmark workload. A fixed amount of CPU work split over
 * a few threads (2 by default), so that its elapsed time measures how much a
 * profiler slows its target down.
 *
 *   usage: cpu-bound [-t THREADS] [-n LEAVES] [-d DELAY] [-o LOG [-L LABEL]]
 *
 * Each thread (named cpu-1, cpu-2, ...) makes LEAVES (default 750000) calls
 * into a random walk of three mutually recursive functions, 1 to 8 deep,
 * each ending in burn(), about 3 µs of xorshift rounds: about 2.5 s per
 * thread here, and some 10,000 distinct stacks of realistic depth, so the
 * size and report speed of a recording are not those of a single stack. The
 * walk is seeded per thread: every run does the same work.
 *
 * -d DELAY sleeps DELAY seconds before the timed work, so that a profiler
 * can attach (prof record -p PID) first; "ready PID" goes to stderr before
 * that sleep. When the work is done, the elapsed wall time of the timed part
 * alone goes to stdout as "elapsed SECONDS" and, with -o, is also appended
 * to LOG as "LABEL SECONDS" (for scripts that run it under hyperfine, which
 * throws stdout away).
 *
 * Built by the bench scripts (bench/lib.sh) with the examples' flags:
 * -O1 -g -fno-omit-frame-pointer -fno-inline -pthread.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define BURN_ITERS 2000 /* one burn(): about 3 µs */
#define MAX_DEPTH 8
#define MAX_THREADS 64

static long leaves = 750000;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * xorshift rounds through a volatile stack slot: the volatile keeps the loop
 * from being optimized away, the stack slot makes gcc give the function a
 * frame pointer, so frame-pointer unwinding keeps its caller.
 */
NOINLINE static uint64_t burn(uint64_t seed)
{
	volatile uint64_t v = seed | 1;
	uint64_t x = v;

	for (int i = 0; i < BURN_ITERS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	v = x;
	return v;
}

/* The walk: each level picks the next function from two bits of the path. */
NOINLINE static uint64_t walk_a(uint64_t path, int depth);
NOINLINE static uint64_t walk_b(uint64_t path, int depth);
NOINLINE static uint64_t walk_c(uint64_t path, int depth);

static uint64_t step(uint64_t path, int depth)
{
	if (depth == 0)
		return burn(path);
	switch (path & 3) {
	case 0:
	case 1:
		return walk_a(path >> 2, depth - 1);
	case 2:
		return walk_b(path >> 2, depth - 1);
	default:
		return walk_c(path >> 2, depth - 1);
	}
}

NOINLINE static uint64_t walk_a(uint64_t path, int depth)
{
	return step(path, depth) + 1;
}

NOINLINE static uint64_t walk_b(uint64_t path, int depth)
{
	return step(path, depth) + 2;
}

NOINLINE static uint64_t walk_c(uint64_t path, int depth)
{
	return step(path, depth) + 3;
}

NOINLINE static void *worker(void *arg)
{
	uint64_t rnd = 0x9e3779b97f4a7c15ull * ((uintptr_t)arg + 1), sum = 0;
	char name[16];
	long i;

	snprintf(name, sizeof(name), "cpu-%d", (int)(uintptr_t)arg + 1);
	pthread_setname_np(pthread_self(), name);
	for (i = 0; i < leaves; i++) {
		rnd ^= rnd << 13;
		rnd ^= rnd >> 7;
		rnd ^= rnd << 17;
		sum += step(rnd >> 4, 1 + (int)(rnd % MAX_DEPTH));
	}
	return (void *)(uintptr_t)sum;
}

static void usage(void)
{
	fprintf(stderr, "usage: cpu-bound [-t THREADS] [-n LEAVES] [-d DELAY] [-o LOG [-L LABEL]]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *log = NULL, *label = "run";
	pthread_t th[MAX_THREADS];
	int i, opt, threads = 2;
	double delay = 0, t0, elapsed;
	char *end;

	while ((opt = getopt(argc, argv, "t:n:d:o:L:")) != -1) {
		switch (opt) {
		case 't':
			threads = (int)strtol(optarg, &end, 10);
			if (*end || threads < 1 || threads > MAX_THREADS)
				usage();
			break;
		case 'n':
			leaves = strtol(optarg, &end, 10);
			if (*end || leaves < 1)
				usage();
			break;
		case 'd':
			delay = strtod(optarg, &end);
			if (*end || delay < 0)
				usage();
			break;
		case 'o':
			log = optarg;
			break;
		case 'L':
			label = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();

	fprintf(stderr, "ready %d\n", (int)getpid());
	if (delay > 0) {
		struct timespec ts = {(time_t)delay, (long)((delay - (double)(time_t)delay) * 1e9)};

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	t0 = now_s();
	for (i = 0; i < threads; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i)) {
			perror("cpu-bound: pthread_create");
			return 1;
		}
	for (i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	elapsed = now_s() - t0;
	printf("elapsed %.4f\n", elapsed);
	if (log) {
		FILE *f = fopen(log, "a");

		if (!f || fprintf(f, "%s %.4f\n", label, elapsed) < 0 || fclose(f)) {
			perror("cpu-bound: cannot append to log");
			return 1;
		}
	}
	return 0;
}
