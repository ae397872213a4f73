/* test-check.c: the rule language of `prof check` (report/check-rule.c):
 * what parses into what, and the column and message of each kind of bad
 * rule; and the evaluator (report/check-eval.c) on folded profiles whose
 * shares are known: any-frame and leaf matching, counts, baselines in
 * points and percent, infinite growth, missing profiles; the output
 * (report/check-out.c): grep-able lines and JSON with hostile strings. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/check.h"
#include "report/report.h"

static void parse_ok(const char *text, struct check_rule *r)
{
	struct check_parse_error e;
	int rc = check_rule__parse(text, r, &e);

	if (rc)
		fail_msg("'%s' did not parse: column %zu: %s", text, e.column, e.msg);
}

static void test_parse_forms(void **state)
{
	struct check_rule r;

	(void)state;
	parse_ok("'slow_path' <= 5%", &r);
	assert_string_equal(r.regex, "slow_path");
	assert_int_equal(r.subject, CHECK_SUBJECT_FRAMES);
	assert_int_equal(r.profile, CHECK_PROFILE_CPU);
	assert_int_equal(r.op, CHECK_LE);
	assert_true(r.limit == 5);
	assert_int_equal(r.unit, CHECK_UNIT_PERCENT);
	assert_false(r.grew);
	assert_string_equal(r.text, "'slow_path' <= 5%");
	check_rule__release(&r);

	parse_ok("  \"parse_.*\"   self<2.5 %  ", &r);
	assert_string_equal(r.regex, "parse_.*");
	assert_int_equal(r.subject, CHECK_SUBJECT_SELF);
	assert_int_equal(r.op, CHECK_LT);
	assert_true(r.limit == 2.5);
	assert_string_equal(r.text, "'parse_.*' self < 2.5%");
	check_rule__release(&r);

	parse_ok("'alloc:java/lang/String' <= 10%", &r);
	assert_int_equal(r.profile, CHECK_PROFILE_ALLOC);
	assert_string_equal(r.regex, "java/lang/String");
	assert_string_equal(r.text, "'alloc:java/lang/String' <= 10%");
	check_rule__release(&r);

	parse_ok("'slow_path' grew <= 1pt", &r);
	assert_true(r.grew);
	assert_int_equal(r.unit, CHECK_UNIT_POINTS);
	check_rule__release(&r);

	parse_ok("slow_path grew <= 1 pts", &r);
	assert_string_equal(r.text, "'slow_path' grew <= 1pt");
	check_rule__release(&r);

	parse_ok("total grew <= 10%", &r);
	assert_int_equal(r.subject, CHECK_SUBJECT_TOTAL);
	assert_null(r.regex);
	assert_true(r.grew);
	check_rule__release(&r);

	parse_ok("total >= 1000 samples", &r);
	assert_int_equal(r.unit, CHECK_UNIT_SAMPLES);
	assert_int_equal(r.op, CHECK_GE);
	check_rule__release(&r);

	parse_ok("'x' self grew > -5%", &r);
	assert_true(r.limit == -5);
	assert_int_equal(r.op, CHECK_GT);
	check_rule__release(&r);

	parse_ok("'a\\'b\\.c' == 0 samples", &r);
	assert_string_equal(r.regex, "a'b\\.c"); /* \' is a quote, \. stays */
	assert_string_equal(r.text, "'a\\'b\\.c' == 0 samples");
	check_rule__release(&r);

	parse_ok("'x' != 3 sample", &r);
	assert_int_equal(r.op, CHECK_NE);
	assert_string_equal(r.text, "'x' != 3 samples");
	check_rule__release(&r);

	parse_ok("'wait' <= 2 ms", &r);
	assert_int_equal(r.unit, CHECK_UNIT_TIME);
	assert_true(r.limit == 2000); /* microseconds */
	check_rule__release(&r);

	parse_ok("'wait' <= 1.5 s", &r);
	assert_true(r.limit == 1500000);
	check_rule__release(&r);
}

struct bad {
	const char *text;
	size_t column;
	const char *words; /* in the message */
};

