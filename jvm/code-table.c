/* code-table.c: a JVM's code blobs sorted by address (hotspot.h), so that
 * a stack walk finds the blob of a pc in O(log n): its frame size steps
 * over a compiled frame without a frame pointer, its kind tells the
 * interpreter (whose frames keep rbp) from compiled code. Loaded from the
 * code cache walk; the caller reloads it when a pc is not found (code
 * compiled since), at a rate it chooses. */
#include "jvm/hotspot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

static int add(void *ctx, const struct hs_blob *b)
{
	struct hs_code_table *t = ctx;
	struct hs_code_entry *e;

	if (b->code_end <= b->code_begin)
		return 0;
	if (GROW(t->e, t->cap, t->n + 1))
		return -ENOMEM;
	e = &t->e[t->n++];
	e->begin = b->code_begin;
	e->end = b->code_end;
	e->frame_size = b->frame_size;
	e->frame_complete = b->frame_complete;
	e->blob = b->addr;
	e->method = b->method;
	e->compile_id = b->compile_id;
	e->kind = b->is_nmethod			    ? HS_CODE_NMETHOD
		  : !strcmp(b->name, "Interpreter") ? HS_CODE_INTERPRETER
						    : HS_CODE_OTHER;
	return 0;
}

static int by_begin(const void *a, const void *b)
{
	const struct hs_code_entry *x = a, *y = b;

	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

int hs_code_table__load(struct hs_code_table *t, struct jvm_mem *m, const struct hs_layout *l)
{
	uint64_t skipped;
	size_t i, k;
	int err;

	t->n = 0;
	err = hs_codecache__each(m, l, add, t, &skipped);
	if (err) {
		t->n = 0;
		return err < 0 ? err : -EBADMSG;
	}
	qsort(t->e, t->n, sizeof(*t->e), by_begin);
	/* A torn read can make two blobs overlap: keep the first. */
	for (i = k = 0; i < t->n; i++)
		if (!k || t->e[i].begin >= t->e[k - 1].end)
			t->e[k++] = t->e[i];
	t->n = k;
	return 0;
}

const struct hs_code_entry *hs_code_table__find(const struct hs_code_table *t, uint64_t pc)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pc < t->e[mid].begin)
			hi = mid;
		else if (pc >= t->e[mid].end)
			lo = mid + 1;
		else
			return &t->e[mid];
	}
	return NULL;
}

void hs_code_table__release(struct hs_code_table *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}
