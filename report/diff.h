/* diff.h: two profiles compared, part of report/'s interface next to
 * report.h: what `prof diff` prints, `prof svg --diff` draws and `prof check
 * --baseline` reads.
 *
 * - The union of two profiles' folded lines (diff-model.c): every distinct
 *   stack text once, with its count in OLD and in NEW, in NEW's name space
 *   (OLD-only names and stacks are added to NEW's profile), sorted bytewise
 *   by text; and the two-column folded text FlameGraph's difffolded.pl
 *   writes, "stack OLD NEW", with OLD normalized to NEW's total or raw.
 * - Two-column folded text read back (diff-folded.c): detecting it and
 *   keeping one of its columns, so every reader of folded text reads it.
 *
 * A second input with the options of the first (diff-input.c: the baseline
 * of `prof check`, OLD of `prof diff` and `prof svg --diff`) is in
 * report-cli.h. Conventions as report.h. */
#ifndef PROF_REPORT_DIFF_H
#define PROF_REPORT_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/report.h"

/* ---- the union of two profiles (diff-model.c) ---- */

struct diff_line {
	uint32_t root, stack; /* in NEW's profile, as struct profile_line */
	uint64_t old, new;    /* raw counts */
};

struct profile_diff {
	struct diff_line *lines; /* sorted bytewise by text */
	size_t nlines;
	uint64_t old_total, new_total; /* raw sums (saturating) */
	unsigned count_decimals; /* of both profiles' counts, aligned (report.h) */
	char *texts;     /* "root;frame;...;leaf\0" per line */
	size_t *text_at; /* line -> offset in texts */
};

/* Builds the union of the folded lines (profile__lines() with `fo`) of
 * `oldp` and `newp`. Brings both to the same count_decimals first (one may
 * have fractional counts) and adds OLD-only names and stacks to `newp`.
 * Allocates; 0, -ENOMEM, or -EOVERFLOW when the rescaled counts do not fit
 * 64 bits. profile_diff__release() frees (also on a zeroed diff). */
int profile_diff__build(struct profile_diff *d, struct profile *newp, struct profile *oldp,
			const struct folded_opts *fo);
void profile_diff__release(struct profile_diff *d);

/* An OLD count normalized to NEW's total: round(old * new_total /
 * old_total), exact in integers (halves round up); `old` when old_total is
 * 0. */
uint64_t profile_diff__scale(uint64_t old, uint64_t old_total, uint64_t new_total);

/* Writes "STACK OLD NEW\n" per line, OLD normalized unless `raw`. 0 or
 * -errno of the failed write. */
int profile_diff__write(const struct profile_diff *d, int raw, FILE *out);

/* ---- two-column folded text (diff-folded.c) ---- */

enum diff_column {
	DIFF_COLUMN_NEW = 0, /* the last count: what a one-column reader sees */
	DIFF_COLUMN_OLD,     /* the count before it */
};

/* Is `text` two-column: does every line that ends in a count have another
 * count before it ("stack 12 15"), and is there at least one? (A frame
 * name ending in " 12" on every line would read as two columns too.) */
int diff_folded__is_two_column(const char *text, size_t len);
/* A copy of two-column text with one column kept, line for line (lines
 * that are not "stack N N" are copied as they are). *out is malloc'ed.
 * 0 or -ENOMEM. */
int diff_folded__keep_column(const char *text, size_t len, enum diff_column col, char **out,
			     size_t *outlen);

#endif
