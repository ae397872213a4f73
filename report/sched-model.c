/* sched-model.c: builds the scheduler view of a recording (sched.h): per
 * thread, the segments of sched-timeline.c summed into buckets and CPUs,
 * switch-outs counted by state, preemptors and wakers named and ranked.
 *
 * Work: one sort of the records (sched-timeline.c), then per thread a walk
 * linear in its records, one hash update per preemption or wake-up, and a
 * binary search per name asked for. */
#include "report/sched.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/keymap.h"
#include "report/sched-timeline.h"

#define WAKER_IDLE     "[idle/irq]" /* wakers: tid 0 is an interrupt or the idle task */
#define PREEMPTOR_IDLE "[idle]"

/* A name a tid had from `time` on (TASK record, or thread START/NAME). */
struct name_ev {
	uint64_t time;
	uint32_t tid;
	uint32_t str; /* recording string id */
	uint32_t order;
};

struct names {
	struct name_ev *ev; /* sorted by tid, time, file order */
	size_t n;
};

enum share_kind { SHARE_PREEMPTOR, SHARE_WAKER };

struct model {
	struct sched_profile *sp;
	const struct recording *r;
	struct sched_timeline tl;
	struct sched_walk w;
	struct names tasks, threads;
	struct keymap shares;		   /* (thread << 1 | kind, tid << 32 | name) -> index */
	size_t preemptors_cap, wakers_cap; /* of the thread being built */
};

static int cmp_name_ev(const void *a, const void *b)
{
	const struct name_ev *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int names_add(struct names *nm, size_t *cap, uint64_t time, uint32_t tid, uint32_t str)
{
	if (GROW(nm->ev, *cap, nm->n + 1))
		return -ENOMEM;
	nm->ev[nm->n] =
	    (struct name_ev){.time = time, .tid = tid, .str = str, .order = (uint32_t)nm->n};
	nm->n++;
	return 0;
}

static int index_names(struct model *m)
{
	const struct recording *r = m->r;
	size_t i, tcap = 0, ncap = 0;

	for (i = 0; i < r->nsched; i++) {
		const struct rec_sched_full *s = &r->sched[i];

		if (s->kind == REC_SCHED_TASK && s->arg && s->arg < r->nstrs && r->lens[s->arg] &&
		    names_add(&m->tasks, &tcap, s->time, s->tid, s->arg))
			return -ENOMEM;
	}
	for (i = 0; i < r->nthreads; i++) {
		const struct rec_thread_event *t = &r->threads[i];

		if ((t->kind == REC_THREAD_START || t->kind == REC_THREAD_NAME) && t->name &&
		    t->name < r->nstrs && r->lens[t->name] &&
		    names_add(&m->threads, &ncap, t->time, t->tid, t->name))
			return -ENOMEM;
	}
	if (m->tasks.n > 1)
		qsort(m->tasks.ev, m->tasks.n, sizeof(*m->tasks.ev), cmp_name_ev);
	if (m->threads.n > 1)
		qsort(m->threads.ev, m->threads.n, sizeof(*m->threads.ev), cmp_name_ev);
	return 0;
}

/* The string id of tid's name at `time`: the last one at or before it,
 * else the first one after; 0 when it has none. */
static uint32_t name_at(const struct names *nm, uint32_t tid, uint64_t time)
{
	size_t lo = 0, hi = nm->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct name_ev *e = &nm->ev[mid];

		if (e->tid < tid || (e->tid == tid && e->time <= time))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && nm->ev[lo - 1].tid == tid)
		return nm->ev[lo - 1].str;
	if (lo < nm->n && nm->ev[lo].tid == tid)
		return nm->ev[lo].str;
	return 0;
}

static int intern_str(struct model *m, uint32_t str, uint32_t *id)
{
	return strtab__intern(&m->sp->names, m->r->strs[str], m->r->lens[str], id);
}

static int intern_tid(struct model *m, uint32_t tid, uint32_t *id)
{
	char buf[16];
	int n = snprintf(buf, sizeof(buf), "%" PRIu32, tid);

	return strtab__intern(&m->sp->names, buf, (size_t)n, id);
}

