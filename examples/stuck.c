/* stuck.c: threads in known states, for `prof dump` (tests/cli/t0170-dump.bats):
 *   spinner     spins in spin_forever()                        R
 *   holder      takes `lock` in hold_lock(), then sleeps holding it  S
 *   waiter-N    block on `lock` in wait_for_lock() (N = 0..WAITERS-1)  S
 *   reader      blocked in read() on a pipe in read_pipe()    S
 *   napper      nanosleep() in nap()                          S
 *   cond        pthread_cond_wait() in wait_for_signal()      S
 *   rwwaiter    blocked on `rw` (write-held by holder) in wait_for_rwlock()  S
 * Usage: stuck [WAITERS] (default 4). Prints "ready PID MUTEX RWLOCK" (the
 * locks' addresses) on stderr once
 * every thread was started and the holder holds the locks, then runs until
 * killed. With "churn" as a second argument, a thread is created and one
 * exits every 10 ms (threads appear and vanish during a dump); with
 * "dstate", a thread "vforker" waits uninterruptibly (D) in vfork() for a
 * child that sleeps until killed; with "hostile", the waiters' and the
 * napper's names hold a terminal escape (a target's owner names its
 * threads); with "spin N", N more spinners spin-0..spin-N-1 (1 to 64) that
 * measure their own pauses (bench/dump-pause.sh's oracle, independent of
 * any tool that holds them): each off-CPU gap of its loop (its wall clock
 * less its own CPU clock) less what the kernel counted as its run-queue
 * wait over that gap (/proc/thread-self/schedstat) is time it was not
 * runnable, which for a thread that never sleeps is time held stopped; each
 * one over 2 us is printed as "held TID NS RUNQ_NS END" on stdout, END
 * being CLOCK_MONOTONIC ns when the gap ended (a VM's stolen time and
 * interrupts make gaps too: match them to a tool's own capture times). */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t cond_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t held;
static int pipefd[2];
static volatile unsigned long spins;

