/* cmd-record.c: `prof record`, the front end of record/: options, then
 * record_run(), then the one-line summary. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "lib/cli.h"
#include "lib/grow.h"
#include "record.h"

static const char usage_text[] =
	"usage: prof record [-F HZ] [-d SECONDS] [-o FILE] [--call-graph MODE] [-e EVENT]...\n"
	"                   [--every N | --every-bytes SIZE] [--probe-window W/P] [--alloc]\n"
	"                   [--ring SECONDS [--trigger RULE]... [--holdoff SECONDS]\n"
	"                   [--after SECONDS] [--no-save-on-exit]]\n"
	"                   -p PID[,PID...]\n"
	"   or: prof record [-F HZ] [-d SECONDS] [-o FILE] [--call-graph MODE] [-e EVENT]...\n"
	"                   [--every N] [--probe-window W/P] -- COMMAND [ARGS...]\n"
	"\n"
	"Samples the call stacks (kernel and user) of every thread of running\n"
	"processes, or of a command and its children, into a recording file.\n"
	"\n"
	"  -p, --pid PID[,PID...]  attach to these processes (all their threads,\n"
	"                          including threads created while recording)\n"
	"  -F, --freq HZ           samples per second per thread (default 99)\n"
	"  -d, --duration SECONDS  stop after this long (default: when the targets\n"
	"                          exit, or on Ctrl-C / SIGTERM)\n"
	"  -o, --output FILE       recording file (default prof.data)\n"
	"  -m, --mmap-pages N      ring buffer pages per CPU, a power of two (default:\n"
	"                          a quarter second of samples at -F, at least 256,\n"
	"                          1024 with --call-graph dwarf: 16 MiB per CPU at\n"
	"                          999 Hz with dwarf; --sched rings get 4 x -m)\n"
	"      --sched             also record every context switch and wake-up of the\n"
	"                          targets (for prof sched, report/svg --off-cpu, --wall)\n"
	"      --sched-stacks N    with --sched, keep the call stack of one switch-out\n"
	"                          in N (default 16; 1: every one; 0: none)\n"
	"      --sched-per-thread  with --sched, open events on each target thread\n"
	"                          instead of CPU-wide ones (slower on switch-heavy\n"
	"                          targets; the fallback when CPU-wide is refused)\n"
	"      --call-graph MODE   how user stacks are walked: auto (the default: fp\n"
	"                          when the targets' programs keep frame pointers,\n"
	"                          else dwarf; a notice says which and why), fp (frame\n"
	"                          pointers) or dwarf[,SIZE] (copies of SIZE bytes of\n"
	"                          user stack, default 32768, unwound with the\n"
	"                          binaries' CFI: for code built without frame pointers)\n"
	"      --leaf-fix MODE     fp: how the callers that frameless leaf functions\n"
	"                          hide from the frame-pointer walk are found: stack\n"
	"                          (the default: registers and 64 bytes of stack with\n"
	"                          every sample; the exact call site), callsite (from\n"
	"                          the call before the next return address: nothing\n"
	"                          more in the samples, but not through calls by\n"
	"                          register), off\n"
	"      --no-leaf-fix       the same as --leaf-fix off\n"
	"      --no-symbolize      keep raw addresses only (symbolize later)\n"
	"      --no-defer          make samples into stacks as they come (the default\n"
	"                          writes the kernel's records as they are and does that\n"
	"                          after the recording, off the target's CPU time)\n"
	"      --defer-limit MIB   process as they come once this many MiB of records\n"
	"                          were written unprocessed (default 256)\n"
	"      --jit-every SECONDS ask the JVMs for their JIT maps this often while\n"
	"                          recording, so that code the JIT moved or freed keeps\n"
	"                          its name (default 5; 0: only at the end)\n"
	"\n"
	"probes (docs/prof-probes.md; root or CAP_PERFMON):\n"
	"  -e, --event EVENT       record this event (repeat): usdt:PROVIDER:NAME,\n"
	"                          usdt:PATH:PROVIDER:NAME, uprobe:PATH:FUNCTION[+OFF],\n"
	"                          uretprobe:PATH:FUNCTION, cpu-clock. With -e, only the\n"
	"                          events given are recorded: add -e cpu-clock for CPU\n"
	"                          samples too\n"
	"      --every N           keep one probe hit in N on average, at random\n"
	"                          (default 1: every hit)\n"
	"      --every-bytes SIZE  with --alloc or --malloc: one sample per SIZE bytes\n"
	"                          allocated on average (512K, 1M; 1: every one), each\n"
	"                          weighed to an estimate (--malloc's default: 512K)\n"
	"      --probe-window W/P  attach the probes W ms out of every P ms, at a random\n"
	"                          time in each P (their breakpoints are removed in\n"
	"                          between: each hit traps, whatever --every keeps);\n"
	"                          'off': all the time (the default, but with --alloc:\n"
	"                          10/1000)\n"
	"      --alloc             JVM allocations: -e usdt:hotspot:object__alloc on the\n"
	"                          JVM's libjvm.so, with the class and size of each\n"
	"                          (needs java -XX:+DTraceAllocProbes)\n"
	"      --malloc            native allocations: malloc, calloc, realloc, memalign,\n"
	"                          posix_memalign of the C library (or jemalloc, tcmalloc)\n"
	"                          with their stacks, sampled by bytes (windows 10/1000)\n"
	"      --leaks             with --malloc: also free, attached all along, for\n"
	"                          'prof report --leaks'\n"
	"      --uprobe-pmu        place probes through the uprobe PMU rather than\n"
	"                          tracefs definitions (slow to detach: about 80 ms\n"
	"                          per thread and CPU)\n"
	"      --rotate SECONDS    continuous recording: -o names a directory (made\n"
	"                          0700 if missing) and each period of SECONDS goes\n"
	"                          to a complete recording of its own there, named\n"
	"                          by its UTC start (prof-20261126T031500Z.data)\n"
	"      --keep AGE|SIZE     with --rotate: remove the oldest of those files to\n"
	"                          keep only the last AGE (1h, 30m, 90s) or at most\n"
	"                          SIZE bytes (500M, 2G)\n"
	"\n"
	"flight recorder (docs/prof-record.md):\n"
	"      --ring SECONDS      keep only the last SECONDS in memory (nothing is\n"
	"                          written to -o itself); save them as a new file named\n"
	"                          from -o and the UTC time (prof-20261125T031502Z.data)\n"
	"                          on SIGUSR1 and when recording ends\n"
	"      --trigger RULE      with --ring: save when RULE (prof check's language,\n"
	"                          e.g. \"'slow_path' >= 20%\" or 'total >= 1500 samples')\n"
	"                          holds over the ring's last seconds (at most 60),\n"
	"                          measured every second (repeat for more rules)\n"
	"      --holdoff SECONDS   after a trigger trips, none trips again for this\n"
	"                          long (default 60): one incident, one file\n"
	"      --after SECONDS     save this long after a trigger trips (default 0)\n"
	"      --no-save-on-exit   with --ring: no save when recording ends\n"
	"  -q, --quiet             no summary or notices on stderr\n"
	"  -h, --help              show this help\n";

/* "auto", "fp", "dwarf" or "dwarf,SIZE" (SIZE a multiple of 8, at most
 * 65528). */
