/* fuzz-perf-script.c: libFuzzer target for `perf script` text, which prof
 * report, svg and check auto-detect and read: detection, the collapser
 * with every root style and period weighting, and the writers that follow
 * it (folded, pprof, speedscope). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void outputs(struct profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct folded_opts fo = {.thread_root = PROFILE_ROOT_NAME};
	struct speedscope_opts so = {0};

	if (!f)
		return;
	profile__write_folded(p, &fo, f);
	profile__write_pprof(p, NULL, NULL, f);
	profile__write_speedscope(p, &so, f);
	fclose(f);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_script_opts o = {.root = size % 3, .period = (size >> 2) % 3};
	struct perf_script_stats st;
	struct profile p;

	perf_script_detect((const char *)data, size);
	if (profile__init(&p))
		return 0;
	if (!profile__from_perf_script(&p, (const char *)data, size, &o, &st))
		outputs(&p);
	profile__release(&p);
	return 0;
}
