/* input.c: the shared half of the front ends that read a profile (see
 * report-cli.h): the input and filter options, picking and reading the input,
 * building the model from a recording or folded text, filtering it. The
 * commands (`prof report`, `prof svg`) add their own options and output.
 * Like cmd-report.c, and unlike the rest of report/, it prints its errors
 * and returns exit statuses. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cli.h"
#include "lib/recording.h"
#include "report/formats.h"
#include "report/diff.h"
#include "report/report-cli.h"

#define DEFAULT_INPUT "prof.data"

const char profile_input_filter_help[] =
	"filters (POSIX extended regexes, unanchored like grep -E; all must hold):\n"
	"  --include RE       keep stacks with a frame matching RE (repeat: any)\n"
	"  --exclude RE       drop stacks with a frame matching RE (repeat: any)\n"
	"  --grep RE          like --include; exit status 1 when nothing matched\n"
	"  --thread RE        keep threads whose name matches RE (repeat: any);\n"
	"                     on folded input: stacks whose root frame matches\n"
	"  --pid N            keep samples of process N (repeat: any; recordings)\n"
	"  --tid N            keep samples of thread N (repeat: any; recordings)\n"
	"  --ignore-case      regexes ignore case\n"
	"  --since T          keep samples from T on, T: seconds from the start (30,\n"
	"                     1.5), a UTC time of day (03:14, 03:14:05) or ISO time\n"
	"  --until T          keep samples before T\n"
	"several recordings (-i more than once, or -i DIR: its *.data files) are\n"
	"read as one: threads, stacks and names unified, samples added\n"
	"source lines (recordings of binaries with DWARF):\n"
	"  --lines            name frames 'function (file.c:42)': a frame per line\n"
	"perf script input (read like FlameGraph's stackcollapse-perf.pl --all):\n"
	"  --period           weigh samples by the number before their event, wherever\n"
	"                     (default: by the period of 'TIME: PERIOD EVENT:', as\n"
	"                     stackcollapse-perf.pl; 1 without one)\n"
	"  --no-period        count each sample 1\n"
	"  --pids             roots 'comm-PID' (--tids: 'comm-PID/TID')\n"
	"Java (recordings of JVMs):\n"
	"  --java-signatures  keep Java methods' parameter lists in JIT frame names\n";

const char profile_input_weight_help[] =
	"time (recordings made with 'prof record --sched'; counts in microseconds):\n"
	"  --off-cpu          time off CPU, by the stack each thread switched out\n"
	"                     at (a sampled one in N, weighed N times), with a leaf\n"
	"                     for the state: [S sleeping], [D uninterruptible],\n"
	"                     [R preempted], ...; and [R waiting for CPU] after\n"
	"                     a wake-up\n"
	"  --wall             wall-clock time: CPU samples as time, plus --off-cpu\n"
	"probes (recordings made with 'prof record -e' or '--alloc'):\n"
	"  --event NAME       the hits of this event (usdt:PROVIDER:NAME, ...); the\n"
	"                     default is the CPU samples, or the first probe event\n"
	"                     of a recording without them\n"
	"  --args             each hit's decoded arguments as its leaf frame\n"
	"  --alloc            JVM allocations: the class allocated as the leaf\n"
	"  --weight W         of probe hits: count (default: estimated allocations or\n"
	"                     hits, scaled by the sampling), bytes (--alloc: estimated\n"
	"                     bytes) or samples (the hits kept)\n"
	"  --class RE         with --alloc: keep classes matching RE (repeat: any)\n"
	"  --exclude-class RE with --alloc: drop classes matching RE\n"
	"  --class-root       with --alloc: the class at the root, not the leaf\n"
	"native allocations (recordings made with 'prof record --malloc'):\n"
	"  --malloc           where the bytes were allocated (estimates, --weight\n"
	"                     bytes by default, count or samples)\n"
	"  --leaks            what was allocated and never freed (record with --leaks)\n"
	"  --leak-age SECONDS with --leaks: only blocks at least this old at the end\n"
	"                     (default 10% of the recording, at most 1 s)\n";

int profile_input__init(struct profile_input *in, int argc)
{
	memset(in, 0, sizeof(*in));
	in->patterns = calloc((size_t)argc + 1, sizeof(*in->patterns));
	in->pids = calloc((size_t)argc + 1, sizeof(*in->pids));
	in->tids = calloc((size_t)argc + 1, sizeof(*in->tids));
	in->inputs = calloc((size_t)argc + 1, sizeof(*in->inputs));
	if (!in->patterns || !in->pids || !in->tids || !in->inputs) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	return 0;
}

void profile_input__release(struct profile_input *in)
{
	free(in->patterns);
	free(in->pids);
	free(in->tids);
	free(in->inputs);
	free(in->data);
	if (in->is_recording)
		recording__release(&in->rec);
	profile__release(&in->prof);
	profile_filter__release(&in->filter);
	probe_input__release(in);
	memset(in, 0, sizeof(*in));
}

int profile_input__option(struct profile_input *in, int opt, const char *arg)
{
	uint64_t v;

	switch (opt) {
	case 'i':
		in->inputs[in->ninputs++] = arg;
		in->input = in->inputs[0];
		return 0;
	case PROFILE_OPT_SINCE:
		in->since = arg;
		return 0;
	case PROFILE_OPT_UNTIL:
		in->until = arg;
		return 0;
	case PROFILE_OPT_THREADS:
		if (in->roots == PROFILE_ROOT_NONE)
			in->roots = PROFILE_ROOT_NAME;
		in->roots_asked = 1;
		return 0;
	case PROFILE_OPT_TIDS:
		in->roots = PROFILE_ROOT_NAME_TID;
		in->roots_asked = 1;
		return 0;
	case PROFILE_OPT_MERGE_POOLS:
		in->merge_pools = 1;
		return 0;
	case PROFILE_OPT_INCLUDE:
	case PROFILE_OPT_EXCLUDE:
	case PROFILE_OPT_GREP:
	case PROFILE_OPT_THREAD: {
		struct profile_pattern *pt = &in->patterns[in->npatterns++];

		pt->re = arg;
		pt->kind = opt == PROFILE_OPT_EXCLUDE  ? PROFILE_EXCLUDE
			   : opt == PROFILE_OPT_THREAD ? PROFILE_THREAD
						       : PROFILE_INCLUDE;
		pt->option = opt == PROFILE_OPT_INCLUDE   ? "--include"
			     : opt == PROFILE_OPT_EXCLUDE ? "--exclude"
			     : opt == PROFILE_OPT_GREP    ? "--grep"
							  : "--thread";
		if (opt == PROFILE_OPT_GREP)
			in->grep = 1;
		return 0;
	}
	case PROFILE_OPT_PID:
	case PROFILE_OPT_TID:
		if (cli_parse_u64(arg, 0, UINT32_MAX, &v))
			return cli_usage_error("%s needs a process or thread id, not '%s'",
					       opt == PROFILE_OPT_PID ? "--pid" : "--tid", arg);
		if (opt == PROFILE_OPT_PID)
			in->pids[in->npids++] = (uint32_t)v;
		else
			in->tids[in->ntids++] = (uint32_t)v;
		return 0;
	case PROFILE_OPT_IGNORE_CASE:
		in->ignore_case = 1;
		return 0;
	case PROFILE_OPT_LINES:
		in->lines = 1;
		return 0;
	case PROFILE_OPT_PERIOD:
		in->perf_period = 1;
		return 0;
	case PROFILE_OPT_NO_PERIOD:
		in->perf_period = -1;
		return 0;
	case PROFILE_OPT_PIDS:
		in->perf_pids = 1;
		return 0;
	case PROFILE_OPT_JAVA_SIGNATURES:
		in->java_signatures = 1;
		return 0;
	case PROFILE_OPT_OFF_CPU:
	case PROFILE_OPT_WALL: {
		enum profile_weight w =
			opt == PROFILE_OPT_WALL ? PROFILE_WEIGHT_WALL : PROFILE_WEIGHT_OFF_CPU;

		if (in->weight != PROFILE_WEIGHT_CPU && in->weight != w)
			return cli_usage_error("--off-cpu and --wall cannot be combined");
		in->weight = w;
		return 0;
	}
	default:
		return probe_input__option(in, opt, arg);
	}
}

void profile_input__options_done(struct profile_input *in)
{
	if (in->merge_pools && in->roots == PROFILE_ROOT_NONE)
		in->roots = PROFILE_ROOT_NAME;
}

static int compile_filters(struct profile_input *in)
{
	size_t i;
	char msg[256];

	profile_filter__init(&in->filter, in->ignore_case);
	for (i = 0; i < in->npatterns; i++) {
		const struct profile_pattern *pt = &in->patterns[i];
		int err = profile_filter__add_regex(&in->filter, pt->kind, pt->re, msg, sizeof(msg));

		if (err == -ENOMEM) {
			cli_error("out of memory");
			return EXIT_FAIL;
		}
		if (err)
			return cli_usage_error("invalid regular expression '%s' for %s: %s", pt->re,
					       pt->option, msg);
	}
	for (i = 0; i < in->npids; i++)
		if (profile_filter__add_pid(&in->filter, in->pids[i]))
			goto oom;
	for (i = 0; i < in->ntids; i++)
		if (profile_filter__add_tid(&in->filter, in->tids[i]))
			goto oom;
	return 0;
oom:
	cli_error("out of memory");
	return EXIT_FAIL;
}

/* Picks the input: -i, else stdin when it is a pipe, socket or file, else
 * prof.data. */
