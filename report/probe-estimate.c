/* probe-estimate.c: what each kept probe hit stands for (report.h,
 * struct probe_estimate): the hits --every or --every-bytes skipped
 * (lib/sample-skip.h's weights, N for an every-Nth recording, or the
 * period each closed when the kernel drew them: record/probe-kperiod.c) and those
 * of the time between windows (the probed span over the attached time),
 * so that `prof report --alloc` shows estimated allocations and bytes, and
 * the line saying they are estimates and from how many samples. Recordings
 * made before prof wrote probe-span-ns read as before: a hit is a hit. */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sample-skip.h"

static uint64_t meta_u64(const struct recording *r, const char *key)
{
	const char *v = recording__meta(r, key);

	return v ? strtoull(v, NULL, 10) : 0;
}

void probe_estimate__init(struct probe_estimate *e, const struct recording *r)
{
	uint64_t span = recording__stat(r, "probe-span-ns");
	uint64_t attached = recording__stat(r, "probe-attached-ns");
	const char *window = recording__meta(r, "probe-window");
	const char *how = recording__meta(r, "probe-sampling");

	memset(e, 0, sizeof(*e));
	e->scale = 1;
	e->every = meta_u64(r, "probe-every");
	if (!span) {
		e->mode = PROBE_EST_HITS; /* an older recording */
		return;
	}
	e->every_bytes = meta_u64(r, "probe-every-bytes");
	e->unknown_mean = meta_u64(r, "probe-unknown-size-mean");
	if (!e->unknown_mean)
		e->unknown_mean = 16;
	if (e->every_bytes) {
		e->mode = PROBE_EST_BYTES;
	} else if (e->every > 1 && how && !strcmp(how, "kernel")) {
		e->mode = PROBE_EST_PERIOD;
		e->tail = 1; /* report/probe.c: the kernel's count over the weights */
	} else if (e->every > 1)
		e->mode = how ? PROBE_EST_COUNT : PROBE_EST_NTH;
	else
		e->mode = PROBE_EST_ALL;
	e->duty = attached && attached < span ? (double)attached / (double)span : 1;
	if (window && strcmp(window, "continuous") && attached)
		e->scale = 1 / e->duty;
}

void probe_estimate__weigh(const struct probe_estimate *e, int64_t size, double *count,
			   double *bytes)
{
	uint64_t s = size > 0 ? (uint64_t)size : 0;

	switch (e->mode) {
	case PROBE_EST_HITS:
		*count = 1;
		*bytes = (double)s;
		return;
	case PROBE_EST_BYTES:
		if (size < 0) { /* sampled by count as one of the mean size */
			*count = sample_skip_count_weight(e->unknown_mean, e->every_bytes);
			*bytes = 0;
		} else {
			*count = sample_skip_count_weight(s, e->every_bytes);
			*bytes = s ? sample_skip_size_weight(s, e->every_bytes) : 0;
		}
		break;
	case PROBE_EST_COUNT:
		*count = sample_skip_count_weight(1, e->every);
		*bytes = *count * (double)s;
		break;
	case PROBE_EST_NTH:
		*count = (double)e->every;
		*bytes = *count * (double)s;
		break;
	default:
		*count = 1;
		*bytes = (double)s;
		break;
	}
	*count *= e->scale;
	*bytes *= e->scale;
}

void probe_estimate__weigh_period(const struct probe_estimate *e, int64_t size, double hits,
				  double *count, double *bytes)
{
	*count = hits * e->tail * e->scale;
	*bytes = size > 0 ? *count * (double)size : 0;
}


void probe_estimate__add(struct probe_estimate *e, int64_t size, double count, double bytes)
{
	e->samples++;
	e->count += count;
	e->bytes += bytes;
	if (size < 0)
		e->unknown++;
}

/* 27.9 M, 1.2 G: three digits at most. */
static void human(char *buf, size_t len, double v, const char *unit)
{
	static const char *const pre[] = {"", "K", "M", "G", "T", "P"};
	unsigned k = 0;

	while (v >= 999.95 && k + 1 < sizeof(pre) / sizeof(pre[0])) {
		v /= 1000;
		k++;
	}
	if (!k)
		snprintf(buf, len, "%.0f%s%s", v, *unit ? " " : "", unit);
	else
		snprintf(buf, len, "%.*f %s%s", v < 100 ? 1 : 0, v, pre[k], unit);
}

/* 11892 -> "11,892" */
static void grouped(char *buf, size_t len, uint64_t v)
{
	char d[32];
	size_t n = (size_t)snprintf(d, sizeof(d), "%llu", (unsigned long long)v), o = 0;

	for (size_t i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = d[i];
	}
	buf[o] = '\0';
}

void probe_estimate__print(const struct probe_estimate *e, int alloc, const char *event,
			   FILE *out)
{
	char cnt[32], byt[32], n[32], how[64];

	if (e->mode == PROBE_EST_HITS || !e->samples)
		return;
	human(cnt, sizeof(cnt), e->count, "");
	human(byt, sizeof(byt), e->bytes, "B");
	grouped(n, sizeof(n), e->samples);
	if (e->mode == PROBE_EST_BYTES)
		snprintf(how, sizeof(how), ", 1 sample per %llu bytes",
			 (unsigned long long)e->every_bytes);
	else if (e->mode == PROBE_EST_COUNT || e->mode == PROBE_EST_NTH ||
		 e->mode == PROBE_EST_PERIOD)
		snprintf(how, sizeof(how), ", 1 in ~%llu kept", (unsigned long long)e->every);
	else
		how[0] = '\0';
	if (alloc)
		fprintf(out, "prof report: estimated %s allocations, %s", cnt, byt);
	else
		fprintf(out, "prof report: estimated %s hits of %s", cnt, event);
	fprintf(out, " (from %s samples, %.1f%% of the time probed%s)\n", n, 100 * e->duty, how);
	if (alloc && e->unknown)
		fprintf(out, "prof report: %llu samples of unknown size: sampled as %llu bytes each, "
			"counted, their bytes left out\n", (unsigned long long)e->unknown,
			(unsigned long long)e->unknown_mean);
}
