/* off-cpu.c: the time-weighted profiles of report.h: off-CPU stacks weighed
 * by the time their switch-out began off CPU (PROFILE_WEIGHT_OFF_CPU), and
 * the wall-clock profile, CPU samples turned into time beside them
 * (PROFILE_WEIGHT_WALL).
 *
 * The off-CPU time comes from the scheduler records (sched-timeline.c, the
 * same spans `prof sched` accounts); the stacks from the 1-in-N sampled
 * "sched:sched_switch" samples, each paired with its thread's nearest
 * switch-out and weighed by that switch-out's time, scaled so that each
 * thread's stacks add up to its off-CPU time after all its switch-outs. Work: a sort of the off-CPU samples, one walk per thread
 * that has any, a binary search per sample; weights add up in nanoseconds
 * in a hash of (thread key, stack, leaf) and are rounded once. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/keymap.h"
#include "report/builder.h"
#include "report/sched-timeline.h"

#define PAIR_WINDOW_NS 1000000u /* a stack sample is this close to its OUT */
#define PAIR_TRIES     8	/* OUTs looked at around a sample's time */
#define NS_PER_S       1000000000ull

enum event_kind { EV_OTHER, EV_CPU, EV_SWITCH_STACK };

/* The leaf frame of the time after an OUT in `state`. */
static const char *state_leaf(unsigned state)
{
	switch (state) {
	case REC_STATE_RUNNING:
	case REC_STATE_PREEMPTED:
		return "[R preempted]";
	case REC_STATE_SLEEPING:
		return "[S sleeping]";
	case REC_STATE_DISK:
		return "[D uninterruptible]";
	case REC_STATE_STOPPED:
		return "[T stopped]";
	case REC_STATE_DEAD:
		return "[X exiting]";
	case REC_STATE_IDLE:
		return "[I idle]";
	default:
		return "[? other]";
	}
}

/* Nanoseconds of one (thread key, stack, leaf). */
struct acc {
	uint64_t stack2, ns;
	uint32_t tkey, leaf;
};

/* An off-CPU stack sample, sorted by (tid, time, file order). */
struct osample {
	uint64_t time;
	uint32_t tid, idx;
	uint32_t out; /* the OUT it pairs with (index in the walk), or SCHED_NONE */
};

/* What one OUT of the walked thread began: ns off CPU, then waiting. */
struct out_time {
	uint64_t off, wait;
	int claimed; /* by a stack sample */
};

