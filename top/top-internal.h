/* top-internal.h: the state prof top's files share (internal to top/).
 *
 * record/'s engine samples the targets as for prof record, its decoder
 * feeding the recording writer (into /dev/null) and, through a tee, this
 * module's tap (tap.c), which mirrors what the writer interns (strings,
 * mappings, frames, stack nodes, thread names, by the writer's ids) and
 * counts samples into the rolling window (window.c). Each interval the
 * tick (cmd-top.c) turns the window into a report/ profile (view.c),
 * named live (names.c), and prints it (print.c) or draws it (tui.c). */
#ifndef PROF_TOP_INTERNAL_H
#define PROF_TOP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/keymap.h"
#include "lib/recfile.h"
#include "lib/strtab.h"
#include "record/record.h"
#include "record/sink.h"
#include "report/report.h"
#include "window.h"

enum top_format { TOP_TEXT = 0, TOP_JSON };

struct top_opts {
	uint64_t interval_ns; /* 0: 1 s */
	unsigned window;      /* sub-intervals in the window; 0: 10 */
	uint64_t freq;        /* Hz, for CPU % (0: RECORD_DEFAULT_FREQ) */
	int threads;          /* --threads: the per-thread table too */
	int sched;            /* --sched */
	enum top_format format;
	size_t rows;          /* function rows per block (0: 20) */
	const char *target;   /* for the header: "pid 123", "cmd ..." */
};

/* What the tap mirrors of the writer's stream: bounded by the target's
 * distinct names and code, and by the stacks of two generations (each
 * begun when the last left the window: run.c), not by time. */
#define TOP_GEN_BIT 0x80000000u
struct top_tap {
	struct rec_sink sink;
	struct window win;
	struct strtab strs;        /* interned bytes, by our own id */
	uint32_t *str_ids;         /* writer string id -> strs id */
	size_t nstr_ids, str_ids_cap;
	struct rec_mapping *maps;  /* by writer id; .path is a strs id */
	size_t nmaps, maps_cap;
	/* Frames and stack nodes by the writer's ids, in two generations:
	 * the writer forgets them all now and then (rec_sink forget_stacks,
	 * asked for by run.c), while the window's older intervals still count
	 * stacks of the generation before. A window entry's node id carries
	 * its generation in TOP_GEN_BIT. */
	struct top_gen {
		struct rec_frame *frames;
		size_t nframes, frames_cap;
		uint32_t *frame_names; /* by frame id: names' strtab id + 1, 0: not named yet */
		size_t frame_names_cap;
		struct rec_stack_node *nodes; /* 0: the empty stack */
		size_t nnodes, nodes_cap;
	} gen[2];
	unsigned cur;              /* the generation of the writer's ids now */
	uint64_t forgets;          /* generations begun after the first */
	struct keymap thread_name; /* tid -> index in threads */
	struct tap_thread {
		uint64_t time;     /* of the name */
		uint32_t name;     /* strs id */
	} *threads;
	size_t nthreads, threads_cap;
	struct keymap thread_pid;  /* tid -> pid */
	uint64_t samples;          /* samples counted into the window */
	/* --sched: each thread's bucket since `since` (sched records) */
	struct tap_sched {
		uint32_t tid;
		uint32_t bucket;   /* enum window_sched */
		uint64_t since;
	} *sched;
	size_t nsched, sched_cap;
	struct keymap sched_index; /* tid -> index in sched */
	struct tap_sched_rec {     /* records since the last flush, to sort */
		uint64_t time;
		uint32_t tid, seq;
		uint8_t kind, state;
	} *queue;
	size_t nqueue, queue_cap;
	int err;                   /* first allocation failure */
};

int top_tap__init(struct top_tap *t, uint64_t start_ns, uint64_t interval_ns);
void top_tap__release(struct top_tap *t);
const char *top_tap__str(const struct top_tap *t, uint32_t strs_id);
/* --sched: the scheduler records queued since the last call applied in
 * time order, then every thread's time up to `now` (0: none) counted in its
 * bucket (so a thread asleep all along is counted before a block is made). */
void top_tap__sched_flush(struct top_tap *t, uint64_t now);
const char *top_tap__thread_name(const struct top_tap *t, uint32_t tid);
uint32_t top_tap__thread_pid(const struct top_tap *t, uint32_t tid);

