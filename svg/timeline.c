/* timeline.c: svg__write_timeline(): the page of `prof svg --timeline`, a
 * FlameScope-style subsecond-offset heatmap whose selected ranges become
 * flamegraphs in the page itself (no server). The aggregate comes from
 * timeline-model.c; this file writes it as one self-contained SVG through
 * libxml2's xmlTextWriter (which escapes the title and attributes), with
 * the data in four metadata elements, each one CDATA section that the
 * script (svg/timeline-js/) reads as text and never as markup:
 *   #tl-cells   a line per column (second): its rows' counts, ','
 *               between them, a 0 written as nothing, trailing ones cut;
 *   #tl-names   the frames' names, a line each (hidden.c's writer: made
 *               safe, cut to SVG_MAX_NAME_CHARS, "]]>" split);
 *   #tl-frames  base-64 VLQ: per frame after "all", depth-first, UP and
 *               its name's line (see struct tl_model);
 *   #tl-groups  base-64 VLQ: per group of cells, its pairs (frame delta,
 *               count).
 * The layout (cell sizes, the flamegraph) is the script's: it depends on
 * the window. docs/prof-svg.md (Timeline) describes the document. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "svg/svg-internal.h"
#include "svg/xml-out.h"

/* The heatmap's colors: no samples, then from one sample to the most of
 * a cell, linearly (the script uses the same ends; the legend is the
 * gradient between them). */
#define TL_COLOR_ZERO "#f2f2f2"
#define TL_COLOR_LOW  "#ffe6a8"
#define TL_COLOR_HIGH "#b00000"

struct tl_writer {
	const struct tl_model *m;
	const struct profile *p;
	const struct svg_opts *o;
	xmlTextWriterPtr w;
	FILE *out;
	struct svg_buf b;
};

static int attr(struct tl_writer *tw, const char *name, const char *value)
{
	X(libxml.write_attribute(tw->w, S(name), S(value)));
	return 0;
}

static int attr_u64(struct tl_writer *tw, const char *name, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	return attr(tw, name, num);
}

/* Text made safe (svg_text_clean()), then escaped by libxml2. */
static int clean(struct tl_writer *tw, const char *text)
{
	tw->b.len = 0;
	if (svg_buf__put(&tw->b, "", 0) || svg_text_clean(&tw->b, text, strlen(text)) < 0)
		return -ENOMEM;
	return 0;
}

static int text_elem(struct tl_writer *tw, const char *id, const char *text)
{
	int err;

	X(libxml.start_element(tw->w, S("text")));
	if ((err = attr(tw, "id", id)) || (err = attr(tw, "x", "10")) || (err = attr(tw, "y", "0")))
		return err;
	if (text) {
		if ((err = clean(tw, text)))
			return err;
		X(libxml.write_string(tw->w, S(tw->b.s)));
	}
	X(libxml.end_element(tw->w));
	X(libxml.write_raw(tw->w, S("\n")));
	return 0;
}

/* Straight to the file, past libxml2 (flushed first by the caller). */
static int put_out(void *ctx, const char *s, size_t len)
{
	struct tl_writer *tw = ctx;

	errno = 0;
	if (len && fwrite(s, 1, len, tw->out) != len)
		return errno ? -errno : -EIO;
	return 0;
}

static int cells_body(void *ctx)
{
	struct tl_writer *tw = ctx;
	const struct tl_model *m = tw->m;
	uint32_t col, row;
	int err;

	tw->b.len = 0;
	for (col = 0; col < m->columns; col++) {
		const uint64_t *c = m->counts + (size_t)col * m->rows;
		uint32_t last = m->rows;

		while (last && !c[last - 1])
			last--;
		for (row = 0; row < last; row++)
			if ((row && svg_buf__put(&tw->b, ",", 1)) ||
			    (c[row] && svg_buf__printf(&tw->b, "%" PRIu64, c[row])))
				return -ENOMEM;
		if (col + 1 < m->columns && svg_buf__put(&tw->b, "\n", 1))
			return -ENOMEM;
		if (tw->b.len >= SVG_HIDDEN_PIECE || col + 1 == m->columns) {
			if ((err = put_out(tw, tw->b.s, tw->b.len)))
				return err;
			tw->b.len = 0;
		}
	}
	return 0;
}

