/* test-folded-fractions.c: folded text with fractional counts
 * (report/folded.c, report/count-scale.c): read exactly as scaled integers,
 * written back as the same decimals; a fraction first seen late rescales
 * what was summed before it; too many decimals and sums past 64 bits are
 * errors with their line; what flamegraph.pl ignores (".5", "1e3", "-1",
 * "nan") is a malformed line; diffs and rescaling line up two scales. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/diff.h"
#include "report/report.h"

static int read_folded(struct profile *p, const char *in, struct folded_stats *st)
{
	assert_int_equal(profile__init(p), 0);
	return profile__from_folded(p, in, strlen(in), st);
}

static char *write_folded(struct profile *p)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(profile__write_folded(p, NULL, f), 0);
	fclose(f);
	return out;
}

/* Reads `in` (which must load) and checks the writer's text, the scale and
 * the total in scaled units. */
static void check(const char *in, const char *want, unsigned decimals, uint64_t total)
{
	struct profile p;
	struct folded_stats st;
	char *out;

	assert_int_equal(read_folded(&p, in, &st), 0);
	out = write_folded(&p);
	assert_string_equal(out, want);
	assert_int_equal(p.count_decimals, decimals);
	assert_int_equal(p.total, total);
	free(out);
	profile__release(&p);
}

static void test_fractions(void **state)
{
	(void)state;
	check("main;foo 0.5\nmain;bar 1.25\n", "main;bar 1.25\nmain;foo 0.5\n", 2, 175);
	/* merged lines add up exactly */
	check("a 0.1\na 0.2\n", "a 0.3\n", 1, 3);
	/* trailing zeros carry no precision; "1." is 1 (flamegraph.pl's \d+(\.\d*)?) */
	check("a 1.500\nb 1.\nc 2.0\n", "a 1.5\nb 1\nc 2\n", 1, 45);
	/* zero with decimals adds nothing and sets no scale */
	check("a 0.000\nb 3\n", "b 3\n", 0, 3);
	/* six decimals, the most */
	check("a 0.000001\nb 1\n", "a 0.000001\nb 1\n", 6, 1000001);
}

static void test_late_fraction(void **state)
{
	(void)state;
	/* integers summed before the first fraction are rescaled, merged
	 * lines too */
	check("a 3\nb 2\na 4\nc 0.25\n", "a 7\nb 2\nc 0.25\n", 2, 925);
	/* each new, finer fraction rescales again */
	check("a 1\nb 0.5\nc 0.05\nd 0.005\n", "a 1\nb 0.5\nc 0.05\nd 0.005\n", 3, 1555);
}

static void test_integers_unchanged(void **state)
{
	(void)state;
	check("a 12\nb 0000007\n", "a 12\nb 7\n", 0, 19);
}

static void test_too_many_decimals(void **state)
{
	struct profile p;
	struct folded_stats st;

	(void)state;
	assert_int_equal(read_folded(&p, "a 1\nb 2\nc 0.1234567\n", &st), -EDOM);
	assert_int_equal(st.bad_line, 3);
	profile__release(&p);
	/* trailing zeros do not count */
	check("a 0.1234560000\n", "a 0.123456\n", 6, 123456);
}

static void test_overflow(void **state)
{
	struct profile p;
	struct folded_stats st;

	(void)state;
	/* a sum past 2^64 - 1 is an error, not a wrap or a saturation */
	assert_int_equal(read_folded(&p, "a 18446744073709551615\nb 1\n", &st), -EOVERFLOW);
	assert_int_equal(st.bad_line, 2);
	profile__release(&p);
	/* a late fraction whose rescale of the sum so far overflows */
	assert_int_equal(read_folded(&p, "a 1\nb 18446744073709551610\nc 0.5\n", &st),
			 -EOVERFLOW);
	assert_int_equal(st.bad_line, 3);
	profile__release(&p);
	/* a count that fits 64 bits but not once scaled */
	assert_int_equal(read_folded(&p, "a 0.5\nb 18446744073709551615\n", &st), -EOVERFLOW);
	assert_int_equal(st.bad_line, 2);
	profile__release(&p);
	/* the largest sum that fits is fine */
	check("a 18446744073709551614\nb 1\n", "a 18446744073709551614\nb 1\n", 0, UINT64_MAX);
}

/* What flamegraph.pl's /(\d+(?:\.\d*)?)$/ does not take is malformed. */
static void test_not_counts(void **state)
{
	static const char *const bad[] = {"a .5\n", "a 1e3\n", "a -1\n", "a nan\n", "a 1.2.3\n",
					  "a 0x10\n", "a +1\n", "a 1,5\n", "a inf\n", "a 1. \n"};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct profile p;
		struct folded_stats st;
		char *out;

		assert_int_equal(read_folded(&p, bad[i], &st), 0);
		out = write_folded(&p);
		assert_string_equal(out, "");
		assert_int_equal(st.malformed, 1);
		assert_int_equal(st.first_malformed, 1);
		assert_int_equal(p.count_decimals, 0);
		free(out);
		profile__release(&p);
	}
}

static void test_count_text(void **state)
{
	char buf[PROFILE_COUNT_TEXT];

	(void)state;
	assert_int_equal(profile_count_text(buf, 5, 1), 3);
	assert_string_equal(buf, "0.5");
	profile_count_text(buf, 120, 2);
	assert_string_equal(buf, "1.2");
	profile_count_text(buf, 100, 2);
	assert_string_equal(buf, "1");
	profile_count_text(buf, 7, 6);
	assert_string_equal(buf, "0.000007");
	profile_count_text(buf, UINT64_MAX, 6);
	assert_string_equal(buf, "18446744073709.551615");
	profile_count_text(buf, UINT64_MAX, 0);
	assert_string_equal(buf, "18446744073709551615");
	assert_true(profile_count_value(125, 2) == 1.25);
}

/* A diff of an integer profile and a fractional one is on one scale. */
static void test_diff_scales(void **state)
{
	struct profile oldp, newp;
	struct folded_stats st;
	struct profile_diff d;
	struct folded_opts fo = {0};
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(read_folded(&oldp, "a 1\nb 3\n", &st), 0);
	assert_int_equal(read_folded(&newp, "a 0.5\nc 1.25\n", &st), 0);
	assert_int_equal(profile_diff__build(&d, &newp, &oldp, &fo), 0);
	assert_int_equal(d.count_decimals, 2);
	assert_int_equal(oldp.count_decimals, 2);
	f = open_memstream(&out, &len);
	assert_int_equal(profile_diff__write(&d, 1, f), 0);
	fclose(f);
	assert_string_equal(out, "a 1 0.5\nb 3 0\nc 0 1.25\n");
	free(out);
	profile_diff__release(&d);
	profile__release(&oldp);
	profile__release(&newp);
}

/* Rescaling refuses, and changes nothing, when the total would overflow. */
static void test_rescale_overflow(void **state)
{
	struct profile p;
	struct folded_stats st;

	(void)state;
	assert_int_equal(read_folded(&p, "a 1844674407370955162\n", &st), 0);
	assert_int_equal(profile__rescale(&p, 1), -EOVERFLOW);
	assert_int_equal(p.count_decimals, 0);
	assert_int_equal(p.total, 1844674407370955162ull);
	assert_int_equal(profile__rescale(&p, 0), 0);
	profile__release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fractions),
		cmocka_unit_test(test_late_fraction),
		cmocka_unit_test(test_integers_unchanged),
		cmocka_unit_test(test_too_many_decimals),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_not_counts),
		cmocka_unit_test(test_count_text),
		cmocka_unit_test(test_diff_scales),
		cmocka_unit_test(test_rescale_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
