/* dwarf-load.c: builds a binary's line and inline-range tables from its
 * DWARF, once (see dwarf.h; the tables are in dwarf-internal.h).
 *
 * prof's own reader fills the tables first (dwarf-secs.c reads the
 * sections, dwarf-die.c the units, dwarf-lines.c the line programs,
 * dwarf-build.c puts them together). When
 * it meets DWARF it does not handle (dwz's alternate files, type-signature
 * references...), the load starts over here with libdw, which gives the
 * same tables (the unit test checks it): one pass over the units, each
 * unit's line program decoded (dwarf-lines.c) and its rows appended to one
 * array, and its DIE tree walked, without recursion, for subprograms and
 * inlined subroutines that have code: each becomes a func (name, caller,
 * call site) and one range per address range. DIEs of types and variables
 * are skipped over, not entered.
 *
 * Then, whichever reader ran: the rows are sorted (by sequences, see
 * sort_rows()), the ranges radix-sorted and each given the range it nests
 * in, and the unit spans sorted.
 *
 * Names are the DIE's linkage name, else its DW_AT_name, following
 * DW_AT_abstract_origin and DW_AT_specification (dwarf_attr_integrate), as
 * BFD does. */
#include "symbolize/dwarf.h"

#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/grow.h"
#include "symbolize/dwarf-internal.h"

#define MAX_DEPTH 256          /* DIE nesting walked; deeper DIEs are skipped */

static const unsigned char *section_bytes(Elf *elf, const char *want, size_t *size);
#define MAX_RANGES_PER_DIE 4096 /* a bound against hostile range lists */

/* What the walk needs to know about the unit being read. */
struct unit {
	Dwarf_Die cudie;
	int plain_names; /* a language whose DW_AT_name is the linkage name */
	struct dw_file_table files;
};

struct loader {
	struct dwarf_info *d;
	struct dw_sections secs;
	struct unit u;
};

/* BFD's mangle_style() == 0: DW_AT_name is then the symbol's name. Every
 * other language (C++, Rust, D, Fortran 90+, unknown) gets the symbol
 * table's name when only DW_AT_name is known. */
int dwarf_plain_language(uint64_t lang)
{
	switch (lang) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_Cobol74:
	case DW_LANG_Cobol85:
	case DW_LANG_Fortran77:
	case DW_LANG_Pascal83:
	case DW_LANG_PLI:
	case DW_LANG_C99:
	case DW_LANG_UPC:
	case DW_LANG_C11:
	case DW_LANG_Mips_Assembler:
		return 1;
	default:
		return 0;
	}
}

static const char *die_string(Dwarf_Die *die, int at)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, at, &a) ? dwarf_formstring(&a) : NULL;
}

