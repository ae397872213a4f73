/* test-rotate.c: the pieces of continuous recording that need no target:
 * --since/--until times (report/time-arg.c), rotated file names
 * (record/rotate-dir.c), and merging recordings cut to a range
 * (lib/rec-merge.c): samples of two files made one, stacks and names
 * unified, the range's samples kept and no other. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/rec-merge.h"
#include "lib/rec-writer.h"
#include "lib/recording.h"
#include "record/rotate.h"
#include "report/time-arg.h"

#define NS 1000000000ULL

static void test_time_arg(void **state)
{
	/* started at mono 1000 s = 2026-11-26T03:14:00Z */
	const uint64_t mono = 1000 * NS, wall = 1795662840ULL * NS;
	uint64_t t;

	(void)state;
	assert_int_equal(time_arg_parse("30", mono, wall, &t), 0);
	assert_int_equal(t, mono + 30 * NS);
	assert_int_equal(time_arg_parse("1.5", mono, wall, &t), 0);
	assert_int_equal(t, mono + 1500000000ULL);
	assert_int_equal(time_arg_parse("03:15", mono, wall, &t), 0);
	assert_int_equal(t, mono + 60 * NS);
	assert_int_equal(time_arg_parse("03:14:05.25", mono, wall, &t), 0);
	assert_int_equal(t, mono + 5250000000ULL);
	assert_int_equal(time_arg_parse("2026-11-26T03:16:00Z", mono, wall, &t), 0);
	assert_int_equal(t, mono + 120 * NS);
	assert_int_equal(time_arg_parse("03:13", mono, wall, &t), 0); /* before the start */
	assert_int_equal(t, mono - 60 * NS);
	assert_int_equal(time_arg_parse("03:14", mono, 0, &t), -ENODATA);
	assert_int_equal(time_arg_parse("-1", mono, wall, &t), -EINVAL);
	assert_int_equal(time_arg_parse("1s", mono, wall, &t), -EINVAL);
	assert_int_equal(time_arg_parse("25:99x", mono, wall, &t), -EINVAL);
	assert_int_equal(time_arg_parse("", mono, wall, &t), -EINVAL);
}

static void test_names(void **state)
{
	(void)state;
	assert_true(rotate_name_ok("prof-20261126T031500Z.data"));
	assert_true(rotate_name_ok("prof-20261126T031500Z-3.data"));
	assert_false(rotate_name_ok("prof-20261126T031500Z-0.data"));
	assert_false(rotate_name_ok("prof-20261126T031500Z.data.tmp"));
	assert_false(rotate_name_ok("prof-2026112T031500Z.data"));
	assert_false(rotate_name_ok("x-20261126T031500Z.data"));
	assert_false(rotate_name_ok(".prof-20261126T031500Z.data"));
}

/* A recording at path: thread tid named name, samples of stack main;f at
 * times t0 + i * step (i < n), f at address addr. */
static void write_one(const char *path, uint64_t start, uint32_t tid, const char *name,
		      uint64_t addr, uint64_t t0, uint64_t step, int n)
{
	struct rec_writer *w = rec_writer__open(path);
	uint32_t s_name, s_main, s_f, fm, ff, n1, n2;
	struct rec_event_desc ev = {0};
	struct rec_symbol sym = {0};
	char buf[32];

	assert_non_null(w);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)start);
	assert_int_equal(rec_writer__meta(w, "start-monotonic-ns", buf), 0);
	assert_int_equal(rec_writer__string(w, name, strlen(name), &s_name), 0);
	assert_int_equal(rec_writer__string(w, "main", 4, &s_main), 0);
	assert_int_equal(rec_writer__string(w, "f", 1, &s_f), 0);
	assert_int_equal(rec_writer__string(w, "cpu-clock", 9, &ev.name), 0);
	assert_int_equal(rec_writer__event(w, &ev, &fm), 0);
	assert_int_equal(rec_writer__thread(w, REC_THREAD_START, start, 7, tid, s_name), 0);
	assert_int_equal(rec_writer__frame(w, 7, 0x1000, 0, REC_NO_MAPPING, &fm), 0);
	assert_int_equal(rec_writer__frame(w, 7, addr, 0, REC_NO_MAPPING, &ff), 0);
	assert_int_equal(rec_writer__stack(w, 0, fm, &n1), 0);
	assert_int_equal(rec_writer__stack(w, n1, ff, &n2), 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(rec_writer__sample(w, t0 + (uint64_t)i * step, tid, n2, 0, 0, 0),
				 0);
	assert_int_equal(rec_writer__flush(w), 0);
	sym.frame = fm;
	sym.name = s_main;
	assert_int_equal(rec_writer__symbol(w, &sym), 0);
	sym.frame = ff;
	sym.name = s_f;
	assert_int_equal(rec_writer__symbol(w, &sym), 0);
	assert_int_equal(rec_writer__stat(w, "samples", (uint64_t)n), 0);
	assert_int_equal(rec_writer__close(w), 0);
}

static void load(const char *path, struct recording *r)
{
	unsigned char *data;
	size_t size;
	char msg[256];

	assert_int_equal(read_whole_file(path, &data, &size), 0);
	assert_int_equal(recording__parse(r, data, size, msg, sizeof(msg)), 0);
}

static void test_merge(void **state)
{
	char dir[] = "/tmp/test-rotate-XXXXXX", a[64], b[64], m[64];
	struct recording ra, rb, rm;
	const struct recording *both[2] = {&ra, &rb};
	uint64_t kept;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a.data", dir);
	snprintf(b, sizeof(b), "%s/b.data", dir);
	snprintf(m, sizeof(m), "%s/m.data", dir);
	/* one thread, the same stack, in two files: 10 samples each, 1 s apart */
	write_one(a, 100 * NS, 42, "worker", 0x2000, 100 * NS, NS / 10, 10);
	write_one(b, 101 * NS, 42, "worker", 0x2000, 101 * NS, NS / 10, 10);
	load(a, &ra);
	load(b, &rb);
	assert_int_equal(rec_merge__write(both, 2, 0, UINT64_MAX, m, &kept), 0);
	assert_int_equal(kept, 20);
	load(m, &rm);
	assert_int_equal(rm.nsamples, 20);
	assert_int_equal(rm.nframes, 2); /* unified */
	assert_int_equal(rm.nstacks, 3); /* 0, main, main;f */
	assert_int_equal(rm.nevents, 1);
	assert_int_equal(recording__stat(&rm, "samples"), 20);
	assert_string_equal(recording__str(&rm, rm.symbols[1].name), "f");
	assert_int_equal(rec_merge__start_mono(&rm), 100 * NS);
	recording__release(&rm);
	/* [100.55 s, 101.25 s): samples at 100.6 .. 100.9 and 101.0 .. 101.2 */
	assert_int_equal(rec_merge__write(both, 2, 100550000000ULL, 101250000000ULL, m, &kept), 0);
	assert_int_equal(kept, 7);
	load(m, &rm);
	assert_int_equal(rm.nsamples, 7);
	for (size_t i = 0; i < rm.nsamples; i++)
		assert_true(rm.samples[i].time >= 100550000000ULL &&
			    rm.samples[i].time < 101250000000ULL);
	recording__release(&rm);
	recording__release(&ra);
	recording__release(&rb);
	unlink(a);
	unlink(b);
	unlink(m);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_time_arg),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
