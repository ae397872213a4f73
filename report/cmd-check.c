/* cmd-check.c: `prof check`, the front end of the CI gate: its options and
 * rules (from the command line and -r FILE), the input and the optional
 * baseline read through input.c with the same filters, then the rules
 * measured (check-eval.c) and printed (check-out.c). Exit status 0 when
 * every rule holds, 1 when one fails (or the input cannot be read), 2 for
 * a bad rule or option. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "lib/cli.h"
#include "lib/grow.h"
#include "lib/recording.h"
#include "lib/text-clean.h"
#include "report/check.h"
#include "report/diff.h"
#include "report/report-cli.h"

static const char usage_head[] =
	"usage: prof check [-i FILE] [-b OLD] [--format text|json] [-r RULES]...\n"
	"                  [--off-cpu | --wall] [--lines]\n"
	"                  [--include RE]... [--exclude RE]... [--thread RE]...\n"
	"                  [--pid N]... [--tid N]... [--ignore-case] RULE...\n"
	"\n"
	"Measures rules on a recording or folded text, for CI: prints each rule\n"
	"with its measured value and PASS or FAIL; exit status 0 when all hold,\n"
	"1 when one fails, 2 for a bad rule.\n"
	"\n"
	"rules (one argument each; quote the regex inside the rule):\n"
	"  'RE' <= 5%         share of samples whose stack has a frame matching RE\n"
	"  'RE' self <= 2%    share of samples whose leaf frame matches RE\n"
	"  'RE' < 1200 samples, total >= 1000 samples   counts\n"
	"  'alloc:RE' <= 10%  share of the estimated allocations (allocation\n"
	"                     recordings; of the bytes with --weight bytes)\n"
	"  'RE' grew <= 1pt   share growth in percentage points against -b OLD\n"
	"  'RE' grew <= 20%   relative growth of the share against -b OLD\n"
	"  total grew <= 10%  relative growth of the total against -b OLD\n"
	"  comparisons: < <= > >= == !=; units: % pt samples, and us ms s with\n"
	"  --off-cpu or --wall; regexes are POSIX extended, unanchored (grep -E)\n"
	"\n"
	"input:\n"
	"  -i, --input FILE   a recording or folded text; '-' is standard input\n"
	"                     (default: standard input if it is a pipe or a file,\n"
	"                     else prof.data)\n"
	"  -b, --baseline OLD the recording or folded text to compare with (grew)\n"
	"  -r, --rules FILE   more rules, one per line ('#' starts a comment)\n"
	"\n"
	"output:\n"
	"  --format FORMAT    text (default): 'PASS  RULE  measured VALUE (...)'\n"
	"                     per rule; json: an array of objects\n"
	"\n";
/* ...then profile_input_weight_help, a blank line, profile_input_filter_help
 * (of which --grep is refused), then: */
static const char usage_tail[] = "\n"
				 "  -h, --help         show this help\n";

enum {
	OPT_FORMAT = PROFILE_OPT_END,
};

