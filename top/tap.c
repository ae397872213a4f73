/* tap.c: prof top's sink (record/sink.h), behind the recording writer in a
 * tee: mirrors what the writer interns, by its ids, and counts each sample
 * into the rolling window. On the recorder's hot path: no syscalls, no
 * stdio; arrays grow geometrically and are kept. An allocation failure is
 * kept in t->err and returned: the recording (and prof top) stops. */
#include "top-internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

#define SCHED_EXIT 0xff            /* a thread's exit, queued with its records */
#define SCHED_QUEUE_MAX (1u << 20) /* records kept for sorting; past it, applied now */

static void sched_queue(struct top_tap *t, uint64_t time, uint32_t tid, uint8_t kind,
			uint8_t state);

static int fail(struct top_tap *t, int err)
{
	if (err && !t->err)
		t->err = err;
	return err;
}

static int tap_string(void *ctx, const char *s, size_t len, uint32_t *id)
{
	struct top_tap *t = ctx;
	uint32_t mine;

	if (*id < t->nstr_ids) {
		/* interned before: the writer gave an old id, perhaps of a
		 * string it was given by another path than the sink */
		if (t->str_ids[*id] || !len)
			return 0;
		if (strtab__intern(&t->strs, s, len, &mine))
			return fail(t, -ENOMEM);
		t->str_ids[*id] = mine;
		return 0;
	}
	if (GROW(t->str_ids, t->str_ids_cap, (size_t)*id + 1) ||
	    strtab__intern(&t->strs, s, len, &mine))
		return fail(t, -ENOMEM);
	while (t->nstr_ids < *id)
		t->str_ids[t->nstr_ids++] = 0;
	t->str_ids[t->nstr_ids++] = mine;
	return 0;
}

static uint32_t str_of(const struct top_tap *t, uint32_t writer_id)
{
	return writer_id < t->nstr_ids ? t->str_ids[writer_id] : 0;
}

static int tap_thread(void *ctx, uint32_t kind, uint64_t time, uint32_t pid, uint32_t tid,
		      uint32_t name)
{
	struct top_tap *t = ctx;

	if (kind == REC_THREAD_EXIT) {
		/* its counts stay until they leave the window; its time ends */
		if (t->nsched)
			sched_queue(t, time, tid, SCHED_EXIT, 0);
		return t->err;
	}
	/* Each CPU's ring is read in turn: a new thread's name (COMM) can come
	 * before its start (FORK, with its creator's name). The latest by
	 * time wins, as readers of a recording order them. */
	{
		uint32_t i;
		int r = keymap__put(&t->thread_name, tid, 0, (uint32_t)t->nthreads, &i);

		if (r < 0 || (r == 1 && GROW(t->threads, t->threads_cap, t->nthreads + 1)))
			return fail(t, -ENOMEM);
		if (r == 1)
			t->threads[i = (uint32_t)t->nthreads++] = (struct tap_thread){.time = time};
		if (time >= t->threads[i].time) {
			t->threads[i].time = time;
			t->threads[i].name = str_of(t, name);
		}
	}
	if (keymap__set(&t->thread_pid, tid, 0, pid))
		return fail(t, -ENOMEM);
	return 0;
}

static int tap_mapping(void *ctx, const struct rec_mapping *m, uint32_t *id)
{
	struct top_tap *t = ctx;

	if (GROW(t->maps, t->maps_cap, (size_t)*id + 1))
		return fail(t, -ENOMEM);
	while (t->nmaps <= *id)
		memset(&t->maps[t->nmaps++], 0, sizeof(*t->maps));
	t->maps[*id] = *m;
	t->maps[*id].path = str_of(t, m->path);
	return 0;
}

static int tap_frame(void *ctx, uint32_t pid, uint64_t addr, uint32_t flags, uint32_t mapping,
		     uint32_t *id)
{
	struct top_tap *t = ctx;
	struct top_gen *g = &t->gen[t->cur];

	if (GROW(g->frames, g->frames_cap, (size_t)*id + 1))
		return fail(t, -ENOMEM);
	while (g->nframes <= *id)
		memset(&g->frames[g->nframes++], 0, sizeof(*g->frames));
	g->frames[*id] = (struct rec_frame){.addr = addr, .pid = pid, .mapping = mapping,
					    .flags = flags};
	return 0;
}

