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
 * the encoded bytes (about 3.7 a frame on bench/svg-speed.sh's input). */
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

/* A distinct name of the hidden frames: its uses, then its line. */
struct hidden_name {
	uint32_t id;    /* profile name id */
	uint32_t first; /* order of first use, for ties */
	uint64_t uses;
};

struct encoder {
	const struct flame_tree *t;
	const struct profile *p;
	const uint64_t *counts; /* per node, NULL: the tree's totals */
	struct svg_hidden *h;
	int emit;               /* 0: count the names' uses; 1: write */
	uint32_t *ids;          /* profile name id -> index in names[] + 1 */
	struct hidden_name *names;
	size_t nnames, names_cap;
	uint32_t *line;         /* index in names[] -> line of the table */
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
	uint32_t id = e->t->nodes[node].name, k = e->ids[id] - 1;

	if (!e->ids[id]) {
		if (e->emit || GROW(e->names, e->names_cap, e->nnames + 1))
			return -ENOMEM; /* a name the first walk did not see: cannot be */
		k = (uint32_t)e->nnames;
		e->ids[id] = k + 1;
		e->names[e->nnames++] = (struct hidden_name){id, k, 0};
	}
	if (!e->emit) {
		e->names[k].uses++;
		*line = 0;
		return 0;
	}
	*line = e->line[k];
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

/* The most used names first; ties in order of first use. */
static int cmp_uses(const void *a, const void *b)
{
	const struct hidden_name *x = a, *y = b;

	if (x->uses != y->uses)
		return x->uses > y->uses ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* The names go into a CDATA section (no escaping: a million distinct
 * names' escaping was a fifth of prof svg's time): a "]]>" in a name is
 * split across two sections, "]]]]><![CDATA[>", which a parser joins
 * back. Rare, so the whole table is searched once. 0 or -ENOMEM. */
static int cdata_safe(struct svg_buf *b)
{
	static const char end[] = "]]>", split[] = "]]]]><![CDATA[>";
	struct svg_buf out = {0};
	const char *s = b->s, *e = b->s + b->len, *at;

	if (!memmem(s, b->len, end, 3))
		return 0;
	while ((at = memmem(s, (size_t)(e - s), end, 3))) {
		if (svg_buf__put(&out, s, (size_t)(at - s)) ||
		    svg_buf__put(&out, split, sizeof(split) - 1)) {
			free(out.s);
			return -ENOMEM;
		}
		s = at + 3;
	}
	if (svg_buf__put(&out, s, (size_t)(e - s))) {
		free(out.s);
		return -ENOMEM;
	}
	free(b->s);
	*b = out;
	return 0;
}

/* cmp_uses's order by counting: names[] is in order of first use, so a
 * stable sort by uses, most first, is that order. O(names + most uses);
 * 0, or -ENOMEM, or 1 when the uses are too spread for it (qsort then). */
static int sort_by_uses(struct encoder *e)
{
	uint64_t most = 0;
	size_t i, *start, at = 0;
	struct hidden_name *out;

	for (i = 0; i < e->nnames; i++)
		if (e->names[i].uses > most)
			most = e->names[i].uses;
	if (most > 4 * (uint64_t)e->nnames + 1024)
		return 1;
	start = calloc((size_t)most + 1, sizeof(*start));
	out = malloc(e->nnames * sizeof(*out));
	if (!start || !out) {
		free(start);
		free(out);
		return -ENOMEM;
	}
	for (i = 0; i < e->nnames; i++)
		start[e->names[i].uses]++;
	for (i = (size_t)most + 1; i-- > 0;) {
		size_t k = start[i];

		start[i] = at;
		at += k;
	}
	for (i = 0; i < e->nnames; i++)
		out[start[e->names[i].uses]++] = e->names[i];
	free(start);
	free(e->names);
	e->names = out;
	e->names_cap = e->nnames;
	return 0;
}

/* Sorts the names, writes the table and gives each index its line. */
static int write_names(struct encoder *e)
{
	size_t i, bytes = 0;
	int r;

	if (e->nnames > 1 && (r = sort_by_uses(e)) < 0)
		return r;
	if (e->nnames > 1 && r > 0)
		qsort(e->names, e->nnames, sizeof(*e->names), cmp_uses);
	e->line = malloc((e->nnames ? e->nnames : 1) * sizeof(*e->line));
	if (!e->line)
		return -ENOMEM;
	/* the table's size, once: no doubling copies of a large table */
	for (i = 0; i < e->nnames; i++)
		bytes += strtab__len(&e->p->names, e->names[i].id) + 1;
	if (GROW(e->h->names.s, e->h->names.cap, bytes + 1))
		return -ENOMEM;
	for (i = 0; i < e->nnames; i++) {
		uint32_t id = e->names[i].id;

		e->line[e->names[i].first] = (uint32_t)i;
		if ((i && svg_buf__put(&e->h->names, "\n", 1)) ||
		    svg_frame_name_text(&e->h->names, profile__name(e->p, id),
					strtab__len(&e->p->names, id)))
			return -ENOMEM;
	}
	return cdata_safe(&e->h->names);
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
	e.ids = calloc(p->names.count ? p->names.count : 1, sizeof(*e.ids));
	if (!drawn || !e.ids)
		goto out;
	if (svg_buf__put(&h->names, "", 0) || svg_buf__put(&h->stream, "", 0))
		goto out;
	for (i = 0; i < nframes; i++)
		drawn[frames[i].node] = 1;
	if (walk(&e, frames, nframes, drawn, cut_row) || write_names(&e))
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
	free(e.names);
	free(e.line);
	free(e.ids);
	if (err)
		svg_hidden__release(h);
	return err;
}

void svg_hidden__release(struct svg_hidden *h)
{
	free(h->names.s);
	free(h->stream.s);
	memset(h, 0, sizeof(*h));
}
