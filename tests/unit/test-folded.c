/* test-folded.c: reading and writing folded stacks (report/folded.c): good
 * lines, names with spaces and odd bytes, malformed lines, huge counts,
 * bytewise sorting and merging (by name ranks, and by the names' text when
 * there are far more names than stacks), lines in any order (for svg),
 * pool merging of root frames, the limit on frames a line. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/report.h"

/* Reads `in` as folded text and returns what the writer makes of it
 * (malloc'ed); *st gets the reader's statistics. */
static char *roundtrip(const char *in, struct folded_stats *st, int merge_pools)
{
	struct profile p;
	struct folded_stats dummy;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(profile__init(&p), 0);
	assert_int_equal(profile__from_folded(&p, in, strlen(in), st ? st : &dummy), 0);
	if (merge_pools)
		assert_int_equal(profile__merge_pools(&p), 0);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(profile__write_folded(&p, NULL, f), 0);
	fclose(f);
	profile__release(&p);
	return out;
}

static void check(const char *in, const char *want)
{
	char *out = roundtrip(in, NULL, 0);

	assert_string_equal(out, want);
	free(out);
}

static void test_good_lines(void **state)
{
	struct folded_stats st;
	char *out;

	(void)state;
	out = roundtrip("main;foo;bar 3\nmain;foo 2\r\n\nmain;foo;bar 4\n", &st, 0);
	assert_string_equal(out, "main;foo 2\nmain;foo;bar 7\n");
	assert_int_equal(st.lines, 3);
	assert_int_equal(st.malformed, 0);
	assert_int_equal(st.first_malformed, 0);
	free(out);
	/* No trailing newline; a single frame. */
	check("solo 1", "solo 1\n");
	/* Empty input: nothing. */
	check("", "");
	check("\n\n", "");
}

static void test_names_with_spaces(void **state)
{
	(void)state;
	/* The count is after the last space; names keep theirs. */
	check("main;operator new(unsigned long);std::vector<int, std::allocator<int> >::push_back 5\n"
	      "func [module]_[k];x y  2\n",
	      "func [module]_[k];x y  2\n"
	      "main;operator new(unsigned long);std::vector<int, std::allocator<int> >::push_back 5\n");
	/* A tab before the count works too; tabs inside names become '?'. */
	check("a\tb;c\t4\n", "a?b;c 4\n");
	/* Control characters and DEL are made safe; UTF-8 is kept. */
	check("caf\xc3\xa9;x\x01y\x7f 1\n", "caf\xc3\xa9;x?y? 1\n");
}

static void test_malformed(void **state)
{
	struct folded_stats st;
	char *out;

	(void)state;
	out = roundtrip("good;one 1\n"
			"nocount\n"           /* 2: no count */
			"a;b x\n"             /* 3: not a number */
			"a;;b 3\n"            /* 4: empty frame */
			";a 3\n"              /* 5: empty root */
			"a; 3\n"              /* 6: empty leaf */
			" 5\n"                /* 7: no stack */
			"a;b -1\n"            /* 8: sign */
			"a;b 1.5e0\n"         /* 9: exponent (fractions: test-folded-fractions.c) */
			"a;b 2 \n"            /* 10: trailing space */
			"\n"                  /* 11: empty: ignored */
			"zero;count 0\n"      /* 12: fine, adds nothing */
			"good;one 2\n",
			&st, 0);
	assert_string_equal(out, "good;one 3\n");
	assert_int_equal(st.lines, 12);
	assert_int_equal(st.malformed, 9);
	assert_int_equal(st.first_malformed, 2);
	free(out);

	out = roundtrip("garbage\x01\x02\nmore garbage\n", &st, 0);
	assert_string_equal(out, "");
	assert_int_equal(st.lines, 2);
	assert_int_equal(st.malformed, 2);
	assert_int_equal(st.first_malformed, 1);
	free(out);
}

static void test_huge_counts(void **state)
{
	struct folded_stats st;
	char *out;

	(void)state;
	check("a 18446744073709551615\n", "a 18446744073709551615\n");
	check("a 0000000000000000000000000007\n", "a 7\n");
	/* A sum past 2^64 - 1 is an error (test-folded-fractions.c), never
	 * a wrap or a saturation. */
	/* One more than 2^64 - 1 does not fit: malformed. */
	out = roundtrip("a 18446744073709551616\nb 1\n", &st, 0);
	assert_string_equal(out, "b 1\n");
	assert_int_equal(st.malformed, 1);
	assert_int_equal(st.first_malformed, 1);
	free(out);
}

static void test_sort_order(void **state)
{
	(void)state;
	/* The order of LC_ALL=C sort on the same lines. */
	check("a b;x 1\na;x 1\na 1\nA 1\n\xc3\xa9 1\na b 1\n_a 1\n[x 1\nz;a 1\nz 1\n",
	      "A 1\n[x 1\n_a 1\na 1\na b 1\na b;x 1\na;x 1\nz 1\nz;a 1\n\xc3\xa9 1\n");
	/* Prefixes: a name that is a prefix of another at the leaf and inside. */
	check("ab;c 1\na;c 1\na 1\nab 1\na;cd 1\na;c;d 1\n",
	      "a 1\na;c 1\na;c;d 1\na;cd 1\nab 1\nab;c 1\n");
}

/* check() with 500 unused names interned first: far more names than
 * stacks, so the writer compares names by their text, not by a rank. */
