/* probe-kperiod.c: --every N decided in the kernel (probes.h). Each probe
 * event is opened with sample_period = a geometric skip of mean N
 * (lib/sample-skip.h), and after each of its samples is drained the
 * period is redrawn with PERF_EVENT_IOC_PERIOD, so that the kernel writes
 * only the kept hits (a uprobe still traps on every hit: what is saved is
 * the sample's write, its stack copy and prof's decoding of it).
 *
 * What the ioctl does (Linux 6.18, kernel/events/core.c and
 * trace_event_perf.c, checked with a uprobe): on an event not running at
 * that moment it sets the period and zeroes period_left, and the event's
 * next scheduling in (perf_trace_add(), since 6.12) reloads it: the next
 * sample comes exactly D hits after the ioctl. On an event running then,
 * the zeroed period_left makes the very next hit a sample. So the redraw
 * disables the event around the ioctl (three ioctls per kept sample).
 *
 * Between a sample and its redraw the event goes on at the old period;
 * those samples (prof was late) are left out (STAT probe-stale-samples): a
 * run of them at one period keeps one phase of a loop whose period divides
 * it. The first after each draw is kept; the draws being memoryless, a
 * redraw at any moment favours no phase. Each event is identified in its
 * samples by PERF_SAMPLE_READ's id (PERF_FORMAT_ID).
 *
 * Weights: the kernel counts every hit of each event, read() at each
 * window's end (and the end): per thread and event (STAT
 * probe-kernel-hits:EVENT:TID), a kept sample stands for its thread's
 * hits over its thread's kept samples (report/probe.c). Weighing each
 * sample by the period it closed (the hits since the thread's last kept
 * one) put prof's delay, and with it the phase the next draw starts from,
 * into the weight: a 20% class at 16.5%, shares off by up to 15 points on
 * a loaded host; one weight for all put a thread allocating at a tenth of
 * another's rate at 14% of the hits for its 9% (prof redraws both as
 * fast, so the busy one has more hits between its samples).
 *
 * A thread the target starts while attached gets a copy of its creator's
 * event, with the period of that moment; prof has no fd to redraw it,
 * so it keeps that period until the window closes, and its hits count
 * under its creator (read() sums the copies). */
#include "recorder.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <stdio.h>
#include <unistd.h>

#include "lib/grow.h"

#define STREAMS_MAX (1u << 16) /* event ids kept before a reset */
#define KPERIOD_MIN_EVERY 50   /* --every N decided in the kernel from this N */
#define FD_KEY (1ULL << 40)    /* keymap b for "event id -> fd index" */
#define TID_KEY (1ULL << 41)   /* keymap b (| event) for "thread -> its hits" (a = tid) */

struct kp_fd {
	int fd;
	uint32_t tid;
	int pending; /* a sample was kept: redraw */
	int fresh;   /* drawn (opened or redrawn) since its last kept sample */
	uint64_t drawn_ns; /* when: samples before are at the old period */
	uint8_t event;
};

struct kp_thread {
	uint32_t tid;
	uint8_t event;
	uint64_t hits;
};

struct probe_kperiod {
	struct keymap map; /* (id, FD_KEY) -> fd index; (tid, TID_KEY | event) -> thread */
	struct kp_thread *threads; /* the hits the kernel counted, per thread and event */
	size_t nthreads, threads_cap;
	struct kp_fd *fds; /* the kernel-period events open now */
	size_t nfds, fds_cap;
	uint64_t redraws, redraw_errors, kernel_hits, stale, opened;
	int closed; /* fds are the last window's, closed: samples still judged by them */
	uint64_t event_hits[256]; /* per event id */
};

int probe_kperiod_site(const struct recorder *rec, const struct probe_site *s)
{
	const struct record_opts *o = rec->opts;
	const struct probe_rec *p = &rec->probes;

	/* Not in windows: a window's events keep one sample each per redraw,
	 * and prof redraws a few times in 10 ms on a busy host (27 samples
	 * in 2 s of 10/100 windows where choosing among every hit kept 720),
	 * while the windows already bound what writing every hit costs. */
	if (p->window_ns && p->window_ns < p->period_ns)
		return 0;
	/* Nor below KPERIOD_MIN_EVERY: the redraws come so often that the
	 * hits made while they disable the event go uncounted (14% of a
	 * 20,000 a second loop's at --every 10, 0.4% at 50), for a small gain
	 * (1.2x the throughput of writing every hit at 10, 3.1x at 50). */
	return o->every >= KPERIOD_MIN_EVERY && !o->every_bytes && !o->malloc &&
	       (s->def.role == PROBE_ROLE_ARGS || s->def.role == PROBE_ROLE_ALLOC) &&
	       !s->def.continuous;
}

