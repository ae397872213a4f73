/* dwarf-build.c: assembles a binary's tables (dwarf-internal.h) from prof's own
 * readers: the line programs (dwarf-lines.c) and the units (dwarf-die.c),
 * on two threads.
 *
 * The programs are decoded one after the other in .debug_line, without
 * their units (rows name files by their entry in the program's own table,
 * so nothing shared is touched): on this thread while the other inflates
 * .debug_info (dwarf-secs.c), else on the other thread while this one
 * reads the units. Each unit, once read, is "settled" in unit order: its
 * program's file names joined under its DW_AT_comp_dir, its calls' files
 * resolved, its spans added, its line sequences listed; with .debug_info
 * streaming in, that happens in the waits for the next bytes. A unit whose
 * DW_AT_stmt_list is not where a program was found gets its program
 * decoded then. Last, the rows are placed: sequences sorted by their first
 * rows and copied end to end (or, when they overlap, copied in emission
 * order for dwarf-tables.c's stable sort). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "symbolize/dwarf-internal.h"

/* A line sequence (in order already) of a unit's program. */
struct seq {
	size_t from, n; /* in programs.rows */
	size_t order;   /* emission order: units in order, programs in order */
	uint32_t map;   /* its unit's file map in builder.maps */
};

/* The file ids of a unit's program rows: entry + 1 -> id. */
struct file_map {
	uint32_t *ids;
	size_t n;
};

/* What settling a unit needs of it. */
struct pending {
	const char *comp_dir;
	uint64_t stmt;
	int has_stmt;
	size_t funcs_from, funcs_to, ranges_from, ranges_to, cu_from, ncu;
};

/* All line programs of .debug_line, one after the other (units point at
 * them by offset; a compiler writes one per unit). */
struct programs {
	const struct dw_secs *s;
	struct dw_rows rows;
	struct dw_program *v;
	size_t n, cap;
	int err;
};

struct builder {
	struct dwarf_info *d;
	struct dw_secs *s;
	struct pending *pend;
	size_t npend, pend_cap, nsettled;
	uint64_t (*cu_ranges)[2]; /* the units' own ranges */
	size_t ncu_ranges, cu_ranges_cap;
	struct file_map *maps; /* per unit settled */
	size_t nmaps, maps_cap;
	struct seq *seqs;      /* all line sequences */
	size_t nseqs, seqs_cap;
	uint32_t unknown;      /* the id of "<unknown>" */
};

static struct dw_sections line_sections(const struct dw_secs *s)
{
	return (struct dw_sections){
		.line = s->sec[DW_SEC_LINE].p,
		.line_size = s->sec[DW_SEC_LINE].size,
		.line_str = s->sec[DW_SEC_LINE_STR].p,
		.line_str_size = s->sec[DW_SEC_LINE_STR].size,
		.str = s->sec[DW_SEC_STR].p,
		.str_size = s->sec[DW_SEC_STR].size,
	};
}

static void *decode_all(void *arg)
{
	struct programs *ps = arg;
	struct dw_sections ls = line_sections(ps->s);
	uint64_t off = 0, next;

	/* Every row takes at least a byte of program: no regrowing. */
	if (ls.line_size && ls.line_size < ((size_t)1 << 32)) {
		ps->rows.v = malloc((ls.line_size + 1) * sizeof(*ps->rows.v));
		ps->rows.cap = ps->rows.v ? ls.line_size + 1 : 0;
	}
	while (off < ls.line_size) {
		struct dw_program p;
		int err;

		if (GROW(ps->v, ps->cap, ps->n + 1)) {
			ps->err = -ENOMEM;
			break;
		}
		err = dwarf_lines__decode(&ls, off, &ps->rows, &p, &next);
		ps->v[ps->n++] = p;
		if (err == -ENOMEM) {
			ps->err = err;
			break;
		}
		if (next <= off)
			break; /* its length is unreadable: the rest is decoded when asked */
		off = next;
	}
	return NULL;
}

static const struct dw_program *find_program(const struct programs *ps, uint64_t off)
{
	size_t lo = 0, hi = ps->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ps->v[mid].offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ps->n && ps->v[lo].offset == off ? &ps->v[lo] : NULL;
}

static int seq_cmp(const void *pa, const void *pb, void *arg)
{
	const struct seq *a = pa, *b = pb;
	const struct dw_line *rows = arg, *x = &rows[a->from], *y = &rows[b->from];

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->end != y->end)
		return x->end ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static uint32_t map_file(const struct file_map *m, uint32_t unknown, uint32_t f)
{
	if (f == DW_FILE_UNKNOWN)
		return unknown;
	return f && f <= m->n ? m->ids[f - 1] : 0;
}

/* The rows of the sequences, appended to d->lines sorted as dwarf-internal.h
 * says, straight from the decoded programs: sequences are in order already
 * and rarely overlap, so they are sorted by their first rows and copied
 * end to end, each row given its file id on the way. When sequences
 * overlap, they are copied in emission order and *sorted is 0: the caller
 * has dwarf-tables.c sort the rows. */