struct weigher {
	struct builder *b;
	const struct recording *r;
	int by_thread;
	uint8_t kind[256];    /* enum event_kind per event id (samples store a u8) */
	uint64_t cpu_ns[256]; /* CPU samples: ns each (wall); 0 unknown */
	struct sched_timeline tl;
	struct sched_walk w;
	struct acc *accs;
	size_t naccs, accs_cap;
	struct keymap acc_ids; /* (stack2, tkey << 32 | leaf) -> index in accs */
	uint32_t leaf_ids[REC_STATE_COUNT], wait_leaf; /* profile name ids, 0 = not yet */
	struct osample *os;
	size_t nos;
	struct out_time *outs; /* per OUT of the thread walked */
	size_t outs_cap;
};

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* a * num / den, rounded, saturated; a when den is 0. */
static uint64_t scale(uint64_t a, uint64_t num, uint64_t den)
{
	double v = den ? (double)a * (double)num / (double)den + 0.5 : (double)a;

	return v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

static uint64_t ns_per_hz(uint64_t hz)
{
	return (NS_PER_S + hz / 2) / hz;
}

/* Sorts the events of `r` into CPU events, switch stacks and the rest. */
static void classify_events(struct weigher *g)
{
	const struct recording *r = g->r;
	uint64_t hz = 0;
	unsigned ev;

	if (parse_u64(recording__meta(r, "frequency"), &hz))
		hz = 0;
	for (ev = 0; ev < 256; ev++) {
		const struct rec_event_desc *d = ev < r->nevents ? &r->events[ev] : NULL;

		if (recording__event_is_cpu(r, ev)) {
			g->kind[ev] = EV_CPU;
			if (d && d->freq)
				g->cpu_ns[ev] = ns_per_hz(d->freq);
			else if (d && d->type == SCHED_EVENT_TYPE_SOFTWARE && d->period &&
				 (d->config == SCHED_EVENT_SW_CPU_CLOCK ||
				  d->config == SCHED_EVENT_SW_TASK_CLOCK))
				g->cpu_ns[ev] = d->period;
			else if (hz)
				g->cpu_ns[ev] = ns_per_hz(hz);
		} else if (!strcmp(recording__str(r, d->name), SCHED_SWITCH_EVENT)) {
			g->kind[ev] = EV_SWITCH_STACK;
		}
	}
}

static int add(struct weigher *g, uint32_t tkey, uint64_t stack2, uint32_t leaf, uint64_t ns)
{
	uint32_t idx;
	int r;

	if (!ns)
		return 0;
	if (g->naccs >= UINT32_MAX)
		return -ENOMEM;
	r = keymap__put(&g->acc_ids, stack2, (uint64_t)tkey << 32 | leaf, (uint32_t)g->naccs, &idx);
	if (r < 0)
		return r;
	if (r) {
		if (GROW(g->accs, g->accs_cap, g->naccs + 1))
			return -ENOMEM;
		idx = (uint32_t)g->naccs++;
		g->accs[idx] = (struct acc){.stack2 = stack2, .tkey = tkey, .leaf = leaf};
	}
	g->accs[idx].ns = sat_add(g->accs[idx].ns, ns);
	return 0;
}

static int leaf_id(struct weigher *g, const char *name, uint32_t *id)
{
	if (*id)
		return 0;
	return profile__intern(g->b->p, name, strlen(name), id);
}

static int cmp_osamples(const void *a, const void *b)
{
	const struct osample *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Off-CPU and wait time of each OUT of the walked thread, from its
 * segments (both in time order). */
static int per_out_times(struct weigher *g)
{
	const struct sched_walk *w = &g->w;
	size_t i, m = 0;

	if (GROW(g->outs, g->outs_cap, w->nouts ? w->nouts : 1))
		return -ENOMEM;
	memset(g->outs, 0, w->nouts * sizeof(*g->outs));
	for (i = 0; i < w->nsegs; i++) {
		const struct sched_seg *s = &w->segs[i];

		if (s->out == SCHED_NONE)
			continue;
		while (m < w->nouts && w->outs[m] != s->out)
			m++;
		if (m == w->nouts)
			break; /* cannot happen: segments follow their OUT */
		if (s->bucket == SCHED_WOKEN)
			g->outs[m].wait = sat_add(g->outs[m].wait, s->to - s->from);
		else
			g->outs[m].off = sat_add(g->outs[m].off, s->to - s->from);
	}
	return 0;
}

/* The unclaimed OUT of the walked thread nearest to `t` within
 * PAIR_WINDOW_NS, claimed now; SCHED_NONE if there is none. */
static uint32_t pair(struct weigher *g, uint64_t t)
{
	const struct rec_sched_full *rs = g->r->sched;
	const uint32_t *outs = g->w.outs;
	size_t n = g->w.nouts, lo = 0, hi = n, left, right, tries;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rs[outs[mid]].time < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	left = lo; /* candidates: left - 1 going down, right going up */
	right = lo;
	for (tries = 0; tries < PAIR_TRIES; tries++) {
		uint64_t dl = left ? t - rs[outs[left - 1]].time : UINT64_MAX;
		uint64_t dr = right < n ? rs[outs[right]].time - t : UINT64_MAX;
		size_t m;

		if (dl > PAIR_WINDOW_NS && dr > PAIR_WINDOW_NS)
			break;
		m = dl <= dr ? --left : right++;
		if (!g->outs[m].claimed) {
			g->outs[m].claimed = 1;
			return (uint32_t)m;
		}
	}
	return SCHED_NONE;
}

/* Weighs the samples os[i .. j) of one tid. Stacks are taken 1 in N
 * switch-outs (or miss some: a thread's first ones, lost records), so each
 * stacked OUT's time is scaled by the thread's off-CPU time after all its
 * OUTs over that after its stacked ones: the thread's stacks add up to
 * the off-CPU time `prof sched` counts after its switch-outs, and each
 * stack stands for its own interval (a long wait weighs more than a short
 * one, which a plain x N would not respect). */
static int weigh_thread(struct weigher *g, size_t i, size_t j)
{
	const struct rec_sched_full *rs = g->r->sched;
	uint32_t ti = sched_timeline__find(&g->tl, g->os[i].tid);
	uint64_t all = 0, stacked = 0;
	size_t k;
	int err;

	if (ti == SCHED_NONE || !g->tl.threads[ti].n)
		return 0;
	err = sched_timeline__walk(&g->tl, ti, &g->w);
	if (!err)
		err = per_out_times(g);
	for (k = i; k < j && !err; k++)
		g->os[k].out = pair(g, g->os[k].time);
	for (k = 0; k < g->w.nouts && !err; k++) {
		uint64_t t = sat_add(g->outs[k].off, g->outs[k].wait);

		all = sat_add(all, t);
		if (g->outs[k].claimed)
			stacked = sat_add(stacked, t);
	}
	for (; i < j && !err; i++) {
		const struct rec_sample_full *s = &g->r->samples[g->os[i].idx];
		uint64_t stack2 = (uint64_t)s->stack * 2 + !!(s->flags & REC_SAMPLE_TRUNCATED);
		uint32_t m = g->os[i].out, tkey = BUILDER_NO_THREAD;
		uint8_t state;

		if (m == SCHED_NONE)
			continue;
		state = rs[g->w.outs[m]].state;
		if (g->by_thread && (err = builder__sample_tkey(g->b, s->tid, s->time, &tkey)))
			break;
		err = leaf_id(g, state_leaf(state), &g->leaf_ids[state]);
		if (!err)
			err = leaf_id(g, PROFILE_LEAF_WAITING, &g->wait_leaf);
		if (!err)
			err = add(g, tkey, stack2, g->leaf_ids[state],
				  scale(g->outs[m].off, all, stacked));
		if (!err)
			err = add(g, tkey, stack2, g->wait_leaf, scale(g->outs[m].wait, all, stacked));
	}
	return err;
}

static int weigh_off_cpu(struct weigher *g)
{
	const struct recording *r = g->r;
	size_t i, j;
	int err;

	err = sched_timeline__init(&g->tl, r);
	if (err)
		return err;
	g->os = malloc((r->nsamples ? r->nsamples : 1) * sizeof(*g->os));
	if (!g->os)
		return -ENOMEM;
	for (i = 0; i < r->nsamples; i++)
		if (g->kind[r->samples[i].event] == EV_SWITCH_STACK)
			g->os[g->nos++] = (struct osample){.time = r->samples[i].time,
							   .tid = r->samples[i].tid,
							   .idx = (uint32_t)i,
							   .out = SCHED_NONE};
	qsort(g->os, g->nos, sizeof(*g->os), cmp_osamples);
	for (i = 0; i < g->nos; i = j) {
		for (j = i + 1; j < g->nos && g->os[j].tid == g->os[i].tid; j++)
			;
		err = weigh_thread(g, i, j);
		if (err)
			return err;
	}
	return 0;
}

static int weigh_cpu(struct weigher *g)
{
	const struct recording *r = g->r;
	size_t i;
	int err;

	for (i = 0; i < r->nsamples; i++) {
		const struct rec_sample_full *s = &r->samples[i];
		uint32_t tkey = BUILDER_NO_THREAD;

		if (g->kind[s->event] != EV_CPU)
			continue;
		if (!g->cpu_ns[s->event])
			return -EINVAL;
		if (g->by_thread && (err = builder__sample_tkey(g->b, s->tid, s->time, &tkey)))
			return err;
		err = add(g, tkey, (uint64_t)s->stack * 2 + !!(s->flags & REC_SAMPLE_TRUNCATED), 0,
			  g->cpu_ns[s->event]);
		if (err)
			return err;
	}
	return 0;
}

static int weigh(struct weigher *g, enum profile_weight weight)
{
	size_t i;
	int err;

	classify_events(g);
	if (keymap__init(&g->acc_ids, 256))
		return -ENOMEM;
	err = weight == PROFILE_WEIGHT_WALL ? weigh_cpu(g) : 0;
	if (!err)
		err = weigh_off_cpu(g);
	for (i = 0; i < g->naccs && !err; i++) {
		const struct acc *a = &g->accs[i];
		uint64_t us = a->ns / 1000 + (a->ns % 1000 >= 500);

		if (us)
			err = builder__add_entry(g->b, a->stack2, a->leaf, a->tkey, us);
	}
	return err;
}

int build_weighted(struct builder *b, enum profile_weight weight, int by_thread)
{
	struct weigher g;
	int err;

	memset(&g, 0, sizeof(g));
	g.b = b;
	g.r = b->r;
	g.by_thread = by_thread;
	if (!g.r->nsched)
		return -ENODATA;
	err = weigh(&g, weight);
	sched_timeline__release(&g.tl);
	sched_walk__release(&g.w);
	keymap__release(&g.acc_ids);
	free(g.accs);
	free(g.os);
	free(g.outs);
	return err;
}
