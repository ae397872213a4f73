/* debuginfo.h: finding a binary's separate debug information, the way gdb,
 * perf and elfutils do (symbolize/ internal; docs/symbolize-notes.md).
 *
 * Distributions strip their binaries and ship the symbols and DWARF in a
 * separate file: /usr/lib/debug/.build-id/xx/yyyy.debug (named by the
 * binary's build-id), or a file named by the binary's .gnu_debuglink section
 * (name + CRC-32 of the debug file). Fedora also leaves a small xz-compressed
 * ELF with the local function symbols in the binary itself (.gnu_debugdata,
 * "MiniDebugInfo", see minidebuginfo.c).
 *
 * Lookup order for a binary opened as BIN (maybe /proc/PID/root/PATH, a
 * container's file, in which case ROOT = /proc/PID/root and PATH is the path
 * inside it) and each global debug directory D:
 *   1. build-id:  ROOT/D/.build-id/xx/rest.debug, then D/.build-id/...
 *   2. debuglink: dirname(BIN)/NAME, dirname(BIN)/.debug/NAME,
 *                 ROOT/D/dirname(PATH)/NAME, then D/dirname(PATH)/NAME.
 * A candidate is used only when it is a readable ELF file whose build-id
 * equals the binary's (a binary without one needs a debug file without
 * one), and, for debuglink candidates, whose CRC-32 matches the link's.
 *
 * The debug directories: the `dirs` argument (':'-separated), else the
 * environment variable PROF_DEBUGINFO_DIRS, else /usr/lib/debug. */
#ifndef PROF_DEBUGINFO_H
#define PROF_DEBUGINFO_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "symbolize/elf-file.h"

#define DEBUGINFO_ENV "PROF_DEBUGINFO_DIRS"
#define DEBUGINFO_DEFAULT_DIRS "/usr/lib/debug"
#define DEBUGINFO_BUILD_ID_HEX ELF_BUILD_ID_HEX /* bytes for a hex build-id and its NUL */

struct debuglink {
	char name[256]; /* a plain file name: no '/', not "." or ".." */
	uint32_t crc;
};

/* Reads .gnu_debuglink. Returns 1 (and fills *link), or 0 when the file has
 * none or it is malformed (not terminated, no room for the CRC, a name
 * with a '/' in it). Never allocates beyond libelf's section read. */
int debuginfo_read_debuglink(Elf *elf, struct debuglink *link);

struct debuginfo_query {
	const char *binary;            /* the path as opened */
	const char *root;              /* NULL, or the root `binary` lies under */
	const char *dirs;              /* NULL: $PROF_DEBUGINFO_DIRS or /usr/lib/debug */
	const char *build_id;          /* the binary's, hex; "" or NULL: none */
	const struct debuglink *link;  /* NULL: the binary has no .gnu_debuglink */
};

/* Finds the debug file for q. Returns 0 with its path in out, -ENOENT when
 * there is none, -ENOMEM. Blocks on stat/open/read of the candidates (at
 * most a few per directory) and reads a whole candidate once to check a
 * debuglink CRC. */
int debuginfo_locate(const struct debuginfo_query *q, char *out, size_t outlen);

/* Same, reading the build-id and .gnu_debuglink from `binary` itself.
 * 0, -ENOENT, -ENOMEM, or -errno when the binary cannot be opened. */
int debuginfo_find(const char *binary, const char *root, char *out, size_t outlen);

/* The CRC-32 .gnu_debuglink uses (zlib's) of a whole file. 0 or -errno. */
int debuginfo_file_crc(const char *path, uint32_t *crc);

/* ---- MiniDebugInfo (minidebuginfo.c) ---- */

/* At most this many bytes of decompressed .gnu_debugdata: Fedora's are tens
 * or hundreds of KiB; a hostile xz stream can claim gigabytes. */
#define MINIDEBUGINFO_MAX_OUT (64u << 20)

/* Decompresses an xz stream of `len` bytes into a malloc'ed buffer (*out,
 * *outlen; the caller frees it). Stops with -EFBIG past max_out bytes,
 * -EBADMSG for a stream liblzma rejects (corrupt, truncated, trailing
 * garbage), -ENOMEM. Memory: the output plus liblzma's decoder state,
 * which is capped too. */
int minidebuginfo_decompress(const void *xz, size_t len, size_t max_out, void **out,
			     size_t *outlen);

/* The MiniDebugInfo of the binary `bin`, ready to read: its .gnu_debugdata
 * decompressed (at most MINIDEBUGINFO_MAX_OUT bytes) and opened with
 * elf_memory(). Returns 1 with *elf, *image and *len (the caller ends *elf,
 * then frees *image); 0, with both NULL, when the binary has none or it is
 * unusable (corrupt, too large); -ENOMEM. The one way elf-symtab.c (the
 * symbol tables) and elf-function.c (annotate) read it. */
int minidebuginfo_open(Elf *bin, Elf **elf, void **image, size_t *len);

#endif
