/* dwarf-internal.h: the tables of a struct dwarf_info, shared by the loader
 * (dwarf-load.c) and the lookup (dwarf-lookup.c). Internal to symbolize/. */
#ifndef PROF_SYMBOLIZE_DWARF_INTERNAL_H
#define PROF_SYMBOLIZE_DWARF_INTERNAL_H

#include <elfutils/libdw.h>
#include <stdint.h>

#include "lib/strtab.h"
#include "symbolize/dwarf.h"

#define DWARF_NONE UINT32_MAX

/* A debug section's bytes (inflated when the file compresses it). */
struct dw_sec {
	const unsigned char *p;
	size_t size;
};

enum {
	DW_SEC_INFO,
	DW_SEC_ABBREV,
	DW_SEC_LINE,
	DW_SEC_STR,
	DW_SEC_LINE_STR,
	DW_SEC_RANGES,
	DW_SEC_RNGLISTS,
	DW_SEC_ADDR,
	DW_SEC_STR_OFFSETS,
	DW_NSECS
};

struct dw_stream;
struct dw_rows;
struct dw_program;
struct dw_unit_info;

/* The sections dwarf-die.c reads: in the file's read-only mapping `map`,
 * or in owned[] (inflated here). While `info` is set, .debug_info may
 * still be being inflated by a thread: it may be read only once
 * dwarf_secs__ready() said its bytes are there. */
struct dw_secs {
	struct dw_sec sec[DW_NSECS];
	void *owned[DW_NSECS];
	size_t owned_len[DW_NSECS]; /* mapped (huge pages) when not 0 */
	struct dw_stream *info;
	void *map;
	size_t map_size;
};

/* One line-table row. Rows of all units are sorted by address; at one
 * address an end-of-sequence row comes first, then the rows in the order
 * they were emitted (units in order, each in program order), so the last
 * row at an address is the one that counts (as in BFD, which keeps the last
 * of equal-address rows). */
struct dw_line {
	uint64_t addr;
	uint32_t file; /* id in dwarf_info.files; 0 = unknown */
	uint32_t line;
	uint32_t discriminator;
	uint32_t end; /* end_sequence: no line from here on */
};

/* A subprogram or inlined subroutine that has code. */
struct dw_func {
	const char *name;   /* in the section data; NULL: unnamed */
	uint32_t parent;    /* the func it was inlined into, or DWARF_NONE */
	uint32_t call_file; /* file id of DW_AT_call_file; 0 = none (while
			       dwarf-die.c reads: the number + 1) */
	uint32_t call_line;
	uint64_t low;       /* start of its first range, as BFD merges ranges */
	uint8_t linkage;    /* SRC_FRAME_LINKAGE applies to name */
	uint8_t inlined;
};

/* One address range of a func. Sorted by lo, then longest first, then
 * func (DIE order); `parent` is the range it nests in. */
struct dw_range {
	uint64_t lo, hi;
	uint32_t func;
	uint32_t parent; /* range index or DWARF_NONE */
};

/* Addresses that belong to a unit. BFD answers only for addresses inside
 * a unit: at first the unit's DW_AT_ranges / low_pc..high_pc (the padding
 * between two functions is in no unit, whatever the line rows say), and
 * once a lookup has hit the unit (BFD then decodes its line program), also
 * its line sequences. Sorted by lo; maxhi is the largest hi up to here. */
struct dw_span {
	uint64_t lo, hi, maxhi;
	uint32_t unit;
};

struct dwarf_info {
	int fd;
	struct dw_secs secs; /* when prof's own reader built the tables */
	Elf *elf;
	Dwarf *dw;

