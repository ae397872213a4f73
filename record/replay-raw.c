/* replay-raw.c: a recording whose recorder was killed while it deferred its
 * processing (defer.c) holds the kernel's records in RAW chunks. This makes
 * it an ordinary recording: what it defines (meta, events, threads,
 * mappings, stats) is copied into a new file, the RAW chunks are run
 * through the recorder's own decoder, and the result is symbolized with the
 * binaries of this machine, as the recorder would have done. */
#include "recorder.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/recording.h"
#include "symbolize/symbolize.h"

static int copy_defined(struct recorder *rec, const struct recording *in)
{
	size_t i;
	int err = 0;

	for (i = 0; i < in->nmeta && !err; i++)
		err = rec_writer__meta(rec->w, in->meta[i].key, in->meta[i].value);
	for (i = 0; i < in->nevents && !err; i++) {
		struct rec_event_desc ev = in->events[i];
		const char *name = recording__str(in, ev.name);
		uint32_t id;

		err = rec_writer__string(rec->w, name, strlen(name), &ev.name);
		if (!err)
			err = rec_writer__event(rec->w, &ev, &id);
	}
	for (i = 0; i < in->nthreads && !err; i++) {
		const struct rec_thread_event *t = &in->threads[i];
		const char *name = recording__str(in, t->name);
		uint32_t id = 0;

		if (t->kind == REC_THREAD_START) {
			err = recorder_thread_start(rec, t->time, t->pid, t->tid, name);
			continue;
		}
		if (t->kind != REC_THREAD_EXIT)
			err = rec_writer__string(rec->w, name, strlen(name), &id);
		if (!err && t->kind == REC_THREAD_NAME)
			err = keymap__set(&rec->names, t->tid, 0, id);
		if (!err)
			err = rec_writer__thread(rec->w, t->kind, t->time, t->pid, t->tid, id);
	}
	for (i = 0; i < in->nmappings && !err; i++) {
		const struct rec_mapping *m = &in->mappings[i];

		if (!(m->flags & REC_MAPPING_KERNEL))
			err = recorder_add_mapping(rec, m->time, m->pid, m->start, m->end, m->pgoff,
						   recording__str(in, m->path));
	}
	for (i = 0; i < in->nstats && !err; i++)
		err = rec_writer__stat(rec->w, recording__str(in, in->stats[i].key),
				       in->stats[i].value);
	return err;
}

/* The sample layout the recorder chose, from the meta it wrote. */
static int setup_layout(struct recorder *rec, const struct recording *in)
{
	const char *cg = recording__meta(in, "call-graph");
	const char *leaf = recording__meta(in, "leaf-fix");
	const char *size = recording__meta(in, "stack-size");
	const char *max = recording__meta(in, "max-stack");

	rec->max_stack = max ? strtoull(max, NULL, 10) : 127;
	if (cg && !strcmp(cg, "dwarf")) {
		unsigned long v = size ? strtoul(size, NULL, 10) : 0;

		if (!v || v > RECORD_MAX_STACK_SIZE)
			return -EINVAL;
		return ustack_setup_replay(rec, 1, 0, (uint32_t)v);
	}
	if (!leaf || !strcmp(leaf, "no"))
		return 0;
	if (!strcmp(leaf, "stack") || !strcmp(leaf, "callsite"))
		return ustack_setup_replay(rec, 0, !strcmp(leaf, "callsite"), 0);
	return -EINVAL;
}

static int replay_chunks(struct recorder *rec, const struct recording *in)
{
	unsigned char *buf = NULL;
	size_t cap = 0, i;
	int err = 0;

	for (i = 0; i < in->nraw && !err; i++) {
		/* Copied: a chunk's payload in the file is not 8-byte aligned. */
		if (GROW(buf, cap, in->raw[i].len + 1)) {
			err = -ENOMEM;
			break;
		}
		memcpy(buf, in->data + in->raw[i].off, in->raw[i].len);
		err = defer_replay(rec, buf, in->raw[i].len);
	}
	free(buf);
	return err;
}

int record_replay_raw(const struct recording *in, const char *out, struct record_summary *sum,
		      struct prof_error *errp)
{
	struct record_opts opts = {.quiet = 1};
	struct symbolize_stats ss = {0};
	struct symbolize_opts so;
	const char *sym = recording__meta(in, "symbolize");
	struct recorder rec;
	int err, cerr;

	opts.no_symbolize = sym && !strcmp(sym, "no");
	if (recorder_init(&rec, &opts, sum, errp)) {
		recorder_release(&rec);
		return prof_error_set(rec.err, -ENOMEM, NULL, "out of memory");
	}
	rec.w = rec_writer__create(out, 0600);
	if (!rec.w) {
		err = -errno;
		recorder_release(&rec);
		return prof_error_set(rec.err, err, NULL, "cannot write '%s': %s", out,
				      strerror(-err));
	}
	err = setup_layout(&rec, in);
	if (err == -EINVAL) {
		rec_writer__discard(rec.w);
		recorder_release(&rec);
		return prof_error_set(rec.err, -EBADMSG, NULL,
				      "its meta does not say how its samples "
				      "were taken (call-graph, leaf-fix)");
	}
	if (!err)
		err = copy_defined(&rec, in);
	if (!err)
		err = replay_chunks(&rec, in);
	if (!err)
		err = rec_writer__flush(rec.w);
	if (!err && !opts.no_symbolize)
		err = symbolize_recording(rec.w, ustack_symbolize_opts(&rec, &so), &ss);
	else if (!err)
		err = symbolize_build_ids(rec.w, NULL);
	if (!err) {
		recorder_write_stats(&rec, opts.no_symbolize ? NULL : &ss);
		rec_writer__stat(rec.w, "replayed-raw-chunks", in->nraw);
		rec_writer__meta(rec.w, "symbolized", opts.no_symbolize ? "no" : "yes");
	}
	sum->bytes = rec_writer__size(rec.w);
	cerr = rec_writer__close(rec.w);
	rec.w = NULL;
	recorder_release(&rec);
	if (!err)
		err = cerr;
	if (err)
		return prof_error_set(rec.err, err, NULL, "cannot process its records: %s",
				      strerror(-err));
	return 0;
}
