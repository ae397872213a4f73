/* sched-chart.h: the scheduler view of a recording (report/sched.h) drawn
 * as one self-contained SVG: per thread, a bar of its time by state and a
 * bar of its switch-outs by state, rows grouped by name pattern; a threads
 * x CPUs tenancy grid; and who preempted each thread. `prof sched`
 * (cmd-sched.c) is the front end. No script: tooltips are SVG <title>s,
 * the hover highlight is CSS.
 *
 * The document's structure (what tests and tools may rely on) is in
 * docs/prof-sched.md. The same profile and options give the same bytes.
 *
 * Conventions: 0 or -errno (-ENOMEM; -EINVAL when the profile has no
 * thread); nothing here prints or exits; blocks only on the FILE *. */
#ifndef PROF_SVG_SCHED_CHART_H
#define PROF_SVG_SCHED_CHART_H

#include <stdio.h>

#include "report/sched.h"

/* Panels, as bits of sched_chart_opts.panels. */
enum sched_chart_panel {
	SCHED_PANEL_STATES = 1u << 0,     /* time and switch-outs by state */
	SCHED_PANEL_TENANCY = 1u << 1,    /* threads x CPUs: on-CPU time shares */
	SCHED_PANEL_PREEMPTORS = 1u << 2, /* who ran when a thread was preempted */
	SCHED_PANEL_ALL = (1u << 3) - 1,
};

/* The zero value means the default everywhere. */
struct sched_chart_opts {
	const char *title; /* NULL: "Scheduler states" */
	unsigned panels;   /* bits of enum sched_chart_panel; 0: all */
	unsigned width;    /* px, at least SCHED_CHART_MIN_WIDTH; 0: 1200. The
			      tenancy grid widens the page when it needs to. */
};

#define SCHED_CHART_MIN_WIDTH 800

/* Writes the chart of every thread of `sp` to `out` and flushes it.
 *
 * Rows: threads are grouped by name with digit runs collapsed into '*'
 * (pool-1, pool-2 -> pool-*); a group of two or more threads gets a header
 * row with its sums. Groups, and threads within a group, come in order of
 * the time they wanted a CPU (on CPU + runnable), most first, then by name
 * (bytewise) and tid.
 *
 * Cost: O(threads log threads) to order the rows, O(threads x CPUs) for the
 * tenancy grid; the XML is streamed through libxml2's xmlTextWriter, which
 * escapes every name. 0, -ENOMEM, -EINVAL when sp has no thread, or -errno
 * of the failed write (-EIO when unknown). */
int sched_chart__write(const struct sched_profile *sp, const struct sched_chart_opts *o,
		       FILE *out);

#endif