static void choose_input(struct profile_input *in)
{
	struct stat st;

	if (!in->input) {
		/* A socket too: what programs like Node's execFileSync give. */
		if (!fstat(0, &st) &&
		    (S_ISFIFO(st.st_mode) || S_ISREG(st.st_mode) || S_ISSOCK(st.st_mode)))
			in->input = "-";
		else
			in->input = DEFAULT_INPUT;
	}
	if (!in->ninputs)
		in->inputs[in->ninputs++] = in->input;
	profile_input_name(in->shown, sizeof(in->shown), in->input);
	if (in->ninputs > 1) {
		size_t len = strlen(in->shown);

		snprintf(in->shown + len, sizeof(in->shown) - len, " (and %zu more)",
			 in->ninputs - 1);
	}
}

#define INPUT_HINT "record one with 'prof record'"

/* The input's first bytes, enough to tell its format; *fd is left open for
 * the rest (-1: that was all). perf script text streams from there
 * (perf-script-read.c), other inputs are read whole by read_rest(). */
static int read_head(struct profile_input *in, int *fd)
{
	int err = profile_text__read_head(in->input, 1 << 16, fd, &in->data, &in->size);

	return err ? profile_input_read_error(in->input, in->shown, INPUT_HINT, err) : 0;
}

static int read_rest(struct profile_input *in, int fd)
{
	int err = fd < 0 ? 0 : profile_text__read_rest(fd, &in->data, &in->size);

	return err ? profile_input_read_error(in->input, in->shown, INPUT_HINT, err) : 0;
}

