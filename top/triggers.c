/* triggers.c: `prof record --ring S --trigger RULE...` (record.h's struct
 * record_triggers, reached through prof_env.record_triggers): the
 * recording runs with prof top's tap behind its writer (tap.c: a rolling
 * window of one-second intervals) and, at each interval's edge, the window
 * of the ring's last seconds (at most the tap's 60) is made into a profile
 * named live (view.c, names.c) and measured with prof check's rules
 * (report/check.h). A rule that holds trips: the ring is saved
 * (record_request_save) with the rule and its measured value as the
 * reason, at once or --after later, and no rule trips again for --holdoff,
 * so that one incident writes one file. Work per second: one pass over the
 * window's tables, each rule's regex once per new name. */
#include "top-internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "report/check.h"

#define GRACE_NS 20000000ULL /* an interval is measured 20 ms after its end */
#define REASON_MAX 256

struct trig {
	struct top_tap tap;
	struct top_names *names;
	struct record_triggers *t;
	struct check_rule *rules;
	struct check_result *res;
	size_t nwin;            /* intervals measured */
	uint64_t freq;
	uint64_t last;          /* the interval last measured */
	uint64_t quiet_until;   /* --holdoff: no trip before (monotonic ns) */
	uint64_t save_at;       /* --after: when to save (0: nothing pending) */
	char reason[REASON_MAX];
	int err;
};

static void value_text(char *buf, size_t size, const struct check_rule *r, double v)
{
	switch (r->unit) {
	case CHECK_UNIT_PERCENT:
		snprintf(buf, size, "%.1f%%", v);
		break;
	case CHECK_UNIT_POINTS:
		snprintf(buf, size, "%.1fpt", v);
		break;
	case CHECK_UNIT_TIME:
		snprintf(buf, size, "%.1f ms", v / 1000.0);
		break;
	default:
		snprintf(buf, size, "%.0f samples", v);
		break;
	}
}

/* Measures every rule on the window ending with interval `idx`; the first
 * that holds trips, unless held off. */
static void measure(struct trig *g, uint64_t now)
{
	struct top_view_opts vo = {.intervals = g->nwin};
	struct check_profiles cp = {0};
	struct top_snapshot s;
	char errbuf[128], value[64];
	size_t bad = 0;
	int err = top_snapshot__build(&s, &g->tap, g->names, &vo, g->freq);

	cp.p[CHECK_PROFILE_CPU] = &s.prof;
	if (!err)
		err = check__evaluate(g->rules, g->t->nrules, &cp, NULL, 0, g->res, &bad, errbuf,
				      sizeof(errbuf));
	for (size_t i = 0; !err && i < g->t->nrules; i++) {
		const struct check_result *r = &g->res[i];

		if (!r->measured || !r->pass || now < g->quiet_until || g->save_at)
			continue;
		value_text(value, sizeof(value), &g->rules[i], r->value);
		snprintf(g->reason, sizeof(g->reason), "trigger %s: %s over %zu s", g->rules[i].text,
			 value, s.n);
		fprintf(stderr, "prof record: %s\n", g->reason);
		g->t->trips++;
		g->quiet_until = now + g->t->holdoff_ns;
		g->save_at = now + g->t->after_ns;
		if (!g->save_at)
			g->save_at = 1;
		break;
	}
	top_snapshot__release(&s);
	if (err && !g->err)
		g->err = err;
}

static long tick(void *ctx, uint64_t now)
{
	struct trig *g = ctx;
	struct window *w = &g->tap.win;
	uint64_t idx = now > GRACE_NS ? window__index(w, now - GRACE_NS) : 0;
	uint64_t next = w->start_ns + (idx + 1) * w->interval_ns + GRACE_NS;
	long ms = next > now ? (long)((next - now) / 1000000) + 1 : 1;

	if (g->tap.err || g->err) {
		record_request_stop();
		return 0;
	}
	if (idx > g->last) {
		window__advance(w, idx);
		g->last = idx;
		measure(g, now);
	}
	if (g->save_at && now >= g->save_at) {
		/* the window as measured: a first measure that named every
		 * frame may have taken a while */
		record_request_save(g->reason, now);
		g->save_at = 0;
		return 1; /* the recorder's engine starts it on the next turn */
	}
	if (g->save_at && (long)((g->save_at - now) / 1000000) + 1 < ms)
		ms = (long)((g->save_at - now) / 1000000) + 1;
	return ms;
}

int top_record_triggers(const struct record_opts *opts, struct record_triggers *t,
			struct record_summary *sum, struct prof_error *err)
{
	struct record_opts ro = *opts;
	struct trig g;
	struct timespec ts;
	int rc = 0;
	size_t n = 0;

	memset(&g, 0, sizeof(g));
	g.t = t;
	g.freq = opts->freq ? opts->freq : RECORD_DEFAULT_FREQ;
	g.nwin = (size_t)(opts->ring_ns / 1000000000ULL);
	if (g.nwin > WINDOW_SLOTS - 1)
		g.nwin = WINDOW_SLOTS - 1;
	if (!g.nwin)
		g.nwin = 1;
	g.rules = calloc(t->nrules ? t->nrules : 1, sizeof(*g.rules));
	g.res = calloc(t->nrules ? t->nrules : 1, sizeof(*g.res));
	if (!g.rules || !g.res)
		rc = -ENOMEM;
	for (; !rc && n < t->nrules; n++) {
		struct check_parse_error pe;

		rc = check_rule__parse(t->rules[n], &g.rules[n], &pe);
		if (rc == -EINVAL)
			snprintf(t->bad, sizeof(t->bad), "invalid --trigger '%s': %s (column %zu)",
				 t->rules[n], pe.msg, pe.column);
		else if (!rc && g.rules[n].grew) {
			check_rule__release(&g.rules[n]);
			snprintf(t->bad, sizeof(t->bad), "invalid --trigger '%s': 'grew' needs a "
				 "baseline, which a trigger has not", t->rules[n]);
			rc = -EINVAL;
		}
	}
	if (rc == -EINVAL) {
		n--; /* the bad rule holds nothing */
	} else if (!rc) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		g.names = top_names__new();
		if (!g.names || top_tap__init(&g.tap, (uint64_t)ts.tv_sec * 1000000000ULL +
						      (uint64_t)ts.tv_nsec, 0))
			rc = -ENOMEM;
	}
	if (!rc) {
		ro.tap = &g.tap.sink;
		rc = record_run_hooks(&ro, &(struct record_hooks){.next_ms = tick, .ctx = &g}, sum,
				      err);
		if (!rc && (g.tap.err || g.err))
			rc = prof_error_set(err, g.tap.err ? g.tap.err : g.err, NULL,
					    "cannot measure the triggers: %s",
					    strerror(-(g.tap.err ? g.tap.err : g.err)));
	} else if (rc != -EINVAL) {
		prof_error_set(err, rc, NULL, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		check_rule__release(&g.rules[i]);
	free(g.rules);
	free(g.res);
	top_names__free(g.names);
	top_tap__release(&g.tap);
	return rc;
}
