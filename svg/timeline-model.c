/* timeline-model.c: what `prof svg --timeline` draws, aggregated from a
 * profile built with time cells (report.h: profile.cells): the heatmap
 * (samples per column of a second and row of a fraction of it), the merged
 * tree of every stack (frames in depth-first order, their names once
 * each), and per group of cells the frames whose stacks ended there with
 * their counts, from which the page's script sums any range's flamegraph.
 * No sample is emitted one by one: the page's size is bounded by the caps
 * in svg-internal.h (TL_MAX_*): cells, frames (deepest rows cut past
 * them, their samples counted in the frame below), and (frame, count)
 * pairs, kept under TL_MAX_PAIRS by widening the groups (one cell, then
 * whole seconds, minutes, ...: the flamegraph of a range is then that of
 * the whole groups it touches, and the page says so).
 *
 * Work: one pass over the entries for their lines, a hash per distinct
 * (thread root, stack), one counting sort of the entries by cell (12
 * bytes an entry), a pass per group width tried, and one to encode. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/keymap.h"
#include "svg/svg-internal.h"

/* Rows per column, most first; each divides TL_FINE_PER_SEC. */
static const uint32_t row_ladder[] = {50, 25, 20, 10, 5, 4, 2, 1};
/* Group widths tried, in seconds, after one cell. */
static const uint32_t group_secs[] = {1, 2, 5, 10, 30, 60, 300, 600, 1800, 3600, 21600, 86400};

/* An entry's contribution, sorted by cell. */
struct tl_item {
	uint32_t frame;
	uint32_t count; /* a run within one fine cell: a few samples */
};

static uint32_t pick_rows(uint32_t seconds, double hz)
{
	uint32_t want = TL_MAX_ROWS;
	size_t i;

	if (hz >= 1 && hz < want)
		want = (uint32_t)hz;
	for (i = 0; i < sizeof(row_ladder) / sizeof(row_ladder[0]); i++)
		if (row_ladder[i] <= want && (uint64_t)seconds * row_ladder[i] <= TL_MAX_CELLS)
			return row_ladder[i];
	return 1;
}

/* Distinct (root, stack) of the lines: ulines (counts summed), and per
 * line its index in them. 0 or -ENOMEM. */
static int unique_lines(const struct profile_line *lines, size_t n, struct profile_line **ulines,
			size_t *nu, uint32_t *lu)
{
	struct keymap seen;
	size_t cap = 0, i;
	int err = -ENOMEM;

	*ulines = NULL;
	*nu = 0;
	if (keymap__init(&seen, 1024))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		uint32_t u;
		int r = keymap__put(&seen, lines[i].root, lines[i].stack, (uint32_t)*nu, &u);

		if (r < 0)
			goto out;
		if (r) {
			if (GROW(*ulines, cap, *nu + 1))
				goto out;
			u = (uint32_t)(*nu)++;
			(*ulines)[u] = (struct profile_line){lines[i].root, lines[i].stack, 0};
		}
		(*ulines)[u].count += lines[i].count;
		lu[i] = u;
	}
	err = 0;
out:
	keymap__release(&seen);
	return err;
}

/* A name and its frames, to sort. */
struct name_use {
	uint32_t uses, id;
};

