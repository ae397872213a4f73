/* probe.c: profiles of probe events (`prof record -e usdt:...`, `--alloc`)
 * on the builder of builder.c: the stacks of one event's hits,
 * optionally with their decoded arguments as a leaf frame ("arg0=5
 * arg1=-3", names from META "probe-args:EVENT"), and allocation profiles:
 * the class as the leaf, counted in hits or weighed in bytes, filtered by
 * class.
 *
 * Work: one pass over the samples with one binary search per sample into
 * the ARGS records (sorted by sample) and one hash update per sample; each
 * distinct leaf text is interned once per (string) argument tuple. */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/keymap.h"
#include "report/builder.h"

int probe_view__class_ok(const struct probe_view *v, const char *cls)
{
	const regex_t *res = v->class_res;
	int keep = !v->nclass;

	for (size_t i = 0; i < v->nclass && !keep; i++)
		keep = !regexec(&res[i], cls, 0, NULL, 0);
	for (size_t i = 0; i < v->nexclude && keep; i++)
		keep = regexec(&res[v->nclass + i], cls, 0, NULL, 0) != 0;
	return keep;
}

/* The argument names of an event, from its META "probe-args:EVENT"
 * ("arg0:s32 arg1:u64", "class:str size:s64"): name k into buf. */
static void arg_name(const struct recording *r, unsigned ev, unsigned k, char *buf, size_t len)
{
	char key[600];
	const char *v, *p;
	unsigned i = 0;

	snprintf(buf, len, "arg%u", k);
	if (ev >= r->nevents)
		return;
	snprintf(key, sizeof(key), "probe-args:%s", recording__str(r, r->events[ev].name));
	v = recording__meta(r, key);
	for (p = v; p && *p; i++) {
		const char *colon = strchr(p, ':'), *sp = strchr(p, ' ');

		if (!colon || (sp && sp < colon))
			return;
		if (i == k) {
			snprintf(buf, len, "%.*s", (int)(colon - p), p);
			return;
		}
		p = sp ? sp + 1 : NULL;
	}
}

/* The leaf text of a sample's arguments, interned into the profile. */
static int args_leaf(struct builder *b, const struct recording *r, unsigned ev,
		     const struct rec_args_ref *a, uint32_t *id)
{
	char name[64];
	size_t len = 0;

	if (GROW(b->text, b->text_cap, 64))
		return -ENOMEM;
	b->text[0] = '\0';
	for (unsigned k = 0; k < a->n; k++) {
		int64_t v = r->argvals[a->first + k];
		size_t need;
		const char *s = NULL;

		arg_name(r, ev, k, name, sizeof(name));
		if ((a->strmask >> k) & 1)
			s = recording__str(r, (uint32_t)v);
		need = len + strlen(name) + (s ? strlen(s) : 24) + 4;
		if (GROW(b->text, b->text_cap, need))
			return -ENOMEM;
		if (s)
			len += (size_t)snprintf(b->text + len, b->text_cap - len, "%s%s=%s",
						k ? " " : "", name, s);
		else
			len += (size_t)snprintf(b->text + len, b->text_cap - len, "%s%s=%" PRId64,
						k ? " " : "", name, v);
	}
	if (!len)
		len = (size_t)snprintf(b->text, b->text_cap, "[no arguments]");
	return profile__intern(b->p, b->text, len, id);
}

/* --every N drawn in the kernel (record/probe-kperiod.c): what each kept
 * sample of event ev stands for, in w[sample]: its thread's hits (STAT
 * probe-kernel-hits:EVENT:TID, which the kernel counted) over its
 * thread's kept samples; N for a thread without a count (one started
 * while attached: its hits counted under its creator). The total is then
 * scaled to the event's count (probe-estimate.c's tail). */
