/* vdso.h: the kernel's vdso image, to name frames in a target's [vdso]
 * mapping (symbolize/ internal; vdso.c). */
#ifndef PROF_VDSO_H
#define PROF_VDSO_H

#include <stddef.h>
#include <stdint.h>

/* The largest vdso taken (x86_64's is 8 KB). */
#define VDSO_MAX_SIZE (1u << 20)

/* Our own vdso (getauxval(AT_SYSINFO_EHDR)): its ELF image in our memory,
 * the bytes its headers span (*size) and its mapping's length (*map_size,
 * *size rounded up to pages). 0, or -ENOENT when there is none or it is not
 * a 64-bit ELF of our machine within VDSO_MAX_SIZE. Does not allocate. */
int vdso_image(const void **image, size_t *size, size_t *map_size);

/* Is process pid's [vdso] mapping [start, end) the image we have? The
 * kernel maps one image per ABI into every process, so a 64-bit process of
 * this kernel has ours; a 32-bit or x32 one has another, of another size or
 * other bytes. 1 when the length matches and the target's bytes (read
 * through /proc/PID/mem, when the process is still there and readable)
 * equal ours; 0 otherwise. Blocks on one read of a few KB. */
int vdso_matches(uint32_t pid, uint64_t start, uint64_t end);

#endif
