/* cmd-dump.c: `prof dump`, every thread's stack now (docs/prof-dump.md):
 * options, the snapshots (run.c), the output (output.c) and the summary
 * of what the threads paid (each one's pause, as prof measured it). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "dump/dump.h"
#include "lib/cli.h"
#include "lib/grow.h"

static const char usage_text[] =
	"usage: prof dump -p PID[,PID...] [-n COUNT] [-i SECONDS] [--format FMT] [-o FILE]\n"
	"\n"
	"Prints the stack of every thread of the processes now: each thread is held\n"
	"alone, only while its registers and stack are copied (well under a\n"
	"millisecond), and named after it runs again. With -n, COUNT snapshots.\n"
	"\n"
	"  -p, --pid PIDS       the processes (comma-separated)\n"
	"  -n, --count N        snapshots (default 1)\n"
	"  -i, --interval SECS  between snapshots' starts (default 0.1)\n"
	"      --format FMT     pmp (default on a terminal): identical stacks merged,\n"
	"                       with their threads, then who holds the locks waited for;\n"
	"                       raw (default otherwise): one block per thread and\n"
	"                       snapshot, one frame per line; folded; json\n"
	"  -o, --output FILE    also keep the recording (prof report/svg/check read it)\n"
	"      --stack-size N   user stack bytes copied per thread at most (default\n"
	"                       131072)\n"
	"      --no-kernel      leave out kernel stacks and wait channels\n"
	"  -h, --help           show this help\n";

static void on_signal(int sig)
{
	(void)sig;
	dump_request_stop();
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The summary line: what the threads paid, held stopped (from each one's
 * stop to its detach: what a thread that would have run was kept from
 * running), and apart from it how long the stops took to come (a thread
 * on its way to a stop runs, or sleeps on, as it would have). */
static void summary(const struct dump_set *set, unsigned snapshots, int stopped)
{
	uint64_t *p = malloc((set->n ? set->n : 1) * 2 * sizeof(*p)), *w;
	size_t n = 0, threads = 0, missed = 0;

	if (!p)
		return;
	w = p + (set->n ? set->n : 1);
	for (size_t i = 0; i < set->n; i++) {
		int seen = 0;

		if (set->t[i].captured) {
			w[n] = set->t[i].stop_wait_ns;
			p[n++] = set->t[i].pause_ns;
		} else {
			missed++;
		}
		for (size_t k = 0; k < i && !seen; k++)
			seen = set->t[k].tid == set->t[i].tid;
		threads += !seen;
	}
	qsort(p, n, sizeof(*p), cmp_u64);
	qsort(w, n, sizeof(*w), cmp_u64);
	fprintf(stderr, "prof dump: %zu threads x %u snapshot%s", threads, snapshots,
		snapshots == 1 ? "" : "s");
	if (n)
		fprintf(stderr, ", paused %.3f ms median, %.3f ms max per thread (stopped; the stops "
			"came %.3f ms median, %.3f ms max after the interrupts)",
			(double)p[n / 2] / 1e6, (double)p[n - 1] / 1e6, (double)w[n / 2] / 1e6,
			(double)w[n - 1] / 1e6);
	if (missed)
		fprintf(stderr, ", %zu without a user stack", missed);
	fputs(stopped ? " (stopped early)\n" : "\n", stderr);
	free(p);
}

static int parse_format(const char *s, enum dump_format *f)
{
	static const char *const names[] = {"pmp", "raw", "folded", "json"};

	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i])) {
			*f = (enum dump_format)i;
			return 0;
		}
	return -EINVAL;
}

/* A private directory for the recording when there is no -o. */
static int temp_recording(char *dir, size_t dlen, char *path, size_t plen)
{
	const char *base = getenv("TMPDIR");

	if (!base || base[0] != '/')
		base = "/tmp";
	snprintf(dir, dlen, "%s/prof-dump-XXXXXX", base);
	if (!mkdtemp(dir))
		return -errno;
	snprintf(path, plen, "%s/dump.data", dir);
	return 0;
}

