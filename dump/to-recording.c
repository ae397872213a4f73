/* to-recording.c: the captures of a dump become a recording, as `prof
 * record` writes one: each thread of each snapshot is one sample (event
 * "snapshot") whose stack is its kernel frames (from /proc, root only)
 * over its user frames (unwound here with the binaries' CFI, frame
 * pointers where there is none), its state a REC_SCHED_INIT record, its
 * name a thread event; at the end the frames are symbolized (JIT maps
 * included) as `prof record` does. Runs after the threads are let go. */
#include "dump/dump.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/recfile.h"
#include "lib/strtab.h"
#include "symbolize/symbolize.h"

#define DUMP_MAX_FRAMES 1024

static int find_map(void *ctx, uint32_t pid, uint64_t addr, struct unwind_map *um);

static int map_id(struct dump_rec *d, pid_t pid, const struct dump_map *m, uint32_t *id)
{
	uint64_t b = ((uint64_t)(uint32_t)pid << 32) ^ hash_bytes(m->path, strlen(m->path)) ^
		     m->end * 31 ^ m->pgoff;
	struct rec_mapping rm = {.start = m->start, .end = m->end, .pgoff = m->pgoff,
				 .pid = (uint32_t)pid};
	int err;

	if (keymap__get(&d->mapids, m->start, b, id))
		return 0;
	err = rec_writer__string(d->w, m->path, strlen(m->path), &rm.path);
	if (!err)
		err = rec_writer__mapping(d->w, &rm, id);
	if (!err)
		err = keymap__set(&d->mapids, m->start, b, *id);
	return err;
}

static int find_map(void *ctx, uint32_t pid, uint64_t addr, struct unwind_map *um)
{
	struct dump_rec *d = ctx;
	const struct dump_map *m = dump_maps__find(d->maps, (pid_t)pid, addr);

	if (!m || !m->path[0] || m->perms[2] != 'x')
		return 0;
	um->path = m->path;
	um->start = m->start, um->end = m->end, um->pgoff = m->pgoff;
	if (map_id(d, (pid_t)pid, m, &um->id))
		um->id = REC_NO_MAPPING;
	return 1;
}

int dump_rec__open(struct dump_rec *d, const char *path)
{
	struct unwind_opts uo = {.find_map = find_map, .ctx = d, .map_generation = &d->generation};
	struct rec_event_desc ev = {.type = 1 /* software */, .config = 9 /* dummy */};
	uint32_t id;
	int err;

	memset(d, 0, sizeof(*d));
	d->pcs = malloc(DUMP_MAX_FRAMES * sizeof(*d->pcs));
	d->u = unwinder__new(&uo);
	if (!d->pcs || !d->u || keymap__init(&d->mapids, 256) || keymap__init(&d->named, 64)) {
		dump_rec__discard(d);
		return -ENOMEM;
	}
	d->w = rec_writer__open(path);
	if (!d->w) {
		err = -errno;
		dump_rec__discard(d);
		return err;
	}
	err = rec_writer__meta(d->w, "command", "dump");
	if (!err)
		err = rec_writer__string(d->w, "snapshot", 8, &ev.name);
	if (!err)
		err = rec_writer__event(d->w, &ev, &id);
	d->event = (uint8_t)id;
	return err;
}

void dump_rec__discard(struct dump_rec *d)
{
	if (d->w)
		rec_writer__discard(d->w);
	if (d->u)
		unwinder__free(d->u);
	keymap__release(&d->mapids);
	keymap__release(&d->named);
	free(d->pcs);
	dump_kernel_names__release(&d->knames);
	memset(d, 0, sizeof(*d));
}

static uint8_t rec_state(char s)
{
	switch (s) {
	case 'R': return REC_STATE_RUNNING;
	case 'S': return REC_STATE_SLEEPING;
	case 'D': return REC_STATE_DISK;
	case 'T': case 't': return REC_STATE_STOPPED;
	case 'Z': case 'X': return REC_STATE_DEAD;
	case 'I': case 'P': return REC_STATE_IDLE;
	default: return REC_STATE_OTHER;
	}
}

