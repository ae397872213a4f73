/* addr-spaces.c: per-process sorted range tables (see addr-spaces.h). */
#include "addr-spaces.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/recfile.h"

int addr_spaces__init(struct addr_spaces *s)
{
	memset(s, 0, sizeof(*s));
	return keymap__init(&s->index, 64);
}

void addr_spaces__release(struct addr_spaces *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->spaces[i].ranges);
	free(s->spaces);
	keymap__release(&s->index);
	memset(s, 0, sizeof(*s));
}

static struct addr_space *get(struct addr_spaces *s, uint32_t pid, int create)
{
	uint32_t slot;

	if (keymap__get(&s->index, pid, 0, &slot))
		return &s->spaces[slot];
	if (!create || GROW(s->spaces, s->cap, s->n + 1))
		return NULL;
	if (keymap__put(&s->index, pid, 0, (uint32_t)s->n, NULL) < 0)
		return NULL;
	memset(&s->spaces[s->n], 0, sizeof(s->spaces[0]));
	return &s->spaces[s->n++];
}

static int insert_at(struct addr_space *as, size_t i, struct addr_range r)
{
	if (GROW(as->ranges, as->cap, as->n + 1))
		return -ENOMEM;
	memmove(&as->ranges[i + 1], &as->ranges[i], (as->n - i) * sizeof(r));
	as->ranges[i] = r;
	as->n++;
	return 0;
}

int addr_spaces__add(struct addr_spaces *s, uint32_t pid, uint64_t start, uint64_t end,
		     uint32_t mapping)
{
	struct addr_space *as = get(s, pid, 1);
	size_t i = 0, j;

	s->generation++;
	if (!as)
		return -ENOMEM;
	if (end <= start)
		return 0;
	/* Trim or drop every range overlapping [start, end). */
	while (i < as->n) {
		struct addr_range *r = &as->ranges[i];

		if (r->end <= start || r->start >= end) {
			i++;
			continue;
		}
		if (r->start < start && r->end > end) {
			/* The new range splits an old one in two. */
			struct addr_range tail = {end, r->end, r->mapping};

			r->end = start;
			if (insert_at(as, i + 1, tail))
				return -ENOMEM;
			i += 2;
		} else if (r->start < start) {
			r->end = start;
			i++;
		} else if (r->end > end) {
			r->start = end;
			i++;
		} else {
			memmove(r, r + 1, (as->n - i - 1) * sizeof(*r));
			as->n--;
		}
	}
	for (j = 0; j < as->n && as->ranges[j].start < start; j++)
		;
	return insert_at(as, j, (struct addr_range){start, end, mapping});
}

uint32_t addr_spaces__find(const struct addr_spaces *s, uint32_t pid, uint64_t addr)
{
	uint32_t slot;
	const struct addr_space *as;
	size_t lo = 0, hi;

	if (!keymap__get(&s->index, pid, 0, &slot))
		return REC_NO_MAPPING;
	as = &s->spaces[slot];
	hi = as->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (as->ranges[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < as->n && as->ranges[lo].start <= addr && addr < as->ranges[lo].end)
		return as->ranges[lo].mapping;
	return REC_NO_MAPPING;
}

int addr_spaces__fork(struct addr_spaces *s, uint32_t parent, uint32_t child, uint64_t time,
		      const struct rec_mapping *maps, size_t nmaps)
{
	struct addr_range *own = NULL;
	struct addr_space *c;
	size_t pi, i, nown;
	int err = 0;

	if (!get(s, parent, 0))
		return 0;
	s->generation++;
	c = get(s, child, 1); /* may move spaces: look the parent up after */
	if (!c)
		return -ENOMEM;
	if (c->exec_time > time)
		return 0; /* exec'd since: nothing of the parent's is left */
	/* Records of the child drained before its FORK: its own mappings. */
	nown = c->n;
	if (nown && !(own = malloc(nown * sizeof(*own))))
		return -ENOMEM;
	if (nown)
		memcpy(own, c->ranges, nown * sizeof(*own));
	pi = (size_t)(get(s, parent, 0) - s->spaces);
	c->n = 0;
	if (GROW(c->ranges, c->cap, s->spaces[pi].n)) {
		free(own);
		return -ENOMEM;
	}
	for (i = 0; i < s->spaces[pi].n; i++) {
		struct addr_range r = s->spaces[pi].ranges[i];

		/* drained late, the fork may find the parent's later mmaps too */
		if (nown && r.mapping < nmaps && maps[r.mapping].time > time)
			continue;
		c->ranges[c->n++] = r;
	}
	for (i = 0; i < nown && !err; i++)
		err = addr_spaces__add(s, child, own[i].start, own[i].end, own[i].mapping);
	free(own);
	return err;
}

void addr_spaces__clear(struct addr_spaces *s, uint32_t pid)
{
	struct addr_space *as = get(s, pid, 0);

	s->generation++;
	if (as)
		as->n = 0;
}

void addr_spaces__clear_before(struct addr_spaces *s, uint32_t pid, uint64_t time,
			       const struct rec_mapping *maps, size_t nmaps)
{
	/* created if new: a FORK handled after this must know of the exec */
	struct addr_space *as = get(s, pid, 1);
	size_t i, kept = 0;

	s->generation++;
	if (!as)
		return;
	if (time > as->exec_time)
		as->exec_time = time;
	for (i = 0; i < as->n; i++) {
		uint32_t m = as->ranges[i].mapping;

		if (m < nmaps && maps[m].time >= time)
			as->ranges[kept++] = as->ranges[i];
	}
	as->n = kept;
}
