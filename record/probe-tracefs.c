/* probe-tracefs.c: uprobes defined in tracefs (uprobe_events), the way
 * prof places its probes when it can, rather than through the uprobe PMU.
 *
 * Why: an event made through the uprobe PMU is a uprobe of its own, and
 * closing it waits for an RCU grace period while holding the kernel's
 * global event_mutex: about 80 ms per event on this project's VMs, one
 * after the other (docs/BENCHMARKS.md, "Probes"). A probe needs an event per
 * target thread and CPU, so detaching from a JVM with 40 threads on 2 CPUs
 * would take 6 seconds, during which the breakpoints stay. Events of one
 * tracefs uprobe share it: closing one only takes its thread off the
 * probe's filter (the breakpoint goes when the last event of the process
 * goes), and only the very last close waits for the grace period, after
 * the breakpoints are gone. Windows cost microseconds instead of seconds.
 *
 * The price: the definition ("p:prof_PID/pN PATH:0xOFFSET") outlives a
 * prof killed with SIGKILL. It places no breakpoint and costs nothing
 * without events (uprobes are armed only while some perf event uses
 * them), and the next prof run removes definitions whose prof is gone. */
#include "recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/path-buf.h"

static int write_line(const char *dir, const char *line)
{
	char path[PATH_BUF];
	int fd, err = 0;
	size_t len = strlen(line);

	snprintf(path, sizeof(path), "%s/uprobe_events", dir);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, line, len) != (ssize_t)len)
		err = errno ? -errno : -EIO;
	close(fd);
	return err;
}

/* Removes the definitions of prof processes that no longer run. */
static void remove_stale(const char *dir)
{
	char path[PATH_BUF], line[PATH_LINE_BUF], del[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/uprobe_events", dir);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		int pid;
		char name[64];

		if (sscanf(line, "%*c:prof_%d/%63s", &pid, name) != 2 || pid <= 0)
			continue;
		if (kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(del, sizeof(del), "-:prof_%d/%s", pid, name);
		write_line(dir, del);
	}
	fclose(f);
}

int probe_tracefs_define(struct recorder *rec, size_t k, uint64_t *id)
{
	struct probe_rec *p = &rec->probes;
	struct probe_site *s = &p->sites[k];
	static const char *const no_fields[] = {NULL};
	char line[PATH_LINE_BUF], group[32], name[16], why[256];
	struct tracepoint tp;
	int err;

	if (!p->tracefs[0]) {
		err = tracefs_find(p->tracefs, sizeof(p->tracefs), why, sizeof(why));
		if (err) {
			p->tracefs[0] = '\0';
			return err;
		}
		remove_stale(p->tracefs);
	}
	if (strpbrk(s->def.path, " \t\n:"))
		return -EINVAL; /* tracefs cannot say such a path */
	snprintf(group, sizeof(group), "prof_%d", (int)getpid());
	snprintf(name, sizeof(name), "p%zu", k);
	if (s->def.ref_ctr)
		snprintf(line, sizeof(line), "%c:%s/%s %s:0x%llx(0x%llx)\n",
			 s->def.kind == PROBE_URETPROBE ? 'r' : 'p', group, name, s->def.path,
			 (unsigned long long)s->def.offset, (unsigned long long)s->def.ref_ctr);
	else
		snprintf(line, sizeof(line), "%c:%s/%s %s:0x%llx\n",
			 s->def.kind == PROBE_URETPROBE ? 'r' : 'p', group, name, s->def.path,
			 (unsigned long long)s->def.offset);
	err = write_line(p->tracefs, line);
	if (err)
		return err;
	s->defined = 1;
	err = tracepoint_load(p->tracefs, group, name, no_fields, &tp);
	if (err)
		return err;
	*id = tp.id;
	return 0;
}

void probe_tracefs_undefine(struct recorder *rec)
{
	struct probe_rec *p = &rec->probes;
	char line[128];

	for (size_t k = 0; k < p->nsites; k++) {
		if (!p->sites[k].defined)
			continue;
		snprintf(line, sizeof(line), "-:prof_%d/p%zu\n", (int)getpid(), k);
		write_line(p->tracefs, line);
		p->sites[k].defined = 0;
	}
}
