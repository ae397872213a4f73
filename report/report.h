/* report.h: the report/ module's public interface: the profile model, the
 * filters that narrow it, and the writers on top of it (folded stacks, the
 * top table). `prof report` is a thin front end over it; `prof svg` and
 * later commands build the same model and render it their own way. What
 * the front ends share (options, reading the input) is in report-cli.h.
 *
 * The model is a list of entries (thread name, pid, tid, stack, count). A
 * stack is a run of interned frame names, root first. Names are interned
 * once in the profile's string table, so everything downstream (regexes,
 * sorting, merging) works per unique name id, never per sample.
 *
 * Building from a recording counts samples per (thread, stack id) in a
 * flat array or hash first and renders only unique stacks: the cost is one
 * array or hash update per sample plus work per unique stack.
 *
 * Conventions: functions return 0 or -errno (-ENOMEM, -EINVAL for a bad
 * regex, -EBADMSG for unusable input); nothing here prints except the
 * writers, which write to the FILE * they are given and return -errno on a
 * write error. Nothing blocks except on that FILE *. */
#ifndef PROF_REPORT_H
#define PROF_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/recording.h"
#include "lib/strtab.h"

/* Marker frames: visible, never silent. */
#define PROFILE_TRUNCATED "[truncated]" /* root of a stack the kernel cut short */
#define PROFILE_NO_STACK "[no-stack]"   /* a sample that came without any frame */

/* A unique run of frames: names[frames[first .. first + depth)], root first. */
struct profile_stack {
	uint32_t first;
	uint32_t depth;
};

struct profile_entry {
	uint32_t stack;  /* index into profile.stacks */
	uint32_t thread; /* name id of the thread's name; 0 when the profile has no threads */
	uint32_t pid, tid; /* 0 when unknown (folded input) */
	uint64_t count;    /* samples (saturating) */
};

/* All fields are read-only for users; change them through the functions. */
struct profile {
	struct strtab names; /* frame and thread names; id 0 is "" and never a name */
	uint32_t *frames;    /* pool of name ids the stacks point into */
	size_t nframes, frames_cap;
	struct profile_stack *stacks;
	size_t nstacks, stacks_cap;
	struct profile_entry *entries;
	size_t nentries, entries_cap;
	uint64_t total;  /* sum of the entries' counts (saturating) */
	int has_threads; /* entries carry thread, pid and tid */
	/* Counts are in units of 10^-count_decimals: folded input with
	 * fractional counts ("main;foo 0.5", as flamegraph.pl sums them) is
	 * kept exact by scaling every count (count-scale.c). 0: integers.
	 * Writers that print absolute counts print them with
	 * profile_count_text(); shares are unaffected. */
	unsigned count_decimals;

	char *scratch; /* for sanitizing names */
	size_t scratch_cap;
	/* Built from a recording: stack -> the recording's stack id * 2 +
	 * truncated, plus 1 (0: none); for writers that need addresses
	 * (format-pprof.c). NULL otherwise. */
	uint64_t *origin;
	size_t origin_cap;
	/* Built with --alloc (probe.c): per entry, both of its values, the
	 * allocations (hits) and their bytes, whichever of the two `count` is
	 * (--weight); for writers that show both (format-pprof.c). Kept in
	 * step with the entries by the filters. NULL otherwise. */
	uint64_t *alloc_objects, *alloc_bytes;
	size_t alloc_cap;
	/* Built with time_order and cell_ns (a timeline, svg/timeline.c): per
	 * entry, its time cell, (time - cells_origin) / cell_ns, where
	 * cells_origin is the recording's first CPU sample's time (ns). Kept
	 * in step with the entries by the filters. NULL otherwise. ncells:
	 * the cells the recording's CPU samples span, filtered or not (the
	 * last one's cell + 1). */
	uint32_t *cells;
	size_t cells_cap;
	uint64_t cells_origin;
	uint32_t ncells;
};

