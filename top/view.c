/* view.c: prof top's window made into a report/ profile (top-internal.h),
 * so that every view is one report/ already has: the hottest functions
 * (profile__top), folded stacks (profile__write_folded), the --include
 * filter (profile__filter). Work per build: one pass over the window's
 * sub-interval tables, then one walk per distinct (thread, stack). */
#include "top-internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

#define MAX_DEPTH 1024

struct pair {
	uint32_t tid, node;
	uint64_t count;
};

/* Sums the window's (thread, stack) counts: *pairs (malloc'ed). */
static int sum_pairs(const struct top_tap *t, uint64_t first, size_t n, uint32_t only_tid,
		     struct pair **pairs, size_t *npairs)
{
	struct keymap idx;
	struct pair *p = NULL;
	size_t np = 0, cap = 0, i, j;
	int err = keymap__init(&idx, 1024);

	for (i = 0; !err && i < n; i++) {
		const struct window_slot *s = window__slot(&t->win, first + i);

		for (j = 0; s && !err && s->stacks_mask && j <= s->stacks_mask; j++) {
			const struct window_count *c = &s->stacks[j];
			uint32_t k;
			int r;

			if (!c->count || (only_tid && c->tid != only_tid))
				continue;
			r = keymap__put(&idx, c->tid, c->node, (uint32_t)np, &k);
			if (r < 0 || (r == 1 && GROW(p, cap, np + 1))) {
				err = -ENOMEM;
				break;
			}
			if (r == 1)
				p[k = (uint32_t)np++] = (struct pair){c->tid, c->node, 0};
			p[k].count += c->count;
		}
	}
	keymap__release(&idx);
	if (err) {
		free(p);
		return err;
	}
	*pairs = p;
	*npairs = np;
	return 0;
}

/* The profile stack of node `node` (names root first), made once per build. */
static int stack_of(struct top_snapshot *s, struct top_tap *t, struct top_names *names,
		    struct keymap *memo, uint32_t node, uint32_t *stack)
{
	uint32_t ids[MAX_DEPTH], v;
	size_t depth = 0, i;
	int err;

	if (keymap__get(memo, node, 0, &v)) {
		*stack = v;
		return 0;
	}
	if (node == WINDOW_OVERFLOW_STACK) {
		err = profile__intern(&s->prof, "[overflow]", 10, &ids[0]);
		depth = 1;
	} else {
		uint32_t leaf_first[MAX_DEPTH];
		unsigned gen = !!(node & TOP_GEN_BIT);
		const struct top_gen *g = &t->gen[gen];
		size_t k = 0;

		err = 0;
		for (uint32_t c = node & ~TOP_GEN_BIT; c && c < g->nnodes && k < MAX_DEPTH;
		     c = g->nodes[c].parent)
			leaf_first[k++] = g->nodes[c].frame;
		for (i = 0; !err && i < k; i++) {
			const char *name = top_names__frame(names, t, gen, leaf_first[k - 1 - i]);

			err = profile__intern(&s->prof, name, strlen(name), &ids[depth++]);
		}
		if (!depth && !err) {
			err = profile__intern(&s->prof, PROFILE_NO_STACK, strlen(PROFILE_NO_STACK),
					      &ids[0]);
			depth = 1;
		}
	}
	if (!err)
		err = profile__add_stack(&s->prof, ids, depth, stack);
	if (!err)
		err = keymap__set(memo, node, 0, *stack);
	return err;
}

static int cmp_threads(const void *a, const void *b)
{
	const struct top_thread_row *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int thread_rows(struct top_snapshot *s, const struct top_tap *t, uint64_t freq)
{
	struct keymap idx;
	size_t cap = 0, i, j;
	double seconds = (double)s->n * (double)t->win.interval_ns / 1e9;
	int err = keymap__init(&idx, 64);

	for (i = 0; !err && i < s->n; i++) {
		const struct window_slot *sl = window__slot(&t->win, s->first + i);

		for (j = 0; sl && sl->threads_mask && j <= sl->threads_mask && !err; j++) {
			const struct window_thread *w = &sl->threads[j];
			uint32_t k;
			int r;

			if (!w->used)
				continue;
			r = keymap__put(&idx, w->tid, 0, (uint32_t)s->nthreads, &k);
			if (r < 0 || (r == 1 && GROW(s->threads, cap, s->nthreads + 1))) {
				err = -ENOMEM;
				break;
			}
			if (r == 1) {
				k = (uint32_t)s->nthreads++;
				s->threads[k] = (struct top_thread_row){
					.tid = w->tid,
					.pid = top_tap__thread_pid(t, w->tid),
					.name = w->tid ? top_tap__thread_name(t, w->tid) : "[other threads]",
				};
			}
			s->threads[k].samples += w->count;
			for (size_t b = 0; b < WINDOW_NSCHED; b++)
				s->threads[k].sched[b] += (double)w->ns[b];
		}
	}
	keymap__release(&idx);
	for (i = 0; i < s->nthreads; i++) {
		s->threads[i].cpu = seconds > 0 && freq ? 100.0 * (double)s->threads[i].samples /
							     ((double)freq * seconds) : 0.0;
		double known = 0;

		/* ns -> % of the thread's time in the window that the records
		 * account for (from its first record, or the start, to its exit) */
		for (size_t b = 0; b < WINDOW_NSCHED; b++)
			known += s->threads[i].sched[b];
		for (size_t b = 0; b < WINDOW_NSCHED; b++)
			s->threads[i].sched[b] = known > 0 ? 100.0 * s->threads[i].sched[b] / known : 0.0;
	}
	if (s->nthreads)
		qsort(s->threads, s->nthreads, sizeof(*s->threads), cmp_threads);
	return err;
}

int top_snapshot__build(struct top_snapshot *s, struct top_tap *t, struct top_names *names,
			const struct top_view_opts *o, uint64_t freq)
{
	struct pair *pairs = NULL;
	struct keymap memo;
	size_t npairs = 0, i;
	int err;

	memset(s, 0, sizeof(*s));
	s->n = window__range(&t->win, o->end, o->intervals, &s->first);
	err = profile__init(&s->prof);
	if (!err)
		err = keymap__init(&memo, 1024);
	if (err)
		return err;
	s->prof.has_threads = o->threads;
	err = sum_pairs(t, s->first, s->n, o->tid, &pairs, &npairs);
	for (i = 0; !err && i < npairs; i++) {
		struct profile_entry e = {.tid = pairs[i].tid, .count = pairs[i].count};
		const char *tname = top_tap__thread_name(t, pairs[i].tid);

		s->samples += pairs[i].count;
		e.pid = top_tap__thread_pid(t, pairs[i].tid);
		err = stack_of(s, t, names, &memo, pairs[i].node, &e.stack);
		if (!err && o->threads)
			err = profile__intern(&s->prof, tname, strlen(tname), &e.thread);
		if (!err)
			err = profile__add(&s->prof, &e);
	}
	free(pairs);
	keymap__release(&memo);
	if (!err && o->filter && profile_filter__active(o->filter))
		err = profile__filter(&s->prof, o->filter);
	if (!err)
		err = thread_rows(s, t, freq);
	if (err)
		top_snapshot__release(s);
	return err;
}

void top_snapshot__release(struct top_snapshot *s)
{
	profile__release(&s->prof);
	free(s->threads);
	memset(s, 0, sizeof(*s));
}