int probe_kperiod_setup(struct recorder *rec)
{
	struct probe_rec *p = &rec->probes;
	int any = 0;

	for (size_t k = 0; k < p->nsites; k++)
		any |= p->sites[k].kperiod;
	if (!any)
		return 0;
	p->kp = calloc(1, sizeof(*p->kp));
	if (!p->kp || keymap__init(&p->kp->map, 1024))
		return -ENOMEM;
	return 0;
}

void probe_kperiod_attr(struct probe_site *s)
{
	s->attr->sample_type |= PERF_SAMPLE_READ;
	s->attr->read_format = PERF_FORMAT_ID;
	/* Drained (and redrawn) at once: the event keeps its old period
	 * until then. */
	s->attr->watermark = 0;
	s->attr->wakeup_events = 1;
}

void probe_kperiod_draw(struct recorder *rec, struct probe_site *s)
{
	if (s->kperiod)
		s->attr->sample_period = sample_skip_draw(&rec->probes.keep);
}

int probe_kperiod_opened(struct recorder *rec, const struct probe_site *s, int fd, pid_t tid)
{
	struct probe_kperiod *kp = rec->probes.kp;
	uint64_t id;

	if (!s->kperiod || !kp)
		return 0;
	if (!kp->opened++) {
		/* The probed span starts with the first event, not at setup
		 * (200 ms before it under ASan): the kernel's count is exact,
		 * so the span the report compares it with must be too. */
		rec->probes.first_start = rec->probes.window_start = monotonic_ns();
	}
	if (ioctl(fd, PERF_EVENT_IOC_ID, &id))
		return -errno;
	if (kp->closed) { /* a new window */
		kp->nfds = 0;
		kp->closed = 0;
	}
	if (GROW(kp->fds, kp->fds_cap, kp->nfds + 1))
		return -ENOMEM;
	if (keymap__set(&kp->map, id, FD_KEY, (uint32_t)kp->nfds))
		return -ENOMEM;
	kp->fds[kp->nfds++] = (struct kp_fd){.fd = fd, .tid = (uint32_t)tid, .fresh = 1,
					     .event = s->event};
	return 0;
}

int probe_kperiod_hit(struct recorder *rec, uint32_t tid, uint64_t id, uint64_t time)
{
	struct probe_kperiod *kp = rec->probes.kp;
	uint32_t k;

	if (!kp)
		return 1;
	/* Its own thread's sample (a copy's cannot be redrawn): the first
	 * since the last draw is kept; later ones came at the same period
	 * before prof redrew it, each the same distance on from the last (a
	 * loop whose period divides it: one phase), and are left out, also
	 * those read only after the redraw (by their time). */
	if (keymap__get(&kp->map, id, FD_KEY, &k) && k < kp->nfds && kp->fds[k].tid == tid) {
		if (!kp->fds[k].fresh || time < kp->fds[k].drawn_ns) {
			kp->stale++;
			return 0;
		}
		kp->fds[k].fresh = 0;
		kp->fds[k].pending = 1;
	}
	return 1;
}

/* Adds a window's count of an event on thread tid (its copies' included). */
static void thread_hits(struct probe_kperiod *kp, uint8_t event, uint32_t tid, uint64_t n)
{
	uint32_t k;

	if (!keymap__get(&kp->map, tid, TID_KEY | event, &k) || k >= kp->nthreads) {
		if (GROW(kp->threads, kp->threads_cap, kp->nthreads + 1) ||
		    keymap__set(&kp->map, tid, TID_KEY | event, (uint32_t)kp->nthreads))
			return; /* out of memory: the report's weights fall back on N */
		k = (uint32_t)kp->nthreads++;
		kp->threads[k] = (struct kp_thread){.tid = tid, .event = event};
	}
	kp->threads[k].hits += n;
}