/* A recorder killed while it deferred its processing left the kernel's
 * records unprocessed (RAW chunks): they are processed here, into memory,
 * and r becomes the result. */
static int replay_raw(struct recording *r, const char *shown, recording_replay_fn replay)
{
	size_t nraw = r->nraw;
	uint64_t samples = 0;
	char msg[512];

	if (recording__replay(r, replay, &samples, msg, sizeof(msg))) {
		cli_error("%s: cannot process the kernel records its recorder left: %s", shown, msg);
		return EXIT_FAIL;
	}
	cli_warn("%s: its recorder stopped (killed, or its disk filled) before processing its "
		 "samples: processed %zu "
		 "chunk%s of kernel records now (%llu samples; 'prof symbolize --incomplete' "
		 "writes them processed)", shown, nraw, nraw == 1 ? "" : "s",
		 (unsigned long long)samples);
	return 0;
}

int profile_input__parse_recording(struct recording *r, unsigned char *data, size_t size,
				   const char *shown, recording_replay_fn replay)
{
	char msg[512];
	int err = recording__parse(r, data, size, msg, sizeof(msg));

	if (err == -ENOMEM) {
		cli_error("out of memory reading %s", shown);
		return EXIT_FAIL;
	}
	if (err) {
		cli_error("%s is corrupt: %s", shown, msg);
		return EXIT_FAIL;
	}
	/* A cut file is not a corrupt one (recording.h): its recorder stopped
	 * writing; only a STOP chunk says why, else it may have been killed or
	 * its disk filled (the writer cannot say so on a full disk). */
	if (!r->complete && r->stop_errno)
		cli_warn("%s is incomplete (its recorder stopped writing at byte %zu: %s); "
			 "showing what it holds",
			 shown, r->cut_at, strerror(r->stop_errno));
	else if (!r->complete)
		cli_warn("%s is incomplete (its recorder stopped at byte %zu before finishing: "
			 "killed, or its disk filled); showing what it holds",
			 shown, r->cut_at);
	if (r->duplicates)
		cli_warn("%s holds %zu duplicated chunk%s (the first at byte %zu copies the one at "
			 "byte %zu): skipped, not counted twice; the file was altered or damaged",
			 shown, r->duplicates, r->duplicates == 1 ? "" : "s", r->duplicate_at,
			 r->duplicate_of);
	if (r->nraw)
		return replay_raw(r, shown, replay);
	return 0;
}

