/* function.h: one function of one ELF binary, for `prof annotate`: its
 * symbol and bytes (libelf), its instructions (capstone) and its source
 * lines (the DWARF tables of dwarf.h). Part of the symbolize/ module, which
 * owns those libraries; a header of its own (not symbolize.h) so that this
 * part and the whole-binary tables in symbolize.h can change independently.
 *
 * The symbol and the code are found with the simple per-function library
 * calls (a linear symbol scan): fine for one function, far too slow for
 * every address of a recording, which is what symbolize.h's sorted tables
 * are for. Source lines are not read a second way: they come from the
 * tables `prof report --lines` uses, so both say the same file:line.
 *
 * Conventions: 0 or -errno; the files are untrusted (sizes and offsets
 * checked, a file libelf or libdw cannot read is -ENOEXEC); everything
 * blocks on file I/O and allocates. */
#ifndef PROF_SYMBOLIZE_FUNCTION_H
#define PROF_SYMBOLIZE_FUNCTION_H

#include <stddef.h>
#include <stdint.h>

#define ELF_FUNCTION_ANY UINT64_MAX /* elf_function__load(): no address hint */
#define ELF_FUNCTION_MAX_SIZE (16u << 20) /* bytes read at most */

/* A function's code, as found in a binary. */
struct elf_function {
	char *name;         /* the symbol's name (malloc'ed) */
	uint64_t vaddr;     /* ELF virtual address of its first byte */
	uint64_t size;      /* bytes (the symbol's size, or up to the next
			       symbol when it has none), at most MAX_SIZE */
	uint64_t file_off;  /* file offset of its first byte */
	unsigned char *code; /* its `size` bytes (malloc'ed) */
	int from_dynsym;    /* found in .dynsym only (a stripped binary) */
	int truncated;      /* size was capped at ELF_FUNCTION_MAX_SIZE */
	char build_id[129]; /* the binary's, lowercase hex; "" if none */
};

/* Finds the function symbol named `name` (exact bytes) in the binary at
 * `path` and reads its code. With `file_off` != ELF_FUNCTION_ANY, the
 * symbol must cover that file offset (a sampled address: address - mapping
 * start + pgoff), which picks the right one of several local functions of
 * the same name. Looks in .symtab, then .dynsym; when the binary has no
 * such symbol and `debug_path` is given (a separate debug file of the same
 * build), in that file's symbol tables, then in the binary's MiniDebugInfo
 * (.gnu_debugdata), reading the bytes from `path` either way.
 * Only x86-64 ELF files (else -ENOTSUP). -ENOENT/-EACCES for the file,
 * -ESRCH when no such symbol covers the offset. Release with
 * elf_function__release() (also after an error; a zeroed one is fine). */
int elf_function__load(struct elf_function *fn, const char *path, const char *debug_path,
		       const char *name, uint64_t file_off);
void elf_function__release(struct elf_function *fn);

/* The build-id of an ELF file (lowercase hex into buf, "" when it has
 * none). 0 or -errno. */
int elf_file_build_id(const char *path, char *buf, size_t len);

/* ---- disassembly (capstone, x86-64) ---- */

enum disasm_syntax {
	DISASM_ATT = 0, /* as objdump -d and perf annotate print by default */
	DISASM_INTEL,   /* as objdump -d -M intel */
};

#define DISASM_MNEMONIC_MAX 32
#define DISASM_OPERANDS_MAX 160

struct disasm_insn {
	uint64_t addr;  /* ELF virtual address */
	uint32_t size;  /* bytes; for undecodable bytes 1 */
	int valid;      /* 0: bytes capstone cannot decode, shown as "(bad)" */
	int branch;     /* a jump or call with a known target (below) */
	uint64_t target;
	char mnemonic[DISASM_MNEMONIC_MAX];   /* with prefixes: "lock cmpxchg" */
	char operands[DISASM_OPERANDS_MAX];   /* "0x4000(%rdi),%rsi" */
};

/* Disassembles `size` bytes at `code`, the first at virtual address
 * `vaddr`, into a malloc'ed array (*out, *n; the caller frees it). AT&T
 * mnemonics follow objdump's rule for the size suffix (shown only when no
 * register operand implies the size; never on call, ret, jmp, push, pop);
 * operands are separated by "," as objdump does. Bytes capstone cannot
 * decode become one-byte "(bad)" entries, and decoding goes on after them.
 * 0, -ENOMEM, or -ENOTSUP (capstone failed to start). */
int disasm_function(const unsigned char *code, size_t size, uint64_t vaddr,
		    enum disasm_syntax syntax, struct disasm_insn **out, size_t *n);

/* The objdump-style mnemonic of a capstone AT&T mnemonic (exposed for the
 * unit tests): `mnemonic` as capstone prints it, `base` capstone's name of
 * the instruction (cs_insn_name(): Intel-style, no suffix), `has_reg` when
 * an operand is a register. Writes into out (len bytes). */
void disasm_att_mnemonic(const char *mnemonic, const char *base, int has_reg, char *out,
			 size_t len);

/* ---- source lines (dwarf.h's tables) ---- */

struct func_lines;

/* The source lines of a function of the binary at `path`, from the same
 * tables `prof report --lines` and `prof symbolize -e` answer from: the
 * binary's own DWARF, else that of `debug_path` (its separate debug file,
 * as elf_symtab__debug_file() names it; NULL or "" for none). `lo` is the
 * function's first address (ELF virtual): without a line there, NULL +
 * ENODATA. NULL + errno: ENODATA when there is no DWARF, ESTALE for a
 * debug file of another build, ENOMEM, or the file's error. Maps the
 * DWARF and reads its unit headers (DWARF_LOAD_LAZY, as `prof symbolize
 * -e`); a unit's lines are read at its first lookup. Blocks on I/O. */
struct func_lines *func_lines__load(const char *path, const char *debug_path, uint64_t lo);
void func_lines__free(struct func_lines *fl);
/* The source position of the instruction at `addr`: 1 and *file (owned
 * by fl), *line; 0 when no row covers it. The innermost frame of the DWARF
 * tables: for inlined code, the inlined function's line. Not const: it
 * reads units into fl's tables as lookups land in them (allocates). */
int func_lines__lookup(struct func_lines *fl, uint64_t addr, const char **file, int *line);
/* The file that held the line table (the binary or its debug file). */
const char *func_lines__source(const struct func_lines *fl);

#endif