/* 0 or -ENOMEM. profile__release() frees everything; on a zeroed or
 * released profile it is a no-op. */
int profile__init(struct profile *p);
void profile__release(struct profile *p);

static inline const char *profile__name(const struct profile *p, uint32_t id)
{
	return strtab__str(&p->names, id);
}

static inline const uint32_t *profile__stack_frames(const struct profile *p, uint32_t stack)
{
	return p->frames + p->stacks[stack].first;
}

/* Interns a name, made safe for folded text first: ';' becomes ':' (it
 * separates frames), control characters (newline, tab, ...) become '?'.
 * An empty name is stored as "?". 0 or -ENOMEM. */
int profile__intern(struct profile *p, const char *s, size_t len, uint32_t *id);
/* The length of the frame at s in folded text: up to the first ';', or
 * len. *clean says whether profile__intern() would keep it as it is (not
 * empty, no control byte). One pass, eight bytes a step. */
size_t profile__frame_scan(const char *s, size_t len, int *clean);
/* Appends a stack of `depth` name ids, root first; *stack gets its index.
 * Does not deduplicate. 0 or -ENOMEM (or -EINVAL when depth is 0). */
int profile__add_stack(struct profile *p, const uint32_t *names, size_t depth, uint32_t *stack);
/* Appends an entry; counts add up saturating. 0 or -ENOMEM. */
int profile__add(struct profile *p, const struct profile_entry *e);
/* Appends an entry of an allocation profile with both its values (see
 * alloc_objects); every entry of such a profile must come through here.
 * 0 or -ENOMEM. */
int profile__add_alloc(struct profile *p, const struct profile_entry *e, uint64_t objects,
		       uint64_t bytes);

/* ---- building ---- */

enum profile_by {
	PROFILE_BY_STACK = 0, /* one entry per stack: fastest, no thread information */
	PROFILE_BY_THREAD,    /* one entry per (thread name, pid, tid, stack) */
};

/* What an entry's count is. */
enum profile_weight {
	PROFILE_WEIGHT_CPU = 0, /* samples of the CPU events (not tracepoints) */
	PROFILE_WEIGHT_OFF_CPU, /* microseconds off CPU, from sampled switch-out stacks */
	PROFILE_WEIGHT_WALL,    /* microseconds: CPU samples as time, plus off CPU */
};

/* Which samples of a recording with probe events (`prof record -e`,
 * `--alloc`) make the profile, and how (report/probe.c, probe-input.c). */
struct probe_view {
	int event;        /* event id; -1: the CPU events (the default) */
	int args;         /* --args: the decoded arguments as a leaf frame */
	int alloc;        /* --alloc: the allocated class as the leaf */
	int weight_bytes; /* --weight bytes: allocation sizes, not counts */
	int weight_samples; /* --weight samples: the kept hits, not estimates */
	int class_root;   /* --class-root: the class at the root instead */
	int malloc;       /* --malloc: native allocations (malloc-view.c) */
	int leaks;        /* --leaks: those never freed */
	int leak_age_set; /* --leak-age given */
	uint64_t leak_age_ns;
	int weight_set;   /* --weight given */
	void *class_res;  /* regex_t[]: --class (any), then --exclude-class */
	size_t nclass, nexclude;
	struct probe_estimate *est; /* the build's totals (NULL: none kept) */
	int quiet;        /* no "estimated ..." line (prof check) */
};

/* probe-estimate.c: what a kept hit stands for, from the recording's
 * META probe-every, probe-sampling, probe-every-bytes, probe-window and
 * STATs probe-span-ns, probe-attached-ns; and the totals of a build. */
