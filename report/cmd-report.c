/* cmd-report.c: `prof report`, the front end: options, reading the input
 * (a recording or folded text), then the profile model, its filters and a
 * writer from report.h. The only place in report/ that prints or exits. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "lib/cli.h"
#include "lib/recording.h"
#include "report/report.h"

#define DEFAULT_INPUT "prof.data"

static const char usage_text[] =
	"usage: prof report [-i FILE] [--threads | --tids] [--merge-pools] [--top N]\n"
	"                   [--include RE]... [--exclude RE]... [--grep RE]...\n"
	"                   [--thread RE]... [--pid N]... [--tid N]... [--ignore-case]\n"
	"\n"
	"Prints the stacks of a recording or of folded text as folded stacks\n"
	"(\"root;...;leaf COUNT\", one line per stack, sorted), or a top table.\n"
	"\n"
	"input:\n"
	"  -i, --input FILE   a recording or folded text; '-' is standard input\n"
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
	"\n"
	"filters (POSIX extended regexes, unanchored like grep -E; all must hold):\n"
	"  --include RE       keep stacks with a frame matching RE (repeat: any)\n"
	"  --exclude RE       drop stacks with a frame matching RE (repeat: any)\n"
	"  --grep RE          like --include; exit status 1 when nothing matched\n"
	"  --thread RE        keep threads whose name matches RE (repeat: any);\n"
	"                     on folded input: stacks whose root frame matches\n"
	"  --pid N            keep samples of process N (repeat: any; recordings)\n"
	"  --tid N            keep samples of thread N (repeat: any; recordings)\n"
	"  --ignore-case      regexes ignore case\n"
	"\n"
	"  -h, --help         show this help\n";

enum {
	OPT_THREADS = 256,
	OPT_TIDS,
	OPT_MERGE_POOLS,
	OPT_TOP,
	OPT_INCLUDE,
	OPT_EXCLUDE,
	OPT_GREP,
	OPT_THREAD,
	OPT_PID,
	OPT_TID,
	OPT_IGNORE_CASE,
};

static const struct option long_options[] = {
	{"input", required_argument, NULL, 'i'},
	{"help", no_argument, NULL, 'h'},
	{"threads", no_argument, NULL, OPT_THREADS},
	{"tids", no_argument, NULL, OPT_TIDS},
	{"merge-pools", no_argument, NULL, OPT_MERGE_POOLS},
	{"top", required_argument, NULL, OPT_TOP},
	{"include", required_argument, NULL, OPT_INCLUDE},
	{"exclude", required_argument, NULL, OPT_EXCLUDE},
	{"grep", required_argument, NULL, OPT_GREP},
	{"thread", required_argument, NULL, OPT_THREAD},
	{"pid", required_argument, NULL, OPT_PID},
	{"tid", required_argument, NULL, OPT_TID},
	{"ignore-case", no_argument, NULL, OPT_IGNORE_CASE},
	{NULL, 0, NULL, 0},
};

struct pattern {
	enum profile_filter_kind kind;
	const char *re;
	const char *option;
};

/* Everything `prof report` holds while it runs. */
struct report_cmd {
	const char *input; /* NULL until decided */
	char shown[4200];  /* the input as messages name it */
	enum profile_thread_root roots;
	int roots_asked; /* --threads or --tids (not just --merge-pools) */
	int merge_pools, grep, ignore_case;
	uint64_t top; /* 0: folded output */
	struct pattern *patterns;
	size_t npatterns;
	uint32_t *pids, *tids;
	size_t npids, ntids;

	unsigned char *data;
	size_t size;
	int is_recording;
	struct recording rec;
	struct profile prof;
	struct profile_filter filter;
};

