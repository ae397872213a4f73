/* fuzz-usdt.c: libFuzzer target for the USDT note readers
 * (symbolize/usdt-notes.c, usdt-args.c): any bytes as a stapsdt note
 * descriptor (64- and 32-bit), and as an argument spec, must parse or be
 * refused, never crash or read past the input; parsed arguments must be
 * well-formed and format back into text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/usdt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct usdt_arg *a, int n)
{
	char buf[96];

	for (int i = 0; i < n; i++) {
		if (a[i].size != 1 && a[i].size != 2 && a[i].size != 4 && a[i].size != 8)
			abort();
		if (a[i].kind == USDT_ARG_REG && a[i].reg >= USDT_NREGS)
			abort();
		usdt_arg_format(&a[i], buf, sizeof(buf));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct usdt_probe p;
	struct usdt_arg a[USDT_MAX_ARGS];
	char err[128];
	char *spec;
	int n;

	/* An exact-size copy, so ASan sees any read past the end. */
	unsigned char *copy = malloc(size ? size : 1);

	memcpy(copy, data, size);
	if (!usdt_parse_note_desc(copy, size, 8, &p))
		check(p.arg, p.nargs);
	if (!usdt_parse_note_desc(copy, size, 4, &p))
		check(p.arg, p.nargs);
	free(copy);
	spec = malloc(size + 1);
	memcpy(spec, data, size);
	spec[size] = '\0';
	if (!usdt_parse_args(spec, a, &n, err, sizeof(err)))
		check(a, n);
	free(spec);
	return 0;
}
