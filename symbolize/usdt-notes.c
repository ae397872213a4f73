/* usdt-notes.c: reading a binary's USDT probes from its `.note.stapsdt`
 * section with libelf (see usdt.h), and function symbols by name for plain
 * uprobes. The file is untrusted: every note is bounds-checked by
 * gelf_getnote() and again here, strings must be terminated inside their
 * descriptor, addresses that no PT_LOAD segment covers leave the probe
 * without a file offset (and `prof record` refuses it). */
#include "usdt.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/grow.h"

#define NT_STAPSDT 3

int usdt_parse_note_desc(const unsigned char *desc, size_t len, int addr_size,
			 struct usdt_probe *p)
{
	const char *s, *end;
	uint64_t addr[3];
	size_t k;

	memset(p, 0, sizeof(*p));
	if ((addr_size != 4 && addr_size != 8) || len < 3 * (size_t)addr_size)
		return -EBADMSG;
	for (k = 0; k < 3; k++) {
		if (addr_size == 8) {
			memcpy(&addr[k], desc + 8 * k, 8);
		} else {
			uint32_t a32;

			memcpy(&a32, desc + 4 * k, 4);
			addr[k] = a32;
		}
	}
	s = (const char *)desc + 3 * addr_size;
	end = (const char *)desc + len;
	p->pc = addr[0];
	p->semaphore = addr[2];
	/* The base goes through `provider`'s pointer until the caller applies
	 * it: keep it in sem_offset for now. */
	p->sem_offset = addr[1];
	for (k = 0; k < 3; k++) {
		const char *nul = memchr(s, '\0', (size_t)(end - s));

		if (!nul)
			return -EBADMSG;
		if (k == 0)
			p->provider = (char *)s;
		else if (k == 1)
			p->name = (char *)s;
		else
			p->args = (char *)s;
		s = nul + 1;
		if (k < 2 && s >= end)
			return -EBADMSG;
	}
	if (!*p->provider || !*p->name)
		return -EBADMSG;
	if (usdt_parse_args(p->args, p->arg, &p->nargs, p->arg_error, sizeof(p->arg_error)))
		p->nargs = -1;
	return 0;
}

struct seg {
	uint64_t vaddr, memsz, offset, filesz;
};

static int vaddr_to_offset(const struct seg *segs, size_t n, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < n; i++)
		if (vaddr >= segs[i].vaddr && vaddr - segs[i].vaddr < segs[i].filesz) {
			*off = vaddr - segs[i].vaddr + segs[i].offset;
			return 1;
		}
	return 0;
}

static int open_elf(const char *path, int *fd, Elf **elf)
{
	elf_version(EV_CURRENT);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF) {
		if (*elf)
			elf_end(*elf);
		close(*fd);
		return -ENOEXEC;
	}
	return 0;
}

static int load_segments(Elf *elf, struct seg **segs, size_t *n)
{
	size_t cnt, cap = 0;
	GElf_Phdr ph;

	*n = 0;
	if (elf_getphdrnum(elf, &cnt))
		return 0;
	for (size_t i = 0; i < cnt; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (GROW(*segs, cap, *n + 1))
			return -ENOMEM;
		(*segs)[(*n)++] = (struct seg){ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz};
	}
	return 0;
}

/* Copies the strings of p into list->strings; pointers are fixed at the end
 * (the buffer moves as it grows): stored as offsets + 1 meanwhile. */
static int keep_strings(struct usdt_list *l, size_t *len, size_t *cap, struct usdt_probe *p)
{
	char **fields[3] = {&p->provider, &p->name, &p->args};

	for (int k = 0; k < 3; k++) {
		size_t n = strlen(*fields[k]) + 1;

		if (GROW(l->strings, *cap, *len + n))
			return -ENOMEM;
		memcpy(l->strings + *len, *fields[k], n);
		*fields[k] = (char *)(uintptr_t)(*len + 1);
		*len += n;
	}
	return 0;
}

