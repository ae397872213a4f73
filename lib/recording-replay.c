/* recording-replay.c: a recording whose recorder was killed while it
 * deferred its processing holds the kernel's records in RAW chunks; the
 * code that processes them is the recorder's (record/), which lib/ cannot
 * reach, so the command layer passes it in (lib/recording.h). The result
 * goes through a memfd and is parsed back in place of the original. */
#include "recording.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int recording__replay(struct recording *r, recording_replay_fn replay, uint64_t *samples,
		      char *msg, size_t msglen)
{
	unsigned char *data;
	char path[64];
	size_t size;
	int fd, err;

	if (!replay) {
		snprintf(msg, msglen, "this program cannot process kernel records");
		return -ENOTSUP;
	}
	fd = memfd_create("prof-replay", MFD_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(msg, msglen, "memfd_create: %s", strerror(-err));
		return err;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	err = replay(r, path, samples, msg, msglen);
	if (!err) {
		err = read_whole_file(path, &data, &size);
		if (err)
			snprintf(msg, msglen, "cannot read the result back: %s", strerror(-err));
	}
	close(fd);
	if (err)
		return err;
	recording__release(r);
	return recording__parse(r, data, size, msg, msglen);
}
