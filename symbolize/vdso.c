/* vdso.c: our own vdso image, and whether a target's [vdso] mapping holds
 * the same one (see vdso.h).
 *
 * A frame in [vdso] has no file to open. The kernel maps the same vdso text
 * (same pages) into every process of one ABI, so our own image, found
 * through the auxiliary vector, names a 64-bit target's frames: perf reads
 * it the same way (its vdso.c copies its own image to a temporary file).
 * A target of another ABI (32-bit, x32) has another image: the length of
 * its mapping and, while the process is alive, its bytes tell them apart. */
#include "symbolize/vdso.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

int vdso_image(const void **image, size_t *size, size_t *map_size)
{
	const unsigned char *img = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	long page = sysconf(_SC_PAGESIZE);
	uint64_t end;
	Elf64_Ehdr eh;
	size_t i;

	if (!img || page <= 0)
		return -ENOENT;
	memcpy(&eh, img, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 64 ||
	    eh.e_phoff > VDSO_MAX_SIZE || eh.e_shoff > VDSO_MAX_SIZE || eh.e_shnum > 1024)
		return -ENOENT;
	/* The section headers come last in the image; PT_LOAD covers the
	 * rest (and is what the kernel maps). */
	end = eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize;
	for (i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, img + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD && ph.p_offset + ph.p_filesz > end)
			end = ph.p_offset + ph.p_filesz;
	}
	if (end > VDSO_MAX_SIZE || end < sizeof(eh))
		return -ENOENT;
	*image = img;
	*size = (size_t)end;
	*map_size = ((size_t)end + (size_t)page - 1) / (size_t)page * (size_t)page;
	return 0;
}

int vdso_matches(uint32_t pid, uint64_t start, uint64_t end)
{
	const void *img;
	size_t size, map_size;
	char path[64], *theirs;
	ssize_t got;
	int fd, same;

	if (vdso_image(&img, &size, &map_size) || end < start || end - start != map_size)
		return 0;
	snprintf(path, sizeof(path), "/proc/%u/mem", (unsigned)pid);
	fd = pid ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0)
		return 1; /* gone (or not ours to read): the length has to do */
	theirs = malloc(size);
	got = theirs ? pread(fd, theirs, size, (off_t)start) : -1;
	close(fd);
	/* A process that exited between open and read reads nothing. */
	same = got <= 0 || ((size_t)got == size && !memcmp(theirs, img, size));
	free(theirs);
	return same;
}
