/* probe-input.c: the probe options of the commands that read a profile
 * (`prof report`, `prof svg`): --event, --args, --alloc, --malloc, --leaks,
 * --leak-age, --weight, --class, --exclude-class, --class-root (see
 * report-cli.h). Like input.c, it
 * prints its errors and returns exit statuses. */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli.h"
#include "lib/grow.h"
#include "report/report-cli.h"
#include "report/user-regex.h"

#define ALLOC_EVENT "usdt:hotspot:object__alloc"
#define MALLOC_EVENT "uprobe:malloc" /* prof record --malloc */

static int add_class(struct profile_input *in, const char *arg, int exclude)
{
	char *copy = malloc(strlen(arg) + 2);

	if (!copy || GROW(in->class_patterns, in->class_patterns_cap, in->nclass_patterns + 1)) {
		free(copy);
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	copy[0] = exclude ? '!' : '+';
	strcpy(copy + 1, arg);
	in->class_patterns[in->nclass_patterns++] = copy;
	return 0;
}

int probe_input__option(struct profile_input *in, int opt, const char *arg)
{
	switch (opt) {
	case PROFILE_OPT_EVENT:
		in->event_name = arg;
		return 0;
	case PROFILE_OPT_ARGS:
		in->probe.args = 1;
		return 0;
	case PROFILE_OPT_ALLOC:
		in->probe.alloc = 1;
		return 0;
	case PROFILE_OPT_MALLOC:
		in->probe.malloc = 1;
		return 0;
	case PROFILE_OPT_LEAKS:
		in->probe.malloc = in->probe.leaks = 1;
		return 0;
	case PROFILE_OPT_LEAK_AGE:
		if (!strcmp(arg, "0"))
			in->probe.leak_age_ns = 0;
		else if (cli_parse_seconds(arg, &in->probe.leak_age_ns))
			return cli_usage_error("invalid --leak-age '%s' (seconds, e.g. 1 or 0.5)", arg);
		in->probe.leak_age_set = 1;
		return 0;
	case PROFILE_OPT_WEIGHT_BY:
		in->probe.weight_set = 1;
		in->probe.weight_bytes = !strcmp(arg, "bytes");
		in->probe.weight_samples = !strcmp(arg, "samples");
		if (!in->probe.weight_bytes && !in->probe.weight_samples && strcmp(arg, "count"))
			return cli_usage_error("--weight takes count, bytes or samples, not '%s'", arg);
		return 0;
	case PROFILE_OPT_CLASS:
	case PROFILE_OPT_EXCLUDE_CLASS:
		return add_class(in, arg, opt == PROFILE_OPT_EXCLUDE_CLASS);
	case PROFILE_OPT_CLASS_ROOT:
		in->probe.class_root = 1;
		return 0;
	default:
		return -1;
	}
}

static int compile_classes(struct profile_input *in)
{
	struct probe_view *v = &in->probe;
	regex_t *res;
	size_t k = 0;

	if (!in->nclass_patterns)
		return 0;
	res = calloc(in->nclass_patterns, sizeof(*res));
	if (!res) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	v->class_res = res;
	/* --class patterns first, then the --exclude-class ones. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < in->nclass_patterns; i++) {
			const char *pt = in->class_patterns[i];
			char msg[256];
			int err;

			if ((pt[0] == '!') != pass)
				continue;
			err = user_regcomp(&res[k], pt + 1, REG_EXTENDED | REG_NOSUB |
					   (in->ignore_case ? REG_ICASE : 0), msg, sizeof(msg));
			if (err) {
				return cli_usage_error("invalid regular expression '%s' for %s: %s", pt + 1,
						       pass ? "--exclude-class" : "--class", msg);
			}
			k++;
			if (pass)
				v->nexclude++;
			else
				v->nclass++;
		}
	return 0;
}

/* The first event with samples, CPU or not. */
static int first_event_with_samples(const struct recording *r, int want_probe)
{
	for (size_t i = 0; i < r->nsamples; i++) {
		unsigned ev = r->samples[i].event;

		if (ev < r->nevents && recording__event_is_probe(r, ev) == want_probe)
			return (int)ev;
	}
	return -1;
}

int probe_input__resolve(struct profile_input *in)
{
	const struct recording *r = &in->rec;
	struct probe_view *v = &in->probe;
	int rc;

	v->event = -1;
	if (v->malloc && (v->alloc || v->args || in->nclass_patterns || v->class_root))
		return cli_usage_error("--malloc and --leaks go without --alloc, --args and the "
				       "class options");
	if (v->leak_age_set && !v->leaks)
		return cli_usage_error("--leak-age goes with --leaks");
	if (v->malloc && in->weight != PROFILE_WEIGHT_CPU)
		return cli_usage_error("--malloc cannot be combined with --off-cpu or --wall");
	if (v->malloc && !v->weight_set)
		v->weight_bytes = 1;
	if (!v->alloc && !v->malloc && (v->weight_bytes || in->nclass_patterns || v->class_root))
		return cli_usage_error("--weight bytes, --class, --exclude-class and --class-root "
				       "go with --alloc (--weight bytes also with --malloc)");
	if (v->alloc && v->args)
		return cli_usage_error("--alloc and --args cannot be combined");
	if (v->alloc && in->weight != PROFILE_WEIGHT_CPU)
		return cli_usage_error("--alloc cannot be combined with --off-cpu or --wall");
	rc = compile_classes(in);
	if (rc)
		return rc;
	if (v->alloc && !in->event_name)
		in->event_name = ALLOC_EVENT;
	if (v->malloc && !in->event_name)
		in->event_name = MALLOC_EVENT;
	if (in->event_name) {
		v->event = recording__find_event(r, in->event_name);
		if (v->event < 0) {
			cli_error("%s has no event '%s'", in->shown, in->event_name);
			if (v->alloc)
				cli_hint("record JVM allocations with 'prof record -p PID --alloc'");
			else if (v->malloc)
				cli_hint("record native allocations with 'prof record --malloc'");
			else
				cli_hint("'prof report --event NAME' takes a name its recording holds");
			return EXIT_FAIL;
		}
		if (!recording__event_is_probe(r, (unsigned)v->event)) {
			v->event = -1; /* a CPU event: the usual profile */
			if (v->args || v->alloc)
				return cli_usage_error("--args and --alloc need a probe event, not '%s'",
						       in->event_name);
		}
	} else if (first_event_with_samples(r, 0) < 0) {
		/* No CPU samples: show the probe hits rather than nothing. */
		v->event = first_event_with_samples(r, 1);
	}
	if (v->args && v->event < 0)
		return cli_usage_error("--args needs a probe event: name it with --event");
	if (v->weight_samples && v->event < 0)
		return cli_usage_error("--weight samples is for probe events: add --alloc, "
				       "--malloc or --event");
	if (v->event >= 0 && !(v->est = calloc(1, sizeof(*v->est)))) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	if (in->weight != PROFILE_WEIGHT_CPU && v->event >= 0)
		return cli_usage_error("--off-cpu and --wall are about CPU samples, not probe hits");
	return 0;
}

/* --malloc, --leaks: what the profile is, on stderr (the output stays
 * folded text). */
static int malloc_header(struct profile_input *in)
{
	const struct recording *r = &in->rec;
	struct malloc_totals t;
	const char *window = recording__meta(r, "probe-window");
	uint64_t span = recording__stat(r, "probe-span-ns");
	uint64_t att = recording__stat(r, "probe-attached-ns");
	double duty;

	if (!span) /* recorded before probe-span-ns */
		span = recording__stat(r, "duration-ns");
	duty = window && strcmp(window, "continuous") && span && att < span
		       ? (double)att / (double)span : 1;
	if (malloc_view__totals(r, &in->probe, &t)) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	if (in->probe.leaks && t.no_frees) {
		cli_error("%s has no frees: record with 'prof record --malloc --leaks'", in->shown);
		return EXIT_FAIL;
	}
	if (in->probe.quiet) /* prof check's loads */
		return 0;
	if (in->probe.leaks)
		fprintf(stderr, "prof report: leaks (estimates): %.0f bytes in %llu blocks still "
			"allocated at the end and older than %.2f s, from %llu of %llu allocation "
			"samples (one per %s bytes)%s\n", (double)t.bytes / duty,
			(unsigned long long)((double)t.count / duty), (double)t.leak_age_ns / 1e9,
			(unsigned long long)t.samples, (unsigned long long)t.all_samples,
			recording__meta(r, "malloc-every-bytes") ? recording__meta(r, "malloc-every-bytes")
								   : "?",
			duty < 1 ? ", scaled to the probes' windows" : "");
	else
		fprintf(stderr, "prof report: allocations (estimates): %.0f bytes in %.0f calls, from "
			"%llu samples (one per %s bytes), probes attached %.1f%% of the time%s\n",
			(double)t.bytes / duty, (double)t.count / duty, (unsigned long long)t.samples,
			recording__meta(r, "malloc-every-bytes") ? recording__meta(r, "malloc-every-bytes")
								   : "?",
			100 * duty, duty < 1 ? " (totals scaled to all of it)" : "");
	return 0;
}

int probe_input__after_build(struct profile_input *in)
{
	const struct recording *r = &in->rec;

	if (in->probe.malloc && in->probe.event >= 0) {
		int rc = malloc_header(in); /* its own estimates (malloc-view.c) */

		if (rc)
			return rc;
	} else if (in->probe.est && !in->probe.quiet && in->probe.event >= 0 &&
		   (unsigned)in->probe.event < r->nevents) {
		probe_estimate__print(in->probe.est, in->probe.alloc,
				      recording__str(r, r->events[in->probe.event].name), stderr);
	}
	if (in->probe.class_root && profile__leaf_to_root(&in->prof)) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	return 0;
}

int probe_input__folded(struct profile_input *in)
{
	if (in->event_name || in->probe.args || in->probe.alloc || in->nclass_patterns) {
		cli_usage_error("--event, --args and --alloc need a recording; %s is folded text",
				in->shown);
		return 1;
	}
	return 0;
}

void probe_input__release(struct profile_input *in)
{
	regex_t *res = in->probe.class_res;

	for (size_t i = 0; i < in->probe.nclass + in->probe.nexclude; i++)
		regfree(&res[i]);
	free(res);
	free(in->probe.est);
	for (size_t i = 0; i < in->nclass_patterns; i++)
		free((char *)in->class_patterns[i]);
	free(in->class_patterns);
	in->class_patterns = NULL;
	in->nclass_patterns = in->class_patterns_cap = 0;
	memset(&in->probe, 0, sizeof(in->probe));
}
