/* fuzz-check-rule.c: libFuzzer target for the rule parser of `prof check`
 * (report/check-rule.c), whose input comes from command lines and CI
 * files: any bytes either parse or give an error whose column lies within
 * the text (one past its end at most); a parsed rule's canonical text parses
 * again to the same rule and the same text; the rule is then evaluated on a
 * small fixed profile (with fractional counts) against itself as the
 * baseline, and written as text and JSON. Crashes, leaks and aborts are
 * bugs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/check.h"
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char profile_text[] = "main;parse_json;slow_path 3\n"
				   "main;parse_json 1.5\n"
				   "main;run;java/lang/String 0.25\n"
				   "other;idle 10\n";

static void evaluate(const struct check_rule *r)
{
	struct profile p;
	struct folded_stats st;
	struct check_profiles cur = {.time = 0};
	struct check_result res;
	char errbuf[128], *buf = NULL;
	size_t bad = 0, len = 0;
	FILE *f;

	if (profile__init(&p))
		return;
	if (!profile__from_folded(&p, profile_text, sizeof(profile_text) - 1, &st)) {
		cur.p[CHECK_PROFILE_CPU] = &p;
		if (!check__evaluate(r, 1, &cur, &cur, r->regex && strlen(r->regex) & 1, &res, &bad,
				     errbuf, sizeof(errbuf))) {
			f = open_memstream(&buf, &len);
			if (f) {
				check__write_text(r, &res, 1, 0, f);
				check__write_json(r, &res, 1, 1, f);
				fclose(f);
				free(buf);
			}
		}
	}
	profile__release(&p);
}

/* Can the canonical text give this regex back? Not with control
 * characters (shown as '?'), a lone trailing backslash (no regex), or both
 * backslash pairs \' and \" (no quote to put around them). */
static int representable(const char *re)
{
	int single = 0, dbl = 0;

	for (size_t i = 0; re[i]; i++) {
		unsigned char c = (unsigned char)re[i];

		if (c < 0x20 || c == 0x7f)
			return 0;
		if (c == '\\') {
			if (!re[i + 1])
				return 0;
			single |= re[i + 1] == '\'';
			dbl |= re[i + 1] == '"';
			i++;
			if ((unsigned char)re[i] < 0x20 || re[i] == 0x7f)
				return 0;
		}
	}
	return !(single && dbl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct check_rule r, again;
	struct check_parse_error err;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&err, 0, sizeof(err));
	if (check_rule__parse(text, &r, &err)) {
		/* the error points into the text and says something */
		if (err.column < 1 || err.column > strlen(text) + 1 || !memchr(err.msg, 0, sizeof(err.msg)) ||
		    !err.msg[0])
			abort();
		free(text);
		return 0;
	}
	if (!r.text || (r.subject != CHECK_SUBJECT_TOTAL && !r.regex))
		abort();
	/* the canonical text is one line; when it can be, a rule, and canonical */
	if (strchr(r.text, '\n'))
		abort();
	if (r.regex && !representable(r.regex)) {
		evaluate(&r);
		check_rule__release(&r);
		free(text);
		return 0;
	}
	if (check_rule__parse(r.text, &again, &err))
		abort();
	if (strcmp(again.text, r.text) || again.op != r.op || again.unit != r.unit ||
	    again.grew != r.grew || again.subject != r.subject || again.profile != r.profile ||
	    (r.regex && strcmp(again.regex, r.regex)) ||
	    (again.limit != r.limit && !(again.limit != again.limit && r.limit != r.limit)))
		abort();
	check_rule__release(&again);
	evaluate(&r);
	check_rule__release(&r);
	free(text);
	return 0;
}
