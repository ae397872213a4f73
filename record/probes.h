/* probes.h: inside record/: probe events (uprobes and USDT probes through
 * the kernel's uprobe PMU) for `prof record -e`, `--alloc` and
 * `prof probes`. See docs/prof-probes.md and docs/prof-record.md.
 *
 * A probe is resolved once (probe-spec.c: which binary, which file offset,
 * which semaphore, which arguments), then opened on every target thread for
 * each CPU (probe-events.c), its hits going into a ring per (probe, CPU)
 * owned by a dummy event on prof's own thread, so that the probe's events
 * can be closed (removing the breakpoints) between windows while the ring
 * stays. probe-decode.c turns each hit into a sample with its stack and its
 * decoded arguments. */
#ifndef PROF_RECORD_PROBES_H
#define PROF_RECORD_PROBES_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <sys/types.h>

#include "lib/keymap.h"
#include "lib/prof-error.h"
#include "lib/sample-skip.h"
#include "symbolize/usdt.h"
#include "lib/path-buf.h"

/* One file a process maps with execute permission. */
struct probe_binary {
	char *path;      /* as the process sees it (/proc/PID/maps) */
	char *open_path; /* where prof opens it: /proc/PID/root/PATH when readable */
};

/* The binaries of pid, each once. 0 or -errno (-ESRCH: no such process). */
int probe_binaries_of(pid_t pid, struct probe_binary **bins, size_t *n);
void probe_binaries_free(struct probe_binary *bins, size_t n);

enum probe_kind {
	PROBE_USDT = 1,
	PROBE_UPROBE,
	PROBE_URETPROBE,
};

/* What the recorder does with a probe's arguments. */
enum probe_role {
	PROBE_ROLE_ARGS = 0,     /* store the decoded arguments */
	PROBE_ROLE_ALLOC,        /* hotspot:object__alloc: class (string) + size */
	PROBE_ROLE_THREAD_START, /* hotspot:thread__start: full thread names */
	/* --malloc (malloc-probes.c, malloc-decode.c) */
	PROBE_ROLE_MALLOC,       /* an allocating function's entry: its size arguments */
	PROBE_ROLE_MALLOC_RET,   /* its return: the address */
	PROBE_ROLE_FREE,         /* free's entry (and realloc's, for the old block) */
};

/* A probe event, resolved. */
struct probe_def {
	char event[512];    /* name in the recording: "usdt:PROVIDER:NAME", ... */
	enum probe_kind kind;
	enum probe_role role;
	char path[PATH_BUF];    /* the binary, as prof opens it */
	uint64_t offset;    /* file offset of the probed instruction */
	uint64_t ref_ctr;   /* file offset of the USDT semaphore, 0: none */
	int nargs;
	struct usdt_arg arg[USDT_MAX_ARGS];
	int stack_args;     /* some argument is read from the stack (rsp/rbp based) */
	int func;           /* --malloc: enum malloc_func of the site */
	int continuous;     /* attached all along, not in windows (--leaks' frees) */
};

/* A parsed -e: "usdt:[PATH:]PROVIDER:NAME", "uprobe:PATH:SYMBOL[+OFF]",
 * "uretprobe:PATH:SYMBOL". Resolves the binary (for usdt without a path:
 * the one among `pids`' mappings, or `cmd`'s program in launch mode that
 * has the probe) and appends a definition per probe site to *defs (*ndefs
 * of *cap, grown). 0, or -errno with a one-line reason and a hint in
 * *err (unknown probe or symbol, missing binary, a binary none of the
 * targets maps). */
int probe_resolve(const char *spec, const pid_t *pids, size_t npids, const char *cmd,
		  struct probe_def **defs, size_t *ndefs, size_t *cap, struct prof_error *err);

/* Is `spec` one of the probe forms (else it may be cpu-clock, or bad)? */
int probe_spec_is_probe(const char *spec);

/* The command's program, found along PATH as execvp() does, into out.
 * 0 or -errno. */
int probe_find_program(const char *cmd, char *out, size_t len);

/* alloc-flag.c: was JVM pid started with -XX:+DTraceAllocProbes (which
 * hotspot:object__alloc needs)? From its command line and its
 * JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS and _JAVA_OPTIONS. */
