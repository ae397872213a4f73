/* sched-chart.c: sched_chart__write(): the page of the scheduler chart
 * (size, style, title, subtitle, the lost-events warning) and its first
 * panel, thread states: per row a bar of the time by state (100% = the
 * thread's time in the recording) and a bar of the switch-outs by state
 * with their total; group header rows carry their threads' sums. The
 * tenancy grid and the preemptors are in sched-panels.c; docs/prof-sched.md
 * describes the document. */
#include <errno.h>
#include <inttypes.h>
#include <libxml/xmlwriter.h>
#include <stdlib.h>
#include <string.h>

#include "svg/sched-internal.h"

#define DEFAULT_WIDTH 1200
#define HEAD_H 56.0
#define LOST_H 18.0
#define LEGEND_Y 34.0 /* below the panel's top */
#define ROWS_Y 66.0   /* the first row, below the panel's top */

static const char style[] =
	"\ntext{fill:#202020}\n"
	"#title{font-size:17px;text-anchor:middle}\n"
	"#subtitle{fill:#606060;text-anchor:middle}\n"
	"#lost{fill:#d00000;font-weight:bold;text-anchor:middle}\n"
	".head{font-size:14px;font-weight:bold}\n"
	".cap,.n{fill:#606060}\n"
	".group>.label{font-weight:bold}\n"
	".hl{fill:#fff;fill-opacity:0}\n"
	"g.row:hover>.hl,g.group:hover>.hl{fill:#ffe97f;fill-opacity:.45}\n"
	".frame{fill:none;stroke:#b0b0b0;stroke-width:.5}\n"
	".seg:hover,.sw:hover,.cell:hover,.pre:hover{stroke:#000;stroke-width:1}\n"
	".grid{fill:#f2f2f2}\n"
	".b0{fill:#5b7fa6}\n"  /* on CPU: steel blue */
	".b1{fill:#d62728}\n"  /* R preempted: red */
	".b2{fill:#f4a3a8}\n"  /* R woken, waiting: pink */
	".b3{fill:#2ca02c}\n"  /* S: green */
	".b4{fill:#f59e0b}\n"  /* D: orange */
	".b5{fill:#a8a8a8}\n"  /* other: grey */
	".p0{fill:#99000d}.p1{fill:#cb181d}.p2{fill:#ef3b2c}.p3{fill:#fb6a4a}"
	".p4{fill:#fc9272}.po{fill:#c8c8c8}\n"; /* preemptors, most first */

/* Rows of the states panel: a header for each group of two or more. */
static size_t states_rows(const struct chart *c)
{
	size_t n = c->order.nrows, i;

	for (i = 0; i < c->order.ngroups; i++)
		n += c->order.groups[i].n > 1;
	return n;
}

double ch_states_height(const struct chart *c)
{
	return ROWS_Y + (double)states_rows(c) * CH_ROW + CH_PANEL_GAP;
}

/* What one row shows: a thread's or a group's figures. */
struct row_figures {
	const uint64_t *ns; /* [SCHED_NBUCKETS] */
	uint64_t sw[SCHED_SW_N];
	uint64_t nswitches, wakeups;
};

static int put_count(struct svg_buf *b, uint64_t n, const char *one, const char *many)
{
	if (svg_buf__count(b, n))
		return -ENOMEM;
	return svg_buf__printf(b, " %s", n == 1 ? one : many);
}

/* "S sleeping: 812.3 ms (81.2%), 412 switch-outs" */
static int segment_tooltip(struct svg_buf *b, const struct row_figures *f, enum sched_bucket k,
			   uint64_t total)
{
	size_t s;

	b->len = 0;
	if (svg_buf__printf(b, "%s: ", sched_buckets[k].label) || ch_put_ms(b, f->ns[k]) ||
	    svg_buf__put(b, " ms (", 5) || ch_put_pct(b, f->ns[k], total) ||
	    svg_buf__put(b, ")", 1))
		return -ENOMEM;
	if (k == SCHED_WOKEN)
		return svg_buf__put(b, ", ", 2) || put_count(b, f->wakeups, "wake-up", "wake-ups")
			       ? -ENOMEM
			       : 0;
	for (s = 0; s < SCHED_SW_N; s++)
		if (sched_sw_bucket[s] == k)
			return svg_buf__put(b, ", ", 2) ||
					       put_count(b, f->sw[s], "switch-out", "switch-outs")
				       ? -ENOMEM
				       : 0;
	return 0;
}

