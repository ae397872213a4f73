/* fp-detect.c: does a binary keep frame pointers (fp-detect.h)? Each
 * function that .eh_frame_hdr's search table lists (stripped binaries such
 * as the programs in Debian's /usr/bin keep it, and their .eh_frame) is
 * looked at in the middle of its body, through its CFI (libdw): a CFA of
 * rbp + N there is a frame pointer (push %rbp; mov %rsp,%rbp, wherever
 * gcc's scheduling and shrink-wrapping put them); rsp + N with N > 8 is a
 * frame without one; rsp + 8 is a leaf that sets up nothing, which both
 * builds make and so tells nothing. The share is of code bytes (a function
 * spans to the next one in the sorted table), so that crt's few small
 * functions do not outweigh a small program's own. When the table lists
 * more than FP_DETECT_MAX_FUNCS functions, that many are taken evenly
 * spread. Every offset read from the file is checked. */
#include "symbolize/fp-detect.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/elf-file.h"

#define DW_EH_PE_udata4 0x03
#define DW_EH_PE_sdata4 0x0b
#define DW_EH_PE_pcrel 0x10
#define DW_EH_PE_datarel 0x30

struct fp_elf {
	Elf *elf;
	Dwarf_CFI *cfi; /* .eh_frame's, for fp_detect_fd */
	int fd;
	size_t nphdr;
};

/* The file offset of n bytes at vaddr, from the PT_LOAD holding them. */
static int vaddr_offset(const struct fp_elf *f, uint64_t vaddr, size_t n, uint64_t *off)
{
	GElf_Phdr ph;
	size_t i;

	for (i = 0; i < f->nphdr; i++) {
		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr <= ph.p_filesz &&
		    ph.p_filesz - (vaddr - ph.p_vaddr) >= n) {
			*off = ph.p_offset + (vaddr - ph.p_vaddr);
			return 0;
		}
	}
	return -ENOENT;
}

