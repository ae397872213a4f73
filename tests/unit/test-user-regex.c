/* test-user-regex.c: the guard every user regex goes through
 * (report/user-regex.c): which patterns repeat a repetition (refused, with
 * the reason and nothing compiled) and which only look like it (compiled
 * and matching as regcomp alone would). */
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "report/user-regex.h"

static void test_refused(void **state)
{
	static const char *const refused[] = {
		"a++", "a*+", "a?+", "a{2}+", "a+{2}", "(a*)+", "(a+){2,3}", "((a)+)+",
		"(x|a*)+", "x(a(b+)c)+", "n++++++++++++++++++++++++++++++++++++++++",
	};
	char msg[512];
	regex_t re;

	(void)state;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_int_equal(user_regex__repeats_repetition(refused[i]), 1);
		msg[0] = '\0';
		assert_int_equal(user_regcomp(&re, refused[i], REG_EXTENDED | REG_NOSUB, msg,
					      sizeof(msg)),
				 REG_BADRPT);
		assert_string_equal(msg, USER_REGEX_REPEATED_REPETITION);
	}
	/* no buffer: still refused */
	assert_int_equal(user_regcomp(&re, "a++", REG_EXTENDED, NULL, 0), REG_BADRPT);
}

static void test_allowed(void **state)
{
	/* PATTERN, a name it matches, one it does not */
	static const char *const allowed[][3] = {
		{ "a+", "xaay", "xy" },
		{ "(ab)+", "abab", "ba" },
		{ "a+b+", "aabb", "ba" },
		{ "(a+)*", "", NULL },
		{ "a+?", "b", NULL }, /* (a+)?: matches the empty string */
		{ "a\\++", "a+++", "aa" },
		{ "[+]+", "x+", "x" },
		{ "[]+]+", "]", "x" },
		{ "\\(a\\)+", "(a))", "(a" },
	};
	char msg[512];
	regex_t re;

	(void)state;
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		const char *pattern = allowed[i][0];

		assert_int_equal(user_regex__repeats_repetition(pattern), 0);
		assert_int_equal(user_regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB, msg,
					      sizeof(msg)),
				 0);
		assert_int_equal(regexec(&re, allowed[i][1], 0, NULL, 0), 0);
		if (allowed[i][2])
			if (!regexec(&re, allowed[i][2], 0, NULL, 0))
				fail_msg("%s matches %s", pattern, allowed[i][2]);
		regfree(&re);
	}
}

static void test_regcomp_errors(void **state)
{
	char msg[512] = "";
	regex_t re;

	(void)state;
	assert_int_not_equal(user_regcomp(&re, "(unclosed", REG_EXTENDED, msg, sizeof(msg)), 0);
	assert_true(strlen(msg) > 0);
	assert_string_not_equal(msg, USER_REGEX_REPEATED_REPETITION);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_allowed),
		cmocka_unit_test(test_regcomp_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
