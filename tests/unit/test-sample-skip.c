/* test-sample-skip.c: lib/sample-skip.c keeps events without favouring a
 * phase of a periodic stream, and its weights turn the kept events back
 * into the stream's totals: a stream of 3 small events then 1 large one,
 * repeated, sampled by bytes and by count at means that divide the period
 * and that do not; estimates within a few percent of the truth. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>

#include <cmocka.h>

#include "lib/sample-skip.h"

/* Periodic stream: sizes[i % n], `total` events, sampled at `mean`;
 * estimated counts per phase against the truth (total / n each). */
static void check_periodic(const uint64_t *sizes, int n, uint64_t mean, long total, double tol)
{
	struct sample_skip s;
	double est_count[8] = {0}, est_bytes[8] = {0};
	long kept = 0;

	sample_skip_init(&s, mean, 42 + mean);
	for (long i = 0; i < total; i++) {
		uint64_t size = sizes[i % n];

		if (sample_skip_take(&s, size)) {
			est_count[i % n] += sample_skip_count_weight(size, mean);
			est_bytes[i % n] += sample_skip_size_weight(size, mean);
			kept++;
		}
	}
	assert_true(kept > 0);
	for (int k = 0; k < n; k++) {
		double truth = (double)total / n;

		if (fabs(est_count[k] - truth) > tol * truth)
			fail_msg("mean %llu phase %d: estimated %.0f events, truth %.0f (%ld kept)",
				 (unsigned long long)mean, k, est_count[k], truth, kept);
		if (fabs(est_bytes[k] - truth * (double)sizes[k]) > tol * truth * (double)sizes[k])
			fail_msg("mean %llu phase %d: estimated %.0f bytes, truth %.0f",
				 (unsigned long long)mean, k, est_bytes[k], truth * (double)sizes[k]);
	}
}

static void test_by_count_no_phase_favoured(void **state)
{
	static const uint64_t one[4] = {1, 1, 1, 1};

	(void)state;
	/* means that divide the period 4, and one that does not */
	check_periodic(one, 4, 4, 4000000, 0.03);
	check_periodic(one, 4, 8, 4000000, 0.03);
	check_periodic(one, 4, 50, 4000000, 0.05);
}

static void test_by_bytes_sizes_in_proportion(void **state)
{
	static const uint64_t mix[4] = {16, 16, 16, 4096};

	(void)state;
	check_periodic(mix, 4, 4096, 4000000, 0.05);
	check_periodic(mix, 4, 512, 4000000, 0.03);
}

static void test_keep_all(void **state)
{
	struct sample_skip s;

	(void)state;
	sample_skip_init(&s, 1, 7);
	for (int i = 0; i < 100; i++)
		assert_int_equal(sample_skip_take(&s, 1), 1);
	assert_true(sample_skip_count_weight(100, 0) == 1.0);
	assert_true(sample_skip_size_weight(100, 1) == 100.0);
}

static void test_large_event_always_kept(void **state)
{
	(void)state;
	/* a 1 MiB event at a 512 KiB mean: p = 1 - e^-2 */
	assert_true(fabs(sample_skip_prob(1 << 20, 512 << 10) - (1 - exp(-2.0))) < 1e-12);
	assert_true(sample_skip_size_weight(1 << 20, 512 << 10) > (1 << 20));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_by_count_no_phase_favoured),
		cmocka_unit_test(test_by_bytes_sizes_in_proportion),
		cmocka_unit_test(test_keep_all),
		cmocka_unit_test(test_large_event_always_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
