/* test-usdt-args.c: probe arguments in a recording (chunk 14, ARGS,
 * lib/rec-args.h): the record encoding round-trips extreme values and
 * refuses every cut or overlong record; the writer and reader agree across
 * several flushes; the reader refuses args of undefined samples, out of
 * order, or naming undefined strings; full thread names (kind 4) read. */
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

#include "lib/rec-args.h"
#include "lib/rec-writer.h"
#include "lib/recording.h"

static void test_encode_round_trip(void **state)
{
	unsigned char buf[REC_ARGS_RECORD_MAX];
	int64_t in[REC_ARGS_MAX] = {0, -1, 1, INT64_MIN, INT64_MAX, 42, -300, 1LL << 40,
				    127, 128, -64, -65};
	int64_t out[REC_ARGS_MAX];
	uint32_t delta, mask;
	unsigned n;
	size_t len, pos = 0;

	(void)state;
	len = rec_args_encode(buf, 123456, REC_ARGS_MAX, 0x5, in);
	assert_true(len <= REC_ARGS_RECORD_MAX);
	assert_int_equal(rec_args_decode(buf, len, &pos, &delta, &n, &mask, out), 0);
	assert_int_equal(pos, len);
	assert_int_equal(delta, 123456);
	assert_int_equal(n, REC_ARGS_MAX);
	assert_int_equal(mask, 0x5);
	assert_memory_equal(in, out, sizeof(in));
	/* Small values stay small: an allocation (class id, size) in 6 bytes. */
	len = rec_args_encode(buf, 0, 2, 1, (int64_t[]){300, 24});
	assert_int_equal(len, 6);
	/* Every cut is refused, never read past. */
	len = rec_args_encode(buf, 7, 3, 0, in);
	for (size_t cut = 0; cut < len; cut++) {
		unsigned char *copy = malloc(cut ? cut : 1);

		memcpy(copy, buf, cut);
		pos = 0;
		assert_int_equal(rec_args_decode(copy, cut, &pos, &delta, &n, &mask, out), -EBADMSG);
		free(copy);
	}
	/* Too many arguments, a mask naming absent ones, an 11-byte varint. */
	buf[0] = 0;
	buf[1] = REC_ARGS_MAX + 1;
	pos = 0;
	assert_int_equal(rec_args_decode(buf, 3, &pos, &delta, &n, &mask, out), -EBADMSG);
	memcpy(buf, "\x00\x01\x02\x00", 4);
	pos = 0;
	assert_int_equal(rec_args_decode(buf, 4, &pos, &delta, &n, &mask, out), -EBADMSG);
	memset(buf, 0xff, 11);
	buf[11] = 0;
	pos = 0;
	assert_int_equal(rec_args_decode(buf, 12, &pos, &delta, &n, &mask, out), -EBADMSG);
}

static int load(const char *path, struct recording *r, char *eb, size_t eblen)
{
	unsigned char *data;
	size_t size;

	assert_int_equal(read_whole_file(path, &data, &size), 0);
	return recording__parse(r, data, size, eb, eblen);
}

static void test_writer_reader(void **state)
{
	char path[] = "/tmp/prof-args-XXXXXX", eb[256];
	int fd = mkstemp(path);
	struct rec_writer *w;
	struct recording r;
	struct rec_event_desc ev = {0};
	uint32_t id, cls, name, stack, frame;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	w = rec_writer__open(path);
	assert_non_null(w);
	assert_int_equal(rec_writer__string(w, "usdt:p:n", 8, &ev.name), 0);
	assert_int_equal(rec_writer__event(w, &ev, &id), 0);
	assert_int_equal(rec_writer__string(w, "java.lang.String", 16, &cls), 0);
	assert_int_equal(rec_writer__string(w, "AsyncAppender-Worker-async", 26, &name), 0);
	assert_int_equal(rec_writer__thread(w, REC_THREAD_FULLNAME, 5, 10, 11, name), 0);
	assert_int_equal(rec_writer__frame(w, 10, 0x1000, 0, REC_NO_MAPPING, &frame), 0);
	assert_int_equal(rec_writer__stack(w, 0, frame, &stack), 0);
	for (int i = 0; i < 300; i++) {
		int64_t v[2] = {cls, i * 8};

		assert_int_equal(rec_writer__sample(w, 1000 + (uint64_t)i, 11, stack, 0, 0, 0), 0);
		/* every third sample has no arguments (unreadable) */
		if (i % 3)
			assert_int_equal(rec_writer__args(w, (uint64_t)i, 2, 1, v), 0);
		if (i % 100 == 99)
			assert_int_equal(rec_writer__flush(w), 0);
	}
	/* Out of order and unknown samples are refused by the writer too. */
	assert_int_equal(rec_writer__args(w, 5, 0, 0, NULL), -EINVAL);
	assert_int_equal(rec_writer__args(w, 300, 0, 0, NULL), -EINVAL);
	assert_int_equal(rec_writer__close(w), 0);

	assert_int_equal(load(path, &r, eb, sizeof(eb)), 0);
	assert_int_equal(r.nsamples, 300);
	assert_int_equal(r.nargs, 200);
	for (int i = 0; i < 300; i++) {
		const struct rec_args_ref *a = recording__args(&r, (size_t)i);

		if (!(i % 3)) {
			assert_null(a);
			continue;
		}
		assert_non_null(a);
		assert_int_equal(a->n, 2);
		assert_int_equal(a->strmask, 1);
		assert_string_equal(recording__str(&r, (uint32_t)r.argvals[a->first]),
				    "java.lang.String");
		assert_int_equal(r.argvals[a->first + 1], i * 8);
	}
	assert_int_equal(r.nthreads, 1);
	assert_int_equal(r.threads[0].kind, REC_THREAD_FULLNAME);
	recording__release(&r);
	unlink(path);
}

