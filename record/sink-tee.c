/* sink-tee.c: one stream of decoded records into two sinks, the second
 * following the first's ids (sink.h). prof top puts its window aggregate
 * behind the recording writer this way. */
#include "sink.h"

#define FIRST(ctx) (((struct rec_sink_tee *)(ctx))->first)
#define SECOND(ctx) (((struct rec_sink_tee *)(ctx))->second)

/* The second's error counts only when the first had none. */
#define BOTH(ctx, op, ...)                                                          \
	do {                                                                        \
		int err_ = FIRST(ctx)->ops->op(FIRST(ctx)->ctx, __VA_ARGS__);       \
		if (err_)                                                           \
			return err_;                                                \
		return SECOND(ctx)->ops->op(SECOND(ctx)->ctx, __VA_ARGS__);         \
	} while (0)

static int t_string(void *ctx, const char *s, size_t len, uint32_t *id)
{
	BOTH(ctx, string, s, len, id);
}

static int t_thread(void *ctx, uint32_t kind, uint64_t time, uint32_t pid, uint32_t tid,
		    uint32_t name)
{
	BOTH(ctx, thread, kind, time, pid, tid, name);
}

static int t_mapping(void *ctx, const struct rec_mapping *m, uint32_t *id)
{
	BOTH(ctx, mapping, m, id);
}

static int t_frame_lookup(void *ctx, uint32_t pid, uint64_t addr, uint32_t flags, uint32_t *id)
{
	return FIRST(ctx)->ops->frame_lookup(FIRST(ctx)->ctx, pid, addr, flags, id);
}

static int t_frame(void *ctx, uint32_t pid, uint64_t addr, uint32_t flags, uint32_t mapping,
		   uint32_t *id)
{
	BOTH(ctx, frame, pid, addr, flags, mapping, id);
}

static void t_frame_set_mapping(void *ctx, uint32_t id, uint32_t mapping)
{
	FIRST(ctx)->ops->frame_set_mapping(FIRST(ctx)->ctx, id, mapping);
	SECOND(ctx)->ops->frame_set_mapping(SECOND(ctx)->ctx, id, mapping);
}

static int t_stack(void *ctx, uint32_t parent, uint32_t frame, uint32_t *id)
{
	BOTH(ctx, stack, parent, frame, id);
}

static int t_sample(void *ctx, uint64_t time, uint32_t tid, uint32_t stack, uint16_t cpu,
		    uint8_t event, uint8_t flags)
{
	BOTH(ctx, sample, time, tid, stack, cpu, event, flags);
}

static int t_sched(void *ctx, uint64_t time, uint32_t tid, uint32_t arg, uint16_t cpu,
		   uint8_t kind, uint8_t state)
{
	BOTH(ctx, sched, time, tid, arg, cpu, kind, state);
}

static int t_stat(void *ctx, const char *key, uint64_t value)
{
	BOTH(ctx, stat, key, value);
}

/* The second forgets too when the first could not: its ids follow. */
static int t_forget_stacks(void *ctx)
{
	int err = FIRST(ctx)->ops->forget_stacks(FIRST(ctx)->ctx);
	int err2 = SECOND(ctx)->ops->forget_stacks(SECOND(ctx)->ctx);

	return err ? err : err2;
}

static const struct rec_sink_ops tee_ops = {
	.string = t_string,
	.thread = t_thread,
	.mapping = t_mapping,
	.frame_lookup = t_frame_lookup,
	.frame = t_frame,
	.frame_set_mapping = t_frame_set_mapping,
	.stack = t_stack,
	.sample = t_sample,
	.sched = t_sched,
	.stat = t_stat,
	.forget_stacks = t_forget_stacks,
};

void rec_sink_tee__init(struct rec_sink_tee *tee, const struct rec_sink *first,
			const struct rec_sink *second)
{
	tee->sink = (struct rec_sink){.ops = &tee_ops, .ctx = tee};
	tee->first = first;
	tee->second = second;
}
