/* annotate-find.c: which functions of a recording `prof annotate` shows,
 * and their samples per offset (see annotate.h).
 *
 * A frame belongs to a function through its SYMBOLS record (name, offset
 * in the symbol): the function starts at the frame's file offset minus that
 * offset, in the frame's binary. All processes that mapped the same binary
 * path add up into one function. Samples are first counted per leaf stack
 * node, so the stacks are walked once per unique stack, not per sample:
 * O(frames + samples + unique stacks x depth with --children). */
#include "report/annotate.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

#define KERNEL_SUFFIX "_[k]"
#define KERNEL_PATH UINT32_MAX /* the "path" of kernel functions in keys */
#define NO_FUNC UINT32_MAX

static int frame_kernel(const struct recording *r, const struct rec_frame *f)
{
	if (f->flags & REC_FRAME_KERNEL)
		return 1;
	return f->mapping < r->nmappings && (r->mappings[f->mapping].flags & REC_MAPPING_KERNEL);
}

/* Does symbol name `s` match? Sets *kernel_only for "NAME_[k]". */
static int name_matches(const struct annot_opts *o, const char *s, int kernel)
{
	size_t len, klen = strlen(KERNEL_SUFFIX);

	if (o->regex)
		return !regexec(o->regex, s, 0, NULL, 0);
	if (!strcmp(o->symbol, s))
		return 1;
	len = strlen(o->symbol);
	return kernel && len > klen && !strcmp(o->symbol + len - klen, KERNEL_SUFFIX) &&
	       strlen(s) == len - klen && !strncmp(o->symbol, s, len - klen);
}

static int add_hit(struct annot_func *fn, uint64_t off, uint64_t count)
{
	if (GROW(fn->hits, fn->hits_cap, fn->nhits + 1))
		return -ENOMEM;
	fn->hits[fn->nhits++] = (struct annot_hit){.off = off, .count = count};
	return 0;
}

/* The function of frame `id` (a matching symbol), created on first use:
 * *func gets its index, or NO_FUNC. */
static int frame_func(struct annot_set *set, const struct recording *r,
		      const struct annot_opts *o, uint32_t id, uint32_t *func)
{
	const struct rec_frame *f = &r->frames[id];
	const struct rec_symbol *sym;
	uint64_t start, key_a;
	uint32_t path, existing;
	int kernel, ins;

	*func = NO_FUNC;
	if (id >= r->symbols_cap || !r->symbols[id].name)
		return 0;
	sym = &r->symbols[id];
	set->symbols++;
	kernel = frame_kernel(r, f);
	if (!name_matches(o, recording__str(r, sym->name), kernel))
		return 0;
	if (kernel) {
		path = KERNEL_PATH;
		start = f->addr - sym->offset;
	} else {
		const struct rec_mapping *m;

		if (f->mapping >= r->nmappings)
			return 0;
		m = &r->mappings[f->mapping];
		if (f->addr < m->start || f->addr >= m->end)
			return 0;
		path = m->path;
		start = f->addr - m->start + m->pgoff - sym->offset;
	}
	key_a = (uint64_t)sym->name << 32 | path;
	ins = keymap__put(&set->index, key_a, start, (uint32_t)set->nfuncs, &existing);
	if (ins < 0)
		return ins;
	if (!ins) {
		*func = existing;
		return 0;
	}
	if (GROW(set->funcs, set->funcs_cap, set->nfuncs + 1))
		return -ENOMEM;
	set->funcs[set->nfuncs] = (struct annot_func){
		.name = sym->name,
		.mapping = kernel ? REC_NO_MAPPING : f->mapping,
		.kernel = kernel,
		.start = start,
	};
	*func = (uint32_t)set->nfuncs++;
	return 0;
}

static int event_counts(const struct recording *r, const struct annot_opts *o, unsigned ev)
{
	if (o->event >= 0)
		return ev == (unsigned)o->event;
	return recording__event_is_cpu(r, ev);
}

static int cmp_hits(const void *pa, const void *pb)
{
	const struct annot_hit *a = pa, *b = pb;

	return a->off < b->off ? -1 : a->off > b->off;
}