enum probe_est_mode {
	PROBE_EST_HITS = 0, /* an older recording: hits as they are */
	PROBE_EST_ALL,      /* every hit kept (only windows to scale by) */
	PROBE_EST_COUNT,    /* --every N: a geometric skip, mean N */
	PROBE_EST_NTH,      /* --every N in the kernel (every Nth) */
	PROBE_EST_BYTES,    /* --every-bytes SIZE */
	PROBE_EST_PERIOD,   /* --every N in the kernel: the hits each thread's samples stand for */
};

struct probe_estimate {
	enum probe_est_mode mode;
	uint64_t every, every_bytes, unknown_mean;
	double duty, scale; /* attached / span; 1 / duty when windowed */
	double tail;        /* PERIOD: the hits the kernel counted over the weights' sum */
	/* totals */
	uint64_t samples, unknown;
	double count, bytes;
};

void probe_estimate__init(struct probe_estimate *e, const struct recording *r);
/* The allocations (or hits) and bytes one kept hit of `size` bytes (-1:
 * unknown, or not an allocation) stands for. */
void probe_estimate__weigh(const struct probe_estimate *e, int64_t size, double *count,
			   double *bytes);
void probe_estimate__add(struct probe_estimate *e, int64_t size, double count, double bytes);
/* PROBE_EST_PERIOD: a kept hit standing for `hits` (report/probe.c's
 * period_weights: its thread's hits over its kept samples), scaled to
 * the hits the kernel counted. */
void probe_estimate__weigh_period(const struct probe_estimate *e, int64_t size, double hits,
				  double *count, double *bytes);
/* "prof report: estimated 27.9 M allocations, 1.2 GB (from 11,892
 * samples, 1.0% of the time probed, 1 in ~50 kept)"; nothing for an older
 * recording. */
void probe_estimate__print(const struct probe_estimate *e, int alloc, const char *event,
			   FILE *out);

/* Does class name `cls` pass --class / --exclude-class? */
int probe_view__class_ok(const struct probe_view *v, const char *cls);
/* malloc-view.c: what --malloc / --leaks keep of a recording: samples
 * kept, their estimated bytes and calls (sums of size/p and 1/p), all the
 * allocation samples and their bytes, the leak age used, the span of the
 * samples' times. 0 or -ENOMEM. */
struct malloc_totals {
	uint64_t samples, bytes, count, all_samples, all_bytes, leak_age_ns, span_ns;
	int no_frees; /* --leaks on a recording without frees (made without --leaks) */
};
int malloc_view__totals(const struct recording *r, const struct probe_view *v,
			struct malloc_totals *t);

/* alloc-unknown.c: of the allocation hits of `event` (class and size),
 * how many carry no size (-1: HotSpot left it unset). */
void alloc_unknown_sizes(const struct recording *r, int event, uint64_t *unknown,
			 uint64_t *hits);
/* Moves each stack's leaf frame to its root (--class-root). 0 or -ENOMEM. */
int profile__leaf_to_root(struct profile *p);

struct profile_build_opts {
	enum profile_by by;
	enum profile_weight weight;
	/* NULL or event -1: CPU samples; else that event's hits (probe.c). */
	const struct probe_view *probe;
	/* Frames with source lines (INLINES records) are named
	 * "function (file.c:42)", file without its directories: one frame per
	 * line, so a flamegraph splits a function by its lines. */
	int lines;
	/* JIT frames keep a Java method's parameter list
	 * ("java.util.HashMap.get(java.lang.Object)_[j]"; jvm_clean_name). */
	int java_signatures;
	/* A flame chart's profile (time-order.c): per thread, an entry per
	 * run of consecutive samples with the same stack, in time order;
	 * threads one after the other by their first sample. CPU samples
	 * only: -EINVAL with another weight or a probe event. */
	int time_order;
	/* With time_order: runs are also cut where a sample falls in
	 * another cell of cell_ns nanoseconds, and each entry's cell is kept
	 * (profile.cells). 0: no cells. */
	uint64_t cell_ns;
};

/* Leaf frames of off-CPU stacks: the state the thread switched out in
 * (R is R and R+), and the wait for a CPU after its wake-up. */
