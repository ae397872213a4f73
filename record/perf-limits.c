/* perf-limits.c: what the kernel's perf settings allow (sysctls read from
 * /proc/sys), and the hint prof gives when it is refused perf events. */
#include "engine.h"

#include <stdio.h>

uint64_t perf_read_sysctl(const char *path, uint64_t dflt)
{
	FILE *f = fopen(path, "re");
	unsigned long long v;

	if (!f)
		return dflt;
	if (fscanf(f, "%llu", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

long perf_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	long v = 2;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

const char *perf_permission_hint(void)
{
	static char hint[400];

	snprintf(hint, sizeof(hint),
		 "kernel.perf_event_paranoid is %ld: run prof as root, give it CAP_PERFMON "
		 "(and CAP_SYS_PTRACE for other users' processes), or lower it with "
		 "'sysctl kernel.perf_event_paranoid=1'",
		 perf_paranoid());
	return hint;
}
