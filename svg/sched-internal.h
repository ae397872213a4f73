/* sched-internal.h: what the files of the scheduler chart share and nobody
 * else sees: the order of its rows (sched-order.c), the writer's state and
 * its XML helpers (sched-xml.c), and the panels (sched-chart.c draws the
 * page and the states panel, sched-panels.c the tenancy grid and the
 * preemptors). */
#ifndef PROF_SVG_SCHED_INTERNAL_H
#define PROF_SVG_SCHED_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <libxml/xmlwriter.h>

#include "report/sched.h"
#include "svg/svg-internal.h"
#include "svg/sched-chart.h"
#include "svg/xml-out.h"

/* ---- rows (sched-order.c) ---- */

/* Switch-outs folded into the four states the chart shows. */
enum sched_sw {
	SCHED_SW_R = 0, /* R+ and R: preempted or yielded */
	SCHED_SW_S,     /* S */
	SCHED_SW_D,     /* D */
	SCHED_SW_OTHER, /* stopped, exiting, idle, other */
	SCHED_SW_N
};

/* Threads with the same name pattern (digit runs collapsed into '*'), and
 * their sums. */
struct sched_group {
	const char *pattern; /* NUL-terminated; points into sched_order */
	size_t len;
	size_t first, n; /* its threads: sched_order.rows[first .. first + n) */
	uint64_t ns[SCHED_NBUCKETS];
	uint64_t sw[SCHED_SW_N];
	uint64_t nswitches, wakeups;
	uint64_t demand; /* on CPU + runnable ns: the sort key */
};

struct sched_order {
	size_t *rows; /* indices into sp->threads, in drawing order */
	size_t nrows;
	struct sched_group *groups; /* in drawing order */
	size_t ngroups;
	char *patterns; /* the groups' patterns, NUL-separated */
};

/* Groups and orders the threads of `sp` (see sched_chart__write()).
 * Allocates; 0 or -ENOMEM. */
int sched_order__build(struct sched_order *o, const struct sched_profile *sp);
void sched_order__release(struct sched_order *o);

/* A thread's switch-outs by chart state. */
void sched_fold_switches(const struct sched_thread *t, uint64_t sw[SCHED_SW_N]);
/* The wake-ups of a thread (the sum of its wakers' counts). */
uint64_t sched_thread_wakeups(const struct sched_thread *t);

/* ---- the writer (sched-xml.c) ---- */

/* Geometry, px. */
#define CH_FONT 12.0
#define CH_CHAR_PX (CH_FONT * 0.59) /* average glyph width */
#define CH_MARGIN 10.0
#define CH_INDENT 14.0  /* group members' labels */
#define CH_LABEL_W 260.0
#define CH_BAR_X 280.0  /* where bars and grids start */
#define CH_ROW 18.0     /* row pitch */
#define CH_BAR_H 14.0   /* time bars */
#define CH_COUNT_H 8.0  /* switch-out bars */
#define CH_COUNT_W 160.0
#define CH_COUNT_TEXT_W 110.0
#define CH_GAP 20.0
#define CH_PANEL_GAP 24.0

struct chart {
	const struct sched_profile *sp;
	const struct sched_chart_opts *o;
	struct sched_order order;
	xmlTextWriterPtr w;
	struct svg_buf a, b; /* scratch for the panels */
	struct svg_buf c, l, m; /* the helpers' own */
	unsigned panels;
	double width;  /* the page */
	double time_w; /* the time bars */
	double cell_w; /* a tenancy cell */
};

struct sched_bucket_info {
	const char *key;   /* data-bucket */
	const char *label; /* legend and tooltips */
};

extern const struct sched_bucket_info sched_buckets[SCHED_NBUCKETS];
/* The bucket whose color and words a switch-out state takes. */
extern const enum sched_bucket sched_sw_bucket[SCHED_SW_N];
extern const char *const sched_sw_key[SCHED_SW_N];

/* Every helper returns 0, -ENOMEM or -EIO (the writer failed). */
int ch_start(struct chart *c, const char *elem);
int ch_end(struct chart *c);
int ch_nl(struct chart *c);
int ch_attr(struct chart *c, const char *name, const char *value);
int ch_attr_num(struct chart *c, const char *name, double v, int decimals);
int ch_attr_u64(struct chart *c, const char *name, uint64_t v);
/* An attribute holding a name: made valid text first (svg_text_clean()). */
int ch_attr_name(struct chart *c, const char *name, const char *s, size_t len);
/* Text content; `s` is already clean (built with svg_text_clean()). */
int ch_string(struct chart *c, const char *s);
/* <title>s</title>, s clean. */
int ch_title(struct chart *c, const char *s);
/* <rect x y width height class> left open for more attributes. */
int ch_rect(struct chart *c, double x, double y, double w, double h, const char *cls);
/* <text x y class>TEXT</text>, TEXT `s` cleaned and cut with ".." to fit
 * `max_px` (when cut, a <title> holds it whole). */
int ch_label(struct chart *c, double x, double y, const char *cls, const char *s, size_t len,
	     double max_px);

/* Appends a thread's "name (tid)", the name made clean. */
int ch_put_thread(struct svg_buf *b, const struct sched_profile *sp, uint32_t name, uint32_t tid);
/* Appends milliseconds: "1,234.5" at 1 ms and above, else "0.042". */
int ch_put_ms(struct svg_buf *b, uint64_t ns);
/* Appends a share of `of`, "12.3%" (0% when `of` is 0). */
int ch_put_pct(struct svg_buf *b, uint64_t part, uint64_t of);
/* data-ms="12.345", data-ns="12345000". */
int ch_attr_ms(struct chart *c, uint64_t ns);

/* ---- panels ---- */

double ch_states_height(const struct chart *c);
int ch_states_write(struct chart *c, double y);
double ch_tenancy_height(const struct chart *c);
int ch_tenancy_write(struct chart *c, double y);
double ch_preemptors_height(const struct chart *c);
int ch_preemptors_write(struct chart *c, double y);

#endif
