/* test-sched-chart.c: the scheduler chart (svg/sched-chart.h) of a
 * sched_profile built by hand: every SVG parsed back with libxml2 and
 * checked for its rows and their order, groups of numbered threads,
 * segment widths that follow the nanoseconds, tooltips, the tenancy grid,
 * the preemptors, hostile names kept as text, threads that never switched
 * out, the lost-events warning, determinism and write errors. */
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

#include "report/sched.h"
#include "svg/sched-chart.h"

#define MS 1000000ull
#define NCPUS 4
#define HOSTILE "<script>alert(1)</script>&\""

/* ---- a profile by hand ---- */

struct thread_spec {
	const char *name;
	uint32_t tid;
	uint64_t start_ms, end_ms;
	uint64_t ns_ms[SCHED_NBUCKETS];
	uint64_t switches[REC_STATE_COUNT];
	uint64_t cpu_ms[NCPUS];
};

static const struct thread_spec specs[] = {
	{"main", 100, 0, 1000, {600, 50, 10, 300, 40, 0}, {3, 7, 412, 5}, {400, 200, 0, 0}},
	{"pool-1", 101, 0, 1000, {200, 100, 0, 700, 0, 0}, {0, 10, 100}, {0, 50, 150, 0}},
	{"pool-2", 102, 0, 1000, {300, 0, 0, 700, 0, 0}, {0, 0, 30}, {300, 0, 0, 0}},
	{HOSTILE, 103, 0, 1000, {10, 0, 0, 990, 0, 0}, {0, 0, 5}, {0, 10, 0, 0}},
	{"spin", 104, 0, 1000, {1000, 0, 0, 0, 0, 0}, {0}, {0, 0, 0, 1000}},
	{"pool-10", 110, 500, 1000, {100, 0, 50, 350, 0, 0}, {0, 0, 12, 0, 0, 1}, {0, 0, 100, 0}},
};

#define NSPECS (sizeof(specs) / sizeof(specs[0]))

static uint32_t intern(struct sched_profile *sp, const char *s)
{
	uint32_t id;

	assert_int_equal(strtab__intern(&sp->names, s, strlen(s), &id), 0);
	return id;
}

static void share(struct sched_profile *sp, struct sched_share *s, const char *name,
		  uint32_t tid, uint64_t count, uint64_t ns)
{
	s->name = intern(sp, name);
	s->tid = tid;
	s->count = count;
	s->ns = ns;
}

static void build(struct sched_profile *sp)
{
	size_t i, k;

	memset(sp, 0, sizeof(*sp));
	assert_int_equal(strtab__init(&sp->names), 0);
	sp->threads = calloc(NSPECS, sizeof(*sp->threads));
	assert_non_null(sp->threads);
	sp->nthreads = NSPECS;
	sp->ncpus = NCPUS;
	sp->start = 5000 * MS;
	sp->end = sp->start + 1000 * MS;
	sp->nrecords = 1234;
	for (i = 0; i < NSPECS; i++) {
		const struct thread_spec *s = &specs[i];
		struct sched_thread *t = &sp->threads[i];

		t->tid = s->tid;
		t->pid = 100;
		t->name = intern(sp, s->name);
		t->start = sp->start + s->start_ms * MS;
		t->end = sp->start + s->end_ms * MS;
		for (k = 0; k < SCHED_NBUCKETS; k++)
			t->ns[k] = s->ns_ms[k] * MS;
		for (k = 0; k < REC_STATE_COUNT; k++) {
			t->switches[k] = s->switches[k];
			t->nswitches += s->switches[k];
		}
		t->cpu_ns = calloc(NCPUS, sizeof(*t->cpu_ns));
		assert_non_null(t->cpu_ns);
		for (k = 0; k < NCPUS; k++)
			t->cpu_ns[k] = s->cpu_ms[k] * MS;
	}
	/* main: two preemptors (50 ms in all), one waker. */
	sp->threads[0].preemptors = calloc(2, sizeof(struct sched_share));
	sp->threads[0].npreemptors = 2;
	share(sp, &sp->threads[0].preemptors[0], "pool-2", 102, 3, 20 * MS);
	share(sp, &sp->threads[0].preemptors[1], "kworker/0:1", 17, 4, 30 * MS);
	sp->threads[0].wakers = calloc(1, sizeof(struct sched_share));
	sp->threads[0].nwakers = 1;
	share(sp, &sp->threads[0].wakers[0], "pool-1", 101, 20, 0);
	/* pool-1: six preemptors, 10 ms each: five shown, one of "others". */
	sp->threads[1].preemptors = calloc(6, sizeof(struct sched_share));
	sp->threads[1].npreemptors = 6;
	for (k = 0; k < 6; k++) {
		char name[16];

		snprintf(name, sizeof(name), "task%zu", k);
		share(sp, &sp->threads[1].preemptors[k], name, 200 + (uint32_t)k, 1 + k,
		      (10 + k) * MS);
	}
	/* pool-10: woken twice. */
	sp->threads[5].wakers = calloc(1, sizeof(struct sched_share));
	sp->threads[5].nwakers = 1;
	share(sp, &sp->threads[5].wakers[0], "main", 100, 2, 0);
}

