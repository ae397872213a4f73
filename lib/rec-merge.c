/* rec-merge.c: recordings written as one, cut to a time range (see
 * rec-merge.h). Each input's ids are mapped to the output's in file order:
 * strings, events, mappings, frames, stack nodes (parents come first), so
 * every record the output holds refers only to what was written before it,
 * as the format wants. Work and memory: linear in the inputs' records. */
#include "rec-merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grow.h"
#include "rec-writer.h"

/* One input's id maps, into the output's ids. */
struct merge_maps {
	uint32_t *str, *event, *mapping, *frame, *stack;
};

struct merge_stat {
	const char *key;
	uint64_t value;
};

static void maps_free(struct merge_maps *m)
{
	free(m->str);
	free(m->event);
	free(m->mapping);
	free(m->frame);
	free(m->stack);
	memset(m, 0, sizeof(*m));
}

static int maps_alloc(struct merge_maps *m, const struct recording *r)
{
	m->str = calloc(r->nstrs + 1, sizeof(*m->str));
	m->event = calloc(r->nevents + 1, sizeof(*m->event));
	m->mapping = calloc(r->nmappings + 1, sizeof(*m->mapping));
	m->frame = calloc(r->nframes + 1, sizeof(*m->frame));
	m->stack = calloc(r->nstacks + 1, sizeof(*m->stack));
	if (!m->str || !m->event || !m->mapping || !m->frame || !m->stack) {
		maps_free(m);
		return -ENOMEM;
	}
	return 0;
}

static uint32_t str_of(const struct merge_maps *m, const struct recording *r, uint32_t id)
{
	return id < r->nstrs ? m->str[id] : 0;
}

/* Events of the same name (and type) are one event in the output. */
static int map_events(struct rec_writer *w, const struct recording *r, struct merge_maps *m,
		      struct rec_event_desc **out, size_t *nout, size_t *cap)
{
	for (size_t i = 0; i < r->nevents; i++) {
		struct rec_event_desc ev = r->events[i];
		size_t k;
		uint32_t id;
		int err;

		ev.name = str_of(m, r, ev.name);
		for (k = 0; k < *nout; k++)
			if ((*out)[k].name == ev.name && (*out)[k].type == ev.type)
				break;
		if (k < *nout) {
			m->event[i] = (uint32_t)k;
			continue;
		}
		if (*nout > 255)
			return -E2BIG; /* a sample's event is a u8 */
		if ((err = rec_writer__event(w, &ev, &id)))
			return err;
		if (GROW(*out, *cap, *nout + 1))
			return -ENOMEM;
		(*out)[(*nout)++] = ev;
		m->event[i] = id;
	}
	return 0;
}

/* Strings, events, threads, mappings, frames and stack nodes of r. */
static int map_tables(struct rec_writer *w, const struct recording *r, struct merge_maps *m,
		      struct rec_event_desc **evs, size_t *nevs, size_t *evcap)
{
	size_t i;
	int err;

	for (i = 1; i < r->nstrs; i++)
		if ((err = rec_writer__string(w, r->strs[i], r->lens[i], &m->str[i])))
			return err;
	if ((err = map_events(w, r, m, evs, nevs, evcap)))
		return err;
	for (i = 0; i < r->nthreads; i++) {
		const struct rec_thread_event *t = &r->threads[i];

		if ((err = rec_writer__thread(w, t->kind, t->time, t->pid, t->tid,
					      str_of(m, r, t->name))))
			return err;
	}
	for (i = 0; i < r->nmappings; i++) {
		struct rec_mapping mp = r->mappings[i];

		mp.path = str_of(m, r, mp.path);
		mp.build_id = str_of(m, r, mp.build_id);
		if ((err = rec_writer__mapping(w, &mp, &m->mapping[i])))
			return err;
	}
	for (i = 0; i < r->nframes; i++) {
		const struct rec_frame *f = &r->frames[i];
		uint32_t mp = f->mapping < r->nmappings ? m->mapping[f->mapping] : REC_NO_MAPPING;

		if ((err = rec_writer__frame(w, f->pid, f->addr, f->flags, mp, &m->frame[i])))
			return err;
	}
	m->stack[0] = 0;
	for (i = 1; i < r->nstacks; i++) {
		const struct rec_stack_node *s = &r->stacks[i];

		if ((err = rec_writer__stack(w, m->stack[s->parent], m->frame[s->frame],
					     &m->stack[i])))
			return err;
	}
	return 0;
}

