/* fuzz-sched.c: libFuzzer target for the scheduler view of a recording
 * (report/sched.h): any recording that loads must build into the model,
 * with buckets adding up to each thread's window, and write as CSV,
 * never crash or leak. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "lib/recfile.h"
#include "lib/recording.h"
#include "report/sched.h"

/* Recomputes every chunk's CRC, so mutations reach the records. */
static void reseal(unsigned char *d, size_t size)
{
	size_t off = sizeof(struct rec_file_header);

	while (off + sizeof(struct rec_chunk_header) <= size) {
		struct rec_chunk_header h;

		memcpy(&h, d + off, sizeof(h));
		if (h.size > size - off - sizeof(h))
			return;
		h.crc = (uint32_t)crc32(0, d + off + sizeof(h), h.size);
		memcpy(d + off, &h, sizeof(h));
		off += sizeof(h) + h.size;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct recording r;
	struct sched_profile sp;
	unsigned char *copy = malloc(size ? size : 1);
	char eb[256], *buf = NULL;
	size_t i, b, len = 0;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (size > 16 && (data[size - 1] & 1))
		reseal(copy, size);
	if (recording__parse(&r, copy, size, eb, sizeof(eb)) == 0 &&
	    sched_profile__from_recording(&sp, &r) == 0) {
		FILE *f = open_memstream(&buf, &len);

		for (i = 0; i < sp.nthreads; i++) {
			const struct sched_thread *t = &sp.threads[i];
			uint64_t sum = 0;

			for (b = 0; b < SCHED_NBUCKETS; b++)
				sum += t->ns[b];
			if (t->start < sp.start || t->end > sp.end || t->end < t->start ||
			    sum != t->end - t->start)
				abort();
		}
		if (f) {
			sched_profile__write_csv(&sp, f);
			fclose(f);
		}
		free(buf);
		sched_profile__release(&sp);
	}
	recording__release(&r);
	return 0;
}