static int parse_options(struct report_cmd *c, int argc, char **argv)
{
	int opt;

	/* Each option takes at most one slot: size the lists by argc. */
	c->patterns = calloc((size_t)argc + 1, sizeof(*c->patterns));
	c->pids = calloc((size_t)argc + 1, sizeof(*c->pids));
	c->tids = calloc((size_t)argc + 1, sizeof(*c->tids));
	if (!c->patterns || !c->pids || !c->tids) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	optind = 0; /* glibc: reinitialize (cmd_report may run more than once) */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":i:h", long_options, NULL)) != -1) {
		uint64_t v;

		switch (opt) {
		case 'i':
			c->input = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return fflush(stdout) ? EXIT_FAIL : -1;
		case OPT_THREADS:
			if (c->roots == PROFILE_ROOT_NONE)
				c->roots = PROFILE_ROOT_NAME;
			c->roots_asked = 1;
			break;
		case OPT_TIDS:
			c->roots = PROFILE_ROOT_NAME_TID;
			c->roots_asked = 1;
			break;
		case OPT_MERGE_POOLS:
			c->merge_pools = 1;
			break;
		case OPT_TOP:
			if (cli_parse_u64(optarg, 1, SIZE_MAX, &v))
				return cli_usage_error("--top needs a positive number, not '%s'", optarg);
			c->top = v;
			break;
		case OPT_INCLUDE:
		case OPT_EXCLUDE:
		case OPT_GREP:
		case OPT_THREAD: {
			struct pattern *pt = &c->patterns[c->npatterns++];

			pt->re = optarg;
			pt->kind = opt == OPT_EXCLUDE  ? PROFILE_EXCLUDE
				   : opt == OPT_THREAD ? PROFILE_THREAD
						       : PROFILE_INCLUDE;
			pt->option = opt == OPT_INCLUDE   ? "--include"
				     : opt == OPT_EXCLUDE ? "--exclude"
				     : opt == OPT_GREP    ? "--grep"
							  : "--thread";
			if (opt == OPT_GREP)
				c->grep = 1;
			break;
		}
		case OPT_PID:
		case OPT_TID:
			if (cli_parse_u64(optarg, 0, UINT32_MAX, &v))
				return cli_usage_error("%s needs a process or thread id, not '%s'",
						       opt == OPT_PID ? "--pid" : "--tid", optarg);
			if (opt == OPT_PID)
				c->pids[c->npids++] = (uint32_t)v;
			else
				c->tids[c->ntids++] = (uint32_t)v;
			break;
		case OPT_IGNORE_CASE:
			c->ignore_case = 1;
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
	if (c->merge_pools && c->roots == PROFILE_ROOT_NONE)
		c->roots = PROFILE_ROOT_NAME;
	if (c->top && c->roots != PROFILE_ROOT_NONE)
		return cli_usage_error("--top lists functions, not threads: use --thread RE to "
				       "pick threads instead of --threads, --tids or --merge-pools");
	return 0;
}

static int compile_filters(struct report_cmd *c)
{
	size_t i;
	char msg[256];

	profile_filter__init(&c->filter, c->ignore_case);
	for (i = 0; i < c->npatterns; i++) {
		const struct pattern *pt = &c->patterns[i];
		int err = profile_filter__add_regex(&c->filter, pt->kind, pt->re, msg, sizeof(msg));

		if (err == -ENOMEM) {
			cli_error("out of memory");
			return EXIT_FAIL;
		}
		if (err)
			return cli_usage_error("invalid regular expression '%s' for %s: %s", pt->re,
					       pt->option, msg);
	}
	for (i = 0; i < c->npids; i++)
		if (profile_filter__add_pid(&c->filter, c->pids[i]))
			goto oom;
	for (i = 0; i < c->ntids; i++)
		if (profile_filter__add_tid(&c->filter, c->tids[i]))
			goto oom;
	return 0;
oom:
	cli_error("out of memory");
	return EXIT_FAIL;
}

/* Picks the input: -i, else stdin when it is a pipe or a file, else
 * prof.data. */
static void choose_input(struct report_cmd *c)
{
	struct stat st;

	if (!c->input) {
		if (!fstat(0, &st) && (S_ISFIFO(st.st_mode) || S_ISREG(st.st_mode)))
			c->input = "-";
		else
			c->input = DEFAULT_INPUT;
	}
	if (!strcmp(c->input, "-"))
		snprintf(c->shown, sizeof(c->shown), "standard input");
	else
		snprintf(c->shown, sizeof(c->shown), "'%s'", c->input);
}

static int read_input(struct report_cmd *c)
{
	int err = read_whole_file(c->input, &c->data, &c->size);

	if (!err)
		return 0;
	if (!strcmp(c->input, "-")) {
		cli_error("cannot read standard input: %s", strerror(-err));
	} else if (err == -EISDIR || err == -ENOMEM) {
		cli_error("cannot read %s: %s", c->shown, strerror(-err));
	} else {
		cli_error("cannot open %s: %s", c->shown, strerror(-err));
		if (err == -ENOENT)
			cli_hint("record one with 'prof record'");
	}
	return EXIT_FAIL;
}

static int build_from_recording(struct report_cmd *c)
{
	struct profile_build_opts opts = {.by = PROFILE_BY_STACK};
	char msg[512];
	uint64_t lost;
	int err;

	c->is_recording = 1;
	err = recording__parse(&c->rec, c->data, c->size, msg, sizeof(msg));
	c->data = NULL; /* owned by the recording now */
	if (err == -ENOMEM) {
		cli_error("out of memory reading %s", c->shown);
		return EXIT_FAIL;
	}
	if (err) {
		cli_error("%s is corrupt: %s", c->shown, msg);
		return EXIT_FAIL;
	}
	if (!c->rec.complete)
		cli_warn("%s is incomplete (the recorder stopped at byte %zu without finishing); "
			 "showing what it holds",
			 c->shown, c->rec.cut_at);
	if (!c->rec.nsamples)
		cli_warn("%s holds no samples", c->shown);
	lost = recording__stat(&c->rec, "lost");
	if (lost)
		cli_warn("%s: %llu samples were lost while recording (the recorder fell "
			 "behind); shares may be skewed: record with a larger -m or a lower -F",
			 c->shown, (unsigned long long)lost);
	if (c->roots != PROFILE_ROOT_NONE || c->filter.match[PROFILE_THREAD].n ||
	    c->filter.npids || c->filter.ntids)
		opts.by = PROFILE_BY_THREAD;
	if (profile__from_recording(&c->prof, &c->rec, &opts)) {
		cli_error("out of memory building the profile of %s", c->shown);
		return EXIT_FAIL;
	}
	return 0;
}

static int build_from_folded(struct report_cmd *c)
{
	struct folded_stats st;

	if (c->npids || c->ntids)
		return cli_usage_error("--pid and --tid need a recording; %s is folded text, which "
				       "has no thread ids",
				       c->shown);
	if (c->roots_asked)
		return cli_usage_error("--threads and --tids need a recording; %s is folded text "
				       "(make it with 'prof report --threads')",
				       c->shown);
	if (profile__from_folded(&c->prof, (const char *)c->data, c->size, &st)) {
		cli_error("out of memory reading %s", c->shown);
		return EXIT_FAIL;
	}
	if (st.lines && st.malformed == st.lines) {
		cli_error("%s is neither a recording nor folded stacks (line %zu is not "
			  "'frame;...;frame COUNT')",
			  c->shown, st.first_malformed);
		return EXIT_FAIL;
	}
	if (st.malformed)
		cli_warn("skipped %zu malformed line%s of %s (first: line %zu)", st.malformed,
			 st.malformed == 1 ? "" : "s", c->shown, st.first_malformed);
	if (!c->size && strcmp(c->input, "-"))
		cli_warn("%s is empty", c->shown);
	return 0;
}

static int write_output(struct report_cmd *c)
{
	struct folded_opts fo = {.thread_root = c->roots};
	int err;

	if (c->is_recording && !c->rec.nsamples)
		return 0; /* nothing to show; already warned */
	if (c->top) {
		struct profile_top top;

		err = profile__top(&c->prof, &top);
		if (!err)
			err = profile_top__write(&c->prof, &top, (size_t)c->top, stdout);
		profile_top__release(&top);
	} else {
		err = profile__write_folded(&c->prof, &fo, stdout);
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

static int run(struct report_cmd *c, int argc, char **argv)
{
	int rc;

	rc = parse_options(c, argc, argv);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	rc = compile_filters(c);
	if (rc)
		return rc;
	choose_input(c);
	rc = read_input(c);
	if (rc)
		return rc;
	if (profile__init(&c->prof)) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	rc = recording_is_recording(c->data, c->size) ? build_from_recording(c)
						       : build_from_folded(c);
	if (rc)
		return rc;
	if (profile__filter(&c->prof, &c->filter)) {
		cli_error("out of memory filtering the profile");
		return EXIT_FAIL;
	}
	if (c->merge_pools && profile__merge_pools(&c->prof)) {
		cli_error("out of memory merging thread pools");
		return EXIT_FAIL;
	}
	rc = write_output(c);
	if (rc)
		return rc;
	return c->grep && !c->prof.total ? EXIT_FAIL : EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	struct report_cmd c;
	int rc;

	memset(&c, 0, sizeof(c));
	/* Output goes out in large writes, also to a terminal. */
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	rc = run(&c, argc, argv);
	free(c.patterns);
	free(c.pids);
	free(c.tids);
	free(c.data);
	if (c.is_recording)
		recording__release(&c.rec);
	profile__release(&c.prof);
	profile_filter__release(&c.filter);
	return rc;
}
