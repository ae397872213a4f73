/* test-timeline.c: the timeline's aggregate (svg/timeline-model.c) from a
 * written recording: time-ordered profiles keep each run's cell, the
 * filters keep the cells in step, samples land in the cell of their time,
 * rows follow the sampling rate, and the groups' pairs add up to the
 * cells' counts per frame. */
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

#include "lib/rec-writer.h"
#include "lib/recording.h"
#include "report/report.h"
#include "svg/svg-internal.h"

#define T0 5000000000ull /* the first sample's time, ns */

static char path[64];

static uint32_t str(struct rec_writer *w, const char *s)
{
	uint32_t id;

	assert_int_equal(rec_writer__string(w, s, strlen(s), &id), 0);
	return id;
}

/* A stack main;NAME (NAME's frame at addr). */
static uint32_t stack2(struct rec_writer *w, uint32_t m, uint32_t main_frame, uint64_t addr,
		       const char *name)
{
	struct rec_symbol sym = {0};
	uint32_t f, id;

	assert_int_equal(rec_writer__frame(w, 100, addr, 0, m, &f), 0);
	sym.frame = f;
	sym.name = str(w, name);
	assert_int_equal(rec_writer__symbol(w, &sym), 0);
	assert_int_equal(rec_writer__stack(w, 0, main_frame, &id), 0);
	assert_int_equal(rec_writer__stack(w, id, f, &id), 0);
	return id;
}

/* Thread 11 runs "a" every 10 ms over 2.5 s; thread 12 runs "b" every
 * 10 ms from 1.0 s to 1.5 s; one more "b" on thread 11 at 1.234 s. */
static void write_recording(void)
{
	struct rec_writer *w;
	struct rec_mapping map = {.start = 0x400000, .end = 0x500000, .pid = 100};
	struct rec_symbol sym = {0};
	uint32_t m, fm, sa, sb;
	uint64_t t;

	snprintf(path, sizeof(path), "/tmp/test-timeline-%d.data", (int)getpid());
	w = rec_writer__open(path);
	assert_non_null(w);
	map.path = str(w, "/app");
	assert_int_equal(rec_writer__mapping(w, &map, &m), 0);
	assert_int_equal(rec_writer__frame(w, 100, 0x401000, 0, m, &fm), 0);
	sym.frame = fm;
	sym.name = str(w, "main");
	assert_int_equal(rec_writer__symbol(w, &sym), 0);
	sa = stack2(w, m, fm, 0x402000, "a");
	sb = stack2(w, m, fm, 0x403000, "b");
	assert_int_equal(rec_writer__thread(w, REC_THREAD_START, T0, 100, 11, str(w, "main")), 0);
	assert_int_equal(rec_writer__thread(w, REC_THREAD_START, T0, 100, 12, str(w, "pool")), 0);
	for (t = 0; t < 2500; t += 10)
		assert_int_equal(rec_writer__sample(w, T0 + t * 1000000, 11, sa, 0, 0, 0), 0);
	for (t = 1000; t < 1500; t += 10)
		assert_int_equal(rec_writer__sample(w, T0 + t * 1000000 + 5, 12, sb, 1, 0, 0), 0);
	assert_int_equal(rec_writer__sample(w, T0 + 1234000000, 11, sb, 0, 0, 0), 0);
	assert_int_equal(rec_writer__close(w), 0);
}

static void load(struct recording *r, struct profile *p, const char *include)
{
	struct profile_build_opts o = {
	    .by = PROFILE_BY_THREAD, .time_order = 1, .cell_ns = 1000000000ull / TL_FINE_PER_SEC};
	unsigned char *data;
	size_t size;
	char err[256];

	write_recording();
	assert_int_equal(read_whole_file(path, &data, &size), 0);
	unlink(path);
	assert_int_equal(recording__parse(r, data, size, err, sizeof(err)), 0);
	assert_int_equal(profile__init(p), 0);
	assert_int_equal(profile__from_recording(p, r, &o), 0);
	assert_non_null(p->cells);
	assert_int_equal(p->cells_origin, T0);
	assert_int_equal(p->ncells, 250);
	if (include) {
		struct profile_filter f;

		assert_int_equal(profile_filter__init(&f, 0), 0);
		assert_int_equal(
		    profile_filter__add_regex(&f, PROFILE_INCLUDE, include, err, sizeof(err)), 0);
		assert_int_equal(profile__filter(p, &f), 0);
		profile_filter__release(&f);
	}
}

