/* elf-function.c: finds one function in an ELF binary by name and reads its
 * bytes (see function.h), for `prof annotate`.
 *
 * One linear pass over .symtab and .dynsym: fine for one function (libjvm's
 * 44k symbols take a few milliseconds), not for many: symbolize.h's sorted
 * tables are for that. The bytes are read with pread() from the file offset
 * that the PT_LOAD segment holding the address gives, so a separate debug
 * file (whose .text is NOBITS) can supply the symbol while the binary
 * supplies the code; so can the binary's MiniDebugInfo (.gnu_debugdata, read
 * by minidebuginfo_open() as the symbol tables read it), for a distribution
 * binary that ships no debug file. Every size, offset and index from the
 * file is checked. */
#include "symbolize/function.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/debuginfo.h"

/* A symbol that matched, before its bytes are read. */
struct found {
	uint64_t vaddr, size;
	int dynsym, truncated;
};

struct elf_file {
	int fd;
	Elf *elf;
};

static int open_elf(struct elf_file *f, const char *path)
{
	GElf_Ehdr eh;

	f->elf = NULL;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	f->elf = elf_begin(f->fd, ELF_C_READ, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || !gelf_getehdr(f->elf, &eh))
		return -ENOEXEC;
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64)
		return -ENOTSUP;
	return 0;
}

static void close_elf(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

int elf_file_build_id(const char *path, char *buf, size_t len)
{
	struct elf_file f;
	int err;

	if (!len)
		return -EINVAL;
	buf[0] = '\0';
	err = open_elf(&f, path);
	if (!err) {
		char hex[ELF_BUILD_ID_HEX];

		elf_build_id_hex(f.elf, hex);
		if (strlen(hex) < len)
			memcpy(buf, hex, strlen(hex) + 1);
	}
	close_elf(&f);
	return err;
}

/* File offset -> virtual address through the PT_LOAD segment holding it
 * (or back, with to_vaddr = 0). 0 or -ESRCH. */
static int convert(Elf *elf, uint64_t in, int to_vaddr, uint64_t *out)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return -ESRCH;
	for (i = 0; i < n; i++) {
		uint64_t from, span;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		from = to_vaddr ? ph.p_offset : ph.p_vaddr;
		span = ph.p_filesz;
		if (in >= from && in - from < span) {
			*out = in - from + (to_vaddr ? ph.p_vaddr : ph.p_offset);
			return 0;
		}
	}
	return -ESRCH;
}

/* Is this symbol a function (as elf-symtab.c keeps them)? */
static int is_function(const GElf_Sym *s, Elf *elf)
{
	int type = GELF_ST_TYPE(s->st_info);
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE)
		return 0;
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return 1;
	if (type != STT_NOTYPE || !s->st_size)
		return 0;
	scn = elf_getscn(elf, s->st_shndx);
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

/* For a symbol without a size: up to the next function symbol of its
 * section, or the section's end. */
static uint64_t implied_size(Elf *elf, Elf_Data *d, size_t nsyms, const GElf_Sym *s)
{
	uint64_t end = UINT64_MAX;
	Elf_Scn *scn = elf_getscn(elf, s->st_shndx);
	GElf_Shdr sh;
	GElf_Sym o;
	size_t i;

	if (scn && gelf_getshdr(scn, &sh) && sh.sh_addr + sh.sh_size > s->st_value)
		end = sh.sh_addr + sh.sh_size;
	for (i = 0; i < nsyms; i++)
		if (gelf_getsym(d, (int)i, &o) && o.st_shndx == s->st_shndx &&
		    o.st_value > s->st_value && o.st_value < end && is_function(&o, elf))
			end = o.st_value;
	return end == UINT64_MAX ? 0 : end - s->st_value;
}

/* Scans one symbol table for `name` covering vaddr (or any, when vaddr is
 * ELF_FUNCTION_ANY). 1 found, 0 not. */
static int scan_table(Elf *elf, Elf_Scn *scn, const char *name, uint64_t vaddr,
		      struct found *fd)
{
	GElf_Shdr sh;
	Elf_Data *d;
	size_t n, i;

	if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return 0;
	d = elf_getdata(scn, NULL);
	if (!d)
		return 0;
	n = d->d_size / sh.sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Sym s;
		const char *sn;
		uint64_t size;