static int parse_call_graph(const char *arg, struct record_opts *o)
{
	uint64_t v;

	if (!strcmp(arg, "auto")) {
		o->call_graph = RECORD_CALL_GRAPH_AUTO;
		o->stack_size = 0;
		return 0;
	}
	if (!strcmp(arg, "fp")) {
		o->call_graph = RECORD_CALL_GRAPH_FP;
		return 0;
	}
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ','))
		return -1;
	o->call_graph = RECORD_CALL_GRAPH_DWARF;
	o->stack_size = 0;
	if (!arg[5])
		return 0;
	if (cli_parse_u64(arg + 6, 8, RECORD_MAX_STACK_SIZE, &v) || v % 8)
		return -1;
	o->stack_size = (uint32_t)v;
	return 0;
}

/* "W/P" in milliseconds, 0 < W < P; or "off". */
static int parse_window(const char *arg, struct record_opts *o)
{
	char *end;
	unsigned long w, p;

	if (!strcmp(arg, "off")) {
		o->window_ms = o->period_ms = RECORD_PROBE_WINDOW_OFF;
		return 0;
	}
	errno = 0;
	w = strtoul(arg, &end, 10);
	if (errno || end == arg || *end != '/')
		return -1;
	arg = end + 1;
	p = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || !w || w >= p || p > 3600000)
		return -1;
	o->window_ms = (uint32_t)w;
	o->period_ms = (uint32_t)p;
	return 0;
}

