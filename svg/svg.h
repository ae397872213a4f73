/* svg.h: the svg/ module's public interface: a profile (report/) drawn as
 * one self-contained, interactive flamegraph SVG, and the name -> color
 * maps that keep colors the same across graphs (flamegraph.pl's
 * palette.map). `prof svg` (cmd-svg.c) is a thin front end over it.
 *
 * The document's structure (what tests and tools may rely on) is in
 * docs/prof-svg.md. The same input and options give a byte-identical SVG.
 *
 * Conventions: functions return 0 or -errno (-ENOMEM; -EINVAL for nothing
 * to draw; -EBADMSG for a malformed palette file); nothing here prints or
 * exits. The writers block only on the FILE * they are given. */
#ifndef PROF_SVG_H
#define PROF_SVG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/report.h"

enum svg_palette {
	SVG_PALETTE_HOT = 0, /* reds and yellows (flamegraph.pl's default) */
	SVG_PALETTE_MEM,     /* greens and blues, for allocation graphs */
	SVG_PALETTE_IO,      /* blues, for off-CPU graphs */
	SVG_PALETTE_JAVA,    /* a hue per kind: Java, JIT _[j], inlined _[i],
				C++ (::), kernel _[k], native */
};

enum svg_sort {
	SVG_SORT_ALPHA = 0, /* children by name, as FlameGraph lays them out */
	SVG_SORT_WEIGHT,    /* children by count, heaviest first (then name) */
	SVG_SORT_INPUT,     /* children in the order of the lines (a flame chart) */
};

enum svg_minwidth_unit {
	SVG_MINWIDTH_DEFAULT = 0, /* 0.1 px at the layout width (flamegraph.pl's) */
	SVG_MINWIDTH_PX,
	SVG_MINWIDTH_PERCENT,
};

struct svg_palette_map;

/* A differential flamegraph (svg/diff-frames.c, docs/prof-svg.md): for each
 * line given to svg__write(), its count in OLD and in NEW; the line's own
 * count is its width (svg_diff__lines() makes all three from a
 * struct profile_diff). The frame's counts are summed per frame, then
 * scaled, and colored by NEW - OLD: red grew, blue shrank, white unchanged,
 * deeper for a bigger change. */
struct svg_diff {
	uint64_t *old, *new;   /* per line, raw */
	double old_scale;      /* OLD's counts are shown times this (1: as they are) */
	double new_scale;      /* NEW's likewise; one of the two is 1 */
	int negate;            /* widths and the titles' counts from OLD, not NEW */
	int inclusive;         /* color by the frames' inclusive change, not self */
};

/* The zero value means the default everywhere. */
struct svg_opts {
	const char *title;     /* NULL: "Flame Graph" ("Icicle Graph" inverted) */
	const char *subtitle;  /* NULL: none */
	unsigned width;        /* px; 0: fluid (100% of the window; laid out
				  for SVG_LAYOUT_WIDTH where px matter) */
	unsigned frame_height; /* px per row; 0: 16 */
	double font_size;      /* px; 0: 12 */
	const char *font;      /* font family; NULL: "Verdana" */
	enum svg_minwidth_unit minwidth_unit;
	double minwidth; /* frames narrower are left out (their time stays
			    in their parent's width) */
	enum svg_palette palette;
	enum svg_sort sort;
	int inverted;          /* icicle: the root at the top */
	int reverse;           /* stacks merged from the leaf */
	/* A flame chart (flamegraph.pl's --flamechart): the lines left to
	 * right in the order given (time), a frame merged only with the same
	 * frame of the line before it, siblings not sorted. */
	int flamechart;
	const char *countname; /* NULL: "samples" */
	/* Optional: colors of names found in it win; names not in it get the
	 * palette's color and are added (the caller saves it). */
	struct svg_palette_map *colors;
	/* Optional: draw a differential flamegraph; colors then come from
	 * the change, not the palette. */
	const struct svg_diff *diff;
};

#define SVG_LAYOUT_WIDTH 1200 /* px a fluid graph is laid out for */

