/* sample-skip.h: unbiased sampling of a stream of events (allocations,
 * probe hits) by a random skip, and the weights that turn the kept ones
 * back into estimates of the whole stream.
 *
 * By bytes (as tcmalloc's, Go's and JFR's heap samplers): the distance in
 * bytes from one sampled event to the next is drawn from an exponential
 * distribution of mean MEAN, so an event of SIZE bytes is kept with
 * probability p = 1 - exp(-SIZE/MEAN), independently of where it falls in
 * any periodic pattern; a kept event stands for 1/p events and SIZE/p bytes.
 * By count: the same with every event one unit long (a geometric skip of
 * mean N: p = 1 - exp(-1/N), about 1/N). No phase of a periodic workload is
 * favoured, unlike every Nth event. */
#ifndef PROF_SAMPLE_SKIP_H
#define PROF_SAMPLE_SKIP_H

#include <stdint.h>

struct sample_skip {
	uint64_t mean;  /* mean distance between kept events (bytes or events); 0 or 1: keep all */
	uint64_t left;  /* units to go before the next kept event */
	uint64_t rng;   /* the generator's state (splitmix64) */
};

/* Starts a sampler of the given mean distance; seed picks the sequence
 * (any value, 0 included). */
void sample_skip_init(struct sample_skip *s, uint64_t mean, uint64_t seed);

/* Consumes an event of `size` units (bytes, or 1 for counting). 1: keep
 * it, 0: skip it. */
int sample_skip_take(struct sample_skip *s, uint64_t size);

/* The next distance, in units, to the unit that holds the next sampling
 * point of a Poisson process of mean spacing s->mean (at least 1): e.g. a
 * kernel sample_period for a counting event, redrawn after each sample. */
uint64_t sample_skip_draw(struct sample_skip *s);

/* Probability that an event of `size` units is kept at mean distance
 * `mean` (1 when mean <= 1). */
double sample_skip_prob(uint64_t size, uint64_t mean);

/* The number of events, and of units, that one kept event of `size`
 * units stands for: 1/p and size/p. */
double sample_skip_count_weight(uint64_t size, uint64_t mean);
double sample_skip_size_weight(uint64_t size, uint64_t mean);

#endif
