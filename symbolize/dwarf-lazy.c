/* dwarf-lazy.c: the lazy mode of the DWARF tables (dwarf.h,
 * DWARF_LOAD_LAZY): a unit's line program and DIEs are read when a lookup
 * first lands in the unit, as binutils' addr2line does, instead of all
 * units' at load time.
 *
 * At load, only the unit DIEs are read (their DW_AT_low_pc/high_pc/ranges
 * give the units' spans, the same spans the whole-binary load computes).
 * A unit whose DIE states no ranges is read whole at once: its spans are
 * its functions' ranges, as in the whole load (and BFD tries such units
 * for every address). A lookup finds the unit by its spans, reads it if
 * needed, and answers from that unit's rows and ranges only: each unit's
 * tables are slices of the dwarf_info's arrays (rows sorted, ranges sorted
 * and nested within the slice), appended in the order units are read, so
 * func indexes stay valid as more units come. The line sequences of the
 * units read so far (which BFD adds to a unit's addresses once it has
 * decoded it) are kept sorted in d->seqs, with the newest few in an
 * unsorted tail that is merged in every SEQS_TAIL sequences.
 *
 * Cost: the sections are read (and inflated) whole as before, since
 * .debug_info is a single compressed stream and the unit DIEs are spread
 * over it; what is saved is the DIE walk, the line programs and the sorts
 * of every unit that no address lands in. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "symbolize/dwarf-internal.h"

#define SEQS_TAIL 64 /* unsorted line sequences searched one by one */

enum { UNIT_UNREAD, UNIT_READ, UNIT_NONE };

struct dw_unit_tab {
	size_t lines_from, nlines, ranges_from, nranges;
	uint64_t *keys; /* sampled: DW_KEY_STEP-th line addresses, then
			   range starts (struct dw_slice) */
	uint8_t state;
	uint8_t no_ranges; /* its unit DIE states none */
	uint8_t wanted;    /* given to the read-ahead */
};

struct dw_lazy {
	struct dw_reader *reader;
	struct dw_unit_tab *units;
	size_t nunits;
	struct dw_rows rows;   /* scratch for one line program */
	struct dw_span *merge; /* scratch for merging the tail of d->seqs */
	size_t merge_cap;
	int err;   /* the first failure to read a unit (-ENOMEM) */
	int libdw; /* PROF_DWARF_LIBDW: units are read by libdw */
	struct dw_prefetch *ahead; /* units read ahead (dwarf-prefetch.c) */
	int ahead_failed;          /* it could not be set up: none */
};

/* Unit i read by libdw instead (dwarf-libdw.c), when prof's reader gives
 * up on it: the same tables, the rows sorted here. */
static int read_with_libdw(struct dwarf_info *d, size_t i, struct dw_unit_info *u)
{
	struct dw_unit_tab *t = &d->lazy->units[i];
	int err;

	/* Drop what prof's reader added before it gave up. */
	d->nfuncs = u->funcs_from;
	d->nranges = u->ranges_from;
	d->nlines = t->lines_from;
	err = dwarf_libdw__unit(d, dwarf_die__unit_die(d->lazy->reader, i), u);
	if (!err)
		err = dwarf_tables__seq_spans(d, (uint32_t)i, d->lines + t->lines_from,
					      d->nlines - t->lines_from);
	if (!err)
		err = dwarf_tables__sort_lines(d, t->lines_from, d->nlines - t->lines_from);
	return err;
}

/* The unit's sampled keys for the lookup (dwarf-lookup.c); without them
 * (no memory) lookups search the whole slices. */
static void sample_keys(const struct dwarf_info *d, struct dw_unit_tab *t)
{
	size_t nl = (t->nlines + DW_KEY_STEP - 1) / DW_KEY_STEP;
	size_t nr = (t->nranges + DW_KEY_STEP - 1) / DW_KEY_STEP, j;

	t->keys = malloc((nl + nr ? nl + nr : 1) * sizeof(*t->keys));
	if (!t->keys)
		return;
	for (j = 0; j < nl; j++)
		t->keys[j] = d->lines[t->lines_from + j * DW_KEY_STEP].addr;
	for (j = 0; j < nr; j++)
		t->keys[nl + j] = d->ranges[t->ranges_from + j * DW_KEY_STEP].lo;
}

