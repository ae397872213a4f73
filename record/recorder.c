/* recorder.c: a struct recorder's life: set up empty (recorder_init), its
 * counters written as the file's stats, everything it holds released. The
 * same for a live recording (session.c), the replay of a killed recorder's
 * RAW chunks (replay-raw.c) and the fuzzer. Events are opened and closed by
 * session.c: a recorder released here has none open. */
#include "engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/symbolize.h"

int recorder_init(struct recorder *rec, const struct record_opts *opts,
		  struct record_summary *sum, struct prof_error *err)
{
	memset(rec, 0, sizeof(*rec));
	memset(sum, 0, sizeof(*sum));
	memset(err, 0, sizeof(*err));
	rec->opts = opts;
	rec->sum = sum;
	rec->err = err;
	rec->max_stack = 127; /* the kernel's default perf_event_max_stack */
	rec->writer_sink = rec_sink__writer(&rec->w);
	rec->sink = &rec->writer_sink;
	if (opts->tap) {
		rec_sink_tee__init(&rec->tee, &rec->writer_sink, opts->tap);
		rec->sink = &rec->tee.sink;
	}
	if (addr_spaces__init(&rec->spaces) || keymap__init(&rec->opened_tids, 64) ||
	    keymap__init(&rec->forked_tids, 64) || keymap__init(&rec->target_pids, 16) ||
	    keymap__init(&rec->names, 64) || keymap__init(&rec->seen_tids, 64) ||
	    keymap__init(&rec->seen_pids, 16) || keymap__init(&rec->chains, 4096))
		return -ENOMEM;
	return 0;
}

void recorder_write_stats(struct recorder *rec, const struct symbolize_stats *ss)
{
	struct record_summary *s = rec->sum;

	rec_writer__stat(rec->w, "samples", s->samples);
	rec_writer__stat(rec->w, "lost", s->lost);
	rec_writer__stat(rec->w, "throttled", s->throttled);
	rec_writer__stat(rec->w, "threads", s->threads);
	rec_writer__stat(rec->w, "processes", s->processes);
	rec_writer__stat(rec->w, "duration-ns", s->duration_ns);
	if (s->defer_ns)
		rec_writer__stat(rec->w, "deferred-processing-ns", s->defer_ns);
	rec_writer__stat(rec->w, "frames", rec_writer__nframes(rec->w));
	if (ss) {
		rec_writer__stat(rec->w, "frames-resolved", ss->resolved);
		rec_writer__stat(rec->w, "frames-unresolved", ss->unresolved);
		rec_writer__stat(rec->w, "binaries-missing", ss->binaries_missing);
	}
	if (rec->sched.on) {
		rec_writer__stat(rec->w, "sched-switches", s->switches);
		rec_writer__stat(rec->w, "sched-wakeups", s->wakeups);
		rec_writer__stat(rec->w, "sched-lost", s->sched_lost);
		rec_writer__stat(rec->w, "sched-stacks-lost", s->sched_stacks_lost);
	}
	if (rec->bad_ring)
		rec_writer__stat(rec->w, "malformed-ring-data", 1);
	for (size_t k = 0; k < rec_nengines; k++)
		if (rec_engines[k]->write_stats)
			rec_engines[k]->write_stats(rec);
}

void recorder_release(struct recorder *rec)
{
	size_t i;

	for (i = 0; i < rec->ntargets; i++)
		if (rec->targets[i].pidfd >= 0)
			close(rec->targets[i].pidfd);
	free(rec->targets);
	free(rec->fds);
	free(rec->rings);
	free(rec->cpus);
	free(rec->scratch);
	free(rec->pending);
	for (size_t k = 0; k < rec_nengines; k++)
		if (rec_engines[k]->release)
			rec_engines[k]->release(rec);
	keymap__release(&rec->opened_tids);
	keymap__release(&rec->forked_tids);
	keymap__release(&rec->target_pids);
	free(rec->heads);
	keymap__release(&rec->names);
	keymap__release(&rec->seen_tids);
	keymap__release(&rec->seen_pids);
	keymap__release(&rec->chains);
	addr_spaces__release(&rec->spaces);
}
