/* dwarf-lookup.c: the frames at an address, from the tables dwarf-load.c
 * built (see dwarf.h). Two binary searches and a walk up the nesting of
 * ranges; nothing is allocated (except, in lazy mode, to read a unit).
 *
 * The innermost function is the smallest range holding the address (BFD's
 * "best fit"; among equal ranges the later DIE, which is the inner one).
 * Because ranges nest, every range holding the address is the last range
 * starting at or below it, or one of that range's ancestors. The callers are
 * then the DIE nesting of inlined subroutines: each inlined frame's caller
 * is the function it sits in, at its DW_AT_call_file:DW_AT_call_line.
 *
 * The unit answering is found first (its spans, else the line sequences
 * of units decoded before, as BFD does); in lazy mode (dwarf-lazy.c) the
 * unit's own tables then answer, else the whole binary's. */
#include "symbolize/dwarf.h"

#include "symbolize/dwarf-internal.h"

/* The span holding addr with the highest (start, unit) in the sorted
 * s[0..n), and, when `decoded` is given, only among units marked in it.
 * Its index, or SIZE_MAX if none. */
static size_t span_find(const struct dw_span *s, size_t n, uint64_t addr,
			const unsigned char *decoded)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Spans before lo start at or below addr; maxhi says when none of the
	 * earlier ones can reach it. */
	while (lo && s[lo - 1].maxhi > addr) {
		lo--;
		if (addr < s[lo].hi && (!decoded || decoded[s[lo].unit]))
			return lo;
	}
	return SIZE_MAX;
}

static uint32_t span_unit(const struct dw_span *s, size_t n, uint64_t addr,
			  const unsigned char *decoded)
{
	size_t i = span_find(s, n, addr, decoded);

	return i == SIZE_MAX ? DWARF_NONE : s[i].unit;
}

/* span_unit() over d->seqs: its sorted part, then (lazy mode) the tail of
 * the units read since, one by one, for the same answer as if sorted. */
static uint32_t seq_unit(const struct dwarf_info *d, uint64_t addr, const unsigned char *decoded)
{
	size_t i = span_find(d->seqs, d->nseqs_sorted, addr, decoded), k;
	const struct dw_span *best = i == SIZE_MAX ? NULL : &d->seqs[i];

	for (k = d->nseqs_sorted; k < d->nseqs; k++) {
		const struct dw_span *s = &d->seqs[k];

		if (s->lo > addr || addr >= s->hi || (decoded && !decoded[s->unit]))
			continue;
		if (!best || s->lo > best->lo || (s->lo == best->lo && s->unit > best->unit))
			best = s;
	}
	return best ? best->unit : DWARF_NONE;
}

