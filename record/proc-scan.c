/* proc-scan.c: reading threads, names and mappings from /proc (see
 * proc-scan.h), through lib/procfs.h. Done once at attach, never on the
 * sampling path. */
#include "proc-scan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/procfs.h"

int proc_list_tids(pid_t pid, pid_t **tids, size_t *n)
{
	int err = procfs_list_tids(pid, tids, n);

	return err ? err : *n ? 0 : -ESRCH;
}

int proc_thread_name(pid_t pid, pid_t tid, char *buf, size_t len)
{
	return procfs_thread_name(pid, tid, buf, len);
}

struct exec_maps {
	void (*fn)(void *ctx, const struct proc_map *m);
	void *ctx;
	struct proc_map m;
};

static int exec_map(void *arg, const struct procfs_map *pm)
{
	struct exec_maps *x = arg;

	if (pm->perms[2] != 'x')
		return 0;
	x->m.start = pm->start;
	x->m.end = pm->end;
	x->m.pgoff = pm->pgoff;
	snprintf(x->m.path, sizeof(x->m.path), "%s", pm->path[0] ? pm->path : "//anon");
	x->fn(x->ctx, &x->m);
	return 0;
}

int proc_each_exec_map(pid_t pid, void (*fn)(void *ctx, const struct proc_map *m), void *ctx)
{
	struct exec_maps *x = malloc(sizeof(*x));
	int err;

	if (!x)
		return -ENOMEM;
	x->fn = fn;
	x->ctx = ctx;
	err = procfs_each_map(pid, exec_map, x);
	free(x);
	return err;
}

pid_t proc_tgid(pid_t pid)
{
	struct procfs_status st;

	procfs_status(pid, 0, &st); /* st.tgid is pid when unreadable */
	return st.tgid;
}
