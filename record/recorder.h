/* recorder.h: the state of one recording, shared by the files of record/
 * (internal to the module: commands use record.h). */
#ifndef PROF_RECORDER_H
#define PROF_RECORDER_H

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

#include "addr-spaces.h"
#include "lib/keymap.h"
#include "lib/rec-writer.h"
#include "perf-events.h"
#include "record.h"
#include "ring.h"

#define MAX_FRAMES 1024

struct event_fd {
	int fd;
	int cpu;
	int hung_up; /* the thread exited: no longer polled */
};

struct target {
	pid_t pid;
	int pidfd;   /* readable once the process has exited; -1 when done */
	int exited;
};

struct recorder {
	const struct record_opts *opts;
	struct record_summary *sum;
	struct record_error *err;
	struct event_choice ev;

	int *cpus;
	size_t ncpus;
	struct ring *rings; /* per index into cpus; fd < 0 until the first event */
	struct event_fd *fds;
	size_t nfds, fds_cap;
	struct keymap opened_tids; /* tid -> 1: we opened events on it */
	struct keymap forked_tids; /* tid -> 1: created while recording */

	struct target *targets;
	size_t ntargets;
	pid_t child; /* launch mode: the command, else 0 */

	struct rec_writer *w;
	struct addr_spaces spaces;
	struct keymap names;       /* tid -> current name string id */
	struct keymap seen_tids;   /* tid -> 1 */
	struct keymap seen_pids;   /* pid -> 1 */
	unsigned char *scratch;
	uint64_t max_stack;
	int write_err;             /* first writer error: stop */
	int bad_ring;              /* malformed ring data seen */

	/* User frames interned before their mapping was known: retried after
	 * every drain, dropped once they were flushed twice unresolved. */
	struct pending_frame {
		uint32_t frame;
		uint32_t flushes;
	} *pending;
	size_t npending, pending_cap;

	/* Per-sample scratch: frames of the sample being decoded, leaf first. */
	uint64_t frame_addr[MAX_FRAMES];
	uint32_t frame_flags[MAX_FRAMES];
};

/* decode.c: one perf record from a ring into the writer (ring_record_fn). */
void recorder_handle_record(void *ctx, const struct perf_event_header *h);
/* decode.c: retries the mapping of pending frames; `flushed` counts a flush. */
void recorder_resolve_pending(struct recorder *rc, int flushed);
/* decode.c: the name / start of a thread known from /proc or launch. */
int recorder_thread_start(struct recorder *rc, uint64_t time, uint32_t pid, uint32_t tid,
			  const char *name);
int recorder_add_mapping(struct recorder *rc, uint64_t time, uint32_t pid, uint64_t start,
			 uint64_t end, uint64_t pgoff, const char *path);

/* launch.c: forks the command, stopped before exec until launch_go(). */
int launch_prepare(char *const *argv, pid_t *pid, int *go_fd, int *err_fd);
/* Lets the child exec; returns 0 or the child's exec errno as -errno. */
int launch_go(int go_fd, int err_fd);

uint64_t monotonic_ns(void);

#endif
