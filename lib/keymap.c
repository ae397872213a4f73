/* keymap.c: open-addressed 128-bit-key hash map (see keymap.h). */
#include "keymap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int keymap__init(struct keymap *m, size_t expected)
{
	size_t cap = 64;

	while (cap < expected + expected / 3 + 1)
		cap *= 2;
	m->slots = calloc(cap, sizeof(*m->slots));
	if (!m->slots)
		return -ENOMEM;
	m->mask = cap - 1;
	m->count = 0;
	return 0;
}

void keymap__release(struct keymap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->mask = 0;
	m->count = 0;
}

void keymap__clear(struct keymap *m)
{
	if (m->slots)
		memset(m->slots, 0, (m->mask + 1) * sizeof(*m->slots));
	m->count = 0;
}

static struct keymap_slot *find_slot(struct keymap_slot *slots, size_t mask, uint64_t h,
				     uint64_t a, uint64_t b)
{
	size_t i = h & mask;

	for (;;) {
		struct keymap_slot *s = &slots[i];

		if (!s->hash || (s->hash == h && s->a == a && s->b == b))
			return s;
		i = (i + 1) & mask;
	}
}

static int grow(struct keymap *m)
{
	size_t cap = (m->mask + 1) * 2, i;
	struct keymap_slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i <= m->mask; i++) {
		struct keymap_slot *old = &m->slots[i];

		if (old->hash)
			*find_slot(slots, cap - 1, old->hash, old->a, old->b) = *old;
	}
	free(m->slots);
	m->slots = slots;
	m->mask = cap - 1;
	return 0;
}

int keymap__put(struct keymap *m, uint64_t a, uint64_t b, uint32_t value, uint32_t *existing)
{
	uint64_t h = keymap_hash(a, b);
	struct keymap_slot *s;

	if (!m->slots && keymap__init(m, 0))
		return -ENOMEM;
	s = find_slot(m->slots, m->mask, h, a, b);
	if (s->hash) {
		if (existing)
			*existing = s->value;
		return 0;
	}
	if ((m->count + 1) * 4 > (m->mask + 1) * 3) {
		if (grow(m))
			return -ENOMEM;
		s = find_slot(m->slots, m->mask, h, a, b);
	}
	s->hash = h;
	s->a = a;
	s->b = b;
	s->value = value;
	m->count++;
	return 1;
}

int keymap__set(struct keymap *m, uint64_t a, uint64_t b, uint32_t value)
{
	struct keymap_slot *s;
	int r;

	if (m->slots) {
		s = find_slot(m->slots, m->mask, keymap_hash(a, b), a, b);
		if (s->hash) {
			s->value = value;
			return 0;
		}
	}
	r = keymap__put(m, a, b, value, NULL);
	return r < 0 ? r : 0;
}
