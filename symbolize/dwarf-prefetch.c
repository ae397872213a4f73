/* dwarf-prefetch.c: the lazy mode's read-ahead (dwarf-lazy.c): the units
 * that lookups are about to need, read on a second thread while the first
 * answers lookups, so that a run of addresses spread over several units
 * reads them on two CPUs instead of one.
 *
 * The caller says which units it will need (dwarf_prefetch__want(), in the
 * order it will need them). The thread reads them from the last wanted
 * back, with its own DIE reader (dwarf-die.c) into tables of its own: the
 * unit's funcs, its ranges sorted and nested, its decoded line program.
 * The lookup thread reads the units from the first wanted on, as it always
 * did; when it needs a unit the thread has read (or is reading: it waits),
 * dwarf_prefetch__take() appends that unit's funcs and ranges to the
 * dwarf_info with their indexes moved, exactly as if it had read the unit
 * itself at that moment (same funcs in the same order, same ranges, same
 * rows), and the caller settles the rows (file names, sort) as usual. A
 * unit the thread has not started is the lookup thread's to read: the two
 * meet in the middle, and nothing is read that the lookups do not need.
 * A unit the thread cannot read (prof's reader gives up, no memory) is
 * left to the lookup thread too, which reads it as before. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "symbolize/dwarf-internal.h"

enum { AHEAD_NONE, AHEAD_QUEUED, AHEAD_WORKING, AHEAD_DONE, AHEAD_TAKEN };

/* A unit read ahead (AHEAD_DONE): its tables, numbered from 0. */
struct ahead {
	uint8_t state;
	struct dw_func *funcs;
	struct dw_range *ranges;
	size_t nfuncs, nranges;
	struct dw_unit_info u;
	struct dw_rows rows;
	struct dw_program p;
	int decode_err;
};

struct dw_prefetch {
	struct dw_secs *s;
	struct ahead *units;
	size_t nunits;
	uint32_t *order; /* wanted units, in the order wanted; the thread
			    takes them from the end */
	size_t norder, order_cap;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	int started, stop;
	/* The thread's own. */
	struct dwarf_info scratch; /* its DIE reader appends funcs and ranges here */
	struct dw_reader *reader;
};

static void ahead_release(struct ahead *a)
{
	free(a->funcs);
	free(a->ranges);
	free(a->rows.v);
	if (a->state == AHEAD_DONE)
		dwarf_lines__release(&a->p);
	memset(a, 0, sizeof(*a));
}

/* Reads unit i into *a (the thread): 0, or -1 when the lookup thread must
 * read it itself. */
static int read_ahead(struct dw_prefetch *pf, uint32_t i, struct ahead *a)
{
	struct dwarf_info *sd = &pf->scratch;
	struct dw_unit_info u;
	size_t fsize, rsize;

	sd->nfuncs = 0;
	sd->nranges = 0;
	if (dwarf_die__unit(pf->reader, i, 1, &u))
		return -1;
	if (dwarf_tables__nest_ranges(sd, 0, sd->nranges))
		return -1;
	u.cu = NULL;
	u.ncu = 0;
	a->u = u;
	a->nfuncs = sd->nfuncs;
	a->nranges = sd->nranges;
	fsize = (a->nfuncs ? a->nfuncs : 1) * sizeof(*a->funcs);
	rsize = (a->nranges ? a->nranges : 1) * sizeof(*a->ranges);
	a->funcs = malloc(fsize);
	a->ranges = malloc(rsize);
	if (!a->funcs || !a->ranges)
		goto fail;
	memcpy(a->funcs, sd->funcs, a->nfuncs * sizeof(*a->funcs));
	memcpy(a->ranges, sd->ranges, a->nranges * sizeof(*a->ranges));
	memset(&a->rows, 0, sizeof(a->rows));
	a->decode_err = dwarf_build__decode(pf->s, &u, &a->rows, &a->p);
	if (a->decode_err == -ENOMEM) {
		dwarf_lines__release(&a->p);
		goto fail;
	}
	return 0;
fail:
	free(a->funcs);
	free(a->ranges);
	free(a->rows.v);
	a->funcs = NULL;
	a->ranges = NULL;
	a->rows.v = NULL;
	return -1;
}

