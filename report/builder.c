/* builder.c: the builder of profiles from a recording (builder.h), shared by
 * the CPU profile (from-recording.c), the time-weighted ones (off-cpu.c) and
 * the probe ones (probe.c): thread keys (a sample's thread name at its
 * time), recording stacks rendered once into profile stacks, and the
 * entries added with them.
 *
 * Work is bounded by the number of unique things: each unique stack id is
 * rendered once, each frame id named once, each thread name interned once. */
#include "report/builder.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "jvm/jvm.h"
#include "lib/grow.h"
#include "lib/keymap.h"

static int cmp_events(const void *a, const void *b)
{
	const struct name_event *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int add_tkey(struct builder *b, uint32_t tid, uint32_t pid, uint32_t rec_name,
		    uint32_t *tkey)
{
	uint32_t existing;
	int r;

	if (b->ntkeys >= UINT32_MAX)
		return -ENOMEM;
	r = keymap__put(&b->tkey_ids, (uint64_t)tid << 32 | pid, rec_name, (uint32_t)b->ntkeys,
			&existing);
	if (r < 0)
		return r;
	if (r == 0) {
		*tkey = existing;
		return 0;
	}
	if (GROW(b->tkeys, b->tkeys_cap, b->ntkeys + 1))
		return -ENOMEM;
	b->tkeys[b->ntkeys] = (struct thread_key){.tid = tid, .pid = pid, .rec_name = rec_name};
	*tkey = (uint32_t)b->ntkeys++;
	return 0;
}

static int add_slot(struct builder *b, uint32_t tid, uint32_t first, uint32_t n, uint32_t pid,
		    uint32_t *slot)
{
	int err;

	if (GROW(b->slots, b->slots_cap, b->nslots + 1))
		return -ENOMEM;
	b->slots[b->nslots] = (struct tid_slot){.first = first, .n = n};
	if (!n) {
		err = add_tkey(b, tid, pid, UINT32_MAX, &b->slots[b->nslots].tkey);
		if (err)
			return err;
	}
	err = keymap__put(&b->tid_slots, tid, 0, (uint32_t)b->nslots, NULL);
	if (err < 0)
		return err;
	*slot = (uint32_t)b->nslots++;
	return 0;
}

/* Indexes the thread events: name events by tid, with a thread key each. */
static int index_threads(struct builder *b)
{
	const struct recording *r = b->r;
	size_t i, j;
	uint32_t slot;
	int err;

	if (keymap__init(&b->tid_slots, 256) || keymap__init(&b->tkey_ids, 256))
		return -ENOMEM;
	b->events = malloc((r->nthreads ? r->nthreads : 1) * sizeof(*b->events));
	if (!b->events)
		return -ENOMEM;
	for (i = 0; i < r->nthreads; i++) {
		const struct rec_thread_event *t = &r->threads[i];

		if (t->kind != REC_THREAD_START && t->kind != REC_THREAD_NAME)
			continue;
		b->events[b->nevents++] = (struct name_event){
			.time = t->time, .tid = t->tid, .pid = t->pid,
			.name = t->name, .order = (uint32_t)i};
	}
	qsort(b->events, b->nevents, sizeof(*b->events), cmp_events);
	for (i = 0; i < b->nevents; i = j) {
		for (j = i; j < b->nevents && b->events[j].tid == b->events[i].tid; j++) {
			struct name_event *e = &b->events[j];

			err = add_tkey(b, e->tid, e->pid, e->name, &e->tkey);
			if (err)
				return err;
		}
		err = add_slot(b, b->events[i].tid, (uint32_t)i, (uint32_t)(j - i), 0, &slot);
		if (err)
			return err;
	}
	/* Threads seen only exiting still have a pid. */
	for (i = 0; i < r->nthreads; i++) {
		const struct rec_thread_event *t = &r->threads[i];

		if (t->kind == REC_THREAD_EXIT && !keymap__get(&b->tid_slots, t->tid, 0, &slot)) {
			err = add_slot(b, t->tid, 0, 0, t->pid, &slot);
			if (err)
				return err;
		}
	}
	return 0;
}

int builder__sample_tkey(struct builder *b, uint32_t tid, uint64_t time, uint32_t *tkey)
{
	const struct tid_slot *s;
	uint32_t slot, lo, hi;
	int err;

	if (b->have_last && b->last_tid == tid) {
		slot = b->last_slot;
	} else if (!keymap__get(&b->tid_slots, tid, 0, &slot)) {
		err = add_slot(b, tid, 0, 0, 0, &slot);
		if (err)
			return err;
	}
	b->have_last = 1;
	b->last_tid = tid;
	b->last_slot = slot;
	s = &b->slots[slot];
	if (!s->n) {
		*tkey = s->tkey;
		return 0;
	}
	/* The last event at or before `time`; the first one if none is. */
	lo = 0;
	hi = s->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (b->events[s->first + mid].time <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	*tkey = b->events[s->first + (lo ? lo - 1 : 0)].tkey;
	return 0;
}

static const char *path_base(const char *path, size_t *len)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash && slash[1] ? slash + 1 : path;
	size_t n = strlen(base);

	/* "[vdso]" -> "vdso": the frame adds its own brackets. */
	if (n >= 3 && base[0] == '[' && base[n - 1] == ']') {
		base++;
		n -= 2;
	}
	if (!n) {
		base = "unknown";
		n = strlen(base);
	}
	*len = n;
	return base;
}

static int frame_name(struct builder *b, uint32_t f, uint32_t *id)
{
	const struct recording *r = b->r;
	const struct rec_frame *fr = &r->frames[f];
	const struct rec_symbol *sym = f < r->symbols_cap ? &r->symbols[f] : NULL;
	int kernel = !!(fr->flags & REC_FRAME_KERNEL);
	int jit = sym && (sym->flags & REC_SYMBOL_JIT) && !kernel;
	const char *suffix = kernel ? "_[k]" : "";
	size_t need;
	long long n;
	int err;

	if (b->frame_names[f]) {
		*id = b->frame_names[f];
		return 0;
	}
	if (sym && sym->name && sym->name < r->nstrs && r->lens[sym->name]) {
		uint32_t len = r->lens[sym->name];

		if (!kernel && !jit) {
			/* Many frames share a function: intern its name once. */
			if (!b->str_names[sym->name]) {
				err = profile__intern(b->p, r->strs[sym->name], len,
						      &b->str_names[sym->name]);
				if (err)
					return err;
			}
			*id = b->frame_names[f] = b->str_names[sym->name];
			return 0;
		}
		need = (size_t)len + 8;
		if (GROW(b->text, b->text_cap, need))
			return -ENOMEM;
		/* JIT names as HotSpot writes them, made short and stable
		 * ("java.util.HashMap.get"); other runtimes' names unchanged. */
		if (jit)
			len = (uint32_t)jvm_clean_name(r->strs[sym->name], len, b->java_signatures,
						       b->text, need);
		else
			memcpy(b->text, r->strs[sym->name], len);
		memcpy(b->text + len, jit ? "_[j]" : "_[k]", 4);
		n = (int)(len + 4);
	} else {
		/* Caller frames hold the return address minus one (so that it
		 * falls inside the call); show the return address itself. */
		uint64_t addr = fr->addr + ((fr->flags & REC_FRAME_CALLER) ? 1 : 0);

		if (fr->mapping != REC_NO_MAPPING && fr->mapping < r->nmappings) {
			const struct rec_mapping *m = &r->mappings[fr->mapping];
			size_t blen;
			const char *base = path_base(recording__str(r, m->path), &blen);

			need = blen + 48;
			if (GROW(b->text, b->text_cap, need))
				return -ENOMEM;
			n = snprintf(b->text, b->text_cap, "[%.*s+0x%" PRIx64 "]%s", (int)blen, base,
				     addr - m->start + m->pgoff, suffix);
		} else {
			if (GROW(b->text, b->text_cap, 64))
				return -ENOMEM;
			n = snprintf(b->text, b->text_cap, "[%s+0x%" PRIx64 "]%s",
				     kernel ? "kernel.kallsyms" : "unknown", addr, suffix);
		}
	}
	if (n < 0)
		return -EINVAL;
	err = profile__intern(b->p, b->text, (size_t)n, id);
	if (err)
		return err;
	b->frame_names[f] = *id;
	return 0;
}

#define MAX_INLINE_FRAMES 64 /* frames shown for one address */
#define INLINE_SUFFIX "_[i]"

/* With --lines: `name` (len bytes) + " (file:line)" of inline record `in`,
 * the file without its directories, + `suffix`, interned. */
static int name_with_line(struct builder *b, const char *name, size_t len,
			  const struct rec_inline *in, const char *suffix, uint32_t *id)
{
	const struct recording *r = b->r;
	const char *file = in->file && in->file < r->nstrs ? r->strs[in->file] : "??";
	size_t flen = in->file && in->file < r->nstrs ? r->lens[in->file] : 2;
	const char *slash = memrchr(file, '/', flen);
	long long n;

	if (slash) {
		flen -= (size_t)(slash + 1 - file);
		file = slash + 1;
	}
	if (GROW(b->text, b->text_cap, len + flen + 32 + strlen(suffix)))
		return -ENOMEM;
	if (!in->file && !in->line) /* a JIT's inlined method: no source known */
		n = snprintf(b->text, b->text_cap, "%.*s%s", (int)len, name, suffix);
	else
		n = snprintf(b->text, b->text_cap, "%.*s (%.*s:%u)%s", (int)len, name, (int)flen,
			     file, in->line, suffix);
	if (n < 0)
		return -EINVAL;
	return profile__intern(b->p, b->text, (size_t)n, id);
}

/* The profile name of inline record `i`: its function with "_[i]" (and its
 * source line, with --lines). */
static int inline_name(struct builder *b, uint32_t i, uint32_t *id)
{
	const struct recording *r = b->r;
	const struct rec_inline *in = &r->inlines[i];
	uint32_t len = r->lens[in->name];
	int err;

	if (b->inline_names[i]) {
		*id = b->inline_names[i];
		return 0;
	}
	if (b->lines) {
		err = name_with_line(b, r->strs[in->name], len, in, INLINE_SUFFIX, id);
	} else {
		if (GROW(b->text, b->text_cap, (size_t)len + sizeof(INLINE_SUFFIX)))
			return -ENOMEM;
		memcpy(b->text, r->strs[in->name], len);
		memcpy(b->text + len, INLINE_SUFFIX, sizeof(INLINE_SUFFIX));
		err = profile__intern(b->p, b->text, len + sizeof(INLINE_SUFFIX) - 1, id);
	}
	if (!err)
		b->inline_names[i] = *id;
	return err;
}

/* With --lines: frame f's own name (`id`) followed by the source line of its
 * outermost inline record `in`. */
static int outer_name(struct builder *b, uint32_t f, const struct rec_inline *in, uint32_t *id)
{
	char *copy;
	int err;

	if (b->outer_names[f]) {
		*id = b->outer_names[f];
		return 0;
	}
	/* The name lives in the profile, which interning may grow: copy it. */
	copy = strdup(profile__name(b->p, *id));
	if (!copy)
		return -ENOMEM;
	err = name_with_line(b, copy, strlen(copy), in, "", id);
	free(copy);
	if (!err)
		b->outer_names[f] = *id;
	return err;
}

/* Appends frame f's names to b->chain[1 + *depth ...], leaf side first:
 * its inlined functions, innermost first, as "name_[i]", then the
 * function itself (its symbol; DWARF's name when it has none, as for local
 * functions of a library whose .symtab was stripped). */
static int push_frame(struct builder *b, uint32_t f, size_t *depth)
{
	const struct recording *r = b->r;
	const struct rec_inline_span *sp = f < r->inline_of_cap ? &r->inline_of[f] : NULL;
	const struct rec_symbol *sym = f < r->symbols_cap ? &r->symbols[f] : NULL;
	uint32_t k = sp ? sp->count : 0, i, id;
	int err;

	if (k > MAX_INLINE_FRAMES)
		k = MAX_INLINE_FRAMES;
	if (GROW(b->chain, b->chain_cap, *depth + (k > 1 ? k : 1) + 3))
		return -ENOMEM;
	if (k) {
		for (i = 0; i + 1 < k; i++) {
			err = inline_name(b, sp->first + i, &id);
			if (err)
				return err;
			b->chain[1 + (*depth)++] = id;
		}
		if (!(sym && sym->name) && r->lens[r->inlines[sp->first + k - 1].name] &&
		    strcmp(r->strs[r->inlines[sp->first + k - 1].name], "??")) {
			const struct rec_inline *in = &r->inlines[sp->first + k - 1];

			err = profile__intern(b->p, r->strs[in->name], r->lens[in->name], &id);
			if (!err && b->lines)
				err = outer_name(b, f, in, &id);
			if (err)
				return err;
			b->chain[1 + (*depth)++] = id;
			return 0;
		}
	}
	err = frame_name(b, f, &id);
	if (!err && k && b->lines)
		err = outer_name(b, f, &r->inlines[sp->first + k - 1], &id);
	if (err)
		return err;
	b->chain[1 + (*depth)++] = id;
	return 0;
}

/* Renders stack id `s` (plus the truncation mark, and a `leaf` frame
 * unless 0) into a profile stack. */
static int render_stack(struct builder *b, uint64_t stack2, uint32_t leaf, uint32_t *out)
{
	const struct recording *r = b->r;
	uint32_t s = (uint32_t)(stack2 >> 1), marker, cached;
	size_t depth = 0, i;
	int err;

	if (!leaf && b->stack_of[stack2]) {
		*out = b->stack_of[stack2] - 1;
		return 0;
	}
	if (leaf && keymap__get(&b->leaf_stacks, stack2, leaf, &cached)) {
		*out = cached - 1;
		return 0;
	}
	/* Leaf to root into chain[1..], leaving room for a marker root and
	 * an added leaf. */
	while (s) {
		err = push_frame(b, r->stacks[s].frame, &depth);
		if (err)
			return err;
		s = r->stacks[s].parent; /* < s: the parser checked */
	}
	if (!depth) {
		if (GROW(b->chain, b->chain_cap, 3))
			return -ENOMEM;
		err = strtab__intern(&b->p->names, PROFILE_NO_STACK, strlen(PROFILE_NO_STACK),
				     &b->chain[1]);
		if (err)
			return err;
		depth = 1;
	}
	for (i = 0; i < depth / 2; i++) {
		uint32_t t = b->chain[1 + i];

		b->chain[1 + i] = b->chain[depth - i];
		b->chain[depth - i] = t;
	}
	if (leaf)
		b->chain[1 + depth++] = leaf;
	if (stack2 & 1) {
		err = strtab__intern(&b->p->names, PROFILE_TRUNCATED, strlen(PROFILE_TRUNCATED),
				     &marker);
		if (err)
			return err;
		b->chain[0] = marker;
		err = profile__add_stack(b->p, b->chain, depth + 1, out);
	} else {
		err = profile__add_stack(b->p, b->chain + 1, depth, out);
	}
	if (err)
		return err;
	if (GROW(b->p->origin, b->p->origin_cap, b->p->nstacks))
		return -ENOMEM;
	b->p->origin[*out] = stack2 + 1;
	if (leaf)
		return keymap__set(&b->leaf_stacks, stack2, leaf, *out + 1);
	b->stack_of[stack2] = *out + 1;
	return 0;
}

static int thread_name(struct builder *b, uint32_t tkey, uint32_t *id)
{
	struct thread_key *k = &b->tkeys[tkey];
	const struct recording *r = b->r;
	char buf[16];
	int err;

	if (k->name) {
		*id = k->name;
		return 0;
	}
	if (k->rec_name != UINT32_MAX && k->rec_name < r->nstrs && r->lens[k->rec_name]) {
		if (!b->str_names[k->rec_name]) {
			err = profile__intern(b->p, r->strs[k->rec_name], r->lens[k->rec_name],
					      &b->str_names[k->rec_name]);
			if (err)
				return err;
		}
		k->name = b->str_names[k->rec_name];
	} else {
		int n = snprintf(buf, sizeof(buf), "%" PRIu32, k->tid);

		err = profile__intern(b->p, buf, (size_t)n, &k->name);
		if (err)
			return err;
	}
	*id = k->name;
	return 0;
}

static int make_entry(struct builder *b, uint64_t stack2, uint32_t leaf, uint32_t tkey,
		      struct profile_entry *e)
{
	int err;

	err = render_stack(b, stack2, leaf, &e->stack);
	if (err)
		return err;
	if (tkey != BUILDER_NO_THREAD) {
		err = thread_name(b, tkey, &e->thread);
		if (err)
			return err;
		e->pid = b->tkeys[tkey].pid;
		e->tid = b->tkeys[tkey].tid;
	}
	return 0;
}

int builder__add_entry(struct builder *b, uint64_t stack2, uint32_t leaf, uint32_t tkey,
		       uint64_t count)
{
	struct profile_entry e = {.count = count};
	int err = make_entry(b, stack2, leaf, tkey, &e);

	return err ? err : profile__add(b->p, &e);
}

int builder__add_alloc_entry(struct builder *b, uint64_t stack2, uint32_t leaf, uint32_t tkey,
			     uint64_t count, uint64_t objects, uint64_t bytes)
{
	struct profile_entry e = {.count = count};
	int err = make_entry(b, stack2, leaf, tkey, &e);

	return err ? err : profile__add_alloc(b->p, &e, objects, bytes);
}

int builder__init(struct builder *b, struct profile *p, const struct recording *r,
		  const struct profile_build_opts *opts)
{
	int by_thread = opts && opts->by == PROFILE_BY_THREAD;
	int err;

	memset(b, 0, sizeof(*b));
	b->p = p;
	b->r = r;
	b->frame_names = calloc(r->nframes ? r->nframes : 1, sizeof(*b->frame_names));
	b->str_names = calloc(r->nstrs ? r->nstrs : 1, sizeof(*b->str_names));
	b->stack_of = calloc(r->nstacks ? r->nstacks * 2 : 2, sizeof(*b->stack_of));
	b->inline_names = calloc(r->ninlines ? r->ninlines : 1, sizeof(*b->inline_names));
	b->lines = opts && opts->lines;
	b->java_signatures = opts && opts->java_signatures;
	b->outer_names =
		b->lines ? calloc(r->nframes ? r->nframes : 1, sizeof(*b->outer_names)) : NULL;
	if (!b->frame_names || !b->str_names || !b->stack_of || !b->inline_names ||
	    (b->lines && !b->outer_names))
		return -ENOMEM;
	err = keymap__init(&b->leaf_stacks, 64);
	if (!err && by_thread)
		err = index_threads(b);
	if (err)
		return err;
	p->has_threads = by_thread;
	return 0;
}

void builder__release(struct builder *b)
{
	free(b->frame_names);
	free(b->outer_names);
	free(b->str_names);
	free(b->inline_names);
	free(b->stack_of);
	free(b->chain);
	free(b->text);
	free(b->events);
	free(b->tkeys);
	free(b->slots);
	keymap__release(&b->tid_slots);
	keymap__release(&b->tkey_ids);
	keymap__release(&b->leaf_stacks);
	memset(b, 0, sizeof(*b));
}
