/* window.c: the ring of sub-interval tables behind prof top (window.h).
 * Open addressing with linear probing on small power-of-two tables, at most
 * half full; clearing a slot keeps its tables for the next interval. */
#include "window.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/keymap.h"

void window__init(struct window *w, uint64_t start_ns, uint64_t interval_ns)
{
	memset(w, 0, sizeof(*w));
	w->start_ns = start_ns;
	w->interval_ns = interval_ns ? interval_ns : 1000000000ULL;
}

void window__release(struct window *w)
{
	for (size_t i = 0; i < WINDOW_SLOTS; i++) {
		free(w->slots[i].stacks);
		free(w->slots[i].threads);
	}
	memset(w, 0, sizeof(*w));
}

uint64_t window__index(const struct window *w, uint64_t time_ns)
{
	return time_ns > w->start_ns ? (time_ns - w->start_ns) / w->interval_ns : 0;
}

static void slot_clear(struct window_slot *s, uint64_t index)
{
	if (s->stacks_mask)
		memset(s->stacks, 0, (s->stacks_mask + 1) * sizeof(*s->stacks));
	if (s->threads_mask)
		memset(s->threads, 0, (s->threads_mask + 1) * sizeof(*s->threads));
	s->nstacks = s->nthreads = 0;
	s->samples = 0;
	s->overflow_thread = 0;
	s->index = index;
}

void window__advance(struct window *w, uint64_t index)
{
	uint64_t i;

	if (index <= w->cur && w->slots[w->cur % WINDOW_SLOTS].index == w->cur)
		return;
	/* Clear each slot the ring reuses: at most all of them once. */
	for (i = index > w->cur + WINDOW_SLOTS ? index - WINDOW_SLOTS + 1 : w->cur + 1; i <= index;
	     i++)
		slot_clear(&w->slots[i % WINDOW_SLOTS], i);
	w->cur = index;
}

static size_t hash_of(uint32_t a, uint32_t b)
{
	return (size_t)keymap_hash(a, b);
}

/* Doubles a table of `mask + 1` elements (or makes one of 64); the entries
 * are put back by `rehash`. */
static int grow_stacks(struct window_slot *s)
{
	size_t cap = s->stacks_mask ? (s->stacks_mask + 1) * 2 : 64, i;
	struct window_count *old = s->stacks, *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; old && i <= s->stacks_mask; i++) {
		size_t j;

		if (!old[i].count)
			continue;
		for (j = hash_of(old[i].tid, old[i].node) & (cap - 1); t[j].count; j = (j + 1) & (cap - 1))
			;
		t[j] = old[i];
	}
	free(old);
	s->stacks = t;
	s->stacks_mask = cap - 1;
	return 0;
}

static int grow_threads(struct window_slot *s)
{
	size_t cap = s->threads_mask ? (s->threads_mask + 1) * 2 : 16, i;
	struct window_thread *old = s->threads, *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; old && i <= s->threads_mask; i++) {
		size_t j;

		if (!old[i].used)
			continue;
		for (j = hash_of(old[i].tid, 0) & (cap - 1); t[j].used; j = (j + 1) & (cap - 1))
			;
		t[j] = old[i];
	}
	free(old);
	s->threads = t;
	s->threads_mask = cap - 1;
	return 0;
}

/* Thread tid's entry in slot s (made if new; past the cap, the overflow
 * thread's), or NULL on allocation failure. */
static struct window_thread *thread_entry(struct window_slot *s, uint32_t tid)
{
	size_t j;

	if ((s->nthreads + 1) * 2 > (s->threads_mask ? s->threads_mask + 1 : 0)) {
		if (s->nthreads >= WINDOW_SLOT_THREADS)
			tid = 0; /* the overflow thread: found below, or added once */
		else if (grow_threads(s))
			return NULL;
	}
	for (j = hash_of(tid, 0) & s->threads_mask; s->threads[j].used; j = (j + 1) & s->threads_mask)
		if (s->threads[j].tid == tid)
			return &s->threads[j];
	if (s->nthreads >= WINDOW_SLOT_THREADS + 1)
		return NULL; /* cannot happen: the table is at most half full */
	s->threads[j] = (struct window_thread){.tid = tid, .used = 1};
	s->nthreads++;
	s->overflow_thread |= tid == 0;
	return &s->threads[j];
}

