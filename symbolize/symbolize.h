/* symbolize.h: turning addresses into function names (the symbolize/ module's
 * public interface). libelf lives only in this module.
 *
 * The recorder calls symbolize_recording() once, after the target was let go:
 * each mapped binary is opened once, its symbol tables loaded into a sorted
 * array, and every unique frame is looked up by binary search. */
#ifndef PROF_SYMBOLIZE_H
#define PROF_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/rec-writer.h"
#include "lib/recording.h"

/* ---- one ELF binary's function symbols ---- */
struct elf_symtab;

/* Loads function symbols (STT_FUNC / STT_GNU_IFUNC, and sized STT_NOTYPE in
 * text) from .symtab and .dynsym, the PT_LOAD segments and the build-id.
 * NULL + errno on failure (ENOENT, EACCES, ENOEXEC for a non-ELF file). */
struct elf_symtab *elf_symtab__load(const char *path);
void elf_symtab__free(struct elf_symtab *t);

/* Where a binary's missing symbols and DWARF are looked for (debuginfo.h,
 * docs/symbolize-notes.md). The zero value: on the host, in
 * $PROF_DEBUGINFO_DIRS or /usr/lib/debug. */
struct elf_symtab_opts {
	const char *root;       /* `path` lies under this root (a container's
				   /proc/PID/root): look for debug files
				   there first, then on the host */
	const char *debug_dirs; /* ':'-separated global debug directories;
				   NULL: $PROF_DEBUGINFO_DIRS, else /usr/lib/debug */
	int no_debuginfo;       /* read `path` alone: no separate debug file,
				   no MiniDebugInfo */
};

/* elf_symtab__load() is elf_symtab__load_opts(path, NULL). A binary without
 * .symtab takes its symbols from its separate debug file (found through its
 * build-id or .gnu_debuglink; used only when the build-ids match), else from
 * its MiniDebugInfo (.gnu_debugdata), merged with .dynsym; segments and
 * build-id always come from `path`. An unusable debug file or MiniDebugInfo
 * is skipped, never an error. Blocks on I/O; may read a whole debug file
 * once (debuglink CRC). */
struct elf_symtab *elf_symtab__load_opts(const char *path, const struct elf_symtab_opts *opts);
/* The symbols of an ELF image of `size` bytes in memory (the vdso): its own
 * tables only. `image` is only read, and not kept. NULL with errno set. */
struct elf_symtab *elf_symtab__load_image(const void *image, size_t size);
/* The separate debug file found for a binary without .symtab or without
 * DWARF (the DWARF reader opens it), or "" when there is none. Owned by t. */
const char *elf_symtab__debug_file(const struct elf_symtab *t);
/* Which table the symbols mostly came from: "symtab", "debuginfo",
 * "minidebuginfo", "dynsym", or "none". */
const char *elf_symtab__source(const struct elf_symtab *t);

/* Looks up a file offset (address - mapping start + mapping pgoff). Returns 1
 * and sets *name (owned by t) and *sym_off when a symbol covers it, else 0. */
int elf_symtab__lookup_offset(const struct elf_symtab *t, uint64_t file_offset,
			      const char **name, uint64_t *sym_off);
/* Same, by ELF virtual address. */
int elf_symtab__lookup_vaddr(const struct elf_symtab *t, uint64_t vaddr, const char **name,
			     uint64_t *sym_off);
/* File offset -> ELF virtual address through the PT_LOAD segments: 1 and
 * *vaddr, or 0 when no segment maps the offset. */
int elf_symtab__offset_to_vaddr(const struct elf_symtab *t, uint64_t file_offset,
				uint64_t *vaddr);
/* Lowercase hex build-id, or "" when the binary has none. Owned by t. */
const char *elf_symtab__build_id(const struct elf_symtab *t);
size_t elf_symtab__count(const struct elf_symtab *t);

/* ---- the kernel's symbols ---- */
struct kallsyms;
struct jit_timeline;

/* Loads `path` (normally /proc/kallsyms). NULL + errno. When every address is
 * 0 (kernel.kptr_restrict), the table is empty and kallsyms__hidden() is 1. */
