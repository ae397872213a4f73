/* recorder.h: the state of one recording, shared by the files of record/
 * (internal to the module: commands use record.h). */
#ifndef PROF_RECORDER_H
#define PROF_RECORDER_H

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "addr-spaces.h"
#include "jit-snapshots.h"
#include "lib/keymap.h"
#include "lib/rec-writer.h"
#include "perf-events.h"
#include "probes.h"
#include "record.h"
#include "ring.h"
#include "sink.h"
#include "symbolize/unwind.h"
#include "tracefs.h"

#define MAX_FRAMES 1024

/* --sched: the scheduler tracepoints, one set of events per CPU, or per
 * (thread, CPU), in their own ring per CPU (sched-events.c, sched-decode.c). */
enum sched_event_kind {
	SCHED_EV_SWITCH = 1, /* sched_switch but plain sleeps, + SWITCH records */
	SCHED_EV_STACK,      /* sched_switch with a call chain, 1 in N */
	SCHED_EV_WAKE,       /* sched_waking (or sched_wakeup) */
};

struct sched_rec {
	int on;
	struct perf_event_attr attr[4]; /* by enum sched_event_kind */
	struct tracepoint sw, wake;
	struct ring *rings;             /* per index into cpus */
	/* Per index into cpus: the switch-out stacks' own ring when they
	 * carry DWARF stack copies (32 KiB each), so that a burst of them
	 * fills this one and loses stacks (weighed around: off-cpu.c), never
	 * the switch records the accounting needs; else unused (fd -1). */
	struct ring *stack_rings;
	int draining_stacks;            /* a stack ring is being drained */
	struct keymap ids;              /* perf event id -> kind */
	struct keymap task_names;       /* tid -> string id last written as TASK */
	struct keymap unnamed;          /* waker tids with no name yet -> 1 */
	uint8_t stack_event;            /* event id of the stacks in the file */
	int *stack_fds;                 /* CPU-wide: the stack event per CPU, -1 */
	size_t filter_tids;             /* target tids its filter was made of */
	uint64_t filter_ns;             /* when that filter was set (monotonic) */
	int filtered;                   /* the switch tracepoint skips plain S */
	/* Per ring: the last tracepoint switch-out, which the SWITCH record
	 * that follows it in the same ring repeats. */
	struct tp_out {
		uint32_t tid;
		uint64_t time;
	} *tp_out;
	size_t cur;                     /* the ring being drained */
	struct {
		uint32_t wakee, waker;
		uint64_t time;
	} last_wake;                    /* the kernel can report a wake-up twice */
	struct sched_snapshot *snap;    /* threads asleep at attach (sched-snapshot.c) */
};

/* User registers and stack bytes taken with each sample (user-stack.c):
 * --call-graph dwarf unwinds them, frame-pointer mode uses them to put back
 * the caller of a frameless leaf. Samples are queued while the rings are
 * drained and turned into stacks after each drain, when every ring's mmap
 * records are known. */
struct ustack_rec {
	int on;
	int dwarf;              /* else: fp leaf fix */
	uint32_t stack_size;
	uint64_t regs_mask;     /* perf's x86 register bits */
	uint8_t reg_dwarf[64];  /* i-th register in a sample -> DWARF number */
	unsigned nregs;
	struct unwinder *unwinder;
	struct jvm_frames *jvm; /* interpreted Java frames named (jvm/jvm.h) */
	unsigned char *queue;   /* struct ustack_entry, chain, stack bytes; ... */
	size_t len, cap;
	uint64_t fail[UNWIND_NSTATUS]; /* [UNWIND_OK_ROOT]: unwound to the root */
	uint64_t stacks, cut, ns, leaf_checked, leaf_fixed;
	uint64_t fp_root, fp_cut; /* fp: stacks ending in a root; cut at garbage */
	uint64_t ips[MAX_FRAMES + 8]; /* a sample's chain being rebuilt */
	/* The call-site leaf fix (--leaf-fix callsite): no registers or stack;
	 * the called function of each return address, by (pid, ra) ->
	 * callees[i], valid while the address spaces' generation is. */
	int callsite;
	struct keymap callsites;
	uint64_t *callees;
	size_t ncallees, callees_cap;
	uint64_t callsites_generation;
	/* fp mode, sched_dwarf: the switch-out stacks' own layout (all
	 * general registers and a stack copy), unwound like dwarf ones. */
	struct ustack_switch {
		int on;
		uint8_t event;          /* their event id in the file */
		uint64_t regs_mask;
		uint8_t reg_dwarf[64];
		unsigned nregs;
		uint32_t stack_size;
		uint64_t stacks, root, cut;
	} sw;
};

