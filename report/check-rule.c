/* check-rule.c: the rule language of `prof check` (see check.h):
 *
 *   rule    := subject [self] [grew] op number unit
 *   subject := 'REGEX' | "REGEX" | WORD | total     ("alloc:" in front of the
 *              regex picks the allocation profile)
 *   op      := < | <= | > | >= | == | !=
 *   unit    := % | pt | samples | us | ms | s
 *
 * Inside quotes a backslash before the quote character makes it literal;
 * every other backslash is kept for the regex with the character after it
 * ('a\.b' is the ERE a\.b, 'a\\' the ERE a\\, closed by its quote). A
 * word is a regex without spaces. Errors name the 1-based column where the
 * rule stops making sense, and say what was expected there. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/text-clean.h"
#include "report/check.h"
#include "report/user-regex.h"

#define ALLOC_PREFIX "alloc:"

struct parser {
	const char *s;
	size_t pos;
	struct check_parse_error *err;
};

static int fail(struct parser *ps, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct parser *ps, size_t pos, const char *fmt, ...)
{
	va_list ap;

	ps->err->column = pos + 1;
	va_start(ap, fmt);
	vsnprintf(ps->err->msg, sizeof(ps->err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static void skip_space(struct parser *ps)
{
	while (ps->s[ps->pos] == ' ' || ps->s[ps->pos] == '\t')
		ps->pos++;
}

static int at_end_of_word(const struct parser *ps, size_t pos)
{
	char c = ps->s[pos];

	return !c || c == ' ' || c == '\t';
}

/* Does the next word equal `w` (followed by a space, a comparison or the
 * end)? */
static int word_is(const struct parser *ps, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(ps->s + ps->pos, w, n) &&
	       (at_end_of_word(ps, ps->pos + n) || strchr("<>=!", ps->s[ps->pos + n]));
}

/* A quoted regex: the quote at ps->pos. *out is malloc'ed. */
static int parse_quoted(struct parser *ps, char **out)
{
	char q = ps->s[ps->pos];
	size_t open = ps->pos, i = ps->pos + 1, n = 0;
	char *re = malloc(strlen(ps->s) + 1);

	if (!re)
		return -ENOMEM;
	for (;; i++) {
		char c = ps->s[i];

		if (!c) {
			free(re);
			return fail(ps, open, "this quote is never closed: end the regex with %c", q);
		}
		if (c == '\\' && ps->s[i + 1] == q) {
			re[n++] = q;
			i++;
			continue;
		}
		if (c == '\\' && ps->s[i + 1]) {
			/* a pair for the regex: in 'a\\' the second backslash
			 * does not escape the quote */
			re[n++] = c;
			re[n++] = ps->s[++i];
			continue;
		}
		if (c == q)
			break;
		re[n++] = c;
	}
	re[n] = '\0';
	ps->pos = i + 1;
	*out = re;
	return 0;
}

static int parse_subject(struct parser *ps, struct check_rule *r)
{
	size_t start = ps->pos, len;
	char c = ps->s[ps->pos];
	char *re = NULL;
	int err;

	if (!c)
		return fail(ps, start, "empty rule: expected 'REGEX' or total, then a comparison "
				       "such as <= 5%%");
	if (word_is(ps, "total")) {
		r->subject = CHECK_SUBJECT_TOTAL;
		ps->pos += 5;
		return 0;
	}
	if (c == '\'' || c == '"') {
		err = parse_quoted(ps, &re);
		if (err)
			return err;
	} else {
		if (strchr("<>=!", c))
			return fail(ps, start, "expected 'REGEX' or total before the comparison");
		while (!at_end_of_word(ps, ps->pos))
			ps->pos++;
		re = strndup(ps->s + start, ps->pos - start);
		if (!re)
			return -ENOMEM;
	}
	len = strlen(ALLOC_PREFIX);
	if (!strncmp(re, ALLOC_PREFIX, len)) {
		r->profile = CHECK_PROFILE_ALLOC;
		memmove(re, re + len, strlen(re + len) + 1);
	}
	r->regex = re;
	if (!*re)
		return fail(ps, start, "empty regex: give a pattern such as 'slow_path'");
	if (user_regex__repeats_repetition(re))
		return fail(ps, start, "refused regex: " USER_REGEX_REPEATED_REPETITION);
	return 0;
}

