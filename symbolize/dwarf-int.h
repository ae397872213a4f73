/* dwarf-int.h: the tables of a struct dwarf_info, shared by the loader
 * (dwarf-load.c) and the lookup (dwarf-lookup.c). Internal to symbolize/. */
#ifndef PROF_SYMBOLIZE_DWARF_INT_H
#define PROF_SYMBOLIZE_DWARF_INT_H

#include <elfutils/libdw.h>
#include <stdint.h>

#include "lib/strtab.h"
#include "symbolize/dwarf.h"

#define DWARF_NONE UINT32_MAX

/* One line-table row. Rows of all units are sorted by address; at one
 * address an end-of-sequence row comes first, then the unit's rows in
 * program order, so the last row at an address is the one that counts (as
 * in BFD, which keeps the last of equal-address rows). */
struct dw_line {
	uint64_t addr;
	uint32_t file; /* id in dwarf_info.files; 0 = unknown */
	uint32_t line;
	uint32_t discriminator;
	uint32_t end; /* end_sequence: no line from here on */
	uint64_t ord; /* order of emission, for a stable sort */
};

/* A subprogram or inlined subroutine that has code. */
struct dw_func {
	const char *name;   /* in libdw's string data; NULL: unnamed */
	uint32_t parent;    /* the func it was inlined into, or DWARF_NONE */
	uint32_t call_file; /* file id of DW_AT_call_file; 0 = none */
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
	Elf *elf;
	Dwarf *dw;

	struct dw_line *lines;
	size_t nlines, lines_cap;
	struct dw_func *funcs;
	size_t nfuncs, funcs_cap;
	struct dw_range *ranges;
	size_t nranges, ranges_cap;
	struct dw_span *spans; /* the units' own ranges */
	size_t nspans, spans_cap;
	struct dw_span *seqs;  /* their line sequences */
	size_t nseqs, seqs_cap;
	uint32_t nunits;
	struct strtab files; /* joined file names; id 0 = "" (unknown) */
};

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

/* Decodes the line program at `offset` of .debug_line: appends its rows to
 * d->lines (numbering them from *ord) and fills *files (malloc'ed ids; the
 * caller frees files->ids). 0, -EBADMSG (a malformed program: rows read so
 * far are kept) or -ENOMEM. */
int dwarf_lines__read(struct dwarf_info *d, const struct dw_sections *s, uint64_t offset,
		      const char *comp_dir, struct dw_file_table *files, uint64_t *ord);

/* The id BFD's concat_filename() gives file number `num` of the table
 * ("<unknown>" for pre-DWARF 5 number 0 or a number out of range). */
int dwarf_lines__file(struct dwarf_info *d, const struct dw_file_table *files, uint64_t num,
		      uint32_t *id);

#endif