/* --every-bytes: N, NK, NM or NG (powers of 1024), 1 byte to 1 GiB. */
static int parse_size(const char *arg, uint64_t *out)
{
	char num[32];
	size_t len = strlen(arg);
	uint64_t mult = 1, v;

	if (!len || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, arg, len + 1);
	switch (num[len - 1]) {
	case 'K': case 'k': mult = 1ULL << 10; break;
	case 'M': case 'm': mult = 1ULL << 20; break;
	case 'G': case 'g': mult = 1ULL << 30; break;
	default: break;
	}
	if (mult > 1)
		num[len - 1] = '\0';
	if (cli_parse_u64(num, 1, (1ULL << 30) / mult, &v))
		return -EINVAL;
	*out = v * mult;
	return 0;
}

/* The shape of a probe event (the binary and probe are checked later). */
static int probe_event_syntax_ok(const char *e)
{
	return !strncmp(e, "usdt:", 5) || !strncmp(e, "uprobe:", 7) || !strncmp(e, "uretprobe:", 10);
}

static void print_probe_summary(const struct record_summary *s)
{
	double secs = (double)s->duration_ns / 1e9;
	double duty = s->duration_ns ? 100.0 * (double)s->probe_attached_ns / (double)s->duration_ns
				     : 0;

	fprintf(stderr, "prof record: %llu probe hits kept; probes attached %.2f%% of the time "
		"(%llu window%s), %.1f ms opening and closing them\n",
		(unsigned long long)s->probe_hits, duty, (unsigned long long)s->probe_windows,
		s->probe_windows == 1 ? "" : "s", (double)s->probe_open_ns / 1e6);
	if (s->probe_seen)
		fprintf(stderr, "prof record: %llu of %llu hits kept (--every, --every-bytes: at "
			"random; windows: those inside them)\n", (unsigned long long)s->probe_hits,
			(unsigned long long)s->probe_seen);
	(void)secs;
	if (s->malloc_calls || s->malloc_frees)
		fprintf(stderr, "prof record: %llu allocation calls trapped, %llu kept (sampled by "
			"bytes), %llu frees trapped%s\n",
			(unsigned long long)s->malloc_calls, (unsigned long long)s->malloc_kept,
			(unsigned long long)s->malloc_frees,
			s->malloc_frees ? " (free is attached all along with --leaks)" : "");
}

static void print_summary(const struct record_summary *s, const char *out)
{
	if (s->probes)
		print_probe_summary(s);
	if (s->alloc_no_hit)
		fprintf(stderr, "prof record: warning: no allocation was recorded: does the JVM run "
			"with -XX:+DTraceAllocProbes, and did it allocate while the probes were "
			"attached?\n");
	double secs = (double)s->duration_ns / 1e9;
	double kb = (double)s->bytes / 1024.0;

	/* Before the main line, which scripts read as the last one. */
	if (s->stack_size && s->unwind_stacks) {
		fprintf(stderr, "prof record: %llu of %llu user stacks unwound to their root (%.1f%%), "
			"%llu stack copies cut at %u bytes, %.0f ms unwinding\n",
			(unsigned long long)s->unwind_root, (unsigned long long)s->unwind_stacks,
			100.0 * (double)s->unwind_root / (double)s->unwind_stacks,
			(unsigned long long)s->unwind_cut, s->stack_size, (double)s->unwind_ns / 1e6);
	}
	if (s->fp_stacks) {
		double pct = 100.0 * (double)s->fp_root / (double)s->fp_stacks;

		fprintf(stderr, "prof record: %llu of %llu user stacks reached their root through "
			"frame pointers (%.1f%%), %llu cut at a garbage frame%s\n",
			(unsigned long long)s->fp_root, (unsigned long long)s->fp_stacks, pct,
			(unsigned long long)s->fp_cut,
			pct < RECORD_FP_ROOT_HINT ? ": rerun with --call-graph dwarf" : "");
	}
	if (s->sched_stacks_lost)
		fprintf(stderr, "prof record: %llu switch-out stacks lost (their ring was full): the "
			"off-CPU profile weighs the others to each thread's off-CPU time\n",
			(unsigned long long)s->sched_stacks_lost);
	if (s->switch_unwind_stacks)
		fprintf(stderr, "prof record: %llu of %llu switch-out stacks unwound to their root "
			"(%.1f%%)\n",
			(unsigned long long)s->switch_unwind_root,
			(unsigned long long)s->switch_unwind_stacks,
			100.0 * (double)s->switch_unwind_root / (double)s->switch_unwind_stacks);
	fprintf(stderr,
		"prof record: %.1f s, %llu samples, %llu threads, %llu lost, %.0f KB written to %s",
		secs, (unsigned long long)s->samples, (unsigned long long)s->threads,
		(unsigned long long)s->lost, kb, out);
	if (s->throttled)
		fprintf(stderr, " (throttled %llu times)", (unsigned long long)s->throttled);
	fputc('\n', stderr);
	if (s->switches || s->wakeups || s->sched_lost)
		fprintf(stderr, "prof record: %llu switches, %llu wake-ups, %llu switch events lost\n",
			(unsigned long long)s->switches, (unsigned long long)s->wakeups,
			(unsigned long long)s->sched_lost);
}