/* The time bar: segments in bucket order, edges at the cumulative sums so
 * they meet exactly whatever the rounding. */
static int time_bar(struct chart *c, const struct row_figures *f, double y)
{
	uint64_t total = 0, cum = 0;
	double x0 = CH_BAR_X, w = c->time_w;
	size_t k;
	int err;

	for (k = 0; k < SCHED_NBUCKETS; k++)
		total = total + f->ns[k] < total ? UINT64_MAX : total + f->ns[k];
	if ((err = ch_rect(c, x0, y, w, CH_BAR_H, "frame")) || (err = ch_end(c)))
		return err;
	for (k = 0; k < SCHED_NBUCKETS && total; k++) {
		double a = x0 + w * (double)cum / (double)total, b;
		char cls[32];

		if (!f->ns[k])
			continue;
		cum += f->ns[k];
		b = x0 + w * (double)cum / (double)total;
		snprintf(cls, sizeof(cls), "seg b%zu", k);
		if ((err = ch_rect(c, a, y, b - a, CH_BAR_H, cls)) ||
		    (err = ch_attr(c, "data-bucket", sched_buckets[k].key)) ||
		    (err = ch_attr_ms(c, f->ns[k])) ||
		    (err = segment_tooltip(&c->a, f, (enum sched_bucket)k, total)) ||
		    (err = ch_title(c, c->a.s)) || (err = ch_end(c)))
			return err;
	}
	return 0;
}

/* The switch-out bar, thinner, then the total. */
static int count_bar(struct chart *c, const struct row_figures *f, double top)
{
	double x0 = CH_BAR_X + c->time_w + CH_GAP, y = top + (CH_ROW - CH_COUNT_H) / 2;
	uint64_t cum = 0;
	size_t s;
	int err;

	if (f->nswitches) {
		if ((err = ch_rect(c, x0, y, CH_COUNT_W, CH_COUNT_H, "frame")) || (err = ch_end(c)))
			return err;
	}
	for (s = 0; s < SCHED_SW_N && f->nswitches; s++) {
		double a = x0 + CH_COUNT_W * (double)cum / (double)f->nswitches, b;
		char cls[32];

		if (!f->sw[s])
			continue;
		cum += f->sw[s];
		b = x0 + CH_COUNT_W * (double)cum / (double)f->nswitches;
		snprintf(cls, sizeof(cls), "sw b%d", (int)sched_sw_bucket[s]);
		c->a.len = 0;
		if (svg_buf__printf(&c->a, "%s: ", sched_buckets[sched_sw_bucket[s]].label) ||
		    put_count(&c->a, f->sw[s], "switch-out", "switch-outs") ||
		    svg_buf__put(&c->a, " (", 2) || ch_put_pct(&c->a, f->sw[s], f->nswitches) ||
		    svg_buf__put(&c->a, ")", 1))
			return -ENOMEM;
		if ((err = ch_rect(c, a, y, b - a, CH_COUNT_H, cls)) ||
		    (err = ch_attr(c, "data-state", sched_sw_key[s])) ||
		    (err = ch_attr_u64(c, "data-count", f->sw[s])) || (err = ch_title(c, c->a.s)) ||
		    (err = ch_end(c)))
			return err;
	}
	c->a.len = 0;
	if (f->nswitches ? put_count(&c->a, f->nswitches, "switch-out", "switch-outs")
			 : svg_buf__put(&c->a, "no switch-outs", 14))
		return -ENOMEM;
	if ((err = ch_start(c, "text")) || (err = ch_attr(c, "class", "n")) ||
	    (err = ch_attr_num(c, "x", x0 + CH_COUNT_W + 6, 2)) ||
	    (err = ch_attr_num(c, "y", top + 13, 2)) || (err = ch_string(c, c->a.s)))
		return err;
	return ch_end(c);
}

static int row_body(struct chart *c, const struct row_figures *f, double top)
{
	int err;

	if ((err = ch_rect(c, 0, top, c->width, CH_ROW, "hl")) || (err = ch_end(c)) ||
	    (err = time_bar(c, f, top + (CH_ROW - CH_BAR_H) / 2)))
		return err;
	return count_bar(c, f, top);
}

