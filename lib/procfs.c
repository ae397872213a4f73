/* procfs.c: bounded, hostile-input-safe reads of /proc/PID files (see
 * procfs.h). Nothing here runs on a sampling path. */
#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"

/* A file is read this much at a time. */
#define READ_STEP 4096

int procfs_read(const char *path, size_t max, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 0, n = 0;
	char *b = NULL;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	for (;;) {
		size_t want;
		ssize_t r;

		/* one byte more than is read, for the NUL */
		if (GROW(b, cap, (n + READ_STEP < max ? n + READ_STEP : max) + 1)) {
			free(b);
			close(fd);
			return -ENOMEM;
		}
		want = cap - 1 - n;
		if (want > max - n)
			want = max - n;
		if (!want)
			break;
		r = read(fd, b + n, want);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = -errno;

			free(b);
			close(fd);
			return err;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

/* The last number of a " \t1234\t56" list (NSpid: the innermost
 * namespace's id), or dflt when there is none. */
static uint32_t last_number(const char *p, uint32_t dflt)
{
	uint32_t v = dflt;

	for (;;) {
		char *e;
		unsigned long x;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			break;
		x = strtoul(p, &e, 10);
		if (x && x <= UINT32_MAX)
			v = (uint32_t)x;
		p = e;
	}
	return v;
}

/* One NUL-terminated line (without its '\n'). */
static void status_line(const char *line, struct procfs_status *st)
{
	unsigned long a, b;
	unsigned long long mask;
	uint32_t ns;
	int v;

	if (!strncmp(line, "Tgid:", 5) && sscanf(line + 5, "%d", &v) == 1) {
		if (v > 0) {
			st->tgid = (pid_t)v;
			st->have |= PROCFS_HAVE_TGID;
		}
	} else if (!strncmp(line, "Uid:", 4) && sscanf(line + 4, "%lu %lu", &a, &b) == 2) {
		st->euid = (uid_t)b;
		st->have |= PROCFS_HAVE_UID;
	} else if (!strncmp(line, "Gid:", 4) && sscanf(line + 4, "%lu %lu", &a, &b) == 2) {
		st->egid = (gid_t)b;
		st->have |= PROCFS_HAVE_GID;
	} else if (!strncmp(line, "SigCgt:", 7) && sscanf(line + 7, "%llx", &mask) == 1) {
		st->sigcgt = mask;
		st->have |= PROCFS_HAVE_SIGCGT;
	} else if (!strncmp(line, "NSpid:", 6) && (ns = last_number(line + 6, 0))) {
		st->nspid = ns;
		st->have |= PROCFS_HAVE_NSPID;
	}
}

void procfs_status_parse(const char *text, size_t len, struct procfs_status *st)
{
	const char *p = text, *end = text + len;
	char line[PROCFS_LINE_MAX];

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((eol ? eol : end) - p);

		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = '\0'; /* a NUL inside ends the line early */
			status_line(line, st);
		}
		p = eol ? eol + 1 : end;
	}
}

int procfs_status(pid_t pid, pid_t tid, struct procfs_status *st)
{
	char path[96], *text;
	size_t len;
	int err;

	memset(st, 0, sizeof(*st));
	st->tgid = pid;
	st->nspid = (uint32_t)(tid > 0 ? tid : pid);
	if (tid > 0)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	err = procfs_read(path, PROCFS_STATUS_MAX, &text, &len);
	if (err)
		return err == -ENOENT ? -ESRCH : err;
	procfs_status_parse(text, len, st);
	free(text);
	return 0;
}

int procfs_list_tids(pid_t pid, pid_t **tids, size_t *n)
{
	char path[64];
	struct dirent *d;
	size_t cap = 0;
	DIR *dir;

	*tids = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((d = readdir(dir))) {
		char *e;
		long v = strtol(d->d_name, &e, 10);

		if (*e || v <= 0)
			continue;
		if (GROW(*tids, cap, *n + 1)) {
			closedir(dir);
			free(*tids);
			*tids = NULL;
			*n = 0;
			return -ENOMEM;
		}
		(*tids)[(*n)++] = (pid_t)v;
	}
	closedir(dir);
	return 0;
}

int procfs_read_into(const char *path, char *buf, size_t len, size_t *n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = read(fd, buf, len - 1);
	close(fd);
	if (r < 0)
		return -errno;
	buf[r] = '\0';
	*n = (size_t)r;
	return 0;
}

int procfs_thread_name(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[64];
	size_t n;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	err = procfs_read_into(path, buf, len, &n);
	if (err)
		return err;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\0'))
		n--;
	buf[n] = '\0';
	return 0;
}

int procfs_parse_map(const char *line, struct procfs_map *m)
{
	int pos = 0;
	size_t l;

	memset(m->perms, 0, sizeof(m->perms));
	/* "start-end perms pgoff dev inode   path" */
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &m->start, &m->end,
		   m->perms, &m->pgoff, &pos) < 4 ||
	    pos <= 0)
		return -EINVAL;
	snprintf(m->path, sizeof(m->path), "%s", line + pos);
	l = strlen(m->path);
	while (l && (m->path[l - 1] == '\n' || m->path[l - 1] == ' '))
		m->path[--l] = '\0';
	return 0;
}

int procfs_each_map(pid_t pid, int (*fn)(void *ctx, const struct procfs_map *m), void *ctx)
{
	struct procfs_map *m = malloc(sizeof(*m));
	char path[64], *line = NULL;
	size_t cap = 0;
	int r = 0;
	FILE *f;

	if (!m)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f) {
		r = errno == ENOENT ? -ESRCH : -errno;
		free(m);
		return r;
	}
	while (!r && getline(&line, &cap, f) > 0)
		if (!procfs_parse_map(line, m))
			r = fn(ctx, m);
	free(line);
	free(m);
	fclose(f);
	return r;
}

int procfs_stat_start(const char *text, unsigned long long *ticks)
{
	const char *p = strrchr(text, ')');
	int i;

	/* "PID (COMM) S PPID ...": the start time is the 20th field after the
	 * last ')'. */
	for (i = 0; p && i < 20; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu", ticks) != 1)
		return -EIO;
	return 0;
}

int procfs_start_ticks(pid_t pid, unsigned long long *ticks)
{
	char path[64], text[PROCFS_LINE_MAX];
	size_t len;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	err = procfs_read_into(path, text, sizeof(text), &len);
	if (err)
		return err == -ENOENT ? -ESRCH : err;
	return len ? procfs_stat_start(text, ticks) : -EIO;
}
