/* writer.c: svg__write(): the merged flame tree laid out and streamed as
 * one self-contained SVG through libxml2's xmlTextWriter, which escapes
 * every name and attribute (see svg.h; the document is described in
 * docs/prof-svg.md).
 *
 * The size budget is what shapes the markup: a frame is
 *   <g><title>NAME (COUNT samples)</title><rect x y width class/></g>
 * with x and width in samples (exact; scaled to 2^24 units when the total
 * is larger, so single-precision renderers stay exact), the rect's height
 * and the fills in CSS (one class per distinct color), and text labels only
 * on frames wide enough for one. The script (svg/js/) reads the
 * frames back from the DOM for hover, zoom and search. Stacks deeper
 * than the graph can usefully show are cut at a row, with a note (see
 * FLAME_MAX_ROWS), and titles keep the first SVG_MAX_NAME_CHARS of a name.
 * The frames too narrow to draw go to a compact table for the search
 * (hidden.c), and a note says how much they hold; its megabytes are
 * written past libxml2, straight to the file (no escaping to do). A fluid graph has an
 * intrinsic size (SVG_LAYOUT_WIDTH wide, with a viewBox) so that an <img>
 * shows it whole; the script makes it fluid in a browser tab. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "lib/grow.h"
#include "lib/keymap.h"
#include "svg/svg-internal.h"
#include "svg/xml-out.h"

#define MAX_UNITS (1u << 24) /* float-exact integers */
#define GLYPH_WIDTH 0.59      /* average glyph width per px of font size */
#define LABEL_PAD 3          /* px left of a label */
/* flamegraph.pl's default --minwidth: 0.1 px (at the layout width) */
#define DEFAULT_MINWIDTH_PX 0.1

struct writer {
	const struct profile *p;
	const struct svg_opts *o;
	struct flame_tree tree;
	struct flame_frame *frames;
	size_t nframes;
	uint32_t *klass;  /* color class per drawn frame */
	uint32_t *colors; /* class -> 0xRRGGBB */
	size_t ncolors, colors_cap;
	struct keymap color_ids;
	xmlTextWriterPtr w;
	FILE *out;	     /* under w: what write_hidden_table() writes straight to */
	struct svg_buf a, b; /* scratch */

	uint64_t total, units;
	uint64_t count_total; /* what percentages are of: total, or a diff's count */
	struct svg_diff_frames diff; /* when o->diff */
	struct svg_hidden hidden;    /* the frames not drawn, for the search */
	uint32_t rows;
	struct flame_cut cut; /* the rows left out past FLAME_MAX_ROWS or _FRAMES */
	double layout_width, fs;
	unsigned fh, pad_top, height;
	const char *countname;
};

static const char *frame_name(const struct writer *wr, uint32_t node, size_t *len)
{
	uint32_t id = wr->tree.nodes[node].name;

	if (!node) {
		*len = 3;
		return "all";
	}
	*len = strtab__len(&wr->p->names, id);
	return profile__name(wr->p, id);
}

/* x in drawing units: samples, or samples scaled to MAX_UNITS, rounded. */
static uint64_t units_of(const struct writer *wr, uint64_t x)
{
	if (wr->units == wr->total)
		return x;
	return (uint64_t)(((unsigned __int128)x * wr->units + wr->total / 2) / wr->total);
}

