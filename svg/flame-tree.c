/* flame-tree.c: folded lines merged into the tree a flamegraph draws (see
 * svg-internal.h). Every distinct path from the root is one 24-byte node in one
 * growable array; a child is found by an open-addressed hash of (parent,
 * name), so building costs one lookup per frame of every line and no
 * allocation per frame. Sorted lines share long prefixes, so the path of
 * the previous line is reused as far as the names agree, skipping most
 * lookups. Children are then grouped by a counting sort and each group
 * sorted; the layout walks the tree once, from the root, with an explicit
 * stack (stacks can be thousands of frames deep), and stops at a number of
 * rows and frames no real profile reaches (FLAME_MAX_ROWS). A flame chart
 * (flame_tree__build_chart) is the same tree without the merging: a frame
 * continues only the same frame of the line just before. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "svg/svg-internal.h"

static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Its own table, not lib/keymap: 4-byte slots pointing at the nodes, which
 * hold the key, where keymap's slots are 32 bytes (with keymap, `prof svg
 * --minwidth 0` of bench/svg-speed.sh's input took 102 MB, not 88 MB, and
 * no less time). */
static inline size_t slot_of(uint32_t parent, uint32_t name, size_t mask)
{
	uint64_t h = ((uint64_t)parent << 32 | name) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ h >> 29) & mask;
}

/* The slot of child `name` of `parent`, or the empty slot where it would
 * go. */
static size_t find_slot(const struct flame_tree *t, uint32_t parent, uint32_t name)
{
	size_t s = slot_of(parent, name, t->mask);

	for (; t->slots[s]; s = (s + 1) & t->mask) {
		const struct flame_node *nd = &t->nodes[t->slots[s] - 1];

		if (nd->parent == parent && nd->name == name)
			break;
	}
	return s;
}