enum { ALLOC_FLAG_OFF = 0, ALLOC_FLAG_ON = 1, ALLOC_FLAG_UNKNOWN = 2 };
int alloc_flag_state(pid_t pid);
/* The hint for a JVM without it: how to restart it, and what the flag
 * costs (measured). */
extern const char alloc_flag_hint[];

/* ---- while recording (probe-events.c, probe-decode.c) ---- */

struct recorder;
struct ring;
struct malloc_rec;

/* One probe site being recorded. */
struct probe_site {
	struct probe_def def;
	uint8_t event;           /* event id in the recording */
	struct perf_event_attr *attr;
	struct ring *rings;      /* per CPU index, owned by holders[i] */
	int *holders;            /* per CPU: a dummy event on prof's thread */
	uint8_t reg_pos[USDT_NREGS]; /* perf register -> position in a sample, 0xff */
	unsigned nregs;          /* registers in a sample */
	uint64_t regs_mask;
	uint32_t stack_size;     /* user stack bytes copied per hit (0: none) */
	int defined;             /* a tracefs uprobe_events definition to remove */
	int anchor;              /* keeps a tracefs uprobe registered (-1: none) */
	uint64_t image_len;      /* --alloc: the JVM library's size (alloc-size.c) */
	int kperiod;             /* --every N drawn in the kernel (probe-kperiod.c) */
};

struct probe_rec {
	int on;
	struct probe_site *sites;
	size_t nsites;
	int *fds;                /* the probe events open now (closed between windows) */
	size_t nfds, fds_cap;
	int *cfds;               /* those attached all along (thread starts) */
	size_t ncfds, cfds_cap;
	int attached;            /* inside a window (or continuous) */
	uint64_t window_ns, period_ns; /* 0: continuous */
	uint64_t window_start;   /* when the open window was opened */
	uint64_t next_switch;    /* the open or next window's planned start (0: none yet) */
	uint64_t attached_ns, windows, open_ns, hits, unreadable;
	size_t cur;              /* the site being drained */
	int have_thread_start;   /* hotspot:thread__start: full thread names */
	struct keymap strings;   /* (pid, address) -> string id (class names) */
	uint64_t alloc_first_hit_ns;
	char tracefs[4096];      /* where uprobe_events is, "" until needed */
	int pmu;                 /* the uprobe PMU places the probes (not tracefs) */
	/* probe-windows.c: the hits kept */
	struct sample_skip keep;
	uint64_t slot, rng;      /* the period the next window falls in; its offsets */
	uint64_t live[16][2];    /* the last windows' [start, end] (end open: MAX) */
	unsigned nlive;          /* windows pushed (live[nlive % 16] is next) */
	uint64_t edge_hits;      /* hits read outside every window, dropped */
	uint64_t skipped, known_bytes, known_sizes, unknown_sizes;
	uint64_t first_start, end_ns; /* the probed span: first window's start, the end */
	struct malloc_rec *malloc; /* --malloc's pairing and sampling (malloc-decode.c) */
	struct probe_kperiod *kp; /* --every N in the kernel (probe-kperiod.c) */
};

/* alloc-size.c: hotspot:object__alloc's size argument, checked. A hit as
 * alloc_size() needs it: the probe's address, the kernel's callchain, and
 * bp/sp with the stack copy (NULL: none). */
struct alloc_hit {
	uint64_t ip;
	const uint64_t *ips;
	uint64_t nr;
	uint64_t bp, sp;
	const unsigned char *stack;
	uint64_t stack_len;
};
/* At setup, for an alloc site: notes whether its size needs the caller
 * check (a 4-byte size: HotSpot 9-20), and the library's extent. */
void alloc_size_setup(struct probe_site *s);
/* The size in bytes to store, or -1 (unknown): HotSpot's generated code
 * leaves the argument unset (see alloc-size.c). Never allocates. */
int64_t alloc_size(const struct probe_site *s, const struct alloc_hit *h, int64_t size);

