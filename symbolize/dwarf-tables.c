/* dwarf-tables.c: what every DWARF reader does with the tables it filled
 * (dwarf-internal.h): the units' address spans (their own ranges and line
 * sequences) and their sort, the line rows sorted by sequences (see
 * sort_rows()), the ranges radix-sorted and each given the range it nests
 * in. Shared by the whole load (dwarf-load.c, dwarf-build.c, dwarf-libdw.c),
 * the lazy mode (dwarf-lazy.c) and its read-ahead (dwarf-prefetch.c); it
 * calls none of them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "symbolize/dwarf-internal.h"

static int add_span(struct dw_span **arr, size_t *n, size_t *cap, uint64_t lo, uint64_t hi,
		    uint32_t unit)
{
	if (hi <= lo)
		return 0;
	if (GROW(*arr, *cap, *n + 1))
		return -ENOMEM;
	(*arr)[*n] = (struct dw_span){.lo = lo, .hi = hi, .unit = unit};
	(*n)++;
	return 0;
}

int dwarf_tables__cu_spans(struct dwarf_info *d, uint32_t unit, const uint64_t (*cu)[2],
			   size_t ncu, size_t ranges_from, size_t ranges_to)
{
	size_t i;
	int err = 0;

	for (i = 0; i < ncu && !err; i++)
		err = add_span(&d->spans, &d->nspans, &d->spans_cap, cu[i][0], cu[i][1], unit);
	for (i = ranges_from; !ncu && i < ranges_to && !err; i++)
		err = add_span(&d->spans, &d->nspans, &d->spans_cap, d->ranges[i].lo,
			       d->ranges[i].hi, unit);
	return err;
}

int dwarf_tables__seq_spans(struct dwarf_info *d, uint32_t unit, const struct dw_line *rows,
			    size_t nrows)
{
	uint64_t seq_lo = UINT64_MAX;
	size_t i;
	int err = 0;

	/* Rows in program order. */
	for (i = 0; i < nrows && !err; i++) {
		if (rows[i].addr < seq_lo)
			seq_lo = rows[i].addr;
		if (rows[i].end) {
			err = add_span(&d->seqs, &d->nseqs, &d->seqs_cap, seq_lo, rows[i].addr, unit);
			seq_lo = UINT64_MAX;
		}
	}
	return err;
}

/* The unit's addresses: its own ranges (a unit that states none gets its
 * functions' instead), and its line sequences. */
int dwarf_tables__unit_spans(struct dwarf_info *d, const uint64_t (*cu)[2], size_t ncu,
			     const struct dw_line *rows, size_t nrows, size_t ranges_from,
			     size_t ranges_to)
{
	uint32_t unit = d->nunits++;
	int err = dwarf_tables__cu_spans(d, unit, cu, ncu, ranges_from, ranges_to);

	return err ? err : dwarf_tables__seq_spans(d, unit, rows, nrows);
}

struct dw_func *dwarf_tables__new_func(struct dwarf_info *d, size_t n)
{
	uint64_t lo = d->ranges[d->nranges - n].lo;
	struct dw_func *f;
	size_t i;

	/* BFD's first arange: the first range, grown down by ranges that end
	 * where it starts. */
	for (i = 0; i < n; i++)
		if (d->ranges[d->nranges - n + i].hi == lo)
			lo = d->ranges[d->nranges - n + i].lo;
	if (GROW(d->funcs, d->funcs_cap, d->nfuncs + 1))
		return NULL;
	f = &d->funcs[d->nfuncs++];
	memset(f, 0, sizeof(*f));
	f->parent = DWARF_NONE;
	f->low = lo;
	return f;
}

int dwarf_span_cmp(const void *pa, const void *pb)
{
	const struct dw_span *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->unit < b->unit ? -1 : a->unit > b->unit;
}

void dwarf_tables__sort_spans(struct dw_span *s, size_t n)
{
	uint64_t maxhi = 0;
	size_t i;

	if (n)
		qsort(s, n, sizeof(*s), dwarf_span_cmp);
	for (i = 0; i < n; i++) {
		if (s[i].hi > maxhi)
			maxhi = s[i].hi;
		s[i].maxhi = maxhi;
	}
}

/* Row order, for rows of different sequences that meet at one address:
 * the end of a sequence first. Equal rows keep the order they were
 * emitted in (the sorts below are stable). */
static int row_cmp(const struct dw_line *x, const struct dw_line *y)
{
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->end != y->end)
		return x->end ? -1 : 1;
	return 0;
}

static int range_cmp(const void *pa, const void *pb)
{
	const struct dw_range *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	if (a->hi != b->hi)
		return a->hi > b->hi ? -1 : 1; /* the enclosing range first */
	return a->func < b->func ? -1 : a->func > b->func;
}

/* sort_ranges() for any ranges: a stable LSD radix sort, by hi
 * descending and then lo ascending, of rows that come in func order
 * (funcs are numbered as their ranges are added). Byte positions where all
 * keys agree are skipped (addresses rarely use more than 4 bytes). */
