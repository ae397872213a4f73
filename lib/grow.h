/* grow.h: one overflow-checked way to grow a heap array.
 *
 * GROW(ptr, cap, need) makes room for at least `need` elements in `ptr`
 * (whose capacity is `cap`), doubling; evaluates to 0 or -ENOMEM. The old
 * array stays valid on failure. `need` and `cap` are evaluated twice
 * (the check that there is room already is inline: hot loops append one
 * element at a time), so they must not have side effects. */
#ifndef PROF_GROW_H
#define PROF_GROW_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

int grow_array(void **ptr, size_t *cap, size_t need, size_t elem_size);

/* calloc(), with the pages of a large block mapped writable at once (one
 * madvise(MADV_POPULATE_WRITE), only a hint): a hash table is probed
 * (read) before it is written, and a fresh page read first is mapped to
 * the zero page, then faulted again at the first write (a million names'
 * tables: 6,000 faults more). NULL on failure. */
void *calloc_populated(size_t n, size_t size);
/* Maps the pages of [p, p + len) writable now, in one call (only a hint,
 * for a megabyte or more): what is about to be filled, such as a buffer
 * a large read() goes into, costs one call instead of a fault a page. */
void populate_write(void *p, size_t len);

#define GROW(ptr, cap, need) \
	((size_t)(need) <= (cap) ? 0 : grow_array((void **)&(ptr), &(cap), (need), sizeof(*(ptr))))

#endif
