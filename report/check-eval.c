/* check-eval.c: measuring `prof check` rules on profiles (see check.h).
 *
 * A rule's value comes from two counts: the samples whose stack matches
 * (any frame, or the leaf for "self") and the profile's total. Matching is
 * bounded by the profile's unique names and stacks: each regex is compiled
 * once per rule, tested at most once per name (a verdict cached per name
 * id) and each stack is tested once (a verdict cached per stack index).
 * Entries then only add their counts. */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "report/check.h"
#include "report/user-regex.h"

struct matcher {
	const struct profile *p;
	const regex_t *re;
	int8_t *name_hit;  /* per name id: -1 unknown, 0, 1 */
	int8_t *stack_hit; /* per stack: -1 unknown, 0, 1 */
};

static int name_matches(struct matcher *m, uint32_t id)
{
	if (m->name_hit[id] < 0)
		m->name_hit[id] = !regexec(m->re, profile__name(m->p, id), 0, NULL, 0);
	return m->name_hit[id];
}

static int stack_matches(struct matcher *m, uint32_t stack, enum check_subject subject)
{
	const struct profile_stack *s = &m->p->stacks[stack];
	const uint32_t *fr = profile__stack_frames(m->p, stack);
	uint32_t i;

	if (m->stack_hit[stack] >= 0)
		return m->stack_hit[stack];
	m->stack_hit[stack] = 0;
	if (subject == CHECK_SUBJECT_SELF) {
		m->stack_hit[stack] = s->depth && name_matches(m, fr[s->depth - 1]);
		return m->stack_hit[stack];
	}
	for (i = 0; i < s->depth; i++)
		if (name_matches(m, fr[i])) {
			m->stack_hit[stack] = 1;
			break;
		}
	return m->stack_hit[stack];
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The samples of `p` the rule's subject covers. 0 or -ENOMEM. */
static int count_matching(const struct profile *p, const struct check_rule *r, const regex_t *re,
			  uint64_t *matched)
{
	struct matcher m = {.p = p, .re = re};
	size_t i;

	*matched = 0;
	if (r->subject == CHECK_SUBJECT_TOTAL) {
		*matched = p->total;
		return 0;
	}
	m.name_hit = malloc(p->names.count ? p->names.count : 1);
	m.stack_hit = malloc(p->nstacks ? p->nstacks : 1);
	if (!m.name_hit || !m.stack_hit) {
		free(m.name_hit);
		free(m.stack_hit);
		return -ENOMEM;
	}
	memset(m.name_hit, -1, p->names.count);
	memset(m.stack_hit, -1, p->nstacks);
	for (i = 0; i < p->nentries; i++) {
		const struct profile_entry *e = &p->entries[i];

		if (e->count && stack_matches(&m, e->stack, r->subject))
			*matched = sat_add(*matched, e->count);
	}
	free(m.name_hit);
	free(m.stack_hit);
	return 0;
}

static double share(uint64_t matched, uint64_t total)
{
	return total ? 100.0 * (double)matched / (double)total : 0;
}

/* Relative growth in percent; +inf when something appeared from nothing. */
static double growth(double now, double before)
{
	if (before > 0)
		return (now / before - 1) * 100;
	return now > 0 ? INFINITY : 0;
}

int check__compare(double v, enum check_op op, double limit)
{
	switch (op) {
	case CHECK_LT:
		return v < limit;
	case CHECK_LE:
		return v <= limit;
	case CHECK_GT:
		return v > limit;
	case CHECK_GE:
		return v >= limit;
	case CHECK_EQ:
		return v == limit;
	case CHECK_NE:
		return v != limit;
	}
	return 0;
}

/* An alloc: rule's regex as it runs against class names: the JVM's
 * internal form `java/lang/String` (what heap tools print) also matches the
 * dotted `java.lang.String` recordings hold, so each '/' outside a bracket
 * expression becomes [/.]. malloc'ed, NULL without memory. */
static char *class_regex(const char *re)
{
	char *out = malloc(4 * strlen(re) + 1), *o = out;
	int in_bracket = 0;

	if (!out)
		return NULL;
	for (const char *p = re; *p; p++) {
		if (*p == '\\' && p[1] && !in_bracket) {
			*o++ = *p++;
			*o++ = *p;
			continue;
		}
		if (*p == '[' && !in_bracket) {
			in_bracket = 1;
			*o++ = *p;
			if (p[1] == '^')
				*o++ = *++p;
			if (p[1] == ']')
				*o++ = *++p;
			continue;
		}
		if (*p == ']' && in_bracket)
			in_bracket = 0;
		if (*p == '/' && !in_bracket) {
			memcpy(o, "[/.]", 4);
			o += 4;
			continue;
		}
		*o++ = *p;
	}
	*o = 0;
	return out;
}

static const char *missing_reason(enum check_profile_kind kind, int baseline)
{
	if (kind == CHECK_PROFILE_ALLOC)
		return baseline ? "the baseline holds no allocation samples"
				: "the input holds no allocation samples (an allocation recording "
				  "is needed for alloc: rules)";
	return "no baseline to compare with: give --baseline OLD";
}

/* The value of rule r from its counts. */
static void value_of(const struct check_rule *r, struct check_result *res)
{
	double now = share(res->matched, res->total);
	double before = share(res->base_matched, res->base_total);

	double matched = profile_count_value(res->matched, res->decimals);
	double base_matched = profile_count_value(res->base_matched, res->base_decimals);

	if (!r->grew) {
		res->value = r->unit == CHECK_UNIT_PERCENT ? now : matched;
		return;
	}
	switch (r->unit) {
	case CHECK_UNIT_POINTS:
		res->value = now - before;
		break;
	case CHECK_UNIT_PERCENT:
		res->value = r->subject == CHECK_SUBJECT_TOTAL
				     ? growth(matched, base_matched)
				     : growth(now, before);
		break;
	default: /* counts: raw, not normalized */
		res->value = matched - base_matched;
	}
}

static int measure(const struct check_rule *r, const regex_t *re, const struct check_profiles *cur,
		   const struct check_profiles *base, struct check_result *res)
{
	const struct profile *p = cur->p[r->profile];
	const struct profile *b = base ? base->p[r->profile] : NULL;
	int share_rule = r->unit == CHECK_UNIT_PERCENT || r->unit == CHECK_UNIT_POINTS;
	int err;

	memset(res, 0, sizeof(*res));
	if (!p) {
		res->reason = missing_reason(r->profile, 0);
		return 0;
	}
	if ((err = count_matching(p, r, re, &res->matched)))
		return err;
	res->total = p->total;
	res->decimals = p->count_decimals;
	if (r->grew) {
		if (!b) {
			res->reason = missing_reason(base ? r->profile : CHECK_PROFILE_CPU, 1);
			return 0;
		}
		if ((err = count_matching(b, r, re, &res->base_matched)))
			return err;
		res->base_total = b->total;
		res->base_decimals = b->count_decimals;
		if (share_rule && r->subject != CHECK_SUBJECT_TOTAL && !res->base_total) {
			res->reason = "the baseline holds no samples: no share to compare with";
			return 0;
		}
	}
	if (share_rule && r->subject != CHECK_SUBJECT_TOTAL && !res->total) {
		res->reason = "the input holds no samples: no share to measure";
		return 0;
	}
	value_of(r, res);
	res->measured = 1;
	res->pass = check__compare(res->value, r->op, r->limit);
	return 0;
}

int check__evaluate(const struct check_rule *rules, size_t nrules, const struct check_profiles *cur,
		    const struct check_profiles *base, int ignore_case, struct check_result *results,
		    size_t *bad, char *errbuf, size_t errlen)
{
	int cflags = REG_EXTENDED | REG_NOSUB | (ignore_case ? REG_ICASE : 0);
	size_t i;
	int err = 0;

	for (i = 0; i < nrules && !err; i++) {
		const struct check_rule *r = &rules[i];
		regex_t re;
		int rc;

		if (r->subject == CHECK_SUBJECT_TOTAL) {
			err = measure(r, NULL, cur, base, &results[i]);
			continue;
		}
		if (r->profile == CHECK_PROFILE_ALLOC) {
			char *cls = class_regex(r->regex);

			if (!cls)
				return -ENOMEM;
			rc = user_regcomp(&re, cls, cflags, errbuf, errbuf ? errlen : 0);
			free(cls);
		} else {
			rc = user_regcomp(&re, r->regex, cflags, errbuf, errbuf ? errlen : 0);
		}
		if (rc) {
			*bad = i;
			return rc == REG_ESPACE ? -ENOMEM : -EINVAL;
		}
		err = measure(r, &re, cur, base, &results[i]);
		regfree(&re);
	}
	return err;
}
