/* malloc-view.c: native allocation profiles of `prof record --malloc`
 * recordings (`prof report --malloc`, `--leaks`, and `prof svg`'s).
 *
 * Each sample of event "uprobe:malloc" is an allocation kept by the byte
 * sampler, with arguments (size, address, bytes it stands for = size / p);
 * with --leaks, each sample of "uprobe:malloc:free" names (by sample
 * index) a kept allocation that was freed. --malloc weighs the allocation
 * stacks by the estimated bytes (or, --weight count, the estimated calls
 * size/p / size; --weight samples, 1 a sample); --leaks keeps only the
 * allocations never freed by the end of the recording and older than the
 * leak age there (the youngest are still in use, not leaked).
 *
 * Work: one pass over the samples (two with --leaks) walking the ARGS
 * records along, one hash update per kept sample; memory: a byte per
 * sample with --leaks. */
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/keymap.h"
#include "report/builder.h"

#define FREE_EVENT "uprobe:malloc:free"

/* The ARGS record of sample i, walking *ai along (both sorted). */
static const struct rec_args_ref *args_of(const struct recording *r, size_t i, size_t *ai)
{
	while (*ai < r->nargs && r->args[*ai].sample < i)
		(*ai)++;
	return *ai < r->nargs && r->args[*ai].sample == i ? &r->args[*ai] : NULL;
}

/* freed[i]: allocation sample i was freed before the end. NULL without
 * frees; -ENOMEM. */
static int freed_marks(const struct recording *r, uint8_t **out)
{
	int ev = recording__find_event(r, FREE_EVENT);
	uint8_t *freed;
	size_t ai = 0;

	*out = NULL;
	if (ev < 0)
		return 0;
	freed = calloc(r->nsamples ? r->nsamples : 1, 1);
	if (!freed)
		return -ENOMEM;
	for (size_t i = 0; i < r->nsamples; i++) {
		const struct rec_args_ref *a;

		if (r->samples[i].event != (unsigned)ev || !(a = args_of(r, i, &ai)) || a->n < 1)
			continue;
		if (r->argvals[a->first] >= 0 && (uint64_t)r->argvals[a->first] < r->nsamples)
			freed[r->argvals[a->first]] = 1;
	}
	*out = freed;
	return 0;
}

/* Calls fn for each allocation sample the view keeps, with its size and
 * estimated bytes. Fills *t. 0 or -errno (fn's). */
static int each_kept(const struct recording *r, const struct probe_view *v, struct malloc_totals *t,
		     int (*fn)(void *ctx, size_t i, uint64_t size, uint64_t est), void *ctx)
{
	unsigned ev = (unsigned)v->event;
	uint64_t first = UINT64_MAX, last = 0;
	uint8_t *freed = NULL;
	size_t ai = 0;
	int err = 0;

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < r->nsamples; i++) {
		if (r->samples[i].time < first)
			first = r->samples[i].time;
		if (r->samples[i].time > last)
			last = r->samples[i].time;
	}
	t->span_ns = last > first ? last - first : 0;
	t->leak_age_ns = v->leak_age_set		   ? v->leak_age_ns
			 : t->span_ns / 10 < 1000000000ULL ? t->span_ns / 10
							   : 1000000000ULL;
	if (v->leaks && (err = freed_marks(r, &freed)))
		return err;
	if (v->leaks && !freed)
		t->no_frees = 1;
	for (size_t i = 0; i < r->nsamples && !err; i++) {
		const struct rec_args_ref *a;
		uint64_t size, est;

		if (r->samples[i].event != ev || !(a = args_of(r, i, &ai)) || a->n < 3)
			continue;
		size = r->argvals[a->first] > 0 ? (uint64_t)r->argvals[a->first] : 0;
		est = r->argvals[a->first + 2] > 0 ? (uint64_t)r->argvals[a->first + 2] : 0;
		t->all_samples++;
		t->all_bytes += est;
		if (v->leaks && ((freed && freed[i]) || last - r->samples[i].time < t->leak_age_ns))
			continue;
		t->samples++;
		t->bytes += est;
		t->count += size ? (est + size / 2) / size : 0;
		if (fn)
			err = fn(ctx, i, size, est);
	}
	free(freed);
	return err;
}

int malloc_view__totals(const struct recording *r, const struct probe_view *v,
			struct malloc_totals *t)
{
	return each_kept(r, v, t, NULL, NULL);
}

struct acc {
	uint64_t stack2, weight;
	uint32_t tkey;
};

struct build_ctx {
	struct builder *b;
	const struct probe_view *v;
	int by_thread;
	struct keymap m;
	struct acc *accs;
	size_t n, cap;
};

static int add_one(void *arg, size_t i, uint64_t size, uint64_t est)
{
	struct build_ctx *c = arg;
	const struct rec_sample_full *s = &c->b->r->samples[i];
	uint64_t stack2 = (uint64_t)s->stack * 2 + !!(s->flags & REC_SAMPLE_TRUNCATED);
	uint64_t w = est;
	uint32_t tkey = BUILDER_NO_THREAD, idx;
	struct acc *e;
	int err = 0, put;

	if (c->v->weight_samples)
		w = 1;
	else if (c->v->weight_set && !c->v->weight_bytes)
		w = size ? (est + size / 2) / size : 0; /* estimated calls: 1/p */
	if (c->by_thread)
		err = builder__sample_tkey(c->b, s->tid, s->time, &tkey);
	if (err)
		return err;
	put = keymap__put(&c->m, stack2, tkey, (uint32_t)c->n, &idx);
	if (put < 0)
		return put;
	if (put == 1) {
		if (GROW(c->accs, c->cap, c->n + 1))
			return -ENOMEM;
		c->accs[c->n] = (struct acc){.stack2 = stack2, .tkey = tkey};
		idx = (uint32_t)c->n++;
	}
	e = &c->accs[idx];
	e->weight = e->weight > UINT64_MAX - w ? UINT64_MAX : e->weight + w;
	return 0;
}

int build_malloc(struct builder *b, const struct profile_build_opts *opts, int by_thread)
{
	struct build_ctx c = {.b = b, .v = opts->probe, .by_thread = by_thread};
	struct malloc_totals t;
	int err;

	if (keymap__init(&c.m, 1024))
		return -ENOMEM;
	err = each_kept(b->r, opts->probe, &t, add_one, &c);
	for (size_t i = 0; i < c.n && !err; i++)
		if (c.accs[i].weight)
			err = builder__add_entry(b, c.accs[i].stack2, 0, c.accs[i].tkey,
						 c.accs[i].weight);
	free(c.accs);
	keymap__release(&c.m);
	return err;
}
