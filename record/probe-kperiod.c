/* probe-kperiod.c: --every N decided in the kernel (probes.h). Each probe
 * event is opened with sample_period = a geometric skip of mean N
 * (lib/sample-skip.h), and after each of its samples is drained the
 * period is redrawn with PERF_EVENT_IOC_PERIOD, so that the kernel writes
 * only the kept hits (a uprobe still traps on every hit: what is saved is
 * the sample's write, its stack copy and prof's decoding of it).
 *
 * What the ioctl does (Linux 6.18, kernel/events/core.c, checked with a
 * uprobe, target running or not): it sets the period and restarts the
 * count, so the next sample comes exactly D hits after the ioctl, never at
 * once (since 6.12 perf_trace_add() reloads period_left when the event is
 * scheduled in; __perf_event_period() zeroes it). Between a sample and its
 * redraw the event goes on with the old period, so a sample may close a
 * longer or shorter stretch than drawn: each sample carries the event's
 * count (PERF_SAMPLE_READ), and its weight is the hits since the previous
 * kept sample of the same event and thread, which the kernel counted:
 * the period it closed, exact whatever the drain's delay. Samples the
 * kernel wrote at the old period before the redraw (prof was late) are
 * left out (STAT probe-stale-samples): a run of them at one period keeps
 * one phase of a loop whose period divides it. The draws being
 * memoryless, a redraw at any moment favours no phase.
 *
 * A thread the target starts while attached gets a copy of its creator's
 * event, with the period of that moment; prof has no fd to redraw it,
 * so it keeps that period until the window closes (its weights stay
 * exact). The hits after each event's last sample are counted at the
 * window's end (read()) and the report scales the weights to them
 * (STATs probe-kernel-hits, probe-kernel-hits:EVENT). */
#include "recorder.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <stdio.h>
#include <unistd.h>

#include "lib/grow.h"

#define STREAMS_MAX (1u << 16) /* (event, thread) counts kept before a reset */
#define FD_KEY (1ULL << 40)    /* keymap b for "event id -> fd index" */

struct kp_fd {
	int fd;
	uint32_t tid;
	int pending; /* a sample was kept: redraw */
	int fresh;   /* drawn (opened or redrawn) since its last kept sample */
	uint64_t drawn; /* the period of that draw */
	uint8_t event;
};

struct probe_kperiod {
	struct keymap map; /* (id, tid) -> stream index; (id, FD_KEY) -> fd index */
	uint64_t *last;    /* per stream: the count at its last sample */
	size_t nlast, last_cap;
	struct kp_fd *fds; /* the kernel-period events open now */
	size_t nfds, fds_cap;
	uint64_t redraws, redraw_errors, kernel_hits, stale;
	uint64_t event_hits[256]; /* per event id */
	uint64_t mean; /* a draw's mean length, rounded: 1 / (1 - exp(-1/N)) */
};

int probe_kperiod_site(const struct recorder *rec, const struct probe_site *s)
{
	const struct record_opts *o = rec->opts;

	return o->every > 1 && !o->every_bytes && !o->malloc &&
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
	p->kp->mean = (uint64_t)llround(sample_skip_count_weight(1, rec->opts->every));
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
	if (ioctl(fd, PERF_EVENT_IOC_ID, &id))
		return -errno;
	if (GROW(kp->fds, kp->fds_cap, kp->nfds + 1))
		return -ENOMEM;
	if (keymap__set(&kp->map, id, FD_KEY, (uint32_t)kp->nfds))
		return -ENOMEM;
	kp->fds[kp->nfds++] = (struct kp_fd){.fd = fd, .tid = (uint32_t)tid, .fresh = 1,
					     .drawn = s->attr->sample_period, .event = s->event};
	return 0;
}

int probe_kperiod_hit(struct recorder *rec, uint32_t tid, uint64_t value, uint64_t id,
		      uint64_t *delay)
{
	struct probe_kperiod *kp = rec->probes.kp;
	uint64_t drawn = 0, period;
	uint32_t k;

	*delay = 0;
	if (!kp)
		return 1;
	/* Its own thread's sample (a copy's cannot be redrawn): the first
	 * since the last draw is kept; later ones came at the same period
	 * before prof redrew it, each the same distance on from the last (a
	 * loop whose period divides it: one phase), and are left out, their
	 * hits going to the next kept one. */
	if (keymap__get(&kp->map, id, FD_KEY, &k) && k < kp->nfds && kp->fds[k].tid == tid) {
		if (!kp->fds[k].fresh) {
			kp->stale++;
			return 0;
		}
		kp->fds[k].fresh = 0;
		kp->fds[k].pending = 1;
		drawn = kp->fds[k].drawn;
	}
	if (keymap__get(&kp->map, id, tid, &k) && k < kp->nlast) {
		period = value > kp->last[k] ? value - kp->last[k] : 1;
		kp->last[k] = value;
	} else {
		period = value ? value : 1; /* counted from the event's opening */
		if (!GROW(kp->last, kp->last_cap, kp->nlast + 1) &&
		    !keymap__set(&kp->map, id, tid, (uint32_t)kp->nlast))
			kp->last[kp->nlast++] = value;
	}
	/* A fresh sample: the hits of prof's delay before its draw (the stale
	 * ones fell in it); the report gives them to the thread's sample
	 * before (report/probe.c). A copy's: its fixed period, as a delay
	 * over the mean. */
	if (drawn)
		*delay = period > drawn ? period - drawn : 0;
	else
		*delay = period > kp->mean ? period - kp->mean : 0;
	return 1;
}

void probe_kperiod_redraw(struct recorder *rec)
{
	struct probe_kperiod *kp = rec->probes.kp;

	for (size_t i = 0; kp && i < kp->nfds; i++) {
		uint64_t d;

		if (!kp->fds[i].pending)
			continue;
		kp->fds[i].pending = 0;
		kp->fds[i].fresh = 1;
		d = sample_skip_draw(&rec->probes.keep);
		kp->fds[i].drawn = d;
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
	/* Every hit of the window, its copies' included: the report scales
	 * the sampled periods to it (the hits after each last sample). */
	for (size_t i = 0; i < kp->nfds; i++) {
		uint64_t v[2];

		if (read(kp->fds[i].fd, v, sizeof(v)) == (ssize_t)sizeof(v)) {
			kp->kernel_hits += v[0];
			kp->event_hits[kp->fds[i].event] += v[0];
		}
	}
	kp->nfds = 0;
	/* Event ids are never reused: old streams only take room. Their
	 * samples were drained before the next window opened (a drain comes
	 * between a detach and the next attach); bounded all the same. */
	if (kp->map.count > STREAMS_MAX) {
		keymap__clear(&kp->map);
		kp->nlast = 0;
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
	free(kp->last);
	free(kp->fds);
	free(kp);
	rec->probes.kp = NULL;
}
