/* unwind.h: user-stack unwinding with the binaries' CFI (.eh_frame, then
 * .debug_frame), read through libdw (docs/unwind-design.md).
 *
 * The recorder hands over, per sample, the user registers and a copy of the
 * top of the user stack that the kernel took (PERF_SAMPLE_REGS_USER,
 * PERF_SAMPLE_STACK_USER), and a way to find which binary an address is in.
 * The unwinder opens each binary once, asks libdw for the CFI row of each
 * unique program counter once, and keeps it compiled (CFA = register +
 * offset, registers saved at CFA + offset, or a DWARF expression for the
 * rare rest), so a frame costs a hash lookup and a few reads of the copied
 * stack. Only x86-64 is supported.
 *
 * Nothing here trusts its input: registers and stack bytes are whatever the
 * target had, the binaries may be anything; every read is bounds-checked
 * and every failure is a status, never a crash. */
#ifndef PROF_UNWIND_H
#define PROF_UNWIND_H

#include <stddef.h>
#include <stdint.h>

/* x86-64 DWARF register numbers (the psABI's), 0..16; 16 is the return
 * address column, i.e. rip. */
enum {
	UNWIND_RAX = 0,
	UNWIND_RDX,
	UNWIND_RCX,
	UNWIND_RBX,
	UNWIND_RSI,
	UNWIND_RDI,
	UNWIND_RBP,
	UNWIND_RSP,
	UNWIND_R8,
	UNWIND_R9,
	UNWIND_R10,
	UNWIND_R11,
	UNWIND_R12,
	UNWIND_R13,
	UNWIND_R14,
	UNWIND_R15,
	UNWIND_RIP,
	UNWIND_NREGS
};

struct unwind_regs {
	uint64_t r[UNWIND_NREGS];
	uint32_t valid; /* bit n: r[n] is known */
};

/* The copy of the user stack: `size` bytes that were at [start, start + size)
 * in the target (start = the sampled rsp). `cut`: the copy stopped at the
 * size asked for (the stack may go on above it), as opposed to stopping at
 * the end of the stack mapping. */
struct unwind_stack {
	uint64_t start;
	const unsigned char *data;
	size_t size;
	int cut;
};

/* Where an address is, as the recorder knows the target's mappings. */
struct unwind_map {
	const char *path; /* as in /proc/PID/maps: "/usr/lib/...", "[vdso]" */
	uint64_t start, end, pgoff;
	uint32_t id; /* stable id of this mapping (the recording's) */
};

/* Fills *m with the mapping that covers addr in process pid: 1, else 0. */
typedef int (*unwind_find_map_fn)(void *ctx, uint32_t pid, uint64_t addr, struct unwind_map *m);

struct unwind_opts {
	unwind_find_map_fn find_map;
	void *ctx;
	const char *root_prefix; /* NULL: open binaries as /proc/PID/root/PATH
				    when that works, else PATH */
	/* A counter that changes whenever find_map's answers may change;
	 * while it does not, the row found for a (pid, pc) is remembered
	 * (samples repeat pcs: a hot loop's). NULL: no memo. */
	const uint64_t *map_generation;
	/* Called for each frame the walk finds, with the registers the frame
	 * has (its pc, rsp, and rbp when known) and the stack copy; may
	 * replace *pc, the value stored for the frame (jvm/'s interpreted
	 * Java frames are stored as the Method* in them). The walk goes on
	 * from the real pc. NULL: none. */
	void (*frame_hook)(void *ctx, uint32_t pid, const struct unwind_regs *r,
			   const struct unwind_stack *st, uint64_t *pc);
	/* For a pc in no mapping (JIT code), before trying rbp: 1 and the
	 * caller's registers in *next when the hook knows the frame (jvm/'s
	 * compiled Java frames, by their frame sizes), else 0. NULL: none. */
	int (*frame_step)(void *ctx, uint32_t pid, const struct unwind_regs *r,
			  const struct unwind_stack *st, struct unwind_regs *next);
	void *frame_ctx; /* both hooks' */
};

/* How an unwind ended. */
enum unwind_status {
	UNWIND_OK_ROOT = 0, /* reached the outermost frame (CFI: return address
			       undefined, or a zero return address) */
	UNWIND_STACK_CUT,   /* needed bytes above the copy, which was cut at its size */
	UNWIND_NO_MAPPING,  /* a pc in no known mapping (JIT code, garbage) */
	UNWIND_NO_CFI,	    /* no CFI row for a pc, and no frame pointer to follow */
	UNWIND_BAD_MEMORY,  /* a read outside the copied stack */
	UNWIND_BAD_CFI,	    /* CFI we cannot evaluate, or a register it needs is unknown */
	UNWIND_NO_PROGRESS, /* the stack pointer did not move up: a loop */
	UNWIND_MAX_FRAMES,  /* the caller's array is full */
	UNWIND_NSTATUS
};

/* Short names for stats and messages ("root", "stack-cut", ...). */
const char *unwind_status_name(enum unwind_status s);

struct unwinder;

/* NULL + errno (ENOMEM). Binaries are opened lazily. */
struct unwinder *unwinder__new(const struct unwind_opts *opts);
void unwinder__free(struct unwinder *u);

/* Unwinds one sample of process pid. pcs[0] is regs' rip, the next entries
 * are return addresses (as the kernel's call chains have them), outermost
 * last. *n is set to the number of pcs written, also on failure (the frames
 * found up to the failure). Blocks on file I/O the first time a binary or
 * pc is seen; allocates then only. */
enum unwind_status unwinder__unwind(struct unwinder *u, uint32_t pid,
				    const struct unwind_regs *regs,
				    const struct unwind_stack *stack, uint64_t *pcs, size_t max,
				    size_t *n);

/* For frame-pointer call chains without registers or stack (the call-site
 * leaf fix, record/callsite.h): is the frame of the function at pc not set
 * up, its CFA computed from rsp (a frameless function, or pc in a prologue
 * or epilogue)? 1 when so, 0 when the frame is set up or no CFI is known. */
int unwinder__frameless(struct unwinder *u, uint32_t pid, uint64_t pc);

/* For frame-pointer call chains: is the frame of the function at regs' rip
 * not set up (a frameless function, or rip in a prologue or epilogue), so
 * that a walk from rbp skips its caller? Returns 1 and the function's return
 * address in *ra when so, 0 when the frame is set up or nothing is known
 * (no CFI, a read outside the copy). Needs rip, rsp and rbp. */
int unwinder__leaf_return(struct unwinder *u, uint32_t pid, const struct unwind_regs *regs,
			  const struct unwind_stack *stack, uint64_t *ra);

struct unwinder_stats {
	size_t binaries, binaries_missing; /* opened, could not open / no CFI */
	size_t rows;			   /* CFI rows compiled (unique pcs) */
	size_t fp_steps;		   /* frames found through rbp, without CFI */
};
void unwinder__stats(const struct unwinder *u, struct unwinder_stats *st);

#endif
