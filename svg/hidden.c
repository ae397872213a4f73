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
 * docs/BENCHMARKS-svg-size.md). The names' uses are counted in one pass
 * over the tree's nodes in memory order, then one walk over the hidden
 * frames writes them, giving each name its line when it first meets it
 * (the walk's order is the order of first use): O(hidden frames + tree
 * nodes) time, and the encoded bytes (about 3.7 a frame on
 * bench/svg-speed.sh's input).
 * The table's text is not held: svg_hidden__write_names() makes it from
 * the names' ids when the page is written, 64 KB at a time (a million
 * distinct names were 26 MB more to hold, fault in and copy). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "svg/svg-internal.h"

static const char VLQ_DIGITS[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int svg_buf__vlq(struct svg_buf *b, uint64_t v)
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

/* A node's part, as the drawn frames and the count pass set it. */
enum {
	NODE_OTHER,  /* neither drawn nor hidden (a count of 0, past a cut) */
	NODE_OPEN,   /* drawn, its hidden children written */
	NODE_CUT,    /* drawn in the last row before a cut: none written */
	NODE_HIDDEN, /* in a hidden subtree: written */
};

/* e->line[] holds a name's uses until the walk meets it, then this and
 * its line (uses stay below it: fewer than 2^31 nodes). */
#define LINE_SET 0x80000000u

struct encoder {
	const struct flame_tree *t;
	const struct profile *p;
	const uint64_t *counts; /* per node, NULL: the tree's totals */
	struct svg_hidden *h;
	uint32_t *line; /* per profile name id: see LINE_SET */
	/* The table's lines by uses, most first, as buckets of names with
	 * the same uses: next[b] is the line the next name of bucket b met
	 * gets. Bucket of u: most - u, or (vals) u's place in vals[], the
	 * distinct uses in descending order, when they are too spread. */
	size_t *next;
	uint32_t *vals, most;
	size_t nvals;
	uint32_t prev; /* depth of the previous frame; the group's drawn one is 0 */
	struct { uint32_t node, depth; } *todo;
	size_t todo_cap;
};

static uint64_t count_of(const struct encoder *e, uint32_t node)
{
	return e->counts ? e->counts[node] : e->t->nodes[node].total;
}

static size_t bucket(const struct encoder *e, uint32_t uses)
{
	size_t lo = 0, hi = e->nvals;

	if (!e->vals)
		return e->most - uses;
	while (hi - lo > 1) { /* the last place whose value is >= uses */
		size_t mid = lo + (hi - lo) / 2;

		if (e->vals[mid] >= uses)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The node's name's line: given the first time the walk meets the name,
 * the next of its bucket's (ties in order of first use). */
static uint32_t name_line(struct encoder *e, uint32_t node)
{
	uint32_t id = e->t->nodes[node].name, v = e->line[id], l;

	if (v & LINE_SET)
		return v & ~LINE_SET;
	l = (uint32_t)e->next[bucket(e, v)]++;
	e->h->names[l] = id;
	e->line[id] = l | LINE_SET;
	return l;
}

/* Writes 2*UP+2 NAME COUNT, or 2*NAME+1 for a chain's frame. */
static int put_frame(struct encoder *e, uint32_t node, uint32_t up, int chain)
{
	uint32_t line = name_line(e, node);

	if (chain)
		return svg_buf__vlq(&e->h->stream, 2 * (uint64_t)line + 1);
	if (svg_buf__vlq(&e->h->stream, 2 * ((uint64_t)up + 1)) || svg_buf__vlq(&e->h->stream, line) ||
	    svg_buf__vlq(&e->h->stream, count_of(e, node)))
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

/* The walk over the hidden subtrees, in the drawn frames' order. */
static int walk(struct encoder *e, const struct flame_frame *frames, size_t nframes,
		const uint8_t *part)
{
	size_t i, prev = 0;

	for (i = 0; i < nframes; i++) {
		const struct flame_node *nd = &e->t->nodes[frames[i].node];
		int open = 0;
		uint32_t k;

		if (part[frames[i].node] != NODE_OPEN)
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
			if (part[c] != NODE_HIDDEN)
				continue;
			if (!open) {
				if (svg_buf__vlq(&e->h->stream, i - prev))
					return -ENOMEM;
				e->prev = 0;
				open = 1;
				prev = i;
			}
			if (encode_subtree(e, c))
				return -ENOMEM;
		}
		if (open && svg_buf__vlq(&e->h->stream, 0))
			return -ENOMEM;
	}
	return 0;
}

/* Which nodes are hidden frames, and their names' uses: one pass in the
 * nodes' order (a parent before its children), the subtrees below drawn
 * frames that are not past a cut, without frames of count 0 (nor their
 * children: a count is never above its parent's). 0, or -ENOMEM for a
 * tree too large for LINE_SET. */
static int count_uses(struct encoder *e, uint8_t *part, size_t *nnames)
{
	const struct flame_tree *t = e->t;
	size_t i;

	if (t->n >= LINE_SET)
		return -ENOMEM;
	for (i = 1; i < t->n; i++) {
		uint8_t up = part[t->nodes[i].parent];
		uint32_t *uses;
		uint64_t c;

		if (part[i] || (up != NODE_OPEN && up != NODE_HIDDEN) || !(c = count_of(e, i)))
			continue;
		part[i] = NODE_HIDDEN;
		if (up == NODE_OPEN)
			e->h->count += c; /* a hidden subtree's root */
		e->h->frames++;
		uses = &e->line[t->nodes[i].name];
		*nnames += !*uses;
		if (++*uses > e->most)
			e->most = *uses;
	}
	return 0;
}

static int cmp_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x > y ? -1 : x < y;
}

/* The buckets' first lines (see struct encoder): by counting, O(names +
 * most uses), or when the uses are too spread for it, through the
 * sorted distinct uses. 0 or -ENOMEM. */
static int first_lines(struct encoder *e, size_t nnames)
{
	size_t nids = e->p->names.count, i, b, at = 0, nb;

	if (e->most > 4 * (uint64_t)nnames + 1024) {
		e->vals = malloc((nnames ? nnames : 1) * sizeof(*e->vals));
		if (!e->vals)
			return -ENOMEM;
		for (i = 0; i < nids; i++)
			if (e->line[i])
				e->vals[e->nvals++] = e->line[i];
		qsort(e->vals, e->nvals, sizeof(*e->vals), cmp_desc);
		for (i = 0, b = 0; i < e->nvals; i++)
			if (!b || e->vals[b - 1] != e->vals[i])
				e->vals[b++] = e->vals[i];
		e->nvals = b;
	}
	nb = e->vals ? e->nvals : (size_t)e->most + 1;
	e->next = calloc(nb ? nb : 1, sizeof(*e->next));
	if (!e->next)
		return -ENOMEM;
	for (i = 0; i < nids; i++)
		if (e->line[i])
			e->next[bucket(e, e->line[i])]++;
	for (b = 0; b < nb; b++) {
		size_t k = e->next[b];

		e->next[b] = at;
		at += k;
	}
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
	uint8_t *part = calloc(t->n ? t->n : 1, 1);
	size_t i, nnames = 0;
	int err = -ENOMEM;

	memset(h, 0, sizeof(*h));
	/* read before written: see calloc_populated() */
	e.line = calloc_populated(p->names.count ? p->names.count : 1, sizeof(*e.line));
	if (!part || !e.line)
		goto out;
	if (svg_buf__put(&h->stream, "", 0))
		goto out;
	/* past a cut the rows are left out whole, and the page says so */
	for (i = 0; i < nframes; i++)
		part[frames[i].node] =
		    cut_row && frames[i].depth + 1 >= cut_row ? NODE_CUT : NODE_OPEN;
	if (count_uses(&e, part, &nnames) || first_lines(&e, nnames))
		goto out;
	h->names = malloc((nnames ? nnames : 1) * sizeof(*h->names));
	h->nnames = nnames;
	/* room for the stream at once: a frame is about 2 + the digits of its
	 * name's line, or its count's (pages never written cost nothing) */
	if (!h->names ||
	    GROW(h->stream.s, h->stream.cap, h->frames * (4 + vlq_digits(nnames)) + 16))
		goto out;
	if (walk(&e, frames, nframes, part))
		goto out;
	err = 0;
out:
	free(part);
	free(e.todo);
	free(e.next);
	free(e.vals);
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
