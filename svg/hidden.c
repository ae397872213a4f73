/* hidden.c: what a search needs of the frames a flamegraph does not draw
 * (narrower than --minwidth), so that its "Matched" share counts every
 * sample, drawn or not (docs/prof-svg.md, Search). The hidden subtrees are
 * written compactly into the SVG: a table of their distinct names, one a
 * line, the most used first (their numbers are then shortest), and a
 * stream of small numbers in base-64 VLQ (source maps' digits: 5 bits a
 * character, bit 6 says more follow), per drawn frame that has hidden
 * children:
 *
 *   FRAME-DELTA (the drawn frame's index minus the previous group's)
 *   then per hidden frame, in depth-first order:
 *     2*(UP+1) NAME COUNT  a frame UP levels above the previous one's
 *                          child (the group's first: 0, a child of the
 *                          drawn frame)
 *     2*NAME+1             a frame that is the previous one's only child
 *                          with the same count: the same samples, so for a
 *                          search it is one frame with two names
 *   0 (the group's end)
 *
 * NAME is a line of the table, COUNT the raw count (report.h's
 * count_decimals). Both are written as CDATA sections, unescaped: a
 * browser's XML parser takes a section in one piece (about 0.1 s less of
 * the first render of 1M stacks' 13.5 MB table,
 * docs/BENCHMARKS-svg-size.md). Two walks over the hidden frames (names counted, then
 * written): O(hidden frames) time, plus sorting the distinct names, and
 * the encoded bytes (about 3.7 a frame on bench/svg-speed.sh's input).
 * The table's text is not held: svg_hidden__write_names() makes it from
 * the names' ids when the page is written, 64 KB at a time (a million
 * distinct names were 26 MB more to hold, fault in and copy). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "svg/svg-internal.h"

static const char VLQ_DIGITS[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int put_vlq(struct svg_buf *b, uint64_t v)
{
	char d[16];
	size_t n = 0;

	do {
		unsigned digit = (unsigned)(v & 31);

		v >>= 5;
		d[n++] = VLQ_DIGITS[digit | (v ? 32 : 0)];
	} while (v);
	return svg_buf__put(b, d, n);
}

/* The base-64 VLQ digits of v. */
static size_t vlq_digits(uint64_t v)
{
	size_t n = 1;

	while (v >>= 5)
		n++;
	return n;
}

int svg_frame_name_text(struct svg_buf *b, const char *name, size_t len)
{
	size_t start = b->len;
	long chars = svg_text_clean(b, name, len);

	if (chars < 0)
		return -ENOMEM;
	if (chars > SVG_MAX_NAME_CHARS) {
		b->len = start + svg_text_prefix(b->s + start, b->len - start,
						 SVG_MAX_NAME_CHARS - 3);
		if (svg_buf__put(b, "...", 3))
			return -ENOMEM;
	}
	return 0;
}

struct encoder {
	const struct flame_tree *t;
	const struct profile *p;
	const uint64_t *counts; /* per node, NULL: the tree's totals */
	struct svg_hidden *h;
	int emit;               /* 0: count the names' uses; 1: write */
	/* per profile name id: its uses (first walk), then its line of the
	 * table (second); one array, so a frame costs one access */
	uint32_t *line;
	uint32_t *name_of; /* the names used, in order of first use */
	size_t nnames, name_cap;
	uint32_t prev; /* depth of the previous frame; the group's drawn one is 0 */
	struct { uint32_t node, depth; } *todo;
	size_t todo_cap;
};

static uint64_t count_of(const struct encoder *e, uint32_t node)
{
	return e->counts ? e->counts[node] : e->t->nodes[node].total;
}

/* Counts a use of the node's name (first walk), or gives its line
 * (second). 0 or -ENOMEM. */
static int name_use(struct encoder *e, uint32_t node, uint32_t *line)
{
	uint32_t id = e->t->nodes[node].name;

	if (e->emit) {
		*line = e->line[id];
		return 0;
	}
	if (!e->line[id]) {
		if (GROW(e->name_of, e->name_cap, e->nnames + 1))
			return -ENOMEM;
		e->name_of[e->nnames++] = id;
	}
	e->line[id]++; /* at most one use per node: fits */
	*line = 0;
	return 0;
}

