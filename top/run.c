/* run.c: a prof top session (top-internal.h): record/'s engine sampling
 * the targets, its writer writing to /dev/null (prof top keeps no file),
 * the tap following it; the loop's next_ms hook (record_run_hooks), before
 * each wait, moves the window on and prints a block (or drives the
 * terminal view) each interval, and a last one at the end for the samples
 * since. A block for interval k is made GRACE_NS after it ends, after a
 * drain: the samples of its last moments are in. */
#include "top-internal.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#define GRACE_NS 20000000ULL /* 20 ms */
#define FORGET_AT 4096 /* stack nodes and frames of the current generation */

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int print_block(struct top *tp)
{
	const struct top_opts *o = tp->opts;
	struct top_view_opts vo = {.intervals = o->window, .threads = 0};
	struct top_block b = {
		.opts = o, .wall_ns = clock_ns(CLOCK_REALTIME), .lost = tp->sum.lost + tp->sum.sched_lost,
		.total = tp->tap.samples, .forgets = tp->tap.forgets,
	};
	struct top_snapshot s;
	int err = top_snapshot__build(&s, &tp->tap, tp->names, &vo, o->freq);

	b.start_ns = tp->tap.win.start_ns + s.first * tp->tap.win.interval_ns;
	for (int g = 0; g < 2; g++)
		b.interned += tp->tap.gen[g].nnodes + tp->tap.gen[g].nframes;
	if (!err)
		err = top_print_block(tp->out, &b, &s);
	top_snapshot__release(&s);
	return err;
}

/* The recorder's hook after each drain: forget the interned stacks when
 * the current generation holds FORGET_AT stack nodes and frames and no
 * interval in the ring counts stacks of the generation before it (that
 * one's tables are reused): memory stays bounded by what two generations
 * gather, each over at least the ring's span, however long prof top runs
 * on a target that keeps making new stacks (a JIT, deep recursion). */
static int forget_stacks(void *ctx)
{
	struct top *tp = ctx;
	const struct top_gen *g = &tp->tap.gen[tp->tap.cur];
	uint64_t cur = tp->tap.win.cur;

	if (g->nnodes + g->nframes < FORGET_AT ||
	    (tp->tap.forgets && cur < tp->forgot_at + WINDOW_SLOTS))
		return 0;
	tp->forgot_at = cur;
	top_names__forget(tp->names, !tp->tap.cur);
	return 1;
}

static long tick(void *ctx, uint64_t now)
{
	struct top *tp = ctx;
	struct window *w = &tp->tap.win;
	uint64_t idx = now > GRACE_NS ? window__index(w, now - GRACE_NS) : 0;
	uint64_t next = w->start_ns + (idx + 1) * w->interval_ns + GRACE_NS;
	int new_interval = idx > tp->last_block;
	long ms = next > now ? (long)((next - now) / 1000000) + 1 : 1;

	if (tp->tap.err) {
		record_request_stop();
		return 0;
	}
	top_tap__sched_flush(&tp->tap, 0);
	if (new_interval) {
		top_tap__sched_flush(&tp->tap, w->start_ns + idx * w->interval_ns);
		window__advance(w, idx);
		tp->last_block = idx;
	}
	if (tp->tui) {
		long t = top_tui__tick(tp, now, new_interval);

		return t < ms ? t : ms;
	}
	if (new_interval && !tp->out_err) {
		tp->out_err = print_block(tp);
		if (tp->out_err)
			record_request_stop(); /* the reader went away (EPIPE) */
	}
	return ms;
}

int top_run(struct top *tp, struct record_opts *ro, struct prof_error *err)
{
	int rc;

	tp->names = top_names__new();
	if (!tp->names || top_tap__init(&tp->tap, clock_ns(CLOCK_MONOTONIC), tp->opts->interval_ns)) {
		top_names__free(tp->names);
		top_tap__release(&tp->tap);
		return prof_error_set(err, -ENOMEM, NULL, "out of memory");
	}
	ro->output = "/dev/null";
	ro->no_symbolize = 1;
	ro->no_defer = 1;
	ro->quiet = 1;
	ro->tap = &tp->tap.sink;
	/* -- CMD: its output would draw over the view; it goes to a file */
	if (tp->want_tui && ro->argv && (rc = top_cmd_output__begin(&tp->cmd_out))) {
		top_names__free(tp->names);
		top_tap__release(&tp->tap);
		return prof_error_set(err, rc, NULL, "cannot make '%s' for the command's output: %s",
				      tp->cmd_out.path, strerror(-rc));
	}
	if (tp->want_tui && (rc = top_tui__start(tp))) {
		top_cmd_output__end(&tp->cmd_out);
		top_names__free(tp->names);
		top_tap__release(&tp->tap);
		return prof_error_set(err, rc, NULL, "cannot start the terminal view: %s",
				      strerror(-rc));
	}
	rc = record_run_hooks(ro,
			      &(struct record_hooks){.next_ms = tick, .forget_stacks = forget_stacks,
						     .ctx = tp},
			      &tp->sum, err);
	if (tp->tui)
		top_tui__stop(tp);
	if (tp->cmd_out.tty)
		top_cmd_output__end(&tp->cmd_out);
	/* The samples since the last block: a last block, its interval cut
	 * short by the end. */
	if (!rc && !tp->want_tui && !tp->out_err && !tp->tap.err) {
		const struct window_slot *cur = window__slot(&tp->tap.win, tp->tap.win.cur);

		top_tap__sched_flush(&tp->tap, 0);
		if (cur && (cur->samples || cur->nthreads)) { /* samples, or --sched time */
			window__advance(&tp->tap.win, tp->tap.win.cur + 1);
			tp->out_err = print_block(tp);
		}
	}
	if (!rc && tp->tap.err)
		rc = prof_error_set(err, tp->tap.err, NULL, "out of memory");
	top_names__free(tp->names);
	top_tap__release(&tp->tap);
	return rc;
}