/* self and grew, each at most once, in either order. */
static int parse_modifiers(struct parser *ps, struct check_rule *r)
{
	for (;;) {
		skip_space(ps);
		if (word_is(ps, "self")) {
			if (r->subject == CHECK_SUBJECT_TOTAL)
				return fail(ps, ps->pos, "'self' needs a regex: total has no leaf "
							 "frame");
			if (r->subject == CHECK_SUBJECT_SELF)
				return fail(ps, ps->pos, "'self' given twice");
			r->subject = CHECK_SUBJECT_SELF;
			ps->pos += 4;
		} else if (word_is(ps, "grew")) {
			if (r->grew)
				return fail(ps, ps->pos, "'grew' given twice");
			r->grew = 1;
			ps->pos += 4;
		} else {
			return 0;
		}
	}
}

static int parse_op(struct parser *ps, struct check_rule *r)
{
	static const struct {
		const char *text;
		enum check_op op;
	} ops[] = {
		{"<=", CHECK_LE}, {">=", CHECK_GE}, {"==", CHECK_EQ},
		{"!=", CHECK_NE}, {"<", CHECK_LT},  {">", CHECK_GT},
	};
	size_t i;

	skip_space(ps);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].text);

		if (!strncmp(ps->s + ps->pos, ops[i].text, n)) {
			r->op = ops[i].op;
			ps->pos += n;
			return 0;
		}
	}
	if (ps->s[ps->pos] == '=')
		return fail(ps, ps->pos, "'=' is not a comparison: use ==, or <=, >=");
	return fail(ps, ps->pos, "expected a comparison (<, <=, >, >=, ==, !=)%s",
		    r->subject == CHECK_SUBJECT_TOTAL || r->grew ? "" : ", 'self' or 'grew'");
}

/* The number: [+-]DIGITS[.DIGITS]; the sign only with grew. */
static int parse_number(struct parser *ps, struct check_rule *r, size_t *num_at, size_t *num_len)
{
	size_t start, digits = 0;
	char *end;

	skip_space(ps);
	start = ps->pos;
	if (ps->s[ps->pos] == '-' || ps->s[ps->pos] == '+') {
		if (!r->grew && ps->s[ps->pos] == '-')
			return fail(ps, start, "a negative limit only makes sense with 'grew'");
		ps->pos++;
	}
	while (isdigit((unsigned char)ps->s[ps->pos]))
		ps->pos++, digits++;
	if (ps->s[ps->pos] == '.') {
		ps->pos++;
		while (isdigit((unsigned char)ps->s[ps->pos]))
			ps->pos++, digits++;
	}
	if (!digits)
		return fail(ps, start, "expected a number, such as 5 or 2.5");
	r->limit = strtod(ps->s + start, &end);
	*num_at = start;
	*num_len = ps->pos - start;
	return 0;
}

static int parse_unit(struct parser *ps, struct check_rule *r)
{
	static const struct {
		const char *text;
		enum check_unit unit;
		double scale;
	} units[] = {
		{"%", CHECK_UNIT_PERCENT, 1},	{"pts", CHECK_UNIT_POINTS, 1},
		{"pt", CHECK_UNIT_POINTS, 1},	{"samples", CHECK_UNIT_SAMPLES, 1},
		{"sample", CHECK_UNIT_SAMPLES, 1}, {"us", CHECK_UNIT_TIME, 1},
		{"ms", CHECK_UNIT_TIME, 1e3},	{"s", CHECK_UNIT_TIME, 1e6},
	};
	size_t i, at;

	skip_space(ps);
	at = ps->pos;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t n = strlen(units[i].text);

		if (!strncmp(ps->s + at, units[i].text, n) && at_end_of_word(ps, at + n)) {
			r->unit = units[i].unit;
			r->limit *= units[i].scale;
			ps->pos += n;
			break;
		}
	}
	if (i == sizeof(units) / sizeof(units[0]))
		return fail(ps, at, "expected a unit after the number (%%, pt, samples, us, ms or s)");
	if (r->unit == CHECK_UNIT_POINTS && !r->grew)
		return fail(ps, at, "percentage points (pt) compare a share with the baseline's: "
				    "write 'grew <= N pt', or use %% for a share");
	if (r->subject == CHECK_SUBJECT_TOTAL && !r->grew &&
	    (r->unit == CHECK_UNIT_PERCENT || r->unit == CHECK_UNIT_POINTS))
		return fail(ps, at, "total is always 100%% of itself: give a count (total >= 1000 "
				    "samples), or compare with a baseline (total grew <= 10%%)");
	if (r->subject == CHECK_SUBJECT_TOTAL && r->unit == CHECK_UNIT_POINTS)
		return fail(ps, at, "total has no share to compare in points: use %% (total grew "
				    "<= 10%%)");
	return 0;
}