static int name_thread(struct dump_rec *d, const struct dump_thread *t)
{
	uint32_t name, last;
	int err = rec_writer__string(d->w, t->comm, strlen(t->comm), &name);

	if (err || (keymap__get(&d->named, (uint64_t)t->tid, 0, &last) && last == name))
		return err;
	err = rec_writer__thread(d->w, REC_THREAD_START, t->time, (uint32_t)t->pid,
				 (uint32_t)t->tid, name);
	return err ? err : keymap__set(&d->named, (uint64_t)t->tid, 0, name);
}

/* One frame interned on top of *parent. */
static int push(struct dump_rec *d, const struct dump_thread *t, uint64_t addr, uint32_t flags,
		uint32_t *parent)
{
	uint32_t space = (flags & REC_FRAME_KERNEL) ? 0 : (uint32_t)t->pid, frame, mapping;
	int err = 0;

	if (!rec_writer__frame_lookup(d->w, space, addr, flags, &frame)) {
		const struct dump_map *m = space ? dump_maps__find(d->maps, t->pid, addr) : NULL;

		mapping = REC_NO_MAPPING;
		if (m && m->path[0] && map_id(d, t->pid, m, &mapping))
			mapping = REC_NO_MAPPING;
		err = rec_writer__frame(d->w, space, addr, flags, mapping, &frame);
	}
	return err ? err : rec_writer__stack(d->w, *parent, frame, parent);
}

int dump_rec__add(struct dump_rec *d, const struct dump_thread *t)
{
	struct unwind_regs regs = {.valid = (1u << UNWIND_NREGS) - 1};
	struct unwind_stack stack = {.start = t->stack_start, .data = t->stack,
				     .size = t->stack_len, .cut = t->stack_cut};
	uint32_t node = 0;
	size_t n = 0;
	int err = name_thread(d, t);

	if (!err)
		err = rec_writer__sched(d->w, t->time, (uint32_t)t->tid, 0, 0, REC_SCHED_INIT,
					rec_state(t->state));
	if (t->captured) {
		enum unwind_status st;

		memcpy(regs.r, t->regs, sizeof(regs.r));
		st = unwinder__unwind(d->u, (uint32_t)t->pid, &regs, &stack, d->pcs,
				      DUMP_MAX_FRAMES, &n);
		d->unwound[st]++;
	}
	/* user frames root first: the outermost pc is last */
	for (size_t i = n; i-- > 0 && !err;)
		err = push(d, t, i ? d->pcs[i] - 1 : d->pcs[i], i ? REC_FRAME_CALLER : 0, &node);
	for (size_t i = t->nkframes; i-- > 0 && !err;) {
		uint64_t a = dump_kernel_names__addr(&d->knames, t->kframes[i]);

		if (a)
			err = push(d, t, a - 1, REC_FRAME_KERNEL | REC_FRAME_CALLER, &node);
	}
	if (!err)
		err = rec_writer__sample(d->w, t->time, (uint32_t)t->tid, node, 0, d->event, 0);
	return err;
}

void dump_rec__new_maps(struct dump_rec *d, const struct dump_maps *maps)
{
	d->maps = maps;
	d->generation++;
}

int dump_rec__close(struct dump_rec *d, int symbolize, struct symbolize_stats *ss)
{
	int err = rec_writer__flush(d->w);
	char buf[32];

	if (!err && symbolize)
		err = symbolize_recording(d->w, NULL, ss);
	for (int i = 0; i < UNWIND_NSTATUS && !err; i++) {
		char key[64];

		snprintf(key, sizeof(key), "unwind-%s", unwind_status_name((enum unwind_status)i));
		err = rec_writer__stat(d->w, key, d->unwound[i]);
	}
	snprintf(buf, sizeof(buf), "%s", symbolize ? "yes" : "no");
	if (!err)
		err = rec_writer__meta(d->w, "symbolized", buf);
	{
		int cerr = rec_writer__close(d->w);

		d->w = NULL;
		if (!err)
			err = cerr;
	}
	dump_rec__discard(d);
	return err;
}
