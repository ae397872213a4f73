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
 * the child is renamed; both run SECONDS from the start, then each prints
 * "cpu NAME SECONDS", the CPU it used (tests compare sample shares with
 * it: on an overloaded machine a duty cycle can fall short); the parent
 * reaps the child and exits 0 (1 if the child failed). The child gets SIGTERM if
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

#include "duty-cycle.h"

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
	/* What it really ran: tests compare sample shares with it. */
	fprintf(stderr, "cpu forker-child %.3f\n", (double)clock_ns(CLOCK_THREAD_CPUTIME_ID) / 1e9);
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
	fprintf(stderr, "cpu forker-parent %.3f\n", (double)clock_ns(CLOCK_THREAD_CPUTIME_ID) / 1e9);
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR) {
			perror("forker: waitpid");
			return 1;
		}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
