/*
 * threads.c: named threads doing known, different amounts of CPU work in
 * distinct call chains, for the demo and the end-to-end tests.
 *
 *   usage: threads [SECONDS [ALPHA,BETA,POOL]]
 *
 * SECONDS defaults to 3 (fractions allowed); ALPHA,BETA,POOL are the shares
 * of a CPU, in percent, that alpha, beta and each pool thread burn
 * (default 40,20,10; each 0 to 100). A share of 0 never calls the thread's
 * burn function, so that frame is absent from the profile: two runs with
 * different shares make a known differential profile.
 *
 * Threads and what a CPU profile of this program must show (default shares):
 *   main     waits in pthread_join: (almost) no samples
 *   alpha    40% of one CPU: alpha_thread;alpha_outer;alpha_inner;burn_alpha
 *   beta     20% of one CPU: beta_thread;beta_outer;burn_beta
 *   pool-1   10% of one CPU: pool_thread;pool_work;pool_burn
 *   pool-2   10% of one CPU: pool_thread;pool_work;pool_burn
 * so the sample shares are alpha:beta:pool-1:pool-2 = 4:2:1:1 (50%, 25%,
 * 12.5%, 12.5% of the samples), nearly all of them in burn_* / pool_burn.
 *
 * The shares hold by construction, not by contention: every thread runs a
 * 10 ms duty cycle, spends its share of each slice of its own CPU time
 * (CLOCK_THREAD_CPUTIME_ID, so being preempted doesn't shrink it) and sleeps
 * the rest. All together they want 0.8 of a CPU, which even one CPU can give
 * (a machine loaded by other work can starve them, and then a thread with a
 * bigger share completes fewer slices: the shares move).
 *
 * Once every thread has its name, prints "ready PID" on stderr, so a test
 * can attach (prof record -p PID) after that line; then runs SECONDS more;
 * at exit prints "cpu NAME SECONDS", the CPU time each worker really used,
 * on stderr, and exits 0. Nothing is printed on stdout.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "duty-cycle.h"

static pthread_barrier_t named; /* all threads named: print "ready" */
static uint64_t run_ns; /* how long each thread works after "ready" */
static unsigned alpha_pct = 40, beta_pct = 20, pool_pct = 10; /* of a CPU */

/*
 * The burn functions: xorshift rounds through a volatile stack slot. The
 * volatile keeps the loop from being optimized away; the stack slot makes gcc
 * give the function a frame pointer (gcc omits it in leaf functions that
 * don't touch the stack, even with -fno-omit-frame-pointer, and frame-pointer
 * unwinding then loses the caller). They differ in their shift constants so
 * no pass can merge them.
 */
NOINLINE static void burn_alpha(void)
{
	volatile uint64_t v = 1;
	uint64_t x = v;

	for (int i = 0; i < BURN_ITERS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	v = x;
}

NOINLINE static void burn_beta(void)
{
	volatile uint64_t v = 3;
	uint64_t x = v;

	for (int i = 0; i < BURN_ITERS; i++) {
		x ^= x << 11;
		x ^= x >> 9;
		x ^= x << 19;
	}
	v = x;
}

NOINLINE static void pool_burn(void)
{
	volatile uint64_t v = 5;
	uint64_t x = v;

	for (int i = 0; i < BURN_ITERS; i++) {
		x ^= x << 7;
		x ^= x >> 11;
		x ^= x << 23;
	}
	v = x;
}

NOINLINE static void alpha_inner(uint64_t busy_ns)
{
	SPIN_CPU(busy_ns, burn_alpha());
}

NOINLINE static void alpha_outer(uint64_t until)
{
	DUTY_CYCLE(until, if (alpha_pct) alpha_inner(SLICE_NS * alpha_pct / 100));
}

NOINLINE static void beta_outer(uint64_t until)
{
	DUTY_CYCLE(until, if (beta_pct) SPIN_CPU(SLICE_NS * beta_pct / 100, burn_beta()));
}

NOINLINE static void pool_work(uint64_t until)
{
	DUTY_CYCLE(until, if (pool_pct) SPIN_CPU(SLICE_NS * pool_pct / 100, pool_burn()));
}

/* CPU time each worker used, printed at exit ("cpu alpha 1.203"): the
 * tests compare the profile's shares with what the threads really used,
 * which a loaded machine can move away from the designed shares. */
enum { ALPHA, BETA, POOL1, POOL2, NWORKERS };
static const char *const worker_names[NWORKERS] = {"alpha", "beta", "pool-1", "pool-2"};
static uint64_t worker_cpu_ns[NWORKERS];

static void note_cpu(int worker)
{
	worker_cpu_ns[worker] = clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static void name_self(const char *name)
{
	pthread_setname_np(pthread_self(), name);
	pthread_barrier_wait(&named);
}

static void *alpha_thread(void *arg)
{
	(void)arg;
	name_self("alpha");
	alpha_outer(clock_ns(CLOCK_MONOTONIC) + run_ns);
	note_cpu(ALPHA);
	return NULL;
}

static void *beta_thread(void *arg)
{
	(void)arg;
	name_self("beta");
	beta_outer(clock_ns(CLOCK_MONOTONIC) + run_ns);
	note_cpu(BETA);
	return NULL;
}

static void *pool_thread(void *arg)
{
	int worker = *(const int *)arg;

	name_self(worker_names[worker]);
	pool_work(clock_ns(CLOCK_MONOTONIC) + run_ns);
	note_cpu(worker);
	return NULL;
}

/* "40,20,10" into the shares; 0 when malformed. */
static int parse_shares(const char *s)
{
	unsigned a, b, p;
	char tail;

	if (sscanf(s, "%u,%u,%u%c", &a, &b, &p, &tail) != 3 || a > 100 || b > 100 || p > 100)
		return 0;
	alpha_pct = a;
	beta_pct = b;
	pool_pct = p;
	return 1;
}

int main(int argc, char **argv)
{
	static const int pools[2] = {POOL1, POOL2};
	pthread_t th[4];
	double secs = 3;
	char *end;
	int i, n = 0;

	if (argc > 3 || (argc >= 2 && ((secs = strtod(argv[1], &end)) <= 0 || *end)) ||
	    (argc == 3 && !parse_shares(argv[2]))) {
		fprintf(stderr, "usage: threads [SECONDS [ALPHA,BETA,POOL]]\n");
		return 2;
	}
	run_ns = (uint64_t)(secs * 1e9);
	pthread_setname_np(pthread_self(), "main");
	pthread_barrier_init(&named, NULL, 5);
	if (pthread_create(&th[n++], NULL, alpha_thread, NULL) ||
	    pthread_create(&th[n++], NULL, beta_thread, NULL) ||
	    pthread_create(&th[n++], NULL, pool_thread, (void *)&pools[0]) ||
	    pthread_create(&th[n++], NULL, pool_thread, (void *)&pools[1])) {
		perror("threads: pthread_create");
		return 1;
	}
	pthread_barrier_wait(&named);
	fprintf(stderr, "ready %d\n", (int)getpid());
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < NWORKERS; i++)
		fprintf(stderr, "cpu %s %.6f\n", worker_names[i], worker_cpu_ns[i] / 1e9);
	return 0;
}