static void tap_frame_set_mapping(void *ctx, uint32_t id, uint32_t mapping)
{
	struct top_tap *t = ctx;
	struct top_gen *g = &t->gen[t->cur];

	if (id < g->nframes) {
		g->frames[id].mapping = mapping;
		if (id < g->frame_names_cap)
			g->frame_names[id] = 0; /* named again, by its binary */
	}
}

static int tap_stack(void *ctx, uint32_t parent, uint32_t frame, uint32_t *id)
{
	struct top_tap *t = ctx;
	struct top_gen *g = &t->gen[t->cur];

	if (GROW(g->nodes, g->nodes_cap, (size_t)*id + 1))
		return fail(t, -ENOMEM);
	while (g->nnodes <= *id)
		memset(&g->nodes[g->nnodes++], 0, sizeof(*g->nodes));
	g->nodes[*id] = (struct rec_stack_node){.parent = parent, .frame = frame};
	return 0;
}

static int tap_sample(void *ctx, uint64_t time, uint32_t tid, uint32_t stack, uint16_t cpu,
		      uint8_t event, uint8_t flags)
{
	struct top_tap *t = ctx;

	(void)cpu;
	(void)flags;
	if (event)
		return 0; /* only the CPU samples make the view */
	t->samples++;
	/* the generation in the id's top bit (ids past it: never, the writer
	 * forgets long before) */
	stack = stack >= TOP_GEN_BIT - 1 ? WINDOW_OVERFLOW_STACK
					 : stack | (t->cur ? TOP_GEN_BIT : 0);
	return fail(t, window__add(&t->win, time, tid, stack));
}

static void gen_release(struct top_gen *g)
{
	free(g->frames);
	free(g->frame_names);
	free(g->nodes);
	memset(g, 0, sizeof(*g));
}

/* The writer forgot its frames and stacks: later ids are of the other
 * generation, whose tables are emptied (run.c asks for this only once no
 * interval of the window counts its stacks any more). */
static int tap_forget_stacks(void *ctx)
{
	struct top_tap *t = ctx;

	t->cur = !t->cur;
	gen_release(&t->gen[t->cur]);
	t->forgets++;
	return 0;
}

/* The bucket a scheduler record puts its thread in (prof sched's rules,
 * report/sched.h: a switch-out while runnable waits for a CPU, so does a
 * woken thread; a wake-up of a running or runnable thread changes
 * nothing). */
static uint32_t bucket_after(uint32_t cur, uint8_t kind, uint8_t state)
{
	switch (kind) {
	case REC_SCHED_IN:
		return WINDOW_RUN;
	case REC_SCHED_WAKE:
		return cur == WINDOW_SLEEP || cur == WINDOW_IO ? WINDOW_WAIT : cur;
	case REC_SCHED_OUT:
	case REC_SCHED_INIT:
		switch (state) {
		case REC_STATE_RUNNING:
			return kind == REC_SCHED_INIT ? WINDOW_RUN : WINDOW_WAIT;
		case REC_STATE_PREEMPTED:
			return WINDOW_WAIT;
		case REC_STATE_SLEEPING:
			return WINDOW_SLEEP;
		case REC_STATE_DISK:
			return WINDOW_IO;
		default:
			return WINDOW_SCHED_NONE;
		}
	default:
		return cur;
	}
}


/* One record applied: the time since the last one counted in its bucket. */
static void sched_apply_one(struct top_tap *t, const struct tap_sched_rec *r)
{
	struct tap_sched *ts;
	uint32_t i;
	int k = keymap__put(&t->sched_index, r->tid, 0, (uint32_t)t->nsched, &i);

	if (k < 0 || (k == 1 && GROW(t->sched, t->sched_cap, t->nsched + 1))) {
		fail(t, -ENOMEM);
		return;
	}
	if (k == 1) {
		i = (uint32_t)t->nsched++;
		t->sched[i] = (struct tap_sched){.tid = r->tid, .bucket = WINDOW_SCHED_NONE,
						 .since = r->time};
	}
	ts = &t->sched[i];
	if (r->time > ts->since) { /* one older than the last: its state only */
		if (window__add_time(&t->win, ts->since, r->time, r->tid, ts->bucket))
			fail(t, -ENOMEM);
		ts->since = r->time;
	}
	ts->bucket = r->kind == SCHED_EXIT ? WINDOW_SCHED_NONE
					   : bucket_after(ts->bucket, r->kind, r->state);
}

