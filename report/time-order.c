/* time-order.c: the profile of a recording in time order, for flame charts
 * (`prof report --flamechart`, `prof svg --flamechart`; see report.h):
 * instead of counting samples per stack, it walks each thread's samples by
 * timestamp and makes one entry per run of consecutive samples with the
 * same stack, threads one after the other (a lane each), ordered by their
 * first sample. And the writer of such a profile as folded text: the
 * entries' lines in order, consecutive identical lines merged, as
 * flamegraph.pl --flamechart reads them.
 *
 * With cell_ns (`prof svg --timeline`), a run also ends where its next
 * sample is in another time cell, and each entry keeps its cell.
 *
 * Work: one sort of the CPU samples by (thread, time), O(n log n), 16 bytes
 * a sample; then the builder renders each unique stack once (builder.c). */
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "report/builder.h"

/* A CPU sample in the walk: its thread, time, and place in the file. */
struct timed {
	uint64_t time;
	uint32_t tid;
	uint32_t idx;
};

/* A thread's samples: order[first .. first + n), from `start` on. */
struct lane {
	uint64_t start;
	uint32_t tid;
	size_t first, n;
};

static int cmp_timed(const void *x, const void *y)
{
	const struct timed *a = x, *b = y;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int cmp_lane(const void *x, const void *y)
{
	const struct lane *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static uint64_t stack2_of(const struct rec_sample_full *s)
{
	return (uint64_t)s->stack * 2 + !!(s->flags & REC_SAMPLE_TRUNCATED);
}

/* A run's cell (profile.cells; 0 without cells). */
static uint32_t cell_of(const struct builder *b, uint64_t cell_ns, uint64_t time)
{
	uint64_t c;

	if (!cell_ns)
		return 0;
	c = (time - b->p->cells_origin) / cell_ns;
	return c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

/* Adds a run as an entry, with its cell when cells are kept. */
static int add_run(struct builder *b, uint64_t cell_ns, uint64_t stack2, uint32_t tkey,
		   uint64_t count, uint32_t cell)
{
	struct profile *p = b->p;

	if (cell_ns && GROW(p->cells, p->cells_cap, p->nentries + 1))
		return -ENOMEM;
	if (cell_ns)
		p->cells[p->nentries] = cell;
	return builder__add_entry(b, stack2, 0, tkey, count);
}

/* One lane: an entry per run of samples with the same thread key (the
 * thread's name at the time), stack and cell. */
static int walk_lane(struct builder *b, const struct timed *t, size_t n, uint64_t cell_ns)
{
	const struct rec_sample_full *s = b->r->samples;
	uint32_t tkey = 0, k, cell = 0, c;
	uint64_t stack2 = 0, count = 0;
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		err = builder__sample_tkey(b, t[i].tid, t[i].time, &k);
		if (err)
			break;
		c = cell_of(b, cell_ns, t[i].time);
		if (count && k == tkey && stack2_of(&s[t[i].idx]) == stack2 && c == cell) {
			count++;
			continue;
		}
		if (count)
			err = add_run(b, cell_ns, stack2, tkey, count, cell);
		tkey = k;
		stack2 = stack2_of(&s[t[i].idx]);
		cell = c;
		count = 1;
	}
	if (!err && count)
		err = add_run(b, cell_ns, stack2, tkey, count, cell);
	return err;
}

static int build(struct builder *b, uint64_t cell_ns)
{
	const struct recording *r = b->r;
	struct timed *t = malloc((r->nsamples ? r->nsamples : 1) * sizeof(*t));
	struct lane *lanes = NULL;
	size_t n = 0, nlanes = 0, lanes_cap = 0, i;
	int err = -ENOMEM;

	if (!t)
		return -ENOMEM;
	for (i = 0; i < r->nsamples; i++)
		if (recording__event_is_cpu(r, r->samples[i].event))
			t[n++] = (struct timed){r->samples[i].time, r->samples[i].tid, (uint32_t)i};
	b->p->cells_origin = UINT64_MAX;
	for (i = 0; i < n; i++)
		if (t[i].time < b->p->cells_origin)
			b->p->cells_origin = t[i].time;
	for (i = 0; i < n && cell_ns; i++) {
		uint32_t c = cell_of(b, cell_ns, t[i].time);

		if (c >= b->p->ncells)
			b->p->ncells = c == UINT32_MAX ? c : c + 1;
	}
	qsort(t, n, sizeof(*t), cmp_timed);
	for (i = 0; i < n; i++) {
		if (i && t[i].tid == t[i - 1].tid) {
			lanes[nlanes - 1].n++;
			continue;
		}
		if (GROW(lanes, lanes_cap, nlanes + 1))
			goto out;
		lanes[nlanes++] = (struct lane){t[i].time, t[i].tid, i, 1};
	}
	qsort(lanes, nlanes, sizeof(*lanes), cmp_lane);
	err = 0;
	for (i = 0; i < nlanes && !err; i++)
		err = walk_lane(b, t + lanes[i].first, lanes[i].n, cell_ns);
out:
	free(lanes);
	free(t);
	return err;
}

int profile__from_recording_in_time(struct profile *p, const struct recording *r,
				    const struct profile_build_opts *opts)
{
	struct profile_build_opts o = *opts;
	struct builder b = {0};
	int err;

	if (o.weight != PROFILE_WEIGHT_CPU || (o.probe && o.probe->event >= 0))
		return -EINVAL;
	o.by = PROFILE_BY_THREAD; /* a lane per thread */
	err = builder__init(&b, p, r, &o);
	if (!err)
		err = build(&b, o.cell_ns);
	builder__release(&b);
	return err;
}

/* ---- writing ---- */

/* Line l's text ("root;frame;...;leaf") into *buf; its length in *len. */
static int line_text(const struct profile *p, const struct profile_line *l, char **buf,
		     size_t *cap, size_t *len)
{
	const uint32_t *f = profile__stack_frames(p, l->stack);
	uint32_t depth = p->stacks[l->stack].depth, k;
	size_t at = 0;

	for (k = l->root ? 0 : 1; k <= depth; k++) {
		uint32_t id = k ? f[k - 1] : l->root;
		size_t n = strtab__len(&p->names, id);

		if (GROW(*buf, *cap, at + n + 1))
			return -ENOMEM;
		if (at)
			(*buf)[at++] = ';';
		memcpy(*buf + at, profile__name(p, id), n);
		at += n;
	}
	*len = at;
	return 0;
}

static int put_line(FILE *out, const char *text, size_t len, uint64_t count, unsigned decimals)
{
	char num[PROFILE_COUNT_TEXT];
	size_t n = profile_count_text(num, count, decimals);

	errno = 0;
	if (fwrite(text, 1, len, out) != len || fputc(' ', out) == EOF ||
	    fwrite(num, 1, n, out) != n || fputc('\n', out) == EOF)
		return errno ? -errno : -EIO;
	return 0;
}

int profile__write_chart(struct profile *p, const struct folded_opts *opts, FILE *out)
{
	struct folded_opts o = {.thread_root = opts ? opts->thread_root : PROFILE_ROOT_NONE,
				.any_order = 1};
	struct profile_line *lines;
	char *bufs[2] = {NULL, NULL};
	size_t caps[2] = {0, 0}, lens[2] = {0, 0}, nlines, i;
	uint64_t count = 0;
	int cur = 0, err;

	err = profile__lines(p, &o, &lines, &nlines);
	for (i = 0; i < nlines && !err; i++) {
		err = line_text(p, &lines[i], &bufs[cur], &caps[cur], &lens[cur]);
		if (err)
			break;
		if (count && lens[cur] == lens[!cur] && !memcmp(bufs[cur], bufs[!cur], lens[cur])) {
			count = count > UINT64_MAX - lines[i].count ? UINT64_MAX
								    : count + lines[i].count;
			continue;
		}
		if (count)
			err = put_line(out, bufs[!cur], lens[!cur], count, p->count_decimals);
		count = lines[i].count;
		cur = !cur;
	}
	if (!err && count)
		err = put_line(out, bufs[!cur], lens[!cur], count, p->count_decimals);
	free(bufs[0]);
	free(bufs[1]);
	free(lines);
	errno = 0;
	if (!err && fflush(out))
		err = errno ? -errno : -EIO;
	return err;
}