/* How many of keys[0..n) (sorted) are at or below addr. */
static size_t count_keys(const uint64_t *keys, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (keys[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Where to search for the first element above addr among n sorted
 * elements whose every DW_KEY_STEP-th key is in keys[] (NULL: all n):
 * [*lo, *hi). A lookup's searches over the whole rows are a chain of
 * cache misses (one per step of a binary search, a few hundred ns each
 * on a busy VM); the sampled keys are a few KB per unit and stay cached,
 * and the block they leave is a few adjacent cache lines. */
static void key_block(const uint64_t *keys, size_t n, uint64_t addr, size_t *lo, size_t *hi)
{
	size_t j;

	*lo = 0;
	*hi = n;
	if (!keys)
		return;
	j = count_keys(keys, (n + DW_KEY_STEP - 1) / DW_KEY_STEP, addr);
	if (!j) {
		*hi = 0; /* all above addr */
		return;
	}
	*lo = (j - 1) * DW_KEY_STEP;
	if (j * DW_KEY_STEP < n)
		*hi = j * DW_KEY_STEP;
}

/* The line row in force at addr among lines[0..n), or NULL. */
static const struct dw_line *find_line(const struct dw_line *lines, size_t n, const uint64_t *keys,
				       uint64_t addr)
{
	size_t lo, hi;

	/* The first row above addr; the row before it is the last at or below. */
	key_block(keys, n, addr, &lo, &hi);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lines[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || lines[lo - 1].end)
		return NULL;
	return &lines[lo - 1];
}

/* The innermost range holding addr among d->ranges[from, from + n), or
 * DWARF_NONE. */
static uint32_t find_range(const struct dwarf_info *d, size_t from, size_t n,
			   const uint64_t *keys, uint64_t addr)
{
	size_t lo, hi;
	uint32_t r;
	size_t steps = 0;

	key_block(keys, n, addr, &lo, &hi);
	lo += from;
	hi += from;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->ranges[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == from)
		return DWARF_NONE;
	r = (uint32_t)(lo - 1);
	/* Parents have smaller indexes, so this ends; the bound is for show. */
	while (r != DWARF_NONE && d->ranges[r].hi <= addr && steps++ < n)
		r = d->ranges[r].parent;
	return r;
}

static const char *file_name(const struct dwarf_info *d, uint32_t id)
{
	return id ? strtab__str(&d->files, id) : NULL;
}

static uint32_t func_flags(const struct dw_func *f)
{
	return (f->linkage ? SRC_FRAME_LINKAGE : 0) | (f->inlined ? SRC_FRAME_INLINED : 0);
}

/* The frames at vaddr, from the tables in `t` (the unit check is the
 * callers'). */
static size_t lookup(const struct dwarf_info *d, const struct dw_slice *t, uint64_t vaddr,
		     struct src_frame *out, size_t max)
{
	const struct dw_line *row;
	const struct dw_func *f;
	uint32_t r;
	size_t n;

	row = find_line(d->lines + t->lines_from, t->nlines, t->line_keys, vaddr);
	r = find_range(d, t->ranges_from, t->nranges, t->range_keys, vaddr);
	if (!row && r == DWARF_NONE)
		return 0;
	out[0].file = row ? file_name(d, row->file) : NULL;
	out[0].line = row ? row->line : 0;
	out[0].discriminator = row ? row->discriminator : 0;
	if (r == DWARF_NONE) {
		out[0].function = NULL;
		out[0].flags = SRC_FRAME_NO_FUNCTION;
		out[0].func = UINT32_MAX;
		out[0].func_low = 0;
		return 1;
	}
	f = &d->funcs[d->ranges[r].func];
	out[0].function = f->name;
	out[0].flags = func_flags(f);
	out[0].func = d->ranges[r].func;
	out[0].func_low = f->low;
	for (n = 1; n < max && f->inlined && f->parent != DWARF_NONE; n++) {
		const struct dw_func *caller = &d->funcs[f->parent];

		out[n].function = caller->name;
		out[n].file = file_name(d, f->call_file);
		out[n].line = f->call_line;
		out[n].discriminator = 0;
		out[n].flags = func_flags(caller);
		out[n].func = f->parent;
		out[n].func_low = caller->low;
		f = caller;
	}
	return n;
}

/* The frames at vaddr as unit u answers them: in lazy mode from the unit's
 * own tables (read now if needed), else from the whole binary's. */
static size_t lookup_in(struct dwarf_info *d, uint32_t u, uint64_t vaddr, struct src_frame *out,
			size_t max)
{
	struct dw_slice all = {0, d->nlines, 0, d->nranges, NULL, NULL};

	/* The lazy mode's tables are a cache the lookups fill. */
	if (d->lazy && dwarf_lazy__unit(d, u, &all))
		return 0;
	return lookup(d, &all, vaddr, out, max);
}

size_t dwarf_info__lookup(struct dwarf_info *d, uint64_t vaddr, struct src_frame *out, size_t max)
{
	uint32_t u;

	if (!d || !max || dwarf_info__ready(d))
		return 0;
	if (d->lazy)
		dwarf_lazy__read_all(d); /* for the line sequences */
	u = span_unit(d->spans, d->nspans, vaddr, NULL);
	if (u == DWARF_NONE)
		u = seq_unit(d, vaddr, NULL);
	if (u == DWARF_NONE)
		return 0;
	return lookup_in(d, u, vaddr, out, max);
}

size_t dwarf_info__lookup_bfd(struct dwarf_info *d, uint64_t vaddr, unsigned char *decoded,
			      struct src_frame *out, size_t max)
{
	uint32_t u;

	if (!d || !max || dwarf_info__ready(d))
		return 0;
	u = span_unit(d->spans, d->nspans, vaddr, NULL);
	if (u != DWARF_NONE)
		decoded[u] = 1;
	else
		u = seq_unit(d, vaddr, decoded);
	if (u == DWARF_NONE)
		return 0;
	return lookup_in(d, u, vaddr, out, max);
}

void dwarf_info__prefetch(struct dwarf_info *d, const uint64_t *vaddrs, size_t n)
{
	size_t i;

	if (!d || !d->lazy || dwarf_info__ready(d))
		return;
	/* The unit dwarf_info__lookup_bfd() would read first. */
	for (i = 0; i < n; i++) {
		uint32_t u = span_unit(d->spans, d->nspans, vaddrs[i], NULL);

		if (u != DWARF_NONE)
			dwarf_lazy__want(d, u);
	}
}

int dwarf_info__failed(const struct dwarf_info *d)
{
	return d ? dwarf_lazy__error(d) : 0;
}
