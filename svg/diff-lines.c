/* diff-lines.c: a diff of two profiles (report/diff.h) turned into what
 * svg__write() draws as a differential flamegraph (see svg.h): the lines
 * with their widths, and each line's OLD and NEW counts.
 *
 * Widths come from one side, NEW (OLD with --negate), exactly. A line that
 * is 0 on that side (its stack vanished, or, with --negate, is new) would
 * be invisible, as in FlameGraph; it is drawn as wide as its count on the
 * other side, scaled to the first side's total, so it keeps the width it
 * had (and its callers widen by as much). The writer marks such frames. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/diff.h"
#include "svg/svg.h"

int svg_diff__lines(const struct profile_diff *d, int raw, int negate, struct svg_diff *sd,
		    struct profile_line **lines, size_t *nlines)
{
	size_t i, n = d->nlines ? d->nlines : 1;
	uint64_t from = negate ? d->old_total : d->new_total;
	uint64_t other = negate ? d->new_total : d->old_total;
	double scale = raw || !from || !other ? 1 : (double)from / (double)other;

	memset(sd, 0, sizeof(*sd));
	sd->negate = negate;
	sd->old_scale = negate ? 1 : scale;
	sd->new_scale = negate ? scale : 1;
	*lines = malloc(n * sizeof(**lines));
	sd->old = malloc(n * sizeof(*sd->old));
	sd->new = malloc(n * sizeof(*sd->new));
	if (!*lines || !sd->old || !sd->new) {
		free(*lines);
		*lines = NULL;
		svg_diff__release(sd);
		return -ENOMEM;
	}
	for (i = 0; i < d->nlines; i++) {
		const struct diff_line *l = &d->lines[i];
		uint64_t mine = negate ? l->old : l->new, theirs = negate ? l->new : l->old;
		struct profile_line *pl = &(*lines)[i];

		pl->root = l->root;
		pl->stack = l->stack;
		pl->count = mine;
		if (!mine && theirs) {
			double w = round((double)theirs * scale);

			pl->count = w < 1 ? 1 : w >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)w;
		}
		sd->old[i] = l->old;
		sd->new[i] = l->new;
	}
	*nlines = d->nlines;
	return 0;
}

void svg_diff__release(struct svg_diff *sd)
{
	free(sd->old);
	free(sd->new);
	sd->old = sd->new = NULL;
}