	struct dw_line *lines;
	size_t nlines, lines_cap;
	int lines_sorted; /* dwarf-die.c sorted them already */
	struct dw_func *funcs;
	size_t nfuncs, funcs_cap;
	struct dw_range *ranges;
	size_t nranges, ranges_cap;
	struct dw_range *ranges_tmp; /* scratch of the ranges' sort, kept:
					allocated anew for each unit, its pages
					faulted in again every time */
	size_t ranges_tmp_cap;
	struct dw_span *spans; /* the units' own ranges */
	size_t nspans, spans_cap;
	struct dw_span *seqs;  /* their line sequences */
	size_t nseqs, seqs_cap;
	size_t nseqs_sorted;   /* seqs[0..nseqs_sorted) are sorted; the rest
				  (lazy mode: units read since) is not */
	uint32_t nunits;
	struct strtab files; /* joined file names; id 0 = "" (unknown) */
	struct dw_lazy *lazy; /* the lazy mode's state, or NULL */
	struct dw_split *split; /* split DWARF's .dwo/.dwp files (dwarf-split.c) */
	int pending;          /* a lazy load's unit DIEs are still to read */
	int failed;           /* and reading them failed: -errno */
};

/* One unit's tables in lazy mode: d->lines[lines_from, +nlines) and
 * d->ranges[ranges_from, +nranges). */
struct dw_slice {
	size_t lines_from, nlines, ranges_from, nranges;
	/* The lazy mode's sampled keys, or NULL: line_keys[j] is the address
	 * of row lines_from + j * DW_KEY_STEP, range_keys[j] the lo of range
	 * ranges_from + j * DW_KEY_STEP (see dwarf-lookup.c). */
	const uint64_t *line_keys, *range_keys;
};
#define DW_KEY_STEP 8

/* The lazy mode (dwarf-lazy.c). dwarf_lazy__open(): once the sections are
 * read, reads the unit DIEs into d's unit spans (0, -ENOMEM, -ENOEXEC, or
 * -ENOTSUP: the whole load must be used). dwarf_lazy__unit(): unit's
 * tables, read on first use (0, or -ENOENT: no tables, the unit is
 * unreadable or not one of code). dwarf_lazy__read_all(): every unit
 * read, all of d->seqs sorted. dwarf_lazy__error(): 0, or the first
 * failure (-ENOMEM) to read a unit. */
int dwarf_lazy__open(struct dwarf_info *d);
int dwarf_lazy__unit(struct dwarf_info *d, uint32_t unit, struct dw_slice *out);
int dwarf_lazy__read_all(struct dwarf_info *d);
int dwarf_lazy__error(const struct dwarf_info *d);
/* The lookups will need unit `unit` (dwarf_info__prefetch()): read it
 * ahead on a second thread when it is not read yet. */
void dwarf_lazy__want(struct dwarf_info *d, uint32_t unit);
void dwarf_lazy__free(struct dwarf_info *d);

/* The lazy mode's read-ahead on a second thread (dwarf-prefetch.c), over
 * sections that are all there (dwarf_secs__finish() done) and nunits units.
 * dwarf_prefetch__want(): the lookups will need unit `unit` (in the order
 * of the calls); 0 or -ENOMEM. dwarf_prefetch__take(): the lookup thread
 * is about to read unit `unit`: 1 when it was read ahead (its funcs and
 * ranges, nested, are appended to d now, *u says where; *rows and *p are
 * its decoded line program and *decode_err what decoding returned, for
 * dwarf_build__unit_rows(); the caller frees rows->v), 0 when the caller
 * must read it itself (it will not be read ahead any more), -ENOMEM. */
struct dw_prefetch;
struct dw_prefetch *dwarf_prefetch__new(struct dw_secs *s, size_t nunits);
int dwarf_prefetch__want(struct dw_prefetch *pf, uint32_t unit);
int dwarf_prefetch__take(struct dw_prefetch *pf, struct dwarf_info *d, uint32_t unit,
			 struct dw_unit_info *u, struct dw_rows *rows, struct dw_program *p,
			 int *decode_err);
void dwarf_prefetch__free(struct dw_prefetch *pf);

/* Finds the sections of dw_secs in the ELF file (open as fd, mapped
 * read-only until dwarf_secs__free()), inflating compressed ones
 * (dwarf-secs.c). 0, -ENODATA (no .debug_info), -ENOEXEC (.debug_info
 * unreadable) or -ENOMEM; other sections that cannot be read are absent. */
int dwarf_secs__read(Elf *elf, int fd, struct dw_secs *s);
/* Waits until `want` bytes of .debug_info are there, or no more will
 * come; returns how many are (all of it, or 0 when it did not inflate). */