/* Deferred processing (defer.c): while `on`, drains only copy the rings'
 * records into buf, and each flush writes them as a RAW chunk; at the end
 * (or at the limit) they are read back and processed into a copy of the
 * file without them, which replaces it. */
struct defer_rec {
	int on;
	uint64_t limit;      /* RAW bytes written before processing */
	uint64_t written;
	unsigned char *buf;  /* records since the last flush */
	size_t len, cap;
	unsigned char *read; /* a RAW chunk read back */
	size_t read_cap;
};

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
	struct prof_error *err;
	struct event_choice ev;

	int *cpus;
	size_t ncpus;
	struct ring *rings; /* per index into cpus; fd < 0 until the first event */
	struct event_fd *fds;
	size_t nfds, fds_cap;
	struct keymap opened_tids; /* tid -> 1: we opened events on it */
	struct keymap forked_tids; /* tid -> 1: created while recording */
	struct keymap target_pids; /* pid -> 1: a target process (cpu_wide) */
	/* --sched, unless --sched-per-thread: samples, side-band records and
	 * scheduler events come from CPU-wide events, and the decoder keeps
	 * those of target tasks. No event sits on the targets' threads, so
	 * their context switches cost the kernel no event switching. */
	int cpu_wide;
	uint64_t *heads; /* cpu_wide: where each ring is drained to (CPU rings, then sched) */
	int cpus_opened; /* cpu_wide: the engines' CPU events are open */
	uint32_t engines; /* bit k: rec_engines[k] is set up (engine.h) */

	struct target *targets;
	size_t ntargets;
	pid_t child; /* launch mode: the command, else 0 */

	struct sched_rec sched;
	struct ustack_rec ustack;
	struct probe_rec probes; /* -e probes, --alloc (probe-events.c) */
	struct defer_rec defer;
	struct jit_snapshots jit; /* JIT maps asked for while recording */
	struct flight *flight;    /* --ring (flight.h) */

	struct rec_writer *w;
	/* Where decode.c and stack-intern.c put what they decode: the writer
	 * (writer_sink), or a tee of it and opts->tap (recorder_init). */
	const struct rec_sink *sink;
	struct rec_sink writer_sink;
	struct rec_sink_tee tee;
	struct addr_spaces spaces;
	struct keymap names;       /* tid -> current name string id */
	struct keymap seen_tids;   /* tid -> 1 */
	struct keymap seen_pids;   /* pid -> 1 */
	struct keymap chains;      /* hash of (pid, raw chain) -> node (stack-intern.c) */
	unsigned char *scratch;
	uint64_t max_stack;
	int write_err;             /* first writer error: stop */
	int bad_ring;              /* malformed ring data seen */

	/* User frames interned before their mapping was known (stack-intern.c):
	 * retried after every drain, dropped once flushed twice unresolved. */
	struct pending_frame {
		uint32_t frame;
		uint32_t flushes;
	} *pending;
	size_t npending, pending_cap;

	/* Per-sample scratch: frames of the sample being decoded, leaf first. */
	uint64_t frame_addr[MAX_FRAMES];
	uint32_t frame_flags[MAX_FRAMES];

	/* The last stack interned frame by frame, root first: the next one
	 * (mostly the same thread's) shares its root part, whose nodes need
	 * no lookups (stack-intern.c). */
	struct last_stack {
		uint32_t pid, n;
		uint64_t addr[MAX_FRAMES];
		uint32_t flags[MAX_FRAMES];
		uint32_t node[MAX_FRAMES];
	} last;
};

/* decode.c: one perf record from a ring into the writer (ring_record_fn). */
void recorder_handle_record(void *ctx, const struct perf_event_header *h);
/* decode.c, CPU-wide mode: learns the targets' new threads and processes
 * from a FORK record ahead of its turn (ring_record_fn for ring__peek). */
void recorder_learn_fork(void *ctx, const struct perf_event_header *h);
/* decode.c: adds the count of a LOST / LOST_SAMPLES record to *lost and
 * counts THROTTLE records; other records are ignored. */
void recorder_count_loss(struct recorder *rec, const struct perf_event_header *h, uint64_t *lost);
/* recorder.c: rec set up empty for opts, counting into sum, failing into
 * err (all three zeroed first; rec->w is the caller's to set): 0, or
 * -ENOMEM with rec still safe to release. write_stats: the counters of the
 * summary (and of the symbolizer's ss, when not NULL) into the file's
 * stats. release: everything rec holds (its events must be closed). */
struct symbolize_stats;
int recorder_init(struct recorder *rec, const struct record_opts *opts,
		  struct record_summary *sum, struct prof_error *err);
