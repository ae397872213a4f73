/* joined-sort.h: sorts names as `sort` orders them inside folded text,
 * each followed by ';' ("ab" after "ab!" and before "abc"), for the
 * output order of report/folded.c. A multikey quicksort (joined-sort.c):
 * fast when many names share long prefixes ("[libjvm.so+0x7f...]"), where
 * qsort with a byte-at-a-time compare spent most of `prof svg`'s time. */
#ifndef PROF_REPORT_JOINED_SORT_H
#define PROF_REPORT_JOINED_SORT_H

#include <stddef.h>
#include <stdint.h>

struct joined_item {
	const char *s; /* the name, without ';' (not read past len) */
	uint32_t len;
	uint32_t id;   /* the caller's */
	uint64_t key;  /* joined_sort's (the chunk at the depth sorted) */
};

/* Sorts items[0, n) by s followed by ';', bytes unsigned. Equal names keep
 * no particular order. 0, or -ENOMEM (items then in some order). */
int joined_sort(struct joined_item *items, size_t n);

#endif
