/* record.h: the record/ module's public interface: sample the stacks of
 * running processes (or of a command it launches) into a recording file.
 * It is the module's only public header: the others in record/ are its
 * internals (recorder.h the state one recording's files share, each other
 * one helper's: ring.h, probes.h, ...), included by plain name from inside
 * record/ and, outside it, by tests and fuzzers only. */
#ifndef PROF_RECORD_H
#define PROF_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/prof-error.h"

struct rec_sink;

#define RECORD_DEFAULT_FREQ 99     /* Hz: off the 100 Hz beat of timers */
#define RECORD_DEFAULT_OUTPUT "prof.data"
#define RECORD_DEFAULT_RING_PAGES 256 /* 1 MiB per CPU */
#define RECORD_DEFAULT_SCHED_PAGES 1024 /* 4 MiB per CPU for --sched */
/* --sched: one switch-out in this many carries a call stack (stacks are
 * what a switch costs most; docs/BENCHMARKS.md) */
#define RECORD_DEFAULT_SCHED_STACKS 16
#define RECORD_SCHED_STACKS_NONE UINT64_MAX
#define RECORD_SCHED_NICE (-10) /* --sched: the recorder's priority, when allowed */
/* --call-graph dwarf: bytes of user stack copied per sample (docs/prof-record.md
 * says why), the kernel's limit, and the ring per CPU it gets by default. */
#define RECORD_DEFAULT_STACK_SIZE 32768
#define RECORD_MAX_STACK_SIZE 65528
#define RECORD_DWARF_RING_PAGES 1024 /* 4 MiB */
/* Frame-pointer mode: the slice of user stack taken with every sample to
 * find the caller of a frameless leaf function. 64 bytes hold the return
 * address of a leaf that pushed up to 7 registers (memcpy, strlen and the
 * like push none); 256 cost the target about a point of slowdown at
 * 4999 Hz, 64 nothing measurable (docs/BENCHMARKS.md). */
#define RECORD_LEAF_STACK_SIZE 64
/* Frame-pointer mode: below this share (percent) of user stacks reaching
 * their root, the summary says to rerun with --call-graph dwarf. */
#define RECORD_FP_ROOT_HINT 90.0

enum record_call_graph {
	/* the default: fp or dwarf, as the targets' binaries need
	 * (call-graph-auto.c); record_run() decides before anything else */
	RECORD_CALL_GRAPH_AUTO = 0,
	RECORD_CALL_GRAPH_FP,    /* the kernel's frame-pointer walk (+ leaf fix) */
	RECORD_CALL_GRAPH_DWARF, /* user stack copies unwound with CFI */
};

enum record_leaf_fix {
	RECORD_LEAF_STACK = 0, /* the default: exact (docs/prof-record.md) */
	RECORD_LEAF_CALLSITE,
};

struct record_opts {
	const pid_t *pids;  /* attach to these processes, or */
	size_t npids;
	char *const *argv;  /* launch this command (NULL-terminated) */
	uint64_t duration_ns; /* 0: until the targets exit or a signal */
	uint64_t freq;      /* 0: RECORD_DEFAULT_FREQ */
	const char *output; /* NULL: RECORD_DEFAULT_OUTPUT */
	size_t ring_pages;  /* per CPU, power of two; 0: default */
	int sched;          /* also record context switches and wake-ups */
	/* --sched: a stack on one switch-out in this many; 0: default, and
	 * RECORD_SCHED_STACKS_NONE for none. */
	uint64_t sched_stacks;
	/* --sched-per-thread: scheduler events and sampling through events on
	 * each target thread, never CPU-wide ones (see sched-events.c). */
	int sched_per_thread;
	int no_symbolize;
	enum record_call_graph call_graph;
	uint32_t stack_size; /* --call-graph dwarf,SIZE; 0: default */
	int no_leaf_fix;     /* fp mode: leave frameless leaves' callers out */
	/* fp mode with --sched: switch-out stacks as DWARF stack copies
	 * (stack_size), the CPU samples' staying frame-pointer ones; set by
	 * --call-graph auto when the C library keeps no frame pointer. */
	int sched_dwarf;
	/* fp mode: how frameless leaves' callers are found (user-stack.c):
	 * from registers and a stack slice taken with every sample (exact
	 * call site, also through calls by register; costs the kernel a
	 * little per sample), or from the call before the next return
	 * address (nothing in the kernel). */
	enum record_leaf_fix leaf_fix;
	int quiet;          /* no notices on stderr (errors still go out) */
	const char *cmdline; /* prof's own command line, for the file's meta */

