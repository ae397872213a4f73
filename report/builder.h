/* builder.h: inside report/ only: the builder of profiles from a recording
 * (builder.c), shared by profile__from_recording() (from-recording.c) and
 * the builds on top of it: time-weighted (off-cpu.c) and probe (probe.c).
 * It holds thread keys (a sample's thread name at its time) and recording
 * stacks rendered once into profile stacks. */
#ifndef PROF_REPORT_BUILDER_H
#define PROF_REPORT_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "lib/keymap.h"
#include "lib/recording.h"
#include "report/report.h"

#define BUILDER_NO_THREAD UINT32_MAX /* a thread key for entries without a thread */

/* A START or NAME event, sorted by (tid, time, file order). */
struct name_event {
	uint64_t time;
	uint32_t tid, pid;
	uint32_t name; /* recording string id */
	uint32_t order;
	uint32_t tkey; /* thread key (below) */
};

/* What a sample's thread resolves to: one per distinct (tid, pid, name). */
struct thread_key {
	uint32_t tid, pid;
	uint32_t rec_name; /* recording string id, or UINT32_MAX: the tid as text */
	uint32_t name;	   /* profile name id, 0 until interned */
};

/* The name events of one tid: events[first .. first + n). */
struct tid_slot {
	uint32_t first, n;
	uint32_t tkey; /* for tids without name events */
};

struct builder {
	struct profile *p;
	const struct recording *r;

	struct name_event *events;
	size_t nevents;
	struct thread_key *tkeys;
	size_t ntkeys, tkeys_cap;
	struct tid_slot *slots;
	size_t nslots, slots_cap;
	struct keymap tid_slots;      /* tid -> slot */
	struct keymap tkey_ids;	      /* (tid << 32 | pid, name) -> thread key */
	uint32_t last_tid, last_slot; /* cache of the previous sample's lookup */
	int have_last;

	uint32_t *frame_names;	   /* frame id -> profile name id, 0 = not yet */
	uint32_t *str_names;	   /* recording string id -> profile name id */
	uint32_t *inline_names;	   /* inline record -> profile name id ("name_[i]"), 0 = not yet */
	uint32_t *stack_of;	   /* stack id * 2 + truncated -> profile stack + 1 */
	struct keymap leaf_stacks; /* (stack id * 2 + truncated, leaf) -> profile stack + 1 */
	uint32_t *chain;	   /* scratch: one stack's name ids */
	size_t chain_cap;
	char *text; /* scratch: one frame's name */
	size_t text_cap;
	int lines;  /* profile_build_opts.lines */
	int java_signatures; /* profile_build_opts.java_signatures */
	uint32_t *outer_names; /* frame id -> "function (file:line)", with lines */
};

/* Sets `b` up to add entries to `p` (initialized, empty) from `r`, as opts
 * say (NULL: defaults): with PROFILE_BY_THREAD, the thread events indexed
 * and p->has_threads set. 0 or -ENOMEM; call builder__release() either way. */
int builder__init(struct builder *b, struct profile *p, const struct recording *r,
		  const struct profile_build_opts *opts);
/* Frees what the builder holds (not the profile). */
void builder__release(struct builder *b);

/* The thread key of a sample of `tid` at `time`. 0 or -ENOMEM. */
int builder__sample_tkey(struct builder *b, uint32_t tid, uint64_t time, uint32_t *tkey);
/* Adds an entry: stack `stack2` (stack id * 2 + truncated), with the frame
 * named `leaf` (a profile name id; 0: none) added as its leaf, of thread key
 * `tkey` (BUILDER_NO_THREAD: none). 0 or -ENOMEM. */
int builder__add_entry(struct builder *b, uint64_t stack2, uint32_t leaf, uint32_t tkey,
		       uint64_t count);
/* The same for an allocation profile: the entry with both of its values
 * (profile__add_alloc()). 0 or -ENOMEM. */
int builder__add_alloc_entry(struct builder *b, uint64_t stack2, uint32_t leaf, uint32_t tkey,
			     uint64_t count, uint64_t objects, uint64_t bytes);

/* ---- the builds on top of the builder, for profile__from_recording() ---- */

/* The hits of one probe event (probe.c): opts->probe says which and how.
 * 0 or -ENOMEM. */
int build_probe(struct builder *b, const struct profile_build_opts *opts, int by_thread);
/* The same for --malloc / --leaks (malloc-view.c). */
int build_malloc(struct builder *b, const struct profile_build_opts *opts, int by_thread);

/* The off-CPU or wall profile (off-cpu.c): entries weighted in microseconds.
 * 0, -ENOMEM, -ENODATA (no scheduler records) or -EINVAL (wall: CPU samples
 * of an event without a known sampling rate). */
int build_weighted(struct builder *b, enum profile_weight weight, int by_thread);

/* The time-ordered profile (time-order.c): opts->time_order. 0, -ENOMEM,
 * or -EINVAL (not CPU samples). Sets up and releases its own builder. */
int profile__from_recording_in_time(struct profile *p, const struct recording *r,
				    const struct profile_build_opts *opts);

#endif