struct kallsyms *kallsyms__load(const char *path);
void kallsyms__free(struct kallsyms *k);
int kallsyms__hidden(const struct kallsyms *k);
/* Returns 1 and sets *name ("func" or "func [module]"), *sym_off; else 0. */
int kallsyms__lookup(const struct kallsyms *k, uint64_t addr, const char **name,
		     uint64_t *sym_off);
/* The other way: the address of the text symbol spelt as the len bytes at
 * name ("func" or "func [module]"), aliases included; the first in the
 * file's order when several share it. 1, or 0 when there is none. */
int kallsyms__find(struct kallsyms *k, const char *name, size_t len, uint64_t *addr);

/* ---- a whole recording ---- */
struct symbolize_opts {
	const char *kallsyms_path; /* NULL: /proc/kallsyms */
	const char *root_prefix;   /* NULL: open binaries as /proc/PID/root/PATH when
				      that works, else PATH */
	const char *debug_dirs;    /* NULL: $PROF_DEBUGINFO_DIRS or /usr/lib/debug */
	/* Called now and then with the frames done so far (may be NULL). */
	void (*progress)(void *arg, size_t done, size_t total);
	void *progress_arg;
	/* Names of user frames outside any file that the recorder knows
	 * itself (jvm/'s interpreted Java frames, stored as their Method*):
	 * 1 and *name (owned by the callee), else 0. NULL: none. */
	int (*frame_name)(void *arg, uint32_t pid, uint64_t addr, const char **name);
	/* The methods inlined at a named JIT frame's pc (jvm/'s compiled Java
	 * frames, decoded while recording): n > 1 names innermost first, the
	 * frame's own method last, owned by the callee; 0: none. caller: pc
	 * is a return address. Written as the frame's inline records. NULL:
	 * none. Both take frame_name_arg. */
	size_t (*frame_inlines)(void *arg, uint32_t pid, uint64_t pc, int caller,
				const char **names, size_t max);
	void *frame_name_arg;
	/* JIT maps read during the recording (jit-timeline.h): frames with a
	 * JIT epoch are named from them first. NULL: the map at the end only. */
	struct jit_timeline *jit_timeline;
};

struct symbolize_stats {
	size_t frames, resolved, unresolved;
	size_t with_lines;   /* frames given a source line from DWARF */
	size_t with_inlines; /* frames inside inlined code (2+ inline records) */
	size_t binaries, binaries_missing;
	int kernel_hidden; /* kernel frames present but kallsyms hid addresses */
	size_t debuginfo;  /* binaries named through a debug file or MiniDebugInfo */
	size_t jit_resolved, perf_maps, perf_maps_ignored; /* /tmp/perf-PID.map */
	size_t jit_by_epoch; /* of jit_resolved: named from a map read during recording */
	char notice[320];  /* the first perf map ignored and why, or "" */
};

/* Resolves every frame the writer holds and appends SYMBOLS records for
 * those that resolve (unresolved frames keep binary + offset in the file's
 * mappings), with demangled names; and, for frames whose binary has DWARF
 * (in itself or in a separate debug file), INLINES records: the chain of
 * inlined functions at the address and their source lines. User frames
 * outside any file mapping (anonymous executable memory, JIT code) are
 * looked up in the process's /tmp/perf-PID.map and flagged REC_SYMBOL_JIT.
 * Also fills build-ids of mappings it opened (as META entries
 * "build-id:<path>" = hex). Blocks on file I/O; allocates per binary.
 * 0 or -errno (only for allocation/write failures: a missing binary is not
 * an error, it is counted). */
int symbolize_recording(struct rec_writer *w, const struct symbolize_opts *opts,
			struct symbolize_stats *stats);

/* For `prof record --no-symbolize`: only the build-id META entries, so that
 * a later `prof symbolize -i` can tell whether a binary changed since.
 * 0 or -errno (allocation/write failures). */
int symbolize_build_ids(struct rec_writer *w, const struct symbolize_opts *opts);

/* `prof symbolize -i RECORDING [-o OUT]` (resymbolize.c): argv[0] is
 * "symbolize"; `replay` processes the kernel records a killed recorder
 * left (lib/recording.h). Returns the exit status. */
int symbolize_recording_main(int argc, char **argv, recording_replay_fn replay);

#endif
