/* diff-model.c: the union of two profiles' folded lines (see diff.h), and
 * the two-column text `prof diff` prints.
 *
 * Each profile's lines (profile__lines(): one per distinct text, thread
 * roots included) are rendered to text once; both sides are sorted
 * bytewise and merged like `join`. A line found only in OLD gets its names
 * and stack interned into NEW's profile, so that every line of the union
 * lives in one name space, which the flame tree needs. Cost: O(L log L)
 * string compares and the bytes of the texts, L the lines of both. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/text-clean.h"
#include "report/diff.h"

struct side {
	struct profile *p;
	struct profile_line *lines;
	size_t nlines;
	char *texts;
	size_t len, cap;
	size_t *at;    /* line -> text offset */
	size_t *order; /* lines by text */
};

static int put(struct side *s, const char *str, size_t n)
{
	if (GROW(s->texts, s->cap, s->len + n + 1))
		return -ENOMEM;
	memcpy(s->texts + s->len, str, n);
	s->len += n;
	return 0;
}

static int render(struct side *s, const struct profile_line *l)
{
	const struct strtab *names = &s->p->names;
	const uint32_t *fr = profile__stack_frames(s->p, l->stack);
	uint32_t i, depth = s->p->stacks[l->stack].depth;
	int err = 0;

	if (l->root)
		err = put(s, profile__name(s->p, l->root), strtab__len(names, l->root));
	for (i = 0; i < depth && !err; i++) {
		if ((i || l->root) && (err = put(s, ";", 1)))
			break;
		err = put(s, profile__name(s->p, fr[i]), strtab__len(names, fr[i]));
	}
	return err ? err : put(s, "", 1);
}

static int cmp_text(const void *a, const void *b, void *ctx)
{
	const struct side *s = ctx;

	return strcmp(s->texts + s->at[*(const size_t *)a], s->texts + s->at[*(const size_t *)b]);
}

static int side_load(struct side *s, struct profile *p, const struct folded_opts *fo)
{
	size_t i;
	int err;

	s->p = p;
	err = profile__lines(p, fo, &s->lines, &s->nlines);
	if (err)
		return err;
	s->at = malloc((s->nlines ? s->nlines : 1) * sizeof(*s->at));
	s->order = malloc((s->nlines ? s->nlines : 1) * sizeof(*s->order));
	if (!s->at || !s->order)
		return -ENOMEM;
	for (i = 0; i < s->nlines; i++) {
		s->at[i] = s->len;
		s->order[i] = i;
		if ((err = render(s, &s->lines[i])))
			return err;
	}
	/* profile__lines() sorts by text already; sorting again by the very
	 * bytes compared below keeps the merge right whatever that order is. */
	qsort_r(s->order, s->nlines, sizeof(*s->order), cmp_text, s);
	return 0;
}

static void side_release(struct side *s)
{
	free(s->lines);
	free(s->texts);
	free(s->at);
	free(s->order);
}

/* An OLD line in NEW's name space. 0 or -ENOMEM. */
static int translate(struct profile *newp, const struct profile *oldp,
		     const struct profile_line *l, uint32_t **ids, size_t *cap, struct diff_line *out)
{
	const uint32_t *fr = profile__stack_frames(oldp, l->stack);
	uint32_t i, depth = oldp->stacks[l->stack].depth;
	int err = 0;

	out->root = 0;
	if (l->root)
		err = profile__intern(newp, profile__name(oldp, l->root),
				      strtab__len(&oldp->names, l->root), &out->root);
	if (!err && GROW(*ids, *cap, depth ? depth : 1))
		err = -ENOMEM;
	for (i = 0; i < depth && !err; i++)
		err = profile__intern(newp, profile__name(oldp, fr[i]),
				      strtab__len(&oldp->names, fr[i]), &(*ids)[i]);
	if (!err)
		err = profile__add_stack(newp, *ids, depth, &out->stack);
	return err;
}

/* Capacities of the growing arrays of a struct profile_diff. */
struct caps {
	size_t lines, at, texts, text_len;
};

static int add_line(struct profile_diff *d, struct caps *cap, const struct diff_line *l,
		    const char *text)
{
	size_t n = strlen(text) + 1;
	size_t *text_len = &cap->text_len;

	if (GROW(d->lines, cap->lines, d->nlines + 1) || GROW(d->text_at, cap->at, d->nlines + 1) ||
	    GROW(d->texts, cap->texts, *text_len + n))
		return -ENOMEM;
	d->lines[d->nlines] = *l;
	d->text_at[d->nlines++] = *text_len;
	memcpy(d->texts + *text_len, text, n);
	*text_len += n;
	return 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

int profile_diff__build(struct profile_diff *d, struct profile *newp, struct profile *oldp,
			const struct folded_opts *fo)
{
	struct side n = {0}, o = {0};
	struct caps cap = {0};
	size_t i = 0, j = 0, ids_cap = 0;
	uint32_t *ids = NULL;
	int err;

	memset(d, 0, sizeof(*d));
	err = profile__align_scales(newp, oldp);
	if (err)
		return err;
	d->count_decimals = newp->count_decimals;
	err = side_load(&n, newp, fo);
	if (!err)
		err = side_load(&o, oldp, fo);
	while (!err && (i < n.nlines || j < o.nlines)) {
		const struct profile_line *ln = i < n.nlines ? &n.lines[n.order[i]] : NULL;
		const struct profile_line *lo = j < o.nlines ? &o.lines[o.order[j]] : NULL;
		const char *tn = ln ? n.texts + n.at[n.order[i]] : NULL;
		const char *to = lo ? o.texts + o.at[o.order[j]] : NULL;
		int c = !ln ? 1 : !lo ? -1 : strcmp(tn, to);
		struct diff_line l = {0};

		if (c <= 0) {
			l.root = ln->root;
			l.stack = ln->stack;
			l.new = ln->count;
			i++;
		}
		if (c >= 0) {
			l.old = lo->count;
			j++;
		}
		if (c > 0)
			err = translate(newp, oldp, lo, &ids, &ids_cap, &l);
		if (!err)
			err = add_line(d, &cap, &l, c > 0 ? to : tn);
		d->old_total = sat_add(d->old_total, l.old);
		d->new_total = sat_add(d->new_total, l.new);
	}
	free(ids);
	side_release(&n);
	side_release(&o);
	if (err)
		profile_diff__release(d);
	return err;
}

void profile_diff__release(struct profile_diff *d)
{
	free(d->lines);
	free(d->texts);
	free(d->text_at);
	memset(d, 0, sizeof(*d));
}

uint64_t profile_diff__scale(uint64_t old, uint64_t old_total, uint64_t new_total)
{
	if (!old_total)
		return old;
	return (uint64_t)(((unsigned __int128)old * new_total + old_total / 2) / old_total);
}

int profile_diff__write(const struct profile_diff *d, int raw, FILE *out)
{
	size_t i;

	for (i = 0; i < d->nlines; i++) {
		const struct diff_line *l = &d->lines[i];
		uint64_t old = raw ? l->old : profile_diff__scale(l->old, d->old_total, d->new_total);
		char old_text[PROFILE_COUNT_TEXT], new_text[PROFILE_COUNT_TEXT];

		profile_count_text(old_text, old, d->count_decimals);
		profile_count_text(new_text, l->new, d->count_decimals);
		/* Folded names are clean already (profile__intern); text_put()
		 * keeps every text output on the one rule (lib/text-clean.h). */
		if (text_put(out, d->texts + d->text_at[i]) == EOF ||
		    fprintf(out, " %s %s\n", old_text, new_text) < 0)
			break;
	}
	errno = 0;
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}
