/* prof-error.h: the one shape of an error a module below the command layer
 * reports: a one-line message and an optional hint (what to do about it).
 * The module fills it and returns -errno; the command prints msg with
 * cli_error() and a non-empty hint with cli_hint(). Modules never print. */
#ifndef PROF_PROF_ERROR_H
#define PROF_PROF_ERROR_H

#define PROF_ERROR_LEN 512

struct prof_error {
	char msg[PROF_ERROR_LEN];
	char hint[PROF_ERROR_LEN]; /* "" when there is none */
};

/* Fills e: msg from fmt, hint (NULL: none). Returns err as -errno (a
 * positive errno is negated), so `return prof_error_set(e, -EINVAL, ...)`. */
int prof_error_set(struct prof_error *e, int err, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Empties both lines. */
void prof_error_clear(struct prof_error *e);

#endif
