/* formats.h: the formats other tools write and read, on top of the profile
 * model (report.h): `perf script` text in (perf-script.c), pprof's
 * profile.proto (format-pprof.c) and speedscope's JSON (format-speedscope.c)
 * out. Conventions as in report.h: 0 or -errno, nothing prints. */
#ifndef PROF_REPORT_FORMATS_H
#define PROF_REPORT_FORMATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/recording.h"
#include "report/report.h"

/* ---- perf script text in ---- */

/* What the thread name (the root frame) of a perf script sample is, as
 * FlameGraph's stackcollapse-perf.pl names it. */
enum perf_script_root {
	PERF_SCRIPT_ROOT_COMM = 0, /* "comm" (stackcollapse-perf.pl's default) */
	PERF_SCRIPT_ROOT_PID,      /* "comm-PID" (its --pid; "?" when the text has no pid) */
	PERF_SCRIPT_ROOT_TID,      /* "comm-PID/TID" (its --tid) */
};

/* What a perf script sample weighs. */
enum perf_script_weight {
	/* stackcollapse-perf.pl's rule: the period of a header "... TIME:
	 * PERIOD EVENT:" (the period after a token ending in ':'), else 1 */
	PERF_SCRIPT_WEIGHT_DEFAULT = 0,
	PERF_SCRIPT_WEIGHT_PERIOD,  /* --period: the number before the event, else 1 (st->no_period) */
	PERF_SCRIPT_WEIGHT_SAMPLES, /* --no-period: 1 each */
};

struct perf_script_opts {
	enum perf_script_root root;
	enum perf_script_weight period;
};

struct perf_script_stats {
	size_t lines;           /* non-empty lines, comments included */
	size_t samples;         /* samples counted */
	size_t malformed;       /* lines that are neither a header, a frame nor a comment */
	size_t first_malformed; /* 1-based line number, 0 if none */
	size_t other_events;    /* samples of events other than the first one seen: skipped */
	char event[64];         /* the first event seen (the one counted), "" if none */
	char other_event[64];   /* the first skipped event */
	size_t no_period;       /* samples without a period, counted 1 (not with _SAMPLES) */
	size_t weighed;         /* samples weighed by their period */
	size_t bad_line;        /* the line of an -EOVERFLOW, -ERANGE, -E2BIG or -EMSGSIZE (1-based) */
};

/* The largest pid or tid perf script text may hold: pid_t's (the kernel's
 * own limit, PID_MAX_LIMIT, is 2^22). */
#define PERF_SCRIPT_MAX_ID 2147483647u
/* The longest line of perf script text read (a frame line of C++
 * templates is a few KiB): past it, -EMSGSIZE, so that a line without end
 * cannot hold the streamed input in memory after all. */
#define PERF_SCRIPT_MAX_LINE (1u << 20)

/* Does `text` look like `perf script` output (rather than folded stacks)?
 * Looks at the first lines only: a frame line (indentation, a hex address,
 * a symbol) or a sample header with a "SECONDS.MICROS:" time. */
int perf_script_detect(const char *text, size_t len);

/* Collapses `perf script` text into `p` (initialized, empty), as
 * stackcollapse-perf.pl --all does: one entry per (thread, stack), the
 * thread named by opts->root, the stack from the root (outermost caller)
 * to the leaf; p->has_threads is set (pid and tid come from the header;
 * pid 0 when the text has none). Frame names: the symbol without its
 * "+0xOFF", cut at its first '(' (C++ arguments; not Go's "pkg.(*T).m"
 * nor "(anonymous namespace)"), without quotes, ';' as ':'; "[unknown]"
 * symbols as "[DSO]" (the DSO's base name), or "[unknown]"; kernel DSOs
 * ("[...]", "...vmlinux"; without a DSO field, x86-64 kernel-half
 * addresses) add "_[k]", JIT DSOs (/tmp/perf-PID.map,
 * jitted-*.so) "_[j]", inlined "a->b" parts after the first "_[i]"; Java
 * signatures of "java" threads lose their leading 'L'. Only samples of the
 * first event named in the text count (mixing events misleads). The last
 * sample counts even without a blank line after it. Never allocates per
 * line: frame lines are cached by their text, stacks hashed. 0, -ENOMEM,
 * -EOVERFLOW (with opts.period, a period or the sum of the periods does not
 * fit 64 bits: nothing is rounded or saturated) or -ERANGE (a pid or tid
 * above PERF_SCRIPT_MAX_ID: no id is wrapped or clamped) or -E2BIG (a sample
 * of more than PROFILE_MAX_DEPTH frames); st->bad_line says where. */
