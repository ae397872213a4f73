/* maps.c: each target's mappings, read from /proc/PID/maps before a
 * snapshot: where a thread's stack ends (how much of it to copy), and,
 * after, which binary a program counter is in (unwinding, the recording's
 * mappings). */
#include "dump/dump.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/procfs.h"

struct collect {
	struct dump_map *maps;
	size_t n, cap;
};

static int add_map(void *ctx, const struct procfs_map *pm)
{
	struct collect *c = ctx;
	struct dump_map *m;

	if (GROW(c->maps, c->cap, c->n + 1))
		return -ENOMEM;
	m = &c->maps[c->n];
	m->path = strdup(pm->path);
	if (!m->path)
		return -ENOMEM;
	m->start = pm->start, m->end = pm->end, m->pgoff = pm->pgoff;
	memcpy(m->perms, pm->perms, 4);
	m->perms[4] = 0;
	c->n++;
	return 0;
}

static void free_maps(struct dump_map *maps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(maps[i].path);
	free(maps);
}

static struct dump_proc *find_proc(const struct dump_maps *m, pid_t pid)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->procs[i].pid == pid)
			return &m->procs[i];
	return NULL;
}

int dump_maps__read(struct dump_maps *m, pid_t pid)
{
	struct collect c = {0};
	struct dump_proc *p = find_proc(m, pid);
	int err = procfs_each_map(pid, add_map, &c);

	if (err) {
		free_maps(c.maps, c.n);
		return err < 0 ? err : -EIO;
	}
	if (!p) {
		struct dump_proc *procs = realloc(m->procs, (m->n + 1) * sizeof(*procs));

		if (!procs) {
			free_maps(c.maps, c.n);
			return -ENOMEM;
		}
		m->procs = procs;
		p = &procs[m->n++];
		*p = (struct dump_proc){.pid = pid};
	}
	free_maps(p->maps, p->n);
	p->maps = c.maps; /* /proc gives them sorted */
	p->n = c.n;
	return 0;
}

void dump_maps__release(struct dump_maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		free_maps(m->procs[i].maps, m->procs[i].n);
	free(m->procs);
	*m = (struct dump_maps){0};
}

const struct dump_map *dump_maps__find(const struct dump_maps *m, pid_t pid, uint64_t addr)
{
	const struct dump_proc *p = m ? find_proc(m, pid) : NULL;
	size_t lo = 0, hi = p ? p->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < p->maps[mid].start)
			hi = mid;
		else if (addr >= p->maps[mid].end)
			lo = mid + 1;
		else
			return &p->maps[mid];
	}
	return NULL;
}

uint64_t dump_maps_end(const struct dump_maps *m, pid_t pid, uint64_t addr)
{
	const struct dump_map *map = dump_maps__find(m, pid, addr);

	return map ? map->end : 0;
}
