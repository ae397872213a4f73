/* dwarf.h: source lines and inlined-function chains from a binary's DWARF,
 * answered from tables built once per binary.
 *
 * dwarf_info__load() reads every compile unit once (with prof's own DWARF
 * reader, libdw's as a fallback): it copies each line table row into one
 * address-sorted array, and each subprogram and DW_TAG_inlined_subroutine
 * with code into a sorted array of address ranges that nest (a range's
 * parent is the range it lies in). A lookup is then a binary search in
 * each array and a short walk up the nesting: no libdw call per address
 * (dwarf_getscopes / dwarf_addrdie cost a DIE walk each time).
 *
 * The answers follow binutils' addr2line (BFD's dwarf2.c) so that
 * `prof symbolize -e` can print the same thing; see docs/symbolize-notes.md
 * ("DWARF") for the rules and where they come from. Handles DWARF 2 to 5
 * (DW_AT_ranges, rnglists, strx forms; dwz's alternate files through
 * libdw); split DWARF (skeleton units whose DIEs are in .dwo files or a
 * BINARY.dwp package: dwarf-split.c); type units and partial units that
 * carry no code are skipped.
 *
 * Threads. A struct dwarf_info is one mutable object with no lock of its
 * own: the lazy load (DWARF_LOAD_LAZY) finishes in the first call that
 * needs the tables, and every lookup may read units into them (and start
 * or feed the read-ahead thread), which is why the calls that may do so
 * take a non-const pointer. So:
 *   - Calls on one handle need exclusive access: one thread at a time, or
 *     the caller's own lock around every call (lookups, prefetch, ready,
 *     the sizes, split_missing, free). dwarf_info__failed() only reads, but
 *     reads what a concurrent lookup writes.
 *   - The one exception: a whole load (no DWARF_LOAD_LAZY) is finished
 *     when dwarf_info__load*() returns; once dwarf_info__ready() returned,
 *     its lookups and sizes only read the tables, and several threads may
 *     look up in it at once.
 *   - Different handles share nothing of prof's (no globals, no caches
 *     between them; each opens and maps its own file and has its own libelf
 *     and libdw handles): each may be used on its own thread, e.g. a live
 *     symbolizer's beside the recorder's.
 *   - The handle's own threads are internal and take their own locks:
 *     the whole load's line-program decoder (dwarf-build.c, joined before
 *     the load returns); the lazy load's .debug_info inflater
 *     (dwarf-secs.c, its progress under its mutex, joined when the load
 *     finishes); the read-ahead (dwarf-prefetch.c), which reads the
 *     sections (unchanging once the load finished) into tables of its own
 *     and hands units over under its mutex, never touching the handle's
 *     tables; dwarf_info__free() stops and joins it.
 * The strings handed out (struct src_frame) stay valid while the handle
 * lives, whatever is read into it meanwhile. */
#ifndef PROF_SYMBOLIZE_DWARF_H
#define PROF_SYMBOLIZE_DWARF_H

#include <stddef.h>
#include <stdint.h>

struct dwarf_info;

/* One level of the inline chain at an address. Strings are owned by the
 * dwarf_info and live until dwarf_info__free(). */
struct src_frame {
	const char *function;   /* raw name (linkage name when there is one, so
				   C++/Rust names are mangled); NULL: unknown */
	const char *file;       /* as addr2line prints it; NULL: unknown */
	uint32_t line;          /* 0: unknown */
	uint32_t discriminator; /* innermost frame only, else 0 */
	uint32_t flags;         /* SRC_FRAME_* */
	uint32_t func;          /* the function's index (< dwarf_info__nfuncs()),
				   UINT32_MAX when there is none */
	uint64_t func_low;      /* where its first address range starts */
};

/* `function` is a linkage name, or the name of a function of a language
 * that does not mangle (C): the name the symbol table would give. Without
 * it, `function` is a bare DW_AT_name of C++/Rust (e.g. "operator()"), and
 * addr2line prefers the ELF symbol covering the address. */
#define SRC_FRAME_LINKAGE 1u
/* The frame is an inlined copy (DW_TAG_inlined_subroutine), so a caller
 * frame follows it. */
#define SRC_FRAME_INLINED 2u
/* No function covers the address; only `file`/`line` are known. */
#define SRC_FRAME_NO_FUNCTION 4u

/* Loads the DWARF of the ELF file at `path`. NULL + errno: ENOENT/EACCES
 * (cannot open), ENOEXEC (not ELF, or DWARF libdw cannot read at all),
 * ENODATA (an ELF file without .debug_info), ENOMEM. Maps the file
 * read-only and keeps it open and mapped until dwarf_info__free() (a file
 * cut short meanwhile raises SIGBUS, as with perf or gdb; see
 * dwarf-secs.c). Blocks on I/O; runs a second thread while it loads
 * (joined before it returns); allocates tables proportional to the line
 * rows and inline entries, and keeps the inflated debug sections the
 * names point into. The environment variable
 * PROF_DWARF_LIBDW=1 makes it read the DWARF with libdw instead (slower;
 * for tests and debugging). */