int profile__from_perf_script(struct profile *p, const char *text, size_t len,
			      const struct perf_script_opts *opts, struct perf_script_stats *st);

/* The same as the text streams in: a reader takes the text in chunks cut
 * anywhere (a cut line is kept until its end comes), and keeps only the
 * distinct frames and stacks, never the text. _feed and _finish return
 * what profile__from_perf_script() returns; st is filled as it goes. */
struct perf_script_reader;
int perf_script_reader__new(struct perf_script_reader **r, struct profile *p,
			    const struct perf_script_opts *opts, struct perf_script_stats *st);
int perf_script_reader__feed(struct perf_script_reader *r, const char *text, size_t len);
int perf_script_reader__finish(struct perf_script_reader *r);
void perf_script_reader__free(struct perf_script_reader *r); /* NULL: no-op */

/* Reads the rest of `fd` (a file or a pipe, read in 1 MiB chunks) after
 * `head` (what was read of it already, to tell its format) as perf script
 * text into `p` (perf-script-read.c). As profile__from_perf_script(), or
 * -errno of a failed read (st->bad_line 0). Does not close fd. */
int profile__read_perf_script(struct profile *p, int fd, const char *head, size_t head_len,
			      const struct perf_script_opts *opts, struct perf_script_stats *st);

/* Opens `path` ("-": standard input) and reads up to `want` bytes into
 * *data (malloc'ed, *size bytes, room for one more). *fd is left open for
 * the rest, or -1 when that was all of it (standard input is never
 * closed: *fd 0). 0, or -errno (-EISDIR for a directory). */
int profile_text__read_head(const char *path, size_t want, int *fd, unsigned char **data,
			    size_t *size);
/* Appends the rest of `fd` to *data (*size bytes of it read). 0 or -errno;
 * the caller closes fd. */
int profile_text__read_rest(int fd, unsigned char **data, size_t *size);

/* ---- pprof out ---- */

struct pprof_opts {
	enum profile_weight weight; /* what the counts are (report.h) */
	int period;                 /* counts are perf script periods (--period) */
};

/* Writes `p` as a gzipped profile.proto. With the recording `r` it was
 * built from (p->origin set), Locations carry addresses, mappings and
 * inline chains; else (r NULL, or folded or perf script input) each frame
 * name is a Location. Sample types: samples/count and, when the recording
 * gives the CPU event's rate, cpu/nanoseconds; off-cpu/nanoseconds or
 * wall/nanoseconds for those weights; for allocation profiles (--alloc,
 * p->alloc_objects) alloc_objects/count and alloc_space/bytes, whatever
 * the weight, alloc_space the default; with fractional counts (folded
 * input) samples/tenths ... samples/millionths (values are int64). Entries with threads get labels
 * "thread", "thread_id" and "pid". Builds the message in memory. 0,
 * -ENOMEM, or -errno of the failed write. */
int profile__write_pprof(const struct profile *p, const struct recording *r,
			 const struct pprof_opts *o, FILE *out);

/* ---- speedscope out ---- */

struct speedscope_opts {
	enum profile_weight weight; /* CPU: unit "none"; else "microseconds" */
	const char *name;           /* the file's name (the input, as shown) */
};

/* Writes `p` as speedscope's JSON file format: one "sampled" profile per
 * thread (name and tid), busiest first, or one ("all") without threads;
 * frames shared; each entry one sample weighted by its count. 0, -ENOMEM,
 * or -errno of the failed write. */
int profile__write_speedscope(const struct profile *p, const struct speedscope_opts *o,
			      FILE *out);

#endif
