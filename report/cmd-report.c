/* cmd-report.c: `prof report`, the front end: its options, then the shared
 * input half (report-cli.h: the option loop, reading a recording or folded
 * text, the model, its filters, the output), then a writer from report.h.
 * With the other front ends and report-cli.h's files, the only places in
 * report/ that print. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "lib/cli.h"
#include "lib/recording.h"
#include "report/formats.h"
#include "report/header.h"
#include "report/report-cli.h"

static const char usage_head[] =
	"usage: prof report [-i FILE] [--threads | --tids] [--merge-pools] [--top N]\n"
	"                   [--format folded|pprof|speedscope] [-o FILE] [--header]\n"
	"                   [--off-cpu | --wall] [--lines] [--[no-]period] [--pids]\n"
	"                   [--flamechart]\n"
	"                   [--include RE]... [--exclude RE]... [--grep RE]...\n"
	"                   [--thread RE]... [--pid N]... [--tid N]... [--ignore-case]\n"
	"\n"
	"Prints the stacks of a recording or of folded text as folded stacks\n"
	"(\"root;...;leaf COUNT\", one line per stack, sorted), or a top table.\n"
	"Counts are CPU samples, or microseconds with --off-cpu and --wall.\n"
	"\n"
	"input:\n"
	"  -i, --input FILE   a recording, folded text or perf script text; '-' is\n"
	"                     standard input\n"
	"                     (default: standard input if it is a pipe or a file,\n"
	"                     else prof.data)\n"
	"\n"
	"output:\n"
	"  --threads          put the thread name at the root of each stack\n"
	"  --tids             like --threads, as NAME/TID (one root per thread)\n"
	"  --merge-pools      collapse digit runs in thread names into '*'\n"
	"                     (dw-12, dw-13 -> dw-*); implies --threads; on folded\n"
	"                     input it rewrites the root frame\n"
	"  --top N            the N hottest functions: self%, total%, samples\n"
	"  --format FMT       folded (default); pprof: gzipped profile.proto for\n"
	"                     'go tool pprof' (needs -o or a pipe); speedscope:\n"
	"                     speedscope's JSON, one profile per thread\n"
	"  -o, --output FILE  write there instead of standard output\n"
	"  --flamechart       in time order, for a flame chart: per thread (a root\n"
	"                     each, by first sample) a line per run of samples with\n"
	"                     the same stack; folded text keeps its lines' order;\n"
	"                     consecutive identical lines merged\n"
	"  --header           how the recording was made (command line, host,\n"
	"                     event, stack modes and why) and the recorder's\n"
	"                     counts, as KEY: VALUE lines, instead of stacks\n"
	"\n";
/* ...then profile_input_weight_help, a blank line, profile_input_filter_help,
 * then: */
static const char usage_tail[] = "\n"
				 "  -h, --help         show this help\n";

enum {
	OPT_TOP = PROFILE_OPT_END,
	OPT_FORMAT,
	OPT_HEADER,
	OPT_FLAMECHART,
};

enum report_format {
	FORMAT_FOLDED = 0,
	FORMAT_PPROF,
	FORMAT_SPEEDSCOPE,
};

static const struct option long_options[] = {
	PROFILE_INPUT_LONG_OPTIONS,
	PROFILE_WEIGHT_LONG_OPTIONS,
	{"help", no_argument, NULL, 'h'},
	{"top", required_argument, NULL, OPT_TOP},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"header", no_argument, NULL, OPT_HEADER},
	{"flamechart", no_argument, NULL, OPT_FLAMECHART},
	{"output", required_argument, NULL, 'o'},
	{NULL, 0, NULL, 0},
};

/* Everything `prof report` holds while it runs. */
struct report_cmd {
	struct profile_input in; /* options, input, the filtered profile */
	uint64_t top;            /* 0: folded output */
	enum report_format format;
	int header;         /* --header */
	int flamechart;     /* --flamechart: in time order (time-order.c) */
	const char *output; /* -o; NULL: standard output */
	struct profile_output out; /* -o FILE: made new, named at the end */
};

static int own_option(void *cmd, int opt, const char *arg)
{
	struct report_cmd *c = cmd;
	uint64_t v;

	switch (opt) {
	case OPT_TOP:
		if (cli_parse_u64(arg, 1, SIZE_MAX, &v))
			return cli_usage_error("--top needs a positive number, not '%s'", arg);
		c->top = v;
		return 0;
	case OPT_FORMAT:
		if (!strcmp(arg, "folded"))
			c->format = FORMAT_FOLDED;
		else if (!strcmp(arg, "pprof"))
			c->format = FORMAT_PPROF;
		else if (!strcmp(arg, "speedscope"))
			c->format = FORMAT_SPEEDSCOPE;
		else
			return cli_usage_error("--format is folded, pprof or speedscope, not '%s'",
					       arg);
		return 0;
	case OPT_HEADER:
		c->header = 1;
		return 0;
	case OPT_FLAMECHART:
		c->flamechart = 1;
		return 0;
	case 'o':
		c->output = arg;
		return 0;
	default:
		return -1;
	}
}

