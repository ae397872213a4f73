/* perf-events.h: choosing and opening the sampling event (cpu-clock, or
 * cycles where a hardware PMU exists) for one thread on one CPU. */
#ifndef PROF_PERF_EVENTS_H
#define PROF_PERF_EVENTS_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/types.h>

#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		     PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN)

struct event_choice {
	struct perf_event_attr attr;
	const char *name;   /* "cycles" or "cpu-clock" */
	int fell_back;      /* 1: cycles unavailable, cpu-clock used */
	int user_only;      /* 1: kernel sampling refused, exclude_kernel set */
	int kernel_error;   /* errno that made us drop kernel sampling */
};

/* Fills `ev` for sampling at `freq` Hz with call chains and side-band
 * records (comm, mmap2, task). Probes which event works by opening one on
 * the calling thread (pid 0, any CPU) and closing it. 0 or -errno (from the
 * last attempt). */
int event_choice__probe(struct event_choice *ev, uint64_t freq, int enable_on_exec);

/* Adds the user registers in `regs_mask` (PERF_SAMPLE_REGS_USER) and a copy
 * of `stack_size` bytes of user stack (PERF_SAMPLE_STACK_USER) to every
 * sample; `no_user_chain`: the kernel skips its frame-pointer walk of the
 * user stack. Probes the result like event_choice__probe. 0 or -errno. */
int event_choice__user_stack(struct event_choice *ev, uint64_t regs_mask, uint32_t stack_size,
			     int no_user_chain);

int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			unsigned long flags);

#endif
