/* sched-panels.c: the second and third panels of the scheduler chart.
 *
 * CPU tenancy: a grid of threads (rows, in the chart's order) x CPUs
 * (columns); a cell is shaded by the thread's share of its on-CPU time on
 * that CPU, darker for more; cells without time are not drawn.
 *
 * Preempted by: for each thread with preemptors (switch-outs in state R+,
 * report/sched.h), a bar of its R-preempted time split by the task that ran
 * next (the top PREEMPTORS_SHOWN, then the others together), and their
 * names. The rest of the bar, R-preempted time after switch-outs in state
 * R, stays empty: the model does not attribute it. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "svg/sched-internal.h"

#define PANEL_ROWS_Y 40.0      /* the first row, below the panel's top */
#define TENANCY_NOTE_W 70.0    /* "on 12 CPUs" right of the grid */
#define PREEMPT_BAR_W 300.0
#define PREEMPTORS_SHOWN 5     /* segments; the rest are "others" */
#define PREEMPTORS_NAMED 3     /* in the text next to the bar */

/* ---- CPU tenancy ---- */

double ch_tenancy_height(const struct chart *c)
{
	size_t rows = c->sp->ncpus ? c->order.nrows : 1;

	return PANEL_ROWS_Y + (double)rows * CH_ROW + CH_PANEL_GAP;
}

static uint64_t on_cpu_total(const struct chart *c, const struct sched_thread *t)
{
	uint64_t sum = 0;
	size_t cpu;

	for (cpu = 0; t->cpu_ns && cpu < c->sp->ncpus; cpu++)
		sum += t->cpu_ns[cpu];
	return sum > t->ns[SCHED_ON_CPU] ? sum : t->ns[SCHED_ON_CPU];
}

/* From a pale to a dark blue; a share above 0 is never as pale as an
 * empty cell. */
