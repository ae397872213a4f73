/* unwind-internal.h: what the two halves of the unwinder share (internal to
 * symbolize/): unwind-cfi.c opens binaries and compiles CFI rows,
 * unwind-walk.c walks stacks with them. */
#ifndef PROF_UNWIND_INTERNAL_H
#define PROF_UNWIND_INTERNAL_H

#include <elfutils/libdw.h>
#include <libelf.h>

#include "lib/keymap.h"
#include "unwind.h"

/* The registers whose caller values a row describes: the callee-saved ones
 * and the return address. The caller-saved ones are lost in outer frames,
 * and rsp is the CFA. */
#define UNW_NTRACKED 7
extern const uint8_t unw_tracked[UNW_NTRACKED]; /* rbx rbp r12 r13 r14 r15 rip */
#define UNW_RA_SLOT 6

enum unw_rule_kind {
	UNW_UNDEF = 0, /* call-clobbered: unknown in the caller */
	UNW_SAME,      /* unchanged */
	UNW_AT_CFA,    /* saved at CFA + off */
	UNW_VAL_CFA,   /* is CFA + off */
	UNW_REG,       /* CFA only: register `reg` + off */
	UNW_AT_EXPR,   /* saved at the address an expression yields */
	UNW_VAL_EXPR,  /* is what an expression yields (also the CFA's expressions) */
};

struct unw_rule {
	uint8_t kind;
	uint8_t reg;
	uint16_t nops;
	uint32_t ops; /* index into the unwinder's op pool */
	int64_t off;
};

struct unw_op {
	uint8_t atom;
	uint64_t n1, n2;
};

struct unw_row {
	struct unw_rule cfa;
	struct unw_rule regs[UNW_NTRACKED];
	uint8_t no_cfi; /* no CFI covers the pc */
	uint8_t entry;	/* ... and it is the binary's entry point: an outermost
			   frame (ld.so's _start has no CFI) */
	uint8_t signal; /* a signal frame: the caller's pc is exact */
};

struct unw_binary {
	int fd;
	Elf *elf;
	void *image; /* the vdso's bytes, for elf_memory */
	Dwarf *dw;
	Dwarf_CFI *eh, *dbg; /* .eh_frame (ours to end), .debug_frame (dw's) */
	int dbg_tried;
	uint64_t entry; /* e_entry */
	struct unw_seg {
		uint64_t off, filesz, vaddr;
	} * segs;
	size_t nsegs;
};

#define UNW_MEMO_SIZE 1024 /* power of two */

struct unwinder {
	struct unwind_opts opts;
	struct unw_binary *bins;
	size_t nbins, bins_cap;
	struct keymap by_file;	  /* (dev, ino) -> bin */
	struct keymap by_mapping; /* mapping id -> bin + 1, 0: none */
	struct keymap row_ids;	  /* (bin, vaddr) -> row */
	struct unw_row *rows;
	size_t nrows, rows_cap;
	struct unw_op *ops;
	size_t nops, ops_cap;
	int vdso_tried;
	uint32_t vdso_bin; /* + 1; 0: none */
	struct unwinder_stats st;
	/* unw_find_row's answers for recent (pid, pc), direct-mapped, valid
	 * while *opts.map_generation is `generation`. */
	struct unw_memo {
		uint64_t pc, generation;
		uint32_t pid;
		uint32_t row;   /* + 1; 0: the answer was no row */
		uint8_t status; /* with no row */
		uint8_t used;
	} memo[UNW_MEMO_SIZE];
};

/* The row for pc (exact: the address looked up) in process pid. NULL with
 * *status = UNWIND_NO_MAPPING, UNWIND_NO_CFI (also for an unreadable
 * binary) or UNWIND_BAD_CFI (out of memory). */
const struct unw_row *unw_find_row(struct unwinder *u, uint32_t pid, uint64_t pc,
				   enum unwind_status *status);

#endif
