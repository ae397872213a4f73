/* flight-ring.c: the flight recorder's ring (flight.h): a sink that keeps
 * samples and scheduler records in one-second buckets, the bucket of
 * second n reused for second n + nbuckets, and the threads' names. On the
 * recorder's hot path: no syscalls, no stdio; a bucket's arrays grow
 * geometrically and are kept, under FLIGHT_MAX_BYTES in all. */
#include "flight.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int fail(struct flight *fl, int err)
{
	if (err && !fl->err)
		fl->err = err;
	return err;
}

/* The bucket for `time`, made current (cleared) when it is a newer second
 * than the one it holds; NULL when its second left the ring. */
static struct flight_bucket *bucket_of(struct flight *fl, uint64_t time)
{
	uint64_t idx = time > fl->start_ns ? (time - fl->start_ns) / FLIGHT_BUCKET_NS : 0;
	struct flight_bucket *b = &fl->buckets[idx % fl->nbuckets];

	if (idx > fl->cur)
		fl->cur = idx;
	if (b->index == idx)
		return b;
	if ((b->index != UINT64_MAX && idx < b->index) || idx + fl->nbuckets <= fl->cur)
		return NULL; /* its second left the ring */
	b->index = idx;
	b->nsamples = b->nsched = 0;
	return b;
}

/* Appends r to one of b's arrays, within the memory cap. */
static int put(struct flight *fl, struct flight_rec **a, size_t *n, size_t *cap,
	       const struct flight_rec *r)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		uint64_t more = (uint64_t)(ncap - *cap) * sizeof(**a);
		struct flight_rec *p;

		if (fl->bytes + more > FLIGHT_MAX_BYTES) {
			fl->dropped++;
			return 0;
		}
		p = realloc(*a, ncap * sizeof(**a));
		if (!p)
			return fail(fl, -ENOMEM);
		*a = p;
		*cap = ncap;
		fl->bytes += more;
	}
	(*a)[(*n)++] = *r;
	return 0;
}

static int add(struct flight *fl, int sched, uint64_t time, const struct flight_rec *r0)
{
	struct flight_bucket *b = bucket_of(fl, time);
	struct flight_rec r = *r0;

	if (!b) {
		fl->dropped++;
		return 0;
	}
	r.dt = (uint32_t)(time - (fl->start_ns + b->index * FLIGHT_BUCKET_NS));
	if (time < fl->start_ns)
		r.dt = 0;
	return sched ? put(fl, &b->sched, &b->nsched, &b->sched_cap, &r)
		     : put(fl, &b->samples, &b->nsamples, &b->samples_cap, &r);
}

static int f_string(void *ctx, const char *s, size_t len, uint32_t *id)
{
	(void)ctx;
	(void)s;
	(void)len;
	(void)id;
	return 0; /* the writer holds them */
}

static int f_thread(void *ctx, uint32_t kind, uint64_t time, uint32_t pid, uint32_t tid,
		    uint32_t name)
{
	struct flight *fl = ctx;
	struct flight_thread *t;
	uint32_t i;
	int r;

	if (fl->nthreads >= FLIGHT_MAX_THREADS && !keymap__get(&fl->thread_index, tid, 0, &i))
		return 0;
	r = keymap__put(&fl->thread_index, tid, 0, (uint32_t)fl->nthreads, &i);
	if (r < 0)
		return fail(fl, -ENOMEM);
	if (r == 1) {
		struct flight_thread *p = fl->threads;

		if (fl->nthreads == fl->threads_cap) {
			size_t ncap = fl->threads_cap ? fl->threads_cap * 2 : 64;

			p = realloc(fl->threads, ncap * sizeof(*p));
			if (!p)
				return fail(fl, -ENOMEM);
			fl->threads = p;
			fl->threads_cap = ncap;
		}
		i = (uint32_t)fl->nthreads++;
		fl->threads[i] = (struct flight_thread){.pid = pid, .tid = tid, .time = time};
	}
	t = &fl->threads[i];
	if (kind == REC_THREAD_EXIT) {
		t->exit = time ? time : 1;
		return 0;
	}
	t->exit = 0; /* a tid used again */
	t->pid = pid;
	/* A COMM can come before its FORK (another CPU's ring): the latest
	 * name by time wins, as readers order them. */
	if (name && time >= t->time) {
		t->time = time;
		t->name = name;
	}
	return 0;
}

