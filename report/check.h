/* check.h: the rules of `prof check` (CI gating), part of report/'s
 * interface next to report.h: parsing a rule such as
 *
 *   'slow_path' <= 5%         'parse_.*' self <= 2%      total >= 1000 samples
 *   'slow_path' grew <= 1pt   'slow_path' grew <= 20%    total grew <= 10%
 *   'alloc:java/lang/String' <= 10%
 *
 * into a struct check_rule (check-rule.c), measuring it on one profile and
 * optionally a baseline (check-eval.c), and printing the verdicts as text
 * or JSON (check-out.c). docs/prof-check.md is the user's description.
 *
 * Rules are generic over which profile they measure: a subject "alloc:RE"
 * names the allocation profile, anything else the CPU (or time) profile the
 * input gives. A rule whose profile is missing fails with a reason instead
 * of a value.
 *
 * Evaluation works per unique frame name and per unique stack, never per
 * sample: each rule's regex runs at most once per name (a cached verdict),
 * each stack is tested once per rule.
 *
 * Conventions as report.h: 0 or -errno; nothing prints except the writers. */
#ifndef PROF_REPORT_CHECK_H
#define PROF_REPORT_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/report.h"

enum check_profile_kind {
	CHECK_PROFILE_CPU = 0, /* what the input holds: CPU samples, or time */
	CHECK_PROFILE_ALLOC,   /* allocation samples ("alloc:" subjects) */
	CHECK_NPROFILES,
};

enum check_subject {
	CHECK_SUBJECT_FRAMES = 0, /* stacks with a frame matching the regex */
	CHECK_SUBJECT_SELF,       /* stacks whose leaf frame matches */
	CHECK_SUBJECT_TOTAL,      /* every sample */
};

enum check_op { CHECK_LT, CHECK_LE, CHECK_GT, CHECK_GE, CHECK_EQ, CHECK_NE };

enum check_unit {
	CHECK_UNIT_PERCENT = 0, /* share of the total; relative growth with grew */
	CHECK_UNIT_POINTS,      /* percentage points of share (grew only) */
	CHECK_UNIT_SAMPLES,     /* a count: samples (or microseconds of a time profile) */
	CHECK_UNIT_TIME,        /* microseconds (the limit is converted from ms, s) */
};

struct check_rule {
	char *text;  /* canonical form, e.g. "'slow_path' grew <= 1pt" */
	char *regex; /* POSIX ERE, without "alloc:"; NULL for total */
	enum check_profile_kind profile;
	enum check_subject subject;
	int grew; /* against the baseline */
	enum check_op op;
	double limit; /* in the unit; microseconds for CHECK_UNIT_TIME */
	enum check_unit unit;
};

/* Where and why a rule did not parse. */
struct check_parse_error {
	size_t column; /* 1-based byte column in the rule's text */
	char msg[200];
};

/* Parses one rule. 0; -EINVAL with *err filled; -ENOMEM. On success the
 * rule owns its strings: check_rule__release(). */
int check_rule__parse(const char *text, struct check_rule *r, struct check_parse_error *err);
void check_rule__release(struct check_rule *r);

/* The profiles a rule set is measured on, by enum check_profile_kind; NULL
 * where the input has none. `time` says counts are microseconds (--off-cpu,
 * --wall) rather than samples. */
struct check_profiles {
	struct profile *p[CHECK_NPROFILES];
	int time;
};

struct check_result {
	int pass;
	int measured;   /* 0: not measured (see reason): the rule fails */
	const char *reason;
	double value;     /* in the rule's unit; may be +-inf for grew in % */
	uint64_t matched, total;           /* in the profile */
	uint64_t base_matched, base_total; /* in the baseline (grew) */
	/* count_decimals of the profile and the baseline (report.h): the
	 * counts above are in units of 10^-decimals; values are not */
	unsigned decimals, base_decimals;
};

/* Measures `nrules` rules on `cur` (and `base` for grew rules; NULL when
 * there is none: grew rules then fail with a reason). Compiles each regex
 * once; -EINVAL with the rule index in *bad and regerror()'s text in
 * errbuf for a bad regex; -ENOMEM. `ignore_case` as --ignore-case. */
int check__evaluate(const struct check_rule *rules, size_t nrules, const struct check_profiles *cur,
		    const struct check_profiles *base, int ignore_case, struct check_result *results,
		    size_t *bad, char *errbuf, size_t errlen);

/* Does v hold against `op limit`? */
int check__compare(double v, enum check_op op, double limit);

/* "PASS  RULE  measured VALUE (DETAILS)" per rule, one line each. 0 or
 * -errno of the failed write. */
int check__write_text(const struct check_rule *rules, const struct check_result *results,
		      size_t n, int time, FILE *out);
/* A JSON array with one object per rule (docs/prof-check.md). */
int check__write_json(const struct check_rule *rules, const struct check_result *results,
		      size_t n, int time, FILE *out);

#endif