static int cmp_funcs(const void *pa, const void *pb, void *arg)
{
	const struct annot_func *a = pa, *b = pb;
	const struct recording *r = arg;
	int c;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	c = strcmp(recording__str(r, a->name), recording__str(r, b->name));
	if (c)
		return c;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* Sorts each function's hits and merges equal offsets. */
static void merge_hits(struct annot_func *fn)
{
	size_t i, o = 0;

	if (fn->nhits > 1)
		qsort(fn->hits, fn->nhits, sizeof(*fn->hits), cmp_hits);
	for (i = 0; i < fn->nhits; i++) {
		if (o && fn->hits[o - 1].off == fn->hits[i].off)
			fn->hits[o - 1].count += fn->hits[i].count;
		else
			fn->hits[o++] = fn->hits[i];
	}
	fn->nhits = o;
}

/* Counts the samples of one unique leaf stack (count of them). */
static int count_stack(struct annot_set *set, const struct recording *r, const uint32_t *ffunc,
		       uint32_t *fstamp, uint32_t *funcstamp, uint32_t leaf, uint64_t count,
		       int children)
{
	uint32_t node = leaf, stamp = leaf, guard = 0;
	int err;

	while (node && node < r->nstacks && guard++ < r->nstacks) {
		uint32_t fr = r->stacks[node].frame, fi = ffunc[fr];

		if (fi != NO_FUNC && fstamp[fr] != stamp) {
			struct annot_func *fn = &set->funcs[fi];

			fstamp[fr] = stamp; /* recursion: an address once per sample */
			err = add_hit(fn, r->symbols[fr].offset, count);
			if (err)
				return err;
			if (funcstamp[fi] != stamp) {
				funcstamp[fi] = stamp;
				fn->samples += count;
			}
		}
		if (!children)
			break;
		node = r->stacks[node].parent;
	}
	return 0;
}

int annot_set__build(struct annot_set *set, const struct recording *r,
		     const struct annot_opts *opts)
{
	uint32_t *ffunc = NULL, *fstamp = NULL, *funcstamp = NULL;
	uint64_t *per_stack = NULL;
	size_t i;
	int err = -ENOMEM;

	memset(set, 0, sizeof(*set));
	if (keymap__init(&set->index, 64))
		return -ENOMEM;
	ffunc = malloc((r->nframes ? r->nframes : 1) * sizeof(*ffunc));
	fstamp = calloc(r->nframes ? r->nframes : 1, sizeof(*fstamp));
	per_stack = calloc(r->nstacks ? r->nstacks : 1, sizeof(*per_stack));
	if (!ffunc || !fstamp || !per_stack)
		goto out;
	for (i = 0; i < r->nframes; i++) {
		err = frame_func(set, r, opts, (uint32_t)i, &ffunc[i]);
		if (err)
			goto out;
	}
	for (i = 0; i < r->nsamples; i++) {
		const struct rec_sample_full *s = &r->samples[i];

		if (!event_counts(r, opts, s->event))
			continue;
		set->total++;
		if (s->stack < r->nstacks)
			per_stack[s->stack]++;
	}
	err = -ENOMEM;
	funcstamp = calloc(set->nfuncs ? set->nfuncs : 1, sizeof(*funcstamp));
	if (!funcstamp)
		goto out;
	/* Stamps are leaf node ids, never 0 here: node 0 is the empty stack. */
	for (i = 1; set->nfuncs && i < r->nstacks; i++) {
		if (!per_stack[i])
			continue;
		err = count_stack(set, r, ffunc, fstamp, funcstamp, (uint32_t)i, per_stack[i],
				  opts->children);
		if (err)
			goto out;
	}
	for (i = 0; i < set->nfuncs; i++)
		merge_hits(&set->funcs[i]);
	if (set->nfuncs > 1)
		qsort_r(set->funcs, set->nfuncs, sizeof(*set->funcs), cmp_funcs, (void *)r);
	err = 0;
out:
	free(ffunc);
	free(fstamp);
	free(funcstamp);
	free(per_stack);
	return err;
}

void annot_set__release(struct annot_set *set)
{
	size_t i;

	for (i = 0; i < set->nfuncs; i++)
		free(set->funcs[i].hits);
	free(set->funcs);
	keymap__release(&set->index);
	memset(set, 0, sizeof(*set));
}

size_t annot_edit_distance(const char *a, const char *b, size_t limit)
{
	size_t la = strlen(a), lb = strlen(b), i, j, best;
	size_t *row;

	if (la > 256 || lb > 256) /* names compared are short; bound the work */
		return limit + 1;
	if ((la > lb ? la - lb : lb - la) > limit)
		return limit + 1;
	row = malloc((lb + 1) * sizeof(*row));
	if (!row)
		return limit + 1;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		best = row[0];
		for (j = 1; j <= lb; j++) {
			size_t up = row[j], v;

			v = diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best > limit) {
			free(row);
			return limit + 1;
		}
	}
	best = row[lb];
	free(row);
	return best > limit ? limit + 1 : best;
}

struct close_name {
	uint32_t id;
	size_t dist;
};

static int cmp_close(const void *pa, const void *pb, void *arg)
{
	const struct close_name *a = pa, *b = pb;
	const struct recording *r = arg;

	if (a->dist != b->dist)
		return a->dist < b->dist ? -1 : 1;
	return strcmp(recording__str(r, a->id), recording__str(r, b->id));
}

size_t annot_close_names(const struct recording *r, const char *name, uint32_t *ids, size_t max)
{
	struct close_name *c = NULL;
	size_t nc = 0, cap = 0, i, limit = strlen(name) / 3;
	uint8_t *seen;

	if (limit < 2)
		limit = 2; /* a swap of two letters is 2 edits */
	seen = calloc(r->nstrs ? r->nstrs : 1, 1);
	if (!seen)
		return 0;
	for (i = 0; i < r->nframes && i < r->symbols_cap; i++) {
		uint32_t id = r->symbols[i].name;
		const char *s;
		size_t d;

		if (!id || id >= r->nstrs || seen[id])
			continue;
		seen[id] = 1;
		s = recording__str(r, id);
		if (strcasestr(s, name) || (strlen(s) >= 3 && strcasestr(name, s)))
			d = 0;
		else
			d = annot_edit_distance(s, name, limit);
		if (d > limit || !*s)
			continue;
		if (GROW(c, cap, nc + 1))
			break;
		c[nc++] = (struct close_name){.id = id, .dist = d};
	}
	if (nc > 1)
		qsort_r(c, nc, sizeof(*c), cmp_close, (void *)r);
	for (i = 0; i < nc && i < max; i++)
		ids[i] = c[i].id;
	free(c);
	free(seen);
	return i;
}
