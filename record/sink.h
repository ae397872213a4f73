/* sink.h: where decoding puts what it makes of the kernel's records
 * (record/decode.c, record/stack-intern.c, and the scheduler records of
 * sched-decode.c, sched-events.c, sched-snapshot.c): interned strings,
 * thread starts, names and exits, mappings, frames, stack nodes, samples,
 * scheduler records and counters.
 * The recording writer is the first sink (sink-writer.c); a tee
 * (sink-tee.c) hands the same stream to a second one, such as prof top's
 * rolling-window aggregate (top/), which follows the first's ids.
 *
 * Part of record/'s public interface (with record.h): record_opts.tap is a
 * struct rec_sink.
 *
 * Ops return 0 or -errno; those that intern something put its id in *id.
 * A sink that follows another (a tee's second) is given the first's id in
 * *id and must keep it (ids are the writer's: dense, from 0 for strings and
 * mappings and frames, from 1 for stack nodes). Ops never block; they are
 * on the hot path: no syscalls, no stdio, no allocation in steady state. */
#ifndef PROF_RECORD_SINK_H
#define PROF_RECORD_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "lib/recfile.h"

struct rec_sink_ops {
	int (*string)(void *ctx, const char *s, size_t len, uint32_t *id);
	/* kind: REC_THREAD_START, _NAME, _EXIT; name: a string id (0: none) */
	int (*thread)(void *ctx, uint32_t kind, uint64_t time, uint32_t pid, uint32_t tid,
		      uint32_t name);
	int (*mapping)(void *ctx, const struct rec_mapping *m, uint32_t *id);
	/* Finds an interned frame: 1 (id in *id) or 0. A follower is never
	 * asked (NULL there). */
	int (*frame_lookup)(void *ctx, uint32_t pid, uint64_t addr, uint32_t flags, uint32_t *id);
	int (*frame)(void *ctx, uint32_t pid, uint64_t addr, uint32_t flags, uint32_t mapping,
		     uint32_t *id);
	/* A frame's mapping, learnt after it was interned. */
	void (*frame_set_mapping)(void *ctx, uint32_t id, uint32_t mapping);
	/* Stack node (parent, frame): the stack `parent` extended by a callee. */
	int (*stack)(void *ctx, uint32_t parent, uint32_t frame, uint32_t *id);
	/* One sample of stack `stack` (a node id) on thread tid at `time`
	 * (CLOCK_MONOTONIC ns), of event `event` (0: the CPU one), weighing one
	 * period of its event. */
	int (*sample)(void *ctx, uint64_t time, uint32_t tid, uint32_t stack, uint16_t cpu,
		      uint8_t event, uint8_t flags);
	/* A scheduler record (struct rec_sched without dt; time in ns):
	 * kind REC_SCHED_OUT, _IN, _WAKE, _INIT, _TASK (recfile.h). */
	int (*sched)(void *ctx, uint64_t time, uint32_t tid, uint32_t arg, uint16_t cpu,
		     uint8_t kind, uint8_t state);
	int (*stat)(void *ctx, const char *key, uint64_t value);
	/* Every frame and stack node is forgotten: later ids start again
	 * (rec_writer__forget_stacks; prof top's memory bound). */
	int (*forget_stacks)(void *ctx);
};

struct rec_sink {
	const struct rec_sink_ops *ops;
	void *ctx;
};

/* The recording writer as a sink: ctx is where the recorder keeps its
 * writer (a struct rec_writer **), read at each call, so the sink can be
 * made before the writer is. */
struct rec_writer;
struct rec_sink rec_sink__writer(struct rec_writer **w);

/* A sink that calls `first`, then `second` with the ids `first` gave (an
 * error of `second` is returned only when `first` succeeded). Both stay
 * the caller's; tee must outlive its use. */
struct rec_sink_tee {
	struct rec_sink sink;
	const struct rec_sink *first, *second;
};
void rec_sink_tee__init(struct rec_sink_tee *tee, const struct rec_sink *first,
			const struct rec_sink *second);

/* Calls through a sink, for readability at the call sites. */
static inline int rec_sink__string(const struct rec_sink *s, const char *str, size_t len,
				   uint32_t *id)
{
	return s->ops->string(s->ctx, str, len, id);
}

static inline int rec_sink__thread(const struct rec_sink *s, uint32_t kind, uint64_t time,
				   uint32_t pid, uint32_t tid, uint32_t name)
{
	return s->ops->thread(s->ctx, kind, time, pid, tid, name);
}

static inline int rec_sink__mapping(const struct rec_sink *s, const struct rec_mapping *m,
				    uint32_t *id)
{
	return s->ops->mapping(s->ctx, m, id);
}

static inline int rec_sink__frame_lookup(const struct rec_sink *s, uint32_t pid, uint64_t addr,
					 uint32_t flags, uint32_t *id)
{
	return s->ops->frame_lookup(s->ctx, pid, addr, flags, id);
}

static inline int rec_sink__frame(const struct rec_sink *s, uint32_t pid, uint64_t addr,
				  uint32_t flags, uint32_t mapping, uint32_t *id)
{
	return s->ops->frame(s->ctx, pid, addr, flags, mapping, id);
}

static inline void rec_sink__frame_set_mapping(const struct rec_sink *s, uint32_t id,
					       uint32_t mapping)
{
	s->ops->frame_set_mapping(s->ctx, id, mapping);
}

static inline int rec_sink__stack(const struct rec_sink *s, uint32_t parent, uint32_t frame,
				  uint32_t *id)
{
	return s->ops->stack(s->ctx, parent, frame, id);
}

static inline int rec_sink__sample(const struct rec_sink *s, uint64_t time, uint32_t tid,
				   uint32_t stack, uint16_t cpu, uint8_t event, uint8_t flags)
{
	return s->ops->sample(s->ctx, time, tid, stack, cpu, event, flags);
}

static inline int rec_sink__sched(const struct rec_sink *s, uint64_t time, uint32_t tid,
				  uint32_t arg, uint16_t cpu, uint8_t kind, uint8_t state)
{
	return s->ops->sched(s->ctx, time, tid, arg, cpu, kind, state);
}

static inline int rec_sink__forget_stacks(const struct rec_sink *s)
{
	return s->ops->forget_stacks(s->ctx);
}

#endif
