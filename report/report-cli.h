/* report-cli.h: the command-line half of report/, for the cmd_*() front
 * ends only (report.h is the model and its writers): the shared input and
 * filter options, reading the input into a filtered profile (input.c,
 * probe-input.c), the option loop and -h (cli-options.c), a second input
 * with the options of the first (diff-input.c), and opening inputs and
 * outputs as every command does (cli-io.c).
 *
 * Unlike the rest of report/, these functions print their errors through
 * lib/cli.h and return an exit status (EXIT_OK, EXIT_FAIL, ...) for
 * cmd_*() to return, unless they say otherwise. */
#ifndef PROF_REPORT_CLI_H
#define PROF_REPORT_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/out-file.h"
#include "lib/recording.h"
#include "report/report.h"
#include "lib/path-buf.h"

/* Room for an input's name in messages: a path and its quotes. */
#define PROFILE_SHOWN_MAX PATH_BUF

/* ---- the input (input.c) ----
 *
 * What every command that reads a profile shares (`prof report`, `prof svg`,
 * ...): the input and filter options, choosing and reading the input (a
 * recording or folded text, a file or standard input), building the model,
 * filtering it and merging thread pools. Unlike the rest of report/, these
 * functions print their errors through lib/cli.h and return an exit status
 * for cmd_*() to return: they are the shared half of a front end. */

/* getopt_long() values of the shared options; commands number their own
 * from PROFILE_OPT_END. */
enum profile_input_opt {
	PROFILE_OPT_THREADS = 256,
	PROFILE_OPT_TIDS,
	PROFILE_OPT_MERGE_POOLS,
	PROFILE_OPT_INCLUDE,
	PROFILE_OPT_EXCLUDE,
	PROFILE_OPT_GREP,
	PROFILE_OPT_THREAD,
	PROFILE_OPT_PID,
	PROFILE_OPT_TID,
	PROFILE_OPT_IGNORE_CASE,
	PROFILE_OPT_LINES,
	PROFILE_OPT_JAVA_SIGNATURES,
	PROFILE_OPT_OFF_CPU,
	PROFILE_OPT_WALL,
	PROFILE_OPT_PERIOD, /* perf script input (formats.h) */
	PROFILE_OPT_PIDS,
	PROFILE_OPT_NO_PERIOD,
	PROFILE_OPT_EVENT,
	PROFILE_OPT_ARGS,
	PROFILE_OPT_ALLOC,
	PROFILE_OPT_WEIGHT_BY,
	PROFILE_OPT_CLASS,
	PROFILE_OPT_EXCLUDE_CLASS,
	PROFILE_OPT_CLASS_ROOT,
	PROFILE_OPT_MALLOC, /* --malloc, --leaks, --leak-age (malloc-view.c) */
	PROFILE_OPT_LEAKS,
	PROFILE_OPT_LEAK_AGE,
	PROFILE_OPT_SINCE, /* --since, --until (input-many.c) */
	PROFILE_OPT_UNTIL,
	PROFILE_OPT_END,
};

/* The shared entries of a `struct option` table; the short option is "i:"
 * for -i. */
#define PROFILE_INPUT_LONG_OPTIONS                                                                 \
	{"input", required_argument, NULL, 'i'},                                                   \
		{"threads", no_argument, NULL, PROFILE_OPT_THREADS},                               \
		{"tids", no_argument, NULL, PROFILE_OPT_TIDS},                                     \
		{"merge-pools", no_argument, NULL, PROFILE_OPT_MERGE_POOLS},                       \
		{"include", required_argument, NULL, PROFILE_OPT_INCLUDE},                         \
		{"exclude", required_argument, NULL, PROFILE_OPT_EXCLUDE},                         \
		{"grep", required_argument, NULL, PROFILE_OPT_GREP},                               \
		{"thread", required_argument, NULL, PROFILE_OPT_THREAD},                           \
		{"pid", required_argument, NULL, PROFILE_OPT_PID},                                 \
		{"tid", required_argument, NULL, PROFILE_OPT_TID},                                 \
		{"ignore-case", no_argument, NULL, PROFILE_OPT_IGNORE_CASE},                       \
		{"lines", no_argument, NULL, PROFILE_OPT_LINES},                                   \
		{"period", no_argument, NULL, PROFILE_OPT_PERIOD},                                 \
		{"pids", no_argument, NULL, PROFILE_OPT_PIDS},                                     \
		{"no-period", no_argument, NULL, PROFILE_OPT_NO_PERIOD},                           \
		{"java-signatures", no_argument, NULL, PROFILE_OPT_JAVA_SIGNATURES},                \
		{"since", required_argument, NULL, PROFILE_OPT_SINCE},                             \
		{"until", required_argument, NULL, PROFILE_OPT_UNTIL}

/* --off-cpu and --wall (PROFILE_WEIGHT_*), for the commands that draw or
 * print stacks; add them to the table after PROFILE_INPUT_LONG_OPTIONS. */