	/* -e: probe events ("usdt:...", "uprobe:...", "uretprobe:...") and
	 * "cpu-clock"; with any -e, CPU samples are taken only when
	 * cpu-clock is among them (docs/prof-record.md). */
	const char *const *events;
	size_t nevents;
	uint64_t every;        /* --every N: one probe hit in N kept (0: 1) */
	uint64_t every_bytes;  /* --every-bytes SIZE: one sample per SIZE bytes (0: off) */
	/* --probe-window W/P: probes attached W ms out of every P ms; 0/0:
	 * the default (continuous, or RECORD_ALLOC_WINDOW_* with --alloc);
	 * RECORD_PROBE_WINDOW_OFF: continuous. */
	uint32_t window_ms, period_ms;
	int alloc;             /* --alloc: JVM allocations (hotspot:object__alloc) */
	int malloc;            /* --malloc: native allocations (malloc-probes.c) */
	int leaks;             /* --leaks: with --malloc, frees too, all along */
	int uprobe_pmu;        /* --uprobe-pmu: no tracefs definitions (probe-tracefs.c) */
	/* Deferred processing (record/defer.c): the rings' records go to the
	 * file as they are and are made into stacks once the recording ends,
	 * or once defer_limit bytes of them were written (0: the default);
	 * no_defer: processed as they come. */
	uint64_t defer_limit;
	int no_defer;
	/* --jit-every: JVMs asked for their JIT maps this often while recording
	 * (0: the default, JIT_SNAPSHOT_PERIOD_MS; RECORD_JIT_END_ONLY: only
	 * at the end). */
	uint64_t jit_every_ns;

	/* --ring (the flight recorder, record/flight.h): only the last ring_ns
	 * of records are kept, in memory, and written as new recordings
	 * named from ring_output on SIGUSR1, on record_request_save() and at
	 * the end (unless ring_no_save_on_exit). The writer holds (output:
	 * /dev/null). 0: off. */
	uint64_t ring_ns;
	const char *ring_output;
	int ring_no_save_on_exit;

	/* prof top (top/): a second sink that follows the writer's stream
	 * (record/sink.h). NULL: none. */
	const struct rec_sink *tap;
	/* --rotate (rotate.c): only the CPU samples whose time is in
	 * [window_since_ns, window_until_ns) (CLOCK_MONOTONIC) are kept;
	 * window_until_ns 0: all. */
	uint64_t window_since_ns, window_until_ns;
};

#define RECORD_JIT_END_ONLY UINT64_MAX

#define RECORD_DEFAULT_DEFER_LIMIT (256ULL << 20)

#define RECORD_PROBE_WINDOW_OFF UINT32_MAX
/* --alloc's default windows and sampling (docs/BENCHMARKS.md, "Probes"). */
#define RECORD_ALLOC_WINDOW_MS 10
#define RECORD_ALLOC_PERIOD_MS 1000
#define RECORD_ALLOC_EVERY 1
/* --malloc's default mean distance between kept allocations (bytes). */
#define RECORD_MALLOC_EVERY_BYTES (512 * 1024)

struct record_summary {
	uint64_t duration_ns; /* sampling, without the deferred processing */
	uint64_t defer_ns;    /* the deferred processing at the end */
	uint64_t samples, lost, throttled;
	uint64_t switches, wakeups, sched_lost; /* --sched */
	uint64_t sched_stacks_lost; /* --sched: DWARF switch-out stacks lost (their ring full) */
	uint64_t threads, processes;
	/* --call-graph dwarf: user stacks unwound, how many to their root, how
	 * many copies were cut at the stack size, post-processing time. */
	uint64_t unwind_stacks, unwind_root, unwind_cut, unwind_ns;
	uint64_t leaf_checked, leaf_fixed; /* fp mode: samples looked at, and
					      callers of frameless leaves put back */
	uint64_t leaf_ns;
	/* fp mode (with a leaf fix): user stacks, how many end in a thread's
	 * root, how many had non-canonical outer frames cut off */
	uint64_t fp_stacks, fp_root, fp_cut;
	/* sched_dwarf: switch-out stacks unwound, how many to their root */
	uint64_t switch_unwind_stacks, switch_unwind_root;
	uint32_t stack_size; /* the size used */
	uint64_t bytes;
	/* probes: hits kept, windows opened, time attached, of the time recorded */
	uint64_t probe_hits, probe_windows, probe_attached_ns, probe_open_ns;
	uint64_t probe_seen; /* hits read, kept or not (--every, --every-bytes) */
	int probes;         /* probe events were recorded */
	int alloc_no_hit;   /* --alloc: not one allocation recorded */
	/* --malloc: allocation calls trapped, kept (sampled), frees trapped,
	 * kept entries whose return was not seen */
	uint64_t malloc_calls, malloc_kept, malloc_frees, malloc_unpaired;
	/* --ring: files saved, saves that failed, records dropped at the
	 * ring's memory cap */
	uint64_t ring_saves, ring_save_failures, ring_dropped;
	int target_status; /* launch mode: the command's exit status */
	int stopped_by_signal;
};

