/* elf-file.c: the small ELF helpers symbolize/'s readers share (see
 * elf-file.h): a section by name, the build-id note as hex, libelf's last
 * error as -errno, and the regular-file check before a file is read. Each
 * costs one pass over the section headers or notes at most. */
#include "symbolize/elf-file.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

Elf_Scn *elf_section_by_name(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			return NULL;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* Scans one block of notes for NT_GNU_BUILD_ID. Returns 1 when found. */
static int scan_notes(Elf_Data *d, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	size_t off = 0, next, name_off, desc_off, i;
	GElf_Nhdr nh;

	while (off < d->d_size && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off))) {
		const unsigned char *p = d->d_buf;

		if (next <= off)
			break;
		off = next;
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 || !nh.n_descsz ||
		    nh.n_descsz > ELF_BUILD_ID_MAX || d->d_size < 4 || name_off > d->d_size - 4 ||
		    desc_off > d->d_size || d->d_size - desc_off < nh.n_descsz ||
		    memcmp(p + name_off, "GNU", 4))
			continue;
		for (i = 0; i < nh.n_descsz; i++) {
			hex[2 * i] = digits[p[desc_off + i] >> 4];
			hex[2 * i + 1] = digits[p[desc_off + i] & 15];
		}
		hex[2 * i] = '\0';
		return 1;
	}
	return 0;
}

void elf_build_id_hex(Elf *elf, char hex[ELF_BUILD_ID_HEX])
{
	Elf_Scn *scn = NULL;
	size_t i, n;
	GElf_Phdr ph;
	GElf_Shdr sh;

	hex[0] = '\0';
	if (!elf_getphdrnum(elf, &n)) {
		for (i = 0; i < n; i++) {
			Elf_Data *d;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE ||
			    !ph.p_filesz)
				continue;
			d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
						 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
			if (d && scan_notes(d, hex))
				return;
		}
	}
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf && scan_notes(d, hex))
			return;
	}
}

int elf_last_error(void)
{
	int e = elf_errno();
	const char *msg = e ? elf_errmsg(e) : NULL;

	return msg && strstr(msg, "memory") ? -ENOMEM : -ENOEXEC;
}

int elf_fd_regular(int fd, uint64_t *size)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -ENOEXEC;
	if (size)
		*size = (uint64_t)st.st_size;
	return 0;
}
