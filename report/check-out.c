/* check-out.c: the verdicts of `prof check` for people and scripts (see
 * check.h): one grep-able line per rule,
 *
 *   FAIL  'slow_path' <= 5%  measured 7.31% (1462 of 20000 samples)
 *
 * or a JSON array with one object per rule. A value is printed with two
 * decimals, or more when two would round it across the limit (a measured
 * 5.004% against "<= 5%" shows as 5.004%, not as a failing 5.00%). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/text-clean.h"
#include "report/check.h"

static const char *const op_names[] = {"<", "<=", ">", ">=", "==", "!="};

/* Decimals that keep the printed value on the same side of the limit. */
static int decimals_for(const struct check_rule *r, double v)
{
	int d;

	for (d = 2; d < 6; d++) {
		double scale = pow(10, d), shown = round(v * scale) / scale;

		if (check__compare(shown, r->op, r->limit) == check__compare(v, r->op, r->limit))
			break;
	}
	return d;
}

static const char *unit_text(const struct check_rule *r, int time)
{
	switch (r->unit) {
	case CHECK_UNIT_PERCENT:
		return "%";
	case CHECK_UNIT_POINTS:
		return "pt";
	case CHECK_UNIT_TIME:
		return " us";
	default:
		return time ? " us" : " samples";
	}
}

/* A count-valued rule's value: as many decimals as the counts have (the
 * input's fractional counts, report.h), trailing zeros dropped. */
