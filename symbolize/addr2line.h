/* addr2line.h: answers for `prof symbolize -e`, printed exactly as GNU
 * binutils' addr2line prints them (same flags, same "??", "??:0", "??:?",
 * "(discriminator N)", same choice of names and file names).
 *
 * The DWARF comes from dwarf_info (dwarf.h); what addr2line takes from BFD's
 * ELF reader (which section holds an address, the nearest function symbol
 * and its STT_FILE name when DWARF has no answer) is rebuilt here from the
 * binary's own symbol table: .symtab, or .dynsym when there is none. All of
 * it is built once at open; each address then costs a few binary searches. */
#ifndef PROF_SYMBOLIZE_ADDR2LINE_H
#define PROF_SYMBOLIZE_ADDR2LINE_H

#include <stdint.h>
#include <stdio.h>

struct addr2line;

struct addr2line_opts {
	int functions; /* -f: print function names */
	int inlines;   /* -i: print the inline chain */
	int demangle;  /* -C */
	int addresses; /* -a: print the address first */
	int pretty;    /* -p: one line per address */
	int basenames; /* -s: file names without directories */
};

/* Opens `binary`. Its DWARF is read from `debugfile` when given (a separate
 * debug file: the caller finds it with debuginfo_find(), as the rest of
 * prof does), else from the binary itself. Missing DWARF is not an error
 * (addresses then resolve from symbols, as addr2line does); *dwarf_errno is
 * set to why there is none (ENODATA: the file has no DWARF), or 0.
 * NULL + errno when `binary` cannot be opened or is not ELF (ENOEXEC). */
struct addr2line *addr2line__open(const char *binary, const char *debugfile,
				  int *dwarf_errno);
void addr2line__free(struct addr2line *a);

/* Split DWARF: how many units' .dwo files were not found, *first the
 * first one's path (dwarf_info__split_missing()). */
size_t addr2line__split_missing(const struct addr2line *a, const char **first);

/* Addresses about to be printed, in order: the DWARF units they need are
 * read ahead on a second thread (dwarf_info__prefetch()). Optional; the
 * output is the same without. */
void addr2line__prefetch(struct addr2line *a, const uint64_t *pcs, size_t n);

/* Prints what addr2line prints for address `pc` to `out` (does not flush).
 * 0, or -errno when writing or allocating failed. */
int addr2line__print(struct addr2line *a, uint64_t pc, const struct addr2line_opts *o,
		     FILE *out);

#endif