static int add_func(struct loader *ld, Dwarf_Die *die, int tag, uint32_t enclosing,
		    uint32_t *out)
{
	struct dwarf_info *d = ld->d;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	struct dw_func *f;
	uint32_t id = (uint32_t)d->nfuncs;
	size_t n = 0, i;
	const char *name;
	int err;

	*out = DWARF_NONE;
	if (d->nfuncs >= DWARF_NONE - 1)
		return 0;
	while (n < MAX_RANGES_PER_DIE && (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		if (GROW(d->ranges, d->ranges_cap, d->nranges + 1))
			return -ENOMEM;
		d->ranges[d->nranges].lo = lo;
		d->ranges[d->nranges].hi = hi;
		d->ranges[d->nranges].func = id;
		d->ranges[d->nranges].parent = DWARF_NONE;
		d->nranges++;
		n++;
	}
	if (!n)
		return 0; /* no code: a declaration or an abstract instance */
	/* BFD's first arange: the first range, grown down by ranges that end
	 * where it starts. */
	lo = d->ranges[d->nranges - n].lo;
	for (i = 0; i < n; i++)
		if (d->ranges[d->nranges - n + i].hi == lo)
			lo = d->ranges[d->nranges - n + i].lo;
	if (GROW(d->funcs, d->funcs_cap, d->nfuncs + 1))
		return -ENOMEM;
	f = &d->funcs[d->nfuncs++];
	memset(f, 0, sizeof(*f));
	f->parent = DWARF_NONE;
	f->low = lo;
	name = die_string(die, DW_AT_linkage_name);
	if (!name)
		name = die_string(die, DW_AT_MIPS_linkage_name);
	if (name) {
		f->linkage = 1;
	} else {
		name = die_string(die, DW_AT_name);
		f->linkage = name && ld->u.plain_names;
	}
	f->name = name;
	if (tag == DW_TAG_inlined_subroutine) {
		Dwarf_Attribute a;
		Dwarf_Word w;

		f->inlined = 1;
		f->parent = enclosing;
		if (dwarf_attr(die, DW_AT_call_file, &a) && !dwarf_formudata(&a, &w)) {
			err = dwarf_lines__file(ld->d, &ld->u.files, w, &f->call_file);
			if (err)
				return err;
		}
		if (dwarf_attr(die, DW_AT_call_line, &a) && !dwarf_formudata(&a, &w))
			f->call_line = w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
	}
	*out = id;
	return 0;
}

struct level {
	Dwarf_Die die;
	uint32_t func; /* nearest enclosing function of this DIE */
};

/* Walks the unit's DIEs, depth first, entering only DIEs that can hold
 * functions with code. */
static int walk_unit(struct loader *ld)
{
	struct level *stack;
	size_t depth = 0;
	int err = 0;

	stack = malloc(MAX_DEPTH * sizeof(*stack));
	if (!stack)
		return -ENOMEM;
	if (dwarf_child(&ld->u.cudie, &stack[0].die) != 0)
		goto out;
	stack[0].func = DWARF_NONE;
	depth = 1;
	while (depth) {
		struct level *top = &stack[depth - 1];
		int tag = dwarf_tag(&top->die), enter = 0;
		uint32_t func = top->func;
		Dwarf_Die next;

		switch (tag) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_entry_point:
			err = add_func(ld, &top->die, tag, top->func, &func);
			if (err)
				goto out;
			/* Entered even without code: an abstract instance can
			 * hold a local class whose methods have code (a lambda's
			 * operator() in a template, say). */
			if (func == DWARF_NONE)
				func = top->func;
			enter = 1;
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
		case DW_TAG_with_stmt:
			enter = 1;
			break;
		default:
			break;
		}
		if (enter && depth < MAX_DEPTH && dwarf_child(&top->die, &next) == 0) {
			stack[depth].die = next;
			stack[depth].func = func;
			depth++;
			continue;
		}
		/* Next sibling, or back up to the nearest level that has one. */
		while (depth) {
			top = &stack[depth - 1];
			if (dwarf_siblingof(&top->die, &next) == 0) {
				top->die = next;
				break;
			}
			depth--;
		}
	}
out:
	free(stack);
	return err;
}

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

int dwarf_load__cu_spans(struct dwarf_info *d, uint32_t unit, const uint64_t (*cu)[2], size_t ncu,
			 size_t ranges_from, size_t ranges_to)
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

int dwarf_load__seq_spans(struct dwarf_info *d, uint32_t unit, const struct dw_line *rows,
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
int dwarf_load__unit_spans(struct dwarf_info *d, const uint64_t (*cu)[2], size_t ncu,
			   const struct dw_line *rows, size_t nrows, size_t ranges_from,
			   size_t ranges_to)
{
	uint32_t unit = d->nunits++;
	int err = dwarf_load__cu_spans(d, unit, cu, ncu, ranges_from, ranges_to);

	return err ? err : dwarf_load__seq_spans(d, unit, rows, nrows);
}

/* The unit DIE's ranges, through libdw. */
static int unit_spans(struct loader *ld, Dwarf_Die *cudie, size_t lines_from,
		      size_t ranges_from)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	uint64_t (*cu)[2] = NULL;
	size_t n = 0, cap = 0;
	int err = 0;

	while (n < MAX_RANGES_PER_DIE && (off = dwarf_ranges(cudie, off, &base, &lo, &hi)) > 0) {
		if (GROW(cu, cap, n + 1)) {
			free(cu);
			return -ENOMEM;
		}
		cu[n][0] = lo;
		cu[n][1] = hi;
		n++;
	}
	err = dwarf_load__unit_spans(ld->d, (const uint64_t(*)[2])cu, n, ld->d->lines + lines_from,
				     ld->d->nlines - lines_from, ranges_from, ld->d->nranges);
	free(cu);
	return err;
}

