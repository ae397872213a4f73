/* sched-order.c: the rows of the scheduler chart: threads grouped by name
 * pattern (digit runs collapsed into '*', as --merge-pools does), groups
 * and their threads ordered by the time they wanted a CPU (on CPU +
 * runnable), most first, ties by name bytewise, then tid: busy and starved
 * threads on top, sleepers at the bottom, and a total order, so the same
 * profile always gives the same chart. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "svg/sched-internal.h"

struct item {
	size_t idx; /* in sp->threads */
	size_t pat; /* offset of the pattern in sched_order.patterns */
	const char *pattern, *name;
	size_t plen, nlen;
	uint32_t tid;
	uint64_t demand;
	size_t group; /* after grouping */
};

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static uint64_t demand_of(const struct sched_thread *t)
{
	return sat_add(t->ns[SCHED_ON_CPU], sched_thread__runnable_ns(t));
}

static int bytes_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int r = memcmp(a, b, alen < blen ? alen : blen);

	if (r)
		return r;
	return alen < blen ? -1 : alen > blen;
}

/* Within a pattern: demand descending, name, tid. */
static int thread_cmp(const struct item *a, const struct item *b)
{
	int r;

	if (a->demand != b->demand)
		return a->demand > b->demand ? -1 : 1;
	r = bytes_cmp(a->name, a->nlen, b->name, b->nlen);
	if (r)
		return r;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static int by_pattern(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;
	int r = bytes_cmp(a->pattern, a->plen, b->pattern, b->plen);

	return r ? r : thread_cmp(a, b);
}

/* Groups: demand descending, then pattern (patterns are distinct). */
static int by_group(const void *pa, const void *pb)
{
	const struct sched_group *a = pa, *b = pb;

	if (a->demand != b->demand)
		return a->demand > b->demand ? -1 : 1;
	return bytes_cmp(a->pattern, a->len, b->pattern, b->len);
}

void sched_fold_switches(const struct sched_thread *t, uint64_t sw[SCHED_SW_N])
{
	size_t s;

	memset(sw, 0, SCHED_SW_N * sizeof(*sw));
	for (s = 0; s < REC_STATE_COUNT; s++) {
		enum sched_sw to = s == REC_STATE_RUNNING || s == REC_STATE_PREEMPTED ? SCHED_SW_R
				   : s == REC_STATE_SLEEPING                      ? SCHED_SW_S
				   : s == REC_STATE_DISK                          ? SCHED_SW_D
										  : SCHED_SW_OTHER;

		sw[to] = sat_add(sw[to], t->switches[s]);
	}
}

uint64_t sched_thread_wakeups(const struct sched_thread *t)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < t->nwakers; i++)
		n = sat_add(n, t->wakers[i].count);
	return n;
}

/* The patterns of every thread, NUL-separated in one buffer. */
static int make_patterns(struct sched_order *o, const struct sched_profile *sp,
			 struct item *items)
{
	size_t total = 0, off = 0, i;

	for (i = 0; i < sp->nthreads; i++)
		total += strtab__len(&sp->names, sp->threads[i].name) + 2;
	o->patterns = malloc(total ? total : 1);
	if (!o->patterns)
		return -ENOMEM;
	for (i = 0; i < sp->nthreads; i++) {
		const struct sched_thread *t = &sp->threads[i];
		struct item *it = &items[i];

		it->idx = i;
		it->name = sched_profile__name(sp, t->name);
		it->nlen = strtab__len(&sp->names, t->name);
		it->tid = t->tid;
		it->demand = demand_of(t);
		it->pat = off;
		memcpy(o->patterns + off, it->name, it->nlen);
		it->plen = merge_pool_name(o->patterns + off, it->nlen);
		o->patterns[off + it->plen] = '\0';
		off += it->plen + 1;
	}
	for (i = 0; i < sp->nthreads; i++)
		items[i].pattern = o->patterns + items[i].pat;
	return 0;
}

static void add_thread(struct sched_group *g, const struct sched_thread *t)
{
	uint64_t sw[SCHED_SW_N];
	size_t b;

	for (b = 0; b < SCHED_NBUCKETS; b++)
		g->ns[b] = sat_add(g->ns[b], t->ns[b]);
	sched_fold_switches(t, sw);
	for (b = 0; b < SCHED_SW_N; b++)
		g->sw[b] = sat_add(g->sw[b], sw[b]);
	g->nswitches = sat_add(g->nswitches, t->nswitches);
	g->wakeups = sat_add(g->wakeups, sched_thread_wakeups(t));
	g->demand = sat_add(g->demand, demand_of(t));
}

int sched_order__build(struct sched_order *o, const struct sched_profile *sp)
{
	size_t n = sp->nthreads, i, k;
	struct item *items;

	memset(o, 0, sizeof(*o));
	items = calloc(n ? n : 1, sizeof(*items));
	o->rows = calloc(n ? n : 1, sizeof(*o->rows));
	o->groups = calloc(n ? n : 1, sizeof(*o->groups));
	if (!items || !o->rows || !o->groups || make_patterns(o, sp, items)) {
		free(items);
		sched_order__release(o);
		return -ENOMEM;
	}
	qsort(items, n, sizeof(*items), by_pattern);
	/* Runs of one pattern are groups; their threads already in order. */
	for (i = 0; i < n; i++) {
		struct sched_group *g;

		if (!i || bytes_cmp(items[i].pattern, items[i].plen, items[i - 1].pattern,
				    items[i - 1].plen)) {
			g = &o->groups[o->ngroups++];
			g->pattern = items[i].pattern;
			g->len = items[i].plen;
			g->first = i; /* in items[] until the groups are sorted */
		}
		g = &o->groups[o->ngroups - 1];
		g->n++;
		add_thread(g, &sp->threads[items[i].idx]);
	}
	qsort(o->groups, o->ngroups, sizeof(*o->groups), by_group);
	for (i = 0; i < o->ngroups; i++) {
		struct sched_group *g = &o->groups[i];
		size_t from = g->first;

		g->first = o->nrows;
		for (k = 0; k < g->n; k++)
			o->rows[o->nrows++] = items[from + k].idx;
	}
	free(items);
	return 0;
}

void sched_order__release(struct sched_order *o)
{
	free(o->rows);
	free(o->groups);
	free(o->patterns);
	memset(o, 0, sizeof(*o));
}