static const char *weight_option(enum profile_weight w)
{
	return w == PROFILE_WEIGHT_WALL ? "--wall" : "--off-cpu";
}

static int build_from_recording(struct profile_input *in)
{
	struct profile_build_opts opts = {
		.by = PROFILE_BY_STACK, .weight = in->weight, .lines = in->lines,
		.java_signatures = in->java_signatures, .time_order = in->time_order,
		.cell_ns = in->cell_ns,
	};
	uint64_t lost;
	int err;

	in->is_recording = 1;
	err = profile_input__parse_recording(&in->rec, in->data, in->size, in->shown, in->replay);
	in->data = NULL; /* owned by the recording now */
	if (err)
		return err;
	if (in->weight != PROFILE_WEIGHT_CPU && !in->rec.nsched) {
		cli_error("recording has no scheduler events: record with 'prof record --sched'");
		return EXIT_FAIL;
	}
	if (!in->rec.nsamples)
		cli_warn("%s holds no samples", in->shown);
	err = probe_input__resolve(in);
	if (err)
		return err;
	opts.probe = &in->probe;
	lost = recording__stat(&in->rec, "lost");
	if (lost)
		cli_warn("%s: %llu samples were lost while recording (the recorder fell "
			 "behind); shares may be skewed: record with a larger -m or a lower -F",
			 in->shown, (unsigned long long)lost);
	if (in->probe.alloc && in->probe.weight_bytes && in->probe.event >= 0) {
		uint64_t unknown, hits;

		alloc_unknown_sizes(&in->rec, in->probe.event, &unknown, &hits);
		if (unknown)
			cli_warn("bytes unknown for %.1f%% of hits (%llu of %llu: HotSpot 17's "
				 "interpreter and C1 call the probe without the size); they weigh 0",
				 100.0 * (double)unknown / (double)hits, (unsigned long long)unknown,
				 (unsigned long long)hits);
	}
	lost = recording__stat(&in->rec, "sched-lost");
	if (in->weight != PROFILE_WEIGHT_CPU && lost)
		cli_warn("the kernel dropped %llu switch events; off-CPU times are underestimated",
			 (unsigned long long)lost);
	if (in->roots != PROFILE_ROOT_NONE || in->filter.match[PROFILE_THREAD].n ||
	    in->filter.npids || in->filter.ntids || in->want_threads)
		opts.by = PROFILE_BY_THREAD;
	err = profile__from_recording(&in->prof, &in->rec, &opts);
	if (err == -EINVAL) {
		cli_error("cannot turn the CPU samples of %s into time for --wall: their event has "
			  "no sampling frequency",
			  in->shown);
		return EXIT_FAIL;
	}
	if (err) {
		cli_error("out of memory building the profile of %s", in->shown);
		return EXIT_FAIL;
	}
	return probe_input__after_build(in);
}

/* Folded text into in->prof; of two-column (diff) text, the count of
 * in->column (report/diff.h). 0 or -errno of profile__from_folded(). */
static int read_folded(struct profile_input *in)
{
	char *text = NULL;
	size_t len = 0;
	int err;

	in->two_column = diff_folded__is_two_column((const char *)in->data, in->size);
	/* in->data is the profile's until both are released: it keeps the
	 * names (a one-column text is not read again) */
	if (!in->two_column)
		return profile__from_folded_in_place(&in->prof, (char *)in->data, in->size,
						     &in->folded);
	err = diff_folded__keep_column((const char *)in->data, in->size, in->column, &text, &len);
	if (!err)
		err = profile__from_folded(&in->prof, text, len, &in->folded);
	free(text);
	return err;
}

