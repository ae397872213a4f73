/* test-lib.c: unit tests of the shared core: hash map, string table, and the
 * recording file writer + reader round trip, including cut-short and
 * corrupted files. */
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

#include "lib/keymap.h"
#include "lib/rec-writer.h"
#include "lib/recording.h"
#include "lib/strtab.h"

static void test_keymap_many(void **state)
{
	struct keymap m;
	uint32_t v, i;

	(void)state;
	assert_int_equal(keymap__init(&m, 0), 0);
	for (i = 0; i < 100000; i++)
		assert_int_equal(keymap__put(&m, i * 7919ULL, i & 3, i, NULL), 1);
	assert_int_equal(m.count, 100000);
	for (i = 0; i < 100000; i++) {
		assert_int_equal(keymap__get(&m, i * 7919ULL, i & 3, &v), 1);
		assert_int_equal(v, i);
	}
	assert_int_equal(keymap__get(&m, 5, 9, &v), 0);
	assert_int_equal(keymap__put(&m, 7919, 1, 42, &v), 0);
	assert_int_equal(v, 1); /* existing value kept and reported */
	assert_int_equal(keymap__set(&m, 7919, 1, 42), 0);
	assert_int_equal(keymap__get(&m, 7919, 1, &v), 1);
	assert_int_equal(v, 42);
	keymap__release(&m);
}

static void test_strtab_interning(void **state)
{
	struct strtab t;
	uint32_t a, b, c, i;
	char buf[32];

	(void)state;
	assert_int_equal(strtab__init(&t), 0);
	assert_string_equal(strtab__str(&t, 0), "");
	assert_int_equal(strtab__intern(&t, "main", 4, &a), 0);
	assert_int_equal(strtab__intern(&t, "mainx", 4, &b), 0); /* same 4 bytes */
	assert_int_equal(a, b);
	assert_int_equal(strtab__intern(&t, "a\0b", 3, &c), 0); /* embedded NUL */
	assert_int_not_equal(a, c);
	assert_int_equal(strtab__len(&t, c), 3);
	for (i = 0; i < 50000; i++) {
		int n = snprintf(buf, sizeof(buf), "fn_%u", i);

		assert_int_equal(strtab__intern(&t, buf, (size_t)n, &a), 0);
		assert_int_equal(a, i + 3);
	}
	assert_int_equal(strtab__find(&t, "fn_777", 6, &a), 1);
	assert_string_equal(strtab__str(&t, a), "fn_777");
	assert_int_equal(strtab__find(&t, "nope", 4, &a), 0);
	strtab__release(&t);
}

/* Writes a small recording: 2 threads (one renamed), 1 mapping, a stack of
 * 3 frames with 2 leaves, 5 samples, symbols for 2 frames. */
static void write_sample_file(const char *path, int finish)
{
	struct rec_writer *w = rec_writer__open(path);
	struct rec_mapping m = {.start = 0x1000, .end = 0x5000, .pgoff = 0, .pid = 10};
	struct rec_event_desc ev = {0};
	struct rec_symbol sym = {0};
	uint32_t name, map, f1, f2, f3, s1, s2, s3, ev_id;
	int i;

	assert_non_null(w);
	assert_int_equal(rec_writer__meta(w, "cmdline", "prof record -- x"), 0);
	assert_int_equal(rec_writer__string(w, "cpu-clock", 9, &ev.name), 0);
	assert_int_equal(rec_writer__event(w, &ev, &ev_id), 0);
	assert_int_equal(rec_writer__string(w, "main", 4, &name), 0);
	assert_int_equal(rec_writer__thread(w, REC_THREAD_START, 100, 10, 10, name), 0);
	assert_int_equal(rec_writer__string(w, "/bin/x", 6, &m.path), 0);
	assert_int_equal(rec_writer__mapping(w, &m, &map), 0);
	assert_int_equal(rec_writer__frame(w, 10, 0x1100, 0, map, &f1), 0);
	assert_int_equal(rec_writer__frame(w, 10, 0x1200, REC_FRAME_CALLER, map, &f2), 0);
	assert_int_equal(rec_writer__frame(w, 10, 0x1100, 0, map, &f3), 0);
	assert_int_equal(f1, f3); /* interned */
	assert_int_equal(rec_writer__stack(w, 0, f2, &s1), 0);
	assert_int_equal(rec_writer__stack(w, s1, f1, &s2), 0);
	assert_int_equal(rec_writer__stack(w, s1, f1, &s3), 0);
	assert_int_equal(s2, s3);
	for (i = 0; i < 5; i++)
		assert_int_equal(rec_writer__sample(w, 2000000000ULL + (uint64_t)i * 1000, 10,
						    i < 3 ? s2 : s1, 1, 0, 0), 0);
	assert_int_equal(rec_writer__flush(w), 0);
	assert_int_equal(rec_writer__string(w, "worker", 6, &name), 0);
	assert_int_equal(rec_writer__thread(w, REC_THREAD_NAME, 200, 10, 10, name), 0);
	sym.frame = f1;
	assert_int_equal(rec_writer__string(w, "leaf_fn", 7, &sym.name), 0);
	assert_int_equal(rec_writer__symbol(w, &sym), 0);
	assert_int_equal(rec_writer__stat(w, "samples", 5), 0);
	if (finish)
		assert_int_equal(rec_writer__close(w), 0);
	else
		rec_writer__abandon(w);
}

