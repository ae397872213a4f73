/* recording.h: a recording file read into memory, checked record by record.
 *
 * recording__parse() never trusts the bytes: every length, count and id is
 * checked; a bad chunk checksum, a chunk size that runs past the end of a
 * file that goes on after it, or a dangling reference fails with -EBADMSG
 * and a message ("corrupt chunk at byte N (...)"). A file cut short after a
 * complete chunk (a recorder killed with SIGKILL, a full disk) loads what it
 * has, with `complete` = 0 and `cut_at` = the byte where reading stopped.
 * A duplicated chunk is skipped and counted (`duplicates`). */
#ifndef PROF_RECORDING_H
#define PROF_RECORDING_H

#include <stddef.h>
#include <stdint.h>

#include "recfile.h"

struct rec_sample_full {
	uint64_t time;
	uint32_t tid;
	uint32_t stack;
	uint16_t cpu;
	uint8_t event;
	uint8_t flags;
};

struct rec_sched_full {
	uint64_t time;
	uint32_t tid;
	uint32_t arg;
	uint16_t cpu;
	uint8_t kind;
	uint8_t state;
};

/* Where a frame's inline records are: recording.inlines[first .. first +
 * count); count 0 = none. */
struct rec_inline_span {
	uint32_t first, count;
};

/* The decoded arguments of one probe sample (REC_CHUNK_ARGS):
 * recording.argvals[first .. first + n); bit i of strmask: value i is a
 * string id (checked to exist). Sorted by sample, each sample once. */
struct rec_args_ref {
	uint32_t sample; /* index into recording.samples */
	uint32_t first;
	uint16_t strmask;
	uint8_t n;
	uint8_t reserved;
};

struct rec_meta_entry {
	const char *key, *value;
};

struct rec_stat_entry {
	uint32_t key; /* string id */
	uint64_t value;
};

struct recording {
	unsigned char *data; /* the file's bytes, owned */
	size_t size;

	const char **strs; /* id -> NUL-terminated (points into strbuf) */
	uint32_t *lens;
	size_t nstrs, strs_cap;
	char *strbuf;      /* owned copy of all strings with NUL terminators */
	size_t strbuf_len, strbuf_cap;

	struct rec_meta_entry *meta;
	size_t nmeta, meta_cap;
	struct rec_event_desc *events;
	size_t nevents, events_cap;
	struct rec_thread_event *threads;
	size_t nthreads, threads_cap;
	struct rec_mapping *mappings;
	size_t nmappings, mappings_cap;
	struct rec_frame *frames;
	size_t nframes, frames_cap;
	struct rec_stack_node *stacks; /* [0] is the empty stack */
	size_t nstacks, stacks_cap;
	struct rec_sample_full *samples;
	size_t nsamples, samples_cap;
	struct rec_sched_full *sched; /* in file order (see REC_CHUNK_SCHED) */
	size_t nsched, sched_cap;
	struct rec_symbol *symbols; /* indexed by frame id; name 0 = none */
	size_t symbols_cap;
	struct rec_inline *inlines; /* INLINES records, in file order */
	size_t ninlines, inlines_cap;
	struct rec_inline_span *inline_of; /* indexed by frame id (< inline_of_cap) */
	size_t inline_of_cap;
	struct rec_stat_entry *stats;
	size_t nstats, stats_cap;
	struct rec_args_ref *args; /* probe arguments, by sample */
	size_t nargs, args_cap;
	int64_t *argvals;
	size_t nargvals, argvals_cap;

	/* REC_CHUNK_RAW payloads (at data + off): perf records a killed
	 * recorder had not processed yet. recording__replay() turns such
	 * a recording into an ordinary one. */
	struct rec_raw_span {
		size_t off, len;
	} *raw;
	size_t nraw, raw_cap;

	int complete;  /* END chunk seen */
	size_t cut_at; /* bytes read when incomplete */
	/* A STOP chunk's errno (recfile.h): why the recorder stopped writing
	 * (ENOSPC: its disk filled); 0 when it did not say (killed, or a
	 * writer that does not write STOP). */
	int stop_errno;
	/* Chunks that were byte-for-byte copies of an earlier chunk of a type
	 * whose records add up (samples, strings, frames, ...): skipped, not
	 * counted twice (docs/FORMAT.md); the first one's offset, and the
	 * offset of the chunk it copies. */
	size_t duplicates, duplicate_at, duplicate_of;
};

/* Is `data` the start of a recording (magic matches)? */
int recording_is_recording(const void *data, size_t size);

/* Parses `size` bytes at `data`; takes ownership of data (malloc'ed) even on
 * failure. On error returns -EBADMSG (or -ENOMEM) and writes a one-line
 * reason to errbuf. */
int recording__parse(struct recording *r, unsigned char *data, size_t size, char *errbuf,
		     size_t errlen);
void recording__release(struct recording *r);

const char *recording__str(const struct recording *r, uint32_t id);
/* Counter value by name, or 0. */
uint64_t recording__stat(const struct recording *r, const char *key);
/* Meta value by key, or NULL. */
const char *recording__meta(const struct recording *r, const char *key);

/* ---- event lookups ---- */

/* PERF_TYPE_TRACEPOINT, as event descriptions store it (rec_event_desc.type;
 * linux/perf_event.h stays in record/). */
#define RECORDING_EVENT_TYPE_TRACEPOINT 2u

/* Is event `ev` a probe event (usdt:, uprobe:, uretprobe:)? */
int recording__event_is_probe(const struct recording *r, unsigned ev);
/* Is event `ev` a CPU event, whose samples are CPU profiles: not a
 * tracepoint, not a probe? Samples without an event description are. */
int recording__event_is_cpu(const struct recording *r, unsigned ev);
/* The id of the event named `name`, or -1. */
int recording__find_event(const struct recording *r, const char *name);

/* The arguments of sample index `sample`, or NULL (binary search). */
const struct rec_args_ref *recording__args(const struct recording *r, size_t sample);

/* Recordings with RAW chunks (see struct recording): a replay function
 * writes the processed recording of `in` to `out` (0, or -errno with msg
 * filled). The recorder's (record/) is the only one; lib/ cannot reach it,
 * so prof.c hands it to each command (commands.h) and the command to its
 * reader. recording__replay runs `replay` and replaces r with its result:
 * 0 (*samples: the samples processed), or -errno with msg (-ENOTSUP when
 * replay is NULL). */
typedef int (*recording_replay_fn)(const struct recording *in, const char *out,
				   uint64_t *samples, char *msg, size_t msglen);
int recording__replay(struct recording *r, recording_replay_fn replay, uint64_t *samples,
		      char *msg, size_t msglen);

/* Reads a whole file ("-" = stdin) into a malloc'ed buffer. 0 or -errno. */
int read_whole_file(const char *path, unsigned char **data, size_t *size);

#endif
