/* folded.c: folded stacks in and out (see report.h).
 *
 * Folded text is the lingua franca of flamegraph tools: one line per stack,
 * "root;caller;...;leaf COUNT". Reading it interns each frame name; the
 * writer merges entries whose text is the same and sorts lines bytewise by
 * their text, comparing name ids through a precomputed rank instead of
 * building each line's text first. */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/keymap.h"
#include "report/joined-sort.h"

/* ---- reading ---- */

/* A count as read: its digits before the point, and those after it
 * without trailing zeros ("1.50" has frac 5, ndec 1). */
struct count_text {
	uint64_t whole, frac;
	unsigned ndec;
	size_t ndec_raw; /* decimals after trailing zeros went, unbounded */
};

/* Parses a count as flamegraph.pl's /(\d+(?:\.\d*)?)$/ takes it: digits,
 * then optionally '.' and more digits. 0, or -EINVAL (empty, no leading
 * digit, another character, digits before the point past 64 bits). */
static int parse_count(const char *s, size_t len, struct count_text *c)
{
	size_t i, dot;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < len && s[i] != '.'; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9 || c->whole > (UINT64_MAX - d) / 10)
			return -EINVAL;
		c->whole = c->whole * 10 + d;
	}
	if (!i)
		return -EINVAL;
	dot = i;
	while (len > dot + 1 && s[len - 1] == '0')
		len--; /* trailing zeros change nothing */
	for (i = dot + 1; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9)
			return -EINVAL;
		if (++c->ndec_raw <= PROFILE_MAX_DECIMALS)
			c->frac = c->frac * 10 + d;
	}
	c->ndec = c->ndec_raw <= PROFILE_MAX_DECIMALS ? (unsigned)c->ndec_raw : 0;
	return 0;
}

/* The count in p's units, raising p's scale first if the count has more
 * decimals. 0, -EDOM (too many decimals) or -EOVERFLOW. */
static int scaled_count(struct profile *p, const struct count_text *c, uint64_t *out)
{
	uint64_t s, v;
	int err;

	if (c->ndec_raw > PROFILE_MAX_DECIMALS)
		return -EDOM;
	err = profile__rescale(p, c->ndec);
	if (err)
		return err;
	s = profile_count_scale(p->count_decimals);
	if (c->whole > UINT64_MAX / s)
		return -EOVERFLOW;
	v = c->whole * s;
	if (c->ndec) {
		uint64_t f = c->frac * profile_count_scale(p->count_decimals - c->ndec);

		if (v > UINT64_MAX - f)
			return -EOVERFLOW;
		v += f;
	}
	/* The sum must fit too: saturating would lose data silently. */
	if (p->total > UINT64_MAX - v)
		return -EOVERFLOW;
	*out = v;
	return 0;
}

struct prev_frame {
	const char *s;
	size_t len;
	uint32_t id;
	int clean;     /* kept as it is (profile__frame_scan()) */
	uint64_t hash; /* of a name to intern */
};

/* The scratch of reading: this line's frames (cur: text, and the id when
 * the memo knows it), their ids, and the last name seen at each depth. */
struct reader {
	struct prev_frame *cur, *prev;
	uint32_t *ids;
	size_t cur_cap, prev_cap, ids_cap, nprev;
	int in_place; /* the text is p's to keep: names stay in it */
};

#define ID_UNKNOWN UINT32_MAX

/* memcmp() == 0, the last 8 bytes compared first: distinct names of one
 * length ("[libc.so.6+0x7f...]") differ at their end, not their start. */
static inline int same_text(const char *a, const char *b, size_t len)
{
	uint64_t x, y;

	if (len >= 8) {
		memcpy(&x, a + len - 8, 8);
		memcpy(&y, b + len - 8, 8);
		if (x != y)
			return 0;
	}
	return !memcmp(a, b, len);
}

/* Splits the stack text into r->cur; *n gets the frames' count. Frames
 * the memo knows get their id; the index slots of the others are fetched
 * now, so that interning them finds them in cache (a million distinct
 * names make every probe a cache miss otherwise). 0; 1 at an empty frame
 * (the frames before it are in r->cur); -E2BIG past PROFILE_MAX_DEPTH
 * frames (before the scratch grows past that: the work and memory of a
 * line stay bounded); -ENOMEM. */