static int read_at(const struct fp_elf *f, uint64_t vaddr, void *buf, size_t n)
{
	uint64_t off;

	if (vaddr_offset(f, vaddr, n, &off) || off > (uint64_t)LLONG_MAX)
		return -ENOENT;
	return pread(f->fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -EIO;
}

#define DWARF_RBP 6
#define DWARF_RSP 7

/* The CFA rule at vaddr: 1 when it is rbp + N (the function keeps a frame
 * pointer there), -1 when it is rsp + N with N > 8 (it set up a frame
 * without one), 0 otherwise (rsp + 8: nothing set up, or no rule). */
static int cfa_kind(Dwarf_CFI *cfi, uint64_t vaddr)
{
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops;
	size_t n;
	int kind = 0;

	if (dwarf_cfi_addrframe(cfi, vaddr, &fr))
		return 0;
	if (!dwarf_frame_cfa(fr, &ops, &n) && n == 1 && ops[0].atom == DW_OP_bregx) {
		if (ops[0].number == DWARF_RBP)
			kind = 1;
		else if (ops[0].number == DWARF_RSP && ops[0].number2 > 8)
			kind = -1;
	}
	free(fr);
	return kind;
}

/* A function [start, start + size) in the middle of its body, where a
 * frame pointer is set up if it has one (past the prologue, shrink-wrapped
 * or not, and before the epilogue): 1 with a frame pointer, -1 with
 * another frame, 0 for a leaf that sets up nothing (both builds make
 * those: they tell nothing). */
static int function_kind(Dwarf_CFI *cfi, uint64_t start, uint64_t size)
{
	int a = cfa_kind(cfi, start + size / 3), b = cfa_kind(cfi, start + size / 2);

	if (a > 0 || b > 0)
		return 1;
	return a < 0 || b < 0 ? -1 : 0;
}

static int table_loc(const struct fp_elf *f, uint64_t table, uint32_t i, int32_t *loc)
{
	unsigned char e[8];

	if (read_at(f, table + (uint64_t)i * 8, e, sizeof(e)))
		return -EIO;
	memcpy(loc, e, 4);
	return 0;
}

static int count_frames(const struct fp_elf *f, const GElf_Phdr *hdr, struct fp_share *s)
{
	unsigned char h[12];
	uint32_t count, step, i;
	int32_t loc, next;
	uint64_t table = hdr->p_vaddr + 12, size;
	int kind;

	if (hdr->p_filesz < sizeof(h) || read_at(f, hdr->p_vaddr, h, sizeof(h)))
		return -ENOENT;
	/* version 1; eh_frame_ptr any 4-byte form; count udata4; table
	 * datarel sdata4 (what ld and lld write). */
	if (h[0] != 1 || (h[1] & 0x0f) != DW_EH_PE_sdata4 || h[2] != DW_EH_PE_udata4 ||
	    h[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return -ENOTSUP;
	memcpy(&count, h + 8, 4);
	if (count > (hdr->p_filesz - sizeof(h)) / 8)
		return -ENOEXEC;
	step = count > FP_DETECT_MAX_FUNCS ? count / FP_DETECT_MAX_FUNCS : 1;
	for (i = 0; i + 1 < count && s->funcs < FP_DETECT_MAX_FUNCS; i += step) {
		/* The table is sorted: a function's size is about the distance
		 * to the next one (the padding between them included). */
		if (table_loc(f, table, i, &loc) || table_loc(f, table, i + 1, &next))
			return -EIO;
		if (next <= loc)
			continue;
		size = (uint64_t)((int64_t)next - loc);
		kind = function_kind(f->cfi, hdr->p_vaddr + (uint64_t)(int64_t)loc, size);
		if (!kind)
			continue;
		s->funcs++;
		s->bytes += size;
		if (kind > 0) {
			s->with_fp++;
			s->fp_bytes += size;
		}
	}
	return 0;
}

static int fp_open(struct fp_elf *f, int fd)
{
	GElf_Ehdr eh;

	elf_version(EV_CURRENT);
	f->fd = fd;
	f->elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!f->elf)
		return elf_last_error();
	if (elf_kind(f->elf) != ELF_K_ELF || !gelf_getehdr(f->elf, &eh) ||
	    eh.e_machine != EM_X86_64 || elf_getphdrnum(f->elf, &f->nphdr)) {
		elf_end(f->elf);
		return -ENOEXEC;
	}
	return 0;
}

int fp_detect_fd(int fd, struct fp_share *s)
{
	struct fp_elf f;
	GElf_Phdr ph;
	size_t i;
	int err;

	memset(s, 0, sizeof(*s));
	err = elf_fd_regular(fd, NULL);
	if (err)
		return err;
	err = fp_open(&f, fd);
	if (err)
		return err;
	err = -ENOENT;
	f.cfi = dwarf_getcfi_elf(f.elf);
	for (i = 0; f.cfi && i < f.nphdr; i++)
		if (gelf_getphdr(f.elf, (int)i, &ph) && ph.p_type == PT_GNU_EH_FRAME) {
			err = count_frames(&f, &ph, s);
			break;
		}
	if (f.cfi)
		dwarf_cfi_end(f.cfi);
	elf_end(f.elf);
	if (!err && !s->funcs)
		err = -ENOENT;
	return err;
}

int fp_share_has_fp(const struct fp_share *s)
{
	return s->bytes && s->fp_bytes * 100 >= s->bytes * FP_DETECT_MIN_PERCENT;
}

/* Each directory of a run path (':'-separated) that starts with $ORIGIN or
 * ${ORIGIN}, with `origin` put in its place, tried for `lib`. */
static void find_in_runpath(const char *runpath, const char *origin, const char *lib,
			    void (*fn)(void *ctx, const char *path), void *ctx)
{
	char path[4096];
	const char *p = runpath;

	while (*p) {
		size_t len = strcspn(p, ":"), skip = 0;

		if (!strncmp(p, "$ORIGIN", 7))
			skip = 7;
		else if (!strncmp(p, "${ORIGIN}", 9))
			skip = 9;
		if (skip && skip <= len &&
		    snprintf(path, sizeof(path), "%s%.*s/%s", origin, (int)(len - skip), p + skip,
			     lib) < (int)sizeof(path) &&
		    !access(path, R_OK)) {
			fn(ctx, path);
			return;
		}
		p += len;
		if (*p == ':')
			p++;
	}
}

int fp_detect_own_libs(int fd, const char *origin, void (*fn)(void *ctx, const char *path),
		       void *ctx)
{
	Elf_Scn *scn = NULL;
	const char *runpath = NULL;
	struct fp_elf f;
	GElf_Shdr sh;
	GElf_Dyn d;
	Elf_Data *data = NULL;
	size_t n = 0, i;
	int err = fp_open(&f, fd);

	if (err)
		return err;
	while ((scn = elf_nextscn(f.elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNAMIC) {
			data = elf_getdata(scn, NULL);
			n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
			break;
		}
	/* The run path first, then each needed library in it. */
	for (i = 0; data && i < n && gelf_getdyn(data, (int)i, &d); i++)
		if (d.d_tag == DT_RUNPATH || (d.d_tag == DT_RPATH && !runpath))
			runpath = elf_strptr(f.elf, sh.sh_link, d.d_un.d_val);
	for (i = 0; runpath && data && i < n && gelf_getdyn(data, (int)i, &d); i++) {
		const char *lib;

		if (d.d_tag != DT_NEEDED)
			continue;
		lib = elf_strptr(f.elf, sh.sh_link, d.d_un.d_val);
		if (lib && !strchr(lib, '/'))
			find_in_runpath(runpath, origin, lib, fn, ctx);
	}
	elf_end(f.elf);
	return 0;
}
