/* proc-scan.c: reading threads, names and mappings from /proc (see
 * proc-scan.h). Done once at attach, never on the sampling path. */
#include "proc-scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/grow.h"

int proc_list_tids(pid_t pid, pid_t **tids, size_t *n)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	size_t cap = 0;

	*tids = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (*end || tid <= 0)
			continue;
		if (GROW(*tids, cap, *n + 1)) {
			closedir(d);
			free(*tids);
			*tids = NULL;
			return -ENOMEM;
		}
		(*tids)[(*n)++] = (pid_t)tid;
	}
	closedir(d);
	return *n ? 0 : -ESRCH;
}

int proc_thread_name(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[64];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\0'))
		n--;
	buf[n] = '\0';
	return 0;
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
	char path[64], line[256];
	pid_t tgid = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return pid;
	while (fgets(line, sizeof(line), f)) {
		int v;

		if (sscanf(line, "Tgid: %d", &v) == 1) {
			if (v > 0)
				tgid = (pid_t)v;
			break;
		}
	}
	fclose(f);
	return tgid;
}