static int group_row(struct chart *c, const struct sched_group *g, double top)
{
	struct row_figures f = {.ns = g->ns, .nswitches = g->nswitches, .wakeups = g->wakeups};
	uint64_t total = 0;
	size_t k;
	int err;

	memcpy(f.sw, g->sw, sizeof(f.sw));
	for (k = 0; k < SCHED_NBUCKETS; k++)
		total += g->ns[k];
	if ((err = ch_start(c, "g")) || (err = ch_attr(c, "class", "group")) ||
	    (err = ch_attr_name(c, "data-group", g->pattern, g->len)) ||
	    (err = ch_attr_u64(c, "data-threads", g->n)))
		return err;
	c->a.len = 0;
	if (svg_buf__put(&c->a, "", 0) || svg_text_clean(&c->a, g->pattern, g->len) < 0 ||
	    svg_buf__printf(&c->a, ": %zu threads, ", g->n) || ch_put_ms(&c->a, total) ||
	    svg_buf__put(&c->a, " ms in all, ", 12) || ch_put_ms(&c->a, g->ns[SCHED_ON_CPU]) ||
	    svg_buf__put(&c->a, " ms on CPU", 10))
		return -ENOMEM;
	if ((err = ch_title(c, c->a.s)))
		return err;
	if ((err = row_body(c, &f, top)))
		return err;
	c->a.len = 0;
	if (svg_buf__put(&c->a, "", 0) || svg_text_clean(&c->a, g->pattern, g->len) < 0 ||
	    svg_buf__printf(&c->a, " (%zu threads)", g->n))
		return -ENOMEM;
	if ((err = ch_label(c, CH_MARGIN, top + 13, "label", c->a.s, c->a.len, CH_LABEL_W)))
		return err;
	return (err = ch_end(c)) ? err : ch_nl(c);
}

/* "name (tid), pid P: 1,000.0 ms in the recording, from 0.0 to 1,000.0 ms" */
static int thread_tooltip(struct chart *c, const struct sched_thread *t)
{
	const struct sched_profile *sp = c->sp;
	uint64_t from = t->start > sp->start ? t->start - sp->start : 0;
	uint64_t to = t->end > sp->start ? t->end - sp->start : 0;
	struct svg_buf *b = &c->a;

	b->len = 0;
	if (ch_put_thread(b, sp, t->name, t->tid) ||
	    svg_buf__printf(b, ", pid %" PRIu32 ": ", t->pid) ||
	    ch_put_ms(b, to > from ? to - from : 0) ||
	    svg_buf__put(b, " ms in the recording, from ", 27) || ch_put_ms(b, from) ||
	    svg_buf__put(b, " to ", 4) || ch_put_ms(b, to) || svg_buf__put(b, " ms", 3))
		return -ENOMEM;
	return 0;
}

static int thread_row(struct chart *c, const struct sched_group *g, const struct sched_thread *t,
		      double top)
{
	const struct sched_profile *sp = c->sp;
	struct row_figures f = {.ns = t->ns, .nswitches = t->nswitches};
	double indent = g->n > 1 ? CH_INDENT : 0;
	int err;

	sched_fold_switches(t, f.sw);
	f.wakeups = sched_thread_wakeups(t);
	if ((err = ch_start(c, "g")) ||
	    (err = ch_attr(c, "class", g->n > 1 ? "row member" : "row")) ||
	    (err = ch_attr_u64(c, "data-tid", t->tid)) ||
	    (err = ch_attr_u64(c, "data-pid", t->pid)) ||
	    (err = ch_attr_name(c, "data-name", sched_profile__name(sp, t->name),
				strtab__len(&sp->names, t->name))) ||
	    (err = ch_attr_name(c, "data-group", g->pattern, g->len)) ||
	    (err = ch_attr_u64(c, "data-switches", t->nswitches)) ||
	    (err = thread_tooltip(c, t)) || (err = ch_title(c, c->a.s)) ||
	    (err = row_body(c, &f, top)))
		return err;
	c->a.len = 0;
	if (ch_put_thread(&c->a, sp, t->name, t->tid))
		return -ENOMEM;
	if ((err = ch_label(c, CH_MARGIN + indent, top + 13, "label", c->a.s, c->a.len,
			    CH_LABEL_W - indent)))
		return err;
	return (err = ch_end(c)) ? err : ch_nl(c);
}

