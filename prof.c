/* prof.c: main() and the table of subcommands (git's git.c in miniature). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "lib/cli.h"
#include "lib/recording.h"
#include "record/record.h"

#define PROF_VERSION "0.1.0"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv, const struct prof_env *env);
	const char *summary;
};

static const struct command commands[] = {
	{"record", cmd_record, "sample the stacks of a process or command into a recording"},
	{"report", cmd_report, "print folded stacks or a top table, filtered like grep"},
	{"svg", cmd_svg, "draw an interactive flamegraph SVG"},
	{"top", cmd_top, "a live view of the hottest functions and threads over a rolling window"},
	{"dump", cmd_dump, "print every thread's stack now, and who holds the locks they wait for"},
	{"sched", cmd_sched, "chart where threads' time went: on CPU, runnable, sleeping, I/O"},
	{"annotate", cmd_annotate, "show where a function spends its samples, instruction by instruction"},
	{"probes", cmd_probes, "list the USDT probes of binaries or of a running process"},
	{"symbolize", cmd_symbolize, "addresses to functions, inlines and source lines; name a recording (again)"},
	{"check", cmd_check, "measure rules such as 'slow_path' <= 5% on a recording, for CI"},
	{"diff", cmd_diff, "compare two recordings: folded stacks with both counts"},
	{"jvm-inspect", cmd_jvm_inspect, NULL}, /* hidden: debugging jvm/'s HotSpot reader */
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: prof <command> [options]\n\n"
		     "prof is a sampling profiler built on perf_event_open(2).\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].summary)
			fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nSee 'prof <command> -h' for a command's options, docs/ for its manual.\n");
}

/* Readers process the records a killed recorder left (lib/recording.h),
 * with the recorder's own code, handed to them through struct prof_env. */
static int replay_raw(const struct recording *in, const char *out, uint64_t *samples, char *msg,
		      size_t msglen)
{
	struct record_summary sum;
	struct prof_error e;
	int err = record_replay_raw(in, out, &sum, &e);

	*samples = sum.samples;
	if (err)
		snprintf(msg, msglen, "%s", e.msg);
	return err;
}

int main(int argc, char **argv)
{
	static const struct prof_env env = {.replay = replay_raw,
					    .record_triggers = top_record_triggers};
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("prof %s\n", PROF_VERSION);
		return EXIT_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			static char prefix[64];

			snprintf(prefix, sizeof(prefix), "prof %s", commands[i].name);
			cli_set_command(prefix);
			return commands[i].fn(argc - 1, argv + 1, &env);
		}
	}
	fprintf(stderr, "prof: '%s' is not a prof command\nhint: see 'prof --help'\n", argv[1]);
	return EXIT_USAGE;
}
