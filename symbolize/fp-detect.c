/* fp-detect.c: does a binary keep frame pointers (fp-detect.h)? Each
 * function that .eh_frame_hdr's search table lists is looked at for
 * how it starts: with gcc's and clang's frame-pointer prologue, push %rbp;
 * mov %rsp,%rbp (after an endbr64 when built with CET), with another frame
 * set-up, or with none (leaves, which both builds make: they tell nothing).
 * The share is of code bytes, so that the few tiny crt functions (_init,
 * _fini) do not outweigh a small program's own. The table is there in stripped
 * binaries (the programs in Debian's /usr/bin), which have no symbol table; when it
 * lists more than FP_DETECT_MAX_FUNCS functions, that many are taken
 * evenly spread. Every offset read from the file is checked. */
#include "symbolize/fp-detect.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/elf-file.h"

#define DW_EH_PE_udata4 0x03
#define DW_EH_PE_sdata4 0x0b
#define DW_EH_PE_pcrel 0x10
#define DW_EH_PE_datarel 0x30

struct fp_elf {
	Elf *elf;
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

/* How a function starts (after an endbr64): 1 with the frame-pointer
 * prologue, push %rbp; mov %rsp,%rbp (either encoding); -1 with another
 * frame set-up (a push of a callee-saved register, or of %rbp without the
 * mov, or a sub from %rsp): built without frame pointers; 0 otherwise: a
 * leaf that sets up nothing (either build makes those), a stub, or code
 * whose set-up comes later (shrink-wrapping), which tells nothing. */
static int prologue_kind(const unsigned char *c)
{
	static const unsigned char endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};

	if (!memcmp(c, endbr64, 4))
		c += 4;
	if (c[0] == 0x55)
		return c[1] == 0x48 && ((c[2] == 0x89 && c[3] == 0xe5) ||
					 (c[2] == 0x8b && c[3] == 0xec))
			   ? 1
			   : -1;
	if (c[0] == 0x53 || (c[0] == 0x41 && c[1] >= 0x54 && c[1] <= 0x57))
		return -1; /* push %rbx, push %r12..%r15 */
	if (c[0] == 0x48 && (c[1] == 0x83 || c[1] == 0x81) && c[2] == 0xec)
		return -1; /* sub $N,%rsp */
	return 0;
}

static int table_loc(const struct fp_elf *f, uint64_t table, uint32_t i, int32_t *loc)
{
	unsigned char e[8];

	if (read_at(f, table + (uint64_t)i * 8, e, sizeof(e)))
		return -EIO;
	memcpy(loc, e, 4);
	return 0;
}

static int count_prologues(const struct fp_elf *f, const GElf_Phdr *hdr, struct fp_share *s)
{
	unsigned char h[12], code[16];
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
		if (next <= loc ||
		    read_at(f, hdr->p_vaddr + (uint64_t)(int64_t)loc, code, sizeof(code)))
			continue; /* not in the file: not code to judge */
		kind = prologue_kind(code);
		if (!kind)
			continue;
		size = (uint64_t)((int64_t)next - loc);
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
	for (i = 0; i < f.nphdr; i++)
		if (gelf_getphdr(f.elf, (int)i, &ph) && ph.p_type == PT_GNU_EH_FRAME) {
			err = count_prologues(&f, &ph, s);
			break;
		}
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
