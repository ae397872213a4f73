/* perf-events.c: event selection with fallbacks (see perf-events.h). */
#include "perf-events.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static void fill(struct perf_event_attr *a, uint32_t type, uint64_t config, uint64_t freq)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->freq = 1;
	a->sample_freq = freq;
	a->sample_type = SAMPLE_TYPE;
	a->sample_id_all = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->mmap = 1; /* mmap records exist only with this; mmap2 extends them */
	a->mmap2 = 1;
	a->task = 1;
	a->inherit = 1;
	a->disabled = 0;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->exclude_hv = 1;
	a->exclude_idle = 1;
	a->watermark = 1;
}

static int try_open(struct perf_event_attr *a)
{
	int fd = sys_perf_event_open(a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int event_choice__probe(struct event_choice *ev, uint64_t freq, int enable_on_exec)
{
	static const struct {
		uint32_t type;
		uint64_t config;
		const char *name;
	} events[] = {
		{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles"},
		{PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock"},
	};
	size_t i;
	int err = -ENOENT;

	memset(ev, 0, sizeof(*ev));
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		fill(&ev->attr, events[i].type, events[i].config, freq);
		err = try_open(&ev->attr);
		if (err == -EACCES || err == -EPERM) {
			/* Kernel sampling refused (perf_event_paranoid >= 2 without
			 * CAP_PERFMON): keep the user part of every stack. */
			ev->kernel_error = -err;
			ev->attr.exclude_kernel = 1;
			ev->attr.exclude_callchain_kernel = 1;
			err = try_open(&ev->attr);
			if (!err)
				ev->user_only = 1;
		}
		if (!err) {
			ev->name = events[i].name;
			ev->fell_back = i > 0;
			ev->attr.enable_on_exec = enable_on_exec ? 1 : 0;
			ev->attr.disabled = enable_on_exec ? 1 : 0;
			return 0;
		}
		if (err == -EINVAL && i + 1 == sizeof(events) / sizeof(events[0]))
			break;
	}
	return err;
}

int event_choice__user_stack(struct event_choice *ev, uint64_t regs_mask, uint32_t stack_size,
			     int no_user_chain)
{
	struct perf_event_attr a = ev->attr;
	int err;

	a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a.sample_regs_user = regs_mask;
	a.sample_stack_user = stack_size;
	a.exclude_callchain_user = no_user_chain ? 1 : 0;
	a.disabled = 0;
	a.enable_on_exec = 0;
	err = try_open(&a);
	if (err)
		return err;
	a.disabled = ev->attr.disabled;
	a.enable_on_exec = ev->attr.enable_on_exec;
	ev->attr = a;
	return 0;
}
