/* elf-dynsym.c: exported symbols' link-time addresses by name, from
 * .dynsym (elf-dynsym.h). One pass over the table for all the names asked;
 * work is the table's size times the number of names (a handful). */
#include "symbolize/elf-dynsym.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/elf-file.h"

static Elf_Scn *dynsym_of(Elf *elf, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == SHT_DYNSYM && sh->sh_entsize)
			return scn;
	return NULL;
}

static uint64_t base_of(Elf *elf)
{
	size_t cnt;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &cnt))
		return 0;
	for (size_t i = 0; i < cnt && i < 4096; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_offset == 0)
			return ph.p_vaddr & ~(uint64_t)0xfff;
	return 0;
}

static void scan(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *const *names, size_t n,
		 uint64_t *vaddrs)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t count = d ? d->d_size / sh->sh_entsize : 0;

	for (size_t i = 1; i < count && i < (size_t)INT32_MAX; i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF || !s.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		for (size_t k = 0; name && k < n; k++)
			if (!vaddrs[k] && !strcmp(name, names[k]))
				vaddrs[k] = s.st_value;
	}
}

int elf_dynsym_values(const char *path, const char *const *names, size_t n, uint64_t *vaddrs,
		      uint64_t *base)
{
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf *elf;
	int fd, err = 0;

	memset(vaddrs, 0, n * sizeof(*vaddrs));
	*base = 0;
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK); /* never a FIFO's wait */
	if (fd < 0)
		return -errno;
	err = elf_fd_regular(fd, NULL);
	elf = err ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!err && (!elf || elf_kind(elf) != ELF_K_ELF))
		err = -ENOEXEC;
	scn = err ? NULL : dynsym_of(elf, &sh);
	if (!err && !scn)
		err = -ENOENT;
	if (!err) {
		scan(elf, scn, &sh, names, n, vaddrs);
		*base = base_of(elf);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}
