/* addr-spaces.h: which mapping covers an address, per process, as the
 * targets map and unmap binaries while we record. Looked up once per unique
 * frame (not per sample), updated on each mmap event. */
#ifndef PROF_ADDR_SPACES_H
#define PROF_ADDR_SPACES_H

#include <stddef.h>
#include <stdint.h>

#include "lib/keymap.h"
#include "lib/recfile.h"

struct addr_range {
	uint64_t start, end;
	uint32_t mapping;
};

struct addr_space {
	struct addr_range *ranges; /* sorted, non-overlapping */
	size_t n, cap;
	uint64_t exec_time; /* the latest exec seen (clear_before), 0: none */
};

struct addr_spaces {
	struct keymap index; /* pid -> slot in spaces */
	struct addr_space *spaces;
	size_t n, cap;
	uint64_t generation; /* changes with every change of a range: lets
				callers memoize finds (the unwinder does) */
};

int addr_spaces__init(struct addr_spaces *s);
void addr_spaces__release(struct addr_spaces *s);
/* Maps [start, end) of pid to `mapping`, replacing what overlapped. 0/-ENOMEM. */
int addr_spaces__add(struct addr_spaces *s, uint32_t pid, uint64_t start, uint64_t end,
		     uint32_t mapping);
/* The mapping id covering addr in pid, or REC_NO_MAPPING. */
uint32_t addr_spaces__find(const struct addr_spaces *s, uint32_t pid, uint64_t addr);
/* A child forked at `time` starts with a copy of its parent's mappings
 * older than the fork. Its own records can be drained, from another CPU's
 * ring, before the FORK record: mappings it already has stay over the
 * parent's, and a child that already exec'd after the fork takes none of
 * them. `maps` are the recording's mappings by id. 0/-ENOMEM. */
int addr_spaces__fork(struct addr_spaces *s, uint32_t parent, uint32_t child, uint64_t time,
		      const struct rec_mapping *maps, size_t nmaps);
/* exec: the process starts over. */
void addr_spaces__clear(struct addr_spaces *s, uint32_t pid);
/* exec at `time`: drops the mappings older than it, keeps those of the new
 * program (its mmap records can be drained, from another CPU's ring, before
 * the exec's own record). `maps` are the recording's mappings by id. */
void addr_spaces__clear_before(struct addr_spaces *s, uint32_t pid, uint64_t time,
			       const struct rec_mapping *maps, size_t nmaps);

#endif