/* Writes 2*UP+2 NAME COUNT, or 2*NAME+1 for a chain's frame. */
static int put_frame(struct encoder *e, uint32_t node, uint32_t up, int chain)
{
	uint32_t line;

	if (name_use(e, node, &line))
		return -ENOMEM;
	e->h->frames += !e->emit;
	if (!e->emit)
		return 0;
	if (chain)
		return put_vlq(&e->h->stream, 2 * (uint64_t)line + 1);
	if (put_vlq(&e->h->stream, 2 * ((uint64_t)up + 1)) || put_vlq(&e->h->stream, line) ||
	    put_vlq(&e->h->stream, count_of(e, node)))
		return -ENOMEM;
	return 0;
}

/* The hidden subtree of `root`, a child of a drawn frame. */
static int encode_subtree(struct encoder *e, uint32_t root)
{
	size_t ntodo = 0;

	if (GROW(e->todo, e->todo_cap, 1))
		return -ENOMEM;
	e->todo[ntodo].node = root;
	e->todo[ntodo++].depth = 1;
	if (!e->emit)
		e->h->count += count_of(e, root);
	while (ntodo) {
		uint32_t node = e->todo[--ntodo].node, depth = e->todo[ntodo].depth, k;
		const struct flame_node *nd;

		if (put_frame(e, node, e->prev + 1 - depth, 0))
			return -ENOMEM;
		e->prev = depth;
		/* a chain of only children with the same count: one frame */
		while (e->t->nodes[node].nkids == 1 &&
		       count_of(e, e->t->kids[e->t->nodes[node].kids]) == count_of(e, node)) {
			node = e->t->kids[e->t->nodes[node].kids];
			if (put_frame(e, node, 0, 1))
				return -ENOMEM;
		}
		nd = &e->t->nodes[node];
		if (GROW(e->todo, e->todo_cap, ntodo + nd->nkids))
			return -ENOMEM;
		for (k = 0; k < nd->nkids; k++) {
			uint32_t c = e->t->kids[nd->kids + k];

			if (!count_of(e, c))
				continue;
			e->todo[ntodo].node = c;
			e->todo[ntodo++].depth = depth + 1;
		}
	}
	return 0;
}

/* One walk over the hidden subtrees, in the drawn frames' order. */
static int walk(struct encoder *e, const struct flame_frame *frames, size_t nframes,
		const uint8_t *drawn, uint32_t cut_row)
{
	size_t i, prev = 0;

	for (i = 0; i < nframes; i++) {
		const struct flame_node *nd = &e->t->nodes[frames[i].node];
		int open = 0;
		uint32_t k;

		/* past a cut the rows are left out whole, and the page says so */
		if (cut_row && frames[i].depth + 1 >= cut_row)
			continue;
		for (k = 0; k < nd->nkids; k++) {
			uint32_t c = e->t->kids[nd->kids + k];

			/* the hidden subtrees' roots are scattered (siblings
			 * by name, nodes by first line): fetch ahead */
			if (k + 8 < nd->nkids)
				__builtin_prefetch(&e->t->nodes[e->t->kids[nd->kids + k + 8]]);
			if (k + 4 < nd->nkids)
				__builtin_prefetch(
				    &e->line[e->t->nodes[e->t->kids[nd->kids + k + 4]].name]);
			if (drawn[c] || !count_of(e, c))
				continue;
			if (!open) {
				if (e->emit && put_vlq(&e->h->stream, i - prev))
					return -ENOMEM;
				e->prev = 0;
				open = 1;
				prev = i;
			}
			if (encode_subtree(e, c))
				return -ENOMEM;
		}
		if (open && e->emit && put_vlq(&e->h->stream, 0))
			return -ENOMEM;
	}
	return 0;
}

/* The most used names first; ties in order of first use (qsort_r's
 * order of indexes into e->name_of). */