void recorder_write_stats(struct recorder *rec, const struct symbolize_stats *ss);
void recorder_release(struct recorder *rec);
/* decode.c: the name / start of a thread known from /proc or launch. */
int recorder_thread_start(struct recorder *rec, uint64_t time, uint32_t pid, uint32_t tid,
			  const char *name);
int recorder_add_mapping(struct recorder *rec, uint64_t time, uint32_t pid, uint64_t start,
			 uint64_t end, uint64_t pgoff, const char *path);

/* stack-intern.c: interns a sample's call chain (kernel's order, leaf
 * first) and appends the sample for `event`; a frame-pointer chain as the
 * kernel gave it, so cut at its first garbage user frame
 * (recorder_user_frames). */
void recorder_add_stack_sample(struct recorder *rec, uint32_t pid, uint32_t tid, uint64_t time,
			       uint32_t cpu, uint64_t ip, uint16_t misc, const uint64_t *ips,
			       uint64_t nr, uint8_t event);
/* The same with the truncation flag given: trunc < 0 lets the kernel's
 * limit decide (the chain came from the kernel), else it is the
 * REC_SAMPLE_TRUNCATED flag to store. */
void recorder_add_chain(struct recorder *rec, uint32_t pid, uint32_t tid, uint64_t time,
			uint32_t cpu, uint64_t ip, uint16_t misc, const uint64_t *ips, uint64_t nr,
			uint8_t event, int trunc);
/* Frame-pointer walks through code without frame pointers run into
 * addresses no code can have (above the user address range or below
 * 4096), such as [unknown+0xb2cc7ac1c3a49300]: the length of chain[0, n)
 * up to the first such user frame after the PERF_CONTEXT_USER marker at k
 * (k == n: none). */
size_t recorder_user_frames(const uint64_t *chain, size_t k, size_t n);
/* Forgets every frame and stack interned (the caches here, then the
 * sink's: rec_writer__forget_stacks), so that a recording into /dev/null
 * (prof top) keeps bounded tables. Errors go to rec->write_err. */
void recorder_forget_stacks(struct recorder *rec);
/* Retries the mapping of pending frames; `flushed` counts a flush. */
void recorder_resolve_pending(struct recorder *rec, int flushed);
/* Counts a thread and its process in the summary the first time seen. */
void recorder_seen_thread(struct recorder *rec, uint32_t pid, uint32_t tid);
/* event-fds.c: keeps event fd (of CPU index i) in rec->fds, polled and
 * closed with the others; closes it when there is no room. 0 or -ENOMEM. */
int recorder_keep_fd(struct recorder *rec, int fd, size_t i);

/* The first writer error is kept: the recording stops at it. */
static inline void recorder_note_err(struct recorder *rec, int err)
{
	if (err && !rec->write_err)
		rec->write_err = err;
}

/* user-stack.c: setup picks the registers and stack size and sets them in
 * rec->ev.attr (0 or -errno with rec->err filled); add queues one sample
 * whose body after the call chain is at [p, end); process turns the queue
 * into samples (after each drain); write_stats/summary at the end. */
int ustack_setup(struct recorder *rec);
/* The same settings for replaying a file's RAW chunks, from its meta
 * (the kernel is not asked: it gave them when the file was recorded). */
int ustack_setup_replay(struct recorder *rec, int dwarf, int callsite, uint32_t stack_size);
void ustack_add(struct recorder *rec, uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu,
		uint64_t ip, uint16_t misc, const uint64_t *chain, uint64_t nr,
		const unsigned char *p, const unsigned char *end);
/* The same for a sample of the file's event `event` (0: the CPU one). */
void ustack_add_event(struct recorder *rec, uint32_t pid, uint32_t tid, uint64_t time,
		      uint32_t cpu, uint64_t ip, uint16_t misc, const uint64_t *chain, uint64_t nr,
		      const unsigned char *p, const unsigned char *end, uint8_t event);
void ustack_process(struct recorder *rec);
/* The same for the samples of process pid taken before `before` only: an
 * exec at that time is about to replace its mappings (samples after it,
 * drained from another CPU's ring, wait for the new program's mappings). */
void ustack_process_pid(struct recorder *rec, uint32_t pid, uint64_t before);
void ustack_write_stats(struct recorder *rec);
/* A sample taken elsewhere (a probe hit) whose user registers and stack are
 * at hand: its user stack made as the recording's call-graph mode wants,
 * then added for `event` at once (no queue). regs may be NULL. */
void ustack_sample_now(struct recorder *rec, uint32_t pid, uint32_t tid, uint64_t time,
		       uint32_t cpu, uint64_t ip, uint16_t misc, const uint64_t *chain,
		       uint64_t nr, const struct unwind_regs *regs, const struct unwind_stack *st,
		       uint8_t event);
