/* save.c: prof top's `s` key: the window shown, written as a recording
 * that prof report, prof svg and the others read (docs/FORMAT.md). The
 * names are the view's: each distinct name is one frame (no address: the
 * live names are final) with a symbol record naming it, each profile
 * stack a chain of those frames, each (thread, stack) count that many
 * samples at the window's start. Threads keep their names and tids. */
#include "top-internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/rec-writer.h"

static int write_meta(struct rec_writer *w, uint64_t freq, uint64_t start_ns)
{
	struct rec_event_desc ev = {.type = 1 /* software */, .config = 0 /* cpu-clock */};
	char buf[32];
	uint32_t id;
	int err;

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)freq);
	err = rec_writer__meta(w, "command", "top");
	if (!err)
		err = rec_writer__meta(w, "clock", "CLOCK_MONOTONIC");
	if (!err)
		err = rec_writer__meta(w, "event", "cpu-clock");
	if (!err)
		err = rec_writer__meta(w, "frequency", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)start_ns);
	if (!err)
		err = rec_writer__meta(w, "start-monotonic-ns", buf);
	if (!err)
		err = rec_writer__meta(w, "symbolized", "yes");
	ev.freq = freq;
	if (!err)
		err = rec_writer__string(w, "cpu-clock", 9, &ev.name);
	if (!err)
		err = rec_writer__event(w, &ev, &id);
	return err;
}

/* The frame of profile name `name`: made (with its symbol) the first time. */
static int frame_of(struct rec_writer *w, const struct profile *p, uint32_t name, uint32_t *frame)
{
	struct rec_symbol sym = {0};
	const char *s = profile__name(p, name);
	int err;

	/* A name's frame: address = its id + 1 in a space of its own (pid 0,
	 * no mapping), so that each name is one frame. */
	if (rec_writer__frame_lookup(w, 0, (uint64_t)name + 1, 0, frame))
		return 0;
	err = rec_writer__frame(w, 0, (uint64_t)name + 1, 0, REC_NO_MAPPING, frame);
	if (!err)
		err = rec_writer__string(w, s, strlen(s), &sym.name);
	sym.frame = *frame;
	if (!err)
		err = rec_writer__symbol(w, &sym);
	return err;
}

int top_save(const char *path, struct top_tap *t, const struct top_snapshot *s, uint64_t freq)
{
	const struct profile *p = &s->prof;
	uint64_t start = t->win.start_ns + s->first * t->win.interval_ns;
	struct rec_writer *w = rec_writer__open(path);
	struct keymap named;
	size_t i;
	int err;

	if (!w)
		return -errno;
	err = keymap__init(&named, 64);
	if (!err)
		err = write_meta(w, freq, start);
	for (i = 0; !err && i < p->nentries; i++) {
		const struct profile_entry *e = &p->entries[i];
		const uint32_t *names = profile__stack_frames(p, e->stack);
		uint32_t node = 0, frame, tname;
		const char *tn = top_tap__thread_name(t, e->tid);

		if (keymap__put(&named, e->tid, 0, 1, NULL) == 1) {
			err = rec_writer__string(w, tn, strlen(tn), &tname);
			if (!err)
				err = rec_writer__thread(w, REC_THREAD_START, start, e->pid, e->tid, tname);
		}
		for (uint32_t k = 0; !err && k < p->stacks[e->stack].depth; k++) {
			err = frame_of(w, p, names[k], &frame);
			if (!err)
				err = rec_writer__stack(w, node, frame, &node);
		}
		for (uint64_t c = 0; !err && c < e->count; c++)
			err = rec_writer__sample(w, start, e->tid, node, 0, 0, 0);
	}
	keymap__release(&named);
	if (!err)
		err = rec_writer__stat(w, "samples", s->prof.total);
	if (err) {
		rec_writer__discard(w);
		return err;
	}
	return rec_writer__close(w);
}
