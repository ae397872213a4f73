/* jit-timeline.c: the JIT maps of processes over a recording, each piece
 * of code kept once with the epochs it was seen in (see jit-timeline.h).
 *
 * Entries live in one array; a keymap from (pid, start, size, name hash)
 * to the entry last added for that key makes a snapshot that repeats the
 * previous one extend the epochs of its entries instead of adding any.
 * Names are interned the same way. Lookups sort an index of the entries by
 * (pid, start, first epoch) once, and scan back a bounded number of
 * entries from the nearest start, as perf-map.c does for overlaps. */
#include "jit-timeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/keymap.h"

/* Entries tried below the nearest start: versions of one address (one per
 * snapshot that changed it) and overlapping code. */
#define SCAN_BACK 256

struct jt_entry {
	uint64_t start, end;
	uint32_t pid;
	uint32_t name; /* offset in names */
	uint32_t lo, hi; /* epochs whose closing snapshots held it */
};

struct jt_proc {
	uint32_t pid;
	uint32_t last;  /* the last epoch closed */
	size_t entries; /* in its snapshot */
};

struct jit_timeline {
	struct jt_entry *e;
	size_t n, ecap;
	struct keymap code;  /* (pid, start, size, name hash) -> entry */
	char *names;
	size_t nlen, ncap;
	struct keymap names_ix; /* name hash -> offset */
	struct jt_proc *procs;
	size_t nprocs, pcap;
	uint32_t *order; /* sorted index for lookups; NULL: to be built */
};

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

struct jit_timeline *jit_timeline__new(void)
{
	struct jit_timeline *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (keymap__init(&t->code, 1024) || keymap__init(&t->names_ix, 1024)) {
		jit_timeline__free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void jit_timeline__free(struct jit_timeline *t)
{
	if (!t)
		return;
	free(t->e);
	free(t->names);
	free(t->procs);
	free(t->order);
	keymap__release(&t->code);
	keymap__release(&t->names_ix);
	free(t);
}

/* Interns name (hash h): its offset in *off. 0, -ENOMEM, -E2BIG. */
static int intern(struct jit_timeline *t, const char *name, uint64_t h, uint32_t *off)
{
	size_t len = strlen(name);
	uint32_t v;

	if (keymap__get(&t->names_ix, h, len, &v) && !strcmp(t->names + v, name)) {
		*off = v;
		return 0;
	}
	if (t->nlen + len + 1 > JIT_TIMELINE_MAX_NAME_BYTES)
		return -E2BIG;
	if (GROW(t->names, t->ncap, t->nlen + len + 1) ||
	    keymap__set(&t->names_ix, h, len, (uint32_t)t->nlen))
		return -ENOMEM;
	memcpy(t->names + t->nlen, name, len + 1);
	*off = (uint32_t)t->nlen;
	t->nlen += len + 1;
	return 0;
}

static struct jt_proc *proc_of(struct jit_timeline *t, uint32_t pid)
{
	size_t i;

	for (i = 0; i < t->nprocs; i++)
		if (t->procs[i].pid == pid)
			return &t->procs[i];
	return NULL;
}

int jit_timeline__add(struct jit_timeline *t, uint32_t pid, uint32_t epoch,
		      const struct perf_map *m, size_t *gone)
{
	struct jt_proc *p = proc_of(t, pid);
	size_t n = perf_map__count(m), i, kept = 0;
	int first = !p, err;

	if (p && epoch <= p->last)
		return -EINVAL;
	if (t->n + n > JIT_TIMELINE_MAX_ENTRIES)
		return -E2BIG; /* at worst every entry is new */
	if (!p) {
		if (GROW(t->procs, t->pcap, t->nprocs + 1))
			return -ENOMEM;
		p = &t->procs[t->nprocs++];
		*p = (struct jt_proc){.pid = pid};
	}
	free(t->order);
	t->order = NULL;
	for (i = 0; i < n; i++) {
		uint64_t start, end, h, b;
		const char *name;
		uint32_t id, off;

		perf_map__entry(m, i, &start, &end, &name);
		h = name_hash(name);
		b = keymap_mix64(h ^ (end - start)) ^ ((uint64_t)pid << 32);
		if (keymap__get(&t->code, start, b, &id) && t->e[id].pid == pid &&
		    t->e[id].end == end && !strcmp(t->names + t->e[id].name, name) &&
		    !first && t->e[id].hi == p->last) {
			t->e[id].hi = epoch; /* unchanged since the last snapshot */
			kept++;
			continue;
		}
		err = intern(t, name, h, &off);
		if (!err && GROW(t->e, t->ecap, t->n + 1))
			err = -ENOMEM;
		if (!err)
			err = keymap__set(&t->code, start, b, (uint32_t)t->n);
		if (err)
			return err; /* what was added stays consistent */
		t->e[t->n++] = (struct jt_entry){
		    .start = start, .end = end, .pid = pid, .name = off, .lo = epoch, .hi = epoch,
		};
	}
	if (gone)
		*gone = p->entries - kept;
	p->last = epoch;
	p->entries = n;
	return 0;
}

static int order_cmp(const void *pa, const void *pb, void *arg)
{
	const struct jt_entry *e = arg;
	const struct jt_entry *a = &e[*(const uint32_t *)pa], *b = &e[*(const uint32_t *)pb];

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static int build_order(struct jit_timeline *t)
{
	size_t i;

	t->order = malloc((t->n ? t->n : 1) * sizeof(*t->order));
	if (!t->order)
		return -ENOMEM;
	for (i = 0; i < t->n; i++)
		t->order[i] = (uint32_t)i;
	qsort_r(t->order, t->n, sizeof(*t->order), order_cmp, t->e);
	return 0;
}

enum jit_found jit_timeline__lookup(struct jit_timeline *t, uint32_t pid, uint32_t epoch,
				    uint64_t addr, const char **name, uint64_t *off)
{
	const struct jt_entry *at_start = NULL;
	size_t lo = 0, hi = t->n, i;

	if (!t->order && build_order(t))
		return JIT_NOT_FOUND;
	while (lo < hi) { /* the first entry past (pid, addr) */
		size_t mid = lo + (hi - lo) / 2;
		const struct jt_entry *e = &t->e[t->order[mid]];

		if (e->pid < pid || (e->pid == pid && e->start <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i > 0 && lo - i < SCAN_BACK; i--) {
		const struct jt_entry *e = &t->e[t->order[i - 1]];

		if (e->pid != pid)
			break;
		if (addr >= e->end)
			continue;
		if (e->lo <= epoch && epoch <= e->hi) {
			*name = t->names + e->name;
			*off = addr - e->start;
			return JIT_AT_END;
		}
		if (!at_start && epoch && e->lo <= epoch - 1 && epoch - 1 <= e->hi)
			at_start = e;
	}
	if (!at_start)
		return JIT_NOT_FOUND;
	*name = t->names + at_start->name;
	*off = addr - at_start->start;
	return JIT_AT_START;
}

int jit_timeline__closed(const struct jit_timeline *t, uint32_t pid, uint32_t epoch)
{
	size_t i;

	for (i = 0; i < t->nprocs; i++)
		if (t->procs[i].pid == pid)
			return t->procs[i].last >= epoch;
	return 0;
}

size_t jit_timeline__entries(const struct jit_timeline *t)
{
	return t->n;
}

size_t jit_timeline__name_bytes(const struct jit_timeline *t)
{
	return t->nlen;
}