void probe_kperiod_redraw(struct recorder *rec)
{
	struct probe_kperiod *kp = rec->probes.kp;

	for (size_t i = 0; kp && !kp->closed && i < kp->nfds; i++) {
		uint64_t d;

		if (!kp->fds[i].pending)
			continue;
		kp->fds[i].pending = 0;
		kp->fds[i].fresh = 1;
		kp->fds[i].drawn_ns = monotonic_ns();
		d = sample_skip_draw(&rec->probes.keep);
		kp->redraws++;
		/* Disabled around it: on an event active at that moment the
		 * ioctl zeroes period_left and the next hit is sampled at
		 * once; enabling reloads it, D hits on. */
		ioctl(kp->fds[i].fd, PERF_EVENT_IOC_DISABLE, 0);
		if (ioctl(kp->fds[i].fd, PERF_EVENT_IOC_PERIOD, &d))
			kp->redraw_errors++;
		ioctl(kp->fds[i].fd, PERF_EVENT_IOC_ENABLE, 0);
	}
}

void probe_kperiod_detach(struct recorder *rec)
{
	struct probe_kperiod *kp = rec->probes.kp;

	if (!kp)
		return;
	/* Every hit of the window, its copies' included: the weights. */
	for (size_t i = 0; i < kp->nfds; i++) {
		uint64_t v[2];

		if (read(kp->fds[i].fd, v, sizeof(v)) == (ssize_t)sizeof(v)) {
			kp->kernel_hits += v[0];
			kp->event_hits[kp->fds[i].event] += v[0];
			thread_hits(kp, kp->fds[i].event, kp->fds[i].tid, v[0]);
		}
	}
	kp->closed = 1; /* their samples still to drain are judged as before */
	/* Event ids are never reused: the old ones only take room. */
	if (kp->map.count > STREAMS_MAX) {
		keymap__clear(&kp->map);
		for (size_t i = 0; i < kp->nthreads; i++)
			keymap__set(&kp->map, kp->threads[i].tid, TID_KEY | kp->threads[i].event,
				    (uint32_t)i);
	}
}

void probe_kperiod_write_stats(struct recorder *rec)
{
	struct probe_kperiod *kp = rec->probes.kp;
	const struct probe_rec *p = &rec->probes;
	char key[600];

	if (!kp)
		return;
	rec_writer__meta(rec->w, "probe-sampling", "kernel");
	/* The hits: those the kernel counted, of which all but the kept
	 * samples (and those at the windows' edges) skipped. */
	if (kp->kernel_hits > rec->probes.hits) {
		rec->probes.skipped = kp->kernel_hits - rec->probes.hits;
		rec->probes.hits = kp->kernel_hits;
	}
	rec_writer__stat(rec->w, "probe-kernel-hits", kp->kernel_hits);
	for (size_t k = 0; k < p->nsites; k++) { /* once per event: its first site */
		const struct probe_site *s = &p->sites[k];

		if (!s->kperiod || (k && p->sites[k - 1].event == s->event))
			continue;
		snprintf(key, sizeof(key), "probe-kernel-hits:%s", s->def.event);
		rec_writer__stat(rec->w, key, kp->event_hits[s->event]);
		for (size_t i = 0; i < kp->nthreads; i++)
			if (kp->threads[i].event == s->event) {
				snprintf(key, sizeof(key), "probe-kernel-hits:%s:%u", s->def.event,
					 kp->threads[i].tid);
				rec_writer__stat(rec->w, key, kp->threads[i].hits);
			}
	}
	rec_writer__stat(rec->w, "probe-redraws", kp->redraws);
	rec_writer__stat(rec->w, "probe-stale-samples", kp->stale);
	if (kp->redraw_errors)
		rec_writer__stat(rec->w, "probe-redraw-errors", kp->redraw_errors);
}

void probe_kperiod_release(struct recorder *rec)
{
	struct probe_kperiod *kp = rec->probes.kp;

	if (!kp)
		return;
	keymap__release(&kp->map);
	free(kp->threads);
	free(kp->fds);
	free(kp);
	rec->probes.kp = NULL;
}