int dwarf_span_cmp(const void *pa, const void *pb)
{
	const struct dw_span *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->unit < b->unit ? -1 : a->unit > b->unit;
}

void dwarf_load__sort_spans(struct dw_span *s, size_t n)
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

/* The unit's rows (appended in program order) and its funcs and ranges. */
static int unit_tables(struct loader *ld, Dwarf_Die *cudie)
{
	struct unit *u = &ld->u;
	Dwarf_Attribute a;
	Dwarf_Word stmt;
	const char *comp_dir;
	int err = 0;

	memset(u, 0, sizeof(*u));
	u->cudie = *cudie;
	u->plain_names = dwarf_plain_language((uint64_t)dwarf_srclang(cudie));
	comp_dir = dwarf_attr(cudie, DW_AT_comp_dir, &a) ? dwarf_formstring(&a) : NULL;
	if (dwarf_attr(cudie, DW_AT_stmt_list, &a) && !dwarf_formudata(&a, &stmt)) {
		err = dwarf_lines__read(ld->d, &ld->secs, stmt, comp_dir, &u->files);
		if (err == -EBADMSG)
			err = 0; /* keep the rows read; the unit's functions still count */
	}
	if (!err)
		err = walk_unit(ld);
	free(u->files.ids);
	u->files.ids = NULL;
	return err;
}

static int read_unit(struct loader *ld, Dwarf_Die *cudie)
{
	size_t lines_from = ld->d->nlines, ranges_from = ld->d->nranges;
	int err = unit_tables(ld, cudie);

	return err ? err : unit_spans(ld, cudie, lines_from, ranges_from);
}

int dwarf_load__libdw_unit(struct dwarf_info *d, uint64_t die_off, struct dw_unit_info *out)
{
	struct loader ld = {.d = d};
	Dwarf_Die cudie;
	int err;

	if (!d->dw)
		d->dw = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
	if (!d->dw || !dwarf_offdie(d->dw, die_off, &cudie))
		return -ENOEXEC;
	ld.secs.line = section_bytes(d->elf, ".debug_line", &ld.secs.line_size);
	ld.secs.line_str = section_bytes(d->elf, ".debug_line_str", &ld.secs.line_str_size);
	ld.secs.str = section_bytes(d->elf, ".debug_str", &ld.secs.str_size);
	memset(out, 0, sizeof(*out));
	out->funcs_from = d->nfuncs;
	out->ranges_from = d->nranges;
	err = unit_tables(&ld, &cudie);
	out->funcs_to = d->nfuncs;
	out->ranges_to = d->nranges;
	return err;
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

int dwarf_load__nest_ranges(struct dwarf_info *d, size_t from, size_t n)
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

/* 1 when the file has a section named one of names[] (NULL-terminated). */
static int has_section(Elf *elf, const char *const *names)
{
	size_t shstrndx, k;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		for (k = 0; name && names[k]; k++)
			if (!strcmp(name, names[k]))
				return 1;
	}
	return 0;
}

static int has_debug_info(Elf *elf)
{
	static const char *const names[] = {".debug_info", ".zdebug_info", NULL};

	return has_section(elf, names);
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

int dwarf_load__sort_lines(struct dwarf_info *d, size_t from, size_t n)
{
	return sort_rows(d->lines + from, n);
}

/* The section's bytes, decompressed if needed; NULL when absent. */
static const unsigned char *section_bytes(Elf *elf, const char *want, size_t *size)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *data;

	*size = 0;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, want))
			continue;
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			return NULL;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			return NULL;
		*size = data->d_size;
		return data->d_buf;
	}
	return NULL;
}