#define PROFILE_WEIGHT_LONG_OPTIONS                                                                \
	{"off-cpu", no_argument, NULL, PROFILE_OPT_OFF_CPU},                                       \
		{"wall", no_argument, NULL, PROFILE_OPT_WALL},                                     \
		{"event", required_argument, NULL, PROFILE_OPT_EVENT},                             \
		{"args", no_argument, NULL, PROFILE_OPT_ARGS},                                     \
		{"alloc", no_argument, NULL, PROFILE_OPT_ALLOC},                                   \
		{"weight", required_argument, NULL, PROFILE_OPT_WEIGHT_BY},                        \
		{"class", required_argument, NULL, PROFILE_OPT_CLASS},                             \
		{"exclude-class", required_argument, NULL, PROFILE_OPT_EXCLUDE_CLASS},             \
		{"class-root", no_argument, NULL, PROFILE_OPT_CLASS_ROOT},                          \
		{"malloc", no_argument, NULL, PROFILE_OPT_MALLOC},                                 \
		{"leaks", no_argument, NULL, PROFILE_OPT_LEAKS},                                   \
		{"leak-age", required_argument, NULL, PROFILE_OPT_LEAK_AGE}

/* The "filters" block of -h, the same for every command. */
extern const char profile_input_filter_help[];
/* The "time" block of -h, for commands with PROFILE_WEIGHT_LONG_OPTIONS. */
extern const char profile_input_weight_help[];

struct profile_pattern {
	enum profile_filter_kind kind;
	const char *re;
	const char *option; /* as messages name it: "--include", ... */
};

/* Everything between the command line and a filtered profile. */
struct profile_input {
	const char *input; /* -i; NULL until decided */
	const char **inputs; /* every -i, in order (input is the first) */
	size_t ninputs;
	const char *since, *until; /* --since, --until: NULL when not given */
	char shown[PROFILE_SHOWN_MAX]; /* the input as messages name it */
	enum profile_thread_root roots;
	int roots_asked; /* --threads or --tids (not just --merge-pools) */
	int merge_pools, grep, ignore_case;
	int lines; /* --lines: source lines in frame names */
	int java_signatures; /* --java-signatures */
	enum profile_weight weight; /* --off-cpu, --wall */
	struct profile_pattern *patterns;
	size_t npatterns;
	uint32_t *pids, *tids;
	size_t npids, ntids;

	recording_replay_fn replay; /* the command's (commands.h): for a killed recorder's file */
	unsigned char *data; /* the input's bytes until a recording owns them */
	size_t size;
	int is_recording;
	struct recording rec;  /* when is_recording */
	struct folded_stats folded; /* when not */
	/* `perf script` text input (formats.h, perf-script.c). */
	int is_perf_script;
	int perf_period; /* --period 1, --no-period -1 (perf script weights, formats.h) */
	int perf_weighed; /* set by loading: some counts are perf script periods */
	int perf_pids;   /* --pids: roots "comm-PID" */
	int want_threads; /* the command's output needs threads (pprof, speedscope) */
	int time_order;   /* --flamechart: a recording in time order (profile_build_opts) */
	uint64_t cell_ns; /* with time_order: time cells of this many ns (--timeline) */
	uint64_t loaded_total; /* samples before the filters */
	struct profile prof;
	struct profile_filter filter;

	/* Two-column (diff) folded text, "stack OLD NEW" (report/diff.h): */
	int column;     /* the count read: enum diff_column, 0 = NEW (the last) */
	int two_column; /* set by loading: the input was two-column */
	int preloaded;  /* data and size were set before loading: not read again */
	/* --event, --args, --alloc and their options (probe-input.c) */
	const char *event_name;
	const char **class_patterns; /* --class, then --exclude-class marked '!' */
	size_t nclass_patterns, class_patterns_cap;
	struct probe_view probe;
};

/* probe-input.c, for input.c: takes a probe option (as
 * profile_input__option does: 0, -1 not ours, else an exit status);
 * resolves them against a parsed recording (which event; errors printed;
 * 0 or an exit status); applies --class-root after building; refuses them
 * for folded input; frees. */
int probe_input__option(struct profile_input *in, int opt, const char *arg);
int probe_input__resolve(struct profile_input *in);
int probe_input__after_build(struct profile_input *in);
int probe_input__folded(struct profile_input *in);
void probe_input__release(struct profile_input *in);

/* Zeroes `in` and sizes its option lists for `argc` arguments (each option
 * takes at most one slot). 0, or EXIT_FAIL after printing. */
int profile_input__init(struct profile_input *in, int argc);
/* Frees everything; on a zeroed `in`, a no-op. */
void profile_input__release(struct profile_input *in);
/* Takes one getopt_long() result: 0 when it was a shared option and is
 * recorded, -1 when it is not a shared option (the command's own), else an
 * exit status after printing a usage error. */
int profile_input__option(struct profile_input *in, int opt, const char *arg);
/* Call after the last option: settles what the options imply (--merge-pools
 * implies --threads). */
