/* cmd-sched.c: `prof sched`, the front end of the scheduler view: its
 * options, reading a recording made with `prof record --sched`, the model
 * (report/sched.h), the --thread filter, then the chart (sched-chart.h)
 * into a file or the CSV (sched_profile__write_csv()). The only place of
 * the scheduler view that prints or exits. */
#include <errno.h>
#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "lib/cli.h"
#include "lib/recording.h"
#include "report/report-cli.h"
#include "report/sched.h"
#include "report/user-regex.h"
#include "svg/sched-chart.h"

#define DEFAULT_INPUT "prof.data"
#define DEFAULT_SVG "sched.svg"

static const char usage[] =
	"usage: prof sched [-i FILE] [-o FILE] [--format svg|csv] [--tenancy]\n"
	"                  [--thread RE]... [--title TEXT]\n"
	"\n"
	"Shows where each thread's time went, from a recording made with\n"
	"'prof record --sched': on CPU, runnable (preempted, or woken and waiting\n"
	"for a CPU), sleeping (S), uninterruptible (D); its switch-outs by state;\n"
	"the CPUs it ran on; who preempted it. An SVG chart, or CSV.\n"
	"\n"
	"  -i, --input FILE   the recording; '-' is standard input (default: prof.data)\n"
	"  -o, --output FILE  where the output goes; '-' is standard output\n"
	"                     (default: sched.svg for the chart, standard output\n"
	"                     for CSV)\n"
	"  --format FORMAT    svg (default): the chart; csv: one row per thread\n"
	"  --tenancy          draw only the CPU tenancy panel (threads x CPUs)\n"
	"  --thread RE        keep threads whose name matches RE (POSIX extended,\n"
	"                     unanchored like grep -E; repeat: any)\n"
	"  --title TEXT       the chart's title (default: Scheduler states)\n"
	"  -h, --help         show this help\n";

enum {
	OPT_FORMAT = 256,
	OPT_TENANCY,
	OPT_THREAD,
	OPT_TITLE,
};

static const struct option long_options[] = {
	{"input", required_argument, NULL, 'i'},
	{"output", required_argument, NULL, 'o'},
	{"help", no_argument, NULL, 'h'},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"tenancy", no_argument, NULL, OPT_TENANCY},
	{"thread", required_argument, NULL, OPT_THREAD},
	{"title", required_argument, NULL, OPT_TITLE},
	{NULL, 0, NULL, 0},
};

enum sched_format {
	FORMAT_SVG = 0,
	FORMAT_CSV,
};

/* Everything `prof sched` holds while it runs. */
struct sched_cmd {
	recording_replay_fn replay; /* struct prof_env's */
	const char *input;
	char shown[PROFILE_SHOWN_MAX]; /* the input as messages name it */
	const char *output; /* NULL: the format's default; "-": standard output */
	enum sched_format format;
	struct sched_chart_opts opts;
	const char **threads; /* --thread REs */
	size_t nthreads;
	regex_t *res;
	size_t nres;

	struct recording rec;
	int have_rec;
	struct sched_profile sp;
	int have_sp;
	struct sched_profile view; /* sp, its threads filtered */
	struct sched_thread *kept;
	struct profile_output out; /* -o FILE: made new, named when written whole */
};

static int parse_options(struct sched_cmd *c, int argc, char **argv)
{
	int opt, title = 0;

	c->threads = calloc((size_t)argc + 1, sizeof(*c->threads));
	if (!c->threads) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	optind = 0; /* glibc: reinitialize (cmd_sched may run more than once) */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":i:o:h", long_options, NULL)) != -1) {
		switch (opt) {
		case 'i':
			c->input = optarg;
			break;
		case 'o':
			c->output = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return fflush(stdout) ? EXIT_FAIL : -1;
		case OPT_FORMAT:
			if (!strcmp(optarg, "svg"))
				c->format = FORMAT_SVG;
			else if (!strcmp(optarg, "csv"))
				c->format = FORMAT_CSV;
			else
				return cli_usage_error("--format takes svg or csv, not '%s'",
						       optarg);
			break;
		case OPT_TENANCY:
			c->opts.panels = SCHED_PANEL_TENANCY;
			break;
		case OPT_THREAD:
			c->threads[c->nthreads++] = optarg;
			break;
		case OPT_TITLE:
			c->opts.title = optarg;
			title = 1;
			break;
		case ':':
			return cli_usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument '%s' (the input goes after -i)",
				       argv[optind]);
	if (c->format == FORMAT_CSV && (c->opts.panels || title))
		return cli_usage_error("%s is for the chart, not for --format csv",
				       c->opts.panels ? "--tenancy" : "--title");
	if (!c->input)
		c->input = DEFAULT_INPUT;
	profile_input_name(c->shown, sizeof(c->shown), c->input);
	return 0;
}

