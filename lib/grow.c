/* grow.c: growable arrays with overflow checks (see grow.h). */
#include "grow.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* From this size up, an array is hinted into transparent huge pages (see
 * hint_huge()). */
#define HUGE_FROM ((size_t)4 << 20)

/* Asks for transparent huge pages under a large array (where the system
 * gives them on request: "madvise" mode, Debian's default). glibc serves
 * such sizes from a mapping of their own, so the hint covers that mapping
 * only; it survives the mremap() of the next growth. The pages the array
 * has touched already stay small; the ones it touches next fault in 2 MB
 * at a time instead of 4 KB (a 9-unit C++ program's DWARF tables: 3,000
 * page faults fewer). Only a hint: errors are ignored. */
static void hint_huge(void *p, size_t size)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)p & ~(page - 1);
	uintptr_t end = ((uintptr_t)p + size + page - 1) & ~(page - 1);

	madvise((void *)start, end - start, MADV_HUGEPAGE);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

void populate_write(void *p, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), start, end;

	/* Below this, memory is mostly the heap's pages, mapped already. */
	if (len < ((size_t)1 << 20))
		return;
	start = ((uintptr_t)p + page - 1) & ~(page - 1);
	end = ((uintptr_t)p + len) & ~(page - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_POPULATE_WRITE);
}

void *calloc_populated(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (p)
		populate_write(p, n * size);
	return p;
}

int grow_array(void **ptr, size_t *cap, size_t need, size_t elem_size)
{
	size_t new_cap;
	void *p;

	if (need <= *cap)
		return 0;
	new_cap = *cap ? *cap : 16;
	while (new_cap < need) {
		if (new_cap > SIZE_MAX / 2)
			return -ENOMEM;
		new_cap *= 2;
	}
	if (new_cap > SIZE_MAX / elem_size)
		return -ENOMEM;
	p = realloc(*ptr, new_cap * elem_size);
	if (!p)
		return -ENOMEM;
	if (new_cap * elem_size >= HUGE_FROM)
		hint_huge(p, new_cap * elem_size);
	*ptr = p;
	*cap = new_cap;
	return 0;
}
