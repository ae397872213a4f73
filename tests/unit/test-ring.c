/* test-ring.c: ring sizing (record/ring.c ring__pages_for): the rings of
 * prof record hold a fixed time of samples at the rate asked for, within
 * a floor (the old defaults) and a ceiling. End to end, the -m text of
 * docs/prof-record.md gives the sizes these make. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "record/ring.h"

#define PAGE 4096

static void test_floor(void **state)
{
	(void)state;
	/* frame pointers at 99 Hz: ~1 KiB a sample, far below 1 MiB */
	assert_int_equal(ring__pages_for(99 * 1100, 250, PAGE, 256, 16384), 256);
	assert_int_equal(ring__pages_for(0, 250, PAGE, 256, 16384), 256);
}

static void test_grows_by_powers_of_two(void **state)
{
	(void)state;
	/* dwarf copies of 32 KiB at 999 Hz: 8.5 MB in 250 ms -> 16 MiB */
	assert_int_equal(ring__pages_for(999ULL * 34000, 250, PAGE, 1024, 16384), 4096);
	/* exactly 4 MiB in 250 ms fits 1024 pages */
	assert_int_equal(ring__pages_for(16ULL * 1024 * 1024, 250, PAGE, 256, 16384), 1024);
	assert_int_equal(ring__pages_for(16ULL * 1024 * 1024 + 4, 250, PAGE, 256, 16384), 2048);
}

static void test_ceiling(void **state)
{
	(void)state;
	assert_int_equal(ring__pages_for(UINT64_MAX / 2000, 250, PAGE, 256, 16384), 16384);
	/* a ceiling that is not a power of two rounds down */
	assert_int_equal(ring__pages_for(UINT64_MAX / 2000, 250, PAGE, 256, 3000), 2048);
	/* never below the floor */
	assert_int_equal(ring__pages_for(UINT64_MAX / 2000, 250, PAGE, 1024, 100), 1024);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_floor),
		cmocka_unit_test(test_grows_by_powers_of_two),
		cmocka_unit_test(test_ceiling),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