/* Runs a whole recording: opens the events, samples until a stop condition,
 * symbolizes, closes the file. Blocks. Returns 0 or a negative errno; on
 * failure err->msg says what went wrong (and err->hint how to fix it). A
 * failure after sampling started still leaves a complete, readable file. */
int record_run(const struct record_opts *opts, struct record_summary *sum,
	       struct prof_error *err);

/* record_run with the caller's hooks on its loop (prof top refreshes its
 * screen from tick, a flight recorder evaluates its rules there): tick is
 * called after every drain, at least every interval_ms (0: the recorder's
 * own second), with the counts so far; nonzero from tick, or from stop
 * (asked before each wait), ends the run as the duration does. Both run
 * on the recorder's thread, with the stop signals held back: they must
 * not block. NULL hooks: record_run. */
struct record_tick {
	uint64_t start_ns, now_ns;         /* CLOCK_MONOTONIC */
	const struct record_summary *sum;  /* samples, lost, ... so far */
};
struct record_hooks {
	int (*tick)(void *ctx, const struct record_tick *t);
	int (*stop)(void *ctx);
	/* Before each wait, given the monotonic time: how soon (ms) the
	 * caller wants the loop to run again (-1: no hurry); prof top moves
	 * its window on and draws from here. NULL: none. */
	long (*next_ms)(void *ctx, uint64_t now_ns);
	/* After each drain: nonzero makes the recorder forget the frames and
	 * stacks it interned (recorder_forget_stacks; only with an output
	 * nobody reads: prof top). NULL: never. */
	int (*forget_stacks)(void *ctx);
	void *ctx;
	uint32_t interval_ms;
};
int record_run_hooks(const struct record_opts *opts, const struct record_hooks *hooks,
		     struct record_summary *sum, struct prof_error *err);

/* A recording whose recorder was killed while deferring (in->nraw > 0)
 * made into an ordinary one, written to `out`: its RAW chunks processed as
 * the recorder would have, then symbolized here (replay-raw.c). 0 or
 * -errno with err->msg filled. */
struct recording;
int record_replay_raw(const struct recording *in, const char *out, struct record_summary *sum,
		      struct prof_error *err);

/* --keep of --rotate: the rotated files kept are younger than `seconds`
 * and add up to at most `bytes` (0: no bound). */
struct rotate_keep {
	uint64_t seconds, bytes;
};
/* `prof record --rotate`: records opts (-p targets) into one complete
 * recording per period_ns in the directory opts->output, named by the
 * period's UTC start time (prof-20261126T031500Z.data), pruned to keep
 * after each period. Each period is recorded by a process of its own
 * started a little before it (so none is missed while the previous one
 * is finished and symbolized), keeping only its period's samples: every
 * sample lands in one file. Ends at opts->duration_ns, when the targets
 * exit, or on SIGINT / SIGTERM / SIGHUP (each file is finished). A
 * period that failed (disk full) is reported and the next one goes on.
 * 0 or -errno with err filled. */
int record_rotate(const struct record_opts *opts, uint64_t period_ns,
		  const struct rotate_keep *keep, struct prof_error *err);
/* --ring: asks a running record_run() to save its ring: the window that
 * ends at end_ns (CLOCK_MONOTONIC; 0: now), `reason` (at most 255 bytes
 * kept) in the file's meta and the line printed; a request made while one
 * is pending replaces it. From the hooks (the recorder's thread) only. */
void record_request_save(const char *reason, uint64_t end_ns);
/* --trigger (with --ring): rules in prof check's language, evaluated each
 * second over the ring's last seconds by the command layer (the rules are
 * report/'s, the live names top/'s: top/triggers.c, reached through
 * struct prof_env); a rule that holds saves the ring (record_request_save),
 * after_ns later, and no rule trips again for holdoff_ns. */
#define RECORD_DEFAULT_HOLDOFF_NS (60 * 1000000000ULL)
struct record_triggers {
	const char *const *rules;
	size_t nrules;
	uint64_t holdoff_ns, after_ns;
	char bad[256];   /* out: why a rule did not parse (-EINVAL) */
	uint64_t trips;  /* out: trips acted on */
};

/* --ring: the name of a save made at `wall` (CLOCK_REALTIME seconds) from
 * `output` (prof.data -> prof-20261125T031502Z.data; n > 0 adds "-n" for
 * the n-th file of the same second) into buf. 0 or -ENAMETOOLONG. */
int record_ring_name(char *buf, size_t size, const char *output, int64_t wall, unsigned n);

/* Asks a running record_run() to stop (async-signal-safe). */
void record_request_stop(void);

#endif