static int names_body(void *ctx)
{
	struct tl_writer *tw = ctx;

	return svg_hidden__write_names(&tw->m->names, tw->p, put_out, tw);
}

static int frames_body(void *ctx)
{
	struct tl_writer *tw = ctx;

	return put_out(tw, tw->m->frames_vlq.s, tw->m->frames_vlq.len);
}

static int groups_body(void *ctx)
{
	struct tl_writer *tw = ctx;

	return put_out(tw, tw->m->groups_vlq.s, tw->m->groups_vlq.len);
}

/* "Timeline: 12 s, 50 rows of 20 ms; ..." unless --subtitle. */
static int subtitle(struct tl_writer *tw, char *buf, size_t len)
{
	const struct tl_model *m = tw->m;
	uint64_t group_ms = (uint64_t)m->group * m->cell_ms;
	char res[64];

	if (m->group == 1)
		snprintf(res, sizeof(res), "exact to the cell");
	else if (group_ms % 1000 == 0)
		snprintf(res, sizeof(res), "to %" PRIu64 " s", group_ms / 1000);
	else
		snprintf(res, sizeof(res), "to %" PRIu64 " ms", group_ms);
	snprintf(buf, len,
		 "%" PRIu32 " s, a column per second, %" PRIu32 " rows of %" PRIu32
		 " ms; drag across cells (or click, then shift-click) for their flamegraph (%s)",
		 m->columns, m->rows, m->cell_ms, res);
	return 0;
}