static int cmp_uses(const void *a, const void *b)
{
	const struct name_use *x = a, *y = b;

	if (x->uses != y->uses)
		return x->uses > y->uses ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The frames' names, most used first (short VLQ line numbers), and the
 * frames' stream: per frame after the root, UP (levels from the previous
 * frame's child) and its name's line. 0 or -ENOMEM. */
static int encode_frames(struct tl_model *m, const struct profile *p)
{
	size_t nnames = p->names.count, i, k = 0;
	uint32_t *uses = calloc(nnames ? nnames : 1, sizeof(*uses));
	uint32_t *line = NULL;
	struct name_use *order = NULL;
	int err = -ENOMEM;

	if (!uses)
		return -ENOMEM;
	for (i = 1; i < m->nframes; i++)
		uses[m->tree.nodes[m->frames[i].node].name]++;
	m->names.names = malloc((nnames ? nnames : 1) * sizeof(*m->names.names));
	line = malloc((nnames ? nnames : 1) * sizeof(*line));
	order = malloc((nnames ? nnames : 1) * sizeof(*order));
	if (!m->names.names || !line || !order)
		goto out;
	for (i = 0; i < nnames; i++)
		if (uses[i])
			order[k++] = (struct name_use){uses[i], (uint32_t)i};
	/* most used first; ties by id, so the page is the same every time */
	qsort(order, k, sizeof(*order), cmp_uses);
	for (i = 0; i < k; i++)
		m->names.names[i] = order[i].id;
	m->names.nnames = k;
	for (i = 0; i < k; i++)
		line[m->names.names[i]] = (uint32_t)i;
	for (i = 1; i < m->nframes; i++) {
		uint32_t up = m->frames[i - 1].depth + 1 - m->frames[i].depth;

		if (svg_buf__vlq(&m->frames_vlq, up) ||
		    svg_buf__vlq(&m->frames_vlq, line[m->tree.nodes[m->frames[i].node].name]))
			goto out;
	}
	err = 0;
out:
	free(uses);
	free(line);
	free(order);
	return err;
}

/* Pairs (group, frame) with `group` cells a group, counted up to `limit`. */
static size_t count_pairs(const struct tl_item *items, const uint32_t *start, uint32_t ncells,
			  uint32_t group, uint32_t *last, size_t nframes, size_t limit)
{
	size_t pairs = 0;
	uint32_t c;

	memset(last, 0, nframes * sizeof(*last));
	for (c = 0; c < ncells && pairs <= limit; c++) {
		uint32_t g = c / group + 1, i;

		for (i = start[c]; i < start[c + 1]; i++)
			if (last[items[i].frame] != g) {
				last[items[i].frame] = g;
				pairs++;
			}
	}
	return pairs;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Per group: its number of pairs, then each pair's frame (minus the
 * previous pair's, from 0) and count. 0 or -ENOMEM. */
static int encode_groups(struct tl_model *m, const struct tl_item *items, const uint32_t *start,
			 uint32_t ncells)
{
	uint64_t *acc = calloc(m->nframes, sizeof(*acc));
	uint32_t *touched = malloc(m->nframes * sizeof(*touched));
	uint32_t g;
	int err = -ENOMEM;

	if (!acc || !touched)
		goto out;
	for (g = 0; g < m->ngroups; g++) {
		uint32_t c0 = g * m->group, c1 = c0 + m->group, c, i, prev = 0;
		size_t nt = 0, k;

		if (c1 > ncells || c1 < c0)
			c1 = ncells;
		for (c = c0; c < c1; c++)
			for (i = start[c]; i < start[c + 1]; i++) {
				if (!acc[items[i].frame])
					touched[nt++] = items[i].frame;
				acc[items[i].frame] += items[i].count;
			}
		qsort(touched, nt, sizeof(*touched), cmp_u32);
		if (svg_buf__vlq(&m->groups_vlq, nt))
			goto out;
		for (k = 0; k < nt; k++) {
			if (svg_buf__vlq(&m->groups_vlq, touched[k] - prev) ||
			    svg_buf__vlq(&m->groups_vlq, acc[touched[k]]))
				goto out;
			prev = touched[k];
			acc[touched[k]] = 0;
		}
		m->npairs += nt;
	}
	err = 0;
out:
	free(acc);
	free(touched);
	return err;
}

/* The group width: the narrowest whose pairs fit TL_MAX_PAIRS (one group
 * of everything always does: its pairs are at most the frames). */
static int pick_group(struct tl_model *m, const struct tl_item *items, const uint32_t *start,
		      uint32_t ncells)
{
	uint32_t *last = malloc(m->nframes * sizeof(*last));
	size_t i;

	if (!last)
		return -ENOMEM;
	m->group = 1;
	if (count_pairs(items, start, ncells, 1, last, m->nframes, TL_MAX_PAIRS) > TL_MAX_PAIRS) {
		m->group = ncells;
		for (i = 0; i < sizeof(group_secs) / sizeof(group_secs[0]); i++) {
			uint64_t g = (uint64_t)group_secs[i] * m->rows;

			if (g >= ncells)
				break;
			if (count_pairs(items, start, ncells, (uint32_t)g, last, m->nframes,
					TL_MAX_PAIRS) <= TL_MAX_PAIRS) {
				m->group = (uint32_t)g;
				break;
			}
		}
	}
	free(last);
	m->ngroups = (ncells + m->group - 1) / m->group;
	return 0;
}

/* The tree of the distinct lines, laid out whole (every frame with a
 * sample) up to the caps; per distinct line, its frame (the deepest of
 * its path kept). 0 or -ENOMEM. */
static int build_tree(struct tl_model *m, const struct profile *p,
		      const struct profile_line *ulines, size_t nu, uint32_t *uframe)
{
	uint32_t *frame_of = NULL, depth;
	size_t i;
	int err;

	err = flame_tree__build(&m->tree, p, ulines, nu, 0);
	if (!err)
		err = flame_tree__order(&m->tree, p, SVG_SORT_ALPHA);
	if (!err)
		err = flame_tree__layout(&m->tree, 0, FLAME_MAX_ROWS, TL_MAX_FRAMES, &m->frames,
					 &m->nframes, &depth, &m->cut);
	if (err)
		return err;
	frame_of = malloc(m->tree.n * sizeof(*frame_of));
	if (!frame_of)
		return -ENOMEM;
	memset(frame_of, 0xff, m->tree.n * sizeof(*frame_of));
	for (i = 0; i < m->nframes; i++)
		frame_of[m->frames[i].node] = (uint32_t)i;
	for (i = 0; i < nu && !err; i++) {
		uint32_t node;

		err = flame_tree__leaf(&m->tree, p, &ulines[i], &node);
		while (!err && frame_of[node] == FLAME_NONE)
			node = m->tree.nodes[node].parent;
		if (!err)
			uframe[i] = frame_of[node];
	}
	free(frame_of);
	return err;
}

/* The entries' items by cell (a counting sort), the heatmap's counts. */
static int sort_items(struct tl_model *m, const struct profile *p, const uint32_t *lu,
		      const uint32_t *uframe, struct tl_item **items, uint32_t **start)
{
	uint32_t ncells = m->columns * m->rows, factor = TL_FINE_PER_SEC / m->rows;
	size_t i, j, n = 0;

	*items = NULL;
	*start = calloc((size_t)ncells + 1, sizeof(**start));
	m->counts = calloc(ncells, sizeof(*m->counts));
	if (!*start || !m->counts)
		return -ENOMEM;
	for (i = 0; i < p->nentries; i++)
		if (p->entries[i].count) {
			uint32_t c = p->cells[i] / factor;

			if (c >= ncells) /* cannot be: cells < ncells */
				return -EINVAL;
			(*start)[c + 1]++;
			n++;
		}
	for (i = 0; i < ncells; i++)
		(*start)[i + 1] += (*start)[i];
	*items = malloc((n ? n : 1) * sizeof(**items));
	if (!*items)
		return -ENOMEM;
	for (i = 0, j = 0; i < p->nentries; i++) {
		const struct profile_entry *e = &p->entries[i];
		uint32_t c;

		if (!e->count)
			continue;
		c = p->cells[i] / factor;
		(*items)[(*start)[c]++] = (struct tl_item){
		    uframe[lu[j++]], e->count > UINT32_MAX ? UINT32_MAX : (uint32_t)e->count};
		m->counts[c] += e->count;
		m->total += e->count;
		if (m->counts[c] > m->max)
			m->max = m->counts[c];
	}
	/* start[c] is now the end of cell c: shift back */
	memmove(*start + 1, *start, ncells * sizeof(**start));
	(*start)[0] = 0;
	return 0;
}

int tl_model__build(struct tl_model *m, struct profile *p, enum profile_thread_root roots,
		    double hz)
{
	struct folded_opts fo = {.thread_root = roots, .any_order = 1};
	struct profile_line *lines = NULL, *ulines = NULL;
	struct tl_item *items = NULL;
	uint32_t *lu = NULL, *uframe = NULL, *start = NULL;
	size_t nlines = 0, nu = 0;
	uint64_t seconds;
	int err;

	memset(m, 0, sizeof(*m));
	if (!p->cells || !p->total)
		return -EINVAL;
	seconds = ((uint64_t)p->ncells + TL_FINE_PER_SEC - 1) / TL_FINE_PER_SEC;
	if (!seconds)
		seconds = 1;
	if (seconds > TL_MAX_CELLS)
		return -E2BIG;
	m->columns = (uint32_t)seconds;
	m->origin_ns = p->cells_origin;
	m->rows = pick_rows(m->columns, hz);
	m->cell_ms = 1000 / m->rows;
	err = profile__lines(p, &fo, &lines, &nlines);
	if (err)
		goto out;
	err = -ENOMEM;
	lu = malloc((nlines ? nlines : 1) * sizeof(*lu));
	if (!lu)
		goto out;
	err = unique_lines(lines, nlines, &ulines, &nu, lu);
	free(lines);
	lines = NULL;
	if (err)
		goto out;
	err = -ENOMEM;
	uframe = malloc((nu ? nu : 1) * sizeof(*uframe));
	if (!uframe)
		goto out;
	err = build_tree(m, p, ulines, nu, uframe);
	if (!err)
		err = sort_items(m, p, lu, uframe, &items, &start);
	if (!err)
		err = encode_frames(m, p);
	if (!err)
		err = pick_group(m, items, start, m->columns * m->rows);
	if (!err)
		err = encode_groups(m, items, start, m->columns * m->rows);
out:
	free(lines);
	free(ulines);
	free(lu);
	free(uframe);
	free(items);
	free(start);
	return err;
}

void tl_model__release(struct tl_model *m)
{
	flame_tree__release(&m->tree);
	free(m->frames);
	free(m->counts);
	free(m->names.names);
	free(m->frames_vlq.s);
	free(m->groups_vlq.s);
	memset(m, 0, sizeof(*m));
}
