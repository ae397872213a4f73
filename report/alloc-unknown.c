/* alloc-unknown.c: how many of a recording's allocation hits carry no size.
 * prof record stores -1 where HotSpot left hotspot:object__alloc's size
 * unset (HotSpot 17's interpreter and C1 paths, record/alloc-size.c);
 * --weight bytes weighs those hits 0, and says how many there were so that
 * a byte total is never read as complete when it is not. Linear in the
 * recording's ARGS records; never allocates. */
#include "report/report.h"

#include "lib/recording.h"

void alloc_unknown_sizes(const struct recording *r, int event, uint64_t *unknown, uint64_t *hits)
{
	*unknown = *hits = 0;
	for (size_t i = 0; i < r->nargs; i++) {
		const struct rec_args_ref *a = &r->args[i];

		if (a->sample >= r->nsamples || r->samples[a->sample].event != event || a->n < 2 ||
		    !(a->strmask & 1))
			continue;
		++*hits;
		if (r->argvals[a->first + 1] < 0)
			++*unknown;
	}
}
