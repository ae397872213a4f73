/* strtab.c: string interning (see strtab.h). Strings live in large blocks so
 * interning a million names costs a few hundred allocations, not a million. */
#include "strtab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

#define BLOCK_SIZE (256 * 1024)

static inline uint64_t load64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

uint64_t hash_bytes(const void *data, size_t len)
{
	/* Eight bytes a step (a byte-at-a-time FNV cost a tenth of reading
	 * folded text with a million distinct names), each word multiplied
	 * in, then a finalizer so that every bit of the result is usable. */
	const unsigned char *p = data;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)len * 0xff51afd7ed558ccdULL), w;

	for (; len >= 8; p += 8, len -= 8) {
		w = load64(p) * 0x87c37b91114253d5ULL;
		h ^= w ^ (w >> 31);
		h = (h << 27 | h >> 37) * 0x4cf5ad432745937fULL;
	}
	if (len) {
		unsigned char tail[8] = {0};

		memcpy(tail, p, len);
		w = load64(tail) * 0x87c37b91114253d5ULL;
		h ^= w ^ (w >> 31);
		h *= 0x4cf5ad432745937fULL;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/* The index's 32 bits of a hash: its high half (the finalizer mixes every
 * input bit into it). */
static inline uint32_t slot_hash(uint64_t h)
{
	return (uint32_t)(h >> 32);
}

int strtab__init(struct strtab *t)
{
	uint32_t id;

	memset(t, 0, sizeof(*t));
	t->index = calloc(1024, sizeof(*t->index));
	if (!t->index) {
		strtab__release(t);
		return -ENOMEM;
	}
	t->index_mask = 1023;
	return strtab__intern(t, "", 0, &id);
}

void strtab__release(struct strtab *t)
{
	size_t i;

	for (i = 0; i < t->nblocks; i++)
		free(t->blocks[i]);
	free(t->blocks);
	free(t->strs);
	free(t->lens);
	free(t->index);
	memset(t, 0, sizeof(*t));
}

static size_t probe(const struct strtab *t, uint32_t h, const char *s, size_t len)
{
	size_t i = h & t->index_mask;

	for (;;) {
		uint32_t slot = t->index[i].id1;

		if (!slot)
			return i;
		if (t->index[i].hash == h && t->lens[slot - 1] == len &&
		    memcmp(t->strs[slot - 1], s, len) == 0)
			return i;
		i = (i + 1) & t->index_mask;
	}
}

int strtab__find(const struct strtab *t, const char *s, size_t len, uint32_t *id)
{
	size_t i;

	if (!t->index)
		return 0;
	i = probe(t, slot_hash(hash_bytes(s, len)), s, len);
	if (!t->index[i].id1)
		return 0;
	*id = t->index[i].id1 - 1;
	return 1;
}

static int grow_index(struct strtab *t)
{
	size_t cap = (t->index_mask + 1) * 2, i;
	/* probed before written: see calloc_populated() */
	struct strtab_slot *index = calloc_populated(cap, sizeof(*index));

	if (!index)
		return -ENOMEM;
	for (i = 0; i <= t->index_mask; i++) {
		size_t j;

		if (!t->index[i].id1)
			continue;
		j = t->index[i].hash & (cap - 1);
		while (index[j].id1)
			j = (j + 1) & (cap - 1);
		index[j] = t->index[i];
	}
	free(t->index);
	t->index = index;
	t->index_mask = cap - 1;
	return 0;
}

static char *store(struct strtab *t, const char *s, size_t len)
{
	char *p;

	if (len + 1 > t->block_cap - t->block_used) {
		size_t cap = len + 1 > BLOCK_SIZE ? len + 1 : BLOCK_SIZE;

		if (GROW(t->blocks, t->blocks_cap, t->nblocks + 1))
			return NULL;
		t->block = malloc(cap);
		if (!t->block)
			return NULL;
		t->blocks[t->nblocks++] = t->block;
		t->block_cap = cap;
		t->block_used = 0;
	}
	p = t->block + t->block_used;
	memcpy(p, s, len);
	p[len] = '\0';
	t->block_used += len + 1;
	return p;
}

int strtab__intern(struct strtab *t, const char *s, size_t len, uint32_t *id)
{
	return strtab__intern_hashed(t, s, len, hash_bytes(s, len), id);
}

/* Interns s, copied into the blocks, or kept where it is with `borrow`. */
static int intern(struct strtab *t, const char *s, size_t len, uint64_t hash, int borrow,
		  uint32_t *id)
{
	uint32_t h = slot_hash(hash);
	size_t i = probe(t, h, s, len);
	char *p;

	if (t->index[i].id1) {
		*id = t->index[i].id1 - 1;
		return 0;
	}
	if (len > UINT32_MAX - 1 || t->count >= UINT32_MAX - 1)
		return -ENOMEM;
	if ((t->count + 1) * 2 > t->index_mask + 1) {
		if (grow_index(t))
			return -ENOMEM;
		i = probe(t, h, s, len);
	}
	if (GROW(t->strs, t->strs_cap, t->count + 1) || GROW(t->lens, t->lens_cap, t->count + 1))
		return -ENOMEM;
	p = borrow ? (char *)s : store(t, s, len);
	if (!p)
		return -ENOMEM;
	t->strs[t->count] = p;
	t->lens[t->count] = (uint32_t)len;
	t->index[i] = (struct strtab_slot){.hash = h, .id1 = (uint32_t)t->count + 1};
	*id = (uint32_t)t->count++;
	return 0;
}

int strtab__intern_hashed(struct strtab *t, const char *s, size_t len, uint64_t hash, uint32_t *id)
{
	return intern(t, s, len, hash, 0, id);
}

int strtab__intern_borrowed(struct strtab *t, const char *s, size_t len, uint64_t hash,
			    uint32_t *id)
{
	return intern(t, s, len, hash, 1, id);
}
