/* event-fds.c: the recorder's list of open perf event fds (rec->fds),
 * which the main loop polls and the end closes; every opener adds to it
 * through recorder_keep_fd() (recorder.h). */
#include "recorder.h"

#include <errno.h>
#include <unistd.h>

#include "lib/grow.h"

int recorder_keep_fd(struct recorder *rec, int fd, size_t i)
{
	if (GROW(rec->fds, rec->fds_cap, rec->nfds + 1)) {
		close(fd);
		return -ENOMEM;
	}
	rec->fds[rec->nfds++] = (struct event_fd){.fd = fd, .cpu = (int)i};
	return 0;
}
