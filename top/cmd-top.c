/* cmd-top.c: `prof top`, a live view of where the time goes now, over a
 * rolling window (docs/prof-top.md): option parsing; the session is
 * run.c's. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "lib/cli.h"
#include "lib/grow.h"
#include "top-internal.h"

static const char usage_text[] =
	"usage: prof top [-p PID[,PID...] | -a | -- CMD] [-F HZ] [--window SECONDS]\n"
	"                [--interval SECONDS] [--sched] [--threads] [-d SECONDS]\n"
	"                [--format text|json]\n"
	"\n"
	"Samples the call stacks of every thread of the targets, as prof record does,\n"
	"and shows the hottest functions and threads over a rolling window of the last\n"
	"SECONDS, refreshed each interval. On a terminal: a full-screen view (keys:\n"
	"f t c views, / filter, Enter pick a thread, 1 2 3 window, p pause, s save,\n"
	"q quit). Otherwise: one block per interval.\n"
	"\n"
	"  -p, --pid PID[,PID...]  the processes to watch (all their threads)\n"
	"  -a, --all               every process running now (not those started later)\n"
	"  -F, --freq HZ           samples per second per thread (default 99)\n"
	"  -d, --duration SECONDS  stop after this long (default: until Ctrl-C or the\n"
	"                          targets exit)\n"
	"      --window SECONDS    the window the shares are over (default 10; 1 to 60\n"
	"                          intervals)\n"
	"      --interval SECONDS  the refresh and sub-interval (default 1)\n"
	"      --threads           blocks: the busiest threads too\n"
	"      --sched             also record scheduler events (as prof record --sched)\n"
	"      --format FORMAT     blocks as text (default) or json (one object a line)\n"
	"  -h, --help              this text\n";

enum { OPT_WINDOW = 256, OPT_INTERVAL, OPT_FORMAT, OPT_THREADS, OPT_SCHED };

/* Every process of the machine but ourselves, from /proc. */
static int all_pids(pid_t **pids, size_t *n, size_t *cap)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t self = getpid();

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char *end;
		long v = strtol(e->d_name, &end, 10);

		if (*end || v <= 0 || v == self || v > 0x7fffffff)
			continue;
		if (GROW(*pids, *cap, *n + 1)) {
			closedir(d);
			return -ENOMEM;
		}
		(*pids)[(*n)++] = (pid_t)v;
	}
	closedir(d);
	return 0;
}

