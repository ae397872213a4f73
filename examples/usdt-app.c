/* usdt-app.c: a program with its own USDT probes (<sys/sdt.h>) and a plain
 * function called a known number of times, for `prof probes` and
 * `prof record -e usdt:/uprobe:/uretprobe:` (tests/cli/t0600-probes.bats).
 *
 *   usdt-app N            calls tick(i) for i = 0 .. N-1 and exits. Each call
 *                         fires usdt_demo:tick with arguments derived from i
 *                         (below), calls counted_call(i) (returns 2 * i + 1)
 *                         and fires usdt_demo:gated only when its semaphore
 *                         is set (someone is attached).
 *   usdt-app --loop MS    the same, one tick every MS milliseconds, until
 *                         SIGTERM; on SIGUSR1 prints "ticks=T enabled=E
 *                         enabled_ms M" on stderr (E: ticks where the
 *                         semaphore was set; M: the time from the tick
 *                         before each of those to it, the time it was set
 *                         to within a tick).
 *
 * Arguments of usdt_demo:tick for tick i, of several sizes, signed and
 * unsigned, in registers, memory and as a constant:
 *   arg0 = (uint8_t)i   arg1 = (int16_t)-i   arg2 = (int32_t)(1000 * i - 7)
 *   arg3 = (uint64_t)i << 33   arg4 = 42 (constant)   arg5 = (int64_t)-3 * i
 *   (arg5 is read from memory: a volatile local on the stack). */
#define _SDT_HAS_SEMAPHORES 1
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

/* The semaphore of usdt_demo:gated: tracers (and the kernel, for uprobes
 * with a reference counter) increment it while attached. */
unsigned short usdt_demo_gated_semaphore __attribute__((section(".probes"), used));
/* <sys/sdt.h> with semaphores wants one per probe; tick fires regardless. */
unsigned short usdt_demo_tick_semaphore __attribute__((section(".probes"), used));
#define GATED_ENABLED() __builtin_expect(usdt_demo_gated_semaphore != 0, 0)

static volatile sig_atomic_t stop, report;
static unsigned long ticks, enabled;

__attribute__((noinline)) int counted_call(int i)
{
	__asm__ volatile("" ::: "memory");
	return 2 * i + 1;
}

__attribute__((noinline)) static int tick(int i)
{
	volatile int64_t on_stack = (int64_t)-3 * i;
	uint8_t a0 = (uint8_t)i;
	int16_t a1 = (int16_t)-i;
	int32_t a2 = 1000 * i - 7;
	uint64_t a3 = (uint64_t)i << 33;

	DTRACE_PROBE6(usdt_demo, tick, a0, a1, a2, a3, 42, on_stack);
	ticks++;
	if (GATED_ENABLED()) {
		enabled++;
		DTRACE_PROBE2(usdt_demo, gated, i, ticks);
	}
	return counted_call(i);
}

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		report = 1;
	else
		stop = 1;
}

int main(int argc, char **argv)
{
	long sum = 0;

	if (argc == 3 && !strcmp(argv[1], "--loop")) {
		struct timespec ts = {0, atol(argv[2]) * 1000000L};
		struct sigaction sa;
		char line[96];

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGUSR1, &sa, NULL);
		fprintf(stderr, "ready\n");
		struct timespec t;
		double last = 0, enabled_ms = 0;

		for (int i = 0; !stop; i++) {
			sum += tick(i % 1000);
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (GATED_ENABLED() && i)
				enabled_ms += (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6 - last;
			last = (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
			if (report) {
				int n = snprintf(line, sizeof(line), "ticks=%lu enabled=%lu enabled_ms %.1f\n",
						 ticks, enabled, enabled_ms);

				report = 0;
				if (write(2, line, (size_t)n) < 0)
					return 1;
			}
			nanosleep(&ts, NULL);
		}
		return sum < 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: usdt-app N | usdt-app --loop MS\n");
		return 2;
	}
	for (long i = 0, n = atol(argv[1]); i < n; i++)
		sum += tick((int)i);
	printf("ticks=%lu enabled=%lu sum=%ld\n", ticks, enabled, sum);
	return 0;
}