static void check_many_names(const char *in, const char *want)
{
	struct profile p;
	struct folded_stats st;
	char *out = NULL, name[16];
	size_t len = 0;
	uint32_t id;
	FILE *f;
	int i;

	assert_int_equal(profile__init(&p), 0);
	for (i = 0; i < 500; i++) {
		snprintf(name, sizeof(name), "unused%d", i);
		assert_int_equal(profile__intern(&p, name, strlen(name), &id), 0);
	}
	assert_int_equal(profile__from_folded(&p, in, strlen(in), &st), 0);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(profile__write_folded(&p, NULL, f), 0);
	fclose(f);
	assert_string_equal(out, want);
	free(out);
	profile__release(&p);
}

static void test_sort_order_by_text(void **state)
{
	(void)state;
	check_many_names("a b;x 1\na;x 1\na 1\nA 1\n\xc3\xa9 1\na b 1\n_a 1\n[x 1\nz;a 1\nz 1\n",
			 "A 1\n[x 1\n_a 1\na 1\na b 1\na b;x 1\na;x 1\nz 1\nz;a 1\n\xc3\xa9 1\n");
	check_many_names("ab;c 1\na;c 1\na 1\nab 1\na;cd 1\na;c;d 1\nq;ab;c 2\nq;abc;d 1\nq;ab 1\n",
			 "a 1\na;c 1\na;c;d 1\na;cd 1\nab 1\nab;c 1\nq;ab 1\nq;ab;c 2\nq;abc;d 1\n");
}

/* any_order: the entries as they are, neither merged nor sorted. */
static void test_any_order(void **state)
{
	const char *in = "b;c 1\na 2\nb;c 3\n";
	struct folded_opts fo = {.any_order = 1};
	struct profile p;
	struct folded_stats st;
	struct profile_line *lines;
	size_t n;

	(void)state;
	assert_int_equal(profile__init(&p), 0);
	assert_int_equal(profile__from_folded(&p, in, strlen(in), &st), 0);
	assert_int_equal(profile__lines(&p, &fo, &lines, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(lines[0].count, 1);
	assert_int_equal(lines[1].count, 2);
	assert_int_equal(lines[2].count, 3);
	assert_int_equal(p.stacks[lines[1].stack].depth, 1);
	free(lines);
	profile__release(&p);
}

static void test_merge_pools_root(void **state)
{
	char *out;

	(void)state;
	/* Folded input has no threads: the root frame is the thread name. */
	out = roundtrip("dw-12;work 1\ndw-13;work 2\ndw-1;idle 1\nlogger;write2 5\n", NULL, 1);
	assert_string_equal(out, "dw-*;idle 1\ndw-*;work 3\nlogger;write2 5\n");
	free(out);
}

static void test_merge_pool_name(void **state)
{
	struct {
		const char *in, *out;
	} cases[] = {
		{"dw-12", "dw-*"}, {"a1b22c333", "a*b*c*"}, {"123", "*"},
		{"", ""},          {"java", "java"},        {"C2 CompilerThre", "C* CompilerThre"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[64];
		size_t n = strlen(cases[i].in);

		memcpy(buf, cases[i].in, n);
		n = merge_pool_name(buf, n);
		buf[n] = '\0';
		assert_string_equal(buf, cases[i].out);
	}
}

/* A line of exactly PROFILE_MAX_DEPTH frames is read; one frame more is
 * refused (-E2BIG, with its line), whatever comes before it. */
static char *deep_line(size_t frames, const char *before)
{
	size_t pre = strlen(before), i;
	char *s = malloc(pre + frames * 2 + 8), *at;

	assert_non_null(s);
	memcpy(s, before, pre);
	at = s + pre;
	for (i = 0; i < frames; i++) {
		*at++ = i ? ';' : 'a';
		if (i)
			*at++ = 'a';
	}
	strcpy(at, " 3\n");
	return s;
}

static void test_depth_limit(void **state)
{
	struct profile p;
	struct folded_stats st;
	char *ok = deep_line(PROFILE_MAX_DEPTH, "x;y 1\n"), *bad = deep_line(PROFILE_MAX_DEPTH + 1, "x;y 1\n");

	(void)state;
	assert_int_equal(profile__init(&p), 0);
	assert_int_equal(profile__from_folded(&p, ok, strlen(ok), &st), 0);
	assert_int_equal(st.lines, 2);
	assert_int_equal(st.malformed, 0);
	assert_int_equal(p.total, 4);
	assert_int_equal(p.nstacks, 2);
	assert_int_equal(p.stacks[1].depth, PROFILE_MAX_DEPTH);
	profile__release(&p);

	assert_int_equal(profile__init(&p), 0);
	assert_int_equal(profile__from_folded(&p, bad, strlen(bad), &st), -E2BIG);
	assert_int_equal(st.bad_line, 2);
	profile__release(&p);
	free(ok);
	free(bad);

	/* a 26M-frame line is refused at its 16385th frame: the rest is
	 * never read (no scratch for 26M frames) */
	bad = deep_line(4 * PROFILE_MAX_DEPTH, "");
	assert_int_equal(profile__init(&p), 0);
	assert_int_equal(profile__from_folded(&p, bad, strlen(bad), &st), -E2BIG);
	assert_int_equal(st.bad_line, 1);
	profile__release(&p);
	free(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_lines),
		cmocka_unit_test(test_names_with_spaces),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_huge_counts),
		cmocka_unit_test(test_sort_order),
		cmocka_unit_test(test_sort_order_by_text),
		cmocka_unit_test(test_any_order),
		cmocka_unit_test(test_merge_pools_root),
		cmocka_unit_test(test_merge_pool_name),
		cmocka_unit_test(test_depth_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
