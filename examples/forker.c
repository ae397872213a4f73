/*
 * forker.c: a process that forks a child, for the tests of recording a
 * command "and its children" (prof record -- CMD follows forks).
 *
 *   usage: forker [SECONDS]      (default 3; fractions allowed)
 *
 * Processes and what a CPU profile of `prof record -- forker` must show:
 *   forker-parent  the parent (its main thread renamed): 25% of one CPU in
 *                  main;parent_work;burn_parent.
 *   forker-child   the forked child, renamed right after fork: 50% of one
 *                  CPU in main;child_main;child_work;burn_child.
 * so forker-child:forker-parent = 2:1 (67% and 33% of the samples). Before
 * its rename the child runs for a few µs as "forker-parent": no samples.
 * Each spends its share of every 10 ms slice in its own CPU time (see
 * SPIN_CPU), so the shares hold on a busy machine; 0.75 of a CPU together.
 *
 * Prints "child PID" and then "ready PID" (the parent's pid) on stderr once
 * the child is renamed; both run SECONDS from the start, the parent reaps
 * the child and exits 0 (1 if the child failed). The child gets SIGTERM if
 * the parent dies first.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define SLICE_NS 10000000ull /* duty-cycle period: 10 ms */
#define BURN_ITERS 4000 /* one burn call: about 10 µs */


static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t mono_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(mono_ns / 1000000000ull),
		.tv_nsec = (long)(mono_ns % 1000000000ull),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/*
 * Calls BURN until this thread has used busy_ns of CPU. Spins on the cheap
 * (vDSO) monotonic clock and reads the thread's CPU clock, a system call,
 * only when the wall-clock budget is spent, so nearly all samples land in
 * BURN. A macro so that BURN's caller is the function that uses it.
 */
#define SPIN_CPU(busy_ns, BURN)                                                    \
	do {                                                                       \
		uint64_t cpu0_ = clock_ns(CLOCK_THREAD_CPUTIME_ID);                \
		uint64_t left_ = (busy_ns);                                        \
		while (left_ > 0) {                                                \
			uint64_t end_ = clock_ns(CLOCK_MONOTONIC) + left_;         \
			while (clock_ns(CLOCK_MONOTONIC) < end_)                   \
				BURN;                                              \
			uint64_t used_ = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0_; \
			left_ = used_ >= (busy_ns) ? 0 : (busy_ns) - used_;        \
		}                                                                  \
	} while (0)

/*
 * Runs the duty cycle until the monotonic time `until`: the statement WORK
 * (a SPIN_CPU) at the start of each slice, then sleep to the slice's end. A
 * thread that fell more than 100 slices (1 s) behind (stopped, starved) resyncs
 * instead of burning the backlog at 100%.
 */
#define DUTY_CYCLE(until, WORK)                                                    \
	do {                                                                       \
		uint64_t t_ = clock_ns(CLOCK_MONOTONIC), until_ = (until);         \
		while (t_ < until_) {                                              \
			WORK;                                                      \
			t_ += SLICE_NS;                                            \
			uint64_t now_ = clock_ns(CLOCK_MONOTONIC);                 \
			if (now_ > t_ + 100 * SLICE_NS)                            \
				t_ = now_;                                         \
			sleep_until(t_ < until_ ? t_ : until_);                    \
		}                                                                  \
	} while (0)
/*
 * xorshift rounds through a volatile stack slot: the volatile keeps the loop
 * from being optimized away, the stack slot makes gcc give the function a
 * frame pointer (gcc omits it in leaf functions that don't touch the stack,
 * even with -fno-omit-frame-pointer, and frame-pointer unwinding then loses
 * the caller). They differ in their shift constants so no pass can merge
 * them.
 */
NOINLINE static void burn_parent(void)
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

NOINLINE static void burn_child(void)
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

NOINLINE static void parent_work(uint64_t until)
{
	DUTY_CYCLE(until, SPIN_CPU(SLICE_NS * 25 / 100, burn_parent()));
}

NOINLINE static void child_work(uint64_t until)
{
	DUTY_CYCLE(until, SPIN_CPU(SLICE_NS * 50 / 100, burn_child()));
}

/* The child's whole life; returns its exit status. */
NOINLINE static int child_main(uint64_t until, int ready_fd)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1) /* the parent died before PDEATHSIG was set */
		return 1;
	pthread_setname_np(pthread_self(), "forker-child");
	if (write(ready_fd, "r", 1) != 1)
		return 1;
	close(ready_fd);
	child_work(until);
	return 0;
}

int main(int argc, char **argv)
{
	int fds[2], status;
	double secs = 3;
	uint64_t until;
	char *end, c;
	pid_t child;

	if (argc > 2 || (argc == 2 && ((secs = strtod(argv[1], &end)) <= 0 || *end))) {
		fprintf(stderr, "usage: forker [SECONDS]\n");
		return 2;
	}
	until = clock_ns(CLOCK_MONOTONIC) + (uint64_t)(secs * 1e9);
	pthread_setname_np(pthread_self(), "forker-parent");
	if (pipe(fds)) {
		perror("forker: pipe");
		return 1;
	}
	fflush(stderr);
	child = fork();
	if (child < 0) {
		perror("forker: fork");
		return 1;
	}
	if (child == 0) {
		close(fds[0]);
		_exit(child_main(until, fds[1]));
	}
	close(fds[1]);
	if (read(fds[0], &c, 1) != 1) {
		fprintf(stderr, "forker: the child died at start\n");
		waitpid(child, NULL, 0);
		return 1;
	}
	close(fds[0]);
	fprintf(stderr, "child %d\nready %d\n", (int)child, (int)getpid());

	parent_work(until);
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR) {
			perror("forker: waitpid");
			return 1;
		}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
