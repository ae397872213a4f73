/* top.c: the hottest functions, like perf report --stdio's flat view (see
 * report.h). Counts are summed per unique stack first; then each stack is
 * walked once: self for its leaf, total once for each distinct name in it
 * (a recursive function is counted once per stack). */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/text-clean.h"

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static int cmp_rows(const void *x, const void *y, void *ctx)
{
	const struct profile *p = ctx;
	const struct top_row *a = x, *b = y;

	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	return strcmp(profile__name(p, a->name), profile__name(p, b->name));
}

int profile__top(const struct profile *p, struct profile_top *t)
{
	size_t nnames = p->names.count, i, n = 0;
	uint64_t *per_stack = calloc(p->nstacks ? p->nstacks : 1, sizeof(*per_stack));
	uint64_t *self = calloc(nnames ? nnames : 1, sizeof(*self));
	uint64_t *total = calloc(nnames ? nnames : 1, sizeof(*total));
	uint32_t *seen = calloc(nnames ? nnames : 1, sizeof(*seen)); /* last stack + 1 */
	int err = -ENOMEM;

	memset(t, 0, sizeof(*t));
	if (!per_stack || !self || !total || !seen)
		goto out;
	for (i = 0; i < p->nentries; i++)
		per_stack[p->entries[i].stack] =
			sat_add(per_stack[p->entries[i].stack], p->entries[i].count);
	for (i = 0; i < p->nstacks; i++) {
		const struct profile_stack *s = &p->stacks[i];
		uint64_t c = per_stack[i];
		uint32_t k;

		if (!c)
			continue;
		for (k = 0; k < s->depth; k++) {
			uint32_t id = p->frames[s->first + k];

			if (seen[id] == i + 1)
				continue;
			seen[id] = (uint32_t)i + 1;
			total[id] = sat_add(total[id], c);
		}
		self[p->frames[s->first + s->depth - 1]] =
			sat_add(self[p->frames[s->first + s->depth - 1]], c);
	}
	for (i = 0; i < nnames; i++)
		n += total[i] != 0;
	t->rows = malloc((n ? n : 1) * sizeof(*t->rows));
	if (!t->rows)
		goto out;
	for (i = 0; i < nnames; i++)
		if (total[i])
			t->rows[t->nrows++] = (struct top_row){(uint32_t)i, self[i], total[i]};
	qsort_r(t->rows, t->nrows, sizeof(*t->rows), cmp_rows, (void *)p);
	t->samples = p->total;
	err = 0;
out:
	free(per_stack);
	free(self);
	free(total);
	free(seen);
	return err;
}

void profile_top__release(struct profile_top *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

int profile_top__write(const struct profile *p, const struct profile_top *t, size_t limit,
		       FILE *out)
{
	size_t i, n = limit && limit < t->nrows ? limit : t->nrows;

	errno = 0;
	fprintf(out, "%7s  %7s  %10s  %10s  %s\n", "self%", "total%", "self", "total", "function");
	for (i = 0; i < n && !ferror(out); i++) {
		const struct top_row *r = &t->rows[i];
		char self[PROFILE_COUNT_TEXT], total[PROFILE_COUNT_TEXT];

		profile_count_text(self, r->self, p->count_decimals);
		profile_count_text(total, r->total, p->count_decimals);
		/* Names are clean since profile__intern; text_put keeps it so. */
		fprintf(out, "%6.2f%%  %6.2f%%  %10s  %10s  ", pct(r->self, t->samples),
			pct(r->total, t->samples), self, total);
		text_put(out, profile__name(p, r->name));
		fputc('\n', out);
	}
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}