static int split_frames(struct profile *p, struct reader *r, const char *line, size_t len,
			size_t *n)
{
	size_t i, start, depth = 0;
	int stop = 0;

	for (start = 0; start <= len; start = i + 1) {
		int clean;
		size_t flen = profile__frame_scan(line + start, len - start, &clean);
		uint32_t id = ID_UNKNOWN;
		uint64_t h = 0;

		i = start + flen;
		/* Every frame must be non-empty: no leading, trailing or
		 * double ';'. */
		if (!flen) {
			stop = 1;
			break;
		}
		if (depth >= PROFILE_MAX_DEPTH) {
			stop = -E2BIG;
			break;
		}
		if (GROW(r->cur, r->cur_cap, depth + 1))
			return -ENOMEM;
		/* Sorted folded text repeats long prefixes: reuse the id of
		 * the last name seen at this depth when the text is the same
		 * (the text stays in memory, so the memo stays valid). */
		if (depth < r->nprev && r->prev[depth].len == flen &&
		    same_text(r->prev[depth].s, line + start, flen))
			id = r->prev[depth].id;
		else
			strtab__prefetch(&p->names, h = hash_bytes(line + start, flen));
		r->cur[depth++] = (struct prev_frame){line + start, flen, id, clean, h};
		if (i == len)
			break;
	}
	*n = depth;
	return stop;
}

/* One line without its newline. 1 if used, 0 if malformed, -ENOMEM, or
 * -E2BIG past PROFILE_MAX_DEPTH frames. */
static int parse_line(struct profile *p, struct reader *r, const char *line, size_t len)
{
	struct profile_entry e = {0};
	struct count_text count;
	size_t sep, k, depth;
	int err, stop;

	for (sep = len; sep > 0 && line[sep - 1] != ' ' && line[sep - 1] != '\t'; sep--)
		;
	if (!sep || sep == 1 || parse_count(line + sep, len - sep, &count))
		return 0;
	stop = split_frames(p, r, line, sep - 1, &depth);
	if (stop < 0 && stop != -E2BIG)
		return stop;
	if (GROW(r->ids, r->ids_cap, depth) || GROW(r->prev, r->prev_cap, depth))
		return -ENOMEM;
	/* Intern the frames before a bad one too (unused then, which is
	 * harmless), as reading frame by frame did. */
	for (k = 0; k < depth; k++) {
		struct prev_frame *f = &r->cur[k];

		if (f->id == ID_UNKNOWN) {
			/* in place, the ';' or blank after it ends it: the
			 * lines before are done with, this one is split; a
			 * name made safe is a copy */
			if (f->clean && r->in_place)
				((char *)f->s)[f->len] = '\0';
			err =
			    !f->clean ? profile__intern(p, f->s, f->len, &f->id)
			    : r->in_place
				? strtab__intern_borrowed(&p->names, f->s, f->len, f->hash, &f->id)
				: strtab__intern_hashed(&p->names, f->s, f->len, f->hash, &f->id);
			if (err)
				return err;
			r->prev[k] = *f;
		}
		r->ids[k] = f->id;
	}
	if (depth > r->nprev)
		r->nprev = depth;
	if (stop)
		return stop < 0 ? stop : 0;
	if (!count.whole && !count.ndec_raw)
		return 1; /* well-formed, adds nothing */
	err = scaled_count(p, &count, &e.count);
	if (!err)
		err = profile__add_stack(p, r->ids, depth, &e.stack);
	if (!err)
		err = profile__add(p, &e);
	return err ? err : 1;
}

static int from_folded(struct profile *p, const char *text, size_t len, int in_place,
		       struct folded_stats *st)
{
	struct reader rd = {.in_place = in_place};
	size_t pos = 0, lineno = 0;
	int err = 0;

	memset(st, 0, sizeof(*st));
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len, llen = end - pos;
		int r;

