/*
 * pingpong.c: the context-switch benchmark workload of `prof record --sched`:
 * pairs of threads passing a token back and forth through a futex, so that
 * every hand-off is a wake-up, a sleep and a context switch, a fixed number
 * of times. Its elapsed time measures how much a scheduler
 * recorder slows down a switch-heavy target.
 *
 *   usage: pingpong [-p PAIRS] [-n ROUNDS] [-d DELAY] [-o LOG [-L LABEL]]
 *
 * Threads (2 x PAIRS, default 25 pairs = 50 threads): pp-a-K and pp-b-K
 * for pair K = 1..PAIRS. pp-a-K hands the token to pp-b-K and sleeps until it
 * comes back, ROUNDS times (default 35000): ROUNDS round trips and 2 x ROUNDS
 * hand-offs per pair, 1.75 million hand-offs with the defaults, each one a
 * futex wake-up of a sleeping thread and a switch-out of the thread that
 * then waits. A scheduler profile must show every thread off CPU in state S
 * nearly all the time, switched out in
 *   pp_a_thread;ping_loop;wait_token;[libc syscall]   (pp-a-K)
 *   pp_b_thread;pong_loop;wait_token;[libc syscall]   (pp-b-K)
 * (futex_wait in the kernel; futex_call, the wrapper around syscall(2),
 * shows only with a DWARF unwinder: libc has no frame pointers), and about
 * one switch-out in eight in state R in
 *   ...;ping_loop;pass_token;[libc syscall]   (or pong_loop)
 * where the thread just woken preempts its waker on the way out of the
 * wake-up system call. Each pair has one thread runnable at a time, mostly:
 * about 25 runnable threads for the CPUs.
 * Measured on the 2-CPU development VM: 3.0-3.3 s, and `perf stat -e
 * context-switches` counts 1.83-1.91 million switches (a few more than the
 * hand-offs: switches to and from the idle task, preemptions), the "about
 * 1.9M switches" of the issue that motivated `prof record --sched`. A futex,
 * not a pipe: one system call per wait and per wake-up, nothing copied, so
 * nearly all of the time is the switches themselves.
 *
 * -d DELAY sleeps DELAY seconds (fractions allowed) after every thread is
 * named and before the timed part, so that a recorder can attach
 * (prof record -p PID) first: "ready PID" goes to stderr before that sleep.
 * At the end the elapsed wall time of the timed part alone (all pairs
 * released at once, until the last one is done) goes to stdout:
 *   pingpong: 50 threads, 875000 round trips, 1750000 hand-offs, 3.076 s
 * and, with -o, is also appended to LOG as "LABEL SECONDS" (for scripts that
 * run it under hyperfine, which throws stdout away). Exits 0.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE  __attribute__((noinline))
#define MAX_PAIRS 1024

/* One pair's token: 0, pp-a-K's turn; 1, pp-b-K's. Alone in its cache line,
 * so pairs don't slow each other down through false sharing. */
struct pair {
	_Alignas(64) atomic_uint turn;
};

static struct pair pairs[MAX_PAIRS];
static long rounds = 35000;
static pthread_barrier_t named, go; /* all threads named; the timed start */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* libc call wrapper: with frame pointers, the function that calls into libc
 * is lost from stacks (libc has none), so this one is lost and wait_token
 * shows. FUTEX_*_PRIVATE: the futex is not shared with another process. */
NOINLINE static long futex_call(atomic_uint *word, int op, unsigned val)
{
	return syscall(SYS_futex, (unsigned *)word, op, val, NULL, NULL, 0);
}

/* Sleeps until the token is `mine`. */
NOINLINE static void wait_token(atomic_uint *turn, unsigned mine)
{
	unsigned v;

	while ((v = atomic_load_explicit(turn, memory_order_acquire)) != mine)
		futex_call(turn, FUTEX_WAIT_PRIVATE, v);
}

/* Passes the token to the other thread of the pair and wakes it. */
NOINLINE static void pass_token(atomic_uint *turn, unsigned to)
{
	atomic_store_explicit(turn, to, memory_order_release);
	futex_call(turn, FUTEX_WAKE_PRIVATE, 1);
}

NOINLINE static void ping_loop(atomic_uint *turn)
{
	for (long i = 0; i < rounds; i++) {
		pass_token(turn, 1);
		wait_token(turn, 0);
	}
}

NOINLINE static void pong_loop(atomic_uint *turn)
{
	for (long i = 0; i < rounds; i++) {
		wait_token(turn, 1);
		pass_token(turn, 0);
	}
}

static void *pp_a_thread(void *arg)
{
	struct pair *p = arg;
	char name[32]; /* at most "pp-a-1024" */

	snprintf(name, sizeof(name), "pp-a-%d", (int)(p - pairs) + 1);
	pthread_setname_np(pthread_self(), name);
	pthread_barrier_wait(&named);
	pthread_barrier_wait(&go);
	ping_loop(&p->turn);
	return NULL;
}

static void *pp_b_thread(void *arg)
{
	struct pair *p = arg;
	char name[32]; /* at most "pp-a-1024" */

	snprintf(name, sizeof(name), "pp-b-%d", (int)(p - pairs) + 1);
	pthread_setname_np(pthread_self(), name);
	pthread_barrier_wait(&named);
	pthread_barrier_wait(&go);
	pong_loop(&p->turn);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: pingpong [-p PAIRS] [-n ROUNDS] [-d DELAY] [-o LOG [-L LABEL]]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static pthread_t th[2 * MAX_PAIRS];
	const char *log = NULL, *label = "run";
	int i, opt, npairs = 25;
	double delay = 0, t0, elapsed;
	char *end;

	while ((opt = getopt(argc, argv, "p:n:d:o:L:")) != -1) {
		switch (opt) {
		case 'p':
			npairs = (int)strtol(optarg, &end, 10);
			if (*end || npairs < 1 || npairs > MAX_PAIRS)
				usage();
			break;
		case 'n':
			rounds = strtol(optarg, &end, 10);
			if (*end || rounds < 1 || rounds > LONG_MAX / 2)
				usage();
			break;
		case 'd':
			delay = strtod(optarg, &end);
			if (*end || !(delay >= 0))
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
	pthread_barrier_init(&named, NULL, (unsigned)(2 * npairs + 1));
	pthread_barrier_init(&go, NULL, (unsigned)(2 * npairs + 1));
	for (i = 0; i < npairs; i++)
		if (pthread_create(&th[2 * i], NULL, pp_a_thread, &pairs[i]) ||
		    pthread_create(&th[2 * i + 1], NULL, pp_b_thread, &pairs[i])) {
			perror("pingpong: pthread_create");
			return 1;
		}
	pthread_barrier_wait(&named);
	fprintf(stderr, "ready %d\n", (int)getpid());
	if (delay > 0) {
		struct timespec ts = {(time_t)delay, (long)((delay - (double)(time_t)delay) * 1e9)};

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	t0 = now_s();
	pthread_barrier_wait(&go);
	for (i = 0; i < 2 * npairs; i++)
		pthread_join(th[i], NULL);
	elapsed = now_s() - t0;
	printf("pingpong: %d threads, %ld round trips, %ld hand-offs, %.3f s\n", 2 * npairs,
	       npairs * rounds, 2 * npairs * rounds, elapsed);
	if (log) {
		FILE *f = fopen(log, "a");

		if (!f || fprintf(f, "%s %.4f\n", label, elapsed) < 0 || fclose(f)) {
			perror("pingpong: cannot append to log");
			return 1;
		}
	}
	return 0;
}
