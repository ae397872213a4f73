/* test-diff.c: two profiles compared (report/diff-model.c): the union of
 * their lines with both counts, lines only in OLD kept (in NEW's name
 * space), normalization by total, the two-column text; two-column folded
 * text detected and split back into columns (report/diff-folded.c); and
 * the differential flamegraph's lines, colors and tooltips (svg/). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/diff.h"
#include "report/report.h"
#include "svg/svg.h"

static void load(struct profile *p, const char *text)
{
	struct folded_stats st;

	assert_int_equal(profile__init(p), 0);
	assert_int_equal(profile__from_folded(p, text, strlen(text), &st), 0);
	assert_int_equal(st.malformed, 0);
}

static char *written(const struct profile_diff *d, int raw)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(profile_diff__write(d, raw, f), 0);
	fclose(f);
	return out;
}

static const char old_text[] = "main;b 5\n"
			       "main;gone;deep 4\n"
			       "main;a;x 10\n";
static const char new_text[] = "main;a;x 20\n"
			       "main;b 5\n"
			       "main;newf 3\n";

static void test_union(void **state)
{
	struct profile o, n;
	struct profile_diff d;
	char *out;
	size_t i;

	(void)state;
	load(&o, old_text);
	load(&n, new_text);
	assert_int_equal(profile_diff__build(&d, &n, &o, NULL), 0);
	assert_int_equal(d.nlines, 4);
	assert_int_equal(d.old_total, 19);
	assert_int_equal(d.new_total, 28);
	out = written(&d, 1);
	assert_string_equal(out, "main;a;x 10 20\n"
				 "main;b 5 5\n"
				 "main;gone;deep 4 0\n"
				 "main;newf 0 3\n");
	free(out);
	/* OLD scaled to NEW's total, rounded: 10*28/19 = 14.7, 5 -> 7.4, 4 -> 5.9 */
	out = written(&d, 0);
	assert_string_equal(out, "main;a;x 15 20\n"
				 "main;b 7 5\n"
				 "main;gone;deep 6 0\n"
				 "main;newf 0 3\n");
	free(out);
	/* the OLD-only line lives in NEW's profile now */
	for (i = 0; i < d.nlines; i++) {
		const struct diff_line *l = &d.lines[i];
		const uint32_t *fr = profile__stack_frames(&n, l->stack);

		if (!l->new) {
			assert_int_equal(n.stacks[l->stack].depth, 3);
			assert_string_equal(profile__name(&n, fr[1]), "gone");
			assert_string_equal(profile__name(&n, fr[2]), "deep");
		}
	}
	profile_diff__release(&d);
	profile__release(&o);
	profile__release(&n);
}

static void test_scale(void **state)
{
	(void)state;
	assert_int_equal(profile_diff__scale(1, 2, 3), 2);  /* 1.5 rounds up */
	assert_int_equal(profile_diff__scale(1, 3, 1), 0);  /* 0.33 */
	assert_int_equal(profile_diff__scale(7, 0, 5), 7);  /* nothing to scale by */
	assert_int_equal(profile_diff__scale(UINT64_MAX, UINT64_MAX, UINT64_MAX), UINT64_MAX);
}

static void test_empty_side(void **state)
{
	struct profile o, n;
	struct profile_diff d;
	char *out;

	(void)state;
	load(&o, "");
	load(&n, "a;b 2\n");
	assert_int_equal(profile_diff__build(&d, &n, &o, NULL), 0);
	out = written(&d, 0);
	assert_string_equal(out, "a;b 0 2\n");
	free(out);
	profile_diff__release(&d);
	profile__release(&o);
	profile__release(&n);
}

/* ---- two-column folded text ---- */

static char *column(const char *text, enum diff_column col)
{
	char *out = NULL, *z;
	size_t len = 0;

	assert_int_equal(diff_folded__keep_column(text, strlen(text), col, &out, &len), 0);
	z = malloc(len + 1);
	memcpy(z, out, len);
	z[len] = '\0';
	free(out);
	return z;
}

