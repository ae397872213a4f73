/* diff-frames.c: what a differential flamegraph adds to each frame (see
 * svg-internal.h and struct svg_diff in svg.h): its OLD and NEW counts, summed
 * over the lines through it and scaled; its color from the change, as
 * FlameGraph's difference coloring does (red for more in NEW, blue for
 * less, white for none, from a pale shade for a small change to full red
 * or blue for the largest change of the graph), by default from the
 * frame's self change as flamegraph.pl does (so the deepest color is on
 * the function that changed, not on all its callers), or from its
 * inclusive change; and the words the tooltip adds. The widths are the lines' own counts and need nothing here. */
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

/* The counts colored: self, or inclusive. */
static uint64_t colored_old(const struct svg_diff_frames *df, uint32_t node)
{
	return df->old_self ? df->old_self[node] : df->old[node];
}

static uint64_t colored_new(const struct svg_diff_frames *df, uint32_t node)
{
	return df->new_self ? df->new_self[node] : df->new[node];
}

static uint64_t change(const struct svg_diff_frames *df, uint32_t node)
{
	uint64_t o = colored_old(df, node), n = colored_new(df, node);

	return n > o ? n - o : o - n;
}

/* self[i] = v[i] minus v of i's children. Scaled counts are rounded per
 * node, so a child may exceed its parent by a rounding: clamp at 0. */
static uint64_t *self_counts(const struct flame_tree *t, const uint64_t *v)
{
	uint64_t *self = malloc((t->n ? t->n : 1) * sizeof(*self));
	size_t i;

	if (!self)
		return NULL;
	memcpy(self, v, t->n * sizeof(*self));
	for (i = 1; i < t->n; i++) {
		uint32_t up = t->nodes[i].parent;

		self[up] = self[up] > v[i] ? self[up] - v[i] : 0;
	}
	return self;
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
	}
	if (!d->inclusive) {
		df->old_self = self_counts(t, df->old);
		df->new_self = self_counts(t, df->new);
		if (!df->old_self || !df->new_self) {
			svg_diff_frames__release(df);
			return -ENOMEM;
		}
	}
	for (i = 1; i < t->n; i++)
		if (change(df, (uint32_t)i) > df->max_change)
			df->max_change = change(df, (uint32_t)i);
	return 0;
}

void svg_diff_frames__release(struct svg_diff_frames *df)
{
	free(df->old);
	free(df->new);
	free(df->old_self);
	free(df->new_self);
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
	if (colored_new(df, node) > colored_old(df, node))
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
