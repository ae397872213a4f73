/* user-regex.h: compiling the regexes users type (--include, --exclude,
 * --grep, --thread, --class, annotate's symbols, check's rules) with the
 * regcomp(3) of libc, after refusing the patterns it cannot compile in
 * bounded memory. */
#ifndef PROF_REPORT_USER_REGEX_H
#define PROF_REPORT_USER_REGEX_H

#include <regex.h>
#include <stddef.h>

/* Why user_regcomp refuses a pattern that repeats a repetition. */
#define USER_REGEX_REPEATED_REPETITION                                              \
	"it repeats a repetition with + or {} (such as a++ or (a*)+), and the regex " \
	"engine's memory grows exponentially with those: write it with one quantifier"

/* Does the ERE PATTERN repeat a repetition with '+' or '{' ("a++",
 * "(a*)+", "(a+){2}")? */
int user_regex__repeats_repetition(const char *pattern);

/* regcomp(RE, PATTERN, CFLAGS) unless PATTERN repeats a repetition
 * (REG_BADRPT, RE left uncompiled). Returns 0 or the REG_* error, with the
 * reason in ERRBUF (ERRLEN bytes, may be 0); on error there is nothing to
 * regfree(). */
int user_regcomp(regex_t *re, const char *pattern, int cflags, char *errbuf, size_t errlen);

#endif