/* The name of a task seen as next or as waker at `time`. */
static int task_name(struct model *m, enum share_kind kind, uint32_t tid, uint64_t time,
		     uint32_t *id)
{
	uint32_t str;
	const char *idle = kind == SHARE_WAKER ? WAKER_IDLE : PREEMPTOR_IDLE;

	if (!tid && kind == SHARE_WAKER)
		return strtab__intern(&m->sp->names, idle, strlen(idle), id);
	str = name_at(&m->tasks, tid, time);
	if (!str)
		str = name_at(&m->threads, tid, time);
	if (str)
		return intern_str(m, str, id);
	if (!tid)
		return strtab__intern(&m->sp->names, idle, strlen(idle), id);
	return intern_tid(m, tid, id);
}

/* The share of (kind, tid named at `time`) in thread `ti`, made if new. */
static int share_of(struct model *m, size_t ti, enum share_kind kind, uint32_t tid, uint64_t time,
		    struct sched_share **out)
{
	struct sched_thread *t = &m->sp->threads[ti];
	struct sched_share **arr = kind == SHARE_WAKER ? &t->wakers : &t->preemptors;
	size_t *n = kind == SHARE_WAKER ? &t->nwakers : &t->npreemptors;
	size_t *cap = kind == SHARE_WAKER ? &m->wakers_cap : &m->preemptors_cap;
	uint32_t name, idx;
	int err;

