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

void defer_setup(struct recorder *rc)
{
	const struct record_opts *o = rc->opts;

	/* Scheduler and probe events come in rings of their own, processed
	 * as they come; a recording with them stays live. A --call-graph
	 * dwarf sample carries up to 32 KB of user stack: written raw it
	 * costs more than unwinding it (measured at 4999 Hz: ~33 KB a sample
	 * to disk, a third of the samples lost where live processing lost
	 * none, a small tmpfs full at once), and those bytes are the
	 * target's memory: it stays live too. */
	if (o->no_defer || o->call_graph == RECORD_CALL_GRAPH_DWARF || rc->cpu_wide ||
	    rc->sched.on || rc->probes.on || !rec_writer__can_rewrite(rc->w))
		return;
	rc->defer.limit = o->defer_limit ? o->defer_limit : RECORD_DEFAULT_DEFER_LIMIT;
	rc->defer.on = 1;
}

void defer_keep(void *ctx, const struct perf_event_header *h)
{
	struct recorder *rc = ctx;
	struct defer_rec *d = &rc->defer;

	/* While attaching, the threads that inherited our events from their
	 * creator must be known, or they would be opened twice. */
	if (h->type == PERF_RECORD_FORK)
		recorder_learn_fork(rc, h);
	if (GROW(d->buf, d->cap, d->len + h->size)) {
		rc->write_err = -ENOMEM;
		return;
	}
	memcpy(d->buf + d->len, h, h->size);
	d->len += h->size;
}

static int write_kept(struct recorder *rc)
{
	struct defer_rec *d = &rc->defer;
	int err;

	if (!d->len)
		return 0;
	err = rec_writer__raw(rc->w, d->buf, d->len);
	d->written += d->len;
	d->len = 0;
	return err;
}

int defer_flush(struct recorder *rc)
{
	int err;

	if (!rc->defer.on)
		return 0;
	err = write_kept(rc);
	if (!err && rc->defer.written >= rc->defer.limit)
		err = defer_process(rc);
	return err;
}

int defer_replay(struct recorder *rc, const unsigned char *p, size_t len)
{
	size_t off = 0;

	while (len - off >= sizeof(struct perf_event_header) && !rc->write_err) {
		struct perf_event_header h;

		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off || h.size % 8) {
			rc->bad_ring = 1; /* not what a ring holds: the rest is lost */
			break;
		}
		recorder_handle_record(rc, (const struct perf_event_header *)(p + off));
		off += h.size;
	}
	ustack_process(rc);
	recorder_resolve_pending(rc, 0);
	if (!rc->write_err)
		rc->write_err = rec_writer__flush(rc->w);
	recorder_resolve_pending(rc, 1);
	return rc->write_err;
}

int defer_process(struct recorder *rc)
{
	struct defer_rec *d = &rc->defer;
	size_t i, n, len;
	int err;

	if (!d->on)
		return 0;
	d->on = 0;
	err = write_kept(rc);
	if (!err)
		err = rec_writer__begin_rewrite(rc->w);
	n = err ? 0 : rec_writer__nraw(rc->w);
	for (i = 0; i < n && !err; i++) {
		err = rec_writer__raw_read(rc->w, i, &d->read, &d->read_cap, &len);
		if (err)
			break;
		err = defer_replay(rc, d->read, len);
	}
	if (!err)
		err = rec_writer__end_rewrite(rc->w);
	defer_release(rc);
	return err;
}

void defer_release(struct recorder *rc)
{
	free(rc->defer.buf);
	free(rc->defer.read);
	rc->defer.buf = rc->defer.read = NULL;
	rc->defer.len = rc->defer.cap = rc->defer.read_cap = 0;
}