static void shade(char out[8], double share)
{
	static const int lo[3] = {0xdc, 0xe6, 0xf2}, hi[3] = {0x1f, 0x4e, 0x79};
	double t = 0.12 + 0.88 * (share < 0 ? 0 : share > 1 ? 1 : share);
	int rgb[3], i;

	for (i = 0; i < 3; i++)
		rgb[i] = (int)lround(lo[i] + (hi[i] - lo[i]) * t);
	snprintf(out, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

/* CPU numbers over the columns, as many as fit. */
static int cpu_header(struct chart *c, double y)
{
	size_t ncpus = c->sp->ncpus, step = 1, cpu;
	int digits = snprintf(NULL, 0, "%zu", ncpus ? ncpus - 1 : 0);
	int err;

	while ((double)step * c->cell_w < digits * CH_CHAR_PX + 4)
		step *= 2;
	for (cpu = 0; cpu < ncpus; cpu += step) {
		char num[24];

		snprintf(num, sizeof(num), "%zu", cpu);
		if ((err = ch_start(c, "text")) || (err = ch_attr(c, "class", "cap")) ||
		    (err = ch_attr_num(c, "x", CH_BAR_X + (double)cpu * c->cell_w + 1, 2)) ||
		    (err = ch_attr_num(c, "y", y, 2)) || (err = ch_string(c, num)) ||
		    (err = ch_end(c)))
			return err;
	}
	return ch_nl(c);
}

static int tenancy_cell(struct chart *c, const struct sched_thread *t, size_t cpu, uint64_t total,
			double y)
{
	uint64_t ns = t->cpu_ns[cpu];
	double share = total ? (double)ns / (double)total : 0;
	double gap = c->cell_w >= 4 ? 1 : 0;
	char fill[8], pct[16];
	int err;

	shade(fill, share);
	snprintf(pct, sizeof(pct), "%.1f", 100 * share);
	c->a.len = 0;
	if (ch_put_thread(&c->a, c->sp, t->name, t->tid) ||
	    svg_buf__printf(&c->a, " on CPU %zu: ", cpu) || ch_put_ms(&c->a, ns) ||
	    svg_buf__printf(&c->a, " ms (%s%% of its on-CPU time)", pct))
		return -ENOMEM;
	if ((err = ch_rect(c, CH_BAR_X + (double)cpu * c->cell_w, y, c->cell_w - gap, CH_BAR_H,
			   "cell")) ||
	    (err = ch_attr(c, "fill", fill)) || (err = ch_attr_u64(c, "data-cpu", cpu)) ||
	    (err = ch_attr_ms(c, ns)) || (err = ch_attr(c, "data-pct", pct)) ||
	    (err = ch_title(c, c->a.s)))
		return err;
	return ch_end(c);
}

static int tenancy_row(struct chart *c, const struct sched_thread *t, double top)
{
	const struct sched_profile *sp = c->sp;
	uint64_t total = on_cpu_total(c, t);
	double y = top + (CH_ROW - CH_BAR_H) / 2;
	size_t cpu, used = 0;
	int err;

	if ((err = ch_start(c, "g")) || (err = ch_attr(c, "class", "trow")) ||
	    (err = ch_attr_u64(c, "data-tid", t->tid)) ||
	    (err = ch_attr_name(c, "data-name", sched_profile__name(sp, t->name),
				strtab__len(&sp->names, t->name))) ||
	    (err = ch_rect(c, 0, top, c->width, CH_ROW, "hl")) || (err = ch_end(c)) ||
	    (err = ch_rect(c, CH_BAR_X, y, c->cell_w * (double)sp->ncpus, CH_BAR_H, "grid")) ||
	    (err = ch_end(c)))
		return err;
	for (cpu = 0; t->cpu_ns && cpu < sp->ncpus; cpu++) {
		if (!t->cpu_ns[cpu])
			continue;
		used++;
		if ((err = tenancy_cell(c, t, cpu, total, y)))
			return err;
	}
	c->a.len = 0;
	if (ch_put_thread(&c->a, sp, t->name, t->tid))
		return -ENOMEM;
	if ((err = ch_label(c, CH_MARGIN, top + 13, "label", c->a.s, c->a.len, CH_LABEL_W)))
		return err;
	c->a.len = 0;
	/* On CPU all along without a switch: the CPU is not known. */
	if (used ? svg_buf__printf(&c->a, "on %zu CPU%s", used, used == 1 ? "" : "s")
	    : t->ns[SCHED_ON_CPU] ? svg_buf__printf(&c->a, "CPU unknown")
				  : svg_buf__printf(&c->a, "never on CPU"))
		return -ENOMEM;
	if ((err = ch_start(c, "text")) || (err = ch_attr(c, "class", "n")) ||
	    (err = ch_attr_num(c, "x", CH_BAR_X + c->cell_w * (double)sp->ncpus + 6, 2)) ||
	    (err = ch_attr_num(c, "y", top + 13, 2)) || (err = ch_string(c, c->a.s)) ||
	    (err = ch_end(c)) || (err = ch_end(c)))
		return err;
	return ch_nl(c);
}

static int panel_head(struct chart *c, const char *id, double y, const char *head,
		      const char *cap)
{
	int err;

	if ((err = ch_start(c, "g")) || (err = ch_attr(c, "id", id)) || (err = ch_nl(c)) ||
	    (err = ch_label(c, CH_MARGIN, y + 14, "head", head, strlen(head), 1e6)) ||
	    (err = ch_label(c, CH_BAR_X, y + 14, "cap", cap, strlen(cap), 1e6)))
		return err;
	return ch_nl(c);
}

static int note(struct chart *c, double top, const char *text)
{
	int err;

	if ((err = ch_label(c, CH_BAR_X, top + 13, "n", text, strlen(text), 1e6)))
		return err;
	return ch_nl(c);
}

int ch_tenancy_write(struct chart *c, double y)
{
	double top = y + PANEL_ROWS_Y;
	size_t i;
	int err;

	if ((err = panel_head(c, "tenancy", y, "CPU tenancy",
			      "each thread's on-CPU time by CPU (darker: a larger share)")))
		return err;
	if (!c->sp->ncpus) {
		if ((err = note(c, top, "no time on CPU was recorded")))
			return err;
		return (err = ch_end(c)) ? err : ch_nl(c);
	}
	if ((err = cpu_header(c, top - 6)))
		return err;
	for (i = 0; i < c->order.nrows; i++, top += CH_ROW)
		if ((err = tenancy_row(c, &c->sp->threads[c->order.rows[i]], top)))
			return err;
	return (err = ch_end(c)) ? err : ch_nl(c);
}

/* ---- preempted by ---- */

static size_t preempted_rows(const struct chart *c)
{
	size_t n = 0, i;

	for (i = 0; i < c->order.nrows; i++)
		n += c->sp->threads[c->order.rows[i]].npreemptors > 0;
	return n;
}

double ch_preemptors_height(const struct chart *c)
{
	size_t rows = preempted_rows(c);

	return PANEL_ROWS_Y + (double)(rows ? rows : 1) * CH_ROW + CH_PANEL_GAP;
}

/* Before: more time, then more often, then name and tid. */
static int before(const struct sched_profile *sp, const struct sched_share *a,
		  const struct sched_share *b)
{
	int r;

	if (a->ns != b->ns)
		return a->ns > b->ns;
	if (a->count != b->count)
		return a->count > b->count;
	r = strcmp(sched_profile__name(sp, a->name), sched_profile__name(sp, b->name));
	if (r)
		return r < 0;
	return a->tid < b->tid;
}

/* The top PREEMPTORS_SHOWN of a thread, in order; returns how many. */
static size_t top_preemptors(const struct sched_profile *sp, const struct sched_thread *t,
			     const struct sched_share *top[PREEMPTORS_SHOWN])
{
	size_t n = 0, i, k;

	for (i = 0; i < t->npreemptors; i++) {
		const struct sched_share *s = &t->preemptors[i];

		if (n == PREEMPTORS_SHOWN && !before(sp, s, top[n - 1]))
			continue;
		k = n < PREEMPTORS_SHOWN ? n++ : n - 1;
		while (k && before(sp, s, top[k - 1])) {
			top[k] = top[k - 1];
			k--;
		}
		top[k] = s;
	}
	return n;
}

struct segment {
	const struct sched_share *share; /* NULL: the others */
	uint64_t ns, count;
	size_t others;
};

static int preempt_segment(struct chart *c, const struct segment *s, size_t i, double x,
			   double w, double y, uint64_t of)
{
	char cls[32];
	int err;

	c->a.len = 0;
	if (s->share) {
		if (svg_buf__put(&c->a, "preempted by ", 13) ||
		    ch_put_thread(&c->a, c->sp, s->share->name, s->share->tid))
			return -ENOMEM;
	} else if (svg_buf__printf(&c->a, "preempted by %zu others", s->others)) {
		return -ENOMEM;
	}
	if (svg_buf__put(&c->a, ": ", 2) || ch_put_ms(&c->a, s->ns) ||
	    svg_buf__put(&c->a, " ms (", 5) || ch_put_pct(&c->a, s->ns, of) ||
	    svg_buf__printf(&c->a, " of R-preempted time), %" PRIu64 " time%s", s->count,
			    s->count == 1 ? "" : "s"))
		return -ENOMEM;
	if (s->share)
		snprintf(cls, sizeof(cls), "pre p%zu", i);
	else
		snprintf(cls, sizeof(cls), "pre po");
	if ((err = ch_rect(c, x, y, w, CH_BAR_H, cls)))
		return err;
	if (s->share &&
	    ((err = ch_attr_name(c, "data-preemptor", sched_profile__name(c->sp, s->share->name),
				 strtab__len(&c->sp->names, s->share->name))) ||
	     (err = ch_attr_u64(c, "data-preemptor-tid", s->share->tid))))
		return err;
	if (!s->share && (err = ch_attr_u64(c, "data-others", s->others)))
		return err;
	if ((err = ch_attr_u64(c, "data-count", s->count)) || (err = ch_attr_ms(c, s->ns)) ||
	    (err = ch_title(c, c->a.s)))
		return err;
	return ch_end(c);
}

/* "kworker/0:1 (17) 45.2%, 12 times; ..." for the first few. */
static int preempt_text(struct chart *c, const struct segment *segs, size_t n, uint64_t of,
			double x, double top)
{
	size_t i;

	c->b.len = 0;
	if (svg_buf__put(&c->b, "", 0))
		return -ENOMEM;
	for (i = 0; i < n && i < PREEMPTORS_NAMED && segs[i].share; i++) {
		const struct segment *s = &segs[i];

		if ((i && svg_buf__put(&c->b, "; ", 2)) ||
		    ch_put_thread(&c->b, c->sp, s->share->name, s->share->tid) ||
		    svg_buf__put(&c->b, " ", 1) || ch_put_pct(&c->b, s->ns, of) ||
		    svg_buf__printf(&c->b, ", %" PRIu64 "x", s->count))
			return -ENOMEM;
	}
	return ch_label(c, x, top + 13, "n", c->b.s, c->b.len, c->width - x - CH_MARGIN);
}

static int preempt_row(struct chart *c, const struct sched_thread *t, double top)
{
	const struct sched_profile *sp = c->sp;
	const struct sched_share *best[PREEMPTORS_SHOWN];
	struct segment segs[PREEMPTORS_SHOWN + 1];
	size_t n = top_preemptors(sp, t, best), nsegs = 0, i;
	uint64_t sum = 0, shown = 0, shown_count = 0, count = 0, of, cum = 0;
	double y = top + (CH_ROW - CH_BAR_H) / 2;
	int err;

	for (i = 0; i < t->npreemptors; i++) {
		sum += t->preemptors[i].ns;
		count += t->preemptors[i].count;
	}
	for (i = 0; i < n; i++) {
		segs[nsegs++] = (struct segment){.share = best[i], .ns = best[i]->ns,
						 .count = best[i]->count};
		shown += best[i]->ns;
		shown_count += best[i]->count;
	}
	if (t->npreemptors > n)
		segs[nsegs++] = (struct segment){.ns = sum - shown, .count = count - shown_count,
						 .others = t->npreemptors - n};
	of = sum > t->ns[SCHED_PREEMPTED] ? sum : t->ns[SCHED_PREEMPTED];
	c->a.len = 0;
	if (ch_put_thread(&c->a, sp, t->name, t->tid) || svg_buf__put(&c->a, ": ", 2) ||
	    ch_put_ms(&c->a, t->ns[SCHED_PREEMPTED]) ||
	    svg_buf__printf(&c->a, " ms R preempted, by %zu task%s", t->npreemptors,
			    t->npreemptors == 1 ? "" : "s"))
		return -ENOMEM;
	if ((err = ch_start(c, "g")) || (err = ch_attr(c, "class", "prow")) ||
	    (err = ch_attr_u64(c, "data-tid", t->tid)) ||
	    (err = ch_attr_name(c, "data-name", sched_profile__name(sp, t->name),
				strtab__len(&sp->names, t->name))) ||
	    (err = ch_attr_ms(c, t->ns[SCHED_PREEMPTED])) || (err = ch_title(c, c->a.s)) ||
	    (err = ch_rect(c, 0, top, c->width, CH_ROW, "hl")) || (err = ch_end(c)) ||
	    (err = ch_rect(c, CH_BAR_X, y, PREEMPT_BAR_W, CH_BAR_H, "frame")) || (err = ch_end(c)))
		return err;
	for (i = 0; i < nsegs && of; i++) {
		double a = CH_BAR_X + PREEMPT_BAR_W * (double)cum / (double)of, b;

		cum += segs[i].ns;
		b = CH_BAR_X + PREEMPT_BAR_W * (double)cum / (double)of;
		if (segs[i].ns && (err = preempt_segment(c, &segs[i], i, a, b - a, y, of)))
			return err;
	}
	c->a.len = 0;
	if (ch_put_thread(&c->a, sp, t->name, t->tid))
		return -ENOMEM;
	if ((err = ch_label(c, CH_MARGIN, top + 13, "label", c->a.s, c->a.len, CH_LABEL_W)) ||
	    (err = preempt_text(c, segs, nsegs, of, CH_BAR_X + PREEMPT_BAR_W + 8, top)) ||
	    (err = ch_end(c)))
		return err;
	return ch_nl(c);
}

int ch_preemptors_write(struct chart *c, double y)
{
	double top = y + PANEL_ROWS_Y;
	size_t i;
	int err;

	if ((err = panel_head(c, "preemptors", y, "Preempted by",
			      "who ran next when the thread was preempted (R+), as a share "
			      "of its R-preempted time")))
		return err;
	if (!preempted_rows(c) && (err = note(c, top, "no thread was preempted")))
		return err;
	for (i = 0; i < c->order.nrows; i++) {
		const struct sched_thread *t = &c->sp->threads[c->order.rows[i]];

		if (!t->npreemptors)
			continue;
		if ((err = preempt_row(c, t, top)))
			return err;
		top += CH_ROW;
	}
	return (err = ch_end(c)) ? err : ch_nl(c);
}
