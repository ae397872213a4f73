/* usdt.h: USDT probes (SystemTap's <sys/sdt.h>, DTrace-compatible) read
 * from a binary's `.note.stapsdt` notes, their x86-64 argument specs parsed,
 * and symbols looked up by name for plain uprobes. libelf stays in
 * symbolize/; record/ turns these into uprobe events, `prof probes` lists
 * them.
 *
 * A note holds the probe's address, the link-time address of
 * `.stapsdt.base` and the semaphore's address (0: none), then "provider\0
 * name\0args\0". A prelinked or otherwise moved binary has its
 * `.stapsdt.base` elsewhere than the note says: addresses move by the
 * difference. The kernel's uprobes want file offsets, found through the
 * PT_LOAD program headers.
 *
 * Argument specs are GNU assembler operands with a size prefix: "-4@%eax"
 * (a signed 4-byte value in a register), "8@-16(%rbp)" (memory at rbp-16),
 * "4@$123" (a constant). Registers are numbered as perf's x86
 * PERF_SAMPLE_REGS_USER numbers them (USDT_REG_*), so that the recorder can
 * pick them out of a sample. */
#ifndef PROF_USDT_H
#define PROF_USDT_H

#include <stddef.h>
#include <stdint.h>

/* perf's x86 register numbers (arch/x86/include/uapi/asm/perf_regs.h). */
enum usdt_reg {
	USDT_REG_AX = 0, USDT_REG_BX, USDT_REG_CX, USDT_REG_DX, USDT_REG_SI, USDT_REG_DI,
	USDT_REG_BP, USDT_REG_SP, USDT_REG_IP, USDT_REG_FLAGS,
	USDT_REG_R8 = 16, USDT_REG_R9, USDT_REG_R10, USDT_REG_R11, USDT_REG_R12, USDT_REG_R13,
	USDT_REG_R14, USDT_REG_R15,
	USDT_NREGS = 24,
	USDT_REG_NONE = 255,
};

enum usdt_arg_kind {
	USDT_ARG_CONST = 1, /* $value */
	USDT_ARG_REG,       /* %reg (or a part of it: %eax, %al, %ah) */
	USDT_ARG_MEM,       /* disp(%base[,%index[,scale]]) */
};

#define USDT_MAX_ARGS 12 /* <sys/sdt.h> allows 12 */

struct usdt_arg {
	uint8_t kind;      /* enum usdt_arg_kind */
	uint8_t size;      /* bytes: 1, 2, 4 or 8 */
	uint8_t is_signed;
	uint8_t reg;       /* REG: the register; MEM: the base (USDT_REG_*) */
	uint8_t shift;     /* REG: 8 for %ah, %bh, %ch, %dh, else 0 */
	uint8_t index;     /* MEM: index register or USDT_REG_NONE */
	uint8_t scale;     /* MEM: 1, 2, 4, 8 */
	int64_t value;     /* CONST: the constant; MEM: the displacement */
};

/* Parses a whole spec ("-8@%rax 8@%rdx -4@%ecx"): up to USDT_MAX_ARGS
 * arguments into args, *n of them. 0, or -EINVAL with the reason (naming
 * the argument) in err: an unknown register, a symbol-relative operand
 * ("8@counter(%rip)"), a bad size. Never allocates. */
int usdt_parse_args(const char *spec, struct usdt_arg *args, int *n, char *err, size_t errlen);

/* Writes arg back as text, normalized ("-4@%eax", "8@-16(%rbp)"). */
void usdt_arg_format(const struct usdt_arg *a, char *buf, size_t len);

/* Name of register r as the spec names its full width ("rax"), or "?". */
const char *usdt_reg_name(unsigned r);

struct usdt_probe {
	char *provider, *name, *args; /* args: the spec text as written */
	uint64_t pc;        /* address, adjusted for .stapsdt.base */
	uint64_t semaphore; /* address of the u16 semaphore, 0: none */
	uint64_t pc_offset; /* file offset of pc (for the uprobe) */
	uint64_t sem_offset; /* file offset of the semaphore, 0: none */
	int nargs;          /* -1: the spec could not be parsed (see arg_error) */
	struct usdt_arg arg[USDT_MAX_ARGS];
	char arg_error[96];
};

struct usdt_list {
	struct usdt_probe *probes;
	size_t n, cap;
	char *strings; /* provider/name/args of every probe (owned) */
};

/* Reads the USDT probes of the ELF file at `path`. A binary without
 * `.note.stapsdt` gives an empty list. 0, or -errno (-ENOENT, -EACCES,
 * -ENOEXEC: not an ELF file, -EBADMSG: a note that does not fit its section;
 * notes that merely do not parse are skipped). Blocks on I/O, allocates. */
int usdt_read_file(const char *path, struct usdt_list *list);
/* Frees what the list holds; a zeroed list is fine. */
void usdt_list__release(struct usdt_list *list);

/* One stapsdt note's descriptor (`desc`, `len` bytes; addresses of
 * `addr_size` bytes: 4 or 8), untrusted: 0 with *p filled (strings point
 * into desc, NOT copied) or -EBADMSG. Exposed for the fuzzer. */
int usdt_parse_note_desc(const unsigned char *desc, size_t len, int addr_size,
			 struct usdt_probe *p);

/* For uprobe:PATH:SYMBOL[+OFF]: the file offset of function `symbol`
 * (.symtab, else .dynsym) plus `off`, and its size (0: unknown). 0, -ENOENT
 * (no such symbol: `*found_any` says whether the file had symbols at all),
 * -ERANGE (off beyond the function's size), or -errno from opening. */
int elf_symbol_file_offset(const char *path, const char *symbol, uint64_t off,
			   uint64_t *file_offset, uint64_t *size, int *found_any);

#endif