static int parse_options(struct report_cmd *c, int argc, char **argv,
			 recording_replay_fn replay)
{
	static const struct profile_cli cli = {
		":i:o:h", long_options, usage_head, usage_tail, own_option,
	};
	int rc = profile_input__parse_options(&c->in, argc, argv, &cli, c, replay);

	if (rc)
		return rc;
	if (optind < argc)
		return cli_usage_error("unexpected argument '%s' (the input goes after -i)",
				       argv[optind]);
	profile_input__options_done(&c->in);
	if (c->flamechart && (c->top || c->header || c->format != FORMAT_FOLDED))
		return cli_usage_error("--flamechart writes folded lines in time order: not with %s",
				       c->top ? "--top" : c->header ? "--header" : "--format");
	if (c->flamechart && (rc = profile_input__flamechart(&c->in)))
		return rc;
	if (c->top && c->format != FORMAT_FOLDED)
		return cli_usage_error("--top is a table: it does not combine with --format");
	if (c->header && (c->top || c->format != FORMAT_FOLDED))
		return cli_usage_error("--header prints the recording's header only: it does not "
				       "combine with --top or --format");
	/* pprof labels and speedscope profiles are per thread. */
	c->in.want_threads = c->format != FORMAT_FOLDED;
	if (c->top && c->in.roots != PROFILE_ROOT_NONE)
		return cli_usage_error("--top lists functions, not threads: use --thread RE to "
				       "pick threads instead of --threads, --tids or --merge-pools");
	return 0;
}

static int write_output(struct report_cmd *c)
{
	struct folded_opts fo = {.thread_root = c->in.roots};
	int err;

	if (c->header)
		err = recording__write_header(&c->in.rec, c->out.fp);
	else if (c->in.is_recording && !c->in.rec.nsamples && c->format == FORMAT_FOLDED)
		return 0; /* nothing to show; already warned */
	else if (c->format == FORMAT_PPROF) {
		struct pprof_opts po = {.weight = c->in.weight, .period = c->in.perf_weighed};

		err = profile__write_pprof(&c->in.prof, c->in.is_recording ? &c->in.rec : NULL,
					   &po, c->out.fp);
	} else if (c->format == FORMAT_SPEEDSCOPE) {
		struct speedscope_opts so = {
			.weight = c->in.weight,
			.name = strcmp(c->in.input, "-") ? c->in.input : "standard input",
		};

		err = profile__write_speedscope(&c->in.prof, &so, c->out.fp);
	} else if (c->top) {
		struct profile_top top;

		err = profile__top(&c->in.prof, &top);
		if (!err)
			err = profile_top__write(&c->in.prof, &top, (size_t)c->top, c->out.fp);
		profile_top__release(&top);
	} else if (c->flamechart) {
		err = profile__write_chart(&c->in.prof, &fo, c->out.fp);
	} else {
		err = profile__write_folded(&c->in.prof, &fo, c->out.fp);
	}
	if (err == -ENOMEM) {
		cli_error("out of memory writing the report");
		return EXIT_FAIL;
	}
	if (err) {
		/* With SIGPIPE at its default, `prof report | head` ends here
		 * quietly by the signal; EPIPE only arrives when the parent
		 * ignores SIGPIPE, and then saying so is right. */
		cli_error("cannot write the report: %s", strerror(-err));
		return EXIT_FAIL;
	}
	return 0;
}

/* -o FILE (opened once the input is read, so a bad input leaves no
 * file; a new file that takes the name only when the report was written
 * whole: lib/out-file.h), else standard output. */
static int open_output(struct report_cmd *c)
{
	int err = profile_output__open(&c->out, c->output);

	if (err) {
		cli_error("cannot open '%s': %s", c->output, strerror(-err));
		return EXIT_FAIL;
	}
	return 0;
}

static int run(struct report_cmd *c, int argc, char **argv, const struct prof_env *env)
{
	int rc, err;

	rc = parse_options(c, argc, argv, env->replay);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	if (c->format == FORMAT_PPROF && (!c->output || !strcmp(c->output, "-")) && isatty(1))
		return cli_usage_error("pprof output is gzipped binary: give -o FILE (e.g. "
				       "-o prof.pb.gz) or pipe it");
	rc = profile_input__load(&c->in);
	if (rc)
		return rc;
	if (c->header && !c->in.is_recording)
		return cli_usage_error("--header needs a recording made by 'prof record', not "
				       "folded or perf script text");
	rc = open_output(c);
	if (rc)
		return rc;
	rc = write_output(c);
	/* A report that failed leaves no partial file, and an old one as it was. */
	err = profile_output__close(&c->out, rc ? -EIO : 0);
	if (err && !rc) {
		cli_error("cannot write '%s': %s", c->output, strerror(-err));
		rc = EXIT_FAIL;
	}
	if (rc)
		return rc;
	return c->in.grep && !c->in.prof.total ? EXIT_FAIL : EXIT_OK;
}

int cmd_report(int argc, char **argv, const struct prof_env *env)
{
	struct report_cmd c;
	int rc;

	memset(&c, 0, sizeof(c));
	/* Output goes out in large writes, also to a terminal. */
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	rc = run(&c, argc, argv, env);
	profile_input__release(&c.in);
	return rc;
}
