/* fuzz-fp-detect.c: libFuzzer target for symbolize/fp-detect.c, which
 * `prof record --call-graph auto` runs on the targets' executables, their
 * own libraries and their C library: files a target's owner can write.
 * The input is the file (written to a memfd): fp_detect_fd() judges its
 * CFI and fp_detect_own_libs() reads its dynamic section (with an $ORIGIN
 * that names no real directory, so nothing outside is opened). The seeds
 * are two builds of a three-function program, with and without frame
 * pointers (gcc -O1 -s). Nothing may crash, leak or allocate without
 * bound. */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbolize/fp-detect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void count_lib(void *ctx, const char *path)
{
	(void)path;
	(*(unsigned *)ctx)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fp_share s;
	unsigned libs = 0;
	int fd = memfd_create("fuzz-fp-detect", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		if (!fp_detect_fd(fd, &s))
			(void)fp_share_has_fp(&s);
		fp_detect_own_libs(fd, "/nonexistent-fuzz-origin", count_lib, &libs);
	}
	close(fd);
	return 0;
}