static int place_rows(struct dwarf_info *d, const struct dw_line *rows, struct seq *seqs,
		      size_t nseqs, const struct file_map *maps, uint32_t unknown, int *sorted)
{
	size_t i, k, total = 0;
	int ok = 1;

	for (i = 0; i < nseqs; i++)
		total += seqs[i].n;
	if (d->nlines + total > d->lines_cap && GROW(d->lines, d->lines_cap, d->nlines + total))
		return -ENOMEM;
	if (nseqs > 1)
		qsort_r(seqs, nseqs, sizeof(*seqs), seq_cmp, (void *)rows);
	for (i = 1; i < nseqs && ok; i++) {
		const struct dw_line *last = &rows[seqs[i - 1].from + seqs[i - 1].n - 1];
		const struct dw_line *first = &rows[seqs[i].from];

		ok = last->addr < first->addr ||
		     (last->addr == first->addr && (last->end >= first->end) &&
		      (last->end > first->end || seqs[i - 1].order < seqs[i].order));
	}
	if (!ok) {
		/* Back to emission order, for dwarf-tables.c's stable sort. */
		for (i = 0; i < nseqs; i++)
			while (seqs[i].order != i) {
				struct seq t = seqs[seqs[i].order];

				seqs[seqs[i].order] = seqs[i];
				seqs[i] = t;
			}
	}
	for (i = 0; i < nseqs; i++) {
		const struct dw_line *src = &rows[seqs[i].from];
		struct dw_line *dst = &d->lines[d->nlines];
		const struct file_map *m = &maps[seqs[i].map];

		for (k = 0; k < seqs[i].n; k++) {
			dst[k] = src[k];
			dst[k].file = map_file(m, unknown, src[k].file);
		}
		d->nlines += seqs[i].n;
	}
	*sorted = ok;
	return 0;
}

/* The line sequences of rows[from, from + n) (a program's, in program
 * order: each sequence ends with an end row, or with the program), added
 * to *seqs as the rows of file map `map`. */
static int add_seqs(struct seq **seqs, size_t *nseqs, size_t *cap, const struct dw_line *rows,
		    size_t from, size_t n, uint32_t map)
{
	size_t k;

	for (k = 0; k < n; k++) {
		if (k && !rows[from + k - 1].end) {
			(*seqs)[*nseqs - 1].n++;
			continue;
		}
		if (GROW(*seqs, *cap, *nseqs + 1))
			return -ENOMEM;
		(*seqs)[*nseqs] = (struct seq){.from = from + k, .n = 1, .order = *nseqs, .map = map};
		(*nseqs)++;
	}
	return 0;
}

/* Resolves the DW_AT_call_file numbers (+ 1) of funcs [from, to). */
static int call_files(struct dwarf_info *d, const struct dw_file_table *files, size_t from,
		      size_t to)
{
	size_t k;
	int err = 0;

	for (k = from; k < to && !err; k++) {
		struct dw_func *f = &d->funcs[k];

		if (f->call_file)
			err = dwarf_lines__file(d, files, f->call_file - 1, &f->call_file);
	}
	return err;
}

/* Phase two of unit i (in unit order, once its line program is decoded):
 * its file names, its calls' files, its spans and its line sequences. */
static int settle(struct builder *r, struct programs *ps, size_t i)
{
	struct dwarf_info *d = r->d;
	const struct pending *pd = &r->pend[i];
	const struct dw_program *p = pd->has_stmt ? find_program(ps, pd->stmt) : NULL;
	struct dw_file_table files = {0};
	struct dw_program extra;
	uint64_t next;
	int err = 0;

	memset(&extra, 0, sizeof(extra));
	if (!r->unknown) {
		err = strtab__intern(&d->files, "<unknown>", 9, &r->unknown);
		if (err)
			return err;
	}
	if (GROW(r->maps, r->maps_cap, i + 1))
		return -ENOMEM;
	r->maps[i] = (struct file_map){0};
	r->nmaps = i + 1;
	if (!p && pd->has_stmt) {
		/* Not where the programs were found one after the other:
		 * decoded now. */
		struct dw_sections ls = line_sections(r->s);

		err = dwarf_lines__decode(&ls, pd->stmt, &ps->rows, &extra, &next);
		if (err == -EBADMSG)
			err = 0;
		p = &extra;
	}
	if (!err && p)
		err = dwarf_lines__files(d, p, pd->comp_dir, &files);
	r->maps[i].ids = files.ids;
	r->maps[i].n = files.n;
	if (!err)
		err = call_files(d, &files, pd->funcs_from, pd->funcs_to);
	if (!err)
		err = dwarf_tables__unit_spans(d,
					       (const uint64_t(*)[2])(r->cu_ranges + pd->cu_from),
					       pd->ncu, p ? ps->rows.v + p->from : NULL,
					       p ? p->n : 0, pd->ranges_from, pd->ranges_to);
	if (!err && p)
		err = add_seqs(&r->seqs, &r->nseqs, &r->seqs_cap, ps->rows.v, p->from, p->n,
			       (uint32_t)i);
	dwarf_lines__release(&extra);
	return err;
}

