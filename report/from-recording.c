/* from-recording.c: builds a profile from a recording (see report.h): the
 * CPU profile here, the time-weighted ones in off-cpu.c and the probe ones
 * in probe.c, all on the builder of builder.c (thread keys, stacks rendered
 * once).
 *
 * Work is bounded by the number of unique things, not samples: CPU samples
 * are counted per (stack id, truncated) in a flat array, or per (thread key,
 * stack id, truncated) by radix sorting one 64-bit key per sample; then each
 * unique stack id is rendered once, each frame id named once, each thread
 * name interned once. Per sample: no allocation, no hashing of strings. */
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/builder.h"

static int count_by_stack(struct builder *b)
{
	const struct recording *r = b->r;
	uint64_t *counts = calloc(r->nstacks ? r->nstacks * 2 : 2, sizeof(*counts));
	size_t i;
	int err = 0;

	if (!counts)
		return -ENOMEM;
	for (i = 0; i < r->nsamples; i++) {
		const struct rec_sample_full *s = &r->samples[i];

		if (recording__event_is_cpu(r, s->event))
			counts[(size_t)s->stack * 2 + !!(s->flags & REC_SAMPLE_TRUNCATED)]++;
	}
	for (i = 0; i < r->nstacks * 2 && !err; i++)
		if (counts[i])
			err = builder__add_entry(b, i, 0, BUILDER_NO_THREAD, counts[i]);
	free(counts);
	return err;
}

static unsigned bits_for(uint64_t n)
{
	unsigned b = 0;

	while (b < 64 && (n >> b))
		b++;
	return b;
}

/* LSD radix sort of n keys of `bits` bits, 11 bits a pass; the result ends
 * in *keys (tmp is scratch of the same size). */
static void radix_sort(uint64_t **keys, uint64_t **tmp, size_t n, unsigned bits)
{
	size_t count[2048], i;
	unsigned shift;

	for (shift = 0; shift < bits; shift += 11) {
		uint64_t *src = *keys, *dst = *tmp, *t;
		size_t sum = 0;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(src[i] >> shift) & 2047]++;
		for (i = 0; i < 2048; i++) {
			size_t c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 2047]++] = src[i];
		t = *keys;
		*keys = *tmp;
		*tmp = t;
	}
}

/* Counts samples per (thread key, stack): each sample becomes one 64-bit
 * key (thread key above the stack bits), the keys are radix sorted, and
 * each run of equal keys is one entry. Linear in samples, cache friendly,
 * and the entries come out grouped by thread. */
static int count_by_thread(struct builder *b)
{
	const struct recording *r = b->r;
	uint64_t *keys = NULL, *tmp = NULL;
	uint32_t *tkeys = NULL;
	unsigned sbits = bits_for((uint64_t)r->nstacks * 2), tbits;
	size_t n = 0, i, j;
	int err = -ENOMEM;

	tkeys = malloc((r->nsamples ? r->nsamples : 1) * sizeof(*tkeys));
	keys = malloc((r->nsamples ? r->nsamples : 1) * sizeof(*keys));
	if (!tkeys || !keys)
		goto out;
	/* The CPU samples: keys[] holds their stack for now. */
	for (i = 0; i < r->nsamples; i++) {
		const struct rec_sample_full *s = &r->samples[i];

		if (!recording__event_is_cpu(r, s->event))
			continue;
		err = builder__sample_tkey(b, s->tid, s->time, &tkeys[n]);
		if (err)
			goto out;
		keys[n++] = (uint64_t)s->stack * 2 + !!(s->flags & REC_SAMPLE_TRUNCATED);
	}
	err = -ENOMEM;
	tbits = bits_for(b->ntkeys);
	if (sbits + tbits > 64)
		goto out; /* billions of threads and stacks: not in this memory */
	tmp = malloc((n ? n : 1) * sizeof(*tmp));
	if (!tmp)
		goto out;
	for (i = 0; i < n; i++)
		keys[i] |= (uint64_t)tkeys[i] << sbits;
	free(tkeys);
	tkeys = NULL;
	radix_sort(&keys, &tmp, n, sbits + tbits);
	err = 0;
	for (i = 0; i < n && !err; i = j) {
		for (j = i + 1; j < n && keys[j] == keys[i]; j++)
			;
		err = builder__add_entry(b, keys[i] & ((UINT64_C(1) << sbits) - 1), 0,
					 (uint32_t)(keys[i] >> sbits), j - i);
	}
out:
	free(tkeys);
	free(keys);
	free(tmp);
	return err;
}

static int build(struct builder *b, struct profile *p, const struct recording *r,
		 const struct profile_build_opts *opts)
{
	int by_thread = opts && opts->by == PROFILE_BY_THREAD;
	enum profile_weight weight = opts ? opts->weight : PROFILE_WEIGHT_CPU;
	int err;

	if (weight != PROFILE_WEIGHT_CPU && !r->nsched)
		return -ENODATA;
	err = builder__init(b, p, r, opts);
	if (err)
		return err;
	if (opts && opts->probe && opts->probe->event >= 0)
		return build_probe(b, opts, by_thread);
	if (weight != PROFILE_WEIGHT_CPU)
		return build_weighted(b, weight, by_thread);
	return by_thread ? count_by_thread(b) : count_by_stack(b);
}

int profile__from_recording(struct profile *p, const struct recording *r,
			    const struct profile_build_opts *opts)
{
	struct builder b = {0};
	int err;

	if (opts && opts->time_order)
		return profile__from_recording_in_time(p, r, opts);
	err = build(&b, p, r, opts);

	builder__release(&b);
	return err;
}
