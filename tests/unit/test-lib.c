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
#include <zlib.h>

#include "lib/keymap.h"
#include "lib/rec-writer.h"
#include "lib/recording.h"
#include "lib/strtab.h"
#include "lib/text-clean.h"

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

/* rec_writer__forget_stacks: the ids start again (frames from 0, stack
 * nodes from 1), what was interned before is not found, strings and
 * mappings stay. */
static void test_writer_forget_stacks(void **state)
{
	struct rec_writer *w = rec_writer__open("/dev/null");
	struct rec_mapping m = {.start = 0x1000, .end = 0x5000, .pid = 10};
	uint32_t map, f1, f2, s1, s2, id, str;

	(void)state;
	assert_non_null(w);
	assert_int_equal(rec_writer__string(w, "/bin/x", 6, &m.path), 0);
	assert_int_equal(rec_writer__mapping(w, &m, &map), 0);
	assert_int_equal(rec_writer__frame(w, 10, 0x1100, 0, map, &f1), 0);
	assert_int_equal(rec_writer__frame(w, 10, 0x1200, 0, map, &f2), 0);
	assert_int_equal(rec_writer__stack(w, 0, f1, &s1), 0);
	assert_int_equal(rec_writer__stack(w, s1, f2, &s2), 0);
	assert_int_equal(f2, 1);
	assert_int_equal(s2, 2);
	assert_int_equal(rec_writer__forget_stacks(w), 0);
	assert_int_equal(rec_writer__nframes(w), 0);
	assert_int_equal(rec_writer__frame_lookup(w, 10, 0x1200, 0, &id), 0);
	assert_int_equal(rec_writer__frame(w, 10, 0x1200, 0, map, &f1), 0);
	assert_int_equal(f1, 0);
	assert_int_equal(rec_writer__frames(w)[0].addr, 0x1200);
	assert_int_equal(rec_writer__stack(w, 0, f1, &s1), 0);
	assert_int_equal(s1, 1);
	assert_int_equal(rec_writer__nmappings(w), 1);
	assert_int_equal(rec_writer__string(w, "/bin/x", 6, &str), 0);
	assert_int_equal(str, m.path);
	assert_int_equal(rec_writer__close(w), 0);
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

/* lib/text-clean.h: C0 control bytes and DEL become '?', nothing else
 * changes (UTF-8 and lengths kept). */
static void test_text_clean(void **state)
{
	char s[] = "a\033]0;x\007\033[2J\t\n\177z \xc3\xa9", buf[8], *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_false(text_is_clean(s, strlen(s)));
	assert_true(text_is_clean("main;\xc3\xa9 x", 9));
	f = open_memstream(&out, &len);
	assert_int_equal(text_write(f, "x\0y\033", 4), 4);
	assert_int_not_equal(text_put(f, "|\r|"), EOF);
	fclose(f);
	assert_int_equal(len, 7);
	assert_memory_equal(out, "x?y?|?|", 7);
	free(out);
	assert_string_equal(text_clean_copy(buf, sizeof(buf), "ab\033cdefghij"), "ab?cdef");
	assert_string_equal(text_clean(s), "a?]0;x??[2J???z \xc3\xa9");
}

/* The offsets of the chunks of data[0..size), into offs; their count. */
static size_t chunk_offsets(const unsigned char *data, size_t size, size_t *offs, size_t max)
{
	size_t off = 16, n = 0;

	while (off + sizeof(struct rec_chunk_header) <= size && n < max) {
		struct rec_chunk_header h;

		memcpy(&h, data + off, sizeof(h));
		offs[n++] = off;
		off += sizeof(h) + h.size;
	}
	return n;
}

/* A size field that runs past the end is "corrupt" when chunks follow the
 * bad one (finished or not), a cut file only when the bad one is the last;
 * the message names the byte. */
static void test_bad_size_is_corrupt(void **state)
{
	char path[] = "/tmp/prof-test-XXXXXX", eb[256], want[64];
	unsigned char *data;
	size_t size, offs[64], n, i;
	int finish, fd = mkstemp(path);

	(void)state;
	close(fd);
	for (finish = 0; finish <= 1; finish++) {
		write_sample_file(path, finish);
		assert_int_equal(read_whole_file(path, &data, &size), 0);
		n = chunk_offsets(data, size, offs, 64);
		assert_true(n > 4);
		for (i = 0; i + finish < n; i++) {
			struct recording r;
			unsigned char *copy = malloc(size);
			uint32_t huge = 0x7fffffff;
			int err;

			memcpy(copy, data, size);
			memcpy(copy + offs[i] + 4, &huge, 4);
			err = recording__parse(&r, copy, size, eb, sizeof(eb));
			if (!finish && i == n - 1) {
				/* The last chunk of a killed recorder's file: cut. */
				assert_int_equal(err, 0);
				assert_int_equal(r.complete, 0);
				assert_int_equal(r.cut_at, offs[i]);
			} else {
				assert_int_equal(err, -EBADMSG);
				snprintf(want, sizeof(want), "corrupt chunk at byte %zu (", offs[i]);
				assert_non_null(strstr(eb, want));
			}
			recording__release(&r);
		}
		free(data);
	}
	unlink(path);
}

/* data with the chunk at `off` (`len` bytes, header included) inserted
 * again right after itself, or a STOP chunk appended (len 0). */
static unsigned char *with_copy(const unsigned char *data, size_t size, size_t off, size_t len,
				size_t *out_size)
{
	unsigned char *d = malloc(size + len);

	memcpy(d, data, off + len);
	memcpy(d + off + len, data + off, size - off);
	*out_size = size + len;
	return d;
}

static void test_duplicate_chunks_skipped(void **state)
{
	char path[] = "/tmp/prof-test-XXXXXX", eb[256];
	unsigned char *data;
	size_t size, offs[64], n, i, dups = 0;
	int fd = mkstemp(path);

	(void)state;
	close(fd);
	write_sample_file(path, 1);
	assert_int_equal(read_whole_file(path, &data, &size), 0);
	n = chunk_offsets(data, size, offs, 64);
	/* Each chunk of the file in turn written twice: every count and name
	 * is what the original gives. */
	for (i = 0; i + 1 < n; i++) {
		struct rec_chunk_header h;
		struct recording r;
		size_t dsize;
		unsigned char *d;

		memcpy(&h, data + offs[i], sizeof(h));
		d = with_copy(data, size, offs[i], sizeof(h) + h.size, &dsize);
		assert_int_equal(recording__parse(&r, d, dsize, eb, sizeof(eb)), 0);
		assert_int_equal(r.complete, 1);
		assert_int_equal(r.nsamples, 5);
		assert_int_equal(r.nframes, 2);
		assert_int_equal(r.nstacks, 3);
		assert_int_equal(r.nthreads, 2);
		assert_string_equal(recording__str(&r, r.threads[1].name), "worker");
		assert_string_equal(recording__str(&r, r.symbols[0].name), "leaf_fn");
		if (h.type == REC_CHUNK_SAMPLES || h.type == REC_CHUNK_STRINGS ||
		    h.type == REC_CHUNK_STACKS || h.type == REC_CHUNK_THREADS) {
			assert_int_equal(r.duplicates, 1);
			assert_int_equal(r.duplicate_of, offs[i]);
			assert_int_equal(r.duplicate_at, offs[i] + sizeof(h) + h.size);
			dups++;
		} else if (h.type == REC_CHUNK_META || h.type == REC_CHUNK_STATS ||
			   h.type == REC_CHUNK_SYMBOLS) {
			assert_int_equal(r.duplicates, 0); /* the last one wins anyway */
		}
		recording__release(&r);
	}
	assert_true(dups >= 5); /* both STRINGS, THREADS, STACKS, SAMPLES */
	free(data);
	unlink(path);
}

/* A STOP chunk (recfile.h) after the last complete chunk says why the
 * recorder stopped. */
static void test_stop_chunk(void **state)
{
	char path[] = "/tmp/prof-test-XXXXXX", eb[256];
	unsigned char *data, *d;
	size_t size;
	struct rec_chunk_header h = {REC_CHUNK_STOP, 4, 0, 0};
	uint32_t e = ENOSPC;
	struct recording r;
	int fd = mkstemp(path);

	(void)state;
	close(fd);
	write_sample_file(path, 0);
	assert_int_equal(read_whole_file(path, &data, &size), 0);
	h.crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), (const unsigned char *)&e, 4);
	d = realloc(data, size + sizeof(h) + 4);
	memcpy(d + size, &h, sizeof(h));
	memcpy(d + size + sizeof(h), &e, 4);
	assert_int_equal(recording__parse(&r, d, size + sizeof(h) + 4, eb, sizeof(eb)), 0);
	assert_int_equal(r.complete, 0);
	assert_int_equal(r.stop_errno, ENOSPC);
	assert_int_equal(r.nsamples, 5);
	recording__release(&r);
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
		cmocka_unit_test(test_writer_forget_stacks),
		cmocka_unit_test(test_every_truncation),
		cmocka_unit_test(test_abandoned_file_reads),
		cmocka_unit_test(test_corruption_detected),
		cmocka_unit_test(test_text_clean),
		cmocka_unit_test(test_bad_size_is_corrupt),
		cmocka_unit_test(test_duplicate_chunks_skipped),
		cmocka_unit_test(test_stop_chunk),
		cmocka_unit_test(test_not_a_recording),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