int cmd_top(int argc, char **argv, const struct prof_env *env)
{
	static const struct option longopts[] = {
		{"pid", required_argument, NULL, 'p'},
		{"all", no_argument, NULL, 'a'},
		{"freq", required_argument, NULL, 'F'},
		{"duration", required_argument, NULL, 'd'},
		{"window", required_argument, NULL, OPT_WINDOW},
		{"interval", required_argument, NULL, OPT_INTERVAL},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"threads", no_argument, NULL, OPT_THREADS},
		{"sched", no_argument, NULL, OPT_SCHED},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct top_opts to = {.interval_ns = 1000000000ULL};
	struct record_opts ro;
	struct prof_error err;
	struct top tp;
	uint64_t window_ns = 10000000000ULL, v;
	pid_t *pids = NULL;
	size_t npids = 0, pids_cap = 0;
	int c, all = 0, rc, window_set = 0;
	char why[192], target[128];

	(void)env;
	memset(&ro, 0, sizeof(ro));
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:aF:d:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (cli_parse_pid_list(optarg, &pids, &npids, &pids_cap, why, sizeof(why))) {
				free(pids);
				return cli_usage_error("%s", why);
			}
			break;
		case 'a':
			all = 1;
			break;
		case 'F':
			if (cli_parse_u64(optarg, 1, 1000000, &v)) {
				free(pids);
				return cli_usage_error("invalid frequency '%s' (1 to 1000000 Hz)", optarg);
			}
			ro.freq = v;
			break;
		case 'd':
			if (cli_parse_seconds(optarg, &ro.duration_ns)) {
				free(pids);
				return cli_usage_error("invalid duration '%s' (seconds, e.g. 5 or 0.5)",
						       optarg);
			}
			break;
		case OPT_WINDOW:
			window_set = 1;
			if (cli_parse_seconds(optarg, &window_ns) || !window_ns) {
				free(pids);
				return cli_usage_error("invalid window '%s' (seconds)", optarg);
			}
			break;
		case OPT_INTERVAL:
			if (cli_parse_seconds(optarg, &to.interval_ns) ||
			    to.interval_ns < 100000000ULL || to.interval_ns > 3600000000000ULL) {
				free(pids);
				return cli_usage_error("invalid interval '%s' (0.1 to 3600 seconds)",
						       optarg);
			}
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				free(pids);
				return cli_usage_error("invalid format '%s' (text or json)", optarg);
			}
			to.format = strcmp(optarg, "json") ? TOP_TEXT : TOP_JSON;
			break;
		case OPT_THREADS:
			to.threads = 1;
			break;
		case OPT_SCHED:
			to.sched = 1;
			break;
		case 'h':
			free(pids);
			fputs(usage_text, stdout);
			return EXIT_OK;
		default:
			free(pids);
			if (optopt && optopt != '?')
				return cli_usage_error("option '-%c' %s", optopt,
						       strchr("pFd", optopt) ? "needs a value" : "is unknown");
			return cli_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		ro.argv = argv + optind;
	if ((!!npids + !!all + !!ro.argv) != 1) {
		free(pids);
		return cli_usage_error("give one of -p PID, -a or -- COMMAND");
	}
	/* The window in whole intervals: 1 to WINDOW_SLOTS - 1 of them. */
	v = (window_ns + to.interval_ns / 2) / to.interval_ns;
	if (!window_set && v > WINDOW_SLOTS - 1)
		v = WINDOW_SLOTS - 1; /* the default 10 s, in at most 60 short intervals */
	if (v < 1 || v > WINDOW_SLOTS - 1) {
		free(pids);
		return cli_usage_error("the window must be 1 to %d intervals", WINDOW_SLOTS - 1);
	}
	to.window = (unsigned)v;
	if (all && (rc = all_pids(&pids, &npids, &pids_cap))) {
		free(pids);
		cli_error("cannot list /proc: %s", strerror(-rc));
		return EXIT_FAIL;
	}
	/* -a: frame-pointer stacks, without --call-graph auto's look at every
	 * binary of the machine first (the processes listed would have time to
	 * end meanwhile). */
	if (all)
		ro.call_graph = RECORD_CALL_GRAPH_FP;
	to.freq = ro.freq ? ro.freq : RECORD_DEFAULT_FREQ;
	ro.pids = pids;
	ro.npids = npids;
	ro.sched = to.sched;
	if (all)
		snprintf(target, sizeof(target), "all processes (%zu)", npids);
	else if (npids)
		snprintf(target, sizeof(target), "pid %d%s", (int)pids[0], npids > 1 ? ",..." : "");
	else
		snprintf(target, sizeof(target), "command %s", ro.argv[0]);
	to.target = target;
	/* -a: a process that ended between the listing and the start fails
	 * the start (nothing was sampled yet): list again, a few times. */
	for (int tries = 0;; tries++) {
		memset(&tp, 0, sizeof(tp));
		tp.opts = &to;
		tp.out = stdout;
		tp.want_tui = isatty(STDOUT_FILENO) && to.format == TOP_TEXT;
		rc = top_run(&tp, &ro, &err);
		if (!all || rc != -ESRCH || tries == 5)
			break;
		npids = 0;
		rc = all_pids(&pids, &npids, &pids_cap);
		if (rc)
			break;
		ro.pids = pids;
		ro.npids = npids;
	}
	free(pids);
	if (tp.cmd_out.path[0] && !rc)
		fprintf(stderr, "prof top: the command's output is in '%s'\n", tp.cmd_out.path);
	if (rc) {
		cli_error("%s", err.msg);
		if (err.hint[0])
			cli_hint("%s", err.hint);
		return EXIT_FAIL;
	}
	return tp.out_err ? EXIT_FAIL : EXIT_OK;
}
