/* sched-timeline.c: the scheduler records of a recording, per thread and in
 * time order, walked into segments of on-CPU and off-CPU time (see
 * sched-timeline.h; the rules are documented in sched.h).
 *
 * Records of different CPUs arrive interleaved, so each thread's records
 * are sorted by time, file order on ties. Equal times still need a choice:
 * the walk takes, among the (at most TIE_WINDOW) records of the same time,
 * the one that fits the thread's state (an OUT while on CPU; a WAKE, then an
 * IN while off CPU), so a switch-in and a switch-out stamped with the same
 * nanosecond never look like a lost event. */
#include "sched-timeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

#define TIE_WINDOW 8 /* records of one time looked at for a fit, or for a duplicate */

enum walk_state { ST_UNKNOWN, ST_ON, ST_OFF };

enum sched_bucket sched_bucket_of_state(unsigned state)
{
	switch (state) {
	case REC_STATE_RUNNING:
	case REC_STATE_PREEMPTED:
		return SCHED_PREEMPTED;
	case REC_STATE_SLEEPING:
		return SCHED_SLEEPING;
	case REC_STATE_DISK:
		return SCHED_DISK;
	default:
		return SCHED_OTHER;
	}
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

static void see(uint64_t t, uint64_t *lo, uint64_t *hi, int *any)
{
	if (!*any || t < *lo)
		*lo = t;
	if (!*any || t > *hi)
		*hi = t;
	*any = 1;
}

/* The recording's window: its start (META), else its first record; its
 * duration (STATS) after the start, else its last record. */
static void find_window(struct sched_timeline *tl)
{
	const struct recording *r = tl->r;
	uint64_t lo = 0, hi = 0, start, dur;
	int any = 0;
	size_t i;

	for (i = 0; i < r->nsched; i++)
		if (r->sched[i].kind != REC_SCHED_TASK)
			see(r->sched[i].time, &lo, &hi, &any);
	for (i = 0; i < r->nsamples; i++)
		see(r->samples[i].time, &lo, &hi, &any);
	for (i = 0; i < r->nthreads; i++)
		see(r->threads[i].time, &lo, &hi, &any);
	if (parse_u64(recording__meta(r, "start-monotonic-ns"), &start))
		start = lo;
	dur = recording__stat(r, "duration-ns");
	tl->start = start;
	if (dur)
		tl->end = start > UINT64_MAX - dur ? UINT64_MAX : start + dur;
	else
		tl->end = hi > start ? hi : start;
}

static int thread_of(struct sched_timeline *tl, uint32_t tid, uint32_t *idx)
{
	uint32_t existing;
	int r;

	if (tl->nthreads >= SCHED_NONE)
		return -ENOMEM;
	r = keymap__put(&tl->tids, tid, 0, (uint32_t)tl->nthreads, &existing);
	if (r < 0)
		return r;
	if (!r) {
		*idx = existing;
		return 0;
	}
	if (GROW(tl->threads, tl->threads_cap, tl->nthreads + 1))
		return -ENOMEM;
	memset(&tl->threads[tl->nthreads], 0, sizeof(tl->threads[0]));
	tl->threads[tl->nthreads].tid = tid;
	*idx = (uint32_t)tl->nthreads++;
	return 0;
}

struct sort_key {
	uint64_t time;
	uint32_t thread, idx;
};

static int cmp_keys(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int index_records(struct sched_timeline *tl)
{
	const struct recording *r = tl->r;
	struct sort_key *keys;
	size_t i, n = 0;
	uint32_t t;
	int err;

	for (i = 0; i < r->nthreads; i++) {
		const struct rec_thread_event *e = &r->threads[i];
		struct sched_tl_thread *th;

		err = thread_of(tl, e->tid, &t);
		if (err)
			return err;
		th = &tl->threads[t];
		if (e->pid)
			th->pid = e->pid;
		if (e->kind == REC_THREAD_START && (!th->has_start || e->time < th->start_ev)) {
			th->has_start = 1;
			th->start_ev = e->time;
		} else if (e->kind == REC_THREAD_EXIT && (!th->has_exit || e->time > th->exit_ev)) {
			th->has_exit = 1;
			th->exit_ev = e->time;
		}
	}
	/* Target threads: those with thread events, INIT, OUT or IN records.
	 * A WAKE names the wakee, which need not be a target (a target thread
	 * waking a kworker): it counts only for threads known otherwise. */
	for (i = 0; i < r->nsched; i++) {
		const struct rec_sched_full *s = &r->sched[i];

		if (s->kind != REC_SCHED_TASK && s->kind != REC_SCHED_WAKE &&
		    (err = thread_of(tl, s->tid, &t)))
			return err;
	}
	for (i = 0; i < r->nsched; i++) {
		const struct rec_sched_full *s = &r->sched[i];
		struct sched_tl_thread *th;

		if (s->kind == REC_SCHED_TASK || !keymap__get(&tl->tids, s->tid, 0, &t))
			continue;
		th = &tl->threads[t];
		if (s->kind == REC_SCHED_INIT) {
			if (!th->has_init || s->time < th->init_time) {
				th->has_init = 1;
				th->init_state = s->state;
				th->init_time = s->time;
			}
			continue;
		}
		if ((s->kind == REC_SCHED_OUT || s->kind == REC_SCHED_IN) && s->cpu >= tl->ncpus)
			tl->ncpus = (size_t)s->cpu + 1;
		th->n++;
		n++;
	}
	keys = malloc((n ? n : 1) * sizeof(*keys));
	tl->order = malloc((n ? n : 1) * sizeof(*tl->order));
	if (!keys || !tl->order) {
		free(keys);
		return -ENOMEM;
	}
	for (i = 0, n = 0; i < r->nsched; i++) {
		const struct rec_sched_full *s = &r->sched[i];

		if (s->kind == REC_SCHED_TASK || s->kind == REC_SCHED_INIT ||
		    !keymap__get(&tl->tids, s->tid, 0, &t))
			continue;
		keys[n++] = (struct sort_key){.time = s->time, .thread = t, .idx = (uint32_t)i};
	}
	qsort(keys, n, sizeof(*keys), cmp_keys);
	for (i = 0; i < n; i++)
		tl->order[i] = keys[i].idx;
	tl->norder = n;
	free(keys);
	for (i = 0, n = 0; i < tl->nthreads; i++) {
		tl->threads[i].first = (uint32_t)n;
		n += tl->threads[i].n;
	}
	return 0;
}

static int created(const struct sched_timeline *tl, const struct sched_tl_thread *th)
{
	return !th->has_init && th->has_start && th->start_ev > tl->start;
}

/* A thread's window: from the recording's start, or from its creation (or
 * its first record, if earlier) when it was created while recording; to
 * its exit (or its last record, if later), else the recording's end. */
static void thread_windows(struct sched_timeline *tl)
{
	const struct rec_sched_full *s = tl->r->sched;
	size_t i;

	for (i = 0; i < tl->nthreads; i++) {
		struct sched_tl_thread *th = &tl->threads[i];
		uint64_t first = th->n ? s[tl->order[th->first]].time : 0;
		uint64_t last = th->n ? s[tl->order[th->first + th->n - 1]].time : 0;
		uint64_t a = tl->start, b;

		if (created(tl, th)) {
			a = th->start_ev;
			if (th->n && first < a)
				a = first;
			if (a < tl->start)
				a = tl->start;
		}
		if (a > tl->end)
			a = tl->end;
		b = th->has_exit ? th->exit_ev : tl->end;
		if (th->n && last > b)
			b = last;
		if (b > tl->end)
			b = tl->end;
		th->start = a;
		th->end = b < a ? a : b;
	}
}

int sched_timeline__init(struct sched_timeline *tl, const struct recording *r)
{
	int err;

	memset(tl, 0, sizeof(*tl));
	tl->r = r;
	err = keymap__init(&tl->tids, 64);
	if (err)
		return err;
	find_window(tl);
	err = index_records(tl);
	if (err)
		return err;
	thread_windows(tl);
	return 0;
}

void sched_timeline__release(struct sched_timeline *tl)
{
	free(tl->threads);
	free(tl->order);
	keymap__release(&tl->tids);
	memset(tl, 0, sizeof(*tl));
}

uint32_t sched_timeline__find(const struct sched_timeline *tl, uint32_t tid)
{
	uint32_t idx;

	return keymap__get(&tl->tids, tid, 0, &idx) ? idx : SCHED_NONE;
}

void sched_walk__release(struct sched_walk *w)
{
	free(w->segs);
	free(w->outs);
	free(w->wakes);
	free(w->scratch);
	memset(w, 0, sizeof(*w));
}

/* The walk's state: what the thread is doing since `cur`. */
struct walker {
	const struct sched_tl_thread *th;
	struct sched_walk *w;
	enum walk_state st;
	uint32_t bucket, cpu, out, wake;
	uint64_t cur;
};

/* Closes the span [cur, to) clipped to the thread's window; `unknown`
 * counts it as SCHED_OTHER (after a lost event). */
static int emit(struct walker *k, uint64_t to, int unknown)
{
	uint64_t from = k->cur > k->th->start ? k->cur : k->th->start;
	uint64_t end = to < k->th->end ? to : k->th->end;
	struct sched_seg seg = {
	    .from = from, .to = end, .cpu = SCHED_NONE, .out = SCHED_NONE, .wake = SCHED_NONE};

	if (to > k->cur)
		k->cur = to;
	if (end <= from)
		return 0;
	if (unknown || k->st == ST_UNKNOWN) {
		seg.bucket = SCHED_OTHER;
	} else if (k->st == ST_ON) {
		seg.bucket = SCHED_ON_CPU;
		seg.cpu = k->cpu;
	} else {
		seg.bucket = k->bucket;
		seg.out = k->out;
		seg.wake = k->bucket == SCHED_WOKEN ? k->wake : SCHED_NONE;
	}
	if (GROW(k->w->segs, k->w->segs_cap, k->w->nsegs + 1))
		return -ENOMEM;
	k->w->segs[k->w->nsegs++] = seg;
	return 0;
}

static void set_off(struct walker *k, uint32_t bucket)
{
	k->st = ST_OFF;
	k->bucket = bucket;
	k->cpu = k->out = k->wake = SCHED_NONE;
}

/* Before the first record: INIT's state (R: on CPU all along when nothing
 * follows, else waiting for a CPU); a thread created while recording waits
 * for a CPU; else unknown. A first record that is an OUT overrides this
 * (see walk). */
static void initial_state(const struct sched_timeline *tl, struct walker *k)
{
	const struct sched_tl_thread *th = k->th;

	k->st = ST_UNKNOWN;
	k->cpu = k->out = k->wake = SCHED_NONE;
	if (th->has_init) {
		if (sched_bucket_of_state(th->init_state) == SCHED_PREEMPTED && !th->n) {
			k->st = ST_ON;
			k->cpu = SCHED_NONE;
		} else {
			set_off(k, sched_bucket_of_state(th->init_state));
		}
	} else if (created(tl, th) && th->n) {
		set_off(k, SCHED_WOKEN);
	}
}

/* How well a record of `kind` fits state `st`: 0 best. */
static int fit(enum walk_state st, unsigned kind)
{
	if (st == ST_OFF)
		return kind == REC_SCHED_WAKE ? 0 : kind == REC_SCHED_IN ? 1 : 2;
	return kind == REC_SCHED_OUT ? 0 : kind == REC_SCHED_WAKE ? 1 : 2;
}

/* Moves the record of s[i]'s time that fits best into s[i] (the others
 * keep their order). */
static void pick(const struct rec_sched_full *rs, enum walk_state st, uint32_t *s, size_t i,
		 size_t n)
{
	size_t best = i, j;
	int bf = fit(st, rs[s[i]].kind);
	uint32_t v;

	for (j = i + 1; j < n && j < i + TIE_WINDOW && bf && rs[s[j]].time == rs[s[i]].time; j++) {
		int f = fit(st, rs[s[j]].kind);

		if (f < bf) {
			bf = f;
			best = j;
		}
	}
	if (best == i)
		return;
	v = s[best];
	memmove(s + i + 1, s + i, (best - i) * sizeof(*s));
	s[i] = v;
}

/* The kernel can report one wake-up twice: same wakee, time and waker. */
static int duplicate_wake(const struct rec_sched_full *rs, const uint32_t *s, size_t i)
{
	size_t j = i > TIE_WINDOW ? i - TIE_WINDOW : 0;

	for (; j < i; j++)
		if (rs[s[j]].kind == REC_SCHED_WAKE && rs[s[j]].time == rs[s[i]].time &&
		    rs[s[j]].arg == rs[s[i]].arg)
			return 1;
	return 0;
}

/* Takes record `idx`; `first`: no switch came before it. */
static int take(struct walker *k, const struct rec_sched_full *rs, uint32_t idx, int first)
{
	const struct rec_sched_full *e = &rs[idx];
	struct sched_walk *w = k->w;
	int err;

	switch (e->kind) {
	case REC_SCHED_OUT:
		if (e->arg == e->tid && k->st != ST_ON) {
			/* A snapshot: asleep since before the recording
			 * (arg = itself, docs/FORMAT.md); the time off CPU
			 * so far is this OUT's. */
			k->st = ST_OFF;
			k->bucket = sched_bucket_of_state(e->state);
			k->out = idx;
			if (GROW(w->outs, w->outs_cap, w->nouts + 1))
				return -ENOMEM;
			w->outs[w->nouts++] = idx;
			return 0;
		}
		if (first) {
			/* It was on CPU to switch out; INIT (read from /proc)
			 * races with the thread going to sleep. */
			k->st = ST_ON;
			k->cpu = e->cpu;
		}
		if (k->st == ST_OFF)
			w->inconsistent++; /* an IN was lost */
		err = emit(k, e->time, k->st != ST_ON);
		if (err)
			return err;
		set_off(k, sched_bucket_of_state(e->state));
		k->out = idx;
		if (GROW(w->outs, w->outs_cap, w->nouts + 1))
			return -ENOMEM;
		w->outs[w->nouts++] = idx;
		return 0;
	case REC_SCHED_IN:
		if (k->st == ST_ON)
			w->inconsistent++; /* an OUT was lost */
		err = emit(k, e->time, k->st != ST_OFF);
		if (err)
			return err;
		k->st = ST_ON;
		k->cpu = e->cpu;
		k->out = k->wake = SCHED_NONE;
		return 0;
	case REC_SCHED_WAKE:
		if (GROW(w->wakes, w->wakes_cap, w->nwakes + 1))
			return -ENOMEM;
		w->wakes[w->nwakes++] = idx;
		if (k->st == ST_OFF && k->bucket != SCHED_PREEMPTED && k->wake == SCHED_NONE) {
			err = emit(k, e->time, 0);
			k->bucket = SCHED_WOKEN;
			k->wake = idx;
			return err;
		}
		if (k->st == ST_UNKNOWN) {
			err = emit(k, e->time, 1);
			set_off(k, SCHED_WOKEN);
			k->wake = idx;
			return err;
		}
		return 0; /* woken while running or runnable: nothing changes */
	default:
		return 0;
	}
}

int sched_timeline__walk(const struct sched_timeline *tl, size_t i, struct sched_walk *w)
{
	const struct sched_tl_thread *th = &tl->threads[i];
	const struct rec_sched_full *rs = tl->r->sched;
	struct walker k = {.th = th, .w = w, .cur = th->start};
	uint32_t *s;
	size_t j;
	int err, fresh = 1;

	w->nsegs = w->nouts = w->nwakes = 0;
	w->inconsistent = 0;
	if (GROW(w->scratch, w->scratch_cap, th->n ? th->n : 1))
		return -ENOMEM;
	s = w->scratch;
	memcpy(s, tl->order + th->first, th->n * sizeof(*s));
	initial_state(tl, &k);
	for (j = 0; j < th->n; j++) {
		/* "Fresh": no switch taken yet, and no time gone by; then an
		 * OUT goes first (see take()). */
		if (rs[s[j]].time != rs[s[0]].time)
			fresh = 0;
		pick(rs, fresh ? ST_UNKNOWN : k.st, s, j, th->n);
		if (rs[s[j]].kind == REC_SCHED_WAKE && duplicate_wake(rs, s, j))
			continue;
		err = take(&k, rs, s[j], fresh);
		if (err)
			return err;
		if (rs[s[j]].kind != REC_SCHED_WAKE)
			fresh = 0;
	}
	return emit(&k, th->end, 0);
}
