/* sink-writer.c: the recording writer (lib/rec-writer.h) as a struct
 * rec_sink: each op is the writer's function of the same name. */
#include "sink.h"

#include "lib/rec-writer.h"

static struct rec_writer *writer(void *ctx)
{
	return *(struct rec_writer **)ctx;
}

static int w_string(void *ctx, const char *s, size_t len, uint32_t *id)
{
	return rec_writer__string(writer(ctx), s, len, id);
}

static int w_thread(void *ctx, uint32_t kind, uint64_t time, uint32_t pid, uint32_t tid,
		    uint32_t name)
{
	return rec_writer__thread(writer(ctx), kind, time, pid, tid, name);
}

static int w_mapping(void *ctx, const struct rec_mapping *m, uint32_t *id)
{
	return rec_writer__mapping(writer(ctx), m, id);
}

static int w_frame_lookup(void *ctx, uint32_t pid, uint64_t addr, uint32_t flags, uint32_t *id)
{
	return rec_writer__frame_lookup(writer(ctx), pid, addr, flags, id);
}

static int w_frame(void *ctx, uint32_t pid, uint64_t addr, uint32_t flags, uint32_t mapping,
		   uint32_t *id)
{
	return rec_writer__frame(writer(ctx), pid, addr, flags, mapping, id);
}

static void w_frame_set_mapping(void *ctx, uint32_t id, uint32_t mapping)
{
	rec_writer__frame_set_mapping(writer(ctx), id, mapping);
}

static int w_stack(void *ctx, uint32_t parent, uint32_t frame, uint32_t *id)
{
	return rec_writer__stack(writer(ctx), parent, frame, id);
}

static int w_sample(void *ctx, uint64_t time, uint32_t tid, uint32_t stack, uint16_t cpu,
		    uint8_t event, uint8_t flags)
{
	return rec_writer__sample(writer(ctx), time, tid, stack, cpu, event, flags);
}

static int w_sched(void *ctx, uint64_t time, uint32_t tid, uint32_t arg, uint16_t cpu,
		   uint8_t kind, uint8_t state)
{
	return rec_writer__sched(writer(ctx), time, tid, arg, cpu, kind, state);
}

static int w_stat(void *ctx, const char *key, uint64_t value)
{
	return rec_writer__stat(writer(ctx), key, value);
}

static int w_forget_stacks(void *ctx)
{
	return rec_writer__forget_stacks(writer(ctx));
}

static const struct rec_sink_ops writer_ops = {
	.string = w_string,
	.thread = w_thread,
	.mapping = w_mapping,
	.frame_lookup = w_frame_lookup,
	.frame = w_frame,
	.frame_set_mapping = w_frame_set_mapping,
	.stack = w_stack,
	.sample = w_sample,
	.sched = w_sched,
	.stat = w_stat,
	.forget_stacks = w_forget_stacks,
};

struct rec_sink rec_sink__writer(struct rec_writer **w)
{
	return (struct rec_sink){.ops = &writer_ops, .ctx = w};
}