static int cmp_sched(const void *a, const void *b)
{
	const struct tap_sched_rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The records queued since the last call, in time order: the rings of the
 * CPUs are drained one after the other, so a thread's switch-in on one CPU
 * can come before its switch-out on another (prof sched sorts them too). */
static void sched_apply(struct top_tap *t)
{
	if (t->nqueue > 1)
		qsort(t->queue, t->nqueue, sizeof(*t->queue), cmp_sched);
	for (size_t i = 0; i < t->nqueue; i++)
		sched_apply_one(t, &t->queue[i]);
	t->nqueue = 0;
}

static void sched_queue(struct top_tap *t, uint64_t time, uint32_t tid, uint8_t kind,
			uint8_t state)
{
	struct tap_sched_rec r = {.time = time, .tid = tid, .seq = (uint32_t)t->nqueue,
				  .kind = kind, .state = state};

	if (t->nqueue >= SCHED_QUEUE_MAX || GROW(t->queue, t->queue_cap, t->nqueue + 1)) {
		sched_apply(t);
		sched_apply_one(t, &r);
		return;
	}
	t->queue[t->nqueue++] = r;
}

static int tap_sched(void *ctx, uint64_t time, uint32_t tid, uint32_t arg, uint16_t cpu,
		     uint8_t kind, uint8_t state)
{
	struct top_tap *t = ctx;

	(void)arg;
	(void)cpu;
	if (kind != REC_SCHED_TASK && tid)
		sched_queue(t, time, tid, kind, state);
	return t->err;
}

void top_tap__sched_flush(struct top_tap *t, uint64_t now)
{
	sched_apply(t);
	for (size_t i = 0; now && i < t->nsched; i++) {
		struct tap_sched *ts = &t->sched[i];

		if (now <= ts->since)
			continue;
		if (window__add_time(&t->win, ts->since, now, ts->tid, ts->bucket))
			fail(t, -ENOMEM);
		ts->since = now;
	}
}

static int tap_stat(void *ctx, const char *key, uint64_t value)
{
	(void)ctx;
	(void)key;
	(void)value;
	return 0;
}

static const struct rec_sink_ops tap_ops = {
	.string = tap_string,
	.thread = tap_thread,
	.mapping = tap_mapping,
	.frame = tap_frame,
	.frame_set_mapping = tap_frame_set_mapping,
	.stack = tap_stack,
	.sample = tap_sample,
	.sched = tap_sched,
	.stat = tap_stat,
	.forget_stacks = tap_forget_stacks,
};

int top_tap__init(struct top_tap *t, uint64_t start_ns, uint64_t interval_ns)
{
	memset(t, 0, sizeof(*t));
	t->sink = (struct rec_sink){.ops = &tap_ops, .ctx = t};
	window__init(&t->win, start_ns, interval_ns);
	if (strtab__init(&t->strs) || keymap__init(&t->thread_name, 64) ||
	    keymap__init(&t->thread_pid, 64) || keymap__init(&t->sched_index, 64))
		return -ENOMEM;
	return 0;
}

void top_tap__release(struct top_tap *t)
{
	window__release(&t->win);
	strtab__release(&t->strs);
	free(t->str_ids);
	free(t->maps);
	gen_release(&t->gen[0]);
	gen_release(&t->gen[1]);
	keymap__release(&t->thread_name);
	keymap__release(&t->thread_pid);
	keymap__release(&t->sched_index);
	free(t->sched);
	free(t->queue);
	free(t->threads);
	memset(t, 0, sizeof(*t));
}

const char *top_tap__str(const struct top_tap *t, uint32_t strs_id)
{
	return strtab__str(&t->strs, strs_id);
}

const char *top_tap__thread_name(const struct top_tap *t, uint32_t tid)
{
	uint32_t i, id = 0;

	if (keymap__get(&t->thread_name, tid, 0, &i) && i < t->nthreads)
		id = t->threads[i].name;
	return id ? strtab__str(&t->strs, id) : "?";
}

uint32_t top_tap__thread_pid(const struct top_tap *t, uint32_t tid)
{
	uint32_t pid = 0;

	keymap__get(&t->thread_pid, tid, 0, &pid);
	return pid;
}
