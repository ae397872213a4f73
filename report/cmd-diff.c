/* cmd-diff.c: `prof diff OLD NEW`, the front end: both inputs read through
 * input.c with the same options and filters, their folded lines joined
 * (diff-model.c) and printed as FlameGraph's two-column folded text,
 * "stack OLD NEW", OLD normalized to NEW's total unless --raw. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "lib/cli.h"
#include "report/diff.h"
#include "report/report-cli.h"

static const char usage_head[] =
	"usage: prof diff [--raw] [--threads | --tids] [--merge-pools]\n"
	"                 [--off-cpu | --wall] [--lines]\n"
	"                 [--include RE]... [--exclude RE]... [--thread RE]...\n"
	"                 [--pid N]... [--tid N]... [--ignore-case]\n"
	"                 [--old-since T] [--old-until T] [--since T] [--until T] OLD NEW\n"
	"\n"
	"Compares two recordings or folded texts: prints every stack of either as\n"
	"\"stack OLD NEW\" (FlameGraph's difffolded.pl format, sorted), OLD's counts\n"
	"scaled to NEW's total: round(old * NEW total / OLD total). Draw it with\n"
	"'prof svg --diff', or give OLD NEW to 'prof svg --diff' directly.\n"
	"\n"
	"output:\n"
	"  --raw              OLD's counts as they are, not scaled\n"
	"  --threads          put the thread name at the root of each stack\n"
	"  --tids             like --threads, as NAME/TID\n"
	"  --merge-pools      collapse digit runs in thread names into '*'\n"
	"\n"
	"time ranges (OLD and NEW may be one recording or directory: two ranges of it):\n"
	"  --old-since T      OLD's samples from T on (T as for --since, below)\n"
	"  --old-until T      OLD's samples before T\n"
	"\n";
static const char usage_tail[] = "\n"
				 "  -h, --help         show this help\n";

enum {
	OPT_RAW = PROFILE_OPT_END,
	OPT_OLD_SINCE,
	OPT_OLD_UNTIL,
};

static const struct option long_options[] = {
	PROFILE_INPUT_LONG_OPTIONS,
	PROFILE_WEIGHT_LONG_OPTIONS,
	{"raw", no_argument, NULL, OPT_RAW},
	{"old-since", required_argument, NULL, OPT_OLD_SINCE},
	{"old-until", required_argument, NULL, OPT_OLD_UNTIL},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* Everything `prof diff` holds while it runs. */
struct diff_cmd {
	struct profile_input in;  /* NEW: options, input, the filtered profile */
	struct profile_input old; /* OLD, with the same options */
	const char *old_path;
	const char *old_since, *old_until; /* --old-since, --old-until */
	int raw;
	struct profile_diff diff;
};

static int own_option(void *cmd, int opt, const char *arg)
{
	struct diff_cmd *c = cmd;

	switch (opt) {
	case OPT_OLD_SINCE:
		c->old_since = arg;
		return 0;
	case OPT_OLD_UNTIL:
		c->old_until = arg;
		return 0;
	case 'i':
		return cli_usage_error("the inputs are OLD NEW, after the options (no -i)");
	case OPT_RAW:
		c->raw = 1;
		return 0;
	default:
		return -1;
	}
}

static int parse_options(struct diff_cmd *c, int argc, char **argv,
			 recording_replay_fn replay)
{
	static const struct profile_cli cli = {
		":i:h", long_options, usage_head, usage_tail, own_option,
	};
	int rc = profile_input__parse_options(&c->in, argc, argv, &cli, c, replay);

	if (rc)
		return rc;
	if (argc - optind != 2)
		return cli_usage_error("give two inputs, OLD and NEW (recordings or folded text)");
	if (c->in.grep)
		return cli_usage_error("--grep is for 'prof report': use --include RE");
	c->old_path = argv[optind];
	c->in.input = argv[optind + 1];
	if (!strcmp(c->old_path, "-") && !strcmp(c->in.input, "-"))
		return cli_usage_error("OLD and NEW cannot both be standard input");
	profile_input__options_done(&c->in);
	return 0;
}

static int write_diff(struct diff_cmd *c)
{
	struct folded_opts fo = {.thread_root = c->in.roots};
	int raw = c->raw, err;

	err = profile_diff__build(&c->diff, &c->in.prof, &c->old.prof, &fo);
	if (err == -EOVERFLOW) {
		cli_error("the counts of %s and %s do not fit 64 bits on one decimal scale",
			  c->old.shown, c->in.shown);
		return EXIT_FAIL;
	}
	if (err) {
		cli_error("out of memory comparing the profiles");
		return EXIT_FAIL;
	}
	if (!raw && (!c->diff.old_total || !c->diff.new_total)) {
		cli_warn("%s holds no samples%s: counts are not scaled",
			 c->diff.old_total ? c->in.shown : c->old.shown,
			 profile_filter__active(&c->in.filter) ? " after the filters" : "");
		raw = 1;
	}
	err = profile_diff__write(&c->diff, raw, stdout);
	if (err) {
		cli_error("cannot write the diff: %s", strerror(-err));
		return EXIT_FAIL;
	}
	return 0;
}

static int run(struct diff_cmd *c, int argc, char **argv, const struct prof_env *env)
{
	int rc;

	rc = parse_options(c, argc, argv, env->replay);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	rc = profile_input__clone(&c->old, &c->in, c->old_path);
	c->old.since = c->old_since;
	c->old.until = c->old_until;
	if (!rc)
		rc = profile_input__load(&c->old);
	if (!rc)
		rc = profile_input__load(&c->in);
	if (!rc)
		rc = write_diff(c);
	return rc;
}

int cmd_diff(int argc, char **argv, const struct prof_env *env)
{
	struct diff_cmd c;
	int rc;

	memset(&c, 0, sizeof(c));
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	rc = run(&c, argc, argv, env);
	profile_diff__release(&c.diff);
	profile_input__release(&c.old);
	profile_input__release(&c.in);
	return rc;
}