static void test_two_column(void **state)
{
	static const char two[] = "a;b c 1 2\r\n\nmain;x 0 3\njunk\nlast 4.5 6";
	char *s;

	(void)state;
	assert_true(diff_folded__is_two_column(two, strlen(two)));
	s = column(two, DIFF_COLUMN_NEW);
	assert_string_equal(s, "a;b c 2\n\nmain;x 3\njunk\nlast 6\n");
	free(s);
	s = column(two, DIFF_COLUMN_OLD);
	assert_string_equal(s, "a;b c 1\n\nmain;x 0\njunk\nlast 4.5\n");
	free(s);
	/* one-column text, even with numbers in names, is not */
	assert_false(diff_folded__is_two_column("a;b 1\na;c 2 3\n", 14));
	assert_false(diff_folded__is_two_column("a;b 1\n", 6));
	assert_false(diff_folded__is_two_column("12 3\n", 5)); /* "12" is the stack */
	assert_false(diff_folded__is_two_column("", 0));
}

/* ---- the differential flamegraph ---- */

static char *draw(struct profile *n, const struct profile_diff *d, int raw, int negate)
{
	struct svg_diff sd;
	struct svg_opts o = {.minwidth_unit = SVG_MINWIDTH_PX, .minwidth = 0};
	struct profile_line *lines;
	size_t nlines, len = 0;
	char *out = NULL;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(svg_diff__lines(d, raw, negate, &sd, &lines, &nlines), 0);
	o.diff = &sd;
	assert_int_equal(svg__write(n, lines, nlines, &o, f, NULL), 0);
	fclose(f);
	free(lines);
	svg_diff__release(&sd);
	return out;
}

static void test_svg(void **state)
{
	struct profile o, n;
	struct profile_diff d;
	char *svg;

	(void)state;
	load(&o, old_text);
	load(&n, new_text);
	assert_int_equal(profile_diff__build(&d, &n, &o, NULL), 0);

	svg = draw(&n, &d, 1, 0);
	assert_non_null(strstr(svg, "data-diff=\"1\""));
	assert_non_null(strstr(svg, "data-total=\"28\"")); /* NEW's samples */
	assert_non_null(strstr(svg, "data-units=\"32\"")); /* plus what vanished */
	assert_non_null(strstr(svg, "<title>x (20 samples; old 10, new 20, +10, +100.00%)</title>"));
	/* the vanished path is drawn with its OLD width, marked */
	assert_non_null(strstr(svg, "<g class=\"v\"><title>gone (0 samples; old 4, new 0, -4, "
				    "-100.00%, not in NEW)</title><rect x=\"25\" y=\"16\" width=\"4\""));
	assert_non_null(strstr(svg, "<g class=\"v\"><title>deep (0 samples;"));
	assert_non_null(strstr(svg, "<title>newf (3 samples; old 0, new 3, +3, not in OLD)"));
	/* colors: x grew most (+10): full red; gone shrank 4 of 10: blue */
	assert_non_null(strstr(svg, "{fill:#ff0000}"));
	assert_non_null(strstr(svg, "{fill:#7e7eff}")); /* 210 * 6 / 10 = 126 */
	assert_non_null(strstr(svg, "{fill:#ffffff}")); /* b: unchanged */
	free(svg);

	/* normalized: OLD scaled by 28/19 */
	svg = draw(&n, &d, 0, 0);
	assert_non_null(strstr(svg, "<title>x (20 samples; old 15, new 20, +5, +33.33%)</title>"));
	free(svg);

	/* --negate: widths from OLD, NEW scaled to OLD's total; newf vanishes */
	svg = draw(&n, &d, 0, 1);
	assert_non_null(strstr(svg, "data-diff=\"negate\""));
	assert_non_null(strstr(svg, "data-total=\"19\""));
	assert_non_null(strstr(svg, "<title>x (10 samples; old 10, new 14, +4, +40.00%)</title>"));
	assert_non_null(strstr(svg, "<g class=\"v\"><title>newf (0 samples; old 0, new 2,"));
	assert_null(strstr(svg, "<g class=\"v\"><title>gone"));
	free(svg);

	profile_diff__release(&d);
	profile__release(&o);
	profile__release(&n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_union),	    cmocka_unit_test(test_scale),
		cmocka_unit_test(test_empty_side), cmocka_unit_test(test_two_column),
		cmocka_unit_test(test_svg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
