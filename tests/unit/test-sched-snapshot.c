/* test-sched-snapshot.c: how report/ reads a snapshot switch-out (an OUT
 * whose next task is the thread itself: asleep when the recording began,
 * docs/FORMAT.md): no switch counted, asleep from the window's start, and
 * its stack sample weighs the time until the first wake-up. One synthetic
 * recording whose every nanosecond is known. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/rec-writer.h"
#include "lib/recording.h"
#include "report/report.h"
#include "report/sched.h"

/* 100 ms from START_NS; the recorder attached 2 µs in. */
#define START_NS 1000000000ull
#define T(us)	 (START_NS + (uint64_t)(us)*1000u)
#define PID	 100
#define WAITER	 101 /* asleep all along: snapshot only */
#define WOKEN	 102 /* snapshot, woken at 60 ms, runs 1 ms, sleeps again */

static uint32_t str(struct rec_writer *w, const char *s)
{
	uint32_t id;

	assert_int_equal(rec_writer__string(w, s, strlen(s), &id), 0);
	return id;
}

static uint32_t frame(struct rec_writer *w, uint64_t addr, uint32_t flags, const char *sym)
{
	struct rec_symbol s = {.name = 0};
	uint32_t id;

	assert_int_equal(rec_writer__frame(w, PID, addr, flags, REC_NO_MAPPING, &id), 0);
	s.frame = id;
	s.name = str(w, sym);
	assert_int_equal(rec_writer__symbol(w, &s), 0);
	return id;
}

static void write_recording(const char *path)
{
	struct rec_writer *w = rec_writer__open(path);
	/* the snapshot's stacks: period 1; the sampled switch-outs': 1 in 16 */
	struct rec_event_desc snap = {.name = 0, .type = 2, .period = 1};
	struct rec_event_desc sw = {.name = 0, .type = 2, .period = 16};
	uint32_t ev_snap, ev_sw, f_main, f_wait, s_wait;
	char buf[32];

	assert_non_null(w);
	snprintf(buf, sizeof(buf), "%llu", START_NS);
	assert_int_equal(rec_writer__meta(w, "start-monotonic-ns", buf), 0);
	snap.name = sw.name = str(w, "sched:sched_switch");
	assert_int_equal(rec_writer__event(w, &sw, &ev_sw), 0);
	assert_int_equal(rec_writer__event(w, &snap, &ev_snap), 0);
	assert_int_equal(
	    rec_writer__thread(w, REC_THREAD_START, T(2), PID, WAITER, str(w, "waiter")), 0);
	assert_int_equal(rec_writer__thread(w, REC_THREAD_START, T(2), PID, WOKEN, str(w, "woken")),
			 0);
	f_main = frame(w, 0x1000, REC_FRAME_CALLER, "main");
	f_wait = frame(w, 0x2000, 0, "wait_here");
	assert_int_equal(rec_writer__stack(w, 0, f_main, &s_wait), 0);
	assert_int_equal(rec_writer__stack(w, s_wait, f_wait, &s_wait), 0);
	assert_int_equal(rec_writer__sample(w, T(2), WAITER, s_wait, 3, (uint8_t)ev_snap, 0), 0);
	assert_int_equal(rec_writer__sample(w, T(2), WOKEN, s_wait, 1, (uint8_t)ev_snap, 0), 0);
	assert_int_equal(
	    rec_writer__sched(w, T(2), WAITER, 0, 0, REC_SCHED_INIT, REC_STATE_SLEEPING), 0);
	assert_int_equal(
	    rec_writer__sched(w, T(2), WAITER, WAITER, 3, REC_SCHED_OUT, REC_STATE_SLEEPING), 0);
	assert_int_equal(rec_writer__sched(w, T(2), WOKEN, 0, 0, REC_SCHED_INIT, REC_STATE_DISK),
			 0);
	assert_int_equal(rec_writer__sched(w, T(2), WOKEN, WOKEN, 1, REC_SCHED_OUT, REC_STATE_DISK),
			 0);
	assert_int_equal(rec_writer__sched(w, T(60000), WOKEN, 0, 1, REC_SCHED_WAKE, 0), 0);
	assert_int_equal(rec_writer__sched(w, T(61000), WOKEN, 0, 1, REC_SCHED_IN, 0), 0);
	assert_int_equal(
	    rec_writer__sched(w, T(62000), WOKEN, 0, 1, REC_SCHED_OUT, REC_STATE_SLEEPING), 0);
	assert_int_equal(rec_writer__stat(w, "duration-ns", 100000000ull), 0);
	assert_int_equal(rec_writer__close(w), 0);
}

static int setup(void **state)
{
	struct recording *r = calloc(1, sizeof(*r));
	char path[] = "/tmp/test-sched-snapshot-XXXXXX", err[256] = "";
	unsigned char *data;
	size_t size;
	int fd = mkstemp(path);

	assert_non_null(r);
	assert_true(fd >= 0);
	close(fd);
	write_recording(path);
	assert_int_equal(read_whole_file(path, &data, &size), 0);
	unlink(path);
	assert_int_equal(recording__parse(r, data, size, err, sizeof(err)), 0);
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	recording__release(*state);
	free(*state);
	return 0;
}

static const struct sched_thread *find(const struct sched_profile *sp, uint32_t tid)
{
	for (size_t i = 0; i < sp->nthreads; i++)
		if (sp->threads[i].tid == tid)
			return &sp->threads[i];
	fail_msg("no thread %u", tid);
	return NULL;
}

static void test_model(void **state)
{
	struct sched_profile sp;
	const struct sched_thread *t;

	assert_int_equal(sched_profile__from_recording(&sp, *state), 0);
	t = find(&sp, WAITER);
	assert_int_equal(t->nswitches, 0); /* the snapshot is no switch */
	assert_int_equal(t->ns[SCHED_SLEEPING], 100000000ull);
	assert_int_equal(t->ns[SCHED_ON_CPU], 0);
	t = find(&sp, WOKEN);
	assert_int_equal(t->nswitches, 1); /* the real OUT at 62 ms */
	assert_int_equal(t->switches[REC_STATE_SLEEPING], 1);
	assert_int_equal(t->ns[SCHED_DISK], 60000000ull);
	assert_int_equal(t->ns[SCHED_WOKEN], 1000000ull);
	assert_int_equal(t->ns[SCHED_ON_CPU], 1000000ull);
	assert_int_equal(t->ns[SCHED_SLEEPING], 38000000ull);
	assert_int_equal(sp.inconsistent, 0);
	sched_profile__release(&sp);
}

static void test_off_cpu(void **state)
{
	struct profile_build_opts o = {.by = PROFILE_BY_THREAD, .weight = PROFILE_WEIGHT_OFF_CPU};
	struct folded_opts fo = {.thread_root = PROFILE_ROOT_NAME};
	struct profile p;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(profile__init(&p), 0);
	assert_int_equal(profile__from_recording(&p, *state, &o), 0);
	assert_int_equal(profile__write_folded(&p, &fo, f), 0);
	fclose(f);
	/* From the window's start: the waiter all of it; the woken one its D
	 * time and its wait for a CPU (61 ms), scaled (report/off-cpu.c) to
	 * its whole off-CPU time, 99 ms with the 38 ms sleep whose switch-out
	 * carried no stack: 60 and 1 ms times 99/61. */
	assert_string_equal(out, "waiter;main;wait_here;[S sleeping] 100000\n"
				 "woken;main;wait_here;[D uninterruptible] 97377\n"
				 "woken;main;wait_here;[R waiting for CPU] 1623\n");
	free(out);
	profile__release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_model),
	    cmocka_unit_test(test_off_cpu),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
