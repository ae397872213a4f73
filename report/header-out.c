/* header-out.c: `prof report --header` (header.h). */
#include "report/header.h"

#include <errno.h>
#include <inttypes.h>

#include "lib/text-clean.h"

static void put_pair(FILE *out, const char *key, const char *value)
{
	text_put(out, key ? key : "?");
	fputs(": ", out);
	text_put(out, value ? value : "");
	fputc('\n', out);
}

int recording__write_header(const struct recording *r, FILE *out)
{
	size_t i;

	fputs("# meta\n", out);
	for (i = 0; i < r->nmeta; i++)
		put_pair(out, r->meta[i].key, r->meta[i].value);
	fputs("# stats\n", out);
	for (i = 0; i < r->nstats; i++) {
		text_put(out, recording__str(r, r->stats[i].key));
		fprintf(out, ": %" PRIu64 "\n", r->stats[i].value);
	}
	return fflush(out) || ferror(out) ? -EIO : 0;
}