/* The frame named `name` in the model, or -1. */
static int frame_named(const struct tl_model *m, const struct profile *p, const char *name)
{
	size_t i;

	for (i = 1; i < m->nframes; i++)
		if (!strcmp(profile__name(p, m->tree.nodes[m->frames[i].node].name), name))
			return (int)i;
	return -1;
}

static uint64_t vlq(const char *s, size_t *at)
{
	static const char digits[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	uint64_t v = 0;
	unsigned shift = 0;
	int d;

	do {
		d = (int)(strchr(digits, s[(*at)++]) - digits);
		v |= (uint64_t)(d & 31) << shift;
		shift += 5;
	} while (d & 32);
	return v;
}

static void test_cells_rows_and_pairs(void **state)
{
	struct recording r;
	struct profile p;
	struct tl_model m;
	uint64_t sum = 0, pair_b = 0, cell_b = 0;
	uint32_t g, c;
	size_t at = 0;
	int fb;

	(void)state;
	load(&r, &p, NULL);
	assert_int_equal(tl_model__build(&m, &p, PROFILE_ROOT_NONE, 99), 0);
	assert_int_equal(m.columns, 3);
	assert_int_equal(m.rows, 50);
	assert_int_equal(m.cell_ms, 20);
	assert_int_equal(m.group, 1);
	assert_int_equal(m.total, 301);
	for (c = 0; c < m.columns * m.rows; c++)
		sum += m.counts[c];
	assert_int_equal(sum, 301);
	/* 1.234 s: column 1, row 11 (220..240 ms): two of a, the b, two of
	 * pool's b */
	assert_int_equal(m.counts[1 * 50 + 11], 5);
	/* pool's b from 1.0 s to 1.5 s: rows 0..24 of column 1 */
	assert_int_equal(m.counts[1 * 50 + 0], 2 + 2);
	assert_int_equal(m.counts[1 * 50 + 30], 2);
	fb = frame_named(&m, &p, "b");
	assert_true(fb > 0);
	/* the groups (cells here) hold b exactly where its samples are */
	for (g = 0; g < m.ngroups; g++) {
		uint64_t n = vlq(m.groups_vlq.s, &at), k, f = 0;

		for (k = 0; k < n; k++) {
			uint64_t cnt;

			f += vlq(m.groups_vlq.s, &at);
			cnt = vlq(m.groups_vlq.s, &at);
			if (f == (uint64_t)fb) {
				pair_b += cnt;
				if (g == 1 * 50 + 11)
					cell_b = cnt;
			}
		}
	}
	assert_int_equal(at, m.groups_vlq.len);
	assert_int_equal(pair_b, 51);
	assert_int_equal(cell_b, 3);
	tl_model__release(&m);
	/* fewer rows at a low rate */
	assert_int_equal(tl_model__build(&m, &p, PROFILE_ROOT_NONE, 19), 0);
	assert_int_equal(m.rows, 10);
	assert_int_equal(m.counts[1 * 10 + 2], 10 + 1 + 10); /* 1.2-1.3 s: a, the b, pool's b */
	tl_model__release(&m);
	profile__release(&p);
	recording__release(&r);
}

static void test_filter_keeps_cells_in_step(void **state)
{
	struct recording r;
	struct profile p;
	struct tl_model m;
	uint32_t c;
	uint64_t outside = 0;

	(void)state;
	load(&r, &p, "^b$");
	assert_int_equal(tl_model__build(&m, &p, PROFILE_ROOT_NONE, 99), 0);
	assert_int_equal(m.columns, 3); /* the recording's span, not b's */
	assert_int_equal(m.total, 51);
	for (c = 0; c < m.columns * m.rows; c++)
		if (c < 50 || c > 50 + 24)
			outside += m.counts[c];
	assert_int_equal(outside, 0);
	assert_int_equal(m.counts[1 * 50 + 11], 3); /* pool's two and main's b */
	assert_int_equal(frame_named(&m, &p, "a"), -1);
	tl_model__release(&m);
	profile__release(&p);
	recording__release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cells_rows_and_pairs),
	    cmocka_unit_test(test_filter_keeps_cells_in_step),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