static char *join_args(int argc, char **argv)
{
	size_t len = 1;
	int i;
	char *s;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (i = 0; i < argc; i++) {
		strcat(s, argv[i]);
		if (i + 1 < argc)
			strcat(s, " ");
	}
	return s;
}

enum { OPT_LEAF_FIX = 256, OPT_NO_DEFER, OPT_DEFER_LIMIT, OPT_MALLOC,
       OPT_LEAKS, OPT_JIT_EVERY, OPT_ROTATE, OPT_KEEP, OPT_RING, OPT_NO_SAVE_ON_EXIT,
       OPT_TRIGGER, OPT_HOLDOFF, OPT_AFTER }; /* long options without a short one */

/* --keep: an age (90s, 30m, 1h, 2d; a bare number is seconds) or a size
 * (500K, 500M, 2G). */
static int parse_keep(const char *arg, struct rotate_keep *k)
{
	size_t len = strlen(arg);
	char c = len ? arg[len - 1] : 0;
	uint64_t mult = 1, v;
	char num[32];

	if (!len || len >= sizeof(num))
		return -1;
	memcpy(num, arg, len + 1);
	if (strchr("smhd", c) || (c >= '0' && c <= '9')) {
		mult = c == 'm' ? 60 : c == 'h' ? 3600 : c == 'd' ? 86400 : 1;
		if (!(c >= '0' && c <= '9'))
			num[len - 1] = '\0';
		if (cli_parse_u64(num, 1, 100ULL * 365 * 86400 / mult, &v))
			return -1;
		k->seconds = v * mult;
		return 0;
	}
	mult = c == 'K' || c == 'k' ? 1ULL << 10 : c == 'M' ? 1ULL << 20 : c == 'G' || c == 'g'
	       ? 1ULL << 30 : c == 'T' ? 1ULL << 40 : 0;
	if (!mult)
		return -1;
	num[len - 1] = '\0';
	if (cli_parse_u64(num, 1, (1ULL << 50) / mult, &v))
		return -1;
	k->bytes = v * mult;
	return 0;
}

#define MAX_TRIGGERS 16 /* --trigger rules */

/* --ring's summary line. */
static void print_ring_summary(const struct record_summary *s, const struct record_opts *o,
			       const struct record_triggers *t)
{
	fprintf(stderr, "prof record: %.1f s, %llu samples, %llu threads, %llu lost; ring of "
		"%.0f s: %llu saved, %llu failed, %llu records dropped",
		(double)s->duration_ns / 1e9, (unsigned long long)s->samples,
		(unsigned long long)s->threads, (unsigned long long)s->lost,
		(double)o->ring_ns / 1e9, (unsigned long long)s->ring_saves,
		(unsigned long long)s->ring_save_failures, (unsigned long long)s->ring_dropped);
	if (t->nrules)
		fprintf(stderr, ", %llu trigger trip%s", (unsigned long long)t->trips,
			t->trips == 1 ? "" : "s");
	fputc('\n', stderr);
}