int window__add(struct window *w, uint64_t time_ns, uint32_t tid, uint32_t node)
{
	uint64_t index = window__index(w, time_ns);
	struct window_slot *s;
	struct window_thread *th;
	size_t j;

	window__advance(w, index);
	/* A sample drained late goes to its own interval while the ring
	 * holds it (a block printed meanwhile missed it), else to the
	 * current one. */
	s = &w->slots[index % WINDOW_SLOTS];
	if (s->index != index || index + WINDOW_SLOTS <= w->cur)
		s = &w->slots[w->cur % WINDOW_SLOTS];
	th = thread_entry(s, tid);
	if (!th)
		return -ENOMEM;
	th->count++;
	s->samples++;
	if ((s->nstacks + 1) * 2 > (s->stacks_mask ? s->stacks_mask + 1 : 0)) {
		if (s->nstacks >= WINDOW_SLOT_STACKS)
			node = WINDOW_OVERFLOW_STACK;
		else if (grow_stacks(s))
			return -ENOMEM;
	}
	for (j = hash_of(tid, node) & s->stacks_mask; s->stacks[j].count;
	     j = (j + 1) & s->stacks_mask)
		if (s->stacks[j].tid == tid && s->stacks[j].node == node) {
			s->stacks[j].count++;
			return 0;
		}
	if (s->nstacks + 1 >= s->stacks_mask)
		return 0; /* cannot happen: overflow pairs are one per thread */
	s->stacks[j] = (struct window_count){.tid = tid, .node = node, .count = 1};
	s->nstacks++;
	return 0;
}

const struct window_slot *window__slot(const struct window *w, uint64_t index)
{
	const struct window_slot *s = &w->slots[index % WINDOW_SLOTS];

	if (index > w->cur || index + WINDOW_SLOTS <= w->cur || s->index != index)
		return NULL;
	return s;
}

size_t window__range(const struct window *w, uint64_t end, size_t n, uint64_t *first)
{
	if (!end || end > w->cur)
		end = w->cur;
	if (n > WINDOW_SLOTS - 1 - (w->cur - end))
		n = WINDOW_SLOTS - 1 - (size_t)(w->cur - end); /* still in the ring */
	if (n > end)
		n = (size_t)end;
	*first = end - n;
	return n;
}

uint32_t window__thread_count(const struct window *w, uint64_t index, uint32_t tid)
{
	const struct window_slot *s = window__slot(w, index);
	size_t j;

	if (!s || !s->threads_mask)
		return 0;
	for (j = hash_of(tid, 0) & s->threads_mask; s->threads[j].used; j = (j + 1) & s->threads_mask)
		if (s->threads[j].tid == tid)
			return s->threads[j].count;
	return 0;
}

int window__add_time(struct window *w, uint64_t from, uint64_t to, uint32_t tid,
		     enum window_sched b)
{
	uint64_t first = window__index(w, from), last, i;

	if (b >= WINDOW_NSCHED || to <= from)
		return 0;
	last = window__index(w, to - 1);
	window__advance(w, last);
	if (first + WINDOW_SLOTS <= w->cur)
		first = w->cur - WINDOW_SLOTS + 1; /* the older part left the ring */
	for (i = first; i <= last; i++) {
		struct window_slot *s = &w->slots[i % WINDOW_SLOTS];
		uint64_t a = w->start_ns + i * w->interval_ns, z = a + w->interval_ns;
		struct window_thread *th;

		if (s->index != i)
			continue;
		a = a > from ? a : from;
		z = z < to ? z : to;
		if (z <= a)
			continue;
		th = thread_entry(s, tid);
		if (!th)
			return -ENOMEM;
		th->ns[b] += z - a;
	}
	return 0;
}
