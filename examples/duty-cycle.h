/* duty-cycle.h: what every example workload shares: clocks, and burning a
 * known share of CPU per 10 ms slice measured in the thread's own CPU time,
 * so the shares a profile shows hold by construction (see threads.c). */
#ifndef EXAMPLES_DUTY_CYCLE_H
#define EXAMPLES_DUTY_CYCLE_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))
#define SLICE_NS 10000000ull /* duty-cycle period: 10 ms */
#define BURN_ITERS 4000 /* one burn call: about 10 µs */


static inline uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void sleep_until(uint64_t mono_ns)
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

#endif
