/* engine-flight.c: the flight recorder (--ring, flight.h) as an engine:
 * setup holds the writer (nothing reaches the output during the run),
 * puts the ring's sink behind the decoder's and catches SIGUSR1 (held
 * back but in the loop's wait, like the stop signals, so it wakes it);
 * tick_ms starts the save asked for (SIGUSR1, record_request_save) once
 * the one before is done, and reaps it; finish makes the end-of-run save
 * and waits for it. Its stats: saves made and failed, records dropped. */
#include "engine.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "flight.h"
#include "lib/text-clean.h"

/* Wake this often while a save is written, to reap it. */
#define REAP_MS 50

static volatile sig_atomic_t usr1_seen;
/* When SIGUSR1 came: it is held back but in the loop's ppoll, so the
 * handler never runs while the loop reads this. */
static uint64_t usr1_ns;
/* record_request_save(): the hooks run on the recorder's thread. */
static char requested[FLIGHT_REASON_MAX];
static uint64_t requested_ns;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_ns = monotonic_ns(); /* clock_gettime: async-signal-safe */
	usr1_seen = 1;
}

void record_request_save(const char *reason, uint64_t end_ns)
{
	uint64_t now = monotonic_ns();

	snprintf(requested, sizeof(requested), "%s", reason ? reason : "request");
	requested_ns = end_ns && end_ns < now ? end_ns : now;
}

static int flight_wanted(const struct recorder *rec)
{
	return rec->opts->ring_ns != 0;
}

static int flight_setup(struct recorder *rec)
{
	struct flight *fl = calloc(1, sizeof(*fl));
	struct sigaction sa;
	sigset_t usr1;

	if (!fl || flight__init(fl, monotonic_ns(), rec->opts->ring_ns)) {
		if (fl)
			flight__release(fl);
		free(fl);
		return prof_error_set(rec->err, -ENOMEM, NULL, "out of memory");
	}
	fl->output = rec->opts->ring_output ? rec->opts->ring_output : RECORD_DEFAULT_OUTPUT;
	rec->flight = fl;
	rec_writer__hold(rec->w);
	rec_sink_tee__init(&fl->tee, rec->sink, &fl->sink);
	rec->sink = &fl->tee.sink;
	usr1_seen = 0;
	requested[0] = '\0';
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL); /* delivered in the loop's ppoll */
	return 0;
}

static void start_pending(struct recorder *rec)
{
	struct flight *fl = rec->flight;
	int err;

	if (fl->child || !fl->pending[0])
		return;
	err = flight_save_start(rec, fl->pending, fl->pending_to);
	if (err) {
		fprintf(stderr, "prof record: cannot save the ring: %s (recording goes on)\n",
			strerror(-err));
		fl->failures++;
	}
	fl->pending[0] = '\0';
}

/* The saves asked for since the last call: SIGUSR1's, the hooks'. The
 * window ends when a save was asked for, not when the loop came round to
 * it, when the child gets a CPU or when the save before is done: on a busy
 * machine each can be a second later. */
static void take_requests(struct flight *fl)
{
	if (usr1_seen) {
		usr1_seen = 0;
		snprintf(fl->pending, sizeof(fl->pending), "signal SIGUSR1");
		fl->pending_to = usr1_ns;
	}
	if (requested[0]) {
		memcpy(fl->pending, requested, sizeof(fl->pending));
		requested[0] = '\0';
		fl->pending_to = requested_ns;
	}
}

static long flight_tick_ms(struct recorder *rec, uint64_t now)
{
	struct flight *fl = rec->flight;

	(void)now;
	if (!fl->said && !rec->opts->quiet) {
		/* the first wait: sampling started */
		char name[512];

		fl->said = 1;
		fputs("prof record: ring of ", stderr);
		fprintf(stderr, "%.0f s in memory: kill -USR1 %d saves it as ",
			(double)fl->ring_ns / 1e9, (int)getpid());
		if (record_ring_name(name, sizeof(name), fl->output, (int64_t)time(NULL), 0))
			text_put(stderr, fl->output);
		else
			text_put(stderr, name);
		fputc('\n', stderr);
	}
	flight_save_reap(fl, 0);
	take_requests(fl);
	start_pending(rec);
	if (fl->err) /* out of memory in the sink: stop as a writer error does */
		recorder_note_err(rec, fl->err);
	return fl->child || fl->pending[0] ? REAP_MS : -1;
}

/* The end: the save before (and one asked for meanwhile) done, then the
 * window up to now, unless --no-save-on-exit. */
static void flight_finish(struct recorder *rec)
{
	struct flight *fl = rec->flight;

	flight_save_reap(fl, 1);
	take_requests(fl);
	start_pending(rec);
	flight_save_reap(fl, 1);
	if (!rec->opts->ring_no_save_on_exit) {
		snprintf(fl->pending, sizeof(fl->pending), "end of recording");
		fl->pending_to = monotonic_ns();
		start_pending(rec);
		flight_save_reap(fl, 1);
	}
	rec->sum->ring_saves = fl->saves;
	rec->sum->ring_save_failures = fl->failures;
	rec->sum->ring_dropped = fl->dropped;
}

static void flight_release(struct recorder *rec)
{
	if (!rec->flight)
		return;
	flight_save_reap(rec->flight, 1);
	flight__release(rec->flight);
	free(rec->flight);
	rec->flight = NULL;
}

const struct rec_engine rec_engine_flight = {
	.name = "flight",
	.wanted = flight_wanted,
	.setup = flight_setup,
	.tick_ms = flight_tick_ms,
	.finish = flight_finish,
	.release = flight_release,
};