size_t dwarf_secs__ready(struct dw_secs *s, size_t want);
/* Waits for the inflating thread: 0, -ENOEXEC (.debug_info was corrupt)
 * or -ENOMEM. */
int dwarf_secs__finish(struct dw_secs *s);
void dwarf_secs__free(struct dw_secs *s);

/* Fills d's lines (sorted when d->lines_sorted), funcs, ranges and unit
 * spans (unsorted) from the sections with prof's own readers
 * (dwarf-build.c); waits for the section thread. 0, -ENOMEM, -ENOEXEC
 * (.debug_info did not inflate), or -ENOTSUP: the DWARF uses something the
 * reader does not handle (dwz's alternate files, type signatures as
 * references, odd address sizes), and the caller starts over with libdw. */
int dwarf_build__tables(struct dwarf_info *d, struct dw_secs *s);

/* What the table builder needs of a unit of code the DIE reader has read
 * (its funcs and ranges are in the dwarf_info already). */
struct dw_unit_info {
	const char *comp_dir;
	uint64_t stmt;
	int has_stmt;
	int plain_names; /* its language's DW_AT_name is the linkage name */
	size_t funcs_from, funcs_to, ranges_from, ranges_to;
	const uint64_t (*cu)[2]; /* its own ranges (until the next call) */
	size_t ncu;
};

/* prof's .debug_info reader (dwarf-die.c): units of code in order, each
 * read whole (its funcs and ranges appended to d, their call_file the
 * DW_AT_call_file number + 1, 0 for none). dwarf_die__next(): 1 (*out
 * filled), 0 (no more), -ENOMEM or -ENOTSUP. */
struct dw_reader;
int dwarf_die__open(struct dwarf_info *d, struct dw_secs *s, struct dw_reader **out);
int dwarf_die__next(struct dw_reader *r, struct dw_unit_info *out);
void dwarf_die__close(struct dw_reader *r);
/* For reading units in any order (dwarf-lazy.c), once all of .debug_info
 * is there: dwarf_die__scan() reads every unit header (0, or -ENOMEM,
 * -ENOTSUP) and says how many there are; dwarf_die__unit() reads unit i,
 * its unit DIE only or, with `walk_dies`, its DIEs too (their funcs and
 * ranges appended to d): 0 (*out filled), 2 (not a unit of code), 1
 * (unreadable: the units after it do not count either), <0 (-ENOTSUP: a
 * form this reader leaves to libdw). Only the abbreviations of the unit
 * DIE are read for a unit not walked. */
int dwarf_die__scan(struct dw_reader *r, size_t *nunits);
int dwarf_die__unit(struct dw_reader *r, size_t i, int walk_dies, struct dw_unit_info *out);
/* The .debug_info offset of unit i's unit DIE. */
uint64_t dwarf_die__unit_die(const struct dw_reader *r, size_t i);

/* The tables' helpers every reader uses (dwarf-tables.c; they call no
 * other part of the reader).
 *
 * The unit's address spans for the lookup: `cu` holds the
 * unit DIE's own ranges (ncu of them, empty ones counted: a unit that
 * states ranges, even empty ones, does not get its functions' instead);
 * rows[0..nrows) (in program order) and ranges [ranges_from, ranges_to)
 * are the unit's. Numbers the unit d->nunits (and counts it).
 * dwarf_tables__cu_spans() adds the spans of its own ranges (or its
 * functions'), dwarf_tables__seq_spans() those of its line sequences, for a
 * unit numbered by the caller. 0 or -ENOMEM. */
int dwarf_tables__unit_spans(struct dwarf_info *d, const uint64_t (*cu)[2], size_t ncu,
			     const struct dw_line *rows, size_t nrows, size_t ranges_from,
			     size_t ranges_to);
int dwarf_tables__cu_spans(struct dwarf_info *d, uint32_t unit, const uint64_t (*cu)[2],
			   size_t ncu, size_t ranges_from, size_t ranges_to);
int dwarf_tables__seq_spans(struct dwarf_info *d, uint32_t unit, const struct dw_line *rows,
			    size_t nrows);