static int period_weights(const struct recording *r, unsigned ev, struct probe_estimate *e,
			  double **out)
{
	double *w = calloc(r->nsamples ? r->nsamples : 1, sizeof(*w)), sum = 0;
	const char *name = recording__str(r, r->events[ev].name);
	uint32_t *n = NULL;
	size_t nthreads = 0, cap = 0;
	struct keymap threads;
	char key[600];
	uint64_t hits;
	int err = 0;

	*out = w;
	if (!w || keymap__init(&threads, 64))
		return -ENOMEM;
	for (size_t i = 0; i < r->nsamples && !err; i++) { /* samples per thread */
		uint32_t k;

		if (r->samples[i].event != ev)
			continue;
		if (!keymap__get(&threads, r->samples[i].tid, 0, &k)) {
			k = (uint32_t)nthreads;
			if (GROW(n, cap, nthreads + 1) || keymap__set(&threads, r->samples[i].tid, 0, k)) {
				err = -ENOMEM;
				break;
			}
			n[nthreads++] = 0;
		}
		n[k]++;
	}
	for (size_t i = 0; i < r->nsamples && !err; i++) {
		uint32_t k;

		if (r->samples[i].event != ev || !keymap__get(&threads, r->samples[i].tid, 0, &k))
			continue;
		snprintf(key, sizeof(key), "probe-kernel-hits:%s:%u", name, r->samples[i].tid);
		hits = recording__stat(r, key);
		w[i] = hits ? (double)hits / n[k] : (double)e->every;
		sum += w[i];
	}
	snprintf(key, sizeof(key), "probe-kernel-hits:%s", name);
	hits = recording__stat(r, key);
	e->tail = hits && sum > 0 ? (double)hits / sum : 1;
	keymap__release(&threads);
	free(n);
	return err;
}

/* Weights are estimates (probe-estimate.c), summed as doubles and
 * rounded once per entry. */
struct acc {
	uint64_t stack2;
	uint32_t tkey, leaf;
	double weight;
	double objects, bytes; /* --alloc: both values, whatever the weight */
};

static uint64_t rounded(double v)
{
	return v >= 1.8e19 ? UINT64_MAX : (uint64_t)llround(v);
}

/* Adds weight w (and, for allocations, the objects and bytes one sample
 * stands for: ob[0], ob[1]) to the accumulator of (stack2, tkey, leaf). 0
 * or -ENOMEM. */
static int add_weight(struct keymap *m, struct acc **accs, size_t *n, size_t *cap,
		      uint64_t stack2, uint32_t tkey, uint32_t leaf, double w, const double *ob)
{
	uint32_t idx;
	int r = keymap__put(m, stack2, (uint64_t)tkey << 32 | leaf, (uint32_t)*n, &idx);

	if (r < 0)
		return r;
	if (r == 1) {
		if (GROW(*accs, *cap, *n + 1))
			return -ENOMEM;
		(*accs)[*n] = (struct acc){stack2, tkey, leaf, 0, 0, 0};
		idx = (uint32_t)(*n)++;
	}
	(*accs)[idx].weight += w;
	if (ob) {
		(*accs)[idx].objects += ob[0];
		(*accs)[idx].bytes += ob[1];
	}
	return 0;
}

/* --class / --exclude-class on a class name id (a recording string id):
 * 1 keep, 0 drop; cached per string. */
static int class_kept(const struct probe_view *v, const struct recording *r, uint32_t str,
		      int8_t *cache)
{
	int keep;

	if (cache[str])
		return cache[str] > 0;
	keep = probe_view__class_ok(v, recording__str(r, str));
	cache[str] = keep ? 1 : -1;
	return keep;
}