void profile_input__options_done(struct profile_input *in);
/* Compiles the filters, picks the input (-i, else standard input when it is
 * a pipe or a file, else prof.data), reads it whole (unless preloaded), builds in->prof from the
 * recording or folded text (warning about incomplete recordings, lost
 * samples, malformed lines), filters it and merges pools. Blocks on reading.
 * With --off-cpu or --wall: an error when the input is folded text or a
 * recording without scheduler events, a warning when the kernel dropped
 * switch events. 0, or an exit status after printing the error. */
int profile_input__load(struct profile_input *in);
/* input-many.c, for profile_input__load(): several inputs (-i more than
 * once, or a directory's *.data recordings), or one cut to --since /
 * --until: merged into in->data (preloaded). 0, or an exit status after
 * printing. */
int profile_input__load_many(struct profile_input *in);
/* Parses a recording's bytes (data, size bytes: the recording owns them
 * from now on, even on failure) into r, for the commands that read one:
 * says on stderr when it is corrupt (or memory ran out) and warns when it is
 * incomplete; the kernel records a killed recorder left are processed with
 * `replay` (struct prof_env's). 0, or EXIT_FAIL after printing. */
int profile_input__parse_recording(struct recording *r, unsigned char *data, size_t size,
				   const char *shown, recording_replay_fn replay);

/* ---- a second input (diff-input.c) ---- */

/* Sets up `dst` (zeroed) as a second input with the input options of `src`
 * (filters, thread roots, --off-cpu/--wall, --lines, --ignore-case) that
 * reads `path` ("-": standard input). 0, or EXIT_FAIL after printing. */
int profile_input__clone(struct profile_input *dst, const struct profile_input *src,
			 const char *path);

/* ---- the option loop (cli-options.c) ---- */

/* What a command tells profile_input__parse_options(). */
struct profile_cli {
	const char *shortopts;        /* getopt_long()'s, starting with ':' */
	const struct option *longopts; /* PROFILE_INPUT_LONG_OPTIONS and its own */
	const char *usage_head, *usage_tail; /* -h: profile_input__help() */
	/* Takes one of the command's own options, first (before the shared
	 * ones): 0 when it was its own and is recorded, -1 when it is not,
	 * else an exit status after printing a usage error. */
	int (*own_option)(void *cmd, int opt, const char *arg);
};

/* Sets `in` up (profile_input__init(), with `replay`: struct prof_env's,
 * for a killed recorder's file) and reads the options of argv with
 * getopt_long(): the command's own (cli->own_option, given `cmd`), then
 * the shared ones (profile_input__option()); -h prints the help; a missing
 * value or an unknown option is a usage error. Leaves optind at the first
 * operand; the caller checks the operands and calls
 * profile_input__options_done(). 0, -1 (help shown: exit 0), or an exit
 * status after printing. */
int profile_input__parse_options(struct profile_input *in, int argc, char **argv,
				 const struct profile_cli *cli, void *cmd,
				 recording_replay_fn replay);
/* --flamechart, after profile_input__options_done(): refuses the options
 * a flame chart cannot show (--off-cpu, --wall, --event, --alloc: CPU
 * samples only) and asks for a recording in time order with a root per
 * thread (its name, unless --tids). 0, or EXIT_USAGE after printing. */
int profile_input__flamechart(struct profile_input *in);
/* -h of a command with the shared input options: `head`, the time and
 * filter blocks of input.c, `tail`, on standard output. Returns -1 (done:
 * exit 0), or EXIT_FAIL when standard output failed. */
int profile_input__help(const char *head, const char *tail);

/* ---- opening inputs and outputs (cli-io.c) ---- */

/* The input `path` as messages name it, into shown (len bytes): "standard
 * input" for "-", else "'PATH'" (cut to fit). */
void profile_input_name(char *shown, size_t len, const char *path);
/* Reads `path` ("-": standard input) whole into *data (malloc'ed, the
 * caller frees it). On failure prints "cannot read standard input: ...",
 * "cannot read 'PATH': ..." (a directory, out of memory) or "cannot open
 * 'PATH': ...", with `shown` naming it (profile_input_name()), then `hint`
 * (NULL: none) as a hint when the file does not exist. Blocks on reading.
 * 0, or EXIT_FAIL after printing. */
int profile_input_read(const char *path, const char *shown, const char *hint,
		       unsigned char **data, size_t *size);
/* Its messages for `err` (-errno of reading path): EXIT_FAIL. */
int profile_input_read_error(const char *path, const char *shown, const char *hint, int err);

/* A command's text output: -o FILE, a new file that takes its name only
 * when it was written whole (lib/out-file.h), or standard output. */
struct profile_output {
	FILE *fp;         /* where to write; NULL once closed */
	const char *path; /* the file; NULL: standard output */
	struct out_file of;
};

/* Opens the output: standard output for a NULL path or "-", else the file
 * (fully buffered). Prints nothing (each command says it its way): 0 or
 * -errno of the open. */
int profile_output__open(struct profile_output *o, const char *path);
/* Ends writing whose result was `err` (0 or -errno): a file takes its name
 * when err is 0; else it is removed and an old one stays as it was.
 * Standard output is left open. Returns err, else the error of closing
 * the file (0 or -errno). On a closed or zeroed output, returns err. */
int profile_output__close(struct profile_output *o, int err);

#endif