/* Appends a func for the last n (> 0) ranges added to d, zeroed but for
 * its low (where BFD's first arange starts) and its parent (DWARF_NONE);
 * the ranges' func is the caller's. NULL when out of memory. */
struct dw_func *dwarf_tables__new_func(struct dwarf_info *d, size_t n);
/* Sorts spans by start (then unit: dwarf_span_cmp) and sets their maxhi. */
void dwarf_tables__sort_spans(struct dw_span *s, size_t n);
int dwarf_span_cmp(const void *a, const void *b);
/* Sorts d->ranges[from, from + n) as struct dw_range says and links each
 * to the range it nests in (parents are indexes in d->ranges, inside the
 * slice). 0 or -ENOMEM. */
int dwarf_tables__nest_ranges(struct dwarf_info *d, size_t from, size_t n);
/* Sorts d->lines[from, from + n) as struct dw_line says, stably. 0 or
 * -ENOMEM. */
int dwarf_tables__sort_lines(struct dwarf_info *d, size_t from, size_t n);

/* libdw's reader (dwarf-libdw.c). dwarf_libdw__tables(): the whole
 * load's walk when prof's reader gives up (-ENOTSUP) or PROF_DWARF_LIBDW
 * is set: all units' rows, funcs, ranges and spans, unsorted, into d
 * (whose tables are empty); 0, -ENOEXEC, -ENOMEM. dwarf_libdw__unit():
 * the lazy mode's way out when prof's reader gives up on a unit: the unit
 * whose DIE is at .debug_info offset die_off read as the whole walk reads
 * it: its rows appended to d->lines in program order (with file ids,
 * unsorted), its funcs and ranges to d's, *out saying where. 0, -ENOMEM,
 * -ENOEXEC. */
int dwarf_libdw__tables(struct dwarf_info *d);
int dwarf_libdw__unit(struct dwarf_info *d, uint64_t die_off, struct dw_unit_info *out);

/* One unit's tables (dwarf-build.c), for the lazy mode: decodes the line
 * program of unit u (read by dwarf_die__unit() with its DIEs, so its funcs
 * and ranges are in d already), resolves its calls' files, and appends its
 * rows to d->lines, sorted. rows is scratch (reused between calls); on
 * return rows->v[0..*nrows) are the rows in program order (for
 * dwarf_tables__seq_spans()). 0 or -ENOMEM; a malformed program gives the
 * rows read before the fault. */
int dwarf_build__unit(struct dwarf_info *d, const struct dw_secs *s, const struct dw_unit_info *u,
		      struct dw_rows *rows, size_t *nrows);
/* dwarf_build__unit() in two steps: dwarf_build__decode() decodes the
 * unit's line program into rows (from 0) and *p, touching nothing else (any
 * thread; 0 or -ENOMEM), and dwarf_build__unit_rows() does the rest with
 * them, `err` being what the decode returned; it releases *p. */
int dwarf_build__decode(const struct dw_secs *s, const struct dw_unit_info *u, struct dw_rows *rows,
			struct dw_program *p);
int dwarf_build__unit_rows(struct dwarf_info *d, const struct dw_unit_info *u, struct dw_rows *rows,
			   struct dw_program *p, int err, size_t *nrows);

/* The raw sections the line-program reader needs (libdw does not give
 * the program itself, only its rows with libdw's own file naming). */
struct dw_sections {
	const unsigned char *line, *line_str, *str;
	size_t line_size, line_str_size, str_size;
};

/* A unit's file table, as ids in dwarf_info.files, indexed the way BFD
 * indexes it: DWARF 5 by the file number, older versions by number - 1. */
struct dw_file_table {
	uint32_t *ids;
	size_t n;
	int v5;
};

/* A line program's file entry. */
struct dw_entry {
	const char *name;
	uint64_t dir;
};

/* A decoded line program whose rows do not have file ids yet: their
 * `file` is 0 (none), DW_FILE_UNKNOWN ("<unknown>") or entry + 1. */
