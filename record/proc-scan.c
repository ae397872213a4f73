/* proc-scan.c: reading threads, names and mappings from /proc (see
 * proc-scan.h), the status and task files through lib/procfs.h. Done once
 * at attach, never on the sampling path. */
#include "proc-scan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int proc_each_exec_map(pid_t pid, void (*fn)(void *ctx, const struct proc_map *m), void *ctx)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;
	struct proc_map *m = malloc(sizeof(*m));

	if (!m)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f) {
		int err = errno == ENOENT ? -ESRCH : -errno;

		free(m);
		return err;
	}
	while (getline(&line, &cap, f) > 0) {
		char perms[8];
		int pos = 0;
		size_t l;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &m->start,
			   &m->end, perms, &m->pgoff, &pos) < 4 || pos <= 0)
			continue;
		if (perms[2] != 'x')
			continue;
		snprintf(m->path, sizeof(m->path), "%s", line + pos);
		l = strlen(m->path);
		while (l && (m->path[l - 1] == '\n' || m->path[l - 1] == ' '))
			m->path[--l] = '\0';
		if (!l)
			snprintf(m->path, sizeof(m->path), "//anon");
		fn(ctx, m);
	}
	free(line);
	free(m);
	fclose(f);
	return 0;
}

pid_t proc_tgid(pid_t pid)
{
	struct procfs_status st;

	procfs_status(pid, 0, &st); /* st.tgid is pid when unreadable */
	return st.tgid;
}
