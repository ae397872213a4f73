/* test-flight.c: the flight recorder's pieces (record/flight.h): the
 * names of saves made from -o, and the ring of one-second buckets behind
 * the writer's sink: a window gives back what fell in it, a second that
 * came round again replaces what it held, records of seconds that left
 * the ring are dropped and counted, threads keep their latest name. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "record/flight.h"
#include "record/record.h"

#define S 1000000000ULL
#define T0 (100 * S) /* the ring's start */

static void test_names(void **state)
{
	char buf[256];

	(void)state;
	/* 2026-11-25 03:15:02 UTC */
	assert_int_equal(record_ring_name(buf, sizeof(buf), "prof.data", 1795576502, 0), 0);
	assert_string_equal(buf, "prof-20261125T031502Z.data");
	assert_int_equal(record_ring_name(buf, sizeof(buf), "out/prof.data", 1795576502, 2), 0);
	assert_string_equal(buf, "out/prof-20261125T031502Z-2.data");
	/* no extension, a dot file, a dot in the directory only */
	assert_int_equal(record_ring_name(buf, sizeof(buf), "trace", 1795576502, 0), 0);
	assert_string_equal(buf, "trace-20261125T031502Z");
	assert_int_equal(record_ring_name(buf, sizeof(buf), "/tmp/.rec", 1795576502, 0), 0);
	assert_string_equal(buf, "/tmp/.rec-20261125T031502Z");
	assert_int_equal(record_ring_name(buf, sizeof(buf), "a.d/rec", 1795576502, 0), 0);
	assert_string_equal(buf, "a.d/rec-20261125T031502Z");
	assert_int_equal(record_ring_name(buf, 20, "prof.data", 1795576502, 0), -ENAMETOOLONG);
}

struct seen {
	uint64_t n, sched, first, last;
	uint32_t arg_sum;
};

static int count(void *ctx, int sched, uint64_t time, const struct flight_rec *r)
{
	struct seen *s = ctx;

	if (!s->n && !s->sched)
		s->first = time;
	s->last = time;
	if (sched)
		s->sched++;
	else
		s->n++;
	s->arg_sum += r->arg;
	return 0;
}

static struct seen window(const struct flight *fl, uint64_t from, uint64_t to)
{
	struct seen s = {0};

	assert_int_equal(flight__each(fl, from, to, count, &s), 0);
	return s;
}

static void sample(struct flight *fl, uint64_t time, uint32_t stack)
{
	assert_int_equal(rec_sink__sample(&fl->sink, time, 7, stack, 0, 0, 0), 0);
}

static void test_window(void **state)
{
	struct flight fl;
	struct seen s;

	(void)state;
	assert_int_equal(flight__init(&fl, T0, 3 * S), 0);
	for (uint64_t t = T0; t < T0 + 3 * S; t += S / 10)
		sample(&fl, t, 1);
	assert_int_equal(rec_sink__sched(&fl.sink, T0 + S / 2, 7, 0, 0, REC_SCHED_OUT, 1), 0);
	s = window(&fl, T0, T0 + 3 * S);
	assert_int_equal(s.n, 30);
	assert_int_equal(s.sched, 1);
	assert_int_equal(s.first, T0);
	s = window(&fl, T0 + S, T0 + 2 * S); /* [from, to) */
	assert_int_equal(s.n, 10);
	assert_int_equal(s.first, T0 + S);
	assert_int_equal(s.last, T0 + 2 * S - S / 10);
	flight__release(&fl);
}

static void test_seconds_come_round(void **state)
{
	struct flight fl;
	struct seen s;

	(void)state;
	assert_int_equal(flight__init(&fl, T0, 2 * S), 0); /* 4 buckets */
	for (uint64_t k = 0; k < 10; k++)
		sample(&fl, T0 + k * S, (uint32_t)k);
	/* seconds 6..9 are in the ring, 0..5 were replaced */
	s = window(&fl, T0, T0 + 10 * S);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.arg_sum, 6 + 7 + 8 + 9);
	assert_int_equal(fl.dropped, 0);
	/* a record of a second that left the ring: dropped, counted */
	sample(&fl, T0 + 2 * S, 99);
	assert_int_equal(fl.dropped, 1);
	/* a late one of a second still in it: kept in its own */
	sample(&fl, T0 + 7 * S + 5, 50);
	s = window(&fl, T0 + 7 * S, T0 + 8 * S);
	assert_int_equal(s.n, 2);
	flight__release(&fl);
}

static void test_threads(void **state)
{
	struct flight fl;

	(void)state;
	assert_int_equal(flight__init(&fl, T0, S), 0);
	/* the name (COMM) drained before the start (FORK): the latest wins */
	assert_int_equal(rec_sink__thread(&fl.sink, REC_THREAD_NAME, T0 + 5, 1, 2, 11), 0);
	assert_int_equal(rec_sink__thread(&fl.sink, REC_THREAD_START, T0 + 3, 1, 2, 10), 0);
	assert_int_equal(fl.nthreads, 1);
	assert_int_equal(fl.threads[0].name, 11);
	assert_int_equal(rec_sink__thread(&fl.sink, REC_THREAD_EXIT, T0 + 9, 1, 2, 0), 0);
	assert_int_equal(fl.threads[0].exit, T0 + 9);
	flight__release(&fl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_seconds_come_round),
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