static int write_args(struct rec_writer *w, const struct recording *r, const struct merge_maps *m,
		      const struct rec_args_ref *a)
{
	int64_t vals[16];
	unsigned n = a->n < 16 ? a->n : 16;

	for (unsigned k = 0; k < n; k++) {
		vals[k] = r->argvals[a->first + k];
		if (a->strmask >> k & 1)
			vals[k] = (int64_t)str_of(m, r, (uint32_t)vals[k]);
	}
	return rec_writer__args(w, rec_writer__nsamples(w) - 1, n, a->strmask, vals);
}

/* The samples and scheduler records of r in [since, until). */
static int copy_timed(struct rec_writer *w, const struct recording *r, const struct merge_maps *m,
		      uint64_t since, uint64_t until, uint64_t *kept)
{
	size_t i;
	int err;

	for (i = 0; i < r->nsamples; i++) {
		const struct rec_sample_full *s = &r->samples[i];
		const struct rec_args_ref *a;

		if (s->time < since || s->time >= until)
			continue;
		if ((err = rec_writer__sample(w, s->time, s->tid,
					      s->stack < r->nstacks ? m->stack[s->stack] : 0,
					      s->cpu, (uint8_t)m->event[s->event], s->flags)))
			return err;
		(*kept)++;
		if (r->nargs && (a = recording__args(r, i)) && (err = write_args(w, r, m, a)))
			return err;
	}
	for (i = 0; i < r->nsched; i++) {
		const struct rec_sched_full *s = &r->sched[i];
		uint32_t arg = s->kind == REC_SCHED_TASK ? str_of(m, r, s->arg) : s->arg;

		if (s->kind != REC_SCHED_TASK && s->kind != REC_SCHED_INIT &&
		    (s->time < since || s->time >= until))
			continue;
		if ((err = rec_writer__sched(w, s->time, s->tid, arg, s->cpu, s->kind, s->state)))
			return err;
	}
	return 0;
}

/* Symbols and inline chains: a frame the output already named (from an
 * earlier input) keeps that name, so each frame's records stay together. */
static int copy_symbols(struct rec_writer *w, const struct recording *r, const struct merge_maps *m,
			unsigned char *named, size_t nnamed)
{
	size_t i;
	int err;

	for (i = 0; i < r->nframes; i++) {
		uint32_t f = m->frame[i];
		struct rec_symbol sym;

		if (f >= nnamed || named[f] || i >= r->symbols_cap || !r->symbols[i].name)
			continue;
		sym = r->symbols[i];
		sym.frame = f;
		sym.name = str_of(m, r, sym.name);
		if ((err = rec_writer__symbol(w, &sym)))
			return err;
		if (i < r->inline_of_cap)
			for (uint32_t k = 0; k < r->inline_of[i].count; k++) {
				struct rec_inline in = r->inlines[r->inline_of[i].first + k];

				in.frame = f;
				in.name = str_of(m, r, in.name);
				in.file = str_of(m, r, in.file);
				if ((err = rec_writer__inline(w, &in)))
					return err;
			}
		named[f] = 1;
	}
	return 0;
}

/* Adds r's counters (the last value of each key) into *st (keys copied:
 * r may go before the merge ends). */
static int add_stats(const struct recording *r, struct merge_stat **st, size_t *n, size_t *cap)
{
	for (size_t i = 0; i < r->nstats; i++) {
		const char *key = recording__str(r, r->stats[i].key);
		size_t k;

		if (recording__stat(r, key) != r->stats[i].value)
			continue; /* not the last value of its key */
		for (k = 0; k < *n; k++)
			if (!strcmp((*st)[k].key, key))
				break;
		if (k == *n) {
			char *copy;

			if (GROW(*st, *cap, *n + 1) || !(copy = strdup(key)))
				return -ENOMEM;
			(*st)[(*n)++] = (struct merge_stat){copy, 0};
		}
		(*st)[k].value += r->stats[i].value;
	}
	return 0;
}