		lineno++;
		if (llen && text[pos + llen - 1] == '\r')
			llen--;
		if (llen) {
			st->lines++;
			r = parse_line(p, &rd, text + pos, llen);
			if (r < 0) {
				err = r;
				if (r != -ENOMEM)
					st->bad_line = lineno;
				break;
			}
			if (!r) {
				if (!st->malformed++)
					st->first_malformed = lineno;
			}
		}
		pos = end + 1;
	}
	free(rd.cur);
	free(rd.prev);
	free(rd.ids);
	return err;
}

int profile__from_folded(struct profile *p, const char *text, size_t len, struct folded_stats *st)
{
	return from_folded(p, text, len, 0, st);
}

int profile__from_folded_in_place(struct profile *p, char *text, size_t len,
				  struct folded_stats *st)
{
	return from_folded(p, text, len, 1, st);
}

/* ---- sorting and merging ---- */

/* Compares name a followed by terminator ta with name b followed by tb,
 * bytewise (ta, tb: ';' or 0 for the end of the text). Names hold no ';'
 * and no control characters. */
static int cmp_joined(const struct profile *p, uint32_t a, int ta, uint32_t b, int tb)
{
	uint32_t la = strtab__len(&p->names, a), lb = strtab__len(&p->names, b);
	uint32_t m = la < lb ? la : lb;
	int r = memcmp(profile__name(p, a), profile__name(p, b), m), ca, cb;

	if (r)
		return r < 0 ? -1 : 1;
	ca = la > m ? (unsigned char)profile__name(p, a)[m] : ta;
	cb = lb > m ? (unsigned char)profile__name(p, b)[m] : tb;
	return ca < cb ? -1 : ca > cb;
}

/* rank[id]: the position of name id among all n names in ';'-terminated
 * order (joined-sort.h). 0 or -ENOMEM. */
static int rank_names(const struct profile *p, uint32_t *rank, size_t n)
{
	struct joined_item *items = malloc((n ? n : 1) * sizeof(*items));
	size_t i;
	int err;

	if (!items)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const char *s = profile__name(p, (uint32_t)i);
		size_t len = strlen(s);

		items[i] = (struct joined_item){
		    .s = s, .len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len, .id = (uint32_t)i};
	}
	err = joined_sort(items, n);
	for (i = 0; !err && i < n; i++)
		rank[items[i].id] = (uint32_t)i;
	free(items);
	return err;
}

struct line_ctx {
	const struct profile *p;
	const uint32_t *rank;       /* name id -> position in ';'-terminated order,
				     * or NULL: compare the names' text */
	const uint32_t *stack_rank; /* stack -> position by text (equal text, equal rank) */
};

static inline uint32_t seq_len(const struct profile *p, const struct profile_line *l)
{
	return p->stacks[l->stack].depth + (l->root ? 1 : 0);
}

static inline uint32_t seq_at(const struct profile *p, const struct profile_line *l, uint32_t i)
{
	if (l->root) {
		if (!i)
			return l->root;
		i--;
	}
	return p->frames[p->stacks[l->stack].first + i];
}

/* Orders two distinct names, each followed by ';'. */
static inline int cmp_names(const struct line_ctx *c, uint32_t a, uint32_t b)
{
	if (c->rank)
		return c->rank[a] < c->rank[b] ? -1 : 1;
	return cmp_joined(c->p, a, ';', b, ';');
}

/* Orders lines as `sort` orders their text "a;b;c": where the names first
 * differ, both followed by ';', the name rank decides; at a last frame the
 * terminator is the end of the text instead, so compare the bytes. */
static int cmp_text(const struct line_ctx *c, const struct profile_line *a,
		    const struct profile_line *b)
{
	uint32_t la = seq_len(c->p, a), lb = seq_len(c->p, b), i;

	for (i = 0; i < la && i < lb; i++) {
		uint32_t na = seq_at(c->p, a, i), nb = seq_at(c->p, b, i);
		int r;

		if (na == nb)
			continue;
		if (i + 1 < la && i + 1 < lb)
			return cmp_names(c, na, nb);
		r = cmp_joined(c->p, na, i + 1 < la ? ';' : 0, nb, i + 1 < lb ? ';' : 0);
		if (r)
			return r;
	}
	return la < lb ? -1 : la > lb;
}

