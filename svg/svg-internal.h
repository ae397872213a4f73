/* svg-internal.h: what the files of svg/ share and nobody else sees: the
 * merged flame tree and its layout (flame-tree.c), names made safe for XML
 * and cut to fit (text.c), colors per name (palette.c), and the embedded
 * script (generated from the files of svg/js/ by the Makefile). */
#ifndef PROF_SVG_SVG_INTERNAL_H
#define PROF_SVG_SVG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "report/report.h"
#include "svg/svg.h"

/* ---- the flame tree (flame-tree.c) ---- */

#define FLAME_NONE UINT32_MAX

/* One distinct path from the root: 24 bytes. */
struct flame_node {
	uint64_t total;  /* samples in this frame and below (saturating) */
	uint32_t name;   /* profile name id; 0 for the root "all" */
	uint32_t parent; /* FLAME_NONE for the root */
	uint32_t kids;   /* after flame_tree__order(): first child in tree.kids */
	uint32_t nkids;
};

struct flame_tree {
	struct flame_node *nodes; /* [0] is the root; a child after its parent */
	size_t n, cap;
	uint32_t *kids;  /* children, grouped by parent, in drawing order */
	uint32_t *slots; /* open addressing: (parent, name) -> node + 1 */
	size_t mask;     /* slots - 1 */
};

/* A drawn frame, in depth-first order (a parent before its children,
 * siblings left to right). */
struct flame_frame {
	uint64_t x;     /* samples left of the frame */
	uint32_t node;
	uint32_t depth; /* 0 for the root */
};

/* Builds the merged tree of the lines (thread root first, then the stack;
 * all of it reversed with `reverse`). O(total frames) hash lookups, fewer
 * when sorted lines share prefixes. 0 or -ENOMEM. */
int flame_tree__build(struct flame_tree *t, const struct profile *p,
		      const struct profile_line *lines, size_t nlines, int reverse);
/* The same as a flame chart: the lines in their order, each frame merged
 * only with the frame of the line before at the same depth when their
 * paths from the root are the same; no hash, no lookups. Order it with
 * SVG_SORT_INPUT. 0 or -ENOMEM. */
int flame_tree__build_chart(struct flame_tree *t, const struct profile *p,
			    const struct profile_line *lines, size_t nlines, int reverse);
/* Adds counts[i] to every node on the path of lines[i] (lines the tree
 * was built from, in any order): sums[node], t->n of them, zeroed by the
 * caller. One hash lookup per frame. 0 or -ENOMEM. */
int flame_tree__accumulate(const struct flame_tree *t, const struct profile *p,
			   const struct profile_line *lines, size_t nlines, int reverse,
			   const uint64_t *counts, uint64_t *sums);
/* The node of the line's last frame (the deepest of its path in the
 * tree, not reversed) into *node. 0 or -ENOMEM. */
int flame_tree__leaf(const struct flame_tree *t, const struct profile *p,
		     const struct profile_line *line, uint32_t *node);
/* Groups and sorts every node's children (SVG_SORT_ALPHA: bytewise by
 * name; SVG_SORT_WEIGHT: total descending, then name; SVG_SORT_INPUT: in
 * the order they were made). 0 or -ENOMEM. */
int flame_tree__order(struct flame_tree *t, const struct profile *p, enum svg_sort sort);
/* What a graph draws at most: rows (depth + 1) and frames. A 1M-deep
 * stack made a 118 MB SVG no browser shows; past these the deepest rows
 * are cut (whole rows, so every drawn tower is complete up to the cut) and
 * the page says so. Real profiles stay far below: stacks of a few
 * thousand frames at most, and the default --minwidth keeps a row to
 * about a thousand frames. */
#define FLAME_MAX_ROWS 4096
#define FLAME_MAX_FRAMES 1000000

/* Where the layout cut the deepest rows: the first row left out (0: no
 * cut) and the frames of that row that were not drawn. */
struct flame_cut {
	uint32_t row;
	size_t frames;
};

/* Lays the tree out from the root: the frames whose total is at least
 * `min_total` and whose parent is drawn, each child starting where its
 * previous sibling ends (pruned siblings keep their place, so a parent
 * keeps its full width), at most `max_rows` rows and `max_frames` frames
 * (see FLAME_MAX_ROWS; the cut in *cut). *frames is malloc'ed. 0 or
 * -ENOMEM. */
int flame_tree__layout(const struct flame_tree *t, double min_total, uint32_t max_rows,
		       size_t max_frames, struct flame_frame **frames, size_t *nframes,
		       uint32_t *max_depth, struct flame_cut *cut);
