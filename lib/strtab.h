/* strtab.h: interned strings, each stored once and named by a dense id.
 *
 * Ids start at 0 ("" is always id 0) and are handed out in insertion order,
 * which is what the recording format's STRINGS chunks rely on. Strings may
 * hold any bytes except NUL-termination is always added for convenience. */
#ifndef PROF_STRTAB_H
#define PROF_STRTAB_H

#include <stddef.h>
#include <stdint.h>

/* A slot of the open-addressed index: 32 bits of the hash (which also
 * place the slot) beside the id, so that a probe reads one cache line, not
 * one in each of two arrays, and a slot is 8 bytes (a million names: a
 * 16 MB index). */
struct strtab_slot {
	uint32_t hash;
	uint32_t id1; /* id + 1; 0: empty */
};

struct strtab {
	char **strs;	  /* id -> NUL-terminated bytes (in blocks, or borrowed) */
	uint32_t *lens;   /* id -> length */
	size_t count, strs_cap, lens_cap;
	struct strtab_slot *index; /* open-addressed, at most half full */
	size_t index_mask;
	char *block;      /* current storage block */
	size_t block_used, block_cap;
	char **blocks;
	size_t nblocks, blocks_cap;
};

int strtab__init(struct strtab *t);
void strtab__release(struct strtab *t);

/* Interns `len` bytes at `s`; returns the id in *id. 0 or -ENOMEM. */
int strtab__intern(struct strtab *t, const char *s, size_t len, uint32_t *id);
/* The same, given h = hash_bytes(s, len). */
int strtab__intern_hashed(struct strtab *t, const char *s, size_t len, uint64_t h, uint32_t *id);
/* The same, but a new string is not copied: the table keeps s itself,
 * which must stay as it is, with a NUL at s[len], until the table is
 * released (a reader that holds its whole input saves a copy of every
 * name: a million distinct names were 24 MB). */
int strtab__intern_borrowed(struct strtab *t, const char *s, size_t len, uint64_t h, uint32_t *id);
/* Returns the id of `s` if present (1) or 0. */
int strtab__find(const struct strtab *t, const char *s, size_t len, uint32_t *id);

static inline const char *strtab__str(const struct strtab *t, uint32_t id)
{
	return id < t->count ? t->strs[id] : "";
}

static inline uint32_t strtab__len(const struct strtab *t, uint32_t id)
{
	return id < t->count ? t->lens[id] : 0;
}

uint64_t hash_bytes(const void *data, size_t len);

/* Fetches the index slot of a string whose hash_bytes() is h: a reader
 * that knows the next strings it will intern hides the cache misses of
 * their probes behind each other. Only a hint. */
static inline void strtab__prefetch(const struct strtab *t, uint64_t h)
{
	if (t->index)
		__builtin_prefetch(&t->index[(uint32_t)(h >> 32) & t->index_mask]);
}

#endif