#define PROFILE_LEAF_WAITING "[R waiting for CPU]"

/* Builds the profile of the samples in `r` into `p` (initialized, empty).
 *
 * PROFILE_WEIGHT_CPU counts the samples of CPU events only: samples of
 * tracepoint events (the off-CPU stacks of `prof record --sched`, event
 * "sched:sched_switch") are left out; a sample whose event has no
 * description counts.
 *
 * PROFILE_WEIGHT_OFF_CPU needs the recording's scheduler records
 * (sched.h): each off-CPU stack sample belongs to its thread's switch-out
 * (OUT) nearest in time, within 1 ms (one sample per OUT; a sample without
 * one is left out). It weighs the time that OUT began off CPU, in
 * microseconds, times the event's period N (the recorder takes the stack of
 * one switch-out in N; the rest are estimated from it): the time until the
 * thread's wake-up (or, without one, until its next IN, or the end of the
 * thread or the recording) goes to the stack with a leaf naming the state:
 * "[S sleeping]", "[D uninterruptible]", "[R preempted]", "[T stopped]",
 * "[X exiting]", "[I idle]", "[? other]"; the time from the wake-up to the
 * IN (the wait for a CPU) to the stack with leaf PROFILE_LEAF_WAITING. The
 * spans are the ones sched.h accounts (a span lost to a dropped event weighs
 * nothing). Switch-outs without a sampled stack add nothing: no stack is
 * invented. Weights add up in nanoseconds per (thread, stack, leaf) and are
 * rounded to microseconds once; entries that round to 0 are left out.
 *
 * PROFILE_WEIGHT_WALL is both on one scale, in microseconds: each CPU
 * sample weighs 1e6 / its event's frequency (a period in ns for the
 * cpu-clock and task-clock software events; else META "frequency"), plus
 * the off-CPU entries above.
 *
 * Frame names: the symbol name when the frame has one; else, for a frame in
 * a mapping, "[binary+0xOFF]" (OFF = address - start + pgoff, the file
 * offset; for caller frames the return address, i.e. stored address + 1);
 * else "[unknown+0xADDR]". Kernel frames end in "_[k]"; a kernel frame
 * outside any mapping is "[kernel.kallsyms+0xADDR]_[k]". Truncated samples
 * get a PROFILE_TRUNCATED root frame; empty stacks are PROFILE_NO_STACK.
 *
 * Thread name of a sample: the most recent START/NAME event of its tid at or
 * before the sample, else the first one after, else the tid as text.
 * Allocates; 0, -ENOMEM, -ENODATA (off-CPU or wall without scheduler
 * records), or -EINVAL (wall: a CPU event without a known rate). */
int profile__from_recording(struct profile *p, const struct recording *r,
			    const struct profile_build_opts *opts);

/* One entry per CPU sample of `r`, in file order, by thread, nothing
 * merged (report/per-sample.c): entry i is the i-th CPU sample. Names as
 * profile__from_recording() gives them. 0 or -ENOMEM. */
int profile__from_recording_per_sample(struct profile *p, const struct recording *r,
				       const struct profile_build_opts *opts);

/* Frames a folded line may hold. No real stack comes near: the kernel
 * stops at kernel.perf_event_max_stack (127 by default, 65535 at most),
 * prof's recorder at 1024, and deep recursion under DWARF unwinding at a
 * few thousand; past it a line is an attack or a bug, and reading it
 * would cost 28 bytes of scratch a frame (a 52 MB line of 26M frames took
 * 870 MB). */
#define PROFILE_MAX_DEPTH 16384

struct folded_stats {
	size_t lines;           /* non-empty lines seen */
	size_t malformed;       /* skipped */
	size_t first_malformed; /* 1-based line number, 0 if none */
	size_t bad_line;        /* the line of an -EDOM, -EOVERFLOW or -E2BIG error */
};