static int build_from_folded(struct profile_input *in)
{
	struct folded_stats *st = &in->folded;
	int err;

	if (in->weight != PROFILE_WEIGHT_CPU) {
		cli_error("%s needs a recording made with 'prof record --sched'; %s is folded text",
			  weight_option(in->weight), in->shown);
		return EXIT_FAIL;
	}
	if (in->npids || in->ntids)
		return cli_usage_error("--pid and --tid need a recording; %s is folded text, which "
				       "has no thread ids",
				       in->shown);
	if (in->lines)
		return cli_usage_error("--lines needs a recording; %s is folded text", in->shown);
	if (probe_input__folded(in))
		return EXIT_USAGE;
	if (in->roots_asked)
		return cli_usage_error("--threads and --tids need a recording; %s is folded text "
				       "(make it with 'prof report --threads')",
				       in->shown);
	err = read_folded(in);
	if (err == -EDOM) {
		cli_error("%s: line %zu has a count with more than %d decimals; prof keeps counts "
			  "exact, to %d decimals at most",
			  in->shown, st->bad_line, PROFILE_MAX_DECIMALS, PROFILE_MAX_DECIMALS);
		return EXIT_FAIL;
	}
	if (err == -E2BIG) {
		cli_error("%s: line %zu has more than %d frames, the most prof reads in a stack "
			  "(no real stack is that deep)",
			  in->shown, st->bad_line, PROFILE_MAX_DEPTH);
		return EXIT_FAIL;
	}
	if (err == -EOVERFLOW) {
		cli_error("%s: the counts add up to more than 2^64 - 1%s at line %zu; "
			  "prof does not round or wrap them",
			  in->shown, in->prof.count_decimals ? " (in units of their last decimal)" : "",
			  st->bad_line);
		return EXIT_FAIL;
	}
	if (err) {
		cli_error("out of memory reading %s", in->shown);
		return EXIT_FAIL;
	}
	if (st->lines && st->malformed == st->lines) {
		cli_error("%s is neither a recording nor folded stacks (line %zu is not "
			  "'frame;...;frame COUNT')",
			  in->shown, st->first_malformed);
		return EXIT_FAIL;
	}
	if (st->malformed)
		cli_warn("skipped %zu malformed line%s of %s (first: line %zu)", st->malformed,
			 st->malformed == 1 ? "" : "s", in->shown, st->first_malformed);
	if (!in->size && strcmp(in->input, "-"))
		cli_warn("%s is empty", in->shown);
	return 0;
}

/* `perf script` text: threads named like stackcollapse-perf.pl's roots,
 * shown as roots by default (it always roots stacks at the comm). */