static void test_parse_errors(void **state)
{
	static const struct bad bad[] = {
		{"", 1, "empty rule"},
		{"slow_path <= 5", 15, "expected a unit"},
		{"'slow_path <= 5%", 1, "never closed"},
		{"'' <= 5%", 1, "empty regex"},
		{"'alloc:' <= 5%", 1, "empty regex"},
		{"'x' 5%", 5, "expected a comparison"},
		{"'x' = 5%", 5, "use =="},
		{"'x' <= %", 8, "expected a number"},
		{"'x' <= -5%", 8, "negative"},
		{"'x' <= 5 parsecs", 10, "expected a unit"},
		{"'x' <= 1pt", 9, "grew"},
		{"total <= 5%", 11, "always 100%"},
		{"total<=5 parsecs", 10, "expected a unit"},
		{"total grew <= 1pt", 16, "points"},
		{"total self <= 5 samples", 7, "total has no leaf"},
		{"'x' self self <= 5%", 10, "twice"},
		{"'x' <= 5% or more", 11, "unexpected text"},
		{"<= 5%", 1, "expected 'REGEX' or total"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct check_rule r;
		struct check_parse_error e;
		int rc = check_rule__parse(bad[i].text, &r, &e);

		if (rc != -EINVAL)
			fail_msg("'%s' parsed (rc %d)", bad[i].text, rc);
		if (e.column != bad[i].column || !strstr(e.msg, bad[i].words))
			fail_msg("'%s': column %zu '%s', want column %zu with '%s'", bad[i].text,
				 e.column, e.msg, bad[i].column, bad[i].words);
		assert_null(r.text);
		assert_null(r.regex);
	}
}

/* ---- evaluation ---- */

static const char cur_text[] = "main;work;slow_path 30\n"
			       "main;work;slow_path;memcpy 10\n"
			       "main;work;fast_path 40\n"
			       "main;idle 20\n";
static const char base_text[] = "main;work;slow_path 10\n"
				"main;work;fast_path 60\n"
				"main;idle 30\n";

static void load(struct profile *p, const char *text)
{
	struct folded_stats st;

	assert_int_equal(profile__init(p), 0);
	assert_int_equal(profile__from_folded(p, text, strlen(text), &st), 0);
	assert_int_equal(st.malformed, 0);
}

/* Measures one rule on cur (and base, which may be NULL). */
static struct check_result eval1(const char *rule, struct profile *cur, struct profile *base)
{
	struct check_profiles c = {{cur, NULL}, 0}, b = {{base, NULL}, 0};
	struct check_rule r;
	struct check_result res;
	char msg[128];
	size_t bad;

	parse_ok(rule, &r);
	assert_int_equal(check__evaluate(&r, 1, &c, base ? &b : NULL, 0, &res, &bad, msg,
					 sizeof(msg)),
			 0);
	check_rule__release(&r);
	return res;
}

static void test_evaluate_shares(void **state)
{
	struct profile cur, base;
	struct check_result res;

	(void)state;
	load(&cur, cur_text);
	load(&base, base_text);

	res = eval1("'slow_path' <= 5%", &cur, NULL);
	assert_true(res.measured);
	assert_int_equal(res.matched, 40);
	assert_int_equal(res.total, 100);
	assert_true(res.value == 40);
	assert_false(res.pass);

	res = eval1("'slow_path' self <= 35%", &cur, NULL); /* the memcpy leaf is not */
	assert_int_equal(res.matched, 30);
	assert_true(res.pass);

	res = eval1("'^(fast|slow)_path$' < 80%", &cur, NULL); /* any frame, once per stack */
	assert_int_equal(res.matched, 80);
	assert_false(res.pass);

	res = eval1("'mem' >= 10 samples", &cur, NULL);
	assert_true(res.value == 10);
	assert_true(res.pass);

	res = eval1("'nowhere' == 0 samples", &cur, NULL);
	assert_true(res.pass);

	res = eval1("total > 99 samples", &cur, NULL);
	assert_true(res.value == 100);
	assert_true(res.pass);

	/* against the baseline: 40% from 10% */
	res = eval1("'slow_path' grew <= 1pt", &cur, &base);
	assert_true(fabs(res.value - 30) < 1e-9);
	assert_false(res.pass);
	assert_int_equal(res.base_matched, 10);
	assert_int_equal(res.base_total, 100);

	res = eval1("'slow_path' grew <= 300%", &cur, &base);
	assert_true(fabs(res.value - 300) < 1e-9);
	assert_true(res.pass);

	res = eval1("'fast_path' grew < -20%", &cur, &base); /* 60% -> 40%: -33.3% */
	assert_true(fabs(res.value + 100.0 / 3) < 1e-9);
	assert_true(res.pass);

	res = eval1("'memcpy' grew <= 1000%", &cur, &base); /* from nothing */
	assert_true(isinf(res.value) && res.value > 0);
	assert_false(res.pass);

	res = eval1("total grew == 0%", &cur, &base);
	assert_true(res.value == 0);
	assert_true(res.pass);

	res = eval1("'slow_path' grew <= 25 samples", &cur, &base); /* raw counts */
	assert_true(res.value == 30);
	assert_false(res.pass);

	/* a grew rule without a baseline, an alloc rule without allocations */
	res = eval1("'slow_path' grew <= 1pt", &cur, NULL);
	assert_false(res.measured);
	assert_false(res.pass);
	assert_non_null(strstr(res.reason, "baseline"));
	res = eval1("'alloc:String' <= 10%", &cur, NULL);
	assert_false(res.measured);
	assert_false(res.pass);
	assert_non_null(strstr(res.reason, "allocation"));

	profile__release(&cur);
	profile__release(&base);
}

static void test_evaluate_filtered_and_bad_regex(void **state)
{
	struct profile cur;
	struct profile_filter f;
	struct check_profiles c = {{NULL, NULL}, 0};
	struct check_rule r[2];
	struct check_result res[2];
	char msg[128];
	size_t bad = 99;

	(void)state;
	load(&cur, cur_text);
	/* shares are of what the filters leave */
	assert_int_equal(profile_filter__init(&f, 0), 0);
	assert_int_equal(profile_filter__add_regex(&f, PROFILE_EXCLUDE, "^idle$", msg, sizeof(msg)),
			 0);
	assert_int_equal(profile__filter(&cur, &f), 0);
	profile_filter__release(&f);
	c.p[CHECK_PROFILE_CPU] = &cur;
	parse_ok("'SLOW' <= 50%", &r[0]);
	parse_ok("'a(b' <= 5%", &r[1]);
	assert_int_equal(check__evaluate(r, 1, &c, NULL, 1, res, &bad, msg, sizeof(msg)), 0);
	assert_int_equal(res[0].total, 80);
	assert_int_equal(res[0].matched, 40); /* ignore case */
	assert_true(res[0].pass);
	assert_int_equal(check__evaluate(r, 2, &c, NULL, 0, res, &bad, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(bad, 1);
	assert_true(strlen(msg) > 0);
	check_rule__release(&r[0]);
	check_rule__release(&r[1]);
	profile__release(&cur);
}

/* ---- output ---- */

static char *write_out(int json, const struct check_rule *r, const struct check_result *res,
		       size_t n)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(json ? check__write_json(r, res, n, 0, f) : check__write_text(r, res, n, 0, f),
			 0);
	fclose(f);
	return out;
}

static void test_output(void **state)
{
	struct check_rule r[3];
	struct check_result res[3] = {
		{.pass = 0, .measured = 1, .value = 7.3125, .matched = 1462, .total = 19994},
		{.pass = 0, .measured = 1, .value = 5.004, .matched = 5004, .total = 100000},
		{.pass = 0, .measured = 0, .reason = "no \"allocation\" samples"},
	};
	char *out;

	(void)state;
	parse_ok("'slow_path' <= 5%", &r[0]);
	parse_ok("'x' <= 5%", &r[1]);
	parse_ok("'alloc:a\"b\\\\c\xff\x01' <= 1%", &r[2]);
	out = write_out(0, r, res, 3);
	assert_string_equal(out,
			    "FAIL  'slow_path' <= 5%  measured 7.31% (1462 of 19994 samples)\n"
			    "FAIL  'x' <= 5%  measured 5.004% (5004 of 100000 samples)\n"
			    "FAIL  'alloc:a\"b\\\\c\xff?' <= 1%  not measured: no \"allocation\" "
			    "samples\n");
	free(out);
	out = write_out(1, r, res, 3);
	/* strings escaped, bad UTF-8 replaced */
	assert_non_null(strstr(out, "\"rule\":\"'alloc:a\\\"b\\\\\\\\c\\ufffd?' <= 1%\""));
	assert_non_null(strstr(out, "\"regex\":\"a\\\"b\\\\\\\\c\\ufffd\\u0001\""));
	assert_non_null(strstr(out, "\"reason\":\"no \\\"allocation\\\" samples\""));
	assert_non_null(strstr(out, "\"measured\":7.3125,"));
	assert_non_null(strstr(out, "\"measured\":null,"));
	assert_int_equal(out[0], '[');
	free(out);
	for (int i = 0; i < 3; i++)
		check_rule__release(&r[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_forms),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_evaluate_shares),
		cmocka_unit_test(test_evaluate_filtered_and_bad_regex),
		cmocka_unit_test(test_output),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