static int read_notes(Elf *elf, struct usdt_list *l)
{
	size_t shstrndx, slen = 0, scap = 0, nsegs = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Ehdr eh;
	uint64_t base_addr = 0;
	int have_base = 0, err = 0, addr_size;
	struct seg *segs = NULL;

	if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx))
		return -ENOEXEC;
	addr_size = gelf_getclass(elf) == ELFCLASS32 ? 4 : 8;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".stapsdt.base")) {
			base_addr = sh.sh_addr;
			have_base = 1;
		}
	}
	err = load_segments(elf, &segs, &nsegs);
	while (!err && (scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *d;
		size_t off = 0, next, name_off, desc_off;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".note.stapsdt"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		while (off < d->d_size &&
		       (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			struct usdt_probe p;
			const unsigned char *buf = d->d_buf;

			off = next;
			if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
			    memcmp(buf + name_off, "stapsdt", 8) || desc_off > d->d_size ||
			    nh.n_descsz > d->d_size - desc_off)
				continue;
			if (usdt_parse_note_desc(buf + desc_off, nh.n_descsz, addr_size, &p))
				continue;
			/* Prelinked: the note's idea of .stapsdt.base moved. */
			if (have_base) {
				uint64_t delta = base_addr - p.sem_offset;

				p.pc += delta;
				if (p.semaphore)
					p.semaphore += delta;
			}
			p.sem_offset = 0;
			if (!vaddr_to_offset(segs, nsegs, p.pc, &p.pc_offset))
				p.pc_offset = 0;
			if (p.semaphore && !vaddr_to_offset(segs, nsegs, p.semaphore, &p.sem_offset))
				p.sem_offset = 0;
			if (GROW(l->probes, l->cap, l->n + 1) || keep_strings(l, &slen, &scap, &p)) {
				err = -ENOMEM;
				break;
			}
			l->probes[l->n++] = p;
		}
	}
	free(segs);
	for (size_t i = 0; i < l->n; i++) {
		struct usdt_probe *p = &l->probes[i];

		p->provider = l->strings + (uintptr_t)p->provider - 1;
		p->name = l->strings + (uintptr_t)p->name - 1;
		p->args = l->strings + (uintptr_t)p->args - 1;
	}
	return err;
}

int usdt_read_file(const char *path, struct usdt_list *list)
{
	Elf *elf;
	int fd, err;

	memset(list, 0, sizeof(*list));
	err = open_elf(path, &fd, &elf);
	if (err)
		return err;
	err = read_notes(elf, list);
	elf_end(elf);
	close(fd);
	if (err)
		usdt_list__release(list);
	return err;
}

void usdt_list__release(struct usdt_list *list)
{
	free(list->probes);
	free(list->strings);
	memset(list, 0, sizeof(*list));
}

static int find_symbol(Elf *elf, Elf_Scn *scn, const char *symbol, GElf_Sym *out)
{
	GElf_Shdr sh;
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n;

	if (!d || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return 0;
	n = d->d_size / sh.sh_entsize;
	for (size_t i = 1; i < n && i < (size_t)INT32_MAX; i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF || !s.st_value)
			continue;
		if (GELF_ST_TYPE(s.st_info) != STT_FUNC && GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC)
			continue;
		name = elf_strptr(elf, sh.sh_link, s.st_name);
		if (name && !strcmp(name, symbol)) {
			*out = s;
			return 1;
		}
	}
	return 0;
}

int elf_symbol_file_offset(const char *path, const char *symbol, uint64_t off,
			   uint64_t *file_offset, uint64_t *size, int *found_any)
{
	Elf *elf;
	Elf_Scn *scn = NULL, *tabs[2] = {NULL, NULL};
	GElf_Shdr sh;
	GElf_Sym s;
	struct seg *segs = NULL;
	size_t nsegs = 0;
	int fd, err, found = 0;

	*found_any = 0;
	err = open_elf(path, &fd, &elf);
	if (err)
		return err;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM))
			tabs[sh.sh_type == SHT_DYNSYM] = scn;
	*found_any = tabs[0] || tabs[1];
	for (int k = 0; k < 2 && !found; k++)
		found = tabs[k] && find_symbol(elf, tabs[k], symbol, &s);
	err = found ? load_segments(elf, &segs, &nsegs) : -ENOENT;
	if (!err && s.st_size && off >= s.st_size)
		err = -ERANGE;
	if (!err && !vaddr_to_offset(segs, nsegs, s.st_value + off, file_offset))
		err = -ENOENT;
	if (!err)
		*size = s.st_size;
	free(segs);
	elf_end(elf);
	close(fd);
	return err;
}
