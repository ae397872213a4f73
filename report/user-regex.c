/* user-regex.c: the one place user regexes are compiled (user-regex.h).
 *
 * glibc's regcomp copies the operand of '+' and of '{m,n}' once per
 * repetition, and a repeated repetition copies the copies: memory grows
 * exponentially with the nesting ("n+++...+" takes gigabytes; found by
 * tests/fuzz/fuzz-check-rule.c). Such patterns are refused before regcomp
 * sees them; '*' and '?' copy nothing and pass. */
#include "report/user-regex.h"

#include <stdio.h>

int user_regex__repeats_repetition(const char *re)
{
	enum { MAX_DEPTH = 64 };
	int holds[MAX_DEPTH] = {0}, depth = 0, after_quant = 0;

	for (size_t i = 0; re[i]; i++) {
		char c = re[i];

		if (c == '\\' && re[i + 1]) {
			i++;
			after_quant = 0;
		} else if (c == '[') {
			/* a bracket expression: []] and [^]] hold a ']' */
			i += re[i + 1] == '^';
			i += re[i + 1] == ']';
			while (re[i + 1] && re[i + 1] != ']')
				i++;
			if (re[i + 1])
				i++;
			after_quant = 0;
		} else if (c == '(') {
			if (depth < MAX_DEPTH - 1)
				holds[++depth] = 0;
			after_quant = 0;
		} else if (c == ')' && depth) {
			after_quant = holds[depth--];
			holds[depth] |= after_quant;
		} else if (c == '*' || c == '+' || c == '?' || c == '{') {
			if (after_quant && (c == '+' || c == '{'))
				return 1;
			if (c == '{')
				while (re[i + 1] && re[i] != '}')
					i++;
			holds[depth] = 1;
			after_quant = 1;
		} else {
			after_quant = 0;
		}
	}
	return 0;
}

int user_regcomp(regex_t *re, const char *pattern, int cflags, char *errbuf, size_t errlen)
{
	int rc;

	if (user_regex__repeats_repetition(pattern)) {
		if (errlen)
			snprintf(errbuf, errlen, "%s", USER_REGEX_REPEATED_REPETITION);
		return REG_BADRPT;
	}
	rc = regcomp(re, pattern, cflags);
	if (rc && errlen)
		regerror(rc, re, errbuf, errlen);
	return rc;
}