/* Sizes the hash for `want` nodes at most 3/4 full and reinserts all. */
static int rehash(struct flame_tree *t, size_t want)
{
	size_t size = 1024, i;
	uint32_t *slots;

	while (size / 4 * 3 < want) {
		if (size > SIZE_MAX / 2 / sizeof(*slots))
			return -ENOMEM;
		size *= 2;
	}
	slots = calloc_populated(size, sizeof(*slots)); /* probed before written */
	if (!slots)
		return -ENOMEM;
	for (i = 1; i < t->n; i++) {
		size_t s = slot_of(t->nodes[i].parent, t->nodes[i].name, size - 1);

		while (slots[s])
			s = (s + 1) & (size - 1);
		slots[s] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->mask = size - 1;
	return 0;
}

/* A new node `name` under `parent`, not in the hash. 0 or -ENOMEM. */
static int append(struct flame_tree *t, uint32_t parent, uint32_t name, uint32_t *out)
{
	struct flame_node *nd;

	if (t->n >= UINT32_MAX - 1 || GROW(t->nodes, t->cap, t->n + 1))
		return -ENOMEM;
	nd = &t->nodes[t->n];
	memset(nd, 0, sizeof(*nd));
	nd->name = name;
	nd->parent = parent;
	*out = (uint32_t)t->n++;
	return 0;
}

/* The child `name` of `parent`, added when new. 0 or -ENOMEM. */
static int child(struct flame_tree *t, uint32_t parent, uint32_t name, uint32_t *out)
{
	size_t s = find_slot(t, parent, name);

	if (t->slots[s]) {
		*out = t->slots[s] - 1;
		return 0;
	}
	if (t->n + 1 > (t->mask + 1) / 4 * 3) {
		if (t->n >= UINT32_MAX - 1 || rehash(t, t->n + 1))
			return -ENOMEM;
		s = find_slot(t, parent, name);
	}
	if (append(t, parent, name, out))
		return -ENOMEM;
	t->slots[s] = *out + 1;
	return 0;
}

/* Appends the path names[0..m) below `parent`, a node that was just
 * added and so has no children: none of these nodes exists yet, so there
 * is nothing to look up, and as their ids follow each other the slots of
 * all are known at once and fetched together (with a million distinct
 * names each would be a cache miss, one after another). Each gets `count`;
 * path[] gets their ids. 0 or -ENOMEM. */
static int add_fresh(struct flame_tree *t, uint32_t parent, const uint32_t *names, size_t m,
		     uint32_t *path, uint64_t count)
{
	size_t first = t->n, j;

	if (!m)
		return 0;
	if (m >= UINT32_MAX - 1 - t->n || GROW(t->nodes, t->cap, t->n + m))
		return -ENOMEM;
	if (t->n + m > (t->mask + 1) / 4 * 3 && rehash(t, t->n + m))
		return -ENOMEM;
	for (j = 0; j < m; j++)
		__builtin_prefetch(&t->slots[slot_of(j ? (uint32_t)(first + j - 1) : parent,
						     names[j], t->mask)]);
	for (j = 0; j < m; j++) {
		uint32_t up = j ? (uint32_t)(first + j - 1) : parent;
		size_t s = slot_of(up, names[j], t->mask);

		while (t->slots[s])
			s = (s + 1) & t->mask;
		t->slots[s] = (uint32_t)(first + j) + 1;
		t->nodes[first + j] = (struct flame_node){.total = count, .name = names[j], .parent = up};
		path[j] = (uint32_t)(first + j);
	}
	t->n += m;
	return 0;
}

/* The names of a line's path from the root: its thread root, then its
 * stack; all of it reversed with `reverse`. *n gets the count. 0 or
 * -ENOMEM. */
static int line_names(const struct profile *p, const struct profile_line *l, int reverse,
		      uint32_t **names, size_t *cap, size_t *n)
{
	const uint32_t *fr = profile__stack_frames(p, l->stack);
	size_t depth = p->stacks[l->stack].depth, k;

	*n = 0;
	if (GROW(*names, *cap, depth + 1))
		return -ENOMEM;
	if (l->root)
		(*names)[(*n)++] = l->root;
	memcpy(*names + *n, fr, depth * sizeof(*fr));
	*n += depth;
	if (reverse) {
		for (k = 0; k < *n / 2; k++) {
			uint32_t tmp = (*names)[k];

			(*names)[k] = (*names)[*n - 1 - k];
			(*names)[*n - 1 - k] = tmp;
		}
	}
	return 0;
}

/* Both builds: `chart` makes a flame chart (no hash). */
static int build(struct flame_tree *t, const struct profile *p, const struct profile_line *lines,
		 size_t nlines, int reverse, int chart)
{
	uint32_t *names = NULL, *path = NULL; /* this line's names; the nodes of the last */
	size_t names_cap = 0, path_cap = 0, npath = 0, i, k;
	int err = -ENOMEM;

	memset(t, 0, sizeof(*t));
	/* Each name is on a node at least (with few names, many more): sized
	 * for them, a tree of distinct names is never rehashed. */
	if (GROW(t->nodes, t->cap, 1) || rehash(t, chart ? 1 : p->names.count))
		goto out;
	memset(&t->nodes[0], 0, sizeof(t->nodes[0]));
	t->nodes[0].parent = FLAME_NONE;
	t->n = 1;
	for (i = 0; i < nlines; i++) {
		const struct profile_line *l = &lines[i];
		size_t n, same;
		uint32_t cur = 0;

		if (line_names(p, l, reverse, &names, &names_cap, &n) ||
		    GROW(path, path_cap, n + 1))
			goto out;
		/* path[k] is the node of names[0..k] of the previous line. */
		for (same = 0; same < n && same < npath && t->nodes[path[same]].name == names[same];
		     same++)
			;
		t->nodes[0].total = sat_add(t->nodes[0].total, l->count);
		for (k = 0; k < n; k++) {
			size_t had = t->n;

			if (k < same) {
				cur = path[k];
			} else {
				err = chart ? append(t, cur, names[k], &cur)
					    : child(t, cur, names[k], &cur);
				if (err)
					goto out;
				err = -ENOMEM;
				path[k] = cur;
			}
			t->nodes[cur].total = sat_add(t->nodes[cur].total, l->count);
			if (!chart && t->n > had) { /* new: so is the rest of the path */
				if (add_fresh(t, cur, names + k + 1, n - k - 1, path + k + 1,
					      l->count))
					goto out;
				break;
			}
		}
		npath = n;
	}
	err = 0;
out:
	free(names);
	free(path);
	if (err)
		flame_tree__release(t);
	return err;
}

int flame_tree__build(struct flame_tree *t, const struct profile *p,
		      const struct profile_line *lines, size_t nlines, int reverse)
{
	return build(t, p, lines, nlines, reverse, 0);
}

int flame_tree__build_chart(struct flame_tree *t, const struct profile *p,
			    const struct profile_line *lines, size_t nlines, int reverse)
{
	return build(t, p, lines, nlines, reverse, 1);
}

int flame_tree__accumulate(const struct flame_tree *t, const struct profile *p,
			   const struct profile_line *lines, size_t nlines, int reverse,
			   const uint64_t *counts, uint64_t *sums)
{
	uint32_t *names = NULL;
	size_t cap = 0, n, i, k;

	for (i = 0; i < nlines; i++) {
		uint32_t cur = 0;

		if (line_names(p, &lines[i], reverse, &names, &cap, &n)) {
			free(names);
			return -ENOMEM;
		}
		sums[0] = sat_add(sums[0], counts[i]);
		for (k = 0; k < n; k++) {
			size_t s = find_slot(t, cur, names[k]);

			if (!t->slots[s])
				break; /* not a line of this tree */
			cur = t->slots[s] - 1;
			sums[cur] = sat_add(sums[cur], counts[i]);
		}
	}
	free(names);
	return 0;
}

int flame_tree__leaf(const struct flame_tree *t, const struct profile *p,
		     const struct profile_line *line, uint32_t *node)
{
	uint32_t *names = NULL;
	size_t cap = 0, n, k;
	uint32_t cur = 0;

	if (line_names(p, line, 0, &names, &cap, &n))
		return -ENOMEM;
	for (k = 0; k < n; k++) {
		size_t s = find_slot(t, cur, names[k]);

		if (!t->slots[s])
			break;
		cur = t->slots[s] - 1;
	}
	free(names);
	*node = cur;
	return 0;
}

/* A child as sorted: what the comparison needs, gathered next to each
 * other (through the node and the name table each comparison was three
 * cache misses a side: 5% of `prof svg` on 30,000 siblings). Keys of
 * 24 bytes decide nearly all comparisons without the text. */
struct sort_kid {
	uint64_t key[3]; /* the name's first 24 bytes, big-endian, 0-padded:
			  * names share long prefixes ("[libc.so.6+0x7f") */
	uint64_t total;
	const char *s;
	uint32_t node;
};

/* As strcmp() orders the names: the keys hold their bytes up to the first
 * NUL, so a difference there is strcmp's; equal keys leave the rest to it. */
static int cmp_alpha(const void *a, const void *b)
{
	const struct sort_kid *x = a, *y = b;

	int i;

	for (i = 0; i < 3; i++)
		if (x->key[i] != y->key[i])
			return x->key[i] < y->key[i] ? -1 : 1;
	return strcmp(x->s, y->s);
}

static int cmp_weight(const void *a, const void *b)
{
	const struct sort_kid *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return cmp_alpha(a, b);
}

static void name_key(uint64_t key[3], const char *s)
{
	size_t i;

	key[0] = key[1] = key[2] = 0;
	for (i = 0; i < 24 && s[i]; i++)
		key[i / 8] |= (uint64_t)(unsigned char)s[i] << (56 - 8 * (i % 8));
}

/* Siblings have distinct names: a total order, so the result is the same
 * whatever qsort does with ties. */
static void sort_kids(const struct flame_tree *t, const struct profile *p, enum svg_sort sort,
		      uint32_t *kids, size_t n, struct sort_kid *tmp)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct flame_node *nd = &t->nodes[kids[i]];
		const char *s = profile__name(p, nd->name);

		name_key(tmp[i].key, s);
		tmp[i].total = nd->total;
		tmp[i].s = s;
		tmp[i].node = kids[i];
	}
	qsort(tmp, n, sizeof(*tmp), sort == SVG_SORT_WEIGHT ? cmp_weight : cmp_alpha);
	for (i = 0; i < n; i++)
		kids[i] = tmp[i].node;
}