/* java-class-name.c: HotSpot's internal class name in[0, len) as Java spells
 * it ("[[I" -> "int[][]", "[Ljava/lang/String;" -> "java.lang.String[]",
 * a hidden class's "Foo$$Lambda$14+0x800c0b800" -> "Foo$$Lambda$14/0x800c0b800"),
 * NUL-terminated in out[cap], cut to fit. Returns the length written. */
size_t java_class_name(const char *in, size_t len, char *out, size_t cap);

/* probe-tracefs.c: defines site k as "p:prof_PID/pK PATH:0xOFF[(0xREF)]"
 * in uprobe_events (removing first the definitions of dead prof
 * processes) and gives its tracepoint id. 0 or -errno. */
int probe_tracefs_define(struct recorder *rec, size_t k, uint64_t *id);
/* Removes this process's definitions (after its events are closed). */
void probe_tracefs_undefine(struct recorder *rec);

/* probe-events.c. setup: resolves opts->events (and --alloc) into sites,
 * writes their EVENTS descriptions, makes the rings; 0 or -errno with
 * rec->err filled. */
int probes_setup(struct recorder *rec);
/* Opens every site on thread tid, for every CPU, while attached; called
 * for each target thread found. 0, -ESRCH (gone) or -errno. */
int probes_open_thread(struct recorder *rec, pid_t tid);
/* Windows: attach (open on every thread of every target process) or
 * detach (close: the kernel removes the breakpoints). */
void probes_attach(struct recorder *rec);
void probes_detach(struct recorder *rec);
/* The end: every probe event closed, windowed or not. */
void probes_close_all(struct recorder *rec);
/* Waits (up to 5 s) until the events detach closed are gone: at the end of
 * a recording, so that the last drain holds every hit. */
void probes_wait_closed(void);
/* After each drain: opens or closes a window when it is time. Returns the
 * ms until the next switch (for the poll timeout), or -1 for none. */
long probes_tick(struct recorder *rec, uint64_t now);
void probes_drain(struct recorder *rec);
void probes_write_stats(struct recorder *rec);
void probes_release(struct recorder *rec);

/* probe-windows.c: seeds the draws (at setup); moves to the next period
 * of P and draws its window's start (next_switch); whether to keep a hit
 * of site s (size: an allocation's bytes, -1 unknown), by --every or
 * --every-bytes (1 keep). */
void probe_windows_init(struct recorder *rec);
void probe_windows_next(struct probe_rec *p);
/* A window from start to end (UINT64_MAX: open): a new one, or the end of
 * the open one (same start). While windowed, hits whose time falls in no
 * recent window (those of a window's edges: the events open and close one
 * by one, on a busy host over tens of ms) are dropped. */
void probe_windows_live(struct probe_rec *p, uint64_t start, uint64_t end);
/* Whether a hit of site s at `time` is inside a recent window (always, for
 * sites not windowed, or without windows); one outside counts in
 * edge_hits. probe_windows_keep() asks it first; --malloc's entries too. */
int probe_windows_inside(struct probe_rec *p, const struct probe_site *s, uint64_t time);
int probe_windows_keep(struct recorder *rec, const struct probe_site *s, int64_t size,
		       uint64_t time);
/* STAT probe-kept, probe-span-ns, probe-unknown-sizes; META
 * probe-sampling ("geometric": the report weighs kept hits with
 * sample-skip.h's weights; absent: every Nth), probe-every-bytes,
 * probe-unknown-size-mean. */
void probe_windows_write_stats(struct recorder *rec);

/* probe-kperiod.c: --every N as a kernel sample_period redrawn after each
 * sample. site: whether site s samples so (--every N > 1 for -e probes
 * and --alloc probed all along; not with --every-bytes or --malloc, which
 * need every hit's size; not in windows, where prof chooses among all the
 * hits as before). setup (after the sites: 0 or -ENOMEM), attr (a site's sample
 * layout: PERF_SAMPLE_READ, a wakeup per sample), draw (the period of the
 * next event opened), opened (an event fd of thread tid: 0 or -errno),
 * hit (a sample's thread, event id and time: 1 to keep it; 0: leave it
 * out, written at the old period before a redraw), redraw (after a drain: a new period for each event drained),
 * detach (a window's end, its events still open: their counts). */