static int compile_threads(struct sched_cmd *c)
{
	size_t i;

	c->res = calloc(c->nthreads ? c->nthreads : 1, sizeof(*c->res));
	if (!c->res) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	for (i = 0; i < c->nthreads; i++) {
		char msg[256];
		int err = user_regcomp(&c->res[i], c->threads[i], REG_EXTENDED | REG_NOSUB, msg,
				       sizeof(msg));

		if (err) {
			return cli_usage_error("invalid regular expression '%s' for --thread: %s",
					       c->threads[i], msg);
		}
		c->nres++;
	}
	return 0;
}

static int load(struct sched_cmd *c)
{
	unsigned char *data = NULL;
	size_t size = 0;
	int err = profile_input_read(c->input, c->shown, "record one with 'prof record --sched'",
				     &data, &size);

	if (err)
		return err;
	if (!recording_is_recording(data, size)) {
		free(data);
		cli_error("%s is not a recording (prof sched reads recordings made with "
			  "'prof record --sched', not folded text)",
			  c->shown);
		return EXIT_FAIL;
	}
	c->have_rec = 1;
	if (profile_input__parse_recording(&c->rec, data, size, c->shown, c->replay))
		return EXIT_FAIL;
	err = sched_profile__from_recording(&c->sp, &c->rec);
	if (err == -ENODATA) {
		cli_error("recording has no scheduler events: record with 'prof record --sched'");
		return EXIT_FAIL;
	}
	if (err) {
		cli_error("out of memory building the scheduler view of %s", c->shown);
		return EXIT_FAIL;
	}
	c->have_sp = 1;
	if (c->sp.lost)
		cli_warn("%s: %llu switch events were lost while recording: times are "
			 "underestimated",
			 c->shown, (unsigned long long)c->sp.lost);
	return 0;
}

static int name_matches(const struct sched_cmd *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nres; i++)
		if (!regexec(&c->res[i], name, 0, NULL, 0))
			return 1;
	return 0;
}

/* c->view: the model with only the threads --thread keeps (shallow: the
 * threads' arrays stay the model's). */
static int filter(struct sched_cmd *c)
{
	size_t i;

	c->view = c->sp;
	if (!c->nres)
		return 0;
	c->kept = calloc(c->sp.nthreads ? c->sp.nthreads : 1, sizeof(*c->kept));
	if (!c->kept) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	c->view.threads = c->kept;
	c->view.nthreads = 0;
	for (i = 0; i < c->sp.nthreads; i++) {
		const struct sched_thread *t = &c->sp.threads[i];

		if (name_matches(c, sched_profile__name(&c->sp, t->name)))
			c->kept[c->view.nthreads++] = *t;
	}
	if (!c->view.nthreads) {
		cli_error("no thread of %s matches --thread (it has %zu threads)", c->shown,
			  c->sp.nthreads);
		return EXIT_FAIL;
	}
	return 0;
}

static int open_output(struct sched_cmd *c, const char **shown)
{
	int err;

	if (!c->output && c->format == FORMAT_SVG)
		c->output = DEFAULT_SVG;
	if (c->output && !strcmp(c->output, "-"))
		c->output = NULL;
	*shown = c->output ? c->output : "standard output";
	err = profile_output__open(&c->out, c->output);
	if (err) {
		cli_error("cannot create '%s': %s", c->output, strerror(-err));
		return EXIT_FAIL;
	}
	return 0;
}

static int write_output(struct sched_cmd *c)
{
	const char *shown, *what = c->format == FORMAT_CSV ? "CSV" : "chart";
	int err;

	if (!c->view.nthreads) {
		cli_error("nothing to show: %s has scheduler events but no thread", c->shown);
		return EXIT_FAIL;
	}
	err = open_output(c, &shown);
	if (err)
		return err;
	if (c->format == FORMAT_CSV) {
		err = sched_profile__write_csv(&c->view, c->out.fp);
		errno = 0;
		if (!err && fflush(c->out.fp))
			err = errno ? -errno : -EIO;
	} else {
		err = sched_chart__write(&c->view, &c->opts, c->out.fp);
	}
	/* A failure leaves no partial file, and an old one as it was. */
	err = profile_output__close(&c->out, err);
	if (!err)
		return 0;
	if (err == -ENOMEM)
		cli_error("out of memory writing the %s", what);
	else
		cli_error("cannot write the %s to %s%s%s: %s", what, c->output ? "'" : "", shown,
			  c->output ? "'" : "", strerror(-err));
	return EXIT_FAIL;
}

static int run(struct sched_cmd *c, int argc, char **argv)
{
	int rc;

	rc = parse_options(c, argc, argv);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	if ((rc = compile_threads(c)) || (rc = load(c)) || (rc = filter(c)))
		return rc;
	return write_output(c);
}

int cmd_sched(int argc, char **argv, const struct prof_env *env)
{
	struct sched_cmd c;
	size_t i;
	int rc;

	memset(&c, 0, sizeof(c));
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	c.replay = env->replay;
	rc = run(&c, argc, argv);
	profile_output__close(&c.out, -ECANCELED);
	for (i = 0; i < c.nres; i++)
		regfree(&c.res[i]);
	free(c.res);
	free(c.threads);
	free(c.kept);
	if (c.have_sp)
		sched_profile__release(&c.sp);
	if (c.have_rec)
		recording__release(&c.rec);
	return rc;
}