struct dwarf_info *dwarf_info__load(const char *path);

/* Same, for a binary whose DWARF lives in a separate debug file (found via
 * build-id, .gnu_debuglink or handed over by the debuginfo finder): reads
 * the DWARF of `debugfile`. The addresses looked up are still `binary`'s
 * (a separate debug file keeps the binary's addresses). When both files
 * carry a build-id and they differ, fails with ESTALE. `binary` may be NULL
 * (no check). */
struct dwarf_info *dwarf_info__load_pair(const char *binary, const char *debugfile);

/* Same, from an open file descriptor; takes ownership of `fd` (closed by
 * dwarf_info__free(), or on failure). */
struct dwarf_info *dwarf_info__load_fd(int fd);

/* dwarf_info__load() (debugfile NULL) or dwarf_info__load_pair(), with
 * DWARF_LOAD_* flags. DWARF_LOAD_LAZY: read only the unit DIEs now, and a
 * unit's line program and DIEs when a lookup first lands in it (binutils'
 * addr2line's strategy): far less work when the addresses asked fall in a
 * small part of a large binary, about the same when they cover it all.
 * Lookups then allocate (and may fail to: dwarf_info__failed()), and the
 * table sizes below grow as units are read. Answers are the same, except
 * where units overlap (bad DWARF), where each unit answers from its own
 * rows and ranges, as in BFD. DWARF the lazy reader cannot follow (see
 * dwarf-die.c) is loaded whole. */
#define DWARF_LOAD_LAZY 1u
struct dwarf_info *dwarf_info__load_flags(const char *path, const char *debugfile, unsigned flags);

/* A lazy load returns once the sections are read, with .debug_info still
 * being inflated on a thread; dwarf_info__ready() (or any lookup or size
 * below) waits for it and reads the unit DIEs. 0, or -errno: the DWARF
 * turned out unreadable (-ENOEXEC, -ENOMEM), and there are no answers.
 * Blocks. */
int dwarf_info__ready(struct dwarf_info *d);

/* 0, or -ENOMEM when a lazy lookup could not read a unit (its addresses
 * then get no DWARF answer). */
int dwarf_info__failed(const struct dwarf_info *d);

void dwarf_info__free(struct dwarf_info *d);

/* Split DWARF: how many skeleton units' split units were not found (no
 * .dwo file under the name it has, relative to DW_AT_comp_dir or beside
 * the binary, no BINARY.dwp, or a dwo_id that does not match); *first:
 * the first such .dwo's path (NULL when none). Their functions keep the
 * symbol table's names, without inlines or lines from those units. */
size_t dwarf_info__split_missing(struct dwarf_info *d, const char **first);

/* Fills out[0..] with the frames at ELF virtual address `vaddr`, INNERMOST
 * FIRST (the order addr2line -i prints): out[0] is the function (inlined or
 * not) the instruction belongs to, with the line-table file:line; each next
 * frame is the function it was inlined into, with the call site's file:line.
 * The last frame is the out-of-line function. Returns the number of frames
 * written (at most `max`; a longer chain keeps its innermost `max`), 0 when
 * DWARF knows nothing of the address. O(log n + depth); never allocates
 * (in lazy mode: reads all units at the first call, into the tables). */
size_t dwarf_info__lookup(struct dwarf_info *d, uint64_t vaddr, struct src_frame *out, size_t max);

/* The same as addr2line answers it, which depends on what was asked
 * before: BFD takes an address in the padding after a function as inside
 * its unit only once an earlier lookup hit that unit. `decoded` is the
 * caller's state, dwarf_info__nunits() bytes, zeroed at first. */
size_t dwarf_info__lookup_bfd(struct dwarf_info *d, uint64_t vaddr, unsigned char *decoded,
			      struct src_frame *out, size_t max);

/* Lazy mode: lookups of these addresses (in this order) are coming. The
 * units they land in that are not read yet are read ahead on a second
 * thread while this one answers lookups (dwarf-prefetch.c); the answers
 * are the same as without. Nothing else is read. No effect in the whole
 * mode. */
void dwarf_info__prefetch(struct dwarf_info *d, const uint64_t *vaddrs, size_t n);

/* Sizes of the tables, for tests and benchmarks. */
size_t dwarf_info__nlines(struct dwarf_info *d);
size_t dwarf_info__nranges(struct dwarf_info *d);
size_t dwarf_info__nfuncs(struct dwarf_info *d);
size_t dwarf_info__nunits(struct dwarf_info *d);

#endif
