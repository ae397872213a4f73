/* diff-frames.c: what a differential flamegraph adds to each frame (see
 * svg-internal.h and struct svg_diff in svg.h): its OLD and NEW counts, summed
 * over the lines through it and scaled; its color from the change, as
 * FlameGraph's difference coloring does (red for more in NEW, blue for
 * less, white for none, from a pale shade for a small change to full red
 * or blue for the largest change of the graph); and the words the tooltip
 * adds. The widths are the lines' own counts and need nothing here. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "svg/svg-internal.h"

#define PALE 210 /* the other channels of the palest red or blue */

static uint64_t scaled(uint64_t v, double scale)
{
	double s;

	if (scale == 1)
		return v;
	s = round((double)v * scale);
	return s >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)s;
}

static uint64_t change(const struct svg_diff_frames *df, uint32_t node)
{
	uint64_t o = df->old[node], n = df->new[node];

	return n > o ? n - o : o - n;
}

int svg_diff_frames__init(struct svg_diff_frames *df, const struct flame_tree *t,
			  const struct profile *p, const struct profile_line *lines, size_t nlines,
			  int reverse, const struct svg_diff *d)
{
	size_t i;
	int err;

	memset(df, 0, sizeof(*df));
	df->negate = d->negate;
	df->old = calloc(t->n ? t->n : 1, sizeof(*df->old));
	df->new = calloc(t->n ? t->n : 1, sizeof(*df->new));
	if (!df->old || !df->new) {
		svg_diff_frames__release(df);
		return -ENOMEM;
	}
	err = flame_tree__accumulate(t, p, lines, nlines, reverse, d->old, df->old);
	if (!err)
		err = flame_tree__accumulate(t, p, lines, nlines, reverse, d->new, df->new);
	if (err) {
		svg_diff_frames__release(df);
		return err;
	}
	for (i = 0; i < t->n; i++) {
		df->old[i] = scaled(df->old[i], d->old_scale);
		df->new[i] = scaled(df->new[i], d->new_scale);
		if (i && change(df, (uint32_t)i) > df->max_change)
			df->max_change = change(df, (uint32_t)i);
	}
	return 0;
}

void svg_diff_frames__release(struct svg_diff_frames *df)
{
	free(df->old);
	free(df->new);
	memset(df, 0, sizeof(*df));
}

uint64_t svg_diff_frames__count(const struct svg_diff_frames *df, uint32_t node)
{
	return df->negate ? df->old[node] : df->new[node];
}

int svg_diff_frames__vanished(const struct svg_diff_frames *df, uint32_t node)
{
	return node && !svg_diff_frames__count(df, node);
}

uint32_t svg_diff_frames__color(const struct svg_diff_frames *df, uint32_t node)
{
	uint64_t c = change(df, node);
	uint32_t v;

	if (!c || !df->max_change)
		return 0xffffff;
	if (c > df->max_change)
		c = df->max_change; /* the root's change may be larger */
	v = (uint32_t)((unsigned __int128)PALE * (df->max_change - c) / df->max_change);
	if (df->new[node] > df->old[node])
		return 0xff0000 | v << 8 | v;
	return v << 16 | v << 8 | 0xff;
}

int svg_diff_frames__describe(const struct svg_diff_frames *df, uint32_t node, struct svg_buf *b)
{
	uint64_t o = df->old[node], n = df->new[node];
	int err;

	err = svg_buf__put(b, "old ", 4);
	if (!err)
		err = svg_buf__count_scaled(b, o, df->decimals);
	if (!err)
		err = svg_buf__put(b, ", new ", 6);
	if (!err)
		err = svg_buf__count_scaled(b, n, df->decimals);
	if (!err)
		err = svg_buf__put(b, n >= o ? ", +" : ", -", 3);
	if (!err)
		err = svg_buf__count_scaled(b, n >= o ? n - o : o - n, df->decimals);
	if (err)
		return err;
	if (!o)
		return n ? svg_buf__put(b, ", not in OLD", 12) : 0;
	err = svg_buf__printf(b, ", %+.2f%%", ((double)n - (double)o) * 100 / (double)o);
	if (!err && !n)
		err = svg_buf__put(b, ", not in NEW", 12);
	return err;
}