static const char *op_text(enum check_op op)
{
	static const char *const text[] = {"<", "<=", ">", ">=", "==", "!="};

	return text[op];
}

/* The quote of the canonical text: ' unless the regex holds a backslash
 * pair "\'" (inside '...' that would read as a literal quote, so the
 * text would not parse back: found by tests/fuzz/fuzz-check-rule.c), then
 * ". */
static char canonical_quote(const char *re)
{
	for (size_t i = 0; re[i]; i++)
		if (re[i] == '\\' && re[i + 1]) {
			if (re[i + 1] == '\'')
				return '"';
			i++;
		}
	return '\'';
}

/* The rule as the output shows it: quotes and spacing normalized, control
 * characters as '?', the number as written (without a '+'), the unit in
 * its canonical spelling. It parses back to the same rule unless the regex
 * has control characters or is not one (a lone trailing backslash). */
static int canonical(struct check_rule *r, const char *num, size_t num_len, const char *unit)
{
	size_t cap = (r->regex ? 2 * strlen(r->regex) : 0) + num_len + 64, n = 0, i;
	char *t = malloc(cap);

	if (!t)
		return -ENOMEM;
	if (*num == '+')
		num++, num_len--;
	if (r->subject == CHECK_SUBJECT_TOTAL) {
		n += (size_t)sprintf(t + n, "total");
	} else {
		char q = canonical_quote(r->regex);

		t[n++] = q;
		if (r->profile == CHECK_PROFILE_ALLOC)
			n += (size_t)sprintf(t + n, ALLOC_PREFIX);
		for (i = 0; r->regex[i]; i++) {
			unsigned char c = (unsigned char)r->regex[i];

			if (c == (unsigned char)q)
				t[n++] = '\\';
			/* one line per rule in the output, whatever the regex */
			t[n++] = text_is_control(c) ? '?' : (char)c;
			/* a backslash pair stays a pair, as the parser made it */
			if (c == '\\' && r->regex[i + 1]) {
				c = (unsigned char)r->regex[++i];
				t[n++] = text_is_control(c) ? '?' : (char)c;
			}
		}
		t[n++] = q;
	}
	n += (size_t)sprintf(t + n, "%s%s %s %.*s%s%s", r->subject == CHECK_SUBJECT_SELF ? " self" : "",
			     r->grew ? " grew" : "", op_text(r->op), (int)num_len, num,
			     r->unit == CHECK_UNIT_PERCENT || r->unit == CHECK_UNIT_POINTS ? "" : " ",
			     unit);
	r->text = t;
	return 0;
}

int check_rule__parse(const char *text, struct check_rule *r, struct check_parse_error *err)
{
	struct parser ps = {.s = text, .err = err};
	size_t num_at = 0, num_len = 0, unit_at;
	int rc;

	memset(r, 0, sizeof(*r));
	memset(err, 0, sizeof(*err));
	skip_space(&ps);
	if ((rc = parse_subject(&ps, r)) || (rc = parse_modifiers(&ps, r)) ||
	    (rc = parse_op(&ps, r)) || (rc = parse_number(&ps, r, &num_at, &num_len)))
		goto out;
	skip_space(&ps);
	unit_at = ps.pos;
	if ((rc = parse_unit(&ps, r)))
		goto out;
	skip_space(&ps);
	if (text[ps.pos]) {
		rc = fail(&ps, ps.pos, "unexpected text after the rule's unit");
		goto out;
	}
	{
		char unit[16];
		size_t ulen = ps.pos - unit_at;

		while (ulen && (text[unit_at + ulen - 1] == ' ' || text[unit_at + ulen - 1] == '\t'))
			ulen--;
		snprintf(unit, sizeof(unit), "%.*s", (int)ulen, text + unit_at);
		if (!strcmp(unit, "pts"))
			strcpy(unit, "pt");
		else if (!strcmp(unit, "sample"))
			strcpy(unit, "samples");
		rc = canonical(r, text + num_at, num_len, unit);
	}
out:
	if (rc)
		check_rule__release(r);
	return rc;
}

void check_rule__release(struct check_rule *r)
{
	free(r->text);
	free(r->regex);
	memset(r, 0, sizeof(*r));
}