static int sort_ranges_bytes(struct dw_range *v, size_t n, struct dw_range *tmp)
{
	size_t (*count)[256], i, b;
	struct dw_range *src = v, *dst, *swap;

	count = calloc(16, sizeof(*count));
	if (!count)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		uint64_t hi = ~src[i].hi, lo = src[i].lo;

		for (b = 0; b < 8; b++) {
			count[b][(hi >> (8 * b)) & 0xff]++;
			count[8 + b][(lo >> (8 * b)) & 0xff]++;
		}
	}
	dst = tmp;
	for (b = 0; b < 16; b++) {
		size_t sum = 0, k, shift = 8 * (b % 8);

		for (k = 0; k < 256 && count[b][k] != n; k++)
			;
		if (k < 256)
			continue; /* one value for all: nothing to do */
		for (k = 0; k < 256; k++) {
			size_t c = count[b][k];

			count[b][k] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++) {
			uint64_t key = b < 8 ? ~src[i].hi : src[i].lo;

			dst[count[b][(key >> shift) & 0xff]++] = src[i];
		}
		swap = src; /* the next pass reads what this one wrote */
		src = dst;
		dst = swap;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*src));
	free(count);
	return 0;
}

/* Width of the digits of sort_ranges_packed(): 2,048 buckets, small enough
 * to stay in the L1 cache, wide enough that a 30 MB program's ranges sort
 * in 3 or 4 passes (8-bit digits took 6). */
#define RANGE_DIGIT 11

static unsigned bits_of(uint64_t x)
{
	return x ? 64u - (unsigned)__builtin_clzll(x) : 0;
}

/* Sorts the ranges by range_cmp with one key per range: (lo - min lo)
 * above (longest - length), which orders by lo ascending, then hi
 * descending, when both fit in 64 bits (they do for any program under a
 * few TB); a stable LSD radix sort of RANGE_DIGIT-bit digits, so equal
 * ranges keep their func order. 1 when the keys do not fit (the caller
 * sorts byte by byte), 0, -ENOMEM. */
static int sort_ranges_packed(struct dw_range *v, size_t n, struct dw_range *tmp)
{
	enum { NB = 1 << RANGE_DIGIT };
	uint64_t min_lo = UINT64_MAX, max_lo = 0, max_len = 0;
	struct dw_range *src = v, *dst, *swap;
	unsigned len_bits, passes, p;
	size_t (*count)[NB], i;

	for (i = 0; i < n; i++) {
		if (v[i].hi < v[i].lo)
			return 1;
		if (v[i].lo < min_lo)
			min_lo = v[i].lo;
		if (v[i].lo > max_lo)
			max_lo = v[i].lo;
		if (v[i].hi - v[i].lo > max_len)
			max_len = v[i].hi - v[i].lo;
	}
	len_bits = bits_of(max_len);
	if (bits_of(max_lo - min_lo) + len_bits > 64)
		return 1;
	passes = (bits_of(max_lo - min_lo) + len_bits + RANGE_DIGIT - 1) / RANGE_DIGIT;
	if (!passes)
		return 0; /* all equal */
	count = calloc(passes, sizeof(*count));
	if (!count)
		return -ENOMEM;
#define RANGE_KEY(r) \
	((len_bits ? ((r).lo - min_lo) << len_bits : 0) | (max_len - ((r).hi - (r).lo)))
	for (i = 0; i < n; i++) {
		uint64_t key = RANGE_KEY(v[i]);

		for (p = 0; p < passes; p++)
			count[p][(key >> (RANGE_DIGIT * p)) & (NB - 1)]++;
	}
	dst = tmp;
	for (p = 0; p < passes; p++) {
		size_t sum = 0, k;

		for (k = 0; k < NB; k++) {
			size_t c = count[p][k];

			count[p][k] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++) {
			uint64_t key = RANGE_KEY(src[i]);

			dst[count[p][(key >> (RANGE_DIGIT * p)) & (NB - 1)]++] = src[i];
		}
		swap = src; /* the next pass reads what this one wrote */
		src = dst;
		dst = swap;
	}
#undef RANGE_KEY
	if (src != v)
		memcpy(v, src, n * sizeof(*src));
	free(count);
	return 0;
}

/* Sorts d->ranges[from, +n) by range_cmp (stably: they come in func
 * order, funcs being numbered as their ranges are added), with
 * d->ranges_tmp (n ranges) as scratch. */
static int sort_ranges(struct dwarf_info *d, size_t from, size_t n)
{
	struct dw_range *v = d->ranges + from;
	size_t i;
	int rc;

	for (i = 1; i < n; i++)
		if (range_cmp(&v[i - 1], &v[i]) > 0)
			break;
	if (i >= n)
		return 0;
	/* Few ranges: 2,048 buckets a pass would cost more than the bytes. */
	rc = n < 4096 ? 1 : sort_ranges_packed(v, n, d->ranges_tmp);
	return rc == 1 ? sort_ranges_bytes(v, n, d->ranges_tmp) : rc;
}

