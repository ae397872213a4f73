/* hidden.c: what a search needs of the frames a flamegraph does not draw
 * (narrower than --minwidth), so that its "Matched" share counts every
 * sample, drawn or not (docs/prof-svg.md, Search). The hidden subtrees are
 * written compactly into the SVG: a table of their distinct names, one a
 * line, and a stream of small numbers in base-64 VLQ (source maps'
 * digits: 5 bits a character, bit 6 says more follow), per drawn frame
 * that has hidden children:
 *
 *   FRAME-DELTA (the drawn frame's index minus the previous group's)
 *   then per hidden frame, in depth-first order:
 *     UP+2 NAME COUNT   a frame UP levels above the previous one's child
 *                        (the group's first: 0, a child of the drawn frame)
 *     1 NAME            a frame that is the previous one's only child with
 *                        the same count: the same samples, so for a search
 *                        it is one frame with two names
 *   0 (the group's end)
 *
 * NAME is a line of the table, COUNT the raw count (report.h's
 * count_decimals). Costs O(hidden frames) time and the encoded bytes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/keymap.h"
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
	struct keymap ids;      /* profile name id -> line of the table */
	uint32_t nnames;
	uint32_t prev; /* depth of the previous frame; the group's drawn one is 0 */
	struct { uint32_t node, depth; } *todo;
	size_t todo_cap;
};

static uint64_t count_of(const struct encoder *e, uint32_t node)
{
	return e->counts ? e->counts[node] : e->t->nodes[node].total;
}

/* The table line of the node's name, added when new. */
static int name_line(struct encoder *e, uint32_t node, uint32_t *line)
{
	uint32_t id = e->t->nodes[node].name, old;
	size_t len;
	const char *s;
	int r = keymap__put(&e->ids, id, 0, e->nnames, &old);

	if (r < 0)
		return -ENOMEM;
	if (!r) {
		*line = old;
		return 0;
	}
	*line = e->nnames++;
	s = profile__name(e->p, id);
	len = strtab__len(&e->p->names, id);
	if (*line && svg_buf__put(&e->h->names, "\n", 1))
		return -ENOMEM;
	return svg_frame_name_text(&e->h->names, s, len);
}

static int put_name(struct encoder *e, uint32_t node)
{
	uint32_t line;

	return name_line(e, node, &line) ? -ENOMEM : put_vlq(&e->h->stream, line);
}

/* The hidden subtree of `root`, a child of a drawn frame. */
static int encode_subtree(struct encoder *e, uint32_t root)
{
	size_t ntodo = 0;

	if (GROW(e->todo, e->todo_cap, 1))
		return -ENOMEM;
	e->todo[ntodo].node = root;
	e->todo[ntodo++].depth = 1;
	e->h->count += count_of(e, root);
	while (ntodo) {
		uint32_t node = e->todo[--ntodo].node, depth = e->todo[ntodo].depth, k;
		const struct flame_node *nd;

		if (put_vlq(&e->h->stream, (uint64_t)e->prev + 1 - depth + 2) || put_name(e, node) ||
		    put_vlq(&e->h->stream, count_of(e, node)))
			return -ENOMEM;
		e->h->frames++;
		e->prev = depth;
		/* a chain of only children with the same count: one frame */
		while (e->t->nodes[node].nkids == 1 &&
		       count_of(e, e->t->kids[e->t->nodes[node].kids]) == count_of(e, node)) {
			node = e->t->kids[e->t->nodes[node].kids];
			if (put_vlq(&e->h->stream, 1) || put_name(e, node))
				return -ENOMEM;
			e->h->frames++;
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

int svg_hidden__encode(struct svg_hidden *h, const struct flame_tree *t, const struct profile *p,
		       const struct flame_frame *frames, size_t nframes, uint32_t cut_row,
		       const uint64_t *counts)
{
	struct encoder e = {.t = t, .p = p, .counts = counts, .h = h};
	uint8_t *drawn = calloc(t->n ? t->n : 1, 1);
	size_t i, prev = 0;
	int err = -ENOMEM;

	memset(h, 0, sizeof(*h));
	if (!drawn || keymap__init(&e.ids, 1024))
		goto out;
	if (svg_buf__put(&h->names, "", 0) || svg_buf__put(&h->stream, "", 0))
		goto out;
	for (i = 0; i < nframes; i++)
		drawn[frames[i].node] = 1;
	for (i = 0; i < nframes; i++) {
		const struct flame_node *nd = &t->nodes[frames[i].node];
		int open = 0;
		uint32_t k;

		/* past a cut the rows are left out whole, and the page says so */
		if (cut_row && frames[i].depth + 1 >= cut_row)
			continue;
		for (k = 0; k < nd->nkids; k++) {
			uint32_t c = t->kids[nd->kids + k];

			if (drawn[c] || !count_of(&e, c))
				continue;
			if (!open && put_vlq(&h->stream, i - prev))
				goto out;
			if (!open)
				e.prev = 0;
			open = 1;
			prev = i;
			if ((err = encode_subtree(&e, c)))
				goto out;
			err = -ENOMEM;
		}
		if (open && put_vlq(&h->stream, 0))
			goto out;
	}
	err = 0;
out:
	free(drawn);
	free(e.todo);
	keymap__release(&e.ids);
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
