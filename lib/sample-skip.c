/* sample-skip.c: the exponential skip of sample-skip.h and its weights. */
#include "lib/sample-skip.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t sample_skip_draw(struct sample_skip *s)
{
	/* u uniform in (0, 1]: 53 random bits, never 0 */
	double u = (double)((splitmix64(&s->rng) >> 11) + 1) / 9007199254740992.0;
	double d = -log(u) * (double)s->mean;

	/* the point falls in unit floor(d): it is reached after floor(d) + 1
	 * units (an event of SIZE units starting here holds it when d < SIZE) */
	if (d > 9e18)
		return (uint64_t)9e18;
	return (uint64_t)d + 1;
}

void sample_skip_init(struct sample_skip *s, uint64_t mean, uint64_t seed)
{
	s->mean = mean;
	s->rng = seed;
	s->left = mean > 1 ? sample_skip_draw(s) : 0;
}

int sample_skip_take(struct sample_skip *s, uint64_t size)
{
	if (s->mean <= 1)
		return 1;
	if (size < s->left) {
		s->left -= size;
		return 0;
	}
	/* kept; the next distance starts after this event (the part of it past
	 * the sampling point counts: memorylessness makes that a fresh draw) */
	s->left = sample_skip_draw(s);
	return 1;
}

double sample_skip_prob(uint64_t size, uint64_t mean)
{
	if (mean <= 1)
		return 1;
	return -expm1(-(double)size / (double)mean);
}

double sample_skip_count_weight(uint64_t size, uint64_t mean)
{
	double p = sample_skip_prob(size ? size : 1, mean);

	return p > 0 ? 1 / p : 0;
}

double sample_skip_size_weight(uint64_t size, uint64_t mean)
{
	return (double)size * sample_skip_count_weight(size, mean);
}
