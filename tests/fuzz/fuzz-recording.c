/* fuzz-recording.c: libFuzzer target for the recording reader: any bytes
 * must load or be rejected cleanly, never crash or leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "lib/recfile.h"
#include "lib/recording.h"

/* Recomputes every chunk's CRC, so mutations reach the record parsers
 * instead of stopping at the checksum. */
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
	unsigned char *copy = malloc(size ? size : 1);
	char eb[256];
	size_t i;
	volatile size_t sink = 0;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (size > 16 && (data[size - 1] & 1))
		reseal(copy, size);
	if (recording__parse(&r, copy, size, eb, sizeof(eb)) == 0) {
		/* Touch everything the parser vouched for. */
		for (i = 0; i < r.nsamples; i++)
			sink += r.stacks[r.samples[i].stack].frame;
		for (i = 1; i < r.nstacks; i++)
			sink += r.frames[r.stacks[i].frame].addr != 0;
		for (i = 0; i < r.nframes; i++)
			sink += strlen(recording__str(&r, r.symbols[i].name));
		for (i = 0; i < r.nmeta; i++)
			sink += strlen(r.meta[i].key) + strlen(r.meta[i].value);
	}
	recording__release(&r);
	return 0;
}