int build_probe(struct builder *b, const struct profile_build_opts *opts, int by_thread)
{
	const struct recording *r = b->r;
	const struct probe_view *v = opts->probe;
	unsigned ev = (unsigned)v->event;
	struct keymap m;
	struct acc *accs = NULL;
	size_t nacc = 0, cap = 0, ai = 0;
	int8_t *cache = NULL;
	double *pw = NULL;
	uint32_t no_args = 0;
	struct probe_estimate est;
	char key[600];
	const char *spec;
	int err, has_args;

	if (v->malloc)
		return build_malloc(b, opts, by_thread);
	snprintf(key, sizeof(key), "probe-args:%s", recording__str(r, r->events[ev].name));
	spec = recording__meta(r, key);
	has_args = spec && *spec;
	probe_estimate__init(&est, r);
	if (keymap__init(&m, 1024))
		return -ENOMEM;
	cache = calloc(r->nstrs ? r->nstrs : 1, 1);
	err = cache ? 0 : -ENOMEM;
	if (!err && est.mode == PROBE_EST_PERIOD)
		err = period_weights(r, ev, &est, &pw);
	for (size_t i = 0; i < r->nsamples && !err; i++) {
		const struct rec_sample_full *s = &r->samples[i];
		const struct rec_args_ref *a;
		uint32_t tkey = BUILDER_NO_THREAD, leaf = 0;
		int64_t size = -1;
		double w, ob[2];

		if (s->event != ev)
			continue;
		/* Both are sorted by sample: walk the ARGS records along. */
		while (ai < r->nargs && r->args[ai].sample < i)
			ai++;
		a = ai < r->nargs && r->args[ai].sample == i ? &r->args[ai] : NULL;
		if (v->alloc) {
			if (!a || a->n < 2 || !(a->strmask & 1))
				continue; /* a hit whose class could not be read */
			if (!class_kept(v, r, (uint32_t)r->argvals[a->first], cache))
				continue;
			size = r->argvals[a->first + 1];
			err = profile__intern(b->p, recording__str(r, (uint32_t)r->argvals[a->first]),
					      r->lens[(uint32_t)r->argvals[a->first]], &leaf);
		} else if (v->args) {
			if (a)
				err = args_leaf(b, r, ev, a, &leaf);
			else if (has_args && !no_args)
				err = profile__intern(b->p, "[arguments unreadable]", 22, &no_args);
			if (!a)
				leaf = no_args; /* 0 (none) for a probe without arguments */
		}
		if (!err && by_thread)
			err = builder__sample_tkey(b, s->tid, s->time, &tkey);
		if (est.mode == PROBE_EST_PERIOD)
			probe_estimate__weigh_period(&est, size, pw[i], &ob[0], &ob[1]);
		else
			probe_estimate__weigh(&est, size, &ob[0], &ob[1]);
		probe_estimate__add(&est, size, ob[0], ob[1]);
		w = v->weight_samples ? 1 : v->weight_bytes ? ob[1] : ob[0];
		/* Allocations of 0 bytes still count as objects. */
		if (!err && (w > 0 || v->alloc))
			err = add_weight(&m, &accs, &nacc, &cap,
					 (uint64_t)s->stack * 2 + !!(s->flags & REC_SAMPLE_TRUNCATED),
					 tkey, leaf, w, v->alloc ? ob : NULL);
	}
	for (size_t i = 0; i < nacc && !err; i++) {
		const struct acc *ac = &accs[i];

		if (v->alloc)
			err = builder__add_alloc_entry(b, ac->stack2, ac->leaf, ac->tkey,
						       rounded(ac->weight), rounded(ac->objects),
						       rounded(ac->bytes));
		else if (rounded(ac->weight))
			err = builder__add_entry(b, ac->stack2, ac->leaf, ac->tkey,
						 rounded(ac->weight));
	}
	if (v->est)
		*v->est = est;
	free(cache);
	free(pw);
	free(accs);
	keymap__release(&m);
	return err;
}

int profile__leaf_to_root(struct profile *p)
{
	uint32_t *tmp = NULL;
	size_t cap = 0;

	for (size_t i = 0; i < p->nentries; i++) {
		struct profile_entry *e = &p->entries[i];
		const struct profile_stack *st = &p->stacks[e->stack];
		uint32_t depth = st->depth, ns;
		int err;

		if (depth < 2)
			continue;
		if (GROW(tmp, cap, depth)) {
			free(tmp);
			return -ENOMEM;
		}
		tmp[0] = p->frames[st->first + depth - 1];
		memcpy(tmp + 1, p->frames + st->first, (depth - 1) * sizeof(*tmp));
		err = profile__add_stack(p, tmp, depth, &ns);
		if (err) {
			free(tmp);
			return err;
		}
		p->entries[i].stack = ns;
	}
	free(tmp);
	return 0;
}
