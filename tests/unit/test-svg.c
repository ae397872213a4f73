/* test-svg.c: flamegraph SVGs (svg/): golden files of small graphs compared
 * byte for byte, hostile names escaped (checked by parsing every SVG with
 * libxml2), the tree and its layout (merging, pruning that keeps parents'
 * widths, icicles, reversed stacks, sorting), palettes and palette files,
 * the text helpers, and determinism.
 *
 * Golden files live in tests/golden/ (the tests run from the repository's
 * root). After a deliberate change of the output, regenerate them with
 *   GOLDEN_UPDATE=1 build/tests/unit/test-svg
 * and review the diff. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

#include "report/report.h"
#include "svg/svg-internal.h"
#include "svg/svg.h"

/* ---- helpers ---- */

static void load(struct profile *p, const char *folded)
{
	struct folded_stats st;

	assert_int_equal(profile__init(p), 0);
	assert_int_equal(profile__from_folded(p, folded, strlen(folded), &st), 0);
	assert_int_equal(st.malformed, 0);
}

/* The SVG of profile `p` (malloc'ed, NUL-terminated). */
static char *draw_profile(struct profile *p, const struct svg_opts *o, struct svg_stats *st,
			  size_t *len)
{
	struct profile_line *lines;
	size_t nlines, n = 0;
	char *out = NULL;
	FILE *f;

	assert_int_equal(profile__lines(p, NULL, &lines, &nlines), 0);
	f = open_memstream(&out, &n);
	assert_non_null(f);
	assert_int_equal(svg__write(p, lines, nlines, o, f, st), 0);
	fclose(f);
	free(lines);
	if (len)
		*len = n;
	return out;
}

static char *draw(const char *folded, const struct svg_opts *o)
{
	struct profile p;
	char *svg;

	load(&p, folded);
	svg = draw_profile(&p, o, NULL, NULL);
	profile__release(&p);
	return svg;
}

struct doc {
	xmlDocPtr doc;
	xmlXPathContextPtr xp;
};

/* Parses an SVG; every SVG a test makes must be well-formed XML. */
static void parse(struct doc *d, const char *svg)
{
	d->doc = xmlReadMemory(svg, (int)strlen(svg), "test.svg", NULL, XML_PARSE_NONET);
	assert_non_null(d->doc);
	d->xp = xmlXPathNewContext(d->doc);
	assert_non_null(d->xp);
	assert_int_equal(xmlXPathRegisterNs(d->xp, (const xmlChar *)"s",
					    (const xmlChar *)"http://www.w3.org/2000/svg"),
			 0);
}

static void unparse(struct doc *d)
{
	xmlXPathFreeContext(d->xp);
	xmlFreeDoc(d->doc);
}

static xmlXPathObjectPtr query(struct doc *d, const char *xpath)
{
	xmlXPathObjectPtr r = xmlXPathEvalExpression((const xmlChar *)xpath, d->xp);

	assert_non_null(r);
	return r;
}