static void release(struct sched_profile *sp)
{
	size_t i;

	for (i = 0; i < sp->nthreads; i++) {
		free(sp->threads[i].cpu_ns);
		free(sp->threads[i].preemptors);
		free(sp->threads[i].wakers);
	}
	free(sp->threads);
	strtab__release(&sp->names);
}

/* ---- rendering and reading back ---- */

static char *draw(const struct sched_profile *sp, const struct sched_chart_opts *o, size_t *len)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	assert_non_null(f);
	assert_int_equal(sched_chart__write(sp, o, f), 0);
	fclose(f);
	if (len)
		*len = n;
	return out;
}

struct doc {
	xmlDocPtr doc;
	xmlXPathContextPtr xp;
};

static void parse(struct doc *d, const char *svg)
{
	d->doc = xmlReadMemory(svg, (int)strlen(svg), "sched.svg", NULL, XML_PARSE_NONET);
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

static xmlXPathObjectPtr vquery(struct doc *d, const char *fmt, va_list ap)
{
	char xpath[1024];
	xmlXPathObjectPtr r;

	vsnprintf(xpath, sizeof(xpath), fmt, ap);
	r = xmlXPathEvalExpression((const xmlChar *)xpath, d->xp);
	if (!r)
		fail_msg("bad xpath: %s", xpath);
	return r;
}

static double number(struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static double number(struct doc *d, const char *fmt, ...)
{
	xmlXPathObjectPtr r;
	va_list ap;
	double v;

	va_start(ap, fmt);
	r = vquery(d, fmt, ap);
	va_end(ap);
	v = xmlXPathCastToNumber(r);
	xmlXPathFreeObject(r);
	return v;
}

/* The string value, malloc'ed. */
static char *string(struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *string(struct doc *d, const char *fmt, ...)
{
	xmlXPathObjectPtr r;
	xmlChar *s;
	char *copy;
	va_list ap;

	va_start(ap, fmt);
	r = vquery(d, fmt, ap);
	va_end(ap);
	s = xmlXPathCastToString(r);
	copy = strdup((const char *)s);
	xmlFree(s);
	xmlXPathFreeObject(r);
	return copy;
}

static void assert_str(char *got, const char *want)
{
	if (strcmp(got, want))
		fail_msg("got '%s', want '%s'", got, want);
	free(got);
}

#define TROW(tid) "//s:g[@class='trow'][@data-tid='" #tid "']"
#define PROW(tid) "//s:g[@class='prow'][@data-tid='" #tid "']"
#define ROWS "//s:g[@id='states']/s:g[contains(concat(' ', @class, ' '), ' row ')]"
#define ROW(tid) ROWS "[@data-tid='" #tid "']"
#define SEG ROWS "[@data-tid='%u']/s:rect[@data-bucket='%s']" /* tid, bucket key */

/* ---- tests ---- */

/* One row per thread, in the documented order: groups by the time they
 * wanted a CPU (spin 1000 ms, pool-* 750, main 660, the hostile one 10),
 * threads within pool-* likewise (pool-1 and pool-2 tie at 300: by name). */
static void test_rows_and_order(void **state)
{
	static const char *const order[] = {"104", "101", "102", "110", "100", "103"};
	struct sched_profile sp;
	struct doc d;
	char *svg;
	size_t i;

	(void)state;
	build(&sp);
	svg = draw(&sp, NULL, NULL);
	parse(&d, svg);
	assert_int_equal((int)number(&d, "count(" ROWS ")"), NSPECS);
	for (i = 0; i < NSPECS; i++)
		assert_str(string(&d, "(" ROWS ")[%zu]/@data-tid", i + 1), order[i]);
	/* Rows go down the page in that order. */
	for (i = 1; i < NSPECS; i++)
		assert_true(number(&d, "(" ROWS ")[%zu]/s:rect[@class='hl']/@y", i) <
			    number(&d, "(" ROWS ")[%zu]/s:rect[@class='hl']/@y", i + 1));
	assert_str(string(&d, ROW(100) "/s:text[@class='label']"), "main (100)");
	assert_str(string(&d, "/s:svg/@data-threads"), "6");
	assert_str(string(&d, "/s:svg/@data-cpus"), "4");
	assert_str(string(&d, "//s:text[@id='title']"), "Scheduler states");
	assert_str(string(&d, "//s:text[@id='subtitle']"),
		   "1,000.0 ms recorded, 6 threads on 4 CPUs, 1,234 scheduler events");
	assert_int_equal((int)number(&d, "count(//s:text[@id='lost'])"), 0);
	/* The legend: every bucket, in order. */
	assert_int_equal((int)number(&d, "count(//s:g[@class='legend'])"), SCHED_NBUCKETS);
	assert_str(string(&d, "(//s:g[@class='legend'])[3]/s:text"),
		   "R waiting for CPU after wake-up");
	unparse(&d);
	free(svg);
	release(&sp);
}

/* Each segment is as wide as its share of the bar, within 0.5 px, and
 * the segments tile the bar without gaps. */
static void check_widths(const struct sched_profile *sp, struct doc *d)
{
	static const char *const keys[] = {"on-cpu", "preempted", "woken", "sleeping", "disk",
					   "other"};
	size_t i, k;

	for (i = 0; i < sp->nthreads; i++) {
		const struct sched_thread *t = &sp->threads[i];
		double x0, w, x, total = 0;

		for (k = 0; k < SCHED_NBUCKETS; k++)
			total += (double)t->ns[k];
		x0 = number(d, ROWS "[@data-tid='%u']/s:rect[@class='frame'][1]/@x", t->tid);
		w = number(d, ROWS "[@data-tid='%u']/s:rect[@class='frame'][1]/@width", t->tid);
		assert_true(w > 100);
		x = x0;
		for (k = 0; k < SCHED_NBUCKETS; k++) {
			double sx, sw, want = w * (double)t->ns[k] / total;
			int n = (int)number(d, "count(" SEG ")", t->tid, keys[k]);

			if (!t->ns[k]) {
				assert_int_equal(n, 0);
				continue;
			}
			assert_int_equal(n, 1);
			sx = number(d, SEG "/@x", t->tid, keys[k]);
			sw = number(d, SEG "/@width", t->tid, keys[k]);
			if (fabs(sw - want) > 0.5 || fabs(sx - x) > 0.5)
				fail_msg("tid %u %s: x %g width %g, want x %g width %g", t->tid,
					 keys[k], sx, sw, x, want);
			assert_int_equal((uint64_t)number(d, SEG "/@data-ns", t->tid, keys[k]),
					 t->ns[k]);
			x = sx + sw;
		}
		assert_true(fabs(x - (x0 + w)) < 0.5);
	}
}

static void test_widths_follow_ns(void **state)
{
	struct sched_profile sp;
	struct doc d;
	uint64_t seed = 12345;
	char *svg;
	size_t i, k;

	(void)state;
	build(&sp);
	svg = draw(&sp, NULL, NULL);
	parse(&d, svg);
	check_widths(&sp, &d);
	unparse(&d);
	free(svg);
	/* Odd values, some tiny, some empty: the same holds. */
	for (i = 0; i < sp.nthreads; i++)
		for (k = 0; k < SCHED_NBUCKETS; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			sp.threads[i].ns[k] =
				(seed >> 33) % 7 ? (seed >> 20) % (1ull << (k * 6 + 8)) : 0;
		}
	sp.threads[0].ns[SCHED_ON_CPU] = 1;
	svg = draw(&sp, &(struct sched_chart_opts){.width = 1733}, NULL);
	parse(&d, svg);
	check_widths(&sp, &d);
	unparse(&d);
	free(svg);
	release(&sp);
}

static void test_tooltips(void **state)
{
	struct sched_profile sp;
	struct doc d;
	char *svg;

	(void)state;
	build(&sp);
	svg = draw(&sp, NULL, NULL);
	parse(&d, svg);
	assert_str(string(&d, ROW(100) "/s:rect[@data-bucket='sleeping']/s:title"),
		   "S sleeping: 300.0 ms (30.0%), 412 switch-outs");
	assert_str(string(&d, ROW(100) "/s:rect[@data-bucket='on-cpu']/s:title"),
		   "On CPU: 600.0 ms (60.0%)");
	assert_str(string(&d, ROW(100) "/s:rect[@data-bucket='preempted']/s:title"),
		   "R preempted: 50.0 ms (5.0%), 10 switch-outs");
	assert_str(string(&d, ROW(100) "/s:rect[@data-bucket='woken']/s:title"),
		   "R waiting for CPU after wake-up: 10.0 ms (1.0%), 20 wake-ups");
	assert_str(string(&d, ROW(100) "/s:rect[@data-bucket='disk']/s:title"),
		   "D uninterruptible (I/O): 40.0 ms (4.0%), 5 switch-outs");
	assert_str(string(&d, ROW(100) "/s:rect[@data-bucket='sleeping']/@data-ms"), "300.000");
	/* pool-10 lived half the recording: shares are of its own time. */
	assert_str(string(&d, ROW(110) "/s:rect[@data-bucket='sleeping']/s:title"),
		   "S sleeping: 350.0 ms (70.0%), 12 switch-outs");
	assert_str(string(&d, ROW(110) "/s:rect[@data-bucket='woken']/s:title"),
		   "R waiting for CPU after wake-up: 50.0 ms (10.0%), 2 wake-ups");
	assert_str(string(&d, ROW(110) "/s:title"),
		   "pool-10 (110), pid 100: 500.0 ms in the recording, from 500.0 to 1,000.0 ms");
	/* Switch-outs: R (R and R+), S, D, other. */
	assert_str(string(&d, ROW(100) "/s:rect[@data-state='R']/@data-count"), "10");
	assert_str(string(&d, ROW(100) "/s:rect[@data-state='S']/s:title"),
		   "S sleeping: 412 switch-outs (96.5%)");
	assert_str(string(&d, ROW(100) "/s:text[@class='n']"), "427 switch-outs");
	assert_str(string(&d, ROW(110) "/s:rect[@data-state='other']/@data-count"), "1");
	unparse(&d);
	free(svg);
	release(&sp);
}

/* pool-1, pool-2, pool-10: one group with a header row of their sums;
 * threads alone in their pattern get no header. */
static void test_groups(void **state)
{
	struct sched_profile sp;
	struct doc d;
	char *svg;

	(void)state;
	build(&sp);
	svg = draw(&sp, NULL, NULL);
	parse(&d, svg);
	assert_int_equal((int)number(&d, "count(//s:g[@class='group'])"), 1);
	assert_str(string(&d, "//s:g[@class='group']/@data-group"), "pool-*");
	assert_str(string(&d, "//s:g[@class='group']/@data-threads"), "3");
	assert_str(string(&d, "//s:g[@class='group']/s:text[@class='label']"),
		   "pool-* (3 threads)");
	assert_str(string(&d, "//s:g[@class='group']/s:rect[@data-bucket='on-cpu']/@data-ns"),
		   "600000000");
	assert_str(string(&d, "//s:g[@class='group']/s:rect[@data-bucket='sleeping']/s:title"),
		   "S sleeping: 1,750.0 ms (70.0%), 142 switch-outs");
	assert_str(string(&d, "//s:g[@class='group']/s:text[@class='n']"), "153 switch-outs");
	/* The header comes right before its threads, which are members. */
	assert_str(string(&d, "//s:g[@class='group']/following-sibling::s:g[1]/@data-tid"),
		   "101");
	assert_int_equal((int)number(&d, "count(//s:g[@class='row member'][@data-group='pool-*'])"),
			 3);
	assert_int_equal((int)number(&d, "count(//s:g[@class='row'])"), 3);
	assert_true(number(&d, ROW(101) "/s:text[@class='label']/@x") >
		    number(&d, ROW(100) "/s:text[@class='label']/@x"));
	unparse(&d);
	free(svg);
	release(&sp);
}

static void test_tenancy(void **state)
{
	struct sched_profile sp;
	struct doc d;
	char *svg;

	(void)state;
	build(&sp);
	svg = draw(&sp, NULL, NULL);
	parse(&d, svg);
	assert_int_equal((int)number(&d, "count(//s:g[@class='trow'])"), NSPECS);
	/* Only cells with time: 2 + 2 + 1 + 1 + 1 + 1. */
	assert_int_equal((int)number(&d, "count(//s:rect[@class='cell'])"), 8);
	assert_int_equal((int)number(&d, "count(" TROW(100) "/s:rect[@class='cell'])"),
			 2);
	assert_str(string(&d, TROW(100) "/s:rect[@data-cpu='0']/@data-pct"),
		   "66.7");
	assert_str(string(&d, TROW(100) "/s:rect[@data-cpu='1']/s:title"),
		   "main (100) on CPU 1: 200.0 ms (33.3% of its on-CPU time)");
	assert_str(string(&d, TROW(104) "/s:rect[@class='cell']/@data-cpu"),
		   "3");
	assert_str(string(&d, TROW(104) "/s:rect[@class='cell']/@data-ms"),
		   "1000.000");
	assert_str(string(&d, TROW(104) "/s:rect[@class='cell']/@data-pct"),
		   "100.0");
	/* Columns line up: CPU 3 is 3 cells right of CPU 0. */
	{
		double x0 = number(&d, TROW(100) "/s:rect[@data-cpu='0']/@x");
		double x3 = number(&d, TROW(104) "/s:rect[@data-cpu='3']/@x");
		double w = number(&d, TROW(100) "/s:rect[@class='grid']/@width");

		assert_true(fabs(x3 - x0 - 3 * w / NCPUS) < 0.01);
	}
	/* A darker cell for a larger share. */
	{
		char *a = string(&d, TROW(100) "/s:rect[@data-cpu='0']/@fill");
		char *b = string(&d, TROW(100) "/s:rect[@data-cpu='1']/@fill");

		assert_true(strtol(a + 1, NULL, 16) < strtol(b + 1, NULL, 16));
		free(a);
		free(b);
	}
	unparse(&d);
	free(svg);
	release(&sp);
}

static void test_tenancy_only(void **state)
{
	struct sched_profile sp;
	struct doc d;
	char *svg;

	(void)state;
	build(&sp);
	svg = draw(&sp, &(struct sched_chart_opts){.panels = SCHED_PANEL_TENANCY}, NULL);
	parse(&d, svg);
	assert_int_equal((int)number(&d, "count(//s:g[@id='tenancy'])"), 1);
	assert_int_equal((int)number(&d, "count(//s:g[@id='states'])"), 0);
	assert_int_equal((int)number(&d, "count(//s:g[@id='preemptors'])"), 0);
	assert_int_equal((int)number(&d, "count(//s:rect[@class='cell'])"), 8);
	/* The page is as tall as what it holds. */
	assert_true(number(&d, "/s:svg/@height") < 300);
	unparse(&d);
	free(svg);
	release(&sp);
}

static void test_preemptors(void **state)
{
	struct sched_profile sp;
	struct doc d;
	char *svg;

	(void)state;
	build(&sp);
	svg = draw(&sp, NULL, NULL);
	parse(&d, svg);
	assert_int_equal((int)number(&d, "count(//s:g[@class='prow'])"), 2);
	/* main: kworker first (30 of 50 ms), then pool-2. */
	assert_str(string(&d, "(" PROW(100) "/s:rect[@data-preemptor])[1]/s:title"),
		   "preempted by kworker/0:1 (17): 30.0 ms (60.0% of R-preempted time), 4 times");
	assert_str(string(&d, "(" PROW(100) "/s:rect[@data-preemptor])[2]/@data-preemptor"),
		   "pool-2");
	assert_str(string(&d, PROW(100) "/s:text[@class='n']"),
		   "kworker/0:1 (17) 60.0%, 4x; pool-2 (102) 40.0%, 3x");
	{
		double w = number(&d, PROW(100) "/s:rect[@class='frame']/@width");
		double w1 = number(&d, "(" PROW(100) "/s:rect[@data-preemptor])[1]/@width");

		assert_true(fabs(w1 - 0.6 * w) < 0.5);
	}
	/* pool-1: five named (most time first), the sixth among the others. */
	assert_int_equal((int)number(&d, "count(" PROW(101) "/s:rect[@data-preemptor])"),
			 5);
	assert_str(string(&d, "(" PROW(101) "/s:rect[@data-preemptor])[1]/@data-preemptor"),
		   "task5");
	assert_str(string(&d, PROW(101) "/s:rect[@data-others]/@data-others"),
		   "1");
	assert_str(string(&d, PROW(101) "/s:rect[@data-others]/@data-ns"),
		   "10000000");
	/* Shares are of the R-preempted time: 75 ms over 100 ms. */
	assert_true(number(&d, "sum(" PROW(101) "/s:rect[contains(@class, 'pre ')]/@width)") <
		    0.76 * number(&d, PROW(101) "/s:rect[@class='frame']/@width"));
	unparse(&d);
	free(svg);
	release(&sp);
}

/* A name that looks like markup is text: in labels, tooltips and
 * attributes, and no element comes of it. */
static void test_hostile_name(void **state)
{
	struct sched_profile sp;
	struct doc d;
	char *svg;

	(void)state;
	build(&sp);
	svg = draw(&sp, &(struct sched_chart_opts){.title = "<b>t</b>"}, NULL);
	parse(&d, svg);
	assert_int_equal((int)number(&d, "count(//*[local-name()='script'])"), 0);
	assert_int_equal((int)number(&d, "count(//*[local-name()='b'])"), 0);
	assert_null(strstr(svg, "<script>"));
	assert_str(string(&d, ROW(103) "/@data-name"), HOSTILE);
	assert_str(string(&d, ROW(103) "/s:text[@class='label']"), HOSTILE " (103)");
	assert_str(string(&d, TROW(103) "/s:rect[@class='cell']/s:title"),
		   HOSTILE " (103) on CPU 1: 10.0 ms (100.0% of its on-CPU time)");
	assert_str(string(&d, "//s:text[@id='title']"), "<b>t</b>");
	unparse(&d);
	free(svg);
	release(&sp);
}

/* Control bytes and invalid UTF-8 in a name still make a document a
 * parser accepts; a long name is cut, whole in its tooltip. */
static void test_raw_and_long_names(void **state)
{
	static const char raw[] = "bad\x01\xff name";
	char long_name[200];
	struct sched_profile sp;
	struct doc d;
	char *svg, *label;

	(void)state;
	build(&sp);
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	sp.threads[2].name = intern(&sp, raw);
	sp.threads[3].name = intern(&sp, long_name);
	svg = draw(&sp, NULL, NULL);
	parse(&d, svg);
	assert_str(string(&d, ROW(102) "/s:text[@class='label']"),
		   "bad\xef\xbf\xbd\xef\xbf\xbd name (102)");
	label = string(&d, ROW(103) "/s:text[@class='label']/text()");
	assert_true(strlen(label) < 60);
	assert_int_equal(strcmp(label + strlen(label) - 2, ".."), 0);
	free(label);
	label = string(&d, ROW(103) "/s:text[@class='label']/s:title");
	assert_int_equal(strncmp(label, long_name, 199), 0);
	free(label);
	unparse(&d);
	free(svg);
	release(&sp);
}

/* A thread that never switched out was on CPU all along: one full
 * segment, no switch-out bar. */
static void test_never_switched_out(void **state)
{
	struct sched_profile sp;
	struct doc d;
	char *svg;

	(void)state;
	build(&sp);
	svg = draw(&sp, NULL, NULL);
	parse(&d, svg);
	assert_int_equal((int)number(&d, "count(" ROW(104) "/s:rect[@data-bucket])"), 1);
	assert_str(string(&d, ROW(104) "/s:rect[@data-bucket]/s:title"),
		   "On CPU: 1,000.0 ms (100.0%)");
	assert_true(fabs(number(&d, ROW(104) "/s:rect[@data-bucket]/@width") -
			 number(&d, ROW(104) "/s:rect[@class='frame']/@width")) < 0.01);
	assert_int_equal((int)number(&d, "count(" ROW(104) "/s:rect[@data-state])"), 0);
	assert_int_equal((int)number(&d, "count(" ROW(104) "/s:rect[@class='frame'])"), 1);
	assert_str(string(&d, ROW(104) "/s:text[@class='n']"), "no switch-outs");
	assert_str(string(&d, ROW(104) "/@data-switches"), "0");
	assert_str(string(&d, TROW(104) "/s:text[@class='n']"), "on 1 CPU");
	unparse(&d);
	free(svg);
	/* Without any record its CPU is not known. */
	sp.threads[4].cpu_ns[3] = 0;
	svg = draw(&sp, NULL, NULL);
	parse(&d, svg);
	assert_int_equal((int)number(&d, "count(" TROW(104) "/s:rect[@class='cell'])"), 0);
	assert_str(string(&d, TROW(104) "/s:text[@class='n']"), "CPU unknown");
	assert_str(string(&d, TROW(103) "/s:text[@class='n']"), "on 1 CPU");
	unparse(&d);
	free(svg);
	release(&sp);
}

static void test_lost_events(void **state)
{
	struct sched_profile sp;
	struct doc d;
	char *svg;

	(void)state;
	build(&sp);
	sp.lost = 3;
	svg = draw(&sp, NULL, NULL);
	parse(&d, svg);
	assert_str(string(&d, "//s:text[@id='lost']"),
		   "3 switch events lost: times underestimated");
	assert_str(string(&d, "/s:svg/@data-lost"), "3");
	assert_non_null(strstr(svg, "#lost{fill:#d00000"));
	unparse(&d);
	free(svg);
	release(&sp);
}

/* Sub-millisecond times keep three decimals; shares of nothing are 0%. */
static void test_small_times(void **state)
{
	struct sched_profile sp;
	struct doc d;
	char *svg;

	(void)state;
	build(&sp);
	sp.threads[0].ns[SCHED_OTHER] = 42000;
	svg = draw(&sp, NULL, NULL);
	parse(&d, svg);
	assert_str(string(&d, ROW(100) "/s:rect[@data-bucket='other']/s:title"),
		   "other: 0.042 ms (0.0%), 0 switch-outs");
	assert_str(string(&d, ROW(100) "/s:rect[@data-bucket='other']/@data-ms"), "0.042");
	unparse(&d);
	free(svg);
	release(&sp);
}

static void test_deterministic_and_errors(void **state)
{
	struct sched_profile sp, empty;
	size_t n1, n2;
	char *a, *b;
	FILE *f;

	(void)state;
	build(&sp);
	a = draw(&sp, NULL, &n1);
	b = draw(&sp, NULL, &n2);
	assert_int_equal(n1, n2);
	assert_memory_equal(a, b, n1);
	free(a);
	free(b);
	/* A narrow width is raised to the minimum, and the page still parses. */
	a = draw(&sp, &(struct sched_chart_opts){.width = 10}, NULL);
	assert_non_null(strstr(a, "width=\"800\""));
	free(a);
	f = fopen("/dev/full", "w");
	if (f) {
		setvbuf(f, NULL, _IONBF, 0);
		assert_int_equal(sched_chart__write(&sp, NULL, f), -ENOSPC);
		fclose(f);
	}
	memset(&empty, 0, sizeof(empty));
	assert_int_equal(strtab__init(&empty.names), 0);
	f = fopen("/dev/null", "w");
	assert_non_null(f);
	assert_int_equal(sched_chart__write(&empty, NULL, f), -EINVAL);
	fclose(f);
	strtab__release(&empty.names);
	release(&sp);
}

/* Many CPUs: cells get narrower down to 6 px, then the page widens. */
static void test_many_cpus(void **state)
{
	struct sched_profile sp;
	struct doc d;
	char *svg;
	size_t i;

	(void)state;
	build(&sp);
	for (i = 0; i < sp.nthreads; i++) {
		uint64_t *cpus = calloc(256, sizeof(*cpus));

		assert_non_null(cpus);
		memcpy(cpus, sp.threads[i].cpu_ns, NCPUS * sizeof(*cpus));
		cpus[255] = i == 0 ? 5 * MS : 0;
		free(sp.threads[i].cpu_ns);
		sp.threads[i].cpu_ns = cpus;
	}
	sp.ncpus = 256;
	svg = draw(&sp, NULL, NULL);
	parse(&d, svg);
	assert_true(number(&d, "/s:svg/@width") >= 280 + 256 * 6);
	assert_true(number(&d, TROW(100) "/s:rect[@data-cpu='255']/@x") >
		    280 + 255 * 6 - 0.01);
	unparse(&d);
	free(svg);
	release(&sp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_and_order),
		cmocka_unit_test(test_widths_follow_ns),
		cmocka_unit_test(test_tooltips),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_tenancy),
		cmocka_unit_test(test_tenancy_only),
		cmocka_unit_test(test_preemptors),
		cmocka_unit_test(test_hostile_name),
		cmocka_unit_test(test_raw_and_long_names),
		cmocka_unit_test(test_never_switched_out),
		cmocka_unit_test(test_lost_events),
		cmocka_unit_test(test_small_times),
		cmocka_unit_test(test_deterministic_and_errors),
		cmocka_unit_test(test_many_cpus),
	};

	int rc;

	xmlInitParser();
	rc = cmocka_run_group_tests_name("sched-chart", tests, NULL, NULL);
	xmlCleanupParser();
	return rc;
}