struct svg_stats {
	size_t nodes;  /* distinct frames (paths) in the merged tree */
	size_t drawn;  /* frames in the SVG */
	size_t rows;   /* rows drawn (deepest drawn frame + 1) */
	size_t colors; /* distinct fill colors */
	size_t cut_row; /* the first row left out past FLAME_MAX_ROWS/_FRAMES; 0: none */
};

/* Writes the flamegraph of `lines` (as profile__lines() gives them, with
 * their thread roots) of profile `p` to `out`, and flushes it. A root frame
 * "all" spans the total. `st` (may be NULL) gets the statistics.
 *
 * Cost: builds the merged tree in O(frames of all lines) with arrays (about
 * 40 bytes per distinct path, no allocation per frame), sorts siblings, then
 * streams the XML through libxml2's xmlTextWriter: memory does not grow
 * with the output. 0, -ENOMEM, -EINVAL when the lines hold no samples, or
 * -errno of the failed write (-EIO when unknown). */
int svg__write(const struct profile *p, const struct profile_line *lines, size_t nlines,
	       const struct svg_opts *o, FILE *out, struct svg_stats *st);

/* ---- the timeline (timeline.c) ---- */

/* The profile's cells for svg__write_timeline(): profile_build_opts.cell_ns. */
#define SVG_TIMELINE_CELL_NS 10000000ull

struct svg_timeline_stats {
	uint32_t columns, rows, cell_ms;
	uint32_t group_ms; /* the flamegraph's time resolution */
	size_t frames, pairs;
	uint64_t total, max;
};

/* Writes the timeline page of `p` (built in time order with cells of
 * SVG_TIMELINE_CELL_NS, filtered): a heatmap of samples, a column per
 * second and a row per fraction of it, whose selected ranges the page's
 * script draws as flamegraphs (docs/prof-svg.md, Timeline). Uses o's
 * title, subtitle, font, font size, countname. roots: thread root frames;
 * hz: the sampling rate (0: unknown). 0, -ENOMEM, -EINVAL (nothing to
 * draw), -E2BIG (over 1,000,000 s), or -errno of the failed write. */
int svg__write_timeline(struct profile *p, enum profile_thread_root roots, double hz,
			const struct svg_opts *o, FILE *out, struct svg_timeline_stats *st);

/* ---- differential flamegraphs (diff-lines.c) ---- */

struct profile_diff;

/* The lines of a diff (report/diff.h, in its NEW profile's name space) for
 * svg__write() with `sd`: OLD normalized to NEW's total (or NEW to OLD's
 * with `negate`) unless `raw`; each line as wide as its NEW count (OLD with
 * `negate`), or, when that is 0, as its other count scaled: a stack that
 * vanished stays visible with the width it had. Allocates *lines, sd->old,
 * sd->new; 0 or -ENOMEM. */
int svg_diff__lines(const struct profile_diff *d, int raw, int negate, struct svg_diff *sd,
		    struct profile_line **lines, size_t *nlines);
/* Frees what svg_diff__lines() allocated in sd. */
void svg_diff__release(struct svg_diff *sd);

/* ---- palette maps (palette.c) ---- */

/* An empty map, or NULL with errno set. */
struct svg_palette_map *svg_palette_map__new(void);
/* NULL is a no-op. */
void svg_palette_map__free(struct svg_palette_map *m);
/* Adds the lines of a palette file, "NAME->rgb(R,G,B)" each (flamegraph.pl's
 * palette.map, whose "->rgb(...)" line, its root's, is kept for writing;
 * empty lines ignored; a later line wins). 0, -ENOMEM, or
 * -EBADMSG with the 1-based number of the first bad line in *bad_line. */
int svg_palette_map__read(struct svg_palette_map *m, const char *text, size_t len,
			  size_t *bad_line);
/* Writes every entry, sorted bytewise by name as flamegraph.pl sorts its
 * keys, in the same format; not names holding "->", which flamegraph.pl
 * cannot read back. 0 or
 * -errno of the failed write. */
int svg_palette_map__write(const struct svg_palette_map *m, FILE *out);
/* Did svg__write() add names since the map was made or read? */
int svg_palette_map__changed(const struct svg_palette_map *m);
/* Entries in the map. */
size_t svg_palette_map__count(const struct svg_palette_map *m);

#endif