/* Empties the tables, for a second start with libdw. */
static void reset(struct dwarf_info *d)
{
	dwarf_lazy__free(d);
	d->nlines = d->nfuncs = d->nranges = d->nspans = d->nseqs = d->nseqs_sorted = 0;
	d->lines_sorted = 0;
	d->nunits = 0;
	strtab__release(&d->files);
	dwarf_secs__free(&d->secs);
	dwarf_split__free(d);
}

/* prof's own reader (dwarf-die.c); -ENOTSUP: use libdw's. */
static int load_own(struct dwarf_info *d)
{
	int err = dwarf_secs__read(d->elf, d->fd, &d->secs);

	if (err)
		return err;
	if (strtab__init(&d->files))
		return -ENOMEM;
	return dwarf_build__tables(d, &d->secs);
}

/* The sections for prof's own reader, to be read lazily (dwarf-lazy.c);
 * -ENOTSUP: load whole. DWARF with references to other files (dwz,
 * supplementary files) or type units is loaded whole: it uses forms the
 * reader leaves to libdw everywhere. */
static int load_lazy(struct dwarf_info *d)
{
	static const char *const whole[] = {".gnu_debugaltlink", ".debug_sup", ".debug_types",
					    NULL};
	int err;

	if (has_section(d->elf, whole))
		return -ENOTSUP;
	err = dwarf_secs__read(d->elf, d->fd, &d->secs);
	if (err)
		return err;
	return strtab__init(&d->files) ? -ENOMEM : 0;
}

static int load_libdw(struct dwarf_info *d)
{
	struct loader ld = {.d = d};
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t unit_type;
	Dwarf_Die cudie, subdie;
	int err = 0, rc;

	if (!has_debug_info(d->elf))
		return -ENODATA;
	d->dw = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
	if (!d->dw)
		return -ENOEXEC;
	if (strtab__init(&d->files))
		return -ENOMEM;
	ld.secs.line = section_bytes(d->elf, ".debug_line", &ld.secs.line_size);
	ld.secs.line_str = section_bytes(d->elf, ".debug_line_str", &ld.secs.line_str_size);
	ld.secs.str = section_bytes(d->elf, ".debug_str", &ld.secs.str_size);
	while (!err && (rc = dwarf_get_units(d->dw, cu, &next, &version, &unit_type, &cudie,
					      &subdie)) == 0) {
		cu = next;
		switch (unit_type) {
		case DW_UT_compile:
		case DW_UT_partial:
			err = read_unit(&ld, &cudie);
			break;
		default:
			/* Type units hold no code. Split DWARF is read by prof's
			 * own reader only (dwarf-split.c). */
			break;
		}
	}
	(void)version;
	return err;
}

/* All units' tables: prof's reader, else libdw's walk (always with
 * PROF_DWARF_LIBDW), then sorted. */
static int load_whole(struct dwarf_info *d)
{
	int err = getenv("PROF_DWARF_LIBDW") ? -ENOTSUP : load_own(d);

	if (err == -ENOTSUP) {
		reset(d);
		err = load_libdw(d);
	}
	if (!err && !d->lines_sorted)
		err = dwarf_load__sort_lines(d, 0, d->nlines);
	if (!err)
		err = dwarf_load__nest_ranges(d, 0, d->nranges);
	dwarf_load__sort_spans(d->spans, d->nspans);
	dwarf_load__sort_spans(d->seqs, d->nseqs);
	d->nseqs_sorted = d->nseqs;
	return err;
}

/* The lazy load stops once the sections are read, .debug_info still
 * being inflated on its thread: the caller can do other work meanwhile
 * (addr2line.c reads the symbol tables); dwarf_load__finish() reads the
 * unit DIEs when the tables are first needed. (PROF_DWARF_LIBDW: libdw
 * reads each unit as it is needed, after prof's reader found them.) */
static int load(struct dwarf_info *d, unsigned flags)
{
	int err;

	if (!(flags & DWARF_LOAD_LAZY))
		return load_whole(d);
	err = load_lazy(d);
	if (err == -ENOTSUP) {
		reset(d);
		return load_whole(d);
	}
	d->pending = !err;
	return err;
}