/* A file whose only ARGS chunk is replaced by `payload` (CRC fixed). */
static int parse_with_args(const unsigned char *payload, size_t len, uint32_t count, char *eb,
			   size_t eblen)
{
	char path[] = "/tmp/prof-args-XXXXXX";
	int fd = mkstemp(path);
	struct rec_writer *w;
	struct recording r;
	struct rec_chunk_header h = {.type = REC_CHUNK_ARGS, .size = (uint32_t)len, .count = count};
	uint32_t frame, stack;
	FILE *f;
	int err;

	close(fd);
	w = rec_writer__open(path);
	assert_int_equal(rec_writer__frame(w, 1, 0x1000, 0, REC_NO_MAPPING, &frame), 0);
	assert_int_equal(rec_writer__stack(w, 0, frame, &stack), 0);
	assert_int_equal(rec_writer__sample(w, 1000, 1, stack, 0, 0, 0), 0);
	assert_int_equal(rec_writer__sample(w, 1001, 1, stack, 0, 0, 0), 0);
	assert_int_equal(rec_writer__flush(w), 0);
	h.crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), payload, (uInt)len);
	f = fopen(path, "ab");
	assert_non_null(f);
	assert_int_equal(fwrite(&h, sizeof(h), 1, f), 1);
	assert_int_equal(fwrite(payload, 1, len, f), len);
	fclose(f);
	rec_writer__abandon(w);
	err = load(path, &r, eb, eblen);
	recording__release(&r);
	unlink(path);
	return err;
}

static void test_reader_refuses(void **state)
{
	char eb[256];
	/* u32 first sample, then records: delta, n, mask, values */
	static const unsigned char ok[] = {0, 0, 0, 0, 0, 1, 0, 2, 1, 1, 0, 4};
	static const unsigned char no_sample[] = {2, 0, 0, 0, 0, 1, 0, 2};
	static const unsigned char repeated[] = {1, 0, 0, 0, 0, 1, 0, 2, 0, 1, 0, 2};
	static const unsigned char bad_string[] = {0, 0, 0, 0, 0, 1, 1, 0x7e};
	static const unsigned char stray[] = {0, 0, 0, 0, 0, 1, 0, 2, 9};

	(void)state;
	assert_int_equal(parse_with_args(ok, sizeof(ok), 2, eb, sizeof(eb)), 0);
	assert_int_equal(parse_with_args(no_sample, sizeof(no_sample), 1, eb, sizeof(eb)), -EBADMSG);
	assert_non_null(strstr(eb, "undefined or repeated sample"));
	assert_int_equal(parse_with_args(repeated, sizeof(repeated), 2, eb, sizeof(eb)), -EBADMSG);
	assert_int_equal(parse_with_args(bad_string, sizeof(bad_string), 1, eb, sizeof(eb)),
			 -EBADMSG);
	assert_non_null(strstr(eb, "undefined string"));
	assert_int_equal(parse_with_args(stray, sizeof(stray), 1, eb, sizeof(eb)), -EBADMSG);
	assert_int_equal(parse_with_args(ok, 2, 0, eb, sizeof(eb)), -EBADMSG);
	assert_int_equal(parse_with_args(ok, sizeof(ok), 3, eb, sizeof(eb)), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_round_trip),
		cmocka_unit_test(test_writer_reader),
		cmocka_unit_test(test_reader_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