int dwarf_tables__nest_ranges(struct dwarf_info *d, size_t from, size_t n)
{
	uint32_t *open;
	size_t nopen = 0, i;

	if (GROW(d->ranges_tmp, d->ranges_tmp_cap, n ? n : 1) || sort_ranges(d, from, n))
		return -ENOMEM;
	open = (uint32_t *)d->ranges_tmp; /* free again after the sort */
	for (i = from; i < from + n; i++) {
		struct dw_range *r = &d->ranges[i];

		while (nopen && (d->ranges[open[nopen - 1]].hi <= r->lo ||
				 d->ranges[open[nopen - 1]].hi < r->hi))
			nopen--;
		r->parent = nopen ? open[nopen - 1] : DWARF_NONE;
		open[nopen++] = (uint32_t)i;
	}
	return 0;
}

/* A run of rows already in order (a line sequence, as a rule). */
struct run {
	size_t from, n;
};

static int run_cmp(const void *pa, const void *pb, void *arg)
{
	const struct run *a = pa, *b = pb;
	const struct dw_line *lines = arg;
	int c = row_cmp(&lines[a->from], &lines[b->from]);

	if (c)
		return c;
	return a->from < b->from ? -1 : a->from > b->from; /* emission order */
}

/* Merges sorted rows a[0..na) and b[0..nb) into out, a's first on ties. */
static void merge(const struct dw_line *a, size_t na, const struct dw_line *b, size_t nb,
		  struct dw_line *out)
{
	while (na && nb) {
		if (row_cmp(b, a) < 0) {
			*out++ = *b++;
			nb--;
		} else {
			*out++ = *a++;
			na--;
		}
	}
	memcpy(out, a, na * sizeof(*a));
	memcpy(out + na, b, nb * sizeof(*b));
}

/* Sorts rows v[0..n), stably, by row_cmp. Each line sequence is in order
 * already and sequences rarely overlap: the sequences are sorted by their
 * first rows and laid end to end, which is the sorted order whenever each
 * one ends at or before where the next starts. Else (overlapping
 * sequences) a bottom-up merge of the runs in emission order. O(rows +
 * sequences log sequences) in the usual case, O(rows log sequences) at
 * worst; no per-row comparisons through qsort. */
static int sort_rows(struct dw_line *v, size_t n)
{
	struct run *runs = NULL, *sorted = NULL;
	size_t nruns = 0, cap = 0, i, at, width;
	struct dw_line *out = NULL, *src, *buf;
	int ok = 1, err = -ENOMEM;

	for (i = 0; i < n; i++) {
		if (i && !v[i - 1].end && row_cmp(&v[i - 1], &v[i]) <= 0) {
			runs[nruns - 1].n++;
			continue;
		}
		if (GROW(runs, cap, nruns + 1))
			goto out;
		runs[nruns++] = (struct run){.from = i, .n = 1};
	}
	if (nruns <= 1) {
		err = 0;
		goto out;
	}
	out = malloc(n * sizeof(*out));
	sorted = malloc(nruns * sizeof(*sorted));
	if (!out || !sorted)
		goto out;
	/* Runs by first row; equal first rows in emission order. */
	memcpy(sorted, runs, nruns * sizeof(*runs));
	qsort_r(sorted, nruns, sizeof(*sorted), run_cmp, v);
	for (i = 1; i < nruns && ok; i++) {
		const struct run *p = &sorted[i - 1];
		int c = row_cmp(&v[p->from + p->n - 1], &v[sorted[i].from]);

		ok = c < 0 || (c == 0 && p->from < sorted[i].from);
	}
	if (ok) {
		for (i = 0, at = 0; i < nruns; i++) {
			memcpy(out + at, v + sorted[i].from, sorted[i].n * sizeof(*out));
			at += sorted[i].n;
		}
		memcpy(v, out, n * sizeof(*v));
		err = 0;
		goto out;
	}
	/* Merge neighbouring runs, doubling, between the two buffers. */
	src = v;
	buf = out;
	for (width = 1; width < nruns; width *= 2) {
		struct dw_line *swap;
		size_t k;

		for (k = 0; k < nruns; k += 2 * width) {
			size_t a = runs[k].from, na = 0, nb = 0, j;

			for (j = k; j < k + width && j < nruns; j++)
				na += runs[j].n;
			for (; j < k + 2 * width && j < nruns; j++)
				nb += runs[j].n;
			merge(src + a, na, src + a + na, nb, buf + a);
		}
		swap = src;
		src = buf;
		buf = swap;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	err = 0;
out:
	free(sorted);
	free(out);
	free(runs);
	return err;
}

int dwarf_tables__sort_lines(struct dwarf_info *d, size_t from, size_t n)
{
	return sort_rows(d->lines + from, n);
}