int flame_tree__order(struct flame_tree *t, const struct profile *p, enum svg_sort sort)
{
	struct sort_kid *tmp = NULL;
	uint32_t most = 0;
	size_t i, at = 0;

	t->kids = malloc((t->n ? t->n : 1) * sizeof(*t->kids));
	if (!t->kids)
		return -ENOMEM;
	for (i = 0; i < t->n; i++)
		t->nodes[i].nkids = 0;
	for (i = 1; i < t->n; i++)
		t->nodes[t->nodes[i].parent].nkids++;
	/* .kids is each group's cursor while it fills, then its start */
	for (i = 0; i < t->n; i++) {
		t->nodes[i].kids = (uint32_t)at;
		at += t->nodes[i].nkids;
		if (t->nodes[i].nkids > most)
			most = t->nodes[i].nkids;
	}
	for (i = 1; i < t->n; i++)
		t->kids[t->nodes[t->nodes[i].parent].kids++] = (uint32_t)i;
	for (i = 0; i < t->n; i++)
		t->nodes[i].kids -= t->nodes[i].nkids;
	if (sort == SVG_SORT_INPUT || most < 2)
		return 0;
	tmp = malloc(most * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	for (i = 0; i < t->n; i++)
		if (t->nodes[i].nkids > 1)
			sort_kids(t, p, sort, t->kids + t->nodes[i].kids, t->nodes[i].nkids, tmp);
	free(tmp);
	return 0;
}

/* Drops the deepest rows of out[] until at most max_frames are left (a
 * row at a time, keeping the depth-first order). 0 or -ENOMEM. */
static int cut_rows(struct flame_frame *out, size_t *nout, size_t max_frames, uint32_t *deepest,
		    struct flame_cut *cut)
{
	size_t *per_row, sum, i, j;
	uint32_t keep = 0;

	if (*nout <= max_frames)
		return 0;
	per_row = calloc((size_t)*deepest + 1, sizeof(*per_row));
	if (!per_row)
		return -ENOMEM;
	for (i = 0; i < *nout; i++)
		per_row[out[i].depth]++;
	/* rows 0..keep stay (the root's row at least) */
	sum = per_row[0];
	while (keep < *deepest && sum + per_row[keep + 1] <= max_frames)
		sum += per_row[++keep];
	cut->row = keep + 1;
	cut->frames = per_row[keep + 1];
	free(per_row);
	for (i = 0, j = 0; i < *nout; i++)
		if (out[i].depth <= keep)
			out[j++] = out[i];
	*nout = j;
	*deepest = keep;
	return 0;
}

int flame_tree__layout(const struct flame_tree *t, double min_total, uint32_t max_rows,
		       size_t max_frames, struct flame_frame **frames, size_t *nframes,
		       uint32_t *max_depth, struct flame_cut *cut)
{
	struct flame_frame *out = NULL, *todo = NULL;
	size_t nout = 0, out_cap = 0, ntodo = 0, todo_cap = 0;
	uint32_t deepest = 0;

	*frames = NULL;
	*nframes = 0;
	*max_depth = 0;
	memset(cut, 0, sizeof(*cut));
	if (!t->n)
		return 0;
	if (!max_rows)
		max_rows = 1;
	/* A stack of frames to emit: a frame's kids are pushed, then the
	 * pushed run is reversed so they pop left to right. */
	if (GROW(todo, todo_cap, 1))
		return -ENOMEM;
	todo[ntodo++] = (struct flame_frame){.x = 0, .node = 0, .depth = 0};
	while (ntodo) {
		struct flame_frame f = todo[--ntodo];
		const struct flame_node *nd = &t->nodes[f.node];
		uint64_t x = f.x;
		size_t first, i;
		uint32_t k;

		if (GROW(out, out_cap, nout + 1))
			goto oom;
		out[nout++] = f;
		if (f.depth > deepest)
			deepest = f.depth;
		if (GROW(todo, todo_cap, ntodo + nd->nkids))
			goto oom;
		/* Place the kids left to right, then reverse the pushed run. */
		first = ntodo;
		for (k = 0; k < nd->nkids; k++) {
			uint32_t c = t->kids[nd->kids + k];
			uint64_t w = t->nodes[c].total;

			if (w && (double)w >= min_total) {
				if (f.depth + 1 < max_rows) {
					todo[ntodo++] = (struct flame_frame){x, c, f.depth + 1};
				} else {
					cut->row = max_rows;
					cut->frames++;
				}
			}
			x = sat_add(x, w);
		}
		for (i = 0; i < (ntodo - first) / 2; i++) {
			struct flame_frame tmp = todo[first + i];

			todo[first + i] = todo[ntodo - 1 - i];
			todo[ntodo - 1 - i] = tmp;
		}
	}
	free(todo);
	if (cut_rows(out, &nout, max_frames ? max_frames : 1, &deepest, cut))
		goto oom_out;
	*frames = out;
	*nframes = nout;
	*max_depth = deepest;
	return 0;
oom:
	free(todo);
oom_out:
	free(out);
	return -ENOMEM;
}

void flame_tree__release(struct flame_tree *t)
{
	free(t->nodes);
	free(t->kids);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