static int write_head(struct tl_writer *tw)
{
	const struct tl_model *m = tw->m;
	const struct svg_opts *o = tw->o;
	char sub[256], fs[32];
	int err;

	snprintf(fs, sizeof(fs), "%g", o->font_size > 0 ? o->font_size : 12.0);
	X(libxml.start_document(tw->w, "1.0", "UTF-8", NULL));
	X(libxml.start_element(tw->w, S("svg")));
	if ((err = attr(tw, "xmlns", "http://www.w3.org/2000/svg")) ||
	    (err = attr(tw, "width", "1200")) || (err = attr(tw, "height", "600")) ||
	    (err = clean(tw, o->font ? o->font : "Verdana")) ||
	    (err = attr(tw, "font-family", tw->b.s)) || (err = attr(tw, "font-size", fs)) ||
	    (err = attr(tw, "data-timeline", "1")) ||
	    (err = attr_u64(tw, "data-columns", m->columns)) ||
	    (err = attr_u64(tw, "data-rows", m->rows)) ||
	    (err = attr_u64(tw, "data-cell-ms", m->cell_ms)) ||
	    (err = attr_u64(tw, "data-origin-ns", m->origin_ns)) ||
	    (err = attr_u64(tw, "data-group", m->group)) ||
	    (err = attr_u64(tw, "data-total", m->total)) ||
	    (err = attr_u64(tw, "data-max", m->max)) ||
	    (err = attr_u64(tw, "data-frames", m->nframes)) ||
	    (err = clean(tw, o->countname ? o->countname : "samples")) ||
	    (err = attr(tw, "data-countname", tw->b.s)) ||
	    (err = attr(tw, "data-zero", TL_COLOR_ZERO)) ||
	    (err = attr(tw, "data-low", TL_COLOR_LOW)) ||
	    (err = attr(tw, "data-high", TL_COLOR_HIGH)))
		return err;
	X(libxml.write_raw(tw->w, S("\n<defs><linearGradient id=\"ramp\">"
				    "<stop offset=\"0\" stop-color=\"" TL_COLOR_LOW "\"/>"
				    "<stop offset=\"1\" stop-color=\"" TL_COLOR_HIGH "\"/>"
				    "</linearGradient></defs>\n"
				    "<style>"
				    "text{fill:#000}#title{font-size:17px;text-anchor:middle}"
				    "#subtitle{fill:#555;text-anchor:middle}"
				    "#details{fill:#333}#legend text{font-size:11px}"
				    "#flame text{font-size:11px;pointer-events:none}"
				    "#flame rect{stroke:#fff;stroke-width:.5}"
				    "#flame g:hover rect{stroke:#000}"
				    "#cut{fill:#a00}"
				    "</style>\n")));
	X(libxml.start_element(tw->w, S("script")));
	X(libxml.write_cdata(tw->w, S(svg_timeline_js)));
	X(libxml.end_element(tw->w));
	X(libxml.write_raw(tw->w, S("\n<rect class=\"bg\" width=\"100%\" height=\"100%\" "
				    "fill=\"#ffffff\"/>\n")));
	if ((err = text_elem(tw, "title", o->title ? o->title : "Timeline")))
		return err;
	if (!o->subtitle)
		subtitle(tw, sub, sizeof(sub));
	if ((err = text_elem(tw, "subtitle", o->subtitle ? o->subtitle : sub)))
		return err;
	if (m->cut.row) {
		snprintf(sub, sizeof(sub),
			 "Stacks cut at depth %" PRIu32 " (at most %u frames): deeper frames count "
			 "in the frame below them",
			 m->cut.row, TL_MAX_FRAMES);
		if ((err = text_elem(tw, "cut", sub)))
			return err;
	}
	X(libxml.write_raw(tw->w, S("<g id=\"legend\"><rect id=\"legend-zero\" width=\"14\" "
				    "height=\"10\" fill=\"" TL_COLOR_ZERO "\"/>"
				    "<rect id=\"legend-ramp\" width=\"120\" height=\"10\" "
				    "fill=\"url(#ramp)\"/>")));
	snprintf(sub, sizeof(sub), "0, 1 to %" PRIu64 " %s a cell", m->max,
		 o->countname ? o->countname : "samples");
	if ((err = text_elem(tw, "legend-max", sub)))
		return err;
	X(libxml.write_raw(tw->w, S("</g>\n")));
	if ((err = text_elem(tw, "details", NULL)))
		return err;
	X(libxml.write_raw(tw->w, S("<g id=\"heatmap\"/>\n<svg id=\"flame\" width=\"100%\" "
				    "height=\"0\"/>\n")));
	return 0;
}

static int write_page(struct tl_writer *tw)
{
	int err;

	if ((err = write_head(tw)) ||
	    (err = xml_out__cdata_metadata(tw->w, "tl-cells", NULL, NULL, cells_body, tw)) ||
	    (err = xml_out__cdata_metadata(tw->w, "tl-names", NULL, NULL, names_body, tw)) ||
	    (err = xml_out__cdata_metadata(tw->w, "tl-frames", NULL, NULL, frames_body, tw)) ||
	    (err = xml_out__cdata_metadata(tw->w, "tl-groups", NULL, NULL, groups_body, tw)))
		return err;
	X(libxml.end_element(tw->w));
	X(libxml.end_document(tw->w));
	return 0;
}

int svg__write_timeline(struct profile *p, enum profile_thread_root roots, double hz,
			const struct svg_opts *o, FILE *out, struct svg_timeline_stats *st)
{
	struct tl_model m;
	struct tl_writer tw = {.m = &m, .p = p, .o = o, .out = out};
	struct xml_out x;
	int err;

	err = tl_model__build(&m, p, roots, hz);
	if (!err && st)
		*st = (struct svg_timeline_stats){
		    .columns = m.columns,
		    .rows = m.rows,
		    .cell_ms = m.cell_ms,
		    .group_ms = m.group * m.cell_ms,
		    .frames = m.nframes,
		    .pairs = m.npairs,
		    .total = m.total,
		    .max = m.max,
		};
	if (!err) {
		err = xml_out__open(&x, out);
		tw.w = x.w;
		if (!err)
			err = write_page(&tw);
		err = xml_out__close(&x, err);
	}
	free(tw.b.s);
	tl_model__release(&m);
	return err;
}