/* Adds folded text ("frame;frame;...;leaf COUNT" per line; the count is
 * after the last space, names may hold spaces; empty lines and a trailing
 * '\r' are ignored) to `p`. A count is digits with an optional fraction,
 * "12", "0.5", "1." (what flamegraph.pl accepts); a fraction sets
 * p->count_decimals and scales every count, earlier ones too, so nothing
 * is rounded. Lines without a count, with an empty frame, or with a count
 * that is not such a number or whose digits before the point do not fit 64
 * bits (".5", "1e3", "-1", "nan") are counted in *st and skipped; a count
 * of 0 is accepted and adds nothing. Entries get no thread (a thread root,
 * if any, is the first frame). 0, -ENOMEM, or with the line in
 * st->bad_line: -EDOM for a count with more than PROFILE_MAX_DECIMALS
 * decimals (after trailing zeros), -EOVERFLOW when the counts add up to
 * more than 64 bits hold (in units of 10^-count_decimals), -E2BIG for a
 * line of more than PROFILE_MAX_DEPTH frames. */
int profile__from_folded(struct profile *p, const char *text, size_t len,
			 struct folded_stats *st);
/* The same from text that p may keep: the names stay in it (each frame's
 * ';' or the blank before the count becomes a NUL), not copied, so text
 * must outlive p (a reader's whole input: a million distinct names are
 * 24 MB less to copy and hold). */
int profile__from_folded_in_place(struct profile *p, char *text, size_t len,
				  struct folded_stats *st);

/* ---- fractional counts (count-scale.c) ---- */

#define PROFILE_MAX_DECIMALS 6 /* counts are exact to 10^-6 at most */
#define PROFILE_COUNT_TEXT 32  /* room for any count's text and a NUL */

/* 10^d for d <= PROFILE_MAX_DECIMALS. */
uint64_t profile_count_scale(unsigned decimals);
/* Raises p's counts (entries and total) to `decimals` (>= the current
 * count_decimals, <= PROFILE_MAX_DECIMALS), multiplying them exactly.
 * 0, or -EOVERFLOW (p unchanged) when the total would not fit 64 bits. */
int profile__rescale(struct profile *p, unsigned decimals);
/* Brings two profiles to the same count_decimals (the larger), for
 * comparing them (diffs, baselines). 0 or -EOVERFLOW. */
int profile__align_scales(struct profile *a, struct profile *b);
/* Writes count v (in units of 10^-decimals) exactly as decimal text, no
 * trailing zeros after the point and no point for whole numbers ("0.5",
 * "12", "1.25"), into buf (PROFILE_COUNT_TEXT bytes); returns its length. */
size_t profile_count_text(char *buf, uint64_t v, unsigned decimals);
/* v as a real number (for ratios and JSON; rounds beyond 2^53). */
double profile_count_value(uint64_t v, unsigned decimals);

/* ---- filters ---- */

enum profile_filter_kind {
	PROFILE_INCLUDE, /* keep entries whose stack has a matching frame (OR) */
	PROFILE_EXCLUDE, /* drop entries whose stack has a matching frame */
	PROFILE_THREAD,  /* keep entries whose thread name matches (OR); without
			    threads in the profile: whose root frame matches */
};

struct name_matcher {
	void *res; /* regex_t[] */
	size_t n, cap;
	int8_t *cache; /* per name id: -1 unknown, 0 no, 1 yes */
	size_t cache_cap;
};

/* The filters compose: INCLUDE (any) and not EXCLUDE (any) and THREAD
 * (any) and pid (any) and tid (any); an empty group does not filter. */
struct profile_filter {
	struct name_matcher match[3]; /* by enum profile_filter_kind */
	uint32_t *pids, *tids;
	size_t npids, pids_cap, ntids, tids_cap;
	int cflags;
};