static void *run(void *arg)
{
	struct dw_prefetch *pf = arg;
	size_t n;
	int ok;

	ok = !dwarf_die__open(&pf->scratch, pf->s, &pf->reader) &&
	     !dwarf_die__scan(pf->reader, &n) && n == pf->nunits;
	pthread_mutex_lock(&pf->mu);
	while (ok && !pf->stop) {
		struct ahead a = {0};
		uint32_t i;

		while (pf->norder && pf->units[pf->order[pf->norder - 1]].state != AHEAD_QUEUED)
			pf->norder--;
		if (!pf->norder) {
			pthread_cond_wait(&pf->cv, &pf->mu);
			continue;
		}
		i = pf->order[--pf->norder];
		pf->units[i].state = AHEAD_WORKING;
		pthread_mutex_unlock(&pf->mu);
		a.state = read_ahead(pf, i, &a) ? AHEAD_TAKEN : AHEAD_DONE;
		pthread_mutex_lock(&pf->mu);
		/* TAKEN: the lookup thread reads it. */
		pf->units[i] = a;
		pthread_cond_broadcast(&pf->cv);
	}
	/* Whatever is still queued is the lookup thread's. */
	pf->stop = 1;
	pthread_cond_broadcast(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
	return NULL;
}

struct dw_prefetch *dwarf_prefetch__new(struct dw_secs *s, size_t nunits)
{
	struct dw_prefetch *pf = calloc(1, sizeof(*pf));

	if (!pf)
		return NULL;
	pf->units = calloc(nunits ? nunits : 1, sizeof(*pf->units));
	if (!pf->units) {
		free(pf);
		return NULL;
	}
	pf->s = s;
	pf->nunits = nunits;
	pthread_mutex_init(&pf->mu, NULL);
	pthread_cond_init(&pf->cv, NULL);
	return pf;
}

int dwarf_prefetch__want(struct dw_prefetch *pf, uint32_t unit)
{
	int err = 0;

	if (unit >= pf->nunits)
		return 0;
	pthread_mutex_lock(&pf->mu);
	if (pf->units[unit].state == AHEAD_NONE && !pf->stop) {
		err = GROW(pf->order, pf->order_cap, pf->norder + 1);
		if (!err) {
			pf->order[pf->norder++] = unit;
			pf->units[unit].state = AHEAD_QUEUED;
			pthread_cond_signal(&pf->cv);
		}
	}
	/* One unit wanted is the lookup thread's own first: a thread is
	 * worth it from two on. */
	if (!err && !pf->started && pf->norder >= 2)
		pf->started = !pthread_create(&pf->thread, NULL, run, pf);
	pthread_mutex_unlock(&pf->mu);
	return err;
}

/* Appends a's tables to d's arrays, indexes moved; 0 or -ENOMEM (then d
 * is unchanged). */
static int adopt(struct dwarf_info *d, const struct ahead *a, struct dw_unit_info *u)
{
	uint32_t fbase = (uint32_t)d->nfuncs, rbase = (uint32_t)d->nranges;
	size_t k;

	if (d->nfuncs + a->nfuncs >= DWARF_NONE - 1 || d->nranges + a->nranges >= DWARF_NONE - 1 ||
	    GROW(d->funcs, d->funcs_cap, d->nfuncs + a->nfuncs) ||
	    GROW(d->ranges, d->ranges_cap, d->nranges + a->nranges))
		return -ENOMEM;
	for (k = 0; k < a->nfuncs; k++) {
		struct dw_func f = a->funcs[k];

		if (f.parent != DWARF_NONE)
			f.parent += fbase;
		d->funcs[d->nfuncs++] = f;
	}
	for (k = 0; k < a->nranges; k++) {
		struct dw_range r = a->ranges[k];

		r.func += fbase;
		if (r.parent != DWARF_NONE)
			r.parent += rbase;
		d->ranges[d->nranges++] = r;
	}
	*u = a->u;
	u->funcs_from = fbase;
	u->funcs_to = d->nfuncs;
	u->ranges_from = rbase;
	u->ranges_to = d->nranges;
	return 0;
}

int dwarf_prefetch__take(struct dw_prefetch *pf, struct dwarf_info *d, uint32_t unit,
			 struct dw_unit_info *u, struct dw_rows *rows, struct dw_program *p,
			 int *decode_err)
{
	struct ahead a;
	int err;

	if (unit >= pf->nunits)
		return 0;
	pthread_mutex_lock(&pf->mu);
	while (pf->units[unit].state == AHEAD_WORKING)
		pthread_cond_wait(&pf->cv, &pf->mu);
	a = pf->units[unit];
	memset(&pf->units[unit], 0, sizeof(a));
	pf->units[unit].state = AHEAD_TAKEN;
	pthread_mutex_unlock(&pf->mu);
	if (a.state != AHEAD_DONE)
		return 0;
	err = adopt(d, &a, u);
	if (err) {
		ahead_release(&a);
		return err;
	}
	*rows = a.rows;
	*p = a.p;
	*decode_err = a.decode_err;
	free(a.funcs);
	free(a.ranges);
	return 1;
}

void dwarf_prefetch__free(struct dw_prefetch *pf)
{
	size_t i;

	if (!pf)
		return;
	pthread_mutex_lock(&pf->mu);
	pf->stop = 1;
	pthread_cond_broadcast(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
	if (pf->started)
		pthread_join(pf->thread, NULL);
	for (i = 0; i < pf->nunits; i++)
		ahead_release(&pf->units[i]);
	dwarf_die__close(pf->reader);
	free(pf->scratch.funcs);
	free(pf->scratch.ranges);
	free(pf->scratch.ranges_tmp);
	free(pf->units);
	free(pf->order);
	pthread_mutex_destroy(&pf->mu);
	pthread_cond_destroy(&pf->cv);
	free(pf);
}