__attribute__((noinline)) static void spin_forever(void)
{
	for (;;)
		spins++;
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The second field of schedstat: ns spent runnable, waiting for a CPU
 * (updated when the thread gets one, so exact when it reads its own). */
static uint64_t run_delay_ns(int fd)
{
	char b[128];
	unsigned long long run = 0, delay = 0;
	ssize_t n = pread(fd, b, sizeof(b) - 1, 0);

	if (n <= 0)
		return 0;
	b[n] = 0;
	sscanf(b, "%llu %llu", &run, &delay);
	return delay;
}

/* A spinner that reports the time it was held (see the top of the file). */
__attribute__((noinline)) static void spin_measured(void)
{
	int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	int tid = (int)syscall(SYS_gettid);
	uint64_t w0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	uint64_t d0 = run_delay_ns(fd);

	for (;;) {
		uint64_t w = clock_ns(CLOCK_MONOTONIC), c = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		/* the CPU clock can run a little ahead of the wall clock */
		int64_t off = (int64_t)(w - w0) - (int64_t)(c - c0);

		spins++;
		if (off > 5000) { /* off its CPU: preempted (runnable) or held */
			uint64_t d = run_delay_ns(fd);
			int64_t q = (int64_t)(d - d0);

			if (off > q + 2000) {
				char line[96];
				int len = snprintf(line, sizeof(line), "held %d %llu %llu %llu\n", tid,
						   (unsigned long long)(off - q), (unsigned long long)q,
						   (unsigned long long)w);

				if (write(STDOUT_FILENO, line, (size_t)len) < 0)
					break;
			}
			d0 = d;
			w = clock_ns(CLOCK_MONOTONIC), c = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		}
		w0 = w, c0 = c;
	}
	spin_forever();
}

__attribute__((noinline)) static void hold_lock(void)
{
	pthread_mutex_lock(&lock);
	pthread_rwlock_wrlock(&rw);
	pthread_barrier_wait(&held);
	for (;;)
		sleep(100);
}

__attribute__((noinline)) static void wait_for_lock(void)
{
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
}

__attribute__((noinline)) static void wait_for_rwlock(void)
{
	pthread_rwlock_rdlock(&rw);
	pthread_rwlock_unlock(&rw);
}

__attribute__((noinline)) static void read_pipe(void)
{
	char c;

	while (read(pipefd[0], &c, 1) != 0)
		;
}

__attribute__((noinline)) static void nap(void)
{
	for (;;) {
		struct timespec ts = {100, 0};

		nanosleep(&ts, NULL);
	}
}

/* vfork()'s parent waits, uninterruptibly (D), until its child execs or
 * exits; the child sleeps (a raw syscall: it must not return through the
 * parent's frames) until killed. */
__attribute__((noinline)) static void wait_for_child(void)
{
	pid_t c = vfork();

	if (c == 0) {
		struct timespec ts = {100000, 0};

		syscall(SYS_nanosleep, &ts, NULL);
		_exit(0);
	}
	if (c > 0)
		waitpid(c, NULL, 0);
	for (;;)
		sleep(100);
}

__attribute__((noinline)) static void wait_for_signal(void)
{
	pthread_mutex_lock(&cond_lock);
	for (;;)
		pthread_cond_wait(&cond, &cond_lock);
}

static void *run(void *arg)
{
	const char *role = arg;

	if (!strcmp(role, "spinner"))
		spin_forever();
	else if (!strcmp(role, "measured"))
		spin_measured();
	else if (!strcmp(role, "holder"))
		hold_lock();
	else if (!strcmp(role, "reader"))
		read_pipe();
	else if (!strcmp(role, "napper"))
		nap();
	else if (!strcmp(role, "cond"))
		wait_for_signal();
	else if (!strcmp(role, "rwwaiter"))
		wait_for_rwlock();
	else if (!strcmp(role, "vforker"))
		wait_for_child();
	else
		wait_for_lock();
	return NULL;
}

static void *short_lived(void *arg)
{
	struct timespec ts = {0, 5000000};

	(void)arg;
	nanosleep(&ts, NULL);
	return NULL;
}

static void start(const char *role, const char *name)
{
	pthread_t t;

	if (pthread_create(&t, NULL, run, (void *)role)) {
		perror("pthread_create");
		exit(1);
	}
	pthread_setname_np(t, name); /* at most 15 bytes: the kernel cuts the rest */
}

int main(int argc, char **argv)
{
	int waiters = argc > 1 ? atoi(argv[1]) : 4;
	int churn = argc > 2 && !strcmp(argv[2], "churn");
	int dstate = argc > 2 && !strcmp(argv[2], "dstate");
	int hostile = argc > 2 && !strcmp(argv[2], "hostile");
	int measured = argc > 3 && !strcmp(argv[2], "spin") ? atoi(argv[3]) : 0;
	static char names[2000][24], spin_names[64][16];

	if (waiters < 0 || waiters > 2000 || measured < 0 || measured > 64 || pipe(pipefd)) {
		fprintf(stderr, "usage: stuck [WAITERS (0-2000)] [churn|dstate|hostile|spin N (1-64)]\n");
		return 2;
	}
	pthread_barrier_init(&held, NULL, 2);
	start("holder", "holder");
	pthread_barrier_wait(&held); /* the locks are held from here on */
	start("spinner", "spinner");
	for (int i = 0; i < waiters; i++) {
		snprintf(names[i], sizeof(names[i]), hostile ? "w\033[2J-%d" : "waiter-%d", i);
		start(names[i], names[i]);
	}
	start("reader", "reader");
	start("napper", hostile ? "nap\033[2J-1" : "napper");
	start("cond", "cond");
	start("rwwaiter", "rwwaiter");
	if (dstate)
		start("vforker", "vforker");
	for (int i = 0; i < measured; i++) {
		snprintf(spin_names[i], sizeof(spin_names[i]), "spin-%d", i);
		start("measured", spin_names[i]);
	}
	fprintf(stderr, "ready %d %p %p\n", (int)getpid(), (void *)&lock, (void *)&rw);
	for (;;) {
		/* churn: a thread every 10 ms; else rarely awake, so that a
		 * snapshot finds main asleep (S), as the tests expect */
		struct timespec ts = {churn ? 0 : 1, churn ? 10000000 : 0};

		if (churn) {
			pthread_t t;

			if (!pthread_create(&t, NULL, short_lived, NULL))
				pthread_detach(t);
		}
		nanosleep(&ts, NULL);
	}
}