static int cmp_stacks(const void *x, const void *y, void *ctx)
{
	struct profile_line a = {.stack = *(const uint32_t *)x};
	struct profile_line b = {.stack = *(const uint32_t *)y};

	return cmp_text(ctx, &a, &b);
}

/* Lines with the same root (or none) are ordered by their stacks' ranks;
 * different roots by the roots' name ranks (a root is never the last frame,
 * so its terminator is ';'). Precomputing stack ranks keeps the comparison
 * O(1) however deep the stacks. */
static int cmp_lines(const void *x, const void *y, void *ctx)
{
	const struct line_ctx *c = ctx;
	const struct profile_line *a = x, *b = y;

	if (a->root == b->root) {
		uint32_t ra = c->stack_rank[a->stack], rb = c->stack_rank[b->stack];

		return ra < rb ? -1 : ra > rb;
	}
	if (a->root && b->root)
		return cmp_names(c, a->root, b->root);
	return cmp_text(c, a, b);
}

static int thread_root(struct profile *p, const struct profile_entry *e,
		       enum profile_thread_root how, struct keymap *cache, uint32_t *root)
{
	uint32_t len;
	int n, err;

	if (!p->has_threads || how == PROFILE_ROOT_NONE || !e->thread) {
		*root = 0;
		return 0;
	}
	if (how == PROFILE_ROOT_NAME) {
		*root = e->thread;
		return 0;
	}
	if (keymap__get(cache, e->thread, e->tid, root))
		return 0;
	len = strtab__len(&p->names, e->thread);
	if (GROW(p->scratch, p->scratch_cap, (size_t)len + 16))
		return -ENOMEM;
	memcpy(p->scratch, profile__name(p, e->thread), len);
	n = snprintf(p->scratch + len, 16, "/%" PRIu32, e->tid);
	err = strtab__intern(&p->names, p->scratch, len + (size_t)n, root);
	if (!err && keymap__put(cache, e->thread, e->tid, *root, NULL) < 0)
		err = -ENOMEM;
	return err;
}

int profile__lines(struct profile *p, const struct folded_opts *opts, struct profile_line **out,
		   size_t *nout)
{
	enum profile_thread_root how = opts ? opts->thread_root : PROFILE_ROOT_NONE;
	struct profile_line *lines = NULL;
	uint32_t *rank = NULL, *stack_order = NULL, *stack_rank = NULL;
	struct keymap roots = {0};
	struct line_ctx ctx = {.p = p};
	size_t n = 0, i, j, nnames;
	int err = -ENOMEM;

	*out = NULL;
	*nout = 0;
	lines = malloc((p->nentries ? p->nentries : 1) * sizeof(*lines));
	if (!lines)
		goto out;
	for (i = 0; i < p->nentries; i++) {
		const struct profile_entry *e = &p->entries[i];

		if (!e->count)
			continue;
		err = thread_root(p, e, how, &roots, &lines[n].root);
		if (err)
			goto out;
		lines[n].stack = e->stack;
		lines[n].count = e->count;
		n++;
	}
	if (opts && opts->any_order) {
		*out = lines;
		*nout = n;
		lines = NULL;
		err = 0;
		goto out;
	}
	/* Rank every name (roots are interned by now) when that is cheaper
	 * than comparing their text: not when most names are distinct (JIT
	 * frames, unresolved addresses), where the sorts below compare far
	 * fewer names than there are. Both give the same order. */
	nnames = p->names.count;
	if (nnames / 2 <= p->nstacks + n) {
		rank = malloc((nnames ? nnames : 1) * sizeof(*rank));
		if (!rank) {
			err = -ENOMEM;
			goto out;
		}
		err = rank_names(p, rank, nnames);
		if (err)
			goto out;
		ctx.rank = rank;
	}
	/* Rank every stack by its text; stacks with the same text (different
	 * addresses in the same functions) get the same rank. */
	stack_order = malloc((p->nstacks ? p->nstacks : 1) * sizeof(*stack_order));
	stack_rank = malloc((p->nstacks ? p->nstacks : 1) * sizeof(*stack_rank));
	if (!stack_order || !stack_rank) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < p->nstacks; i++)
		stack_order[i] = (uint32_t)i;
	qsort_r(stack_order, p->nstacks, sizeof(*stack_order), cmp_stacks, &ctx);
	for (i = 0, j = 0; i < p->nstacks; i++) {
		if (i && cmp_stacks(&stack_order[i - 1], &stack_order[i], &ctx))
			j = i;
		stack_rank[stack_order[i]] = (uint32_t)j;
	}
	ctx.stack_rank = stack_rank;
	qsort_r(lines, n, sizeof(*lines), cmp_lines, &ctx);
	/* Merge lines whose text is the same (now adjacent). */
	for (i = 0, j = 0; i < n; i++) {
		if (j && !cmp_lines(&lines[j - 1], &lines[i], &ctx)) {
			uint64_t c = lines[j - 1].count;

			lines[j - 1].count = c > UINT64_MAX - lines[i].count ? UINT64_MAX
									       : c + lines[i].count;
		} else {
			lines[j++] = lines[i];
		}
	}
	*out = lines;
	*nout = j;
	lines = NULL;
	err = 0;