/* names.c: live symbolization of the tap's frames, cached per frame and
 * per binary: user frames by their mapping's ELF symbols (demangled),
 * anonymous code by the process's /tmp/perf-PID.map (JIT, "_[j]"), kernel
 * frames by /proc/kallsyms ("_[k]"); else "[binary+0xoffset]" as prof
 * report shows an unresolved frame. Blocks on file I/O the first time a
 * binary is seen. */
struct top_names;
struct top_names *top_names__new(void);
void top_names__free(struct top_names *n);
/* The name of frame `frame` (NUL-terminated, owned by n, valid until the
 * next call): never NULL ("?" on allocation failure). */
const char *top_names__frame(struct top_names *n, struct top_tap *t, unsigned gen,
			     uint32_t frame);
/* Forgets the names of generation gen's frames (before it is reused). */
void top_names__forget(struct top_names *n, unsigned gen);

/* view.c: the window as a report/ profile, for every view. */
struct top_view_opts {
	size_t intervals;   /* the window: this many completed intervals */
	uint64_t end;       /* ending before this one (0: the current one) */
	uint32_t tid;       /* only this thread; 0: all */
	int threads;        /* entries per thread (for --threads roots) */
	struct profile_filter *filter; /* NULL: none */
};
struct top_thread_row {
	uint32_t tid, pid;
	const char *name;   /* owned by the tap */
	uint64_t samples;
	double cpu;         /* percent of one CPU over the window */
	double sched[WINDOW_NSCHED]; /* --sched: percent of the window by bucket */
};
struct top_snapshot {
	struct profile prof;
	uint64_t first;     /* the window's intervals: [first, first + n) */
	size_t n;
	uint64_t samples;   /* in the window, before filtering */
	struct top_thread_row *threads; /* busiest first */
	size_t nthreads;
};
int top_snapshot__build(struct top_snapshot *s, struct top_tap *t, struct top_names *names,
			const struct top_view_opts *o, uint64_t freq);
void top_snapshot__release(struct top_snapshot *s);

/* print.c: one block per interval when stdout is not a terminal. */
struct top_block {
	const struct top_opts *opts;
	uint64_t wall_ns;   /* CLOCK_REALTIME of the interval's end */
	uint64_t lost;      /* since the start */
	uint64_t total;     /* samples since the start */
	uint64_t start_ns;  /* CLOCK_MONOTONIC: where the window starts */
	uint64_t interned;  /* stack nodes and frames held (both generations) */
	uint64_t forgets;   /* times they were forgotten */
};
int top_print_block(FILE *out, const struct top_block *b, struct top_snapshot *s);

/* save.c: the window as a recording that prof report and prof svg read
 * (names as symbols). 0 or -errno. */
int top_save(const char *path, struct top_tap *t, const struct top_snapshot *s, uint64_t freq);

/* cmd-output.c: the launched command's stdout and stderr into a new file
 * (path) while the terminal view runs; the view draws on tty. begin: 0 or
 * -errno (then nothing changed); end puts fds 1 and 2 back. */
struct top_cmd_output {
	int saved_out, saved_err;
	FILE *tty;
	char path[64];
};
int top_cmd_output__begin(struct top_cmd_output *o);
void top_cmd_output__end(struct top_cmd_output *o);

/* run.c: one prof top session: record_opts ro (targets, rate, duration)
 * sampled with the tap behind the writer; each interval a block is
 * printed to `out`, or the terminal view is drawn (tui.c). 0 or -errno
 * with err filled. */
struct top_tui;
struct top {
	const struct top_opts *opts;
	struct top_tap tap;
	struct top_names *names;
	struct record_summary sum;
	FILE *out;
	uint64_t last_block;  /* the interval index last printed */
	uint64_t forgot_at;   /* the window's interval when the stacks were last forgotten */
	int out_err;
	int want_tui;         /* stdout is a terminal */
	struct top_cmd_output cmd_out; /* -- CMD in the view: its output's file */
	struct top_tui *tui;  /* NULL: blocks */
};
int top_run(struct top *tp, struct record_opts *ro, struct prof_error *err);

/* tui.c: the full-screen view (ncurses). start takes the terminal (0 or
 * -errno); tick reads keys and redraws when due, returning how soon (ms)
 * it wants to run again; stop gives the terminal back as it was. */
int top_tui__start(struct top *tp);
long top_tui__tick(struct top *tp, uint64_t now, int new_interval);
void top_tui__stop(struct top *tp);

#endif