static int build_from_perf_script(struct profile_input *in, int fd)
{
	struct perf_script_opts opts = {
		.root = in->roots == PROFILE_ROOT_NAME_TID ? PERF_SCRIPT_ROOT_TID
			: in->perf_pids			   ? PERF_SCRIPT_ROOT_PID
							   : PERF_SCRIPT_ROOT_COMM,
		.period = in->perf_period > 0	? PERF_SCRIPT_WEIGHT_PERIOD
			  : in->perf_period < 0 ? PERF_SCRIPT_WEIGHT_SAMPLES
						: PERF_SCRIPT_WEIGHT_DEFAULT,
	};
	struct perf_script_stats st;
	int err;

	in->is_perf_script = 1;
	if (in->weight != PROFILE_WEIGHT_CPU) {
		cli_error("%s needs a recording made with 'prof record --sched'; %s is perf script "
			  "text",
			  weight_option(in->weight), in->shown);
		return EXIT_FAIL;
	}
	if (in->lines || in->time_order)
		return cli_usage_error("%s needs a recording%s; %s is perf script text",
				       in->lines ? "--lines" : "--flamechart",
				       in->lines ? "" : " or folded text in time order", in->shown);
	err = profile__read_perf_script(&in->prof, fd, (const char *)in->data, in->size, &opts,
					&st);
	if (err && err != -ENOMEM && !st.bad_line) {
		cli_error("cannot read %s: %s", in->shown, strerror(-err));
		return EXIT_FAIL;
	}
	if (err == -EOVERFLOW) {
		cli_error("%s: the periods add up to more than 2^64 - 1 at line %zu; prof does not "
			  "round or wrap them",
			  in->shown, st.bad_line);
		return EXIT_FAIL;
	}
	if (err == -E2BIG) {
		cli_error("%s: the sample at line %zu has more than %d frames, the most prof reads "
			  "in a stack (no real stack is that deep)",
			  in->shown, st.bad_line, PROFILE_MAX_DEPTH);
		return EXIT_FAIL;
	}
	if (err == -EMSGSIZE) {
		cli_error("%s: line %zu is longer than %u bytes, which no perf script line is",
			  in->shown, st.bad_line, PERF_SCRIPT_MAX_LINE);
		return EXIT_FAIL;
	}
	if (err == -ERANGE) {
		cli_error("%s: line %zu has a pid or tid above %u, which no process has; prof does "
			  "not wrap or clamp ids",
			  in->shown, st.bad_line, PERF_SCRIPT_MAX_ID);
		return EXIT_FAIL;
	}
	if (err) {
		cli_error("out of memory reading %s", in->shown);
		return EXIT_FAIL;
	}
	in->roots = PROFILE_ROOT_NAME; /* the thread name holds the root's style */
	if (!st.samples && st.malformed) {
		cli_error("%s looks like perf script output but holds no sample (line %zu is "
			  "neither a sample header nor a frame)",
			  in->shown, st.first_malformed);
		return EXIT_FAIL;
	}
	if (st.malformed)
		cli_warn("skipped %zu malformed line%s of %s (first: line %zu)", st.malformed,
			 st.malformed == 1 ? "" : "s", in->shown, st.first_malformed);
	if (st.other_events)
		cli_warn("counted only the samples of event '%s' (the first in %s); skipped %zu "
			 "sample%s of other events, such as '%s'",
			 st.event, in->shown, st.other_events, st.other_events == 1 ? "" : "s",
			 st.other_event);
	in->perf_weighed = st.weighed != 0;
	if (st.no_period && in->perf_period > 0)
		cli_warn("--period: %zu sample%s of %s have no period (perf script -F ...,period): "
			 "counted 1 each",
			 st.no_period, st.no_period == 1 ? "" : "s", in->shown);
	return 0;
}

static int check_perf_only_options(struct profile_input *in)
{
	if (in->perf_period || in->perf_pids)
		return cli_usage_error("%s is for perf script input; %s is not perf script text",
				       in->perf_period > 0 ? "--period" : in->perf_period ? "--no-period" : "--pids", in->shown);
	return 0;
}

int profile_input__load(struct profile_input *in)
{
	struct stat st;
	int rc, fd = -1;

	rc = compile_filters(in);
	if (rc)
		return rc;
	choose_input(in);
	if (!in->preloaded && (in->ninputs > 1 || in->since || in->until ||
			       (strcmp(in->input, "-") && !stat(in->input, &st) && S_ISDIR(st.st_mode))))
		rc = profile_input__load_many(in);
	if (!rc)
		rc = in->preloaded ? 0 : read_head(in, &fd);
	if (rc)
		return rc;
	if (profile__init(&in->prof)) {
		cli_error("out of memory");
		rc = EXIT_FAIL;
	} else if (perf_script_detect((const char *)in->data, in->size) &&
		   !recording_is_recording(in->data, in->size)) {
		rc = build_from_perf_script(in, fd);
	} else {
		rc = read_rest(in, fd);
		if (!rc)
			rc = check_perf_only_options(in);
		if (!rc)
			rc = recording_is_recording(in->data, in->size) ? build_from_recording(in)
									 : build_from_folded(in);
	}
	if (fd > 0)
		close(fd);
	if (rc)
		return rc;
	in->loaded_total = in->prof.total;
	if (profile__filter(&in->prof, &in->filter)) {
		cli_error("out of memory filtering the profile");
		return EXIT_FAIL;
	}
	if (in->merge_pools && profile__merge_pools(&in->prof)) {
		cli_error("out of memory merging thread pools");
		return EXIT_FAIL;
	}
	return 0;
}