static const struct option long_options[] = {
	PROFILE_INPUT_LONG_OPTIONS,
	PROFILE_WEIGHT_LONG_OPTIONS,
	{"baseline", required_argument, NULL, 'b'},
	{"rules", required_argument, NULL, 'r'},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* Where a rule came from, for messages. */
struct rule_src {
	const char *text;
	const char *file; /* NULL: the command line */
	size_t line;      /* in file, 1-based */
};

/* Everything `prof check` holds while it runs. */
struct check_cmd {
	struct profile_input in;   /* options, input, the filtered profile */
	struct profile_input base; /* the baseline, same options */
	/* alloc: rules: the allocation profiles (prof report --alloc) of the
	 * input and the baseline, when they are recordings that hold one */
	struct profile_input alloc, base_alloc;
	int have_alloc, have_base_alloc;
	int alloc_bytes, alloc_samples; /* --weight: of the alloc: rules */
	const char *baseline;
	int json;
	const char **rule_files;
	size_t nrule_files;
	struct rule_src *src;
	size_t nsrc, src_cap;
	char **file_texts; /* the rules files' contents, owned */
	size_t nfile_texts, file_texts_cap;
	struct check_rule *rules;
	struct check_result *results;
	size_t nrules;
};

static int add_src(struct check_cmd *c, const char *text, const char *file, size_t line)
{
	if (GROW(c->src, c->src_cap, c->nsrc + 1)) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	c->src[c->nsrc++] = (struct rule_src){text, file, line};
	return 0;
}

/* Rules from a file: one per line; blank lines and '#' comments skipped
 * (a '#' inside a rule's quotes is part of it only when the line does not
 * start with '#'). */
static int read_rules_file(struct check_cmd *c, const char *path)
{
	unsigned char *data = NULL;
	size_t size = 0, line = 0;
	char *text, *p, *next;
	int err = read_whole_file(path, &data, &size);

	if (err) {
		cli_error("cannot read rules file '%s': %s", path, strerror(-err));
		return EXIT_FAIL;
	}
	text = realloc(data, size + 1);
	if (!text || GROW(c->file_texts, c->file_texts_cap, c->nfile_texts + 1)) {
		free(text ? text : (char *)data);
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	c->file_texts[c->nfile_texts++] = text;
	text[size] = '\0';
	for (p = text; p && *p; p = next) {
		size_t len;

		line++;
		next = strchr(p, '\n');
		if (next)
			*next++ = '\0';
		len = strlen(p);
		if (len && p[len - 1] == '\r')
			p[--len] = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		if ((err = add_src(c, p, path, line)))
			return err;
	}
	return 0;
}

static int own_option(void *cmd, int opt, const char *arg)
{
	struct check_cmd *c = cmd;

	switch (opt) {
	case 'b':
		c->baseline = arg;
		return 0;
	case 'r':
		c->rule_files[c->nrule_files++] = arg;
		return 0;
	case OPT_FORMAT:
		if (!strcmp(arg, "json"))
			c->json = 1;
		else if (strcmp(arg, "text"))
			return cli_usage_error("--format takes text or json, not '%s'", arg);
		return 0;
	default:
		return -1;
	}
}

static int parse_options(struct check_cmd *c, int argc, char **argv,
			 recording_replay_fn replay)
{
	static const struct profile_cli cli = {
		":i:b:r:h", long_options, usage_head, usage_tail, own_option,
	};
	int rc;

	c->rule_files = calloc((size_t)argc + 1, sizeof(*c->rule_files));
	if (!c->rule_files) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	rc = profile_input__parse_options(&c->in, argc, argv, &cli, c, replay);
	if (rc)
		return rc;
	profile_input__options_done(&c->in);
	/* --weight bytes|samples: what alloc: rules weigh */
	c->alloc_bytes = c->in.probe.weight_bytes;
	c->alloc_samples = c->in.probe.weight_samples;
	c->in.probe.weight_bytes = c->in.probe.weight_samples = 0;
	c->in.probe.quiet = 1;
	if (c->in.roots != PROFILE_ROOT_NONE)
		return cli_usage_error("--threads, --tids and --merge-pools do not change what a "
				       "rule measures: use --thread RE to pick threads");
	if (c->in.grep)
		return cli_usage_error("--grep is for 'prof report': write a rule such as "
				       "\"'RE' > 0 samples\", or use --include RE to narrow the input");
	for (; optind < argc; optind++)
		if ((rc = add_src(c, argv[optind], NULL, 0)))
			return rc;
	for (size_t i = 0; i < c->nrule_files; i++)
		if ((rc = read_rules_file(c, c->rule_files[i])))
			return rc;
	if (!c->nsrc)
		return cli_usage_error("no rules: give at least one, e.g. \"'slow_path' <= 5%%\"");
	return 0;
}

/* "rule 2" or "rules.txt:4", for messages. */
static void where(const struct rule_src *s, size_t index, char *buf, size_t len)
{
	if (s->file)
		snprintf(buf, len, "%s:%zu", s->file, s->line);
	else
		snprintf(buf, len, "rule %zu", index + 1);
}

static int rule_error(const struct rule_src *s, size_t index, const struct check_parse_error *e)
{
	char at[512];

	where(s, index, at, sizeof(at));
	cli_error("%s, column %zu: %s", at, e->column, e->msg);
	fputs("  ", stderr);
	text_put(stderr, s->text); /* same length: the caret stays under its byte */
	fprintf(stderr, "\n  %*s^\n", (int)(e->column - 1), "");
	cli_hint("rules look like \"'slow_path' <= 5%%\"; see '%s -h'", cli_command());
	return EXIT_USAGE;
}

/* Units that fit the profile: time units need a time profile, which has
 * no samples to count. */
static int check_unit(const struct check_cmd *c, size_t i)
{
	const struct check_rule *r = &c->rules[i];
	int time = c->in.weight != PROFILE_WEIGHT_CPU;
	const char *why;
	char at[512];

	if (r->unit == CHECK_UNIT_TIME && !time)
		why = "us, ms and s need a time profile (--off-cpu or --wall); count samples with "
		      "'samples'";
	else if (r->unit == CHECK_UNIT_SAMPLES && time)
		why = "with --off-cpu or --wall counts are time: use us, ms or s";
	else if (r->grew && !c->baseline)
		why = "'grew' needs a baseline: give --baseline OLD";
	else
		return 0;
	where(&c->src[i], i, at, sizeof(at));
	return cli_usage_error("%s (%s): %s", at, r->text, why);
}

static int parse_rules(struct check_cmd *c)
{
	size_t i;
	int rc;

	c->rules = calloc(c->nsrc, sizeof(*c->rules));
	c->results = calloc(c->nsrc, sizeof(*c->results));
	if (!c->rules || !c->results) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	for (i = 0; i < c->nsrc; i++) {
		struct check_parse_error e;
		int err = check_rule__parse(c->src[i].text, &c->rules[i], &e);

		if (err == -ENOMEM) {
			cli_error("out of memory");
			return EXIT_FAIL;
		}
		if (err)
			return rule_error(&c->src[i], i, &e);
		c->nrules = i + 1;
		if ((rc = check_unit(c, i)))
			return rc;
	}
	return 0;
}

static int load_baseline(struct check_cmd *c)
{
	int rc;

	if (!c->baseline)
		return 0;
	if (!strcmp(c->baseline, "-") && c->in.input && !strcmp(c->in.input, "-"))
		return cli_usage_error("the input and the baseline cannot both be standard input");
	rc = profile_input__clone(&c->base, &c->in, c->baseline);
	c->base.probe.quiet = 1;
	if (!rc)
		rc = profile_input__load(&c->base);
	return rc;
}

/* The allocation profile of `from`'s file into *dst (a second load, with
 * --alloc), when any rule asks for one and the file is a recording with
 * JVM allocation samples; else *have stays 0 and alloc: rules say the
 * input holds none. */
static int load_alloc(struct check_cmd *c, const struct profile_input *from,
		      struct profile_input *dst, int *have)
{
	size_t i;
	int rc;

	for (i = 0; i < c->nrules && c->rules[i].profile != CHECK_PROFILE_ALLOC; i++)
		;
	if (i == c->nrules || !from->is_recording ||
	    recording__find_event(&from->rec, "usdt:hotspot:object__alloc") < 0)
		return 0;
	rc = profile_input__clone(dst, from, from->input);
	if (rc)
		return rc;
	dst->probe.alloc = 1;
	dst->probe.weight_bytes = c->alloc_bytes;
	dst->probe.weight_samples = c->alloc_samples;
	dst->probe.quiet = 1;
	rc = profile_input__load(dst);
	if (!rc)
		*have = 1;
	return rc;
}

static int evaluate(struct check_cmd *c)
{
	struct check_profiles cur = {.time = c->in.weight != PROFILE_WEIGHT_CPU};
	struct check_profiles base = cur;
	char msg[256];
	size_t bad = 0;
	int err;

	cur.p[CHECK_PROFILE_CPU] = &c->in.prof;
	base.p[CHECK_PROFILE_CPU] = c->baseline ? &c->base.prof : NULL;
	cur.p[CHECK_PROFILE_ALLOC] = c->have_alloc ? &c->alloc.prof : NULL;
	base.p[CHECK_PROFILE_ALLOC] = c->have_base_alloc ? &c->base_alloc.prof : NULL;
	err = check__evaluate(c->rules, c->nrules, &cur, c->baseline ? &base : NULL,
			      c->in.ignore_case, c->results, &bad, msg, sizeof(msg));
	if (err == -EINVAL) {
		char at[512];

		where(&c->src[bad], bad, at, sizeof(at));
		return cli_usage_error("%s: invalid regular expression '%s': %s", at,
				       c->rules[bad].regex, msg);
	}
	if (err) {
		cli_error("out of memory measuring the rules");
		return EXIT_FAIL;
	}
	err = c->json ? check__write_json(c->rules, c->results, c->nrules, cur.time, stdout)
		      : check__write_text(c->rules, c->results, c->nrules, cur.time, stdout);
	if (err) {
		cli_error("cannot write the results: %s", strerror(-err));
		return EXIT_FAIL;
	}
	for (size_t i = 0; i < c->nrules; i++)
		if (!c->results[i].pass)
			return EXIT_FAIL;
	return EXIT_OK;
}

static int run(struct check_cmd *c, int argc, char **argv, const struct prof_env *env)
{
	int rc;

	rc = parse_options(c, argc, argv, env->replay);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	rc = parse_rules(c);
	if (rc)
		return rc;
	rc = profile_input__load(&c->in);
	if (!rc)
		rc = load_baseline(c);
	if (!rc)
		rc = load_alloc(c, &c->in, &c->alloc, &c->have_alloc);
	if (!rc && c->baseline)
		rc = load_alloc(c, &c->base, &c->base_alloc, &c->have_base_alloc);
	if (!rc)
		rc = evaluate(c);
	return rc;
}

int cmd_check(int argc, char **argv, const struct prof_env *env)
{
	struct check_cmd c;
	size_t i;
	int rc;

	memset(&c, 0, sizeof(c));
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	rc = run(&c, argc, argv, env);
	for (i = 0; i < c.nrules; i++)
		check_rule__release(&c.rules[i]);
	for (i = 0; i < c.nfile_texts; i++)
		free(c.file_texts[i]);
	free(c.file_texts);
	free(c.rules);
	free(c.results);
	free(c.src);
	free(c.rule_files);
	profile_input__release(&c.base_alloc);
	profile_input__release(&c.alloc);
	profile_input__release(&c.base);
	profile_input__release(&c.in);
	return rc;
}
