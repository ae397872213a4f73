/* sched-xml.c: the small XML and number helpers the scheduler chart's
 * panels share (see sched-internal.h): elements and attributes through
 * libxml2's xmlTextWriter, which escapes <, & and quotes; names made valid
 * text first (svg_text_clean()); milliseconds and shares in fixed formats
 * (the C locale's), so the same profile gives the same bytes. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "svg/sched-internal.h"

const struct sched_bucket_info sched_buckets[SCHED_NBUCKETS] = {
	[SCHED_ON_CPU] = {"on-cpu", "On CPU"},
	[SCHED_PREEMPTED] = {"preempted", "R preempted"},
	[SCHED_WOKEN] = {"woken", "R waiting for CPU after wake-up"},
	[SCHED_SLEEPING] = {"sleeping", "S sleeping"},
	[SCHED_DISK] = {"disk", "D uninterruptible (I/O)"},
	[SCHED_OTHER] = {"other", "other"},
};

const enum sched_bucket sched_sw_bucket[SCHED_SW_N] = {
	[SCHED_SW_R] = SCHED_PREEMPTED,
	[SCHED_SW_S] = SCHED_SLEEPING,
	[SCHED_SW_D] = SCHED_DISK,
	[SCHED_SW_OTHER] = SCHED_OTHER,
};

const char *const sched_sw_key[SCHED_SW_N] = {"R", "S", "D", "other"};

int ch_start(struct chart *c, const char *elem)
{
	X(libxml.start_element(c->w, S(elem)));
	return 0;
}

int ch_end(struct chart *c)
{
	X(libxml.end_element(c->w));
	return 0;
}

int ch_nl(struct chart *c)
{
	X(libxml.write_raw(c->w, S("\n")));
	return 0;
}

int ch_attr(struct chart *c, const char *name, const char *value)
{
	X(libxml.write_attribute(c->w, S(name), S(value)));
	return 0;
}

int ch_attr_num(struct chart *c, const char *name, double v, int decimals)
{
	c->c.len = 0;
	if (svg_buf__num(&c->c, v, decimals))
		return -ENOMEM;
	return ch_attr(c, name, c->c.s);
}

int ch_attr_u64(struct chart *c, const char *name, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	return ch_attr(c, name, num);
}

int ch_attr_name(struct chart *c, const char *name, const char *s, size_t len)
{
	c->c.len = 0;
	if (svg_buf__put(&c->c, "", 0) || svg_text_clean(&c->c, s, len) < 0)
		return -ENOMEM;
	return ch_attr(c, name, c->c.s);
}

int ch_string(struct chart *c, const char *s)
{
	X(libxml.write_string(c->w, S(s)));
	return 0;
}

int ch_title(struct chart *c, const char *s)
{
	int err;

	if ((err = ch_start(c, "title")) || (err = ch_string(c, s)))
		return err;
	return ch_end(c);
}

int ch_rect(struct chart *c, double x, double y, double w, double h, const char *cls)
{
	int err;

	if ((err = ch_start(c, "rect")) || (err = ch_attr_num(c, "x", x, 2)) ||
	    (err = ch_attr_num(c, "y", y, 2)) || (err = ch_attr_num(c, "width", w, 2)) ||
	    (err = ch_attr_num(c, "height", h, 2)))
		return err;
	return cls ? ch_attr(c, "class", cls) : 0;
}

int ch_label(struct chart *c, double x, double y, const char *cls, const char *s, size_t len,
	     double max_px)
{
	size_t fit = svg_label_chars(max_px, CH_CHAR_PX);
	long chars;
	int err;

	c->l.len = 0;
	if (svg_buf__put(&c->l, "", 0) || (chars = svg_text_clean(&c->l, s, len)) < 0)
		return -ENOMEM;
	if ((err = ch_start(c, "text")) || (err = ch_attr_num(c, "x", x, 2)) ||
	    (err = ch_attr_num(c, "y", y, 2)) || (cls && (err = ch_attr(c, "class", cls))))
		return err;
	if ((size_t)chars <= fit || fit < 3)
		return (err = ch_string(c, c->l.s)) ? err : ch_end(c);
	/* Cut: the whole text goes into a tooltip. */
	c->m.len = 0;
	if (svg_buf__put(&c->m, c->l.s, svg_text_prefix(c->l.s, c->l.len, fit - 2)) ||
	    svg_buf__put(&c->m, "..", 2))
		return -ENOMEM;
	if ((err = ch_string(c, c->m.s)) || (err = ch_title(c, c->l.s)))
		return err;
	return ch_end(c);
}

int ch_put_thread(struct svg_buf *b, const struct sched_profile *sp, uint32_t name, uint32_t tid)
{
	size_t len = strtab__len(&sp->names, name);

	if (svg_buf__put(b, "", 0) ||
	    (len ? svg_text_clean(b, sched_profile__name(sp, name), len) < 0
		 : svg_buf__put(b, "?", 1)))
		return -ENOMEM;
	return svg_buf__printf(b, " (%" PRIu32 ")", tid);
}

int ch_put_ms(struct svg_buf *b, uint64_t ns)
{
	uint64_t tenths;

	if (ns < 1000000)
		return svg_buf__printf(b, "%.3f", (double)ns / 1e6);
	tenths = ns / 100000 + (ns % 100000 >= 50000);
	if (svg_buf__count(b, tenths / 10))
		return -ENOMEM;
	return svg_buf__printf(b, ".%" PRIu64, tenths % 10);
}

int ch_put_pct(struct svg_buf *b, uint64_t part, uint64_t of)
{
	return svg_buf__printf(b, "%.1f%%", of ? 100.0 * (double)part / (double)of : 0.0);
}

int ch_attr_ms(struct chart *c, uint64_t ns)
{
	char num[48];
	int err;

	snprintf(num, sizeof(num), "%.3f", (double)ns / 1e6);
	if ((err = ch_attr(c, "data-ms", num)))
		return err;
	return ch_attr_u64(c, "data-ns", ns);
}