/* Reads unit i's DIEs and line program into d's arrays. */
static int read_tables(struct dwarf_info *d, size_t i)
{
	struct dw_lazy *lz = d->lazy;
	struct dw_unit_tab *t = &lz->units[i];
	struct dw_unit_info u;
	struct dw_rows rows;
	struct dw_program p;
	size_t nrows = 0;
	int rc, err, ahead = 0;

	t->state = UNIT_NONE;
	t->lines_from = d->nlines;
	u.funcs_from = d->nfuncs;
	u.ranges_from = d->nranges;
	if (lz->ahead) {
		ahead = dwarf_prefetch__take(lz->ahead, d, (uint32_t)i, &u, &rows, &p, &err);
		if (ahead < 0)
			return ahead;
	}
	if (ahead) {
		/* Read by the other thread, its ranges nested already. */
		err = dwarf_build__unit_rows(d, &u, &rows, &p, err, &nrows);
		if (!err)
			err = dwarf_tables__seq_spans(d, (uint32_t)i, rows.v, nrows);
		free(rows.v);
		t->ranges_from = u.ranges_from;
		t->nranges = u.ranges_to - u.ranges_from;
		t->nlines = d->nlines - t->lines_from;
		if (!err)
			t->state = UNIT_READ;
		return err;
	}
	rc = lz->libdw ? -ENOTSUP : dwarf_die__unit(lz->reader, i, 1, &u);
	if (rc == -ENOTSUP) {
		err = read_with_libdw(d, i, &u);
	} else if (rc) {
		return rc < 0 ? rc : 0;
	} else {
		err = dwarf_build__unit(d, &d->secs, &u, &lz->rows, &nrows);
		if (!err)
			err = dwarf_tables__seq_spans(d, (uint32_t)i, lz->rows.v, nrows);
	}
	t->ranges_from = u.ranges_from;
	t->nranges = u.ranges_to - u.ranges_from;
	t->nlines = d->nlines - t->lines_from;
	if (!err && t->no_ranges)
		err = dwarf_tables__cu_spans(d, (uint32_t)i, NULL, 0, u.ranges_from, u.ranges_to);
	if (!err)
		err = dwarf_tables__nest_ranges(d, t->ranges_from, t->nranges);
	if (!err)
		t->state = UNIT_READ;
	return err;
}

static int read_unit(struct dwarf_info *d, size_t i)
{
	int err = read_tables(d, i);

	if (d->lazy->units[i].state == UNIT_READ)
		sample_keys(d, &d->lazy->units[i]);
	return err;
}

/* Merges the unsorted tail of d->seqs into its sorted part. */
static int merge_seqs(struct dwarf_info *d)
{
	struct dw_lazy *lz = d->lazy;
	size_t a = 0, b = d->nseqs_sorted, k = 0;
	uint64_t maxhi = 0;

	if (d->nseqs_sorted == d->nseqs)
		return 0;
	if (GROW(lz->merge, lz->merge_cap, d->nseqs))
		return -ENOMEM;
	qsort(d->seqs + b, d->nseqs - b, sizeof(*d->seqs), dwarf_span_cmp);
	while (a < d->nseqs_sorted || b < d->nseqs) {
		if (b == d->nseqs ||
		    (a < d->nseqs_sorted && dwarf_span_cmp(&d->seqs[a], &d->seqs[b]) <= 0))
			lz->merge[k++] = d->seqs[a++];
		else
			lz->merge[k++] = d->seqs[b++];
	}
	for (k = 0; k < d->nseqs; k++) {
		if (lz->merge[k].hi > maxhi)
			maxhi = lz->merge[k].hi;
		lz->merge[k].maxhi = maxhi;
	}
	memcpy(d->seqs, lz->merge, d->nseqs * sizeof(*d->seqs));
	d->nseqs_sorted = d->nseqs;
	return 0;
}

int dwarf_lazy__unit(struct dwarf_info *d, uint32_t unit, struct dw_slice *out)
{
	struct dw_lazy *lz = d->lazy;
	struct dw_unit_tab *t;
	int err;

	if (unit >= lz->nunits)
		return -EINVAL;
	t = &lz->units[unit];
	if (t->state == UNIT_UNREAD) {
		err = read_unit(d, unit);
		if (err && !lz->err)
			lz->err = err;
		if (d->nseqs - d->nseqs_sorted > SEQS_TAIL && merge_seqs(d) && !lz->err)
			lz->err = -ENOMEM;
	}
	out->lines_from = t->lines_from;
	out->nlines = t->state == UNIT_READ ? t->nlines : 0;
	out->ranges_from = t->ranges_from;
	out->nranges = t->state == UNIT_READ ? t->nranges : 0;
	out->line_keys = t->keys;
	out->range_keys = t->keys ? t->keys + (t->nlines + DW_KEY_STEP - 1) / DW_KEY_STEP : NULL;
	return t->state == UNIT_READ ? 0 : -ENOENT;
}