static int f_mapping(void *ctx, const struct rec_mapping *m, uint32_t *id)
{
	(void)ctx;
	(void)m;
	(void)id;
	return 0;
}

static int f_frame(void *ctx, uint32_t pid, uint64_t addr, uint32_t flags, uint32_t mapping,
		   uint32_t *id)
{
	(void)ctx;
	(void)pid;
	(void)addr;
	(void)flags;
	(void)mapping;
	(void)id;
	return 0;
}

static void f_frame_set_mapping(void *ctx, uint32_t id, uint32_t mapping)
{
	(void)ctx;
	(void)id;
	(void)mapping;
}

static int f_stack(void *ctx, uint32_t parent, uint32_t frame, uint32_t *id)
{
	(void)ctx;
	(void)parent;
	(void)frame;
	(void)id;
	return 0;
}

static int f_sample(void *ctx, uint64_t time, uint32_t tid, uint32_t stack, uint16_t cpu,
		    uint8_t event, uint8_t flags)
{
	struct flight_rec r = {.tid = tid, .arg = stack, .cpu = cpu, .x = event, .y = flags};

	return add(ctx, 0, time, &r);
}

static int f_sched(void *ctx, uint64_t time, uint32_t tid, uint32_t arg, uint16_t cpu,
		   uint8_t kind, uint8_t state)
{
	struct flight_rec r = {.tid = tid, .arg = arg, .cpu = cpu, .x = kind, .y = state};

	return add(ctx, 1, time, &r);
}

static int f_stat(void *ctx, const char *key, uint64_t value)
{
	(void)ctx;
	(void)key;
	(void)value;
	return 0;
}

static const struct rec_sink_ops flight_ops = {
	.string = f_string,
	.thread = f_thread,
	.mapping = f_mapping,
	.frame = f_frame,
	.frame_set_mapping = f_frame_set_mapping,
	.stack = f_stack,
	.sample = f_sample,
	.sched = f_sched,
	.stat = f_stat,
};

int flight__init(struct flight *fl, uint64_t start_ns, uint64_t ring_ns)
{
	memset(fl, 0, sizeof(*fl));
	fl->sink = (struct rec_sink){.ops = &flight_ops, .ctx = fl};
	fl->start_ns = start_ns;
	fl->ring_ns = ring_ns;
	/* the ring's seconds, the one being filled, and one for records
	 * drained late */
	fl->nbuckets = (size_t)((ring_ns + FLIGHT_BUCKET_NS - 1) / FLIGHT_BUCKET_NS) + 2;
	fl->buckets = calloc(fl->nbuckets, sizeof(*fl->buckets));
	if (!fl->buckets || keymap__init(&fl->thread_index, 64))
		return -ENOMEM;
	for (size_t i = 0; i < fl->nbuckets; i++)
		fl->buckets[i].index = UINT64_MAX; /* empty */
	return 0;
}

void flight__release(struct flight *fl)
{
	for (size_t i = 0; fl->buckets && i < fl->nbuckets; i++) {
		free(fl->buckets[i].samples);
		free(fl->buckets[i].sched);
	}
	free(fl->buckets);
	free(fl->threads);
	keymap__release(&fl->thread_index);
	memset(fl, 0, sizeof(*fl));
}

int flight__each(const struct flight *fl, uint64_t from, uint64_t to, flight_rec_fn fn, void *ctx)
{
	uint64_t first = fl->cur + 1 >= fl->nbuckets ? fl->cur + 1 - fl->nbuckets : 0;

	for (uint64_t idx = first; idx <= fl->cur; idx++) {
		const struct flight_bucket *b = &fl->buckets[idx % fl->nbuckets];
		uint64_t base = fl->start_ns + idx * FLIGHT_BUCKET_NS;
		int err;

		if (b->index != idx || base + FLIGHT_BUCKET_NS <= from || base >= to)
			continue;
		for (int sched = 0; sched < 2; sched++) {
			const struct flight_rec *a = sched ? b->sched : b->samples;
			size_t n = sched ? b->nsched : b->nsamples;

			for (size_t i = 0; i < n; i++) {
				uint64_t t = base + a[i].dt;

				if (t >= from && t < to && (err = fn(ctx, sched, t, &a[i])))
					return err;
			}
		}
	}
	return 0;
}