static int legend(struct chart *c, double y)
{
	double x = CH_BAR_X;
	size_t k;
	int err;

	for (k = 0; k < SCHED_NBUCKETS; k++) {
		const char *label = sched_buckets[k].label;
		char cls[32];

		snprintf(cls, sizeof(cls), "b%zu", k);
		if ((err = ch_start(c, "g")) || (err = ch_attr(c, "class", "legend")) ||
		    (err = ch_attr(c, "data-bucket", sched_buckets[k].key)) ||
		    (err = ch_rect(c, x, y - 10, 12, 12, cls)) || (err = ch_end(c)) ||
		    (err = ch_label(c, x + 16, y, NULL, label, strlen(label), 1e6)) ||
		    (err = ch_end(c)))
			return err;
		x += 16 + (double)strlen(label) * CH_CHAR_PX + 18;
	}
	return ch_nl(c);
}

static int caption(struct chart *c, double x, double y, const char *cls, const char *s)
{
	return ch_label(c, x, y, cls, s, strlen(s), 1e6);
}

int ch_states_write(struct chart *c, double y)
{
	double top = y + ROWS_Y;
	size_t gi, i;
	int err;

	if ((err = ch_start(c, "g")) || (err = ch_attr(c, "id", "states")) || (err = ch_nl(c)) ||
	    (err = caption(c, CH_MARGIN, y + 14, "head", "Thread states")) ||
	    (err = legend(c, y + LEGEND_Y)) ||
	    (err = caption(c, CH_BAR_X, y + ROWS_Y - 6, "cap",
			   "time by state (100% = the thread's time in the recording)")) ||
	    (err = caption(c, CH_BAR_X + c->time_w + CH_GAP, y + ROWS_Y - 6, "cap",
			   "switch-outs by state")) ||
	    (err = ch_nl(c)))
		return err;
	for (gi = 0; gi < c->order.ngroups; gi++) {
		const struct sched_group *g = &c->order.groups[gi];

		if (g->n > 1) {
			if ((err = group_row(c, g, top)))
				return err;
			top += CH_ROW;
		}
		for (i = 0; i < g->n; i++) {
			size_t t = c->order.rows[g->first + i];

			if ((err = thread_row(c, g, &c->sp->threads[t], top)))
				return err;
			top += CH_ROW;
		}
	}
	return (err = ch_end(c)) ? err : ch_nl(c);
}

/* ---- the page ---- */

static double head_height(const struct chart *c)
{
	return HEAD_H + (c->sp->lost ? LOST_H : 0);
}

static double page_height(const struct chart *c)
{
	double h = head_height(c);

	if (c->panels & SCHED_PANEL_STATES)
		h += ch_states_height(c);
	if (c->panels & SCHED_PANEL_TENANCY)
		h += ch_tenancy_height(c);
	if (c->panels & SCHED_PANEL_PREEMPTORS)
		h += ch_preemptors_height(c);
	return h;
}

static int centered(struct chart *c, const char *id, double y, const char *text)
{
	int err;

	c->a.len = 0;
	if (svg_buf__put(&c->a, "", 0) || svg_text_clean(&c->a, text, strlen(text)) < 0)
		return -ENOMEM;
	if ((err = ch_start(c, "text")) || (err = ch_attr(c, "id", id)) ||
	    (err = ch_attr_num(c, "x", c->width / 2, 2)) || (err = ch_attr_num(c, "y", y, 2)) ||
	    (err = ch_string(c, c->a.s)) || (err = ch_end(c)))
		return err;
	return ch_nl(c);
}

