/* probe-windows.c: where the probes' windows fall (probes.h), and which of
 * the hits inside them prof keeps.
 *
 * Windows: W ms in each period of P ms, at a random offset drawn afresh
 * for each period (uniform in [0, P - W]), so that no periodic or bursty
 * work (a job that runs once a second) is seen out of proportion, as it
 * was on a fixed grid: any moment is inside a window with probability W/P.
 * Unlike a Poisson process of the same duty cycle (exponential gaps of
 * mean P - W), the attached time stays W per P: with those, 100 ms
 * windows every 400 ms came 6 in 3 s once in t0600 (8 expected, a
 * standard deviation of 2 by renewal theory), the duty cycle 7 points off.
 *
 * Hits: with --every N, each one is kept with probability about 1/N by a
 * geometric skip drawn afresh after each kept hit (lib/sample-skip.h); with
 * --every-bytes SIZE, an allocation of S bytes with probability
 * 1 - exp(-S/SIZE). The kernel keeps every hit inside a window (period
 * 1): a kernel sample_period, fixed between redraws, kept the same phase
 * of a loop whose period divides it (probed all along, --every N is a
 * kernel period again, redrawn after each sample: probe-kperiod.c).
 * --malloc's entries take the same window test (probe_windows_inside)
 * and then malloc-decode.c's own sampler by bytes (--every-bytes, 512 KiB
 * by default). */
#include "recorder.h"

#include <stdio.h>
#include <unistd.h>

#define UNKNOWN_SIZE_GUESS 16 /* bytes, for a hit of unknown size before any known one */

void probe_windows_init(struct recorder *rec)
{
	struct probe_rec *p = &rec->probes;
	const struct record_opts *o = rec->opts;
	uint64_t seed = (uint64_t)monotonic_ns() ^ (uint64_t)getpid() << 32;

	p->rng = seed;
	if (o->every_bytes && o->alloc) /* --malloc's own: malloc-decode.c */
		sample_skip_init(&p->keep, o->every_bytes, seed * 3 + 1);
	else
		sample_skip_init(&p->keep, o->every, seed * 3 + 1);
}

void probe_windows_next(struct probe_rec *p)
{
	uint64_t room = p->period_ns - p->window_ns;

	p->slot += p->period_ns;
	/* a 64-bit LCG's high bits (Knuth's MMIX constants): a µs-grain offset */
	p->rng = p->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	p->next_switch = p->slot + (p->rng >> 24) % (room / 1000 + 1) * 1000;
}

void probe_windows_live(struct probe_rec *p, uint64_t start, uint64_t end)
{
	uint64_t *w = p->live[(p->nlive - 1) % 16];

	if (p->nlive && w[0] == start) {
		w[1] = end;
		return;
	}
	w = p->live[p->nlive++ % 16];
	w[0] = start;
	w[1] = end;
}

static int in_window(const struct probe_rec *p, uint64_t time)
{
	for (unsigned i = 0; i < p->nlive && i < 16; i++) {
		const uint64_t *w = p->live[(p->nlive - 1 - i) % 16];

		if (time >= w[0] && time <= w[1])
			return 1;
	}
	return 0;
}

int probe_windows_inside(struct probe_rec *p, const struct probe_site *s, uint64_t time)
{
	if (p->window_ns && p->window_ns < p->period_ns && s->def.role != PROBE_ROLE_THREAD_START &&
	    !s->def.continuous && !in_window(p, time)) {
		p->edge_hits++;
		return 0;
	}
	return 1;
}

int probe_windows_keep(struct recorder *rec, const struct probe_site *s, int64_t size,
		       uint64_t time)
{
	struct probe_rec *p = &rec->probes;
	uint64_t units = 1;

	if (!probe_windows_inside(p, s, time))
		return 0;
	if (p->keep.mean <= 1)
		return 1;
	if (rec->opts->every_bytes && s->def.role == PROBE_ROLE_ALLOC) {
		if (size >= 0) {
			p->known_bytes += (uint64_t)size;
			p->known_sizes++;
			units = (uint64_t)size;
		} else {
			/* size unknown: drawn as one of the mean size seen so far */
			units = p->known_sizes ? p->known_bytes / p->known_sizes : UNKNOWN_SIZE_GUESS;
			p->unknown_sizes++;
		}
	}
	if (!sample_skip_take(&p->keep, units ? units : 1)) {
		p->skipped++;
		return 0;
	}
	return 1;
}

void probe_windows_write_stats(struct recorder *rec)
{
	struct probe_rec *p = &rec->probes;
	const struct record_opts *o = rec->opts;
	uint64_t end = p->end_ns ? p->end_ns : monotonic_ns();
	char buf[32];
	uint64_t kept = p->hits - p->skipped - p->edge_hits;
	uint64_t every_bytes = o->alloc ? o->every_bytes : 0; /* --malloc's: malloc-every-bytes */

	rec_writer__stat(rec->w, "probe-kept", kept);
	rec->sum->probe_hits = kept;
	rec->sum->probe_seen = kept < p->hits ? p->hits : 0;
	rec_writer__stat(rec->w, "probe-span-ns", end > p->first_start ? end - p->first_start : 0);
	if (p->edge_hits)
		rec_writer__stat(rec->w, "probe-edge-hits", p->edge_hits);
	if ((o->every > 1 || every_bytes) && !p->kp) /* probe-kperiod.c: "kernel" */
		rec_writer__meta(rec->w, "probe-sampling", "geometric");
	if (!every_bytes)
		return;
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)every_bytes);
	rec_writer__meta(rec->w, "probe-every-bytes", buf);
	rec_writer__stat(rec->w, "probe-unknown-sizes", p->unknown_sizes);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)(p->known_sizes ? p->known_bytes /
				p->known_sizes : UNKNOWN_SIZE_GUESS));
	rec_writer__meta(rec->w, "probe-unknown-size-mean", buf);
}
