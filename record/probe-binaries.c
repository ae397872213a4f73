/* probe-binaries.c: the binaries a process maps, for `prof probes -p` and
 * for finding the binary of `-e usdt:PROVIDER:NAME` in the targets: every
 * file with an executable mapping, each once, opened through
 * /proc/PID/root so that a process in a container is read as it sees its
 * files (its /usr/lib is not the host's). */
#include "probes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/grow.h"
#include "proc-scan.h"
#include "lib/path-buf.h"

struct collect {
	pid_t pid;
	struct probe_binary *bins;
	size_t n, cap;
	int err;
};

static void on_map(void *ctx, const struct proc_map *m)
{
	struct collect *c = ctx;
	struct probe_binary *b;
	char open_path[PATH_BUF];

	if (c->err || m->path[0] != '/')
		return; /* [vdso], anonymous memory */
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->bins[i].path, m->path))
			return;
	snprintf(open_path, sizeof(open_path), "/proc/%d/root%s", (int)c->pid, m->path);
	if (access(open_path, R_OK))
		snprintf(open_path, sizeof(open_path), "%s", m->path);
	if (GROW(c->bins, c->cap, c->n + 1)) {
		c->err = -ENOMEM;
		return;
	}
	b = &c->bins[c->n];
	b->path = strdup(m->path);
	b->open_path = strdup(open_path);
	if (!b->path || !b->open_path) {
		free(b->path);
		free(b->open_path);
		c->err = -ENOMEM;
		return;
	}
	c->n++;
}

int probe_binaries_of(pid_t pid, struct probe_binary **bins, size_t *n)
{
	struct collect c = {.pid = pid};
	int err = proc_each_exec_map(pid, on_map, &c);

	if (!err)
		err = c.err;
	if (err) {
		probe_binaries_free(c.bins, c.n);
		return err;
	}
	*bins = c.bins;
	*n = c.n;
	return 0;
}

void probe_binaries_free(struct probe_binary *bins, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(bins[i].path);
		free(bins[i].open_path);
	}
	free(bins);
}
