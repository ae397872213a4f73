/* fuzz-report.c: libFuzzer target for everything prof report does with
 * untrusted input: folded text or a recording, built into a profile, filtered,
 * pool-merged, and written as folded text and a top table. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/recording.h"
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void outputs(struct profile *p)
{
	struct profile_top t;
	char *buf = NULL; size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct folded_opts o = {.thread_root = PROFILE_ROOT_NAME_TID};
	profile__write_folded(p, &o, f);
	if (!profile__top(p, &t)) { profile_top__write(p, &t, 5, f); profile_top__release(&t); }
	fclose(f); free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile p;
	struct profile_filter fl;
	char err[256];
	profile_filter__init(&fl, 1);
	profile_filter__add_regex(&fl, PROFILE_EXCLUDE, "^b", err, sizeof(err));
	profile_filter__add_regex(&fl, PROFILE_THREAD, "[0-9]", err, sizeof(err));
	if (recording_is_recording(data, size)) {
		struct recording r;
		unsigned char *copy = malloc(size ? size : 1);
		memcpy(copy, data, size);
		if (!recording__parse(&r, copy, size, err, sizeof(err))) {
			for (int k = 0; k < 7; k++) {
				/* by stack and by thread; CPU, off-CPU, wall; lines */
				struct profile_build_opts o = {.by = k & 1, .weight = (k >> 1) % 3,
							       .lines = k == 6};
				profile__init(&p);
				if (!profile__from_recording(&p, &r, &o)) {
					outputs(&p);
					profile__filter(&p, &fl);
					profile__merge_pools(&p);
					outputs(&p);
				}
				profile__release(&p);
			}
		}
		recording__release(&r);
	} else {
		struct folded_stats st;
		profile__init(&p);
		if (!profile__from_folded(&p, (const char *)data, size, &st)) {
			outputs(&p);
			profile__filter(&p, &fl);
			profile__merge_pools(&p);
			outputs(&p);
		}
		profile__release(&p);
	}
	profile_filter__release(&fl);
	return 0;
}