void flame_tree__release(struct flame_tree *t);

/* ---- text (text.c) ---- */

/* A growable byte buffer. */
struct svg_buf {
	char *s;
	size_t len, cap;
};

int svg_buf__put(struct svg_buf *b, const char *s, size_t len);
int svg_buf__printf(struct svg_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends `len` bytes of `s` to `b` as text XML 1.0 accepts: valid UTF-8
 * passes; each byte of an invalid sequence, each control character (C0
 * including tab and newline, DEL, C1) and the non-characters U+FFFE and
 * U+FFFF become U+FFFD. XML escaping (<, &, quotes) is left to libxml2.
 * Returns the number of characters appended, or -ENOMEM. */
long svg_text_clean(struct svg_buf *b, const char *s, size_t len);
/* The byte length of the first `nchars` characters of valid UTF-8 `s`. */
size_t svg_text_prefix(const char *s, size_t len, size_t nchars);
/* A label for a frame `px` wide: the number of characters that fit with
 * `char_px` per character (flamegraph.pl's rule: none under 3), or 0. */
size_t svg_label_chars(double px, double char_px);
/* Appends "1,234,567". 0 or -ENOMEM. */
int svg_buf__count(struct svg_buf *b, uint64_t v);
/* A count in units of 10^-decimals (report.h's count_decimals), exact:
 * "1,234.5". 0 or -ENOMEM. */
int svg_buf__count_scaled(struct svg_buf *b, uint64_t v, unsigned decimals);
/* Appends `v` with at most `decimals` decimals, trailing zeros and a
 * trailing '.' trimmed ("12.5", "3"); the C locale's format. */
int svg_buf__num(struct svg_buf *b, double v, int decimals);

/* ---- hidden frames (hidden.c) ---- */

/* A title keeps this many characters of a name, then "...": a name of
 * megabytes in every frame of its path would make the SVG that much
 * larger for each (the folded text and `prof report` keep it whole). */
#define SVG_MAX_NAME_CHARS 4096

/* Appends v as base-64 VLQ digits (source maps' A-Za-z0-9+/, 5 bits
 * each, 32 set when more follow). 0 or -ENOMEM. */
int svg_buf__vlq(struct svg_buf *b, uint64_t v);

/* Appends a frame's name as titles show it: made safe (svg_text_clean())
 * and cut to SVG_MAX_NAME_CHARS. 0 or -ENOMEM. */
int svg_frame_name_text(struct svg_buf *b, const char *name, size_t len);

/* The frames a graph does not draw, for the page's search: see hidden.c
 * for the encoding. */
struct svg_hidden {
	uint32_t *names; /* their distinct names' ids, by line of the table */
	size_t nnames;
	struct svg_buf stream; /* the subtrees, base-64 VLQ */
	size_t frames;         /* hidden frames (paths) with a count */
	uint64_t count;        /* their samples (the hidden subtrees' roots') */
};

/* Takes `len` bytes of output: 0 or -errno. */
typedef int (*svg_put_fn)(void *ctx, const char *s, size_t len);

/* The table's text is handed over in pieces of about this many bytes. */
#define SVG_HIDDEN_PIECE (64 * 1024)

/* Encodes the subtrees under the drawn `frames` that are not drawn, except
 * above row cut_row - 1 when the rows from cut_row were cut (0: no cut).
 * counts: per node, what titles show (a diff's NEW or OLD); NULL: the
 * tree's totals. Frames with a count of 0 are left out. 0 or -ENOMEM. */
int svg_hidden__encode(struct svg_hidden *h, const struct flame_tree *t, const struct profile *p,
		       const struct flame_frame *frames, size_t nframes, uint32_t cut_row,
		       const uint64_t *counts);
/* Hands the names' table to put(), as the content of one CDATA section:
 * a name a line, as titles show it (svg_frame_name_text()), unescaped,
 * each "]]>" split across two sections. Allocates a piece's buffer; 0,
 * -ENOMEM or put()'s error. */
int svg_hidden__write_names(const struct svg_hidden *h, const struct profile *p, svg_put_fn put,
			    void *ctx);
void svg_hidden__release(struct svg_hidden *h);

/* ---- the timeline (timeline-model.c, timeline.c) ---- */

/* The profile's cells are 1/TL_FINE_PER_SEC s (profile_build_opts.cell_ns);
 * the heatmap's rows are whole numbers of them. */
#define TL_FINE_PER_SEC 100
#define TL_MAX_ROWS 50       /* rows of a column at most (FlameScope's 20 ms) */
#define TL_MAX_CELLS 1000000 /* columns x rows: fewer rows for long recordings */
#define TL_MAX_FRAMES 250000 /* frames of the merged tree (deepest rows cut) */
#define TL_MAX_PAIRS 2500000 /* (group, frame) pairs: wider groups past it */

struct tl_model {
	uint32_t columns, rows, cell_ms; /* a column is a second */
	uint64_t origin_ns; /* the time of cell 0's start (profile.cells_origin) */
	uint64_t *counts; /* per cell (column * rows + row): samples */
	uint64_t total, max;
	uint32_t group, ngroups; /* cells per group of the stack table; groups */
	struct flame_tree tree;
	struct flame_frame *frames; /* every frame, depth-first; [0] is "all" */
	size_t nframes;
	struct flame_cut cut;
	struct svg_hidden names;    /* only names/nnames: the frames' names, a line each */
	struct svg_buf frames_vlq;  /* per frame after the root: UP, name line */
	struct svg_buf groups_vlq;  /* per group: N, then N times frame delta, count */
	size_t npairs;
};

/* Aggregates `p` (built with time_order and cell_ns = 1 s /
 * TL_FINE_PER_SEC, filtered) for the page; roots: the thread root frames
 * (profile__lines()); hz: the sampling rate (0: unknown), which sets the
 * rows (FlameScope's 50 at 99 Hz and up, fewer below). Allocates; 0,
 * -ENOMEM, -EINVAL (no cells or no samples), -E2BIG (longer than
 * TL_MAX_CELLS seconds). tl_model__release() either way. */
int tl_model__build(struct tl_model *m, struct profile *p, enum profile_thread_root roots,
		    double hz);
void tl_model__release(struct tl_model *m);

/* ---- colors (palette.c) ---- */

/* The palette's color of a name, 0xRRGGBB: a shade picked by a hash of the
 * name (without a trailing _[k]/_[j]/_[i] annotation), so a function has
 * the same color in every graph; with SVG_PALETTE_JAVA the hue says what
 * kind of frame it is. */
uint32_t svg_palette_color(enum svg_palette pal, const char *name, size_t len);
/* The map's color of a name (1), or 0 when it has none. */
int svg_palette_map__get(const struct svg_palette_map *m, const char *name, size_t len,
			 uint32_t *rgb);
/* Adds a name with its color (marks the map changed). 0 or -ENOMEM. */
int svg_palette_map__add(struct svg_palette_map *m, const char *name, size_t len, uint32_t rgb);

/* ---- differential frames (diff-frames.c) ---- */

/* Per node of a flame tree: its OLD and NEW counts, scaled. */
struct svg_diff_frames {
	uint64_t *old, *new;
	uint64_t *old_self, *new_self; /* minus the children's (self); NULL when inclusive */
	uint64_t max_change; /* the largest |NEW - OLD| colored (self or inclusive) of a
				node other than the root */
	int negate;
	unsigned decimals; /* the profile's count_decimals, for the titles */
};

/* Sums the diff's per-line counts over the tree's nodes (see struct
 * svg_diff). 0 or -ENOMEM. */
int svg_diff_frames__init(struct svg_diff_frames *df, const struct flame_tree *t,
			  const struct profile *p, const struct profile_line *lines, size_t nlines,
			  int reverse, const struct svg_diff *d);
void svg_diff_frames__release(struct svg_diff_frames *df);
/* The count a title shows: NEW's (OLD's with negate). */
uint64_t svg_diff_frames__count(const struct svg_diff_frames *df, uint32_t node);
/* Is the node drawn only to show what vanished: its count is 0? */
int svg_diff_frames__vanished(const struct svg_diff_frames *df, uint32_t node);
/* 0xRRGGBB: red for more in NEW, blue for less, white for no change; the
 * deeper the larger the change, against the largest of the graph. The
 * change is the frame's self change (its counts minus its children's, as
 * flamegraph.pl colors), or its inclusive one with struct svg_diff's
 * `inclusive`. */
uint32_t svg_diff_frames__color(const struct svg_diff_frames *df, uint32_t node);
/* Appends "old 1,000, new 1,234, +234, +23.40%" (see docs/prof-svg.md).
 * 0 or -ENOMEM. */
int svg_diff_frames__describe(const struct svg_diff_frames *df, uint32_t node, struct svg_buf *b);

/* ---- the script (generated from the files of svg/js/) ---- */

extern const char svg_flamegraph_js[];
extern const char svg_timeline_js[]; /* svg/timeline-js/, the timeline page's */

#endif
