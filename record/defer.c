/* defer.c: deferred processing. Turning a sample into a stack (the leaf
 * fix, interning every frame and node) takes the recorder about 2,000
 * instructions; done while the target runs, that CPU time is taken from it
 * (docs/BENCHMARKS.md, "Deferring the recorder's work"). So a plain CPU
 * recording only copies the rings' records while it runs and writes them,
 * once a second, as RAW chunks: a killed recorder still leaves them in the
 * file, and readers replay them (record_replay_raw). When the recording
 * ends, or once `limit` bytes were written, they are read back, processed,
 * and a copy of the file without them replaces it (rec_writer__*_rewrite). */
#include "recorder.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

void defer_setup(struct recorder *rec)
{
	const struct record_opts *o = rec->opts;

	/* Scheduler and probe events come in rings of their own, processed
	 * as they come; a recording with them stays live. A --call-graph
	 * dwarf sample carries up to 32 KB of user stack: written raw it
	 * costs more than unwinding it (measured at 4999 Hz: ~33 KB a sample
	 * to disk, a third of the samples lost where live processing lost
	 * none, a small tmpfs full at once), and those bytes are the
	 * target's memory: it stays live too. */
	if (o->no_defer || o->call_graph == RECORD_CALL_GRAPH_DWARF || rec->cpu_wide ||
	    rec->sched.on || rec->probes.on || !rec_writer__can_rewrite(rec->w))
		return;
	rec->defer.limit = o->defer_limit ? o->defer_limit : RECORD_DEFAULT_DEFER_LIMIT;
	rec->defer.on = 1;
}

void defer_keep(void *ctx, const struct perf_event_header *h)
{
	struct recorder *rec = ctx;
	struct defer_rec *d = &rec->defer;

	/* While attaching, the threads that inherited our events from their
	 * creator must be known, or they would be opened twice. */
	if (h->type == PERF_RECORD_FORK)
		recorder_learn_fork(rec, h);
	if (GROW(d->buf, d->cap, d->len + h->size)) {
		rec->write_err = -ENOMEM;
		return;
	}
	memcpy(d->buf + d->len, h, h->size);
	d->len += h->size;
}

static int write_kept(struct recorder *rec)
{
	struct defer_rec *d = &rec->defer;
	int err;

	if (!d->len)
		return 0;
	err = rec_writer__raw(rec->w, d->buf, d->len);
	d->written += d->len;
	d->len = 0;
	return err;
}

int defer_flush(struct recorder *rec)
{
	int err;

	if (!rec->defer.on)
		return 0;
	err = write_kept(rec);
	if (!err && rec->defer.written >= rec->defer.limit)
		err = defer_process(rec);
	return err;
}

int defer_replay(struct recorder *rec, const unsigned char *p, size_t len)
{
	size_t off = 0;

	while (len - off >= sizeof(struct perf_event_header) && !rec->write_err) {
		struct perf_event_header h;

		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off || h.size % 8) {
			rec->bad_ring = 1; /* not what a ring holds: the rest is lost */
			break;
		}
		recorder_handle_record(rec, (const struct perf_event_header *)(p + off));
		off += h.size;
	}
	ustack_process(rec);
	recorder_resolve_pending(rec, 0);
	if (!rec->write_err)
		rec->write_err = rec_writer__flush(rec->w);
	recorder_resolve_pending(rec, 1);
	return rec->write_err;
}

int defer_process(struct recorder *rec)
{
	struct defer_rec *d = &rec->defer;
	size_t i, n, len;
	int err;

	if (!d->on)
		return 0;
	d->on = 0;
	err = write_kept(rec);
	if (!err)
		err = rec_writer__begin_rewrite(rec->w);
	n = err ? 0 : rec_writer__nraw(rec->w);
	for (i = 0; i < n && !err; i++) {
		err = rec_writer__raw_read(rec->w, i, &d->read, &d->read_cap, &len);
		if (err)
			break;
		err = defer_replay(rec, d->read, len);
	}
	if (!err)
		err = rec_writer__end_rewrite(rec->w);
	defer_release(rec);
	return err;
}

void defer_release(struct recorder *rec)
{
	free(rec->defer.buf);
	free(rec->defer.read);
	rec->defer.buf = rec->defer.read = NULL;
	rec->defer.len = rec->defer.cap = rec->defer.read_cap = 0;
}
