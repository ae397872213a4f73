/* count-scale.c: fractional counts kept exact (see report.h). Folded text
 * may carry counts such as "0.5" (flamegraph.pl sums them as floats); the
 * model's counts stay integers, in units of 10^-count_decimals, so sums,
 * merges and shares stay exact, and every writer of absolute counts prints
 * them back through profile_count_text(). Overflow is an error here, never
 * a wrap or a silent saturation. */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

uint64_t profile_count_scale(unsigned decimals)
{
	uint64_t s = 1;

	while (decimals--)
		s *= 10;
	return s;
}

int profile__rescale(struct profile *p, unsigned decimals)
{
	uint64_t f;
	size_t i;

	if (decimals <= p->count_decimals)
		return 0;
	f = profile_count_scale(decimals - p->count_decimals);
	/* Every entry is at most the total (which only saturates past 2^64,
	 * and then this fails): checking the total checks them all. */
	if (p->total > UINT64_MAX / f)
		return -EOVERFLOW;
	for (i = 0; i < p->nentries; i++)
		p->entries[i].count *= f;
	p->total *= f;
	p->count_decimals = decimals;
	return 0;
}

int profile__align_scales(struct profile *a, struct profile *b)
{
	int err = profile__rescale(a, b->count_decimals);

	return err ? err : profile__rescale(b, a->count_decimals);
}

size_t profile_count_text(char *buf, uint64_t v, unsigned decimals)
{
	uint64_t s = profile_count_scale(decimals), frac = v % s;
	int n = snprintf(buf, PROFILE_COUNT_TEXT, "%" PRIu64, v / s);

	if (frac) {
		n += snprintf(buf + n, PROFILE_COUNT_TEXT - (size_t)n, ".%0*" PRIu64, (int)decimals,
			      frac);
		while (buf[n - 1] == '0')
			buf[--n] = '\0';
	}
	return (size_t)n;
}

double profile_count_value(uint64_t v, unsigned decimals)
{
	uint64_t s = profile_count_scale(decimals);

	return (double)(v / s) + (double)(v % s) / (double)s;
}