/* The unwinder's find_map over rec's address spaces (ctx = rec). */
int ustack_find_map(void *ctx, uint32_t pid, uint64_t addr, struct unwind_map *m);
/* perf's x86 register number -> the unwinder's (DWARF) number, or -1. */
int ustack_perf_to_dwarf(int perf_reg);
void ustack_release(struct recorder *rec);
/* The symbolizer's options that name the frames the stack walks stored
 * as Java Method* values (jvm/jvm.h), in *so; NULL when there are none. */
struct symbolize_opts;
const struct symbolize_opts *ustack_symbolize_opts(struct recorder *rec,
						   struct symbolize_opts *so);

/* sched-events.c: --sched. setup finds the tracepoints and fills the
 * attributes (0 or -errno with rec->err filled); open_thread opens the set
 * for tid on CPU index i; drain reads the sched rings; init_state writes the
 * state /proc gives for a thread found at attach. */
int sched_setup(struct recorder *rec);
int sched_open_thread(struct recorder *rec, pid_t tid, size_t i);
/* CPU-wide mode: sched_try_cpu_wide turns the scheduler events into CPU-wide
 * ones if the kernel lets us open them (0, else -errno and nothing changed);
 * sched_open_cpu opens them on CPU index i. */
int sched_try_cpu_wide(struct recorder *rec);
int sched_open_cpu(struct recorder *rec, size_t i);
/* CPU-wide mode: is tid a target thread we know of; is the task (pid, tid)
 * of a sample a thread of a target process? */
int recorder_is_target_tid(const struct recorder *rec, uint32_t tid);
int recorder_is_target_task(const struct recorder *rec, uint32_t pid, uint32_t tid);
/* sched_drain: up to heads[i] for ring i, or to the end when heads is NULL;
 * sched_heads stores where each ring is now. */
void sched_drain(struct recorder *rec, const uint64_t *heads);
void sched_heads(const struct recorder *rec, uint64_t *heads); /* 2 * ncpus */
/* CPU-wide: the stack event's filter set to the target tids known now
 * (a drain does it too); sched_tick_ms: how soon to drain again so that
 * the filter catches up with new threads (-1: no hurry). */
void sched_refilter(struct recorder *rec);
long sched_tick_ms(const struct recorder *rec, uint64_t now);
void sched_init_state(struct recorder *rec, uint64_t time, pid_t pid, pid_t tid);
void sched_finish(struct recorder *rec);
void sched_release(struct recorder *rec);
/* sched-snapshot.c: for each thread of pid asleep (S, D) at `time`, an
 * OUT record with arg = its own tid (asleep since before the recording)
 * and its wait stack as a sample of an event named SCHED_SNAPSHOT_EVENT
 * (period 1: off-CPU views weigh it as a switch-out stack). Reads /proc
 * and the thread's stack; allocates once. Stats and release at the end. */
#define SCHED_SNAPSHOT_EVENT "sched:sched_switch"
void sched_snapshot_process(struct recorder *rec, pid_t pid, uint64_t time);
void sched_snapshot_write_stats(struct recorder *rec);
void sched_snapshot_release(struct recorder *rec);
/* sched-decode.c: one record of a sched ring (ring_record_fn). */
void sched_handle_record(void *ctx, const struct perf_event_header *h);

/* jvm-step.c: at the end of a recording, before symbolization: asks the
 * live JVMs among the targets for their JIT maps and full thread names
 * (stops sampling first if there is one), notices for the others. */
void recorder_jvm_step(struct recorder *rec);

/* defer.c: setup decides whether this recording defers (plain CPU samples,
 * per thread, into a file that can be replaced); keep is the drains'
 * ring_record_fn while deferring; flush writes the records kept as a RAW
 * chunk (and processes everything once the limit is reached); process
 * reads them all back and processes them (deferring ends). 0 or -errno. */
void defer_setup(struct recorder *rec);
void defer_keep(void *ctx, const struct perf_event_header *h);
int defer_flush(struct recorder *rec);
int defer_process(struct recorder *rec);
void defer_release(struct recorder *rec);
/* defer.c: the records of one RAW chunk through the decoder (checked: a
 * file's bytes are not trusted), then the queued user stacks, then a flush,
 * as after a drain in the live loop. 0 or the writer's error. */
int defer_replay(struct recorder *rec, const unsigned char *p, size_t len);

/* launch.c: forks the command, stopped before exec until launch_go(). */
int launch_prepare(char *const *argv, pid_t *pid, int *go_fd, int *err_fd);
/* Lets the child exec; returns 0 or the child's exec errno as -errno. */
int launch_go(int go_fd, int err_fd);

/* The clock of every time in a recording (meta "clock"). */
static inline uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#endif