static int cmp_uses(const void *a, const void *b, void *arg)
{
	const struct encoder *e = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint32_t ux = e->line[e->name_of[x]], uy = e->line[e->name_of[y]];

	if (ux != uy)
		return ux > uy ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Turns each used name's e->line[] from its uses into its line: most
 * used first, ties in order of first use. By counting (name_of[] is in
 * order of first use, so a stable counting sort is that order): O(names +
 * most uses); by qsort when the uses are too spread for it. 0 or
 * -ENOMEM. */
static int lines_by_uses(struct encoder *e)
{
	uint32_t most = 0, *order;
	size_t i, *start, at = 0;

	for (i = 0; i < e->nnames; i++)
		if (e->line[e->name_of[i]] > most)
			most = e->line[e->name_of[i]];
	if (most <= 4 * (uint64_t)e->nnames + 1024) {
		start = calloc((size_t)most + 1, sizeof(*start));
		if (!start)
			return -ENOMEM;
		for (i = 0; i < e->nnames; i++)
			start[e->line[e->name_of[i]]]++;
		for (i = (size_t)most + 1; i-- > 0;) {
			size_t k = start[i];

			start[i] = at;
			at += k;
		}
		for (i = 0; i < e->nnames; i++) {
			uint32_t *l = &e->line[e->name_of[i]];

			*l = (uint32_t)start[*l]++;
		}
		free(start);
		return 0;
	}
	order = malloc(e->nnames * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 0; i < e->nnames; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, e->nnames, sizeof(*order), cmp_uses, e);
	for (i = 0; i < e->nnames; i++)
		e->line[e->name_of[order[i]]] = (uint32_t)i;
	free(order);
	return 0;
}

/* Sorts the names and gives each its line; h->names gets the table's
 * names, line by line. 0 or -ENOMEM. */
static int order_names(struct encoder *e)
{
	size_t i;

	if (lines_by_uses(e))
		return -ENOMEM;
	e->h->names = malloc((e->nnames ? e->nnames : 1) * sizeof(*e->h->names));
	if (!e->h->names)
		return -ENOMEM;
	for (i = 0; i < e->nnames; i++)
		e->h->names[e->line[e->name_of[i]]] = e->name_of[i];
	e->h->nnames = e->nnames;
	return 0;
}

/* Hands a piece of the table to put(), each "]]>" in it split across two
 * CDATA sections, "]]]]><![CDATA[>", which a parser joins back (rare: a
 * '>' is looked for, then the "]]" before it). 0 or put()'s error. */
static int put_cdata(const char *s, size_t len, svg_put_fn put, void *ctx)
{
	static const char split[] = "]]]]><![CDATA[>";
	const char *e = s + len, *gt = s;
	int err;

	while ((gt = memchr(gt, '>', (size_t)(e - gt)))) {
		if (gt - s >= 2 && gt[-1] == ']' && gt[-2] == ']') {
			if ((err = put(ctx, s, (size_t)(gt - 2 - s))) ||
			    (err = put(ctx, split, sizeof(split) - 1)))
				return err;
			s = gt + 1;
		}
		gt++;
	}
	return s < e ? put(ctx, s, (size_t)(e - s)) : 0;
}

int svg_hidden__write_names(const struct svg_hidden *h, const struct profile *p, svg_put_fn put,
			    void *ctx)
{
	struct svg_buf b = {0};
	size_t i;
	int err = 0;

	/* Pieces end at a name's end: a "]]>" never spans two, as the '\n'
	 * between names is none of its bytes. */
	for (i = 0; i < h->nnames && !err; i++) {
		uint32_t id = h->names[i];

		if ((i && svg_buf__put(&b, "\n", 1)) ||
		    svg_frame_name_text(&b, profile__name(p, id), strtab__len(&p->names, id))) {
			err = -ENOMEM;
			break;
		}
		if (b.len >= SVG_HIDDEN_PIECE || i + 1 == h->nnames) {
			err = put_cdata(b.s, b.len, put, ctx);
			b.len = 0;
		}
	}
	free(b.s);
	return err;
}

int svg_hidden__encode(struct svg_hidden *h, const struct flame_tree *t, const struct profile *p,
		       const struct flame_frame *frames, size_t nframes, uint32_t cut_row,
		       const uint64_t *counts)
{
	struct encoder e = {.t = t, .p = p, .counts = counts, .h = h};
	uint8_t *drawn = calloc(t->n ? t->n : 1, 1);
	size_t i;
	int err = -ENOMEM;

	memset(h, 0, sizeof(*h));
	/* read before written: see calloc_populated() */
	e.line = calloc_populated(p->names.count ? p->names.count : 1, sizeof(*e.line));
	if (!drawn || !e.line)
		goto out;
	if (svg_buf__put(&h->stream, "", 0))
		goto out;
	for (i = 0; i < nframes; i++)
		drawn[frames[i].node] = 1;
	if (walk(&e, frames, nframes, drawn, cut_row) || order_names(&e))
		goto out;
	e.emit = 1;
	/* room for the stream at once: a frame is about 2 + the digits of its
	 * name's line, or its count's (pages never written cost nothing) */
	if (GROW(h->stream.s, h->stream.cap, h->frames * (4 + vlq_digits(e.nnames)) + 16))
		goto out;
	if (walk(&e, frames, nframes, drawn, cut_row))
		goto out;
	err = 0;
out:
	free(drawn);
	free(e.todo);
	free(e.name_of);
	free(e.line);
	if (err)
		svg_hidden__release(h);
	return err;
}

void svg_hidden__release(struct svg_hidden *h)
{
	free(h->names);
	free(h->stream.s);
	memset(h, 0, sizeof(*h));
}
