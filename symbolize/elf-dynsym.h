/* elf-dynsym.h: the link-time addresses of a shared object's exported data
 * symbols, by name, from its .dynsym (jvm/ finds HotSpot's gHotSpotVM*
 * tables in libjvm.so with it). libelf stays in symbolize/. */
#ifndef PROF_SYMBOLIZE_ELF_DYNSYM_H
#define PROF_SYMBOLIZE_ELF_DYNSYM_H

#include <stddef.h>
#include <stdint.h>

/* For each of names[0..n), its st_value in `path`'s .dynsym into vaddrs[i]
 * (0: not there or undefined); *base the page-aligned link address of the
 * PT_LOAD that maps file offset 0 (the mapping at offset 0 in
 * /proc/PID/maps starts at base + load bias). The file is untrusted: it
 * must be a regular file (opened without following a last symlink, and
 * without blocking on a FIFO), every table read is bounded. 0 (also when none was
 * found), -ENOEXEC (not ELF), -ENOENT (no .dynsym) or -errno from open. */
int elf_dynsym_values(const char *path, const char *const *names, size_t n, uint64_t *vaddrs,
		      uint64_t *base);

#endif