#define COUNT_NUMBER 40
static const char *count_number(const struct check_result *res, double v, char buf[COUNT_NUMBER])
{
	unsigned d = res->decimals > res->base_decimals ? res->decimals : res->base_decimals;
	int n = snprintf(buf, COUNT_NUMBER, "%.*f", (int)d, v);

	while (d && n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
	return buf;
}

/* "measured +2.10pt" and the like, into buf. */
static void format_value(const struct check_rule *r, const struct check_result *res, int time,
			 char *buf, size_t len)
{
	const char *sign = r->grew && res->value >= 0 ? "+" : "";
	char num[COUNT_NUMBER];

	if (isinf(res->value))
		snprintf(buf, len, "%sinf%s", res->value > 0 ? "+" : "-", unit_text(r, time));
	else if (r->unit == CHECK_UNIT_PERCENT || r->unit == CHECK_UNIT_POINTS)
		snprintf(buf, len, "%s%.*f%s", sign, decimals_for(r, res->value), res->value,
			 unit_text(r, time));
	else
		snprintf(buf, len, "%s%s%s", sign, count_number(res, res->value, num), unit_text(r, time));
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

/* The counts behind a value, in parentheses. */
static void format_details(const struct check_rule *r, const struct check_result *res, int time,
			   char *buf, size_t len)
{
	const char *noun = time ? "us" : "samples";
	char m[PROFILE_COUNT_TEXT], t[PROFILE_COUNT_TEXT];
	char bm[PROFILE_COUNT_TEXT], bt[PROFILE_COUNT_TEXT];

	profile_count_text(m, res->matched, res->decimals);
	profile_count_text(t, res->total, res->decimals);
	profile_count_text(bm, res->base_matched, res->base_decimals);
	profile_count_text(bt, res->base_total, res->base_decimals);
	if (r->subject == CHECK_SUBJECT_TOTAL) {
		if (r->grew)
			snprintf(buf, len, "%s %s, baseline %s", m, noun, bm);
		else
			buf[0] = '\0';
	} else if (r->grew) {
		snprintf(buf, len, "%s of %s %s = %.2f%%, baseline %s of %s = %.2f%%", m, t, noun,
			 pct(res->matched, res->total), bm, bt,
			 pct(res->base_matched, res->base_total));
	} else if (r->unit == CHECK_UNIT_PERCENT) {
		snprintf(buf, len, "%s of %s %s", m, t, noun);
	} else {
		snprintf(buf, len, "%.2f%% of %s %s", pct(res->matched, res->total), t, noun);
	}
}

static int flush_result(FILE *out)
{
	errno = 0;
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}

int check__write_text(const struct check_rule *rules, const struct check_result *results,
		      size_t n, int time, FILE *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct check_result *res = &results[i];
		char value[64], details[256];

		/* The rule text is clean since check-rule.c; text_put keeps
		 * this output on the one rule (lib/text-clean.h). */
		fputs(res->measured && res->pass ? "PASS  " : "FAIL  ", out);
		text_put(out, rules[i].text);
		if (!res->measured) {
			fputs("  not measured: ", out);
			text_put(out, res->reason);
			fputc('\n', out);
			continue;
		}
		format_value(&rules[i], res, time, value, sizeof(value));
		format_details(&rules[i], res, time, details, sizeof(details));
		fprintf(out, "  measured %s%s%s%s\n", value, *details ? " (" : "", details,
			*details ? ")" : "");
	}
	return flush_result(out);
}

/* ---- JSON ---- */

/* The length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f; /* no surrogates */
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* A JSON string: quotes, backslashes and control characters escaped,
 * invalid UTF-8 bytes replaced by U+FFFD. */
static void json_string(FILE *out, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;

	fputc('"', out);
	while (i < n) {
		size_t len = utf8_len(u + i, n - i);

		if (!len) {
			fputs("\\ufffd", out);
			i++;
		} else if (u[i] == '"' || u[i] == '\\') {
			fputc('\\', out);
			fputc(u[i++], out);
		} else if (u[i] < 0x20) {
			fprintf(out, "\\u%04x", u[i++]);
		} else {
			fwrite(u + i, 1, len, out);
			i += len;
		}
	}
	fputc('"', out);
}

/* A finite number with up to 6 decimals, trailing zeros trimmed. */
static void json_number(FILE *out, double v)
{
	char buf[64];
	size_t len;

	snprintf(buf, sizeof(buf), "%.6f", v);
	len = strlen(buf);
	while (len > 1 && buf[len - 1] == '0')
		buf[--len] = '\0';
	if (buf[len - 1] == '.')
		buf[--len] = '\0';
	fputs(strcmp(buf, "-0") ? buf : "0", out);
}

static const char *subject_name(enum check_subject s)
{
	return s == CHECK_SUBJECT_TOTAL ? "total" : s == CHECK_SUBJECT_SELF ? "self" : "frames";
}

static const char *json_unit(const struct check_rule *r, int time)
{
	const char *u = unit_text(r, time);

	return *u == ' ' ? u + 1 : u;
}

static void json_rule(FILE *out, const struct check_rule *r, const struct check_result *res,
		      int time)
{
	char m[PROFILE_COUNT_TEXT], t[PROFILE_COUNT_TEXT];

	fputs("{\"rule\":", out);
	json_string(out, r->text);
	fprintf(out, ",\"result\":\"%s\",\"measured\":", res->pass ? "pass" : "fail");
	if (res->measured && isfinite(res->value))
		json_number(out, res->value);
	else
		fputs("null", out);
	fprintf(out, ",\"unit\":\"%s\",\"op\":\"%s\",\"limit\":", json_unit(r, time),
		op_names[r->op]);
	json_number(out, r->limit);
	fprintf(out, ",\"subject\":\"%s\",\"regex\":", subject_name(r->subject));
	if (r->regex)
		json_string(out, r->regex);
	else
		fputs("null", out);
	fprintf(out, ",\"profile\":\"%s\",\"grew\":%s",
		r->profile == CHECK_PROFILE_ALLOC ? "alloc" : "cpu", r->grew ? "true" : "false");
	profile_count_text(m, res->matched, res->decimals);
	profile_count_text(t, res->total, res->decimals);
	fprintf(out, ",\"matched\":%s,\"total\":%s", m, t);
	if (r->grew) {
		profile_count_text(m, res->base_matched, res->base_decimals);
		profile_count_text(t, res->base_total, res->base_decimals);
		fprintf(out, ",\"baseline_matched\":%s,\"baseline_total\":%s", m, t);
	}
	if (res->measured && isinf(res->value))
		fprintf(out, ",\"infinite\":%s", res->value > 0 ? "\"+\"" : "\"-\"");
	if (!res->measured) {
		fputs(",\"reason\":", out);
		json_string(out, res->reason);
	}
	fputc('}', out);
}

int check__write_json(const struct check_rule *rules, const struct check_result *results,
		      size_t n, int time, FILE *out)
{
	size_t i;

	fputc('[', out);
	for (i = 0; i < n; i++) {
		fputs(i ? ",\n " : "\n ", out);
		json_rule(out, &rules[i], &results[i], time);
	}
	fputs(n ? "\n]\n" : "]\n", out);
	return flush_result(out);
}