static int load(const char *path, struct recording *r, char *eb, size_t eblen)
{
	unsigned char *data;
	size_t size;

	assert_int_equal(read_whole_file(path, &data, &size), 0);
	return recording__parse(r, data, size, eb, eblen);
}

static void test_round_trip(void **state)
{
	char path[] = "/tmp/prof-test-XXXXXX", eb[256];
	struct recording r;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_sample_file(path, 1);
	assert_int_equal(load(path, &r, eb, sizeof(eb)), 0);
	assert_int_equal(r.complete, 1);
	assert_int_equal(r.nsamples, 5);
	assert_int_equal(r.nframes, 2);
	assert_int_equal(r.nstacks, 3);
	assert_int_equal(r.nthreads, 2);
	assert_string_equal(recording__str(&r, r.threads[1].name), "worker");
	assert_string_equal(recording__meta(&r, "cmdline"), "prof record -- x");
	assert_int_equal(recording__stat(&r, "samples"), 5);
	assert_int_equal(r.samples[4].time, 2000004000ULL);
	assert_int_equal(r.samples[0].cpu, 1);
	assert_string_equal(recording__str(&r, r.symbols[0].name), "leaf_fn");
	assert_int_equal(r.symbols[1].name, 0); /* frame 2 unresolved */
	assert_string_equal(recording__str(&r, r.mappings[0].path), "/bin/x");
	assert_int_equal(r.stacks[2].parent, 1);
	recording__release(&r);
	unlink(path);
}

/* Every prefix of a file loads without crashing: cut inside the header is an
 * error; cut later gives an incomplete recording with what came before. */
static void test_every_truncation(void **state)
{
	char path[] = "/tmp/prof-test-XXXXXX", eb[256];
	unsigned char *data;
	size_t size, cut;
	int fd = mkstemp(path);

	(void)state;
	close(fd);
	write_sample_file(path, 1);
	assert_int_equal(read_whole_file(path, &data, &size), 0);
	for (cut = 0; cut < size; cut++) {
		struct recording r;
		unsigned char *copy = malloc(cut ? cut : 1);
		int err;

		memcpy(copy, data, cut);
		err = recording__parse(&r, copy, cut, eb, sizeof(eb));
		if (cut < 16) {
			assert_int_equal(err, -EBADMSG);
		} else {
			assert_int_equal(err, 0);
			assert_int_equal(r.complete, 0);
			assert_true(r.cut_at <= cut);
			assert_true(r.nsamples == 0 || r.nsamples == 5);
		}
		recording__release(&r);
	}
	free(data);
	unlink(path);
}

static void test_abandoned_file_reads(void **state)
{
	char path[] = "/tmp/prof-test-XXXXXX", eb[256];
	struct recording r;
	int fd = mkstemp(path);

	(void)state;
	close(fd);
	write_sample_file(path, 0); /* like a SIGKILLed recorder: no END */
	assert_int_equal(load(path, &r, eb, sizeof(eb)), 0);
	assert_int_equal(r.complete, 0);
	assert_int_equal(r.nsamples, 5); /* flushed before the "kill" */
	recording__release(&r);
	unlink(path);
}

static void test_corruption_detected(void **state)
{
	char path[] = "/tmp/prof-test-XXXXXX", eb[256];
	unsigned char *data;
	size_t size, pos, detected = 0;
	int fd = mkstemp(path);

	(void)state;
	close(fd);
	write_sample_file(path, 1);
	assert_int_equal(read_whole_file(path, &data, &size), 0);
	/* Flip one byte at a time in every payload and header past the file
	 * header: the load must fail cleanly or (for bytes it does not
	 * depend on) succeed; never crash. Payload flips are all caught. */
	for (pos = 16; pos < size; pos++) {
		struct recording r;
		unsigned char *copy = malloc(size);
		int err;

		memcpy(copy, data, size);
		copy[pos] ^= 0x5a;
		err = recording__parse(&r, copy, size, eb, sizeof(eb));
		if (err) {
			assert_int_equal(err, -EBADMSG);
			assert_true(strlen(eb) > 0);
			detected++;
		}
		recording__release(&r);
	}
	assert_true(detected > (size - 16) / 2);
	free(data);
	unlink(path);
}

static void test_not_a_recording(void **state)
{
	struct recording r;
	char eb[256];
	unsigned char *d = malloc(32);

	(void)state;
	memcpy(d, "main;foo;bar 12\nmain;baz 3\n\0\0\0\0", 32);
	assert_int_equal(recording__parse(&r, d, 32, eb, sizeof(eb)), -EBADMSG);
	assert_non_null(strstr(eb, "not a prof recording"));
	recording__release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keymap_many),
		cmocka_unit_test(test_strtab_interning),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_every_truncation),
		cmocka_unit_test(test_abandoned_file_reads),
		cmocka_unit_test(test_corruption_detected),
		cmocka_unit_test(test_not_a_recording),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
