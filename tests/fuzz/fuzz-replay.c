/* fuzz-replay.c: libFuzzer target for the replay of RAW chunks (the kernel
 * records a recorder killed while deferring leaves, record/defer.c): any
 * bytes must be decoded or dropped cleanly, never crash or leak. The first
 * byte picks the sample layout (no leaf fix, the stack leaf fix, dwarf). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/recorder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct record_opts opts = {.quiet = 1};
	struct record_summary sum;
	struct prof_error err;
	struct recorder rec;
	unsigned char *copy;

	if (!size)
		return 0;
	copy = malloc(size); /* aligned, as the replay's buffer is */
	if (!recorder_init(&rec, &opts, &sum, &err))
		rec.w = rec_writer__open("/dev/null");
	if (copy && rec.w &&
	    (data[0] % 3 == 0 || !ustack_setup_replay(&rec, data[0] % 3 == 2, 0, 512))) {
		memcpy(copy, data + 1, size - 1);
		defer_replay(&rec, copy, size - 1);
	}
	free(copy);
	if (rec.w)
		rec_writer__abandon(rec.w);
	rec.w = NULL;
	recorder_release(&rec);
	return 0;
}
