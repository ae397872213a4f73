/* joined-sort.c: joined_sort() (joined-sort.h), Bentley and Sedgewick's
 * multikey quicksort, eight bytes at a time: partition on the 8-byte chunk
 * at depth d into <, = and >; the = part goes on at d + 8, so each chunk
 * of a shared prefix is read about once per name rather than once per
 * comparison (and kept in the item while its part is partitioned: the
 * passes then read the items in order, not the names all over memory). Iterative over an explicit stack (a hostile name may be
 * long: no recursion per chunk); small parts by insertion sort from d.
 *
 * A chunk is the name's bytes from d, then the ';' that follows it in
 * folded text, then zero bytes, read as a big-endian number: names hold no
 * ';' and no NUL, so chunks compare as the joined text does, and two
 * names whose equal chunks hold the ';' are the same name. */
#include "report/joined-sort.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

#define SMALL 12

static inline uint64_t chunk_at(const struct joined_item *e, uint32_t d)
{
	unsigned char b[8] = {0};
	uint64_t v;

	if (d <= e->len) {
		uint32_t n = e->len - d < 8 ? e->len - d : 8;

		memcpy(b, e->s + d, n);
		if (n < 8)
			b[n] = ';';
	}
	memcpy(&v, b, 8);
	return __builtin_bswap64(v);
}

/* Does the chunk at d hold the name's end? */
static inline int ends_in(const struct joined_item *e, uint32_t d)
{
	return (uint64_t)e->len < (uint64_t)d + 8;
}

static inline void swap(struct joined_item *a, struct joined_item *b)
{
	struct joined_item t = *a;

	*a = *b;
	*b = t;
}

/* Compares from depth d on. */
static int cmp_from(const struct joined_item *a, const struct joined_item *b, uint32_t d)
{
	for (;; d += 8) {
		uint64_t ka = chunk_at(a, d), kb = chunk_at(b, d);

		if (ka != kb)
			return ka < kb ? -1 : 1;
		if (ends_in(a, d))
			return 0;
	}
}

static void insertion(struct joined_item *v, size_t n, uint32_t d)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp_from(&v[j - 1], &v[j], d) > 0; j--)
			swap(&v[j - 1], &v[j]);
}

struct part {
	size_t lo, n;
	uint32_t d;
	int fresh; /* the items' keys are not yet the chunks at d */
};

int joined_sort(struct joined_item *v, size_t n)
{
	struct part *stack = NULL;
	size_t top = 0, cap = 0;
	int err = 0;

	if (n < 2)
		return 0;
	if (GROW(stack, cap, 1))
		return -ENOMEM;
	stack[top++] = (struct part){0, n, 0, 1};
	while (top) {
		struct part p = stack[--top];
		struct joined_item *a = v + p.lo;
		size_t lt, gt, i;
		uint64_t pivot;

		if (p.n < SMALL) {
			insertion(a, p.n, p.d);
			continue;
		}
		if (p.fresh)
			for (i = 0; i < p.n; i++)
				a[i].key = chunk_at(&a[i], p.d);
		/* Median of three chunks as the pivot. */
		{
			uint64_t k0 = a[0].key, k1 = a[p.n / 2].key, k2 = a[p.n - 1].key;

			pivot = k0 < k1 ? (k1 < k2 ? k1 : (k0 < k2 ? k2 : k0))
					: (k0 < k2 ? k0 : (k1 < k2 ? k2 : k1));
		}
		/* Dijkstra's three-way partition: [0, lt) <, [lt, i) =, [gt, n) >. */
		lt = 0;
		gt = p.n;
		i = 0;
		while (i < gt) {
			uint64_t k = a[i].key;

			if (k < pivot) {
				swap(&a[lt++], &a[i++]);
			} else if (k > pivot) {
				swap(&a[i], &a[--gt]);
			} else {
				i++;
			}
		}
		if (GROW(stack, cap, top + 3)) {
			err = -ENOMEM;
			break;
		}
		if (lt > 1)
			stack[top++] = (struct part){p.lo, lt, p.d, 0};
		if (p.n - gt > 1)
			stack[top++] = (struct part){p.lo + gt, p.n - gt, p.d, 0};
		/* The = part [lt, gt): equal chunks end their names alike; if
		 * they do, the names are equal, else go on at d + 8. */
		if (gt - lt > 1 && !ends_in(&a[lt], p.d))
			stack[top++] = (struct part){p.lo + lt, gt - lt, p.d + 8, 1};
	}
	free(stack);
	return err;
}