#define DW_FILE_UNKNOWN UINT32_MAX
struct dw_program {
	uint64_t offset;
	size_t from, n;  /* its rows in the dw_rows */
	int version;     /* 0: the header was unreadable, no file table */
	const char **dirs;
	size_t ndirs;
	struct dw_entry *files;
	size_t nfiles;
};

struct dw_rows {
	struct dw_line *v;
	size_t n, cap;
};

/* Decodes the line program at `offset` of .debug_line into rows->v (from
 * rows->n on) and *p; touches nothing else, so it may run on any thread.
 * *next: where the next program starts (0 when unknown). 0, -EBADMSG (a
 * malformed program: the rows read so far are kept) or -ENOMEM. The
 * caller frees *p with dwarf_lines__release(), whatever the result. */
int dwarf_lines__decode(const struct dw_sections *s, uint64_t offset, struct dw_rows *rows,
			struct dw_program *p, uint64_t *next);
void dwarf_lines__release(struct dw_program *p);

/* Interns the program's file names as a unit with `comp_dir` sees them,
 * into *files (malloc'ed ids; the caller frees files->ids). 0 or -ENOMEM. */
int dwarf_lines__files(struct dwarf_info *d, const struct dw_program *p, const char *comp_dir,
		       struct dw_file_table *files);

/* Interns the program's file names as a unit with `comp_dir` sees them,
 * into *files (malloc'ed ids; the caller frees files->ids), and appends
 * its rows (rows[p->from..]) to d->lines with file ids. 0 or -ENOMEM. */
int dwarf_lines__emit(struct dwarf_info *d, const struct dw_line *rows, const struct dw_program *p,
		      const char *comp_dir, struct dw_file_table *files);

/* Both at once (the libdw walk): 0, -EBADMSG (rows read so far are
 * kept) or -ENOMEM. */
int dwarf_lines__read(struct dwarf_info *d, const struct dw_sections *s, uint64_t offset,
		      const char *comp_dir, struct dw_file_table *files);

/* The id BFD's concat_filename() gives file number `num` of the table
 * ("<unknown>" for pre-DWARF 5 number 0 or a number out of range). */
int dwarf_lines__file(struct dwarf_info *d, const struct dw_file_table *files, uint64_t num,
		      uint32_t *id);

/* Split DWARF (dwarf-split.c). What a skeleton unit says of its split
 * unit: the .dwo's name (DW_AT_dwo_name / DW_AT_GNU_dwo_name), its
 * comp_dir, the dwo_id (header or DW_AT_GNU_dwo_id), DW_AT_GNU_ranges_base. */
struct dw_split_ref {
	const char *dwo_name, *comp_dir;
	uint64_t dwo_id;
	int have_id;
	uint64_t ranges_base;
};
/* The split unit's sections for dwarf-die.c's reader: the .dwo's (or the
 * unit's slices of BINARY.dwp), with .debug_addr and .debug_ranges those
 * of `main`. 0 (*out filled), 1 (not found), -ENOMEM. The files stay
 * open until dwarf_split__free(). */
int dwarf_split__secs(struct dwarf_info *d, const struct dw_secs *main,
		      const struct dw_split_ref *ref, struct dw_secs *out);
/* Counts the skeleton as one whose split unit was not found (once per
 * dwo_id). 0 or -ENOMEM. */
int dwarf_split__missing(struct dwarf_info *d, const struct dw_split_ref *ref);
/* How many skeletons were counted missing, and the first one's .dwo path
 * in *first (NULL when none), as dwarf_info__split_missing() says once the
 * load is finished. */
size_t dwarf_split__missing_count(const struct dwarf_info *d, const char **first);
void dwarf_split__free(struct dwarf_info *d);
/* A .dwp's .debug_cu_index lookup: the contributions of unit `id` to
 * whole[] = .debug_info.dwo, .debug_abbrev.dwo, .debug_str_offsets.dwo,
 * .debug_rnglists.dwo, as slices in out[]. 0, or 1 (not in the index, or
 * the index is malformed). */
int dwarf_split__dwp_unit(const struct dw_sec *index, uint64_t id, const struct dw_sec whole[4],
			  struct dw_sec out[4]);

#endif
