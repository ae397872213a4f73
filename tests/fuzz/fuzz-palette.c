/* fuzz-palette.c: libFuzzer target for the palette-file reader of prof svg
 * (--palette-file, flamegraph.pl's palette.map format): any bytes must load
 * or be rejected cleanly, and what loads must write back and read again,
 * and write the same file again (names holding "->" are not written, for
 * flamegraph.pl: fewer entries, never more). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg/svg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct svg_palette_map *m = svg_palette_map__new(), *again;
	size_t bad_line = 0;
	char *buf = NULL, *buf2 = NULL;
	size_t len = 0, len2 = 0;
	FILE *out;

	if (!m)
		return 0;
	if (svg_palette_map__read(m, (const char *)data, size, &bad_line) == 0) {
		out = open_memstream(&buf, &len);
		if (out) {
			svg_palette_map__write(m, out);
			fclose(out);
			again = svg_palette_map__new();
			if (again) {
				/* What we wrote must read back, and write the same. */
				if (svg_palette_map__read(again, buf, len, &bad_line) != 0 ||
				    svg_palette_map__count(again) > svg_palette_map__count(m))
					abort();
				out = open_memstream(&buf2, &len2);
				if (out) {
					svg_palette_map__write(again, out);
					fclose(out);
					if (len2 != len || memcmp(buf, buf2, len))
						abort();
					free(buf2);
				}
				svg_palette_map__free(again);
			}
			free(buf);
		}
	}
	svg_palette_map__free(m);
	return 0;
}
