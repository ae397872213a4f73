/* keymap.h: open-addressed hash map from a 128-bit key to a 32-bit value.
 *
 * Used for every "have we seen this before" question on the recorder's hot
 * path (frames by address space + address, stack nodes by parent + frame)
 * and by the string table. Power-of-two table, linear probing, the 64-bit
 * hash stored with the key, grows at 0.75 load. No deletion: entries live
 * until keymap__release(). */
#ifndef PROF_KEYMAP_H
#define PROF_KEYMAP_H

#include <stddef.h>
#include <stdint.h>

struct keymap_slot {
	uint64_t hash; /* 0 = empty slot */
	uint64_t a, b;
	uint32_t value;
};

struct keymap {
	struct keymap_slot *slots;
	size_t mask;  /* capacity - 1 */
	size_t count;
};

/* Sizes the table for `expected` entries up front. 0 or -ENOMEM. */
int keymap__init(struct keymap *m, size_t expected);
void keymap__release(struct keymap *m);
/* Empties the map, keeping its table (for a cache that is invalidated). */
void keymap__clear(struct keymap *m);

/* The hash and the lookup are inline: they are the recorder's per-frame
 * hot path (a call each cost a sixth of its instructions). */
static inline uint64_t keymap_mix64(uint64_t x)
{
	/* splitmix64 finalizer: cheap and good enough to spread pointers. */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static inline uint64_t keymap_hash(uint64_t a, uint64_t b)
{
	uint64_t h = keymap_mix64(a ^ keymap_mix64(b + 0x9e3779b97f4a7c15ULL));

	return h ? h : 1;
}

/* Finds key (a, b). Returns 1 and stores the value in *value when present,
 * 0 when absent. Never allocates. */
static inline int keymap__get(const struct keymap *m, uint64_t a, uint64_t b, uint32_t *value)
{
	uint64_t h;
	size_t i;

	if (!m->slots)
		return 0;
	h = keymap_hash(a, b);
	for (i = h & m->mask;; i = (i + 1) & m->mask) {
		const struct keymap_slot *s = &m->slots[i];

		if (!s->hash)
			return 0;
		if (s->hash == h && s->a == a && s->b == b) {
			*value = s->value;
			return 1;
		}
	}
}

/* Inserts key (a, b) with `value` unless present. Returns 1 if inserted,
 * 0 if it was already there (*existing holds its value), -ENOMEM. */
int keymap__put(struct keymap *m, uint64_t a, uint64_t b, uint32_t value, uint32_t *existing);

/* Inserts or overwrites key (a, b). 0 or -ENOMEM. */
int keymap__set(struct keymap *m, uint64_t a, uint64_t b, uint32_t value);

#endif