	err = task_name(m, kind, tid, time, &name);
	if (err)
		return err;
	err = keymap__put(&m->shares, (uint64_t)ti << 1 | kind, (uint64_t)tid << 32 | name,
			  (uint32_t)*n, &idx);
	if (err < 0)
		return err;
	if (err == 0) {
		*out = &(*arr)[idx];
		return 0;
	}
	if (*n >= UINT32_MAX || GROW(*arr, *cap, *n + 1))
		return -ENOMEM;
	(*arr)[*n] = (struct sched_share){.name = name, .tid = tid};
	*out = &(*arr)[(*n)++];
	return 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static int add_segments(struct model *m, size_t ti)
{
	const struct rec_sched_full *rs = m->r->sched;
	struct sched_thread *t = &m->sp->threads[ti];
	struct sched_share *sh;
	size_t i;
	int err;

	for (i = 0; i < m->w.nsegs; i++) {
		const struct sched_seg *g = &m->w.segs[i];
		uint64_t len = g->to - g->from;

		t->ns[g->bucket] = sat_add(t->ns[g->bucket], len);
		if (g->bucket == SCHED_ON_CPU && g->cpu != SCHED_NONE && g->cpu < m->sp->ncpus)
			t->cpu_ns[g->cpu] = sat_add(t->cpu_ns[g->cpu], len);
		if (g->bucket == SCHED_PREEMPTED && g->out != SCHED_NONE &&
		    rs[g->out].state <= REC_STATE_PREEMPTED) {
			err =
			    share_of(m, ti, SHARE_PREEMPTOR, rs[g->out].arg, rs[g->out].time, &sh);
			if (err)
				return err;
			sh->ns = sat_add(sh->ns, len);
		}
		if (g->bucket == SCHED_WOKEN && g->wake != SCHED_NONE) {
			err = share_of(m, ti, SHARE_WAKER, rs[g->wake].arg, rs[g->wake].time, &sh);
			if (err)
				return err;
			sh->ns = sat_add(sh->ns, len);
		}
	}
	for (i = 0; i < m->w.nouts; i++) {
		const struct rec_sched_full *o = &rs[m->w.outs[i]];

		if (o->arg == o->tid)
			continue; /* a snapshot at the start: no switch */
		t->switches[o->state]++;
		t->nswitches++;
		if (o->state <= REC_STATE_PREEMPTED) {
			err = share_of(m, ti, SHARE_PREEMPTOR, o->arg, o->time, &sh);
			if (err)
				return err;
			sh->count++;
		}
	}
	for (i = 0; i < m->w.nwakes; i++) {
		const struct rec_sched_full *wk = &rs[m->w.wakes[i]];

		err = share_of(m, ti, SHARE_WAKER, wk->arg, wk->time, &sh);
		if (err)
			return err;
		sh->count++;
	}
	return 0;
}

static int build_thread(struct model *m, size_t ti)
{
	const struct sched_tl_thread *x = &m->tl.threads[ti];
	struct sched_thread *t = &m->sp->threads[ti];
	uint32_t str;
	int err;

	t->tid = x->tid;
	t->pid = x->pid;
	t->start = x->start;
	t->end = x->end;
	m->preemptors_cap = m->wakers_cap = 0;
	t->cpu_ns = calloc(m->sp->ncpus ? m->sp->ncpus : 1, sizeof(*t->cpu_ns));
	if (!t->cpu_ns)
		return -ENOMEM;
	str = name_at(&m->threads, x->tid, UINT64_MAX);
	if (!str)
		str = name_at(&m->tasks, x->tid, UINT64_MAX);
	err = str ? intern_str(m, str, &t->name) : intern_tid(m, x->tid, &t->name);
	if (err)
		return err;
	err = sched_timeline__walk(&m->tl, ti, &m->w);
	if (err)
		return err;
	m->sp->inconsistent += m->w.inconsistent;
	return add_segments(m, ti);
}

static int cmp_str(const struct sched_profile *sp, uint32_t a, uint32_t b)
{
	uint32_t la = strtab__len(&sp->names, a), lb = strtab__len(&sp->names, b);
	int c = memcmp(sched_profile__name(sp, a), sched_profile__name(sp, b), la < lb ? la : lb);

	return c ? c : la < lb ? -1 : la > lb;
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b;
}

/* Preemptors: by time, then count; wakers: by count, then time; then
 * name and tid. */
static int cmp_preemptors(const void *a, const void *b, void *ctx)
{
	const struct sched_share *x = a, *y = b;
	int c = cmp_u64_desc(x->ns, y->ns);

	if (!c)
		c = cmp_u64_desc(x->count, y->count);
	if (!c)
		c = cmp_str(ctx, x->name, y->name);
	return c ? c : x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_wakers(const void *a, const void *b, void *ctx)
{
	const struct sched_share *x = a, *y = b;
	int c = cmp_u64_desc(x->count, y->count);

	if (!c)
		c = cmp_u64_desc(x->ns, y->ns);
	if (!c)
		c = cmp_str(ctx, x->name, y->name);
	return c ? c : x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_threads(const void *a, const void *b, void *ctx)
{
	const struct sched_thread *x = a, *y = b;
	int c = cmp_str(ctx, x->name, y->name);

	return c ? c : x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void sort_all(struct sched_profile *sp)
{
	size_t i;

	for (i = 0; i < sp->nthreads; i++) {
		struct sched_thread *t = &sp->threads[i];

		if (t->npreemptors > 1)
			qsort_r(t->preemptors, t->npreemptors, sizeof(*t->preemptors),
				cmp_preemptors, sp);
		if (t->nwakers > 1)
			qsort_r(t->wakers, t->nwakers, sizeof(*t->wakers), cmp_wakers, sp);
	}
	if (sp->nthreads > 1)
		qsort_r(sp->threads, sp->nthreads, sizeof(*sp->threads), cmp_threads, sp);
}

static int build(struct model *m)
{
	struct sched_profile *sp = m->sp;
	size_t i;
	int err;

	err = sched_timeline__init(&m->tl, m->r);
	if (!err)
		err = index_names(m);
	if (!err)
		err = keymap__init(&m->shares, 256);
	if (err)
		return err;
	sp->start = m->tl.start;
	sp->end = m->tl.end;
	sp->ncpus = m->tl.ncpus;
	sp->nrecords = m->r->nsched;
	sp->lost = recording__stat(m->r, "sched-lost");
	sp->threads = calloc(m->tl.nthreads ? m->tl.nthreads : 1, sizeof(*sp->threads));
	if (!sp->threads)
		return -ENOMEM;
	sp->nthreads = m->tl.nthreads;
	for (i = 0; i < sp->nthreads; i++) {
		err = build_thread(m, i);
		if (err)
			return err;
	}
	sort_all(sp);
	return 0;
}

int sched_profile__from_recording(struct sched_profile *sp, const struct recording *r)
{
	struct model m = {.sp = sp, .r = r};
	int err;

	memset(sp, 0, sizeof(*sp));
	if (!r->nsched)
		return -ENODATA;
	err = strtab__init(&sp->names);
	if (err)
		return err;
	err = build(&m);
	sched_timeline__release(&m.tl);
	sched_walk__release(&m.w);
	keymap__release(&m.shares);
	free(m.tasks.ev);
	free(m.threads.ev);
	if (err)
		sched_profile__release(sp);
	return err;
}

void sched_profile__release(struct sched_profile *sp)
{
	size_t i;

	for (i = 0; sp->threads && i < sp->nthreads; i++) {
		free(sp->threads[i].cpu_ns);
		free(sp->threads[i].preemptors);
		free(sp->threads[i].wakers);
	}
	free(sp->threads);
	if (sp->names.index)
		strtab__release(&sp->names);
	memset(sp, 0, sizeof(*sp));
}