int dwarf_lazy__read_all(struct dwarf_info *d)
{
	struct dw_slice sl;
	size_t i;

	for (i = 0; i < d->lazy->nunits; i++)
		dwarf_lazy__unit(d, (uint32_t)i, &sl);
	if (merge_seqs(d) && !d->lazy->err)
		d->lazy->err = -ENOMEM;
	return d->lazy->err;
}

void dwarf_lazy__want(struct dwarf_info *d, uint32_t unit)
{
	struct dw_lazy *lz = d->lazy;

	/* Units without ranges of their own were read at load. Split DWARF
	 * (d->split, made when the load met a skeleton unit) is not read
	 * ahead: the second thread's reader would open the .dwo files and
	 * count the missing ones on its own, apart from d's. */
	if (!lz || lz->libdw || unit >= lz->nunits || lz->units[unit].state != UNIT_UNREAD ||
	    lz->units[unit].no_ranges || lz->units[unit].wanted || lz->ahead_failed || d->split)
		return;
	if (!lz->ahead) {
		lz->ahead = dwarf_prefetch__new(&d->secs, lz->nunits);
		lz->ahead_failed = !lz->ahead;
	}
	/* Out of memory here only means not reading ahead. */
	if (lz->ahead && !dwarf_prefetch__want(lz->ahead, unit))
		lz->units[unit].wanted = 1;
}

int dwarf_lazy__error(const struct dwarf_info *d)
{
	return d->lazy ? d->lazy->err : 0;
}

int dwarf_lazy__open(struct dwarf_info *d)
{
	struct dw_lazy *lz = calloc(1, sizeof(*lz));
	struct dw_unit_info u;
	size_t i, n = 0;
	int err, rc;

	if (!lz)
		return -ENOMEM;
	d->lazy = lz;
	lz->libdw = getenv("PROF_DWARF_LIBDW") != NULL;
	/* PROF_DWARF_ONE_THREAD: no read-ahead (for comparisons). */
	lz->ahead_failed = getenv("PROF_DWARF_ONE_THREAD") != NULL;
	/* The unit DIEs are spread over all of .debug_info. */
	err = dwarf_secs__finish(&d->secs);
	if (!err)
		err = dwarf_die__open(d, &d->secs, &lz->reader);
	if (!err)
		err = dwarf_die__scan(lz->reader, &n);
	if (!err) {
		lz->units = calloc(n ? n : 1, sizeof(*lz->units));
		err = lz->units ? 0 : -ENOMEM;
	}
	if (!err)
		lz->nunits = n;
	for (i = 0; i < lz->nunits && !err; i++) {
		rc = dwarf_die__unit(lz->reader, i, 0, &u);
		if (rc < 0) {
			err = rc;
		} else if (rc == 1) {
			/* Unreadable: the whole load stops here too. */
			for (; i < lz->nunits; i++)
				lz->units[i].state = UNIT_NONE;
		} else if (rc == 2) {
			lz->units[i].state = UNIT_NONE;
		} else if (u.ncu) {
			err = dwarf_tables__cu_spans(d, (uint32_t)i, u.cu, u.ncu, 0, 0);
		} else {
			lz->units[i].no_ranges = 1;
			err = read_unit(d, i);
		}
	}
	if (!err)
		err = merge_seqs(d);
	if (err)
		return err;
	d->nunits = (uint32_t)lz->nunits;
	dwarf_tables__sort_spans(d->spans, d->nspans);
	return 0;
}

void dwarf_lazy__free(struct dwarf_info *d)
{
	struct dw_lazy *lz = d->lazy;
	size_t i;

	if (!lz)
		return;
	dwarf_prefetch__free(lz->ahead);
	dwarf_die__close(lz->reader);
	for (i = 0; i < lz->nunits; i++)
		free(lz->units[i].keys);
	free(lz->units);
	free(lz->rows.v);
	free(lz->merge);
	free(lz);
	d->lazy = NULL;
}
