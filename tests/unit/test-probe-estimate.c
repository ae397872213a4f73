/* test-probe-estimate.c: report/probe-estimate.c weighs each kept probe
 * hit to what it stands for: 1 in an older recording; N for an every-Nth
 * one; sample-skip's 1/p for --every and --every-bytes (an unknown size:
 * drawn as the mean size, its bytes left out); all scaled by the windows'
 * span over their attached time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>

#include <cmocka.h>

#include "lib/sample-skip.h"
#include "report/report.h"

static void weigh(const struct probe_estimate *e, int64_t size, double count, double bytes)
{
	double c, b;

	probe_estimate__weigh(e, size, &c, &b);
	if (fabs(c - count) > 1e-6 * count || fabs(b - bytes) > 1e-6 * (bytes + 1))
		fail_msg("size %lld: %.3f allocations %.3f bytes, expected %.3f %.3f",
			 (long long)size, c, b, count, bytes);
}

static void test_modes(void **state)
{
	struct probe_estimate e = {.mode = PROBE_EST_HITS, .every = 50, .scale = 1};

	(void)state;
	weigh(&e, 100, 1, 100); /* older recordings: a hit is a hit */
	e.mode = PROBE_EST_NTH;
	weigh(&e, 100, 50, 5000);
	e.mode = PROBE_EST_COUNT;
	weigh(&e, 100, 1 / -expm1(-1.0 / 50), 100 / -expm1(-1.0 / 50));
	weigh(&e, -1, 1 / -expm1(-1.0 / 50), 0); /* never a negative byte total */
	e = (struct probe_estimate){.mode = PROBE_EST_BYTES, .every_bytes = 524288,
				    .unknown_mean = 24, .scale = 1};
	weigh(&e, 1 << 20, sample_skip_count_weight(1 << 20, 524288),
	      sample_skip_size_weight(1 << 20, 524288));
	weigh(&e, -1, sample_skip_count_weight(24, 524288), 0);
	weigh(&e, 0, sample_skip_count_weight(1, 524288), 0);
}

static void test_scale_and_totals(void **state)
{
	struct probe_estimate e = {.mode = PROBE_EST_ALL, .scale = 100};

	(void)state;
	weigh(&e, 32, 100, 3200); /* windows 1% of the time */
	probe_estimate__add(&e, 32, 100, 3200);
	probe_estimate__add(&e, -1, 100, 0);
	assert_int_equal(e.samples, 2);
	assert_int_equal(e.unknown, 1);
	assert_true(fabs(e.count - 200) < 1e-9 && fabs(e.bytes - 3200) < 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_scale_and_totals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
