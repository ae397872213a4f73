/* test-cli.c: unit tests of the shared command-line parsers (lib/cli.h):
 * PID lists as users and pidof write them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli.h"

struct pid_list {
	pid_t *pids;
	size_t n, cap;
	char why[192];
};

static int parse(struct pid_list *l, const char *s)
{
	return cli_parse_pid_list(s, &l->pids, &l->n, &l->cap, l->why, sizeof(l->why));
}

static void expect_pids(const char *s, const pid_t *want, size_t nwant)
{
	struct pid_list l = {0};
	size_t i;

	assert_int_equal(parse(&l, s), 0);
	assert_int_equal(l.n, nwant);
	for (i = 0; i < nwant; i++)
		assert_int_equal(l.pids[i], want[i]);
	free(l.pids);
}

static void expect_error(const char *s, const char *why)
{
	struct pid_list l = {0};

	assert_int_equal(parse(&l, s), -EINVAL);
	assert_string_equal(l.why, why);
	free(l.pids);
}

static void test_pid_list_separators(void **state)
{
	static const pid_t one[] = {42}, three[] = {12, 34, 56}, four[] = {1, 2, 3, 4};

	(void)state;
	expect_pids("42", one, 1);
	expect_pids("12,34,56", three, 3);
	expect_pids("12 34 56", three, 3);      /* "$(pidof a b)" */
	expect_pids("12\t34\n56", three, 3);    /* tabs, newlines */
	expect_pids(" 12 , 34,56 ", three, 3);  /* blanks around commas */
	expect_pids("1,2 3\t4", four, 4);       /* mixed */
	expect_pids("12 12,34 56 34", three, 3); /* duplicates dropped */
}

static void test_pid_list_errors(void **state)
{
	(void)state;
	expect_error("", "empty PID list");
	expect_error(" \t ", "empty PID list");
	expect_error(",", "empty entry in PID list ','");
	expect_error("1,,2", "empty entry in PID list '1,,2'");
	expect_error("1, ,2", "empty entry in PID list '1, ,2'");
	expect_error("1,", "empty entry in PID list '1,'");
	expect_error(",1", "empty entry in PID list ',1'");
	expect_error("12 abc", "invalid PID 'abc' in list '12 abc'");
	expect_error("0", "invalid PID '0' in list '0'");
	expect_error("-5", "invalid PID '-5' in list '-5'");
	expect_error("12x", "invalid PID '12x' in list '12x'");
	expect_error("99999999999999999999999999", "invalid PID '99999999999999999999999999' in "
						  "list '99999999999999999999999999'");
	expect_error("2147483648", "invalid PID '2147483648' in list '2147483648'");
}

/* Two -p options add up; a PID in both is kept once. */
static void test_pid_list_appends(void **state)
{
	struct pid_list l = {0};

	(void)state;
	assert_int_equal(parse(&l, "7 8"), 0);
	assert_int_equal(parse(&l, "8,9"), 0);
	assert_int_equal(l.n, 3);
	assert_int_equal(l.pids[2], 9);
	assert_int_equal(parse(&l, "10,x"), -EINVAL); /* 10 stays: the command exits anyway */
	assert_int_equal(l.pids[0], 7);
	free(l.pids);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pid_list_separators),
		cmocka_unit_test(test_pid_list_errors),
		cmocka_unit_test(test_pid_list_appends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