/* Regexes are POSIX extended, unanchored (like grep -E). 0 or -ENOMEM. */
int profile_filter__init(struct profile_filter *f, int ignore_case);
void profile_filter__release(struct profile_filter *f);
/* 0, -ENOMEM, or -EINVAL with regerror()'s text in errbuf. */
int profile_filter__add_regex(struct profile_filter *f, enum profile_filter_kind kind,
			      const char *re, char *errbuf, size_t errlen);
int profile_filter__add_pid(struct profile_filter *f, uint32_t pid);
int profile_filter__add_tid(struct profile_filter *f, uint32_t tid);
/* Does the filter do anything? */
int profile_filter__active(const struct profile_filter *f);

/* Drops the entries the filter rejects and recomputes p->total. Each regex
 * runs at most once per unique name. 0 or -ENOMEM. */
int profile__filter(struct profile *p, struct profile_filter *f);

/* ---- transforms ---- */

/* Collapses every run of digits in thread names into '*', so pools of
 * numbered threads ("dw-12", "dw-13") become one ("dw-*"). Without threads
 * in the profile, it rewrites each stack's root frame instead (the thread
 * name, in folded text made with --threads). 0 or -ENOMEM. */
int profile__merge_pools(struct profile *p);

/* ---- output ---- */

enum profile_thread_root {
	PROFILE_ROOT_NONE = 0,
	PROFILE_ROOT_NAME,     /* the thread name as the root frame */
	PROFILE_ROOT_NAME_TID, /* "name/tid" */
};

struct folded_opts {
	enum profile_thread_root thread_root; /* ignored without threads */
	int any_order; /* profile__lines(): 1: neither merged nor sorted, in the
			* entries' order (a flamegraph merges and orders itself) */
};

/* One output line: an optional thread root and a stack. */
struct profile_line {
	uint32_t root; /* name id of the thread root frame, 0 = none */
	uint32_t stack;
	uint64_t count;
};

/* The profile as folded lines: entries whose text is the same merged into
 * one line, sorted bytewise by the text ("root;frame;...;leaf", as `sort`
 * orders them in the C locale), unless opts->any_order. Zero counts are
 * left out. Interns thread
 * roots into p->names. *lines is malloc'ed, the caller frees it. 0 or
 * -ENOMEM. */
int profile__lines(struct profile *p, const struct folded_opts *opts, struct profile_line **lines,
		   size_t *nlines);

/* Writes profile__lines() as "root;frame;...;leaf COUNT\n". 0, -ENOMEM, or
 * -errno of the failed write. */
int profile__write_folded(struct profile *p, const struct folded_opts *opts, FILE *out);
/* Writes the entries in their order (a time-ordered profile, or folded
 * text's lines as given) as folded lines, consecutive lines with the same
 * text merged into one: a flame chart's input, as flamegraph.pl
 * --flamechart reads it (time-order.c). 0, -ENOMEM, or -errno of the
 * failed write. */
int profile__write_chart(struct profile *p, const struct folded_opts *opts, FILE *out);

struct top_row {
	uint32_t name;
	uint64_t self;  /* samples with this function as the leaf */
	uint64_t total; /* samples with it anywhere in the stack, once per stack */
};

struct profile_top {
	struct top_row *rows; /* sorted: self descending, then name bytewise */
	size_t nrows;
	uint64_t samples; /* the profile's total */
};

/* Computes self and total for every function (frame name) in the profile;
 * thread names are not functions and are left out. 0 or -ENOMEM. */
int profile__top(const struct profile *p, struct profile_top *t);
void profile_top__release(struct profile_top *t);
/* Writes a header and the first `limit` rows (all when 0):
 * "self%  total%  self  total  function". 0 or -errno. */
int profile_top__write(const struct profile *p, const struct profile_top *t, size_t limit,
		       FILE *out);

/* Collapses each run of digits in the `len` bytes at `s` into one '*', in
 * place; returns the new length (never longer). */
size_t merge_pool_name(char *s, size_t len);

#endif