static int write_head(struct chart *c)
{
	const struct sched_profile *sp = c->sp;
	uint64_t window = sp->end > sp->start ? sp->end - sp->start : 0;
	double h = page_height(c);
	int err;

	if (libxml.start_document(c->w, "1.0", "UTF-8", NULL) < 0)
		return -EIO;
	c->b.len = 0;
	if (svg_buf__put(&c->b, "0 0 ", 4) || svg_buf__num(&c->b, c->width, 2) ||
	    svg_buf__put(&c->b, " ", 1) || svg_buf__num(&c->b, h, 2))
		return -ENOMEM;
	if ((err = ch_start(c, "svg")) ||
	    (err = ch_attr(c, "xmlns", "http://www.w3.org/2000/svg")) ||
	    (err = ch_attr_num(c, "width", c->width, 2)) ||
	    (err = ch_attr_num(c, "height", h, 2)) || (err = ch_attr(c, "viewBox", c->b.s)) ||
	    (err = ch_attr(c, "font-family", "Verdana, sans-serif")) ||
	    (err = ch_attr_num(c, "font-size", CH_FONT, 2)) ||
	    (err = ch_attr_u64(c, "data-threads", sp->nthreads)) ||
	    (err = ch_attr_u64(c, "data-cpus", sp->ncpus)) ||
	    (err = ch_attr_u64(c, "data-window-ns", window)) ||
	    (err = ch_attr_u64(c, "data-lost", sp->lost)) ||
	    (err = ch_attr_u64(c, "data-inconsistent", sp->inconsistent)) || (err = ch_nl(c)) ||
	    (err = ch_start(c, "style")) || (err = ch_string(c, style)) || (err = ch_end(c)) ||
	    (err = ch_nl(c)) || (err = ch_rect(c, 0, 0, c->width, h, NULL)) ||
	    (err = ch_attr(c, "fill", "#ffffff")) || (err = ch_end(c)) || (err = ch_nl(c)) ||
	    (err = centered(c, "title", 24, c->o->title ? c->o->title : "Scheduler states")))
		return err;
	c->b.len = 0;
	if (ch_put_ms(&c->b, window) ||
	    svg_buf__printf(&c->b, " ms recorded, %zu thread%s on %zu CPU%s, ", sp->nthreads,
			    sp->nthreads == 1 ? "" : "s", sp->ncpus, sp->ncpus == 1 ? "" : "s") ||
	    put_count(&c->b, sp->nrecords, "scheduler event", "scheduler events"))
		return -ENOMEM;
	if ((err = centered(c, "subtitle", 44, c->b.s)))
		return err;
	if (!sp->lost)
		return 0;
	c->b.len = 0;
	if (put_count(&c->b, sp->lost, "switch event lost: times underestimated",
		      "switch events lost: times underestimated"))
		return -ENOMEM;
	return centered(c, "lost", 62, c->b.s);
}

static int write_page(struct chart *c)
{
	double y = head_height(c);
	int err = write_head(c);

	if (!err && (c->panels & SCHED_PANEL_STATES)) {
		err = ch_states_write(c, y);
		y += ch_states_height(c);
	}
	if (!err && (c->panels & SCHED_PANEL_TENANCY)) {
		err = ch_tenancy_write(c, y);
		y += ch_tenancy_height(c);
	}
	if (!err && (c->panels & SCHED_PANEL_PREEMPTORS))
		err = ch_preemptors_write(c, y);
	if (!err && libxml.end_document(c->w) < 0)
		err = -EIO;
	if (!err && libxml.flush(c->w) < 0)
		err = -EIO;
	return err;
}

/* Sizes: the page, the time bars, the tenancy cells (which may widen the
 * page: a cell is never narrower than 6 px). */
static void layout(struct chart *c)
{
	double min_w = CH_BAR_X + (double)c->sp->ncpus * 6 + CH_MARGIN + 70;

	c->panels = c->o->panels & SCHED_PANEL_ALL ? c->o->panels & SCHED_PANEL_ALL
						   : SCHED_PANEL_ALL;
	c->width = c->o->width ? c->o->width : DEFAULT_WIDTH;
	if (c->width < SCHED_CHART_MIN_WIDTH)
		c->width = SCHED_CHART_MIN_WIDTH;
	if ((c->panels & SCHED_PANEL_TENANCY) && c->width < min_w)
		c->width = min_w;
	c->time_w = c->width - CH_BAR_X - CH_GAP - CH_COUNT_W - CH_COUNT_TEXT_W - CH_MARGIN;
	c->cell_w = c->sp->ncpus ? (c->width - CH_BAR_X - CH_MARGIN - 70) / (double)c->sp->ncpus
				 : 0;
	if (c->cell_w > 40)
		c->cell_w = 40;
}

int sched_chart__write(const struct sched_profile *sp, const struct sched_chart_opts *o,
		       FILE *out)
{
	static const struct sched_chart_opts defaults;
	struct chart c = {.sp = sp, .o = o ? o : &defaults};
	struct xml_out x;
	int err;

	if (!sp->nthreads)
		return -EINVAL;
	err = sched_order__build(&c.order, sp);
	if (err)
		return err;
	layout(&c);
	err = xml_out__open(&x, out);
	c.w = x.w;
	if (!err)
		err = write_page(&c);
	err = xml_out__close(&x, err);
	sched_order__release(&c.order);
	free(c.a.s);
	free(c.b.s);
	free(c.c.s);
	free(c.l.s);
	free(c.m.s);
	return err;
}