out:
	free(lines);
	free(rank);
	free(stack_order);
	free(stack_rank);
	keymap__release(&roots);
	return err;
}

/* ---- writing ---- */

struct out_buf {
	char *buf;
	size_t len, cap;
};

static int put(struct out_buf *o, const char *s, size_t n)
{
	if (GROW(o->buf, o->cap, o->len + n))
		return -ENOMEM;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	return 0;
}

static int put_stack(const struct profile *p, struct out_buf *o, uint32_t stack)
{
	const struct profile_stack *s = &p->stacks[stack];
	uint32_t k;
	int err = 0;

	for (k = 0; k < s->depth && !err; k++) {
		uint32_t id = p->frames[s->first + k];

		if (k && (err = put(o, ";", 1)))
			break;
		err = put(o, profile__name(p, id), strtab__len(&p->names, id));
	}
	return err;
}

static int drain(struct out_buf *o, FILE *out)
{
	errno = 0;
	if (o->len && fwrite(o->buf, 1, o->len, out) != o->len)
		return errno ? -errno : -EIO;
	o->len = 0;
	return 0;
}

int profile__write_folded(struct profile *p, const struct folded_opts *opts, FILE *out)
{
	struct profile_line *lines;
	struct out_buf o = {0}, texts = {0};
	size_t nlines, i, *text_at = NULL; /* stack -> offset + 1 in texts */
	int err;

	err = profile__lines(p, opts, &lines, &nlines);
	if (err)
		return err;
	/* With thread roots, one stack shows up under many threads: render
	 * each stack's text once. */
	if (nlines && lines[0].root && !(text_at = calloc(p->nstacks, sizeof(*text_at))))
		err = -ENOMEM;
	for (i = 0; i < nlines && !err; i++) {
		const struct profile_line *l = &lines[i];
		char num[PROFILE_COUNT_TEXT + 2];
		int n;

		if (l->root) {
			err = put(&o, profile__name(p, l->root), strtab__len(&p->names, l->root));
			if (!err)
				err = put(&o, ";", 1);
		}
		if (err)
			break;
		if (text_at) {
			size_t at = text_at[l->stack];

			if (!at) {
				at = texts.len + 1;
				err = put_stack(p, &texts, l->stack);
				if (!err)
					err = put(&texts, "", 1);
				text_at[l->stack] = at;
			}
			if (!err)
				err = put(&o, texts.buf + at - 1, strlen(texts.buf + at - 1));
		} else {
			err = put_stack(p, &o, l->stack);
		}
		num[0] = ' ';
		n = (int)profile_count_text(num + 1, l->count, p->count_decimals) + 1;
		num[n++] = '\n';
		if (!err)
			err = put(&o, num, (size_t)n);
		if (!err && o.len >= 65536)
			err = drain(&o, out);
	}
	if (!err)
		err = drain(&o, out);
	free(o.buf);
	free(texts.buf);
	free(text_at);
	free(lines);
	errno = 0;
	if (!err && fflush(out))
		err = errno ? -errno : -EIO;
	return err;
}
