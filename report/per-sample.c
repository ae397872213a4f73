/* per-sample.c: a profile with one entry per CPU sample of a recording,
 * in file order, nothing merged: for outputs that show each sample on its
 * own (`prof dump`'s threads, one sample per thread per snapshot), named
 * exactly as every other profile of the recording (builder.c). */
#include "report.h"

#include "report/builder.h"

int profile__from_recording_per_sample(struct profile *p, const struct recording *r,
				       const struct profile_build_opts *opts)
{
	struct profile_build_opts o = opts ? *opts : (struct profile_build_opts){0};
	struct builder b;
	int err;

	o.by = PROFILE_BY_THREAD;
	err = builder__init(&b, p, r, &o);
	for (size_t i = 0; i < r->nsamples && !err; i++) {
		const struct rec_sample_full *s = &r->samples[i];
		uint32_t tkey;

		if (!recording__event_is_cpu(r, s->event))
			continue;
		err = builder__sample_tkey(&b, s->tid, s->time, &tkey);
		if (!err)
			err = builder__add_entry(&b, (uint64_t)s->stack * 2 +
							 !!(s->flags & REC_SAMPLE_TRUNCATED),
						 0, tkey, 1);
	}
	builder__release(&b);
	return err;
}