/* Keeps what settling the unit needs. */
static int keep(struct builder *b, const struct dw_unit_info *u)
{
	struct pending pd = {
		.comp_dir = u->comp_dir,
		.stmt = u->stmt,
		.has_stmt = u->has_stmt,
		.funcs_from = u->funcs_from,
		.funcs_to = u->funcs_to,
		.ranges_from = u->ranges_from,
		.ranges_to = u->ranges_to,
		.cu_from = b->ncu_ranges,
		.ncu = u->ncu,
	};
	size_t i;

	if (GROW(b->cu_ranges, b->cu_ranges_cap, b->ncu_ranges + u->ncu) ||
	    GROW(b->pend, b->pend_cap, b->npend + 1))
		return -ENOMEM;
	for (i = 0; i < u->ncu; i++) {
		b->cu_ranges[b->ncu_ranges][0] = u->cu[i][0];
		b->cu_ranges[b->ncu_ranges][1] = u->cu[i][1];
		b->ncu_ranges++;
	}
	b->pend[b->npend++] = pd;
	return 0;
}

int dwarf_build__tables(struct dwarf_info *d, struct dw_secs *s)
{
	struct builder b = {.d = d, .s = s};
	struct programs ps = {.s = s};
	struct dw_reader *r;
	struct dw_unit_info u;
	pthread_t th;
	int err, threaded = 0, rc;
	size_t i;

	/* The line programs: here first when .debug_info is still being
	 * inflated by the other thread, else on a thread of their own while
	 * this one reads the units. */
	if (!s->info)
		threaded = !pthread_create(&th, NULL, decode_all, &ps);
	if (!threaded)
		decode_all(&ps);
	err = dwarf_die__open(d, s, &r);
	while (!err && (rc = dwarf_die__next(r, &u)) != 0) {
		err = rc < 0 ? rc : keep(&b, &u);
		/* While .debug_info streams in, the programs are decoded
		 * already: settle units as they come, in the waits. */
		while (!err && s->info && b.nsettled < b.npend)
			err = settle(&b, &ps, b.nsettled++);
	}
	dwarf_die__close(r);
	if (threaded)
		pthread_join(th, NULL);
	rc = dwarf_secs__finish(s);
	if (!err)
		err = rc ? rc : ps.err;
	while (!err && b.nsettled < b.npend)
		err = settle(&b, &ps, b.nsettled++);
	if (!err) {
		d->nlines = 0;
		err = place_rows(d, ps.rows.v, b.seqs, b.nseqs, b.maps, b.unknown, &d->lines_sorted);
	}
	for (i = 0; i < ps.n; i++)
		dwarf_lines__release(&ps.v[i]);
	free(ps.v);
	free(ps.rows.v);
	free(b.cu_ranges);
	free(b.pend);
	for (i = 0; i < b.nmaps; i++)
		free(b.maps[i].ids);
	free(b.maps);
	free(b.seqs);
	return err;
}

int dwarf_build__unit(struct dwarf_info *d, const struct dw_secs *s, const struct dw_unit_info *u,
		      struct dw_rows *rows, size_t *nrows)
{
	struct dw_program p;
	int err;

	err = dwarf_build__decode(s, u, rows, &p);
	return dwarf_build__unit_rows(d, u, rows, &p, err, nrows);
}

int dwarf_build__decode(const struct dw_secs *s, const struct dw_unit_info *u, struct dw_rows *rows,
			struct dw_program *p)
{
	struct dw_sections ls = line_sections(s);
	uint64_t next;
	int err = 0;

	memset(p, 0, sizeof(*p));
	rows->n = 0;
	if (u->has_stmt) {
		err = dwarf_lines__decode(&ls, u->stmt, rows, p, &next);
		if (err == -EBADMSG)
			err = 0; /* the rows read so far count */
	}
	return err;
}

int dwarf_build__unit_rows(struct dwarf_info *d, const struct dw_unit_info *u, struct dw_rows *rows,
			   struct dw_program *p, int err, size_t *nrows)
{
	struct dw_file_table files = {0};
	struct file_map map;
	struct seq *seqs = NULL;
	size_t nseqs = 0, seqs_cap = 0, from = d->nlines;
	uint32_t unknown = 0;
	int sorted = 1;

	if (!err)
		err = dwarf_lines__files(d, p, u->comp_dir, &files);
	if (!err)
		err = call_files(d, &files, u->funcs_from, u->funcs_to);
	if (!err && rows->n)
		err = strtab__intern(&d->files, "<unknown>", 9, &unknown);
	if (!err)
		err = add_seqs(&seqs, &nseqs, &seqs_cap, rows->v, 0, rows->n, 0);
	map = (struct file_map){.ids = files.ids, .n = files.n};
	if (!err)
		err = place_rows(d, rows->v, seqs, nseqs, &map, unknown, &sorted);
	if (!err && !sorted)
		err = dwarf_tables__sort_lines(d, from, d->nlines - from);
	*nrows = rows->n;
	dwarf_lines__release(p);
	free(files.ids);
	free(seqs);
	return err;
}
