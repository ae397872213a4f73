/* test-engine.c: the recorder's engine table (record/engine.h) and its run
 * loop driven by a caller (record_run_hooks): every source named once, CPU
 * sampling first and deferral last (their order is the loop's); a recorder
 * never set up releases through the engines; a live recording of a busy
 * shell calls the caller's tick with the samples decoded so far and ends
 * when the tick says so, or at once when the stop condition holds, each
 * time leaving a complete file. Skips when perf events are refused. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/recording.h"
#include "record/engine.h"

static void test_table(void **state)
{
	(void)state;
	assert_true(rec_nengines >= 4 && rec_nengines <= 32); /* bits of rec->engines */
	assert_ptr_equal(rec_engines[0], &rec_engine_cpu);
	assert_ptr_equal(rec_engines[rec_nengines - 1], &rec_engine_defer);
	for (size_t i = 0; i < rec_nengines; i++) {
		assert_non_null(rec_engines[i]->name);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(rec_engines[i]->name, rec_engines[j]->name);
	}
}

static void test_release_unused(void **state)
{
	struct record_opts opts = {0};
	struct record_summary sum;
	struct prof_error err;
	struct recorder rec;

	(void)state;
	assert_int_equal(recorder_init(&rec, &opts, &sum, &err), 0);
	assert_int_equal(rec.engines, 0);
	recorder_release(&rec); /* ASan: nothing leaked, nothing freed twice */
}

struct watch {
	unsigned ticks, stops, after_done; /* after_done: ticks after one said stop */
	uint64_t samples, last_now, want;
	int stop_at_once, done;
};

static int on_tick(void *ctx, const struct record_tick *t)
{
	struct watch *w = ctx;

	assert_true(t->now_ns >= t->start_ns && t->now_ns >= w->last_now);
	assert_true(t->sum->samples >= w->samples); /* counts only grow */
	w->last_now = t->now_ns;
	w->samples = t->sum->samples;
	w->ticks++;
	if (w->done)
		w->after_done++;
	w->done = w->samples >= w->want;
	return w->done;
}

static int on_stop(void *ctx)
{
	struct watch *w = ctx;

	w->stops++;
	return w->stop_at_once;
}

/* Parses the file at path into *r: 0 or -errno. */
static int parse(const char *path, struct recording *r)
{
	unsigned char *data;
	size_t size;
	char eb[256];
	int ret = read_whole_file(path, &data, &size);

	memset(r, 0, sizeof(*r));
	return ret ? ret : recording__parse(r, data, size, eb, sizeof(eb));
}

static char sh[] = "/bin/sh", dash_c[] = "-c", loop[] = "while :; do :; done";
static char *const busy_argv[] = {sh, dash_c, loop, NULL};

/* Records the busy shell with hooks into a new file, read back into *r
 * (the caller releases it); skips when perf events are refused. */
static void run(struct watch *w, struct record_summary *sum, struct recording *r)
{
	char out[] = "/tmp/test-engine-XXXXXX";
	int fd = mkstemp(out);
	struct record_opts opts = {.argv = busy_argv,
				   .output = out,
				   .freq = 999,
				   .call_graph = RECORD_CALL_GRAPH_FP,
				   .no_symbolize = 1,
				   .quiet = 1,
				   .no_defer = 1, /* counts live */
				   .duration_ns = 60ULL * 1000000000ULL /* a bound */};
	struct record_hooks hooks = {.tick = on_tick, .stop = on_stop, .ctx = w, .interval_ms = 50};
	struct prof_error err;
	int ret;

	assert_true(fd >= 0);
	close(fd);
	ret = record_run_hooks(&opts, &hooks, sum, &err);
	if (ret == -EACCES || ret == -EPERM || ret == -ENOENT || ret == -ENOSYS) {
		unlink(out);
		skip();
	}
	if (ret)
		fprintf(stderr, "# %s\n", err.msg);
	assert_int_equal(ret, 0);
	assert_int_equal(parse(out, r), 0); /* a complete file, however it ended */
	unlink(out);
}

static void test_tick_stops(void **state)
{
	struct watch w = {.want = 20};
	struct record_summary sum;
	struct recording r;

	(void)state;
	run(&w, &sum, &r);
	assert_true(w.ticks >= 1);
	assert_true(w.stops >= w.ticks);   /* asked before each wait */
	assert_true(w.samples >= w.want);  /* the tick's own condition ended it, */
	assert_int_equal(w.after_done, 0); /* at once */
	assert_true(sum.samples >= w.samples);
	assert_int_equal(sum.stopped_by_signal, 0);
	assert_int_equal(sum.target_status, 128 + SIGTERM); /* ended as -d does */
	assert_int_equal(recording__stat(&r, "samples"), sum.samples);
	recording__release(&r);
}

static void test_stop_at_once(void **state)
{
	struct watch w = {.want = UINT64_MAX, .stop_at_once = 1};
	struct record_summary sum;
	struct recording r;

	(void)state;
	run(&w, &sum, &r);
	assert_int_equal(w.stops, 1);
	assert_int_equal(w.ticks, 0); /* stopped before the first wait */
	recording__release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_release_unused),
	    cmocka_unit_test(test_tick_stops),
	    cmocka_unit_test(test_stop_at_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