int dwarf_load__finish(struct dwarf_info *d)
{
	int err;

	if (!d->pending)
		return d->failed;
	d->pending = 0;
	err = dwarf_lazy__open(d);
	if (err == -ENOTSUP) {
		reset(d);
		err = load_whole(d);
	}
	if (err) {
		reset(d); /* no tables: no answers */
		d->failed = err;
	}
	return err;
}

int dwarf_info__ready(const struct dwarf_info *d)
{
	/* The lazy load's end is a cache fill: the answers do not change. */
	return d ? dwarf_load__finish((struct dwarf_info *)d) : -EINVAL;
}

static struct dwarf_info *load_fd(int fd, const void *want_id, ssize_t want_len, unsigned flags)
{
	struct dwarf_info *d;
	struct stat st;
	int err;

	if (fstat(fd, &st)) {
		err = errno;
		close(fd);
		errno = err;
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = S_ISDIR(st.st_mode) ? EISDIR : ENOEXEC;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	d->fd = fd;
	elf_version(EV_CURRENT);
	d->elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!d->elf || elf_kind(d->elf) != ELF_K_ELF) {
		err = ENOEXEC;
	} else if (want_len > 0) {
		const void *id;
		ssize_t len = dwelf_elf_gnu_build_id(d->elf, &id);

		err = len > 0 && (len != want_len || memcmp(id, want_id, (size_t)len)) ? ESTALE : 0;
	} else {
		err = 0;
	}
	if (!err)
		err = -load(d, flags);
	if (err) {
		dwarf_info__free(d);
		errno = err;
		return NULL;
	}
	return d;
}

struct dwarf_info *dwarf_info__load_fd(int fd)
{
	return load_fd(fd, NULL, 0, 0);
}

static struct dwarf_info *load_path(const char *path, unsigned flags)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	return fd < 0 ? NULL : load_fd(fd, NULL, 0, flags);
}

struct dwarf_info *dwarf_info__load(const char *path)
{
	return load_path(path, 0);
}

static struct dwarf_info *load_pair(const char *binary, const char *debugfile, unsigned flags)
{
	unsigned char id[64];
	ssize_t len = 0;
	int fd;

	if (binary) {
		fd = open(binary, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0) {
			Elf *elf;
			const void *p;

			elf_version(EV_CURRENT);
			elf = elf_begin(fd, ELF_C_READ, NULL);
			len = elf ? dwelf_elf_gnu_build_id(elf, &p) : -1;
			if (len > 0 && (size_t)len <= sizeof(id))
				memcpy(id, p, (size_t)len);
			else
				len = 0;
			elf_end(elf);
			close(fd);
		}
	}
	fd = open(debugfile, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	return fd < 0 ? NULL : load_fd(fd, id, len, flags);
}

struct dwarf_info *dwarf_info__load_pair(const char *binary, const char *debugfile)
{
	return load_pair(binary, debugfile, 0);
}

struct dwarf_info *dwarf_info__load_flags(const char *path, const char *debugfile, unsigned flags)
{
	return debugfile ? load_pair(path, debugfile, flags) : load_path(path, flags);
}

void dwarf_info__free(struct dwarf_info *d)
{
	if (!d)
		return;
	dwarf_lazy__free(d);
	if (d->dw)
		dwarf_end(d->dw);
	elf_end(d->elf);
	if (d->fd >= 0)
		close(d->fd);
	strtab__release(&d->files);
	dwarf_secs__free(&d->secs);
	dwarf_split__free(d);
	free(d->lines);
	free(d->funcs);
	free(d->ranges);
	free(d->ranges_tmp);
	free(d->spans);
	free(d->seqs);
	free(d);
}

size_t dwarf_info__nlines(const struct dwarf_info *d)
{
	dwarf_info__ready(d);
	return d->nlines;
}

size_t dwarf_info__nranges(const struct dwarf_info *d)
{
	dwarf_info__ready(d);
	return d->nranges;
}

size_t dwarf_info__nfuncs(const struct dwarf_info *d)
{
	dwarf_info__ready(d);
	return d->nfuncs;
}

size_t dwarf_info__nunits(const struct dwarf_info *d)
{
	dwarf_info__ready(d);
	return d->nunits;
}
