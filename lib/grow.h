/* grow.h: one overflow-checked way to grow a heap array.
 *
 * GROW(ptr, cap, need) makes room for at least `need` elements in `ptr`
 * (whose capacity is `cap`), doubling; evaluates to 0 or -ENOMEM. The old
 * array stays valid on failure. */
#ifndef PROF_GROW_H
#define PROF_GROW_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

int grow_array(void **ptr, size_t *cap, size_t need, size_t elem_size);

#define GROW(ptr, cap, need) grow_array((void **)&(ptr), &(cap), (need), sizeof(*(ptr)))

#endif