/* sRGB channel to linear light (WCAG 2's relative luminance). */
static double linear(uint32_t c8)
{
	double c = c8 / 255.0;

	return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

/* Does white text contrast more than black on rgb? (WCAG: the two ratios
 * are equal at a luminance of about 0.179.) Pure blue, deep purples and
 * dark greys get white labels; reds, yellows and pale shades black. */
static int dark(uint32_t rgb)
{
	double l = 0.2126 * linear(rgb >> 16 & 0xff) + 0.7152 * linear(rgb >> 8 & 0xff) +
		   0.0722 * linear(rgb & 0xff);

	return (1.05 / (l + 0.05)) > ((l + 0.05) / 0.05);
}

static int assign_colors(struct writer *wr)
{
	size_t i;

	if (keymap__init(&wr->color_ids, 64))
		return -ENOMEM;
	wr->klass = malloc((wr->nframes ? wr->nframes : 1) * sizeof(*wr->klass));
	if (!wr->klass)
		return -ENOMEM;
	for (i = 0; i < wr->nframes; i++) {
		size_t len;
		const char *name = frame_name(wr, wr->frames[i].node, &len);
		uint32_t rgb, id;
		int r;

		if (wr->o->diff) {
			rgb = svg_diff_frames__color(&wr->diff, wr->frames[i].node);
		} else if (!wr->frames[i].node || !wr->o->colors ||
		    !svg_palette_map__get(wr->o->colors, name, len, &rgb)) {
			rgb = svg_palette_color(wr->o->palette, name, len);
			if (wr->frames[i].node && wr->o->colors &&
			    svg_palette_map__add(wr->o->colors, name, len, rgb))
				return -ENOMEM;
		}
		r = keymap__put(&wr->color_ids, rgb, 0, (uint32_t)wr->ncolors, &id);
		if (r < 0)
			return -ENOMEM;
		if (r) {
			if (GROW(wr->colors, wr->colors_cap, wr->ncolors + 1))
				return -ENOMEM;
			id = (uint32_t)wr->ncolors;
			wr->colors[wr->ncolors++] = rgb;
		}
		wr->klass[i] = id;
	}
	return 0;
}

static int attr(struct writer *wr, const char *name, const char *value)
{
	X(libxml.write_attribute(wr->w, S(name), S(value)));
	return 0;
}

static int attr_num(struct writer *wr, const char *name, double v, int decimals)
{
	wr->b.len = 0;
	if (svg_buf__num(&wr->b, v, decimals))
		return -ENOMEM;
	return attr(wr, name, wr->b.s);
}

/* A count as the titles show it, without thousands separators. */
static int attr_count(struct writer *wr, const char *name, uint64_t v)
{
	char num[PROFILE_COUNT_TEXT];

	profile_count_text(num, v, wr->p->count_decimals);
	return attr(wr, name, num);
}

static int attr_u64(struct writer *wr, const char *name, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	return attr(wr, name, num);
}

/* Text made safe (see svg_text_clean()), then escaped by libxml2. */
static int attr_text(struct writer *wr, const char *name, const char *text)
{
	wr->b.len = 0;
	if (svg_buf__put(&wr->b, "", 0) || svg_text_clean(&wr->b, text, strlen(text)) < 0)
		return -ENOMEM;
	return attr(wr, name, wr->b.s);
}

static int text_elem(struct writer *wr, const char *id, const char *cls, const char *x,
		     double dx, double y, const char *text)
{
	int err;

	X(libxml.start_element(wr->w, S("text")));
	if ((err = attr(wr, "id", id)) || (cls && (err = attr(wr, "class", cls))) ||
	    (err = attr(wr, "x", x)) || (dx && (err = attr_num(wr, "dx", dx, 2))) ||
	    (err = attr_num(wr, "y", y, 2)))
		return err;
	if (text) {
		wr->b.len = 0;
		if (svg_buf__put(&wr->b, "", 0) || svg_text_clean(&wr->b, text, strlen(text)) < 0)
			return -ENOMEM;
		X(libxml.write_string(wr->w, S(wr->b.s)));
	}
	X(libxml.end_element(wr->w));
	X(libxml.write_raw(wr->w, S("\n")));
	return 0;
}

static int write_style(struct writer *wr)
{
	struct svg_buf *css = &wr->a;
	size_t i;

	css->len = 0;
	if (svg_buf__printf(css,
			    "\n.bg{fill:url(#bg)}\n"
			    "#subtitle{fill:#a0a0a0}\n"
			    "#title,#subtitle{text-anchor:middle}\n"
			    "#search,#ignorecase,#matched{text-anchor:end}\n"
			    "#unzoom,#search,#ignorecase{cursor:pointer}\n"
			    "#ignorecase{opacity:.4}\n"
			    "#ignorecase.on{opacity:1;font-weight:bold}\n"
			    ".hide{display:none}\n"
			    "#frames rect{height:%upx}\n"
			    "#frames g{cursor:pointer}\n"
			    "#frames g:hover rect{stroke:#000;stroke-width:.5;"
			    "vector-effect:non-scaling-stroke}\n"
			    "#frames g.m rect{fill:#e600e6}\n"
			    "#labels{pointer-events:none}\n"
			    "#labels text.d{fill:#fff}\n"
			    "#hidden{fill:#707070}\n",
			    wr->fh > 1 ? wr->fh - 1 : 1))
		return -ENOMEM;
	/* A differential graph's frames that are there only to show what
	 * vanished: see-through, outlined. */
	if (wr->o->diff && svg_buf__printf(css, "#frames g.v rect{fill-opacity:.45;stroke:#555;"
					   "stroke-width:.5;stroke-dasharray:3 2;"
					   "vector-effect:non-scaling-stroke}\n"))
		return -ENOMEM;
	for (i = 0; i < wr->ncolors; i++)
		if (svg_buf__printf(css, ".c%zu{fill:#%06" PRIx32 "}\n", i, wr->colors[i]))
			return -ENOMEM;
	X(libxml.start_element(wr->w, S("style")));
	X(libxml.write_string(wr->w, S(css->s)));
	X(libxml.end_element(wr->w));
	X(libxml.write_raw(wr->w, S("\n")));
	return 0;
}

/* "N frames too narrow to draw (P% of the samples end in them); search
 * counts them", under the title and the other notes: their time is in
 * their callers' width, the gap above those. */
static int write_hidden_note(struct writer *wr)
{
	const struct svg_opts *o = wr->o;
	double y = wr->fs * (2 + (o->subtitle ? 2 : 0) + (wr->cut.row ? 2 : 0) + 2);

	wr->a.len = 0;
	if (svg_buf__count(&wr->a, wr->hidden.frames) ||
	    svg_buf__printf(&wr->a, " frame%s too narrow to draw (%.2f%% of the %s end in "
			    "them); search counts them",
			    wr->hidden.frames == 1 ? "" : "s",
			    wr->count_total ? 100.0 * (double)wr->hidden.count /
						      (double)wr->count_total
					    : 0.0,
			    wr->countname))
		return -ENOMEM;
	return text_elem(wr, "hidden", NULL, "50%", 0, y, wr->a.s);
}

/* Past libxml2 (its buffer is flushed first): the table's megabytes go
 * to the file in large writes, not through its copies of 4 KB. */
static int put_out(void *ctx, const char *s, size_t len)
{
	struct writer *wr = ctx;

	errno = 0;
	if (fwrite(s, 1, len, wr->out) != len)
		return errno ? -errno : -EIO;
	return 0;
}

static int hidden_names_body(void *ctx)
{
	struct writer *wr = ctx;

	return svg_hidden__write_names(&wr->hidden, wr->p, put_out, wr);
}

static int hidden_frames_body(void *ctx)
{
	struct writer *wr = ctx;

	return put_out(wr, wr->hidden.stream.s, wr->hidden.stream.len);
}

/* The hidden frames' table (hidden.c), in two metadata elements the
 * script reads when a search runs, each one CDATA section (hidden.c made
 * the names safe for it): no escaping, and one piece for the parser. */
static int write_hidden_table(struct writer *wr)
{
	char dec[16];
	int err;

	snprintf(dec, sizeof(dec), "%u", wr->p->count_decimals);
	if (!wr->hidden.frames)
		return 0;
	err = xml_out__cdata_metadata(wr->w, "hidden-names", NULL, NULL, hidden_names_body, wr);
	if (!err)
		err = xml_out__cdata_metadata(wr->w, "hidden-frames", "data-decimals", dec,
					      hidden_frames_body, wr);
	return err;
}

static int write_head(struct writer *wr)
{
	const struct svg_opts *o = wr->o;
	const char *title = o->title ? o->title : o->inverted ? "Icicle Graph" : "Flame Graph";
	char w[32], vb[48];
	double bottom = wr->height - wr->fs - 5;
	int err;

	X(libxml.start_document(wr->w, "1.0", "UTF-8", NULL));
	X(libxml.start_element(wr->w, S("svg")));
	/* A fluid graph is SVG_LAYOUT_WIDTH wide with a viewBox, so that
	 * an <img> (no script) shows it at that size, or scaled as a whole;
	 * the script makes it 100% wide (data-fluid). */
	snprintf(w, sizeof(w), "%u", o->width ? o->width : SVG_LAYOUT_WIDTH);
	snprintf(vb, sizeof(vb), "0 0 %u %u", SVG_LAYOUT_WIDTH, wr->height);
	if ((err = attr(wr, "xmlns", "http://www.w3.org/2000/svg")) || (err = attr(wr, "width", w)) ||
	    (err = attr_u64(wr, "height", wr->height)) ||
	    (!o->width &&
	     ((err = attr(wr, "viewBox", vb)) || (err = attr(wr, "data-fluid", "1")))) ||
	    (err = attr_text(wr, "font-family", o->font ? o->font : "Verdana")) ||
	    (err = attr_num(wr, "font-size", wr->fs, 2)) ||
	    (err = attr_count(wr, "data-total", wr->count_total)) ||
	    (err = attr_u64(wr, "data-units", wr->units)) ||
	    (err = attr_u64(wr, "data-rows", wr->rows)) ||
	    (err = attr_u64(wr, "data-fh", wr->fh)) ||
	    (err = attr(wr, "data-inverted", o->inverted ? "1" : "0")) ||
	    (err = attr_text(wr, "data-countname", wr->countname)) ||
	    (wr->o->diff && (err = attr(wr, "data-diff", wr->o->diff->negate ? "negate" : "1"))))
		return err;
	X(libxml.write_raw(wr->w, S("\n")));
	X(libxml.write_raw(wr->w, S("<defs><linearGradient id=\"bg\" x2=\"0\" y2=\"1\">"
					 "<stop offset=\".05\" stop-color=\"#eeeeee\"/>"
					 "<stop offset=\".95\" stop-color=\"#eeeeb0\"/>"
					 "</linearGradient></defs>\n")));
	if ((err = write_style(wr)))
		return err;
	X(libxml.start_element(wr->w, S("script")));
	X(libxml.write_cdata(wr->w, S(svg_flamegraph_js)));
	X(libxml.end_element(wr->w));
	X(libxml.write_raw(wr->w, S("\n<rect class=\"bg\" width=\"100%\" height=\"100%\"/>\n")));
	X(libxml.start_element(wr->w, S("text")));
	if ((err = attr(wr, "id", "title")) || (err = attr(wr, "x", "50%")) ||
	    (err = attr_num(wr, "y", wr->fs * 2, 2)) ||
	    (err = attr_num(wr, "font-size", wr->fs + 5, 2)))
		return err;
	wr->b.len = 0;
	if (svg_buf__put(&wr->b, "", 0) || svg_text_clean(&wr->b, title, strlen(title)) < 0)
		return -ENOMEM;
	X(libxml.write_string(wr->w, S(wr->b.s)));
	X(libxml.end_element(wr->w));
	X(libxml.write_raw(wr->w, S("\n")));
	if (o->subtitle) {
		if ((err = text_elem(wr, "subtitle", NULL, "50%", 0, wr->fs * 4, o->subtitle)))
			return err;
	}
	if (wr->cut.row) {
		wr->a.len = 0;
		if (svg_buf__printf(&wr->a, "Stacks cut at depth %" PRIu32 ": %zu frame%s there and "
				    "all above not drawn (at most %u rows and %u frames)",
				    wr->cut.row, wr->cut.frames, wr->cut.frames == 1 ? "" : "s",
				    FLAME_MAX_ROWS, FLAME_MAX_FRAMES))
			return -ENOMEM;
		if ((err = text_elem(wr, "cut", NULL, "50%", 0, wr->fs * (o->subtitle ? 6 : 4),
				     wr->a.s)))
			return err;
	}
	if (wr->hidden.frames && (err = write_hidden_note(wr)))
		return err;
	/* The controls are hidden until the script runs: a graph shown
	 * without scripts (an <img>) has no dead buttons. */
	if ((err = text_elem(wr, "unzoom", "hide", "10", 0, wr->fs * 2, "Reset Zoom")) ||
	    (err = text_elem(wr, "search", "hide", "100%", -10 - 3 * wr->fs, wr->fs * 2,
			     "Search")) ||
	    (err = text_elem(wr, "ignorecase", "hide", "100%", -10, wr->fs * 2, "ic")) ||
	    (err = text_elem(wr, "details", NULL, "10", 0, bottom, NULL)) ||
	    (err = text_elem(wr, "matched", NULL, "100%", -10, bottom, NULL)))
		return err;
	return 0;
}

static uint32_t row_y(const struct writer *wr, uint32_t depth)
{
	return (wr->o->inverted ? depth : wr->rows - 1 - depth) * wr->fh;
}

static int write_frames(struct writer *wr)
{
	char vb[80];
	size_t i;
	int err;

	X(libxml.start_element(wr->w, S("svg")));
	snprintf(vb, sizeof(vb), "0 0 %" PRIu64 " %" PRIu64, wr->units,
		 (uint64_t)wr->rows * wr->fh);
	if ((err = attr(wr, "id", "frames")) || (err = attr_u64(wr, "y", wr->pad_top)) ||
	    (err = attr(wr, "width", "100%")) ||
	    (err = attr_u64(wr, "height", (uint64_t)wr->rows * wr->fh)) ||
	    (err = attr(wr, "viewBox", vb)) || (err = attr(wr, "preserveAspectRatio", "none")))
		return err;
	X(libxml.write_raw(wr->w, S("\n")));
	for (i = 0; i < wr->nframes; i++) {
		const struct flame_frame *f = &wr->frames[i];
		uint64_t width = wr->tree.nodes[f->node].total, x = units_of(wr, f->x);
		uint64_t count = wr->o->diff ? svg_diff_frames__count(&wr->diff, f->node) : width;
		size_t len;
		const char *name = frame_name(wr, f->node, &len);
		char cls[24];

		wr->a.len = 0;
		if (svg_buf__put(&wr->a, "", 0) || svg_frame_name_text(&wr->a, name, len))
			return -ENOMEM;
		if (svg_buf__put(&wr->a, " (", 2) || svg_buf__count_scaled(&wr->a, count, wr->p->count_decimals) ||
		    svg_buf__printf(&wr->a, " %s", wr->countname) ||
		    (wr->o->diff && (svg_buf__put(&wr->a, "; ", 2) ||
				     svg_diff_frames__describe(&wr->diff, f->node, &wr->a))) ||
		    svg_buf__put(&wr->a, ")", 1))
			return -ENOMEM;
		X(libxml.start_element(wr->w, S("g")));
		if (wr->o->diff && svg_diff_frames__vanished(&wr->diff, f->node) &&
		    (err = attr(wr, "class", "v")))
			return err;
		X(libxml.start_element(wr->w, S("title")));
		X(libxml.write_string(wr->w, S(wr->a.s)));
		X(libxml.end_element(wr->w));
		X(libxml.start_element(wr->w, S("rect")));
		snprintf(cls, sizeof(cls), "c%" PRIu32, wr->klass[i]);
		if ((err = attr_u64(wr, "x", x)) || (err = attr_u64(wr, "y", row_y(wr, f->depth))) ||
		    (err = attr_u64(wr, "width", units_of(wr, f->x + width) - x)) ||
		    (err = attr(wr, "class", cls)))
			return err;
		X(libxml.end_element(wr->w));
		X(libxml.end_element(wr->w));
		X(libxml.write_raw(wr->w, S("\n")));
	}
	X(libxml.end_element(wr->w));
	X(libxml.write_raw(wr->w, S("\n")));
	return 0;
}

/* Labels for the frames wide enough at the layout width; the script
 * redoes them for the window's width, on zoom and on resize. */
static int write_labels(struct writer *wr)
{
	double char_px = wr->fs * GLYPH_WIDTH;
	size_t i;
	int err;

	X(libxml.start_element(wr->w, S("svg")));
	if ((err = attr(wr, "id", "labels")) || (err = attr_u64(wr, "y", wr->pad_top)) ||
	    (err = attr(wr, "width", "100%")) ||
	    (err = attr_u64(wr, "height", (uint64_t)wr->rows * wr->fh)))
		return err;
	X(libxml.start_element(wr->w, S("g")));
	if ((err = attr(wr, "transform", "translate(3)")))
		return err;
	X(libxml.write_raw(wr->w, S("\n")));
	for (i = 0; i < wr->nframes; i++) {
		const struct flame_frame *f = &wr->frames[i];
		uint64_t count = wr->tree.nodes[f->node].total;
		double px = (double)count / (double)wr->total * wr->layout_width;
		size_t fit = svg_label_chars(px - LABEL_PAD, char_px), len;
		const char *name = frame_name(wr, f->node, &len);
		long chars;

		if (!fit)
			continue;
		wr->a.len = 0;
		if (svg_buf__put(&wr->a, "", 0) || (chars = svg_text_clean(&wr->a, name, len)) < 0)
			return -ENOMEM;
		if ((size_t)chars > fit) {
			wr->a.len = svg_text_prefix(wr->a.s, wr->a.len, fit - 2);
			if (svg_buf__put(&wr->a, "..", 2))
				return -ENOMEM;
		}
		wr->b.len = 0;
		if (svg_buf__num(&wr->b, 100.0 * (double)f->x / (double)wr->total, 3) ||
		    svg_buf__put(&wr->b, "%", 1))
			return -ENOMEM;
		X(libxml.start_element(wr->w, S("text")));
		X(libxml.write_attribute(wr->w, S("x"), S(wr->b.s)));
		/* a vanished frame is see-through: its fill shows pale */
		if (dark(wr->colors[wr->klass[i]]) &&
		    !(wr->o->diff && svg_diff_frames__vanished(&wr->diff, f->node)) &&
		    (err = attr(wr, "class", "d")))
			return err;
		if ((err = attr_num(wr, "y",
				    row_y(wr, f->depth) + (wr->fh - 1) / 2.0 + wr->fs / 4, 2)))
			return err;
		X(libxml.write_string(wr->w, S(wr->a.s)));
		X(libxml.end_element(wr->w));
		X(libxml.write_raw(wr->w, S("\n")));
	}
	X(libxml.end_element(wr->w));
	X(libxml.end_element(wr->w));
	X(libxml.write_raw(wr->w, S("\n")));
	return 0;
}

#undef X

static int layout(struct writer *wr, const struct profile_line *lines, size_t nlines)
{
	const struct svg_opts *o = wr->o;
	double min_total;
	uint32_t deepest;
	int err;

	err = o->flamechart ? flame_tree__build_chart(&wr->tree, wr->p, lines, nlines, o->reverse)
			    : flame_tree__build(&wr->tree, wr->p, lines, nlines, o->reverse);
	if (!err)
		err = flame_tree__order(&wr->tree, wr->p, o->flamechart ? SVG_SORT_INPUT : o->sort);
	if (err)
		return err;
	wr->total = wr->tree.nodes[0].total;
	if (!wr->total)
		return -EINVAL;
	wr->units = wr->total > MAX_UNITS ? MAX_UNITS : wr->total;
	wr->layout_width = o->width ? o->width : SVG_LAYOUT_WIDTH;
	switch (o->minwidth_unit) {
	case SVG_MINWIDTH_PX:
		min_total = o->minwidth / wr->layout_width * (double)wr->total;
		break;
	case SVG_MINWIDTH_PERCENT:
		min_total = o->minwidth / 100 * (double)wr->total;
		break;
	default:
		min_total = DEFAULT_MINWIDTH_PX / wr->layout_width * (double)wr->total;
	}
	/* Never narrower than one drawing unit: scaled widths stay >= 1. */
	if (min_total < (double)wr->total / (double)wr->units)
		min_total = (double)wr->total / (double)wr->units;
	err = flame_tree__layout(&wr->tree, min_total, FLAME_MAX_ROWS, FLAME_MAX_FRAMES, &wr->frames,
				 &wr->nframes, &deepest, &wr->cut);
	if (err)
		return err;
	wr->count_total = wr->total;
	if (o->diff) {
		err = svg_diff_frames__init(&wr->diff, &wr->tree, wr->p, lines, nlines, o->reverse,
					    o->diff);
		if (err)
			return err;
		wr->count_total = svg_diff_frames__count(&wr->diff, 0);
		wr->diff.decimals = wr->p->count_decimals;
	}
	err = svg_hidden__encode(&wr->hidden, &wr->tree, wr->p, wr->frames, wr->nframes,
				 wr->cut.row,
				 !o->diff ? NULL : o->diff->negate ? wr->diff.old : wr->diff.new);
	if (err)
		return err;
	wr->rows = deepest + 1;
	wr->fh = o->frame_height ? o->frame_height : 16;
	wr->fs = o->font_size > 0 ? o->font_size : 12;
	wr->pad_top = (unsigned)ceil(wr->fs * ((o->subtitle ? 5 : 3) + (wr->cut.row ? 2 : 0) +
					       (wr->hidden.frames ? 2 : 0)));
	wr->height = wr->pad_top + wr->rows * wr->fh + (unsigned)ceil(wr->fs * 2 + 10);
	wr->countname = o->countname ? o->countname : "samples";
	return assign_colors(wr);
}

int svg__write(const struct profile *p, const struct profile_line *lines, size_t nlines,
	       const struct svg_opts *o, FILE *out, struct svg_stats *st)
{
	struct writer wr = {.p = p, .o = o, .out = out};
	struct xml_out x = {.f = out};
	int err;

	err = layout(&wr, lines, nlines);
	if (err)
		goto out;
	if (st) {
		st->nodes = wr.tree.n;
		st->drawn = wr.nframes;
		st->rows = wr.rows;
		st->colors = wr.ncolors;
		st->cut_row = wr.cut.row;
	}
	err = xml_out__open(&x, out);
	wr.w = x.w;
	if (!err)
		err = write_head(&wr);
	if (!err)
		err = write_frames(&wr);
	if (!err)
		err = write_labels(&wr);
	if (!err)
		err = write_hidden_table(&wr);
	if (!err && libxml.end_document(wr.w) < 0)
		err = -EIO;
	if (!err && libxml.flush(wr.w) < 0)
		err = -EIO;
	err = xml_out__close(&x, err);
out:
	flame_tree__release(&wr.tree);
	svg_diff_frames__release(&wr.diff);
	svg_hidden__release(&wr.hidden);
	free(wr.frames);
	free(wr.klass);
	free(wr.colors);
	keymap__release(&wr.color_ids);
	free(wr.a.s);
	free(wr.b.s);
	return err;
}