struct probe_kperiod;
int probe_kperiod_site(const struct recorder *rec, const struct probe_site *s);
int probe_kperiod_setup(struct recorder *rec);
void probe_kperiod_attr(struct probe_site *s);
void probe_kperiod_draw(struct recorder *rec, struct probe_site *s);
int probe_kperiod_opened(struct recorder *rec, const struct probe_site *s, int fd, pid_t tid);
int probe_kperiod_hit(struct recorder *rec, uint32_t tid, uint64_t id, uint64_t time);
void probe_kperiod_redraw(struct recorder *rec);
void probe_kperiod_detach(struct recorder *rec);
/* META probe-sampling "kernel"; STATs probe-kernel-hits (and per event,
 * probe-kernel-hits:EVENT, and thread, probe-kernel-hits:EVENT:TID),
 * probe-redraws, probe-stale-samples; the hits (probe-hits) become the
 * kernel's count. Before probe-hits is written. */
void probe_kperiod_write_stats(struct recorder *rec);
void probe_kperiod_release(struct recorder *rec);

/* probe-decode.c: one record of a site's ring (ring_record_fn; ctx = rec). */
void probes_handle_record(void *ctx, const struct perf_event_header *h);
/* For malloc-decode.c: a hit's thread and time, and argument k's value
 * (0, or -EBADMSG / -EFAULT); and a hit written as a sample of `event`
 * with its stack and the n values given as its arguments. */
int probes_hit_arg(const struct probe_site *s, const struct perf_event_header *h, int k,
		   uint32_t *pid, uint32_t *tid, uint64_t *time, int64_t *val);
void probes_write_hit(struct recorder *rec, const struct probe_site *s,
		      const struct perf_event_header *h, uint8_t event, unsigned n,
		      const int64_t *vals);

/* ---- --malloc: native allocations ---- */

enum malloc_func {
	MALLOC_FN_MALLOC = 0, /* malloc(size) */
	MALLOC_FN_CALLOC,     /* calloc(n, size) */
	MALLOC_FN_REALLOC,    /* realloc(ptr, size) */
	MALLOC_FN_MEMALIGN,   /* memalign / aligned_alloc(align, size) */
	MALLOC_FN_POSIX_MEMALIGN, /* posix_memalign(&ptr, align, size) */
	MALLOC_FN_FREE,       /* free(ptr) */
	MALLOC_FN_N,
};

/* malloc-probes.c: the allocator's sites in the targets (a jemalloc or
 * tcmalloc they map, else the C library), appended to *defs: for each
 * allocating function its entry and return, free's entry with --leaks
 * (continuous, as realloc's entry again as a free). 0 or -errno with
 * rec->err filled (no allocator, one without the symbols). */
int malloc_probes_add(struct recorder *rec, struct probe_def **defs, size_t *n, size_t *cap);
/* Trims a site's sample layout to what its role needs (returns and frees:
 * one register, no stack). After fill_attr. */
void malloc_site_attr(struct probe_site *s);
/* Its ring size in pages (0: the default). */
size_t malloc_site_pages(const struct probe_site *s);

/* malloc-decode.c: the hits of the --malloc sites, ordered by time after
 * each drain (entry, return and free land in different rings), sampled by
 * bytes at the entry (lib/sample-skip.h), paired per thread with their
 * return's address; a kept allocation becomes a sample of event "uprobe:malloc"
 * with arguments (size, address, estimated bytes); with --leaks, a free of
 * a kept allocation a sample of "uprobe:malloc:free" (argument: the allocation's
 * sample index). setup: 0 or -errno with rec->err filled. */
int malloc_decode_setup(struct recorder *rec);
/* One record of a --malloc site's ring (ring_record_fn; ctx = rec, the
 * site rec->probes.cur). */
void malloc_handle_record(void *ctx, const struct perf_event_header *h);
/* Handles the hits older than `before`; all of them, and the entries
 * still waiting for their return, once every probe is closed (the end). */
void malloc_decode_flush(struct recorder *rec, uint64_t before);
void malloc_decode_stats(struct recorder *rec);
void malloc_decode_release(struct recorder *rec);

#endif
