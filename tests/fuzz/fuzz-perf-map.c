/* fuzz-perf-map.c: libFuzzer target for the JIT map parser
 * (symbolize/perf-map.c): any bytes must parse or be skipped line by line,
 * never crash or leak; every lookup must return a name the map owns and an
 * offset inside the entry. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/perf-map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_map *m = perf_map__parse((const char *)data, size);
	volatile size_t sink = 0;
	size_t i;

	if (!m)
		return 0;
	/* Look up addresses made of the input's own bytes, and neighbours. */
	for (i = 0; i + 8 <= size && i < 64 * 8; i += 8) {
		uint64_t a, off;
		const char *name;

		memcpy(&a, data + i, 8);
		if (perf_map__lookup(m, a, &name, &off))
			sink += strlen(name) + (off < PERF_MAP_MAX_BYTES);
		if (perf_map__lookup(m, a & 0xffffff, &name, &off))
			sink += strlen(name);
	}
	sink += perf_map__count(m) + perf_map__skipped(m);
	perf_map__free(m);
	return 0;
}
