/* test-jit-timeline.c: JIT maps over time (symbolize/jit-timeline.c): code
 * named by the snapshot that closed its epoch, else by the one that opened
 * it; unchanged entries kept once across snapshots; the bounds and the
 * order checked; and symbolize_recording() naming frames of two epochs at
 * one address by the code there in each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/rec-writer.h"
#include "lib/recording.h"
#include "symbolize/jit-timeline.h"
#include "symbolize/perf-map.h"
#include "symbolize/symbolize.h"

static struct perf_map *map_of(const char *text)
{
	struct perf_map *m = perf_map__parse(text, strlen(text));

	assert_non_null(m);
	return m;
}

/* add TEXT as the snapshot closing epoch E of pid 7; returns *gone. */
static size_t add(struct jit_timeline *t, uint32_t e, const char *text)
{
	struct perf_map *m = map_of(text);
	size_t gone = 99;

	assert_int_equal(jit_timeline__add(t, 7, e, m, &gone), 0);
	perf_map__free(m);
	return gone;
}

static void expect(struct jit_timeline *t, uint32_t epoch, uint64_t addr, enum jit_found want,
		   const char *name, uint64_t off)
{
	const char *n = NULL;
	uint64_t o = 0;

	assert_int_equal(jit_timeline__lookup(t, 7, epoch, addr, &n, &o), want);
	if (want) {
		assert_string_equal(n, name);
		assert_int_equal(o, off);
	}
}

static void test_epochs(void **state)
{
	struct jit_timeline *t = jit_timeline__new();

	(void)state;
	assert_non_null(t);
	/* epoch 0 closed with a at 0x1000; epoch 1 with a and b; epoch 2 with
	 * c where a was (a freed, its memory reused). */
	assert_int_equal(add(t, 0, "1000 100 a\n"), 0);
	assert_int_equal(add(t, 1, "1000 100 a\n2000 100 b\n"), 0);
	assert_int_equal(add(t, 2, "1000 80 c\n2000 100 b\n"), 1);
	/* a and b kept once however many snapshots held them */
	assert_int_equal(jit_timeline__entries(t), 3);
	expect(t, 0, 0x1010, JIT_AT_END, "a", 0x10);
	expect(t, 1, 0x1010, JIT_AT_END, "a", 0x10);
	expect(t, 2, 0x1010, JIT_AT_END, "c", 0x10);
	/* in c's range no more, a's still: a, from the snapshot that opened 2 */
	expect(t, 2, 0x1090, JIT_AT_START, "a", 0x90);
	expect(t, 0, 0x2000, JIT_NOT_FOUND, NULL, 0);
	expect(t, 1, 0x20ff, JIT_AT_END, "b", 0xff);
	/* epoch 3 is not closed: the map at the end names it, else 2's */
	assert_int_equal(jit_timeline__closed(t, 7, 2), 1);
	assert_int_equal(jit_timeline__closed(t, 7, 3), 0);
	expect(t, 3, 0x1010, JIT_AT_START, "c", 0x10);
	/* another process has none of it */
	assert_int_equal(jit_timeline__lookup(t, 8, 1, 0x1010, &(const char *){NULL},
					      &(uint64_t){0}), JIT_NOT_FOUND);
	jit_timeline__free(t);
}

static void test_order_and_bounds(void **state)
{
	struct jit_timeline *t = jit_timeline__new();
	struct perf_map *m = map_of("1000 100 a\n");

	(void)state;
	assert_int_equal(jit_timeline__add(t, 7, 3, m, NULL), 0);
	/* epochs only go forward */
	assert_int_equal(jit_timeline__add(t, 7, 3, m, NULL), -EINVAL);
	assert_int_equal(jit_timeline__add(t, 7, 2, m, NULL), -EINVAL);
	assert_int_equal(jit_timeline__add(t, 7, 5, m, NULL), 0);
	/* the same code in this snapshot and the last one: kept once */
	assert_int_equal(jit_timeline__entries(t), 1);
	{
		const char *n;
		uint64_t o;

		assert_int_equal(jit_timeline__lookup(t, 7, 4, 0x1001, &n, &o), JIT_AT_END);
	}
	perf_map__free(m);
	jit_timeline__free(t);
	jit_timeline__free(NULL);
}

/* symbolize_recording(): the frame of epoch 0 and the frame of epoch 1 at
 * one address named by the code there in each; a frame of the last epoch
 * by the map at the end (this process's /tmp/perf-PID.map). */
static void test_symbolize_epochs(void **state)
{
	char path[] = "/tmp/test-jit-timeline.XXXXXX", map[64], err[256];
	uint32_t pid = (uint32_t)getpid(), f[3];
	struct jit_timeline *t = jit_timeline__new();
	struct symbolize_stats st;
	struct rec_writer *w;
	struct recording r;
	unsigned char *data;
	size_t size;
	FILE *fp;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	snprintf(map, sizeof(map), "/tmp/perf-%u.map", pid);
	fp = fopen(map, "w");
	assert_non_null(fp);
	fputs("5000 100 at_end\n", fp);
	fclose(fp);
	{
		struct perf_map *m0 = map_of("5000 100 first\n"), *m1 = map_of("5000 100 second\n");

		assert_int_equal(jit_timeline__add(t, pid, 0, m0, NULL), 0);
		assert_int_equal(jit_timeline__add(t, pid, 1, m1, NULL), 0);
		perf_map__free(m0);
		perf_map__free(m1);
	}
	w = rec_writer__open(path);
	assert_non_null(w);
	for (uint32_t e = 0; e < 3; e++)
		assert_int_equal(rec_writer__frame(w, pid, 0x5010, e << REC_FRAME_EPOCH_SHIFT,
						   REC_NO_MAPPING, &f[e]), 0);
	assert_int_equal(symbolize_recording(w, &(struct symbolize_opts){
		.kallsyms_path = "/dev/null", .jit_timeline = t}, &st), 0);
	assert_int_equal(st.jit_resolved, 3);
	assert_int_equal(st.jit_by_epoch, 2);
	assert_int_equal(rec_writer__close(w), 0);
	assert_int_equal(read_whole_file(path, &data, &size), 0);
	assert_int_equal(recording__parse(&r, data, size, err, sizeof(err)), 0);
	assert_string_equal(recording__str(&r, r.symbols[f[0]].name), "first");
	assert_string_equal(recording__str(&r, r.symbols[f[1]].name), "second");
	assert_string_equal(recording__str(&r, r.symbols[f[2]].name), "at_end");
	assert_int_equal(r.symbols[f[2]].offset, 0x10);
	recording__release(&r);
	unlink(map);
	unlink(path);
	jit_timeline__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_epochs),
		cmocka_unit_test(test_order_and_bounds),
		cmocka_unit_test(test_symbolize_epochs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
