/* profile.c: the profile model (see report.h): interned names, a pool of
 * stacks, entries with counts, and the transforms that rewrite names. */
#include "report.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/text-clean.h"

int profile__init(struct profile *p)
{
	memset(p, 0, sizeof(*p));
	return strtab__init(&p->names);
}

void profile__release(struct profile *p)
{
	if (p->names.index)
		strtab__release(&p->names);
	free(p->frames);
	free(p->stacks);
	free(p->entries);
	free(p->scratch);
	free(p->origin);
	free(p->alloc_objects);
	free(p->alloc_bytes);
	free(p->cells);
	memset(p, 0, sizeof(*p));
}

/* Does the word hold no control byte, DEL or ';'? (Each test is exact:
 * "some byte is below n" for n <= 0x80, "some byte is zero".) */
static inline int word_is_clean(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = ones * 0x80;
	uint64_t del = w ^ (ones * 0x7f), semi = w ^ (ones * ';');

	return !(((w - ones * 0x20) & ~w & highs) | ((del - ones) & ~del & highs) |
		 ((semi - ones) & ~semi & highs));
}

/* Eight bytes a step: a million distinct names are 28 MB to check. */
static int name_is_clean(const char *s, size_t len)
{
	size_t i = 0;

	if (!len)
		return 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, s + i, 8);
		if (!word_is_clean(w))
			return 0;
	}
	for (; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (text_is_control(c) || c == ';')
			return 0;
	}
	return 1;
}

int profile__intern(struct profile *p, const char *s, size_t len, uint32_t *id)
{
	size_t i;

	if (name_is_clean(s, len))
		return strtab__intern(&p->names, s, len, id);
	if (!len)
		return strtab__intern(&p->names, "?", 1, id);
	if (GROW(p->scratch, p->scratch_cap, len))
		return -ENOMEM;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		p->scratch[i] = c == ';' ? ':' : text_is_control(c) ? '?' : (char)c;
	}
	return strtab__intern(&p->names, p->scratch, len, id);
}

size_t profile__frame_scan(const char *s, size_t len, int *clean)
{
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, s + i, 8);
		if (!word_is_clean(w))
			break;
	}
	for (; i < len && s[i] != ';'; i++) {
		if (text_is_control((unsigned char)s[i])) {
			const char *semi = memchr(s + i, ';', len - i);

			*clean = 0;
			return semi ? (size_t)(semi - s) : len;
		}
	}
	*clean = i > 0;
	return i;
}

int profile__add_stack(struct profile *p, const uint32_t *names, size_t depth, uint32_t *stack)
{
	if (!depth)
		return -EINVAL;
	if (depth > UINT32_MAX || p->nframes > UINT32_MAX - depth || p->nstacks >= UINT32_MAX)
		return -ENOMEM;
	if (GROW(p->frames, p->frames_cap, p->nframes + depth) ||
	    GROW(p->stacks, p->stacks_cap, p->nstacks + 1))
		return -ENOMEM;
	memcpy(p->frames + p->nframes, names, depth * sizeof(*names));
	p->stacks[p->nstacks].first = (uint32_t)p->nframes;
	p->stacks[p->nstacks].depth = (uint32_t)depth;
	p->nframes += depth;
	*stack = (uint32_t)p->nstacks++;
	return 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

int profile__add(struct profile *p, const struct profile_entry *e)
{
	if (GROW(p->entries, p->entries_cap, p->nentries + 1))
		return -ENOMEM;
	p->entries[p->nentries++] = *e;
	p->total = sat_add(p->total, e->count);
	return 0;
}

int profile__add_alloc(struct profile *p, const struct profile_entry *e, uint64_t objects,
		       uint64_t bytes)
{
	size_t cap = p->alloc_cap;

	if (GROW(p->alloc_objects, cap, p->nentries + 1))
		return -ENOMEM;
	cap = p->alloc_cap;
	if (GROW(p->alloc_bytes, cap, p->nentries + 1))
		return -ENOMEM;
	p->alloc_cap = cap;
	p->alloc_objects[p->nentries] = objects;
	p->alloc_bytes[p->nentries] = bytes;
	return profile__add(p, e);
}

size_t merge_pool_name(char *s, size_t len)
{
	size_t i, o = 0;
	int in_digits = 0;

	for (i = 0; i < len; i++) {
		int digit = s[i] >= '0' && s[i] <= '9';

		if (!digit)
			s[o++] = s[i];
		else if (!in_digits)
			s[o++] = '*';
		in_digits = digit;
	}
	return o;
}

/* Maps name id -> pooled name id, computing each at most once. */
static int pooled(struct profile *p, uint32_t *map, uint32_t id, uint32_t *out)
{
	uint32_t len;
	int err;

	if (map[id]) {
		*out = map[id];
		return 0;
	}
	len = strtab__len(&p->names, id);
	if (GROW(p->scratch, p->scratch_cap, (size_t)len + 1))
		return -ENOMEM;
	memcpy(p->scratch, profile__name(p, id), len);
	len = (uint32_t)merge_pool_name(p->scratch, len);
	/* The pooled name is clean if the name was; intern it as is. */
	err = strtab__intern(&p->names, p->scratch, len ? len : 1, out);
	if (err)
		return err;
	map[id] = *out;
	return 0;
}

int profile__merge_pools(struct profile *p)
{
	size_t n = p->names.count, i;
	uint32_t *map = calloc(n ? n : 1, sizeof(*map));
	int err = 0;

	if (!map)
		return -ENOMEM;
	if (p->has_threads) {
		for (i = 0; i < p->nentries && !err; i++)
			if (p->entries[i].thread && p->entries[i].thread < n)
				err = pooled(p, map, p->entries[i].thread, &p->entries[i].thread);
	} else {
		for (i = 0; i < p->nstacks && !err; i++) {
			uint32_t *root = &p->frames[p->stacks[i].first];

			if (*root < n)
				err = pooled(p, map, *root, root);
		}
	}
	free(map);
	return err;
}