struct rec_merge {
	struct rec_writer *w;
	struct rec_event_desc *evs;
	size_t nevs, evcap;
	struct merge_stat *st;
	size_t nst, stcap;
	unsigned char *named; /* output frame -> named by an earlier input */
	size_t nnamed;
	size_t n; /* recordings added */
};

struct rec_merge *rec_merge__new(const char *path)
{
	struct rec_merge *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->w = rec_writer__create(path, 0600);
	if (!m->w) {
		int err = errno;

		free(m);
		errno = err;
		return NULL;
	}
	return m;
}

/* Room in m->named for every frame the output has. */
static int grow_named(struct rec_merge *m)
{
	size_t nf = rec_writer__nframes(m->w);
	unsigned char *p;

	if (nf <= m->nnamed)
		return 0;
	p = realloc(m->named, nf);
	if (!p)
		return -ENOMEM;
	memset(p + m->nnamed, 0, nf - m->nnamed);
	m->named = p;
	m->nnamed = nf;
	return 0;
}

int rec_merge__add(struct rec_merge *m, const struct recording *r, uint64_t since, uint64_t until,
		   uint64_t *kept)
{
	struct merge_maps maps = {0};
	int err = 0;

	for (size_t i = 0; !m->n && i < r->nmeta && !err; i++)
		err = rec_writer__meta(m->w, r->meta[i].key, r->meta[i].value);
	if (!err)
		err = maps_alloc(&maps, r);
	if (!err)
		err = map_tables(m->w, r, &maps, &m->evs, &m->nevs, &m->evcap);
	if (!err)
		err = copy_timed(m->w, r, &maps, since, until, kept);
	if (!err)
		err = grow_named(m);
	if (!err)
		err = rec_writer__flush(m->w); /* symbols after their frames */
	if (!err)
		err = copy_symbols(m->w, r, &maps, m->named, m->nnamed);
	if (!err)
		err = add_stats(r, &m->st, &m->nst, &m->stcap);
	if (!err)
		err = rec_writer__flush(m->w); /* the tables of r go now */
	maps_free(&maps);
	m->n++;
	return err;
}

static void merge_free(struct rec_merge *m)
{
	for (size_t i = 0; i < m->nst; i++)
		free((char *)m->st[i].key);
	free(m->st);
	free(m->evs);
	free(m->named);
	free(m);
}

int rec_merge__finish(struct rec_merge *m)
{
	char buf[32];
	int err;

	snprintf(buf, sizeof(buf), "%zu", m->n);
	err = rec_writer__meta(m->w, "merged-recordings", buf);
	for (size_t i = 0; i < m->nst && !err; i++)
		err = rec_writer__stat(m->w, m->st[i].key, m->st[i].value);
	if (err)
		rec_writer__discard(m->w);
	else
		err = rec_writer__close(m->w);
	merge_free(m);
	return err;
}

void rec_merge__discard(struct rec_merge *m)
{
	if (!m)
		return;
	rec_writer__discard(m->w);
	merge_free(m);
}

int rec_merge__write(const struct recording *const *recs, size_t n, uint64_t since, uint64_t until,
		     const char *path, uint64_t *kept)
{
	struct rec_merge *m;
	int err = 0;

	*kept = 0;
	if (!n)
		return -EINVAL;
	m = rec_merge__new(path);
	if (!m)
		return -errno;
	for (size_t i = 0; i < n && !err; i++)
		err = rec_merge__add(m, recs[i], since, until, kept);
	if (err) {
		rec_merge__discard(m);
		return err;
	}
	return rec_merge__finish(m);
}

uint64_t rec_merge__start_mono(const struct recording *r)
{
	const char *v = recording__meta(r, "start-monotonic-ns");

	return v ? strtoull(v, NULL, 10) : 0;
}

uint64_t rec_merge__start_wall(const struct recording *r)
{
	const char *v = recording__meta(r, "start-time-ns");
	struct tm tm;
	char *end;

	if (v)
		return strtoull(v, NULL, 10);
	v = recording__meta(r, "start-time");
	memset(&tm, 0, sizeof(tm));
	if (!v || !(end = strptime(v, "%Y-%m-%dT%H:%M:%S", &tm)))
		return 0;
	return (uint64_t)timegm(&tm) * 1000000000ULL;
}