int cmd_record(int argc, char **argv, const struct prof_env *env)
{
	static const struct option longopts[] = {
		{"pid", required_argument, NULL, 'p'},
		{"freq", required_argument, NULL, 'F'},
		{"duration", required_argument, NULL, 'd'},
		{"output", required_argument, NULL, 'o'},
		{"mmap-pages", required_argument, NULL, 'm'},
		{"no-symbolize", no_argument, NULL, 'S'},
		{"call-graph", required_argument, NULL, 'g'},
		{"no-leaf-fix", no_argument, NULL, 'L'},
		{"leaf-fix", required_argument, NULL, OPT_LEAF_FIX},
		{"no-defer", no_argument, NULL, OPT_NO_DEFER},
		{"defer-limit", required_argument, NULL, OPT_DEFER_LIMIT},
		{"jit-every", required_argument, NULL, OPT_JIT_EVERY},
		{"sched", no_argument, NULL, 's'},
		{"sched-stacks", required_argument, NULL, 'k'},
		{"sched-per-thread", no_argument, NULL, 'T'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{"event", required_argument, NULL, 'e'},
		{"every", required_argument, NULL, 'E'},
		{"every-bytes", required_argument, NULL, 'B'},
		{"probe-window", required_argument, NULL, 'W'},
		{"alloc", no_argument, NULL, 'A'},
		{"malloc", no_argument, NULL, OPT_MALLOC},
		{"leaks", no_argument, NULL, OPT_LEAKS},
		{"uprobe-pmu", no_argument, NULL, 'U'},
		{"rotate", required_argument, NULL, OPT_ROTATE},
		{"keep", required_argument, NULL, OPT_KEEP},
		{"ring", required_argument, NULL, OPT_RING},
		{"no-save-on-exit", no_argument, NULL, OPT_NO_SAVE_ON_EXIT},
		{"trigger", required_argument, NULL, OPT_TRIGGER},
		{"holdoff", required_argument, NULL, OPT_HOLDOFF},
		{"after", required_argument, NULL, OPT_AFTER},
		{NULL, 0, NULL, 0},
	};
	const char **events = NULL;
	size_t nevents = 0, events_cap = 0;
	char why[192];
	struct record_opts opts;
	struct record_summary sum;
	struct prof_error err;
	pid_t *pids = NULL;
	size_t npids = 0, pids_cap = 0;
	char *cmdline;
	int c, rc;
	uint64_t v, rotate_ns = 0;
	struct rotate_keep keep = {0};
	struct record_triggers trig;
	const char *rules[MAX_TRIGGERS];
	const char *ring_only = NULL; /* an option that needs --ring */

	memset(&opts, 0, sizeof(opts));
	memset(&trig, 0, sizeof(trig));
	trig.holdoff_ns = RECORD_DEFAULT_HOLDOFF_NS;
	opterr = 0;
	optind = 1;
	/* '+': stop at the first non-option, so "-- CMD -x" reaches CMD. */
	while ((c = getopt_long(argc, argv, "+p:F:d:o:m:e:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (strcmp(optarg, "cpu-clock") && !probe_event_syntax_ok(optarg)) {
				free(pids);
				free(events);
				return cli_usage_error("unknown event '%s' (cpu-clock, usdt:PROVIDER:NAME, "
						       "usdt:PATH:PROVIDER:NAME, uprobe:PATH:FUNCTION[+OFF] "
						       "or uretprobe:PATH:FUNCTION)", optarg);
			}
			if (GROW(events, events_cap, nevents + 1)) {
				free(pids);
				free(events);
				cli_error("out of memory");
				return EXIT_FAIL;
			}
			events[nevents++] = optarg;
			break;
		case 'E':
			if (cli_parse_u64(optarg, 1, 1000000000, &v)) {
				free(pids);
				free(events);
				return cli_usage_error("invalid --every '%s' (1 to 1000000000)", optarg);
			}
			opts.every = v;
			break;
		case 'B':
			if (parse_size(optarg, &opts.every_bytes)) {
				free(pids);
				free(events);
				return cli_usage_error("invalid --every-bytes '%s' (a size: 512K, 1M, "
						       "1 to 1G)", optarg);
			}
			break;
		case 'W':
			if (parse_window(optarg, &opts)) {
				free(pids);
				free(events);
				return cli_usage_error("invalid --probe-window '%s' (W/P in ms, 0 < W < P, "
						       "or 'off')", optarg);
			}
			break;
		case 'A':
			opts.alloc = 1;
			break;
		case 'U':
			opts.uprobe_pmu = 1;
			break;
		case OPT_MALLOC:
			opts.malloc = 1;
			break;
		case OPT_LEAKS:
			opts.leaks = 1;
			break;
		case 'p':
			if (cli_parse_pid_list(optarg, &pids, &npids, &pids_cap, why, sizeof(why))) {
				free(pids);
				free(events);
				return cli_usage_error("%s", why);
			}
			break;
		case 'F':
			if (cli_parse_u64(optarg, 1, 1000000, &v)) {
				free(pids);
				return cli_usage_error("invalid frequency '%s' (1 to 1000000 Hz)", optarg);
			}
			opts.freq = v;
			break;
		case 'd':
			if (cli_parse_seconds(optarg, &opts.duration_ns)) {
				free(pids);
				return cli_usage_error("invalid duration '%s' (seconds, e.g. 5 or 0.5)",
						       optarg);
			}
			break;
		case 'o':
			opts.output = optarg;
			break;
		case 'm':
			if (cli_parse_u64(optarg, 1, 1 << 20, &v) || (v & (v - 1))) {
				free(pids);
				return cli_usage_error("invalid ring size '%s' (a power of two)", optarg);
			}
			opts.ring_pages = (size_t)v;
			break;
		case 'S':
			opts.no_symbolize = 1;
			break;
		case 'g':
			if (parse_call_graph(optarg, &opts)) {
				free(pids);
				return cli_usage_error("invalid --call-graph '%s' (auto, fp, dwarf or dwarf,SIZE "
						       "with SIZE a multiple of 8 up to %u)", optarg,
						       RECORD_MAX_STACK_SIZE);
			}
			break;
		case 'L':
			opts.no_leaf_fix = 1;
			break;
		case OPT_LEAF_FIX:
			if (!strcmp(optarg, "off")) {
				opts.no_leaf_fix = 1;
			} else if (!strcmp(optarg, "stack") || !strcmp(optarg, "callsite")) {
				opts.no_leaf_fix = 0;
				opts.leaf_fix = !strcmp(optarg, "stack") ? RECORD_LEAF_STACK
									  : RECORD_LEAF_CALLSITE;
			} else {
				free(pids);
				return cli_usage_error("invalid --leaf-fix '%s' (stack, callsite or off)",
						       optarg);
			}
			break;
		case OPT_NO_DEFER:
			opts.no_defer = 1;
			break;
		case OPT_ROTATE:
			if (cli_parse_seconds(optarg, &rotate_ns) || rotate_ns < 1000000000ULL) {
				free(pids);
				return cli_usage_error("invalid --rotate '%s' (seconds, at least 1)",
						       optarg);
			}
			break;
		case OPT_KEEP:
			if (parse_keep(optarg, &keep)) {
				free(pids);
				return cli_usage_error("invalid --keep '%s' (an age: 90s, 30m, 1h; or a "
						       "size: 500M, 2G)", optarg);
			}
			break;
		case OPT_DEFER_LIMIT:
			if (cli_parse_u64(optarg, 1, 1 << 20, &v)) {
				free(pids);
				return cli_usage_error("invalid --defer-limit '%s' (1 to 1048576 MiB)",
						       optarg);
			}
			opts.defer_limit = v << 20;
			break;
		case OPT_JIT_EVERY:
			if (!strcmp(optarg, "0"))
				opts.jit_every_ns = RECORD_JIT_END_ONLY;
			else if (cli_parse_seconds(optarg, &opts.jit_every_ns)) {
				free(pids);
				return cli_usage_error("invalid --jit-every '%s' (seconds, e.g. 5 or "
						       "0.5; 0: only at the end)", optarg);
			}
			break;
		case OPT_RING:
			if (cli_parse_seconds(optarg, &opts.ring_ns) || opts.ring_ns < 1000000000ULL ||
			    opts.ring_ns > 3600 * 1000000000ULL) {
				free(pids);
				return cli_usage_error("invalid --ring '%s' (seconds, 1 to 3600)", optarg);
			}
			break;
		case OPT_NO_SAVE_ON_EXIT:
			opts.ring_no_save_on_exit = 1;
			break;
		case OPT_TRIGGER:
			if (trig.nrules == MAX_TRIGGERS) {
				free(pids);
				free(events);
				return cli_usage_error("too many --trigger rules (at most %d)",
						       MAX_TRIGGERS);
			}
			rules[trig.nrules++] = optarg;
			break;
		case OPT_HOLDOFF:
		case OPT_AFTER:
			if (cli_parse_seconds(optarg, &v) || v > 86400 * 1000000000ULL) {
				free(pids);
				free(events);
				return cli_usage_error("invalid --%s '%s' (seconds, 0 to 86400)",
						       c == OPT_AFTER ? "after" : "holdoff", optarg);
			}
			*(c == OPT_AFTER ? &trig.after_ns : &trig.holdoff_ns) = v;
			ring_only = c == OPT_AFTER ? "--after" : "--holdoff";
			break;
		case 's':
			opts.sched = 1;
			break;
		case 'k':
			if (cli_parse_u64(optarg, 0, 1000000000, &v)) {
				free(pids);
				return cli_usage_error("invalid --sched-stacks '%s' (0 to 1000000000)",
						       optarg);
			}
			opts.sched_stacks = v ? v : RECORD_SCHED_STACKS_NONE;
			break;
		case 'T':
			opts.sched_per_thread = 1;
			break;
		case 'q':
			opts.quiet = 1;
			break;
		case 'h':
			free(pids);
			fputs(usage_text, stdout);
			return EXIT_OK;
		default:
			free(pids);
			if (optopt && optopt != '?')
				return cli_usage_error("option '-%c' %s", optopt,
						       strchr("pFdom", optopt) ? "needs a value" : "is unknown");
			return cli_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		opts.argv = argv + optind;
	if (!npids && !opts.argv) {
		free(pids);
		free(events);
		return cli_usage_error("nothing to record: give -p PID or -- COMMAND");
	}
	if (opts.leaks && !opts.malloc) {
		free(pids);
		free(events);
		return cli_usage_error("--leaks goes with --malloc");
	}
	if (opts.every_bytes && (!(opts.alloc || opts.malloc) || opts.every)) {
		free(pids);
		free(events);
		return cli_usage_error("--every-bytes goes with --alloc or --malloc, and not with "
				       "--every");
	}
	if ((opts.every || opts.window_ms) && !nevents && !opts.alloc && !opts.malloc) {
		free(pids);
		free(events);
		return cli_usage_error("--every and --probe-window are for probes: add -e EVENT, "
				       "--alloc or --malloc");
	}
	if (opts.ring_no_save_on_exit)
		ring_only = "--no-save-on-exit";
	if (trig.nrules)
		ring_only = "--trigger";
	if (ring_only && !opts.ring_ns) {
		free(pids);
		free(events);
		return cli_usage_error("%s goes with --ring SECONDS", ring_only);
	}
	trig.rules = rules;
	if (opts.ring_ns) {
		/* the saves are named from -o; the writer holds (flight.h) */
		opts.ring_output = opts.output ? opts.output : RECORD_DEFAULT_OUTPUT;
		opts.output = "/dev/null";
		opts.no_defer = 1;
	}
	opts.events = events;
	opts.nevents = nevents;
	if (npids && opts.argv) {
		free(pids);
		return cli_usage_error("give either -p PID or a command, not both");
	}
	opts.pids = pids;
	opts.npids = npids;
	if ((keep.seconds || keep.bytes) && !rotate_ns) {
		free(pids);
		free(events);
		return cli_usage_error("--keep goes with --rotate");
	}
	if (rotate_ns && opts.ring_ns) {
		free(pids);
		free(events);
		return cli_usage_error("--rotate and --ring are two ways of recording: pick one");
	}
	if (rotate_ns && (!npids || !opts.output || nevents || opts.alloc || opts.malloc ||
			  opts.sched)) {
		free(pids);
		free(events);
		return cli_usage_error("--rotate needs -p PID and -o DIR, and takes no probes "
				       "(-e, --alloc, --malloc) and no --sched");
	}
	cmdline = join_args(argc, argv);
	opts.cmdline = cmdline;
	if (rotate_ns)
		rc = record_rotate(&opts, rotate_ns, &keep, &err);
	else if (trig.nrules)
		rc = env->record_triggers(&opts, &trig, &sum, &err);
	else
		rc = record_run(&opts, &sum, &err);
	if (rc == -EINVAL && trig.bad[0]) {
		free(cmdline);
		free(pids);
		free(events);
		return cli_usage_error("%s", trig.bad);
	}
	free(cmdline);
	free(pids);
	free(events);
	if (rc) {
		if (err.msg[0])
			cli_error("%s", err.msg);
		if (err.hint[0])
			cli_hint("%s", err.hint);
		return EXIT_FAIL;
	}
	if (!opts.quiet && opts.ring_ns)
		print_ring_summary(&sum, &opts, &trig);
	else if (!opts.quiet && !rotate_ns)
		print_summary(&sum, opts.output ? opts.output : RECORD_DEFAULT_OUTPUT);
	return EXIT_OK;
}
