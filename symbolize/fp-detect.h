/* fp-detect.h: does an ELF binary keep frame pointers? Judged from its
 * CFI, for `prof record --call-graph auto` (record/call-graph-auto.c):
 * the functions that .eh_frame_hdr lists (stripped binaries keep it) are
 * looked at for a CFA kept in rbp (fp-detect.c). Also the libraries a binary
 * links from its own directory tree (DT_RUNPATH/DT_RPATH with $ORIGIN). */
#ifndef PROF_SYMBOLIZE_FP_DETECT_H
#define PROF_SYMBOLIZE_FP_DETECT_H

#include <stdint.h>

/* At most this many functions are looked at, spread over the table. */
#define FP_DETECT_MAX_FUNCS 4096
/* A binary has frame pointers when at least this share (percent) of the
 * code of its functions that set up a frame set up a frame pointer: crt
 * code and hand-written assembly have none even in frame-pointer builds;
 * code built without them sets one up only for alloca and VLAs (0-10%).
 * Functions that set up nothing (leaves) are not counted. */
#define FP_DETECT_MIN_PERCENT 50

struct fp_share {
	uint32_t funcs;   /* functions looked at that set up a frame */
	uint32_t with_fp; /* of them, with the CFA in rbp: a frame pointer */
	uint64_t bytes, fp_bytes; /* their code, and that of the with_fp ones */
};

/* Looks at the x86-64 ELF file open on fd (not closed). 0, -ENOEXEC (not
 * an x86-64 ELF file), -ENOENT (no .eh_frame_hdr: nothing to judge by),
 * -ENOTSUP (a table encoding not handled) or -errno. Runs the CFI of at
 * most 2 * FP_DETECT_MAX_FUNCS addresses; blocks on file reads; what it
 * allocates (libelf's, libdw's) is freed before it returns. */
int fp_detect_fd(int fd, struct fp_share *s);

/* 1 when s says frame pointers (FP_DETECT_MIN_PERCENT), 0 otherwise. */
int fp_share_has_fp(const struct fp_share *s);

/* Calls fn with the path of each DT_NEEDED library of the ELF file on fd
 * that is found in one of its DT_RUNPATH/DT_RPATH directories starting
 * with $ORIGIN (origin: the directory of the file), i.e. the libraries
 * shipped in the binary's own tree; system libraries are not looked for.
 * Paths are only valid during the call. 0 or -errno. */
int fp_detect_own_libs(int fd, const char *origin, void (*fn)(void *ctx, const char *path),
		       void *ctx);

#endif