static double number(struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static double number(struct doc *d, const char *fmt, ...)
{
	char xpath[512];
	xmlXPathObjectPtr r;
	double v;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(xpath, sizeof(xpath), fmt, ap);
	va_end(ap);
	r = query(d, xpath);
	v = xmlXPathCastToNumber(r);
	xmlXPathFreeObject(r);
	return v;
}

/* The string value of an XPath expression, malloc'ed. */
static char *string(struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *string(struct doc *d, const char *fmt, ...)
{
	char xpath[512];
	xmlXPathObjectPtr r;
	xmlChar *s;
	char *copy;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(xpath, sizeof(xpath), fmt, ap);
	va_end(ap);
	r = query(d, xpath);
	s = xmlXPathCastToString(r);
	copy = strdup((const char *)s);
	xmlFree(s);
	xmlXPathFreeObject(r);
	return copy;
}

/* XPath of the frame <g> whose title starts with "NAME (". */
#define FRAME "//s:svg[@id='frames']/s:g[starts-with(s:title, '%s (')]"

static double frame_attr(struct doc *d, const char *name, const char *attr)
{
	return number(d, FRAME "/s:rect/@%s", name, attr);
}

static int frames(struct doc *d)
{
	return (int)number(d, "count(//s:svg[@id='frames']/s:g)");
}

/* ---- golden files ---- */

static void golden(const char *file, const char *folded, const struct svg_opts *o)
{
	char path[256], *svg = draw(folded, o), *want;
	size_t want_len = 0;
	FILE *f;
	struct doc d;

	parse(&d, svg);
	unparse(&d);
	snprintf(path, sizeof(path), "tests/golden/%s", file);
	if (getenv("GOLDEN_UPDATE")) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(svg, f);
		fclose(f);
	}
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s (run from the repository's root; GOLDEN_UPDATE=1 makes it)",
			 path);
	want = malloc(1 << 20);
	assert_non_null(want);
	want_len = fread(want, 1, (1 << 20) - 1, f);
	want[want_len] = '\0';
	fclose(f);
	if (strcmp(svg, want)) {
		size_t i = 0;

		while (svg[i] && svg[i] == want[i])
			i++;
		fail_msg("%s differs from the output at byte %zu: ...%.60s...", path, i, svg + i);
	}
	free(want);
	free(svg);
}

static const char small[] = "main;init;load_config 2\n"
			    "main;run;parse;lex 4\n"
			    "main;run;parse 1\n"
			    "main;run;eval_[k] 3\n"
			    "main;idle 1\n"
			    "worker;loop;std::vector<int>::push_back 2\n";

static void test_golden_default(void **state)
{
	struct svg_opts o = {0};

	(void)state;
	golden("svg-default.svg", small, &o);
}

static void test_golden_options(void **state)
{
	struct svg_opts o = {
		.title = "Icicles & <friends>",
		.subtitle = "sorted by weight",
		.width = 800,
		.frame_height = 20,
		.font_size = 11,
		.font = "DejaVu Sans Mono",
		.minwidth_unit = SVG_MINWIDTH_PX,
		.minwidth = 100, /* px of 800: 1.5 samples, "idle" goes */
		.palette = SVG_PALETTE_JAVA,
		.sort = SVG_SORT_WEIGHT,
		.inverted = 1,
		.countname = "bytes",
	};

	(void)state;
	golden("svg-options.svg", small, &o);
}

static void test_golden_reverse(void **state)
{
	struct svg_opts o = {.reverse = 1, .palette = SVG_PALETTE_MEM};

	(void)state;
	golden("svg-reverse.svg", small, &o);
}

/* ---- escaping ---- */

/* The title of the frame with the given id in depth-first order. */
static char *title_of(struct doc *d, int index)
{
	return string(d, "(//s:svg[@id='frames']/s:g)[%d]/s:title", index + 1);
}

static void test_hostile_names_folded(void **state)
{
	static const char in[] = "<script>alert(1)</script> 5\n"
				 "quote\"s'and&amp;x 3\n"
				 "]]>cdata<!-- 2\n";
	char *svg = draw(in, &(struct svg_opts){0}), *t;
	struct doc d;

	(void)state;
	parse(&d, svg);
	/* One script: ours. The name is text, nowhere an element. */
	assert_int_equal((int)number(&d, "count(//s:script)"), 1);
	assert_int_equal((int)number(&d, "count(//*[local-name()='script'])"), 1);
	/* Depth-first, siblings by name: all, <script>..., ]]>cdata..., quote..., x */
	t = title_of(&d, 1);
	assert_string_equal(t, "<script>alert(1)</script> (5 samples)");
	free(t);
	t = title_of(&d, 2);
	assert_string_equal(t, "]]>cdata<!-- (2 samples)");
	free(t);
	t = title_of(&d, 3);
	assert_string_equal(t, "quote\"s'and&amp (3 samples)");
	free(t);
	/* Labels carry the same text. */
	t = string(&d, "//s:svg[@id='labels']//s:text[starts-with(., '<script>')]");
	assert_string_equal(t, "<script>alert(1)</script>");
	free(t);
	assert_null(strstr(svg, "<script>alert"));
	unparse(&d);
	free(svg);
}

/* Names straight into the string table, past profile__intern()'s
 * cleaning: control characters and invalid UTF-8 must still give a
 * document a parser accepts, with U+FFFD in their place. */
static void test_hostile_names_raw(void **state)
{
	static const struct {
		const char *raw, *shown;
	} cases[] = {
		{"tab\there", "tab\xef\xbf\xbdhere"},
		{"nl\ncr\r", "nl\xef\xbf\xbd"
			     "cr\xef\xbf\xbd"},
		{"bell\x07\x1b[31m", "bell\xef\xbf\xbd\xef\xbf\xbd[31m"},
		{"del\x7f", "del\xef\xbf\xbd"},
		{"c1\xc2\x85", "c1\xef\xbf\xbd"},
		{"lone\xff\xfe", "lone\xef\xbf\xbd\xef\xbf\xbd"},
		{"cut\xe2\x82", "cut\xef\xbf\xbd\xef\xbf\xbd"},
		{"overlong\xc0\xaf", "overlong\xef\xbf\xbd\xef\xbf\xbd"},
		{"surrogate\xed\xa0\x80", "surrogate\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
		{"nonchar\xef\xbf\xbe", "nonchar\xef\xbf\xbd"},
		{"ok \xc3\xa9\xe2\x82\xac\xf0\x9f\x94\xa5", "ok \xc3\xa9\xe2\x82\xac\xf0\x9f\x94\xa5"},
	};
	size_t i, n = sizeof(cases) / sizeof(cases[0]);
	struct profile p;
	struct doc d;
	char *svg;

	(void)state;
	assert_int_equal(profile__init(&p), 0);
	for (i = 0; i < n; i++) {
		struct profile_entry e = {.count = 1};
		uint32_t id;

		assert_int_equal(strtab__intern(&p.names, cases[i].raw, strlen(cases[i].raw), &id),
				 0);
		assert_int_equal(profile__add_stack(&p, &id, 1, &e.stack), 0);
		assert_int_equal(profile__add(&p, &e), 0);
	}
	svg = draw_profile(&p, &(struct svg_opts){.title = "t\x01itle\xff"}, NULL, NULL);
	parse(&d, svg);
	for (i = 0; i < n; i++) {
		char want[128], *t;

		snprintf(want, sizeof(want), "%s (1 samples)", cases[i].shown);
		t = string(&d, "//s:svg[@id='frames']/s:g/s:title[starts-with(., '%s')]",
			   cases[i].shown);
		if (strcmp(t, want))
			fail_msg("case %zu: title '%s', want '%s'", i, t, want);
		free(t);
	}
	{
		char *t = string(&d, "//s:text[@id='title']");

		assert_string_equal(t, "t\xef\xbf\xbditle\xef\xbf\xbd");
		free(t);
	}
	unparse(&d);
	free(svg);
	profile__release(&p);
}

/* ---- the tree and its layout ---- */

static void test_widths_follow_counts(void **state)
{
	static const char in[] = "a;b 30\na;c 10\nd 60\n";
	struct doc d;
	char *svg = draw(in, &(struct svg_opts){0});

	(void)state;
	parse(&d, svg);
	assert_int_equal(frames(&d), 5);
	assert_true(number(&d, "//s:svg/@data-total") == 100);
	assert_true(frame_attr(&d, "all", "width") == 100);
	assert_true(frame_attr(&d, "a", "width") == 40);
	assert_true(frame_attr(&d, "b", "width") == 30);
	assert_true(frame_attr(&d, "c", "width") == 10);
	assert_true(frame_attr(&d, "d", "width") == 60);
	/* FlameGraph's layout: siblings by name, children from the parent's
	 * left edge. */
	assert_true(frame_attr(&d, "a", "x") == 0);
	assert_true(frame_attr(&d, "b", "x") == 0);
	assert_true(frame_attr(&d, "c", "x") == 30);
	assert_true(frame_attr(&d, "d", "x") == 40);
	/* Rows: the root at the bottom; deeper frames higher. */
	assert_true(frame_attr(&d, "all", "y") > frame_attr(&d, "a", "y"));
	assert_true(frame_attr(&d, "a", "y") > frame_attr(&d, "b", "y"));
	assert_true(frame_attr(&d, "b", "y") == 0);
	unparse(&d);
	free(svg);
}

/* Lines that sort apart but share a path ("a;b" and "a;b;x" around
 * "a;b c;y") merge into one frame. */
static void test_merges_split_prefixes(void **state)
{
	static const char in[] = "a;b 1\na;b c;y 2\na;b;x 3\n";
	struct doc d;
	char *svg = draw(in, &(struct svg_opts){0});

	(void)state;
	parse(&d, svg);
	assert_int_equal((int)number(&d, "count(" FRAME ")", "b"), 1);
	assert_true(frame_attr(&d, "b", "width") == 4);
	assert_true(frame_attr(&d, "b c", "width") == 2);
	assert_int_equal(frames(&d), 6);
	unparse(&d);
	free(svg);
}

static void test_minwidth_prunes_and_keeps_parent_width(void **state)
{
	/* 2000 samples: the default, 0.1 px of 1200, is 0.17 samples: all
	 * drawn, and no note. */
	static const char in[] = "p;big 1900\np;tiny 1\np;tiny;deeper 1\np;mid 98\n";
	struct svg_opts o = {0};
	struct doc d;
	char *svg = draw(in, &o);

	(void)state;
	parse(&d, svg);
	assert_int_equal(frames(&d), 6);
	assert_true(frame_attr(&d, "tiny", "width") == 2);
	assert_int_equal((int)number(&d, "count(//s:*[@id='hidden'])"), 0);
	assert_int_equal((int)number(&d, "count(//s:metadata)"), 0);
	unparse(&d);
	free(svg);

	o.minwidth_unit = SVG_MINWIDTH_PERCENT;
	o.minwidth = 1;
	svg = draw(in, &o);
	parse(&d, svg);
	assert_int_equal(frames(&d), 4); /* all, p, big, mid */
	assert_int_equal((int)number(&d, "count(" FRAME ")", "tiny"), 0);
	/* The parent keeps its full width; the pruned time is a gap. */
	assert_true(frame_attr(&d, "p", "width") == 2000);
	assert_true(frame_attr(&d, "big", "x") == 0);
	assert_true(frame_attr(&d, "mid", "x") == 1900);
	assert_true(frame_attr(&d, "mid", "width") == 98);
	unparse(&d);
	free(svg);

	/* In pixels: laid out for 1200 px, 120 px is 10% (200 samples). */
	o.minwidth_unit = SVG_MINWIDTH_PX;
	o.minwidth = 120;
	svg = draw(in, &o);
	parse(&d, svg);
	assert_int_equal(frames(&d), 3);
	unparse(&d);
	free(svg);

	/* 0 draws everything. */
	o.minwidth = 0;
	svg = draw(in, &o);
	parse(&d, svg);
	assert_int_equal(frames(&d), 6);
	unparse(&d);
	free(svg);
}

/* The frames left out go to the table the search reads (hidden.c): names
 * once each, one a line, the most used first; per drawn frame with hidden
 * children, base-64 VLQ: the frame's index delta, "2*(UP+1) NAME COUNT"
 * per hidden frame or "2*NAME+1" for an only child with its parent's
 * count, then 0. */
static void test_hidden_frames_table(void **state)
{
	static const struct {
		const char *in, *names, *stream, *note;
	} cases[] = {
		/* tiny (2) under p (frame 1), deeper (1) its child */
		{"p;big 1900\np;tiny 1\np;tiny;deeper 1\np;mid 98\n", "tiny\ndeeper", "BCACCBBA",
		 "2 frames too narrow to draw (0.10% of the samples end in them); "
		 "search counts them"},
		/* c (10) and its only child d (10): one frame for a search */
		{"p;big 1990\np;c;d 10\n", "c\nd", "BCAKDA",
		 "2 frames too narrow to draw (0.50% of the samples end in them); "
		 "search counts them"},
		/* two groups: under p (frame 1) and under big (frame 2), and
		 * siblings: the second is UP 1 (token 4, "E") */
		{"p;big 1980\np;big;x 4\np;y 8\np;z 8\n", "y\nz\nx", "BCAIEBIABCCEA",
		 "3 frames too narrow to draw (1.00% of the samples end in them); "
		 "search counts them"},
		/* w, used three times, is line 0 */
		{"p;big 1980\np;u;w 4\np;v;w 4\np;w 8\n", "w\nu\nv", "BCBEBECEBEAIA",
		 "5 frames too narrow to draw (0.80% of the samples end in them); "
		 "search counts them"},
		/* names in CDATA, unescaped: a "]]>" is split across two
		 * sections, which the parser joins back */
		{"p;big 1980\np;a]]>b 10\np;<&]] 10\n", "<&]]\na]]>b", "BCAKEBKA",
		 "2 frames too narrow to draw (1.00% of the samples end in them); "
		 "search counts them"},
	};
	struct svg_opts o = {.minwidth_unit = SVG_MINWIDTH_PERCENT, .minwidth = 1};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *svg = draw(cases[i].in, &o), *got;
		struct doc d;

		parse(&d, svg);
		got = string(&d, "//s:metadata[@id='hidden-names']");
		assert_string_equal(got, cases[i].names);
		free(got);
		got = string(&d, "//s:metadata[@id='hidden-frames']");
		assert_string_equal(got, cases[i].stream);
		free(got);
		got = string(&d, "//s:*[@id='hidden']");
		assert_string_equal(got, cases[i].note);
		free(got);
		unparse(&d);
		free(svg);
	}
}

static void test_inverted_flips_rows(void **state)
{
	static const char in[] = "a;b;c 1\n";
	struct doc d;
	char *svg = draw(in, &(struct svg_opts){.inverted = 1});
	char *title;

	(void)state;
	parse(&d, svg);
	assert_true(frame_attr(&d, "all", "y") == 0);
	assert_true(frame_attr(&d, "a", "y") == 16);
	assert_true(frame_attr(&d, "b", "y") == 32);
	assert_true(frame_attr(&d, "c", "y") == 48);
	title = string(&d, "//s:text[@id='title']");
	assert_string_equal(title, "Icicle Graph");
	free(title);
	unparse(&d);
	free(svg);

	svg = draw(in, &(struct svg_opts){0});
	parse(&d, svg);
	assert_true(frame_attr(&d, "all", "y") == 48);
	assert_true(frame_attr(&d, "c", "y") == 0);
	unparse(&d);
	free(svg);
}

static void test_reverse_merges_from_the_leaf(void **state)
{
	static const char in[] = "main;a;malloc 3\nmain;b;malloc 2\nmain;b 1\n";
	struct doc d;
	char *svg = draw(in, &(struct svg_opts){.reverse = 1});

	(void)state;
	parse(&d, svg);
	/* malloc is now a root child holding both callers. */
	assert_true(frame_attr(&d, "malloc", "width") == 5);
	assert_true(number(&d, "(" FRAME ")[1]/s:rect/@y", "malloc") ==
		    number(&d, "(" FRAME ")[1]/s:rect/@y", "b"));
	assert_int_equal((int)number(&d, "count(" FRAME ")", "main"), 3);
	unparse(&d);
	free(svg);
}

/* A flame chart (--flamechart): the lines left to right in their order, a
 * frame continuing only the same frame of the line just before; a name
 * that comes back later is a new frame. */
static void test_flamechart_keeps_line_order(void **state)
{
	static const char in[] = "main;init;load 3\nmain;run;step 2\nmain;run;step 4\n"
				 "main;run;io 1\nmain;init;load 2\nmain;done 1\n";
	struct profile_line lines[8];
	struct profile p;
	struct doc d;
	char *svg = NULL;
	size_t i, n = 0, len = 0;
	FILE *f;

	(void)state;
	load(&p, in);
	assert_int_equal(p.nentries, 6);
	for (i = 0; i < p.nentries; i++)
		lines[n++] = (struct profile_line){.stack = p.entries[i].stack,
						   .count = p.entries[i].count};
	f = open_memstream(&svg, &len);
	assert_non_null(f);
	assert_int_equal(svg__write(&p, lines, n, &(struct svg_opts){.flamechart = 1}, f, NULL), 0);
	fclose(f);
	parse(&d, svg);
	assert_int_equal(frames(&d), 10);
	/* init twice (it came back), step once (two lines in a row) */
	assert_int_equal((int)number(&d, "count(" FRAME ")", "init"), 2);
	assert_int_equal((int)number(&d, "count(" FRAME ")", "step"), 1);
	assert_true(frame_attr(&d, "step", "width") == 6);
	assert_true(number(&d, "(" FRAME ")[1]/s:rect/@x", "init") == 0);
	assert_true(number(&d, "(" FRAME ")[2]/s:rect/@x", "init") == 10);
	assert_true(frame_attr(&d, "run", "x") == 3);
	assert_true(frame_attr(&d, "io", "x") == 9);
	assert_true(frame_attr(&d, "done", "x") == 12);
	unparse(&d);
	free(svg);
	profile__release(&p);
}

static void test_sort_weight(void **state)
{
	static const char in[] = "a 1\nb 5\nc 3\n";
	struct doc d;
	char *svg = draw(in, &(struct svg_opts){.sort = SVG_SORT_WEIGHT});
	char *t;

	(void)state;
	parse(&d, svg);
	assert_true(frame_attr(&d, "b", "x") == 0);
	assert_true(frame_attr(&d, "c", "x") == 5);
	assert_true(frame_attr(&d, "a", "x") == 8);
	t = title_of(&d, 1);
	assert_string_equal(t, "b (5 samples)");
	free(t);
	unparse(&d);
	free(svg);
}

static void test_thread_roots_and_countname(void **state)
{
	static const char in[] = "x;y 2\n";
	struct profile p;
	struct profile_line *lines;
	size_t nlines;
	char *out = NULL, *t;
	size_t n = 0;
	FILE *f;
	struct doc d;
	uint32_t root;

	(void)state;
	load(&p, in);
	assert_int_equal(profile__lines(&p, NULL, &lines, &nlines), 0);
	assert_int_equal(strtab__intern(&p.names, "pool-1", 6, &root), 0);
	lines[0].root = root;
	f = open_memstream(&out, &n);
	assert_int_equal(svg__write(&p, lines, nlines, &(struct svg_opts){.countname = "bytes"}, f,
				    NULL),
			 0);
	fclose(f);
	parse(&d, out);
	t = title_of(&d, 1);
	assert_string_equal(t, "pool-1 (2 bytes)");
	free(t);
	t = string(&d, "//s:svg/@data-countname");
	assert_string_equal(t, "bytes");
	free(t);
	unparse(&d);
	free(out);
	free(lines);
	profile__release(&p);
}

static void test_large_totals_are_scaled(void **state)
{
	/* 2^40 bytes: drawn in 2^24 units, the counts in titles exact. */
	static const char in[] = "big 824633720832\nsmall 274877906944\n";
	struct doc d;
	char *svg = draw(in, &(struct svg_opts){0}), *t;

	(void)state;
	parse(&d, svg);
	assert_true(number(&d, "//s:svg/@data-units") == 16777216);
	assert_true(frame_attr(&d, "all", "width") == 16777216);
	assert_true(frame_attr(&d, "big", "width") == 12582912);
	assert_true(frame_attr(&d, "small", "x") == 12582912);
	t = title_of(&d, 1);
	assert_string_equal(t, "big (824,633,720,832 samples)");
	free(t);
	unparse(&d);
	free(svg);
}

static void test_fluid_and_fixed_width(void **state)
{
	struct doc d;
	char *svg = draw("a 1\n", &(struct svg_opts){0}), *w;

	(void)state;
	parse(&d, svg);
	/* an intrinsic size for <img>; the script makes it fluid */
	w = string(&d, "/s:svg/@width");
	assert_string_equal(w, "1200");
	free(w);
	w = string(&d, "/s:svg/@viewBox");
	assert_string_equal(w, "0 0 1200 102");
	free(w);
	w = string(&d, "/s:svg/@data-fluid");
	assert_string_equal(w, "1");
	free(w);
	unparse(&d);
	free(svg);
	svg = draw("a 1\n", &(struct svg_opts){.width = 900});
	parse(&d, svg);
	w = string(&d, "/s:svg/@width");
	assert_string_equal(w, "900");
	free(w);
	assert_int_equal((int)number(&d, "count(/s:svg/@viewBox)"), 0);
	unparse(&d);
	free(svg);
}

static void test_labels_fit(void **state)
{
	/* 1200 px: "w" gets 600 px, the long name is cut with "..", the
	 * narrow frame gets no label. */
	char in[1024];
	struct doc d;
	char *svg, *t;

	(void)state;
	snprintf(in, sizeof(in), "w;%0300d 500\nw;narrow 1\nx 499\n", 7);
	svg = draw(in, &(struct svg_opts){0});
	parse(&d, svg);
	t = string(&d, "//s:svg[@id='labels']//s:text[starts-with(., '000')]");
	assert_true(strlen(t) > 10 && strlen(t) < 300);
	assert_int_equal(strcmp(t + strlen(t) - 2, ".."), 0);
	free(t);
	assert_true(number(&d, "count(//s:svg[@id='labels']//s:text[. = 'narrow'])") == 0);
	assert_true(number(&d, "count(//s:svg[@id='labels']//s:text[. = 'x'])") == 1);
	unparse(&d);
	free(svg);
}

/* ---- colors ---- */

/* The fill of a frame's class, from the CSS: 0xRRGGBB. */
static uint32_t fill_of(struct doc *d, const char *name)
{
	char *cls = string(d, FRAME "/s:rect/@class", name), *css = string(d, "//s:style");
	char rule[32], *at;
	unsigned v;

	snprintf(rule, sizeof(rule), ".%s{fill:#", cls);
	at = strstr(css, rule);
	assert_non_null(at);
	assert_int_equal(sscanf(at + strlen(rule), "%6x", &v), 1);
	free(cls);
	free(css);
	return v;
}

static double hue(uint32_t rgb)
{
	double r = (rgb >> 16) / 255.0, g = (rgb >> 8 & 0xff) / 255.0, b = (rgb & 0xff) / 255.0;
	double mx = fmax(r, fmax(g, b)), mn = fmin(r, fmin(g, b)), h;

	if (mx == mn)
		return 0;
	if (mx == r)
		h = fmod((g - b) / (mx - mn), 6);
	else if (mx == g)
		h = (b - r) / (mx - mn) + 2;
	else
		h = (r - g) / (mx - mn) + 4;
	h *= 60;
	return h < 0 ? h + 360 : h;
}

static void test_java_palette_hues(void **state)
{
	static const char in[] = "start_thread;java/lang/Thread.run;Foo.bar_[j];Foo.baz_[i] 4\n"
				 "start_thread;JVM::compile;do_syscall_64_[k] 3\n";
	struct doc d;
	char *svg = draw(in, &(struct svg_opts){.palette = SVG_PALETTE_JAVA});
	const char *names[] = {"start_thread", "java/lang/Thread.run", "Foo.bar_[j]",
			       "Foo.baz_[i]", "JVM::compile", "do_syscall_64_[k]"};
	double h[6];
	char *ck, *cu;
	size_t i, j;

	(void)state;
	parse(&d, svg);
	for (i = 0; i < 6; i++)
		h[i] = hue(fill_of(&d, names[i]));
	/* Six kinds, six hues at least 10 degrees apart. */
	for (i = 0; i < 6; i++)
		for (j = i + 1; j < 6; j++)
			if (fabs(h[i] - h[j]) < 10)
				fail_msg("%s (%.0f) and %s (%.0f) share a hue", names[i], h[i],
					 names[j], h[j]);
	/* Kernel and user frames are different classes. */
	ck = string(&d, FRAME "/s:rect/@class", "do_syscall_64_[k]");
	cu = string(&d, FRAME "/s:rect/@class", "start_thread");
	assert_string_not_equal(ck, cu);
	free(ck);
	free(cu);
	unparse(&d);
	free(svg);
}

static void test_colors_stable_per_name(void **state)
{
	struct doc d1, d2;
	char *s1 = draw("a;shared_fn 1\nb 1\n", &(struct svg_opts){0});
	char *s2 = draw("zzz;yyy;shared_fn 5\nq 9\n", &(struct svg_opts){0});
	uint32_t c;

	(void)state;
	parse(&d1, s1);
	parse(&d2, s2);
	c = fill_of(&d1, "shared_fn");
	assert_int_equal(c, fill_of(&d2, "shared_fn"));
	/* hot: red 205-255, green 0-230, blue 0-55 */
	assert_true((c >> 16) >= 205 && (c & 0xff) <= 55);
	unparse(&d1);
	unparse(&d2);
	free(s1);
	free(s2);
	/* The annotation does not change the shade within a palette. */
	assert_int_equal(svg_palette_color(SVG_PALETTE_HOT, "f_[k]", 5),
			 svg_palette_color(SVG_PALETTE_HOT, "f", 1));
	assert_int_not_equal(svg_palette_color(SVG_PALETTE_JAVA, "f_[k]", 5),
			     svg_palette_color(SVG_PALETTE_JAVA, "f", 1));
}

static void test_palette_file(void **state)
{
	/* flamegraph.pl --cp writes its root's color first, an empty name. */
	static const char file[] = "->rgb(250,112,9)\n"
				   "alpha->rgb(1,2,3)\n"
				   "\n"
				   "we->ird->rgb( 10 , 20,30 )\r\n";
	struct svg_palette_map *m = svg_palette_map__new();
	struct svg_opts o = {0};
	struct doc d;
	char *svg, *out = NULL;
	size_t bad, n = 0;
	FILE *f;

	(void)state;
	assert_non_null(m);
	assert_int_equal(svg_palette_map__read(m, file, strlen(file), &bad), 0);
	assert_int_equal(svg_palette_map__count(m), 2);
	assert_false(svg_palette_map__changed(m));
	o.colors = m;
	svg = draw("alpha;beta 2\nwe->ird 1\n", &o);
	parse(&d, svg);
	assert_int_equal(fill_of(&d, "alpha"), 0x010203);
	assert_int_equal(fill_of(&d, "we->ird"), 0x0a141e);
	assert_int_equal(fill_of(&d, "beta"), svg_palette_color(SVG_PALETTE_HOT, "beta", 4));
	unparse(&d);
	free(svg);
	/* beta was added; the file is written back sorted, the root's line
	 * kept, "we->ird" left out (flamegraph.pl would read "we" -> "ird"). */
	assert_true(svg_palette_map__changed(m));
	f = open_memstream(&out, &n);
	assert_int_equal(svg_palette_map__write(m, f), 0);
	fclose(f);
	{
		char want[256];
		uint32_t c = svg_palette_color(SVG_PALETTE_HOT, "beta", 4);

		snprintf(want, sizeof(want),
			 "->rgb(250,112,9)\nalpha->rgb(1,2,3)\nbeta->rgb(%u,%u,%u)\n",
			 c >> 16, c >> 8 & 0xff, c & 0xff);
		assert_string_equal(out, want);
	}
	free(out);
	svg_palette_map__free(m);

	/* Bad lines are named. */
	m = svg_palette_map__new();
	assert_int_equal(svg_palette_map__read(m, "a->rgb(1,2,3)\nb->rgb(1,2)\n", 26, &bad),
			 -EBADMSG);
	assert_int_equal(bad, 2);
	assert_int_equal(svg_palette_map__read(m, "c->rgb(1,2,256)\n", 16, &bad), -EBADMSG);
	assert_int_equal(svg_palette_map__read(m, "->rgb(1,2)\n", 11, &bad), -EBADMSG);
	assert_int_equal(svg_palette_map__read(m, "noarrow\n", 8, &bad), -EBADMSG);
	svg_palette_map__free(m);
	svg_palette_map__free(NULL);
}

/* ---- determinism, emptiness, size ---- */

static void test_deterministic(void **state)
{
	char *a = draw(small, &(struct svg_opts){.palette = SVG_PALETTE_JAVA});
	char *b = draw(small, &(struct svg_opts){.palette = SVG_PALETTE_JAVA});

	(void)state;
	assert_string_equal(a, b);
	free(a);
	free(b);
}

static void test_empty_is_an_error(void **state)
{
	struct profile p;
	struct profile_line *lines;
	size_t nlines;
	FILE *f = fopen("/dev/null", "w");

	(void)state;
	load(&p, "a;b 0\n");
	assert_int_equal(profile__lines(&p, NULL, &lines, &nlines), 0);
	assert_int_equal(svg__write(&p, lines, nlines, &(struct svg_opts){0}, f, NULL), -EINVAL);
	free(lines);
	profile__release(&p);
	fclose(f);
}

static void test_bytes_per_frame(void **state)
{
	/* 2,000 distinct stacks of realistic names, minwidth 0: the size
	 * beyond the fixed part (style, script) stays under 120 bytes a
	 * frame. */
	struct profile p;
	char *in = malloc(1 << 20), *svg;
	size_t len = 0, size, base;
	struct svg_stats st;
	int i;

	(void)state;
	assert_non_null(in);
	for (i = 0; i < 2000; i++)
		len += (size_t)snprintf(in + len, (1 << 20) - len,
					"start_thread;worker_main;process_request_%d;"
					"[libc.so.6+0x%x];do_syscall_64_[k] %d\n",
					i % 50, 0x8000 + i, 1 + i % 7);
	load(&p, "x 1\n");
	free(draw_profile(&p, &(struct svg_opts){0}, NULL, &base));
	profile__release(&p);
	load(&p, in);
	svg = draw_profile(&p, &(struct svg_opts){.minwidth_unit = SVG_MINWIDTH_PX}, &st, &size);
	print_message("# %zu frames, %zu bytes, %.1f bytes/frame beyond the fixed %zu\n", st.drawn,
		      size, (double)(size - base) / (double)st.drawn, base);
	assert_true(st.drawn > 4000);
	assert_true((double)(size - base) / (double)st.drawn < 120);
	free(svg);
	free(in);
	profile__release(&p);
}

/* ---- text helpers ---- */

static void test_text_helpers(void **state)
{
	struct svg_buf b = {0};

	(void)state;
	assert_int_equal(svg_buf__count(&b, 0), 0);
	assert_string_equal(b.s, "0");
	b.len = 0;
	svg_buf__count(&b, 1234567);
	assert_string_equal(b.s, "1,234,567");
	b.len = 0;
	svg_buf__count(&b, 18446744073709551615ull);
	assert_string_equal(b.s, "18,446,744,073,709,551,615");
	b.len = 0;
	svg_buf__num(&b, 12.5, 3);
	assert_string_equal(b.s, "12.5");
	b.len = 0;
	svg_buf__num(&b, 3.0, 2);
	assert_string_equal(b.s, "3");
	b.len = 0;
	svg_buf__num(&b, -0.0001, 2);
	assert_string_equal(b.s, "0");
	b.len = 0;
	svg_buf__num(&b, 1.0 / 3, 3);
	assert_string_equal(b.s, "0.333");
	b.len = 0;
	assert_int_equal(svg_text_clean(&b, "h\xc3\xa9!", 4), 3);
	assert_string_equal(b.s, "h\xc3\xa9!");
	assert_int_equal(svg_text_prefix("h\xc3\xa9!", 4, 2), 3);
	assert_int_equal(svg_text_prefix("abc", 3, 10), 3);
	assert_int_equal(svg_label_chars(10, 7.08), 0);
	assert_int_equal(svg_label_chars(22, 7.08), 3);
	assert_int_equal(svg_label_chars(100, 7.08), 14);
	free(b.s);
}

/* svg_text_clean() takes printable ASCII eight bytes a step: every byte
 * value at every place of a 19-byte name (two steps, then the byte loop)
 * is kept or replaced as the byte loop alone would. */
static void test_text_clean_every_byte(void **state)
{
	struct svg_buf b = {0};
	char in[19], want[32];
	unsigned c;
	size_t at;

	(void)state;
	for (c = 0; c < 256; c++) {
		for (at = 0; at < sizeof(in); at++) {
			int keep = c >= 0x20 && c < 0x7f;

			memset(in, 'a', sizeof(in));
			in[at] = (char)c;
			memcpy(want, in, at);
			if (keep)
				want[at] = (char)c;
			else
				memcpy(want + at, "\xef\xbf\xbd", 3);
			memcpy(want + at + (keep ? 1 : 3), in + at + 1, sizeof(in) - at - 1);
			want[sizeof(in) + (keep ? 0 : 2)] = '\0';
			b.len = 0;
			assert_int_equal(svg_text_clean(&b, in, sizeof(in)), (long)sizeof(in));
			assert_string_equal(b.s, want);
		}
	}
	free(b.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_default),
		cmocka_unit_test(test_golden_options),
		cmocka_unit_test(test_golden_reverse),
		cmocka_unit_test(test_hostile_names_folded),
		cmocka_unit_test(test_hostile_names_raw),
		cmocka_unit_test(test_widths_follow_counts),
		cmocka_unit_test(test_merges_split_prefixes),
		cmocka_unit_test(test_minwidth_prunes_and_keeps_parent_width),
		cmocka_unit_test(test_hidden_frames_table),
		cmocka_unit_test(test_inverted_flips_rows),
		cmocka_unit_test(test_reverse_merges_from_the_leaf),
		cmocka_unit_test(test_sort_weight),
		cmocka_unit_test(test_flamechart_keeps_line_order),
		cmocka_unit_test(test_thread_roots_and_countname),
		cmocka_unit_test(test_large_totals_are_scaled),
		cmocka_unit_test(test_fluid_and_fixed_width),
		cmocka_unit_test(test_labels_fit),
		cmocka_unit_test(test_java_palette_hues),
		cmocka_unit_test(test_colors_stable_per_name),
		cmocka_unit_test(test_palette_file),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_empty_is_an_error),
		cmocka_unit_test(test_bytes_per_frame),
		cmocka_unit_test(test_text_helpers),
		cmocka_unit_test(test_text_clean_every_byte),
	};
	int rc;

	xmlInitParser();
	rc = cmocka_run_group_tests_name("svg", tests, NULL, NULL);
	xmlCleanupParser();
	return rc;
}
