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

uint64_t keymap_hash(uint64_t a, uint64_t b);

/* Finds key (a, b). Returns 1 and stores the value in *value when present,
 * 0 when absent. Never allocates. */
int keymap__get(const struct keymap *m, uint64_t a, uint64_t b, uint32_t *value);

/* Inserts key (a, b) with `value` unless present. Returns 1 if inserted,
 * 0 if it was already there (*existing holds its value), -ENOMEM. */
int keymap__put(struct keymap *m, uint64_t a, uint64_t b, uint32_t value, uint32_t *existing);

/* Inserts or overwrites key (a, b). 0 or -ENOMEM. */
int keymap__set(struct keymap *m, uint64_t a, uint64_t b, uint32_t value);

#endif