		if (!gelf_getsym(d, (int)i, &s) || !is_function(&s, elf))
			continue;
		sn = elf_strptr(elf, sh.sh_link, s.st_name);
		if (!sn || strcmp(sn, name))
			continue;
		size = s.st_size ? s.st_size : implied_size(elf, d, n, &s);
		if (vaddr != ELF_FUNCTION_ANY &&
		    (vaddr < s.st_value || vaddr - s.st_value >= (size ? size : 1)))
			continue;
		fd->vaddr = s.st_value;
		fd->size = size;
		fd->dynsym = sh.sh_type == SHT_DYNSYM;
		return 1;
	}
	return 0;
}

/* .symtab first (it has the local functions), then .dynsym. */
static int find_symbol(Elf *elf, const char *name, uint64_t vaddr, struct found *fd)
{
	static const unsigned types[] = {SHT_SYMTAB, SHT_DYNSYM};
	size_t t;

	for (t = 0; t < 2; t++) {
		Elf_Scn *scn = NULL;
		GElf_Shdr sh;

		while ((scn = elf_nextscn(elf, scn)))
			if (gelf_getshdr(scn, &sh) && sh.sh_type == types[t] &&
			    scan_table(elf, scn, name, vaddr, fd))
				return 1;
	}
	return 0;
}

/* Reads fn->size bytes at fn->vaddr from the binary's loaded segments. */
static int read_code(struct elf_file *bin, struct elf_function *fn)
{
	uint64_t off, end_off;
	ssize_t got;

	if (convert(bin->elf, fn->vaddr, 0, &off))
		return -ESRCH;
	/* The last byte must be in the file, in the same segment. */
	if (fn->size && (convert(bin->elf, fn->vaddr + fn->size - 1, 0, &end_off) ||
			 end_off != off + fn->size - 1))
		return -ENOEXEC;
	fn->file_off = off;
	fn->code = malloc(fn->size ? fn->size : 1);
	if (!fn->code)
		return -ENOMEM;
	got = pread(bin->fd, fn->code, fn->size, (off_t)off);
	if (got < 0)
		return -errno;
	if ((uint64_t)got != fn->size)
		return -ENOEXEC;
	return 0;
}

int elf_function__load(struct elf_function *fn, const char *path, const char *debug_path,
		       const char *name, uint64_t file_off)
{
	struct elf_file bin = {.fd = -1}, dbg = {.fd = -1};
	uint64_t vaddr = ELF_FUNCTION_ANY;
	struct found fd = {0};
	Elf *mini = NULL;
	void *image = NULL;
	size_t len;
	int err, found;

	memset(fn, 0, sizeof(*fn));
	err = open_elf(&bin, path);
	if (err)
		goto out;
	elf_build_id_hex(bin.elf, fn->build_id);
	if (file_off != ELF_FUNCTION_ANY && convert(bin.elf, file_off, 1, &vaddr)) {
		err = -ESRCH;
		goto out;
	}
	found = find_symbol(bin.elf, name, vaddr, &fd);
	if (!found && debug_path && !open_elf(&dbg, debug_path))
		found = find_symbol(dbg.elf, name, vaddr, &fd);
	if (!found) {
		err = minidebuginfo_open(bin.elf, &mini, &image, &len);
		found = err > 0 && find_symbol(mini, name, vaddr, &fd);
		if (err < 0)
			goto out;
	}
	if (!found) {
		err = -ESRCH;
		goto out;
	}
	fn->name = strdup(name);
	if (!fn->name) {
		err = -ENOMEM;
		goto out;
	}
	fn->vaddr = fd.vaddr;
	fn->size = fd.size;
	fn->from_dynsym = fd.dynsym;
	if (fn->size > ELF_FUNCTION_MAX_SIZE) {
		fn->size = ELF_FUNCTION_MAX_SIZE;
		fn->truncated = 1;
	}
	err = read_code(&bin, fn);
out:
	elf_end(mini);
	free(image);
	close_elf(&bin);
	close_elf(&dbg);
	return err;
}

void elf_function__release(struct elf_function *fn)
{
	free(fn->name);
	free(fn->code);
	memset(fn, 0, sizeof(*fn));
}