int cmd_dump(int argc, char **argv, const struct prof_env *env)
{
	static const struct option longopts[] = {
		{"pid", required_argument, NULL, 'p'},
		{"count", required_argument, NULL, 'n'},
		{"interval", required_argument, NULL, 'i'},
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"stack-size", required_argument, NULL, 's'},
		{"no-kernel", no_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct dump_opts o = {.count = 1, .interval_ns = 100000000ull,
			      .stack_max = DUMP_STACK_DEFAULT, .kernel_stacks = 1};
	enum dump_format fmt = isatty(STDOUT_FILENO) ? DUMP_FORMAT_PMP : DUMP_FORMAT_RAW;
	struct dump_set set = {0};
	struct symbolize_stats ss = {0};
	size_t pcap = 0;
	char why[256] = "", dir[4096] = "", path[4200], msg[512] = "";
	const char *out_path = NULL;
	int c, err, stopped = 0, status = EXIT_OK;
	uint64_t v;

	(void)env;
	optind = 1;
	while ((c = getopt_long(argc, argv, "p:n:i:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (cli_parse_pid_list(optarg, &o.pids, &o.npids, &pcap, why, sizeof(why))) {
				status = cli_usage_error("-p: %s", why);
				goto out_args;
			}
			break;
		case 'n':
			if (cli_parse_u64(optarg, 1, 1000000, &v)) {
				status = cli_usage_error("-n: expected a count from 1 to 1000000, got '%s'",
						       optarg);
				goto out_args;
			}
			o.count = (unsigned)v;
			break;
		case 'i':
			if (cli_parse_seconds(optarg, &o.interval_ns)) {
				status = cli_usage_error("-i: expected seconds, e.g. 0.1, got '%s'", optarg);
				goto out_args;
			}
			break;
		case 'f':
			if (parse_format(optarg, &fmt)) {
				status = cli_usage_error("--format: expected pmp, raw, folded or json, got "
						       "'%s'", optarg);
				goto out_args;
			}
			break;
		case 'o':
			out_path = optarg;
			break;
		case 's':
			if (cli_parse_u64(optarg, 0, 64u << 20, &v)) {
				status = cli_usage_error("--stack-size: expected bytes from 0 to 67108864, "
						       "got '%s'", optarg);
				goto out_args;
			}
			o.stack_max = (size_t)v;
			break;
		case 'k':
			o.kernel_stacks = 0;
			break;
		case 'h':
			fputs(usage_text, stdout);
			goto out_args;
		default:
			status = cli_usage_error("unknown option");
			goto out_args;
		}
	}
	if (optind < argc || !o.npids) {
		status = cli_usage_error(optind < argc ? "unexpected argument '%s'"
						       : "which process? -p PID is required%s",
					 optind < argc ? argv[optind] : "");
		goto out_args;
	}
	for (size_t i = 0; i < o.npids; i++) {
		err = dump_check_traceable(o.pids[i], msg, sizeof(msg));
		if (err) {
			cli_error("%s", msg);
			if (err == -ESRCH)
				cli_hint("check the PID with 'ps -p %d'", (int)o.pids[i]);
			status = EXIT_FAIL;
			goto out_args;
		}
	}
	if (out_path) {
		snprintf(path, sizeof(path), "%s", out_path);
	} else if ((err = temp_recording(dir, sizeof(dir), path, sizeof(path)))) {
		cli_error("cannot make a temporary directory: %s", strerror(-err));
		cli_hint("set TMPDIR to a writable directory, or give -o FILE");
		status = EXIT_FAIL;
		goto out_args;
	}
	o.path = path;
	{
		struct sigaction sa = {.sa_handler = on_signal};

		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
	}
	err = dump_run(&o, &set, &stopped, &ss, msg, sizeof(msg));
	if (err) {
		cli_error("%s", msg);
		if (err == -EACCES || err == -EPERM)
			cli_hint("run as root or as the process's owner; with kernel.yama.ptrace_scope "
				 ">= 1, a non-root user needs CAP_SYS_PTRACE");
		status = EXIT_FAIL;
	} else {
		if (!set.n || set.t[0].err == -EPERM) {
			int all_perm = set.n > 0;

			for (size_t i = 0; i < set.n; i++)
				all_perm &= set.t[i].err == -EPERM;
			if (all_perm) {
				cli_error("cannot hold the threads of process %d: %s", (int)o.pids[0],
					  strerror(EPERM));
				cli_hint("run as root or as the process's owner; with kernel.yama."
					 "ptrace_scope >= 1, a non-root user needs CAP_SYS_PTRACE");
				status = EXIT_FAIL;
			}
		}
		if (status == EXIT_OK) {
			err = dump_output(stdout, fmt, &set, path, msg, sizeof(msg));
			if (!err && fflush(stdout))
				err = -errno;
			if (err) {
				cli_error("%s", msg[0] ? msg : strerror(-err));
				status = EXIT_FAIL;
			}
		}
		summary(&set, set.n ? set.t[set.n - 1].snapshot + 1 : 0, stopped);
	}
	if (!out_path) {
		unlink(path);
		rmdir(dir);
	}
	dump_set__release(&set);
out_args:
	free(o.pids);
	return status;
}
