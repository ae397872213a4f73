/* dwarf-cursor.h: reading DWARF's little-endian fixed-size and LEB128
 * numbers from a bounded byte range, for the line program decoder
 * (dwarf-lines.c) and the DIE reader (dwarf-die.c). A read past the end
 * sets `bad`, returns 0 and leaves the cursor at the end, so callers check
 * once after a run of reads. */
#ifndef PROF_SYMBOLIZE_DWARF_CURSOR_H
#define PROF_SYMBOLIZE_DWARF_CURSOR_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct dw_cursor {
	const unsigned char *p, *end;
	int bad;
};

static inline uint64_t dw_rd(struct dw_cursor *c, size_t n)
{
	uint64_t v = 0;
	size_t i;

	if ((size_t)(c->end - c->p) < n) {
		c->bad = 1;
		c->p = c->end;
		return 0;
	}
	/* The common sizes in one load (n is often a unit's offset or
	 * address size, not a constant). */
	if (n == 4) {
		uint32_t x;

		memcpy(&x, c->p, 4);
		v = le32toh(x);
	} else if (n == 8) {
		memcpy(&v, c->p, 8);
		v = le64toh(v);
	} else {
		for (i = 0; i < n; i++)
			v |= (uint64_t)c->p[i] << (8 * i);
	}
	c->p += n;
	return v;
}

static inline uint64_t dw_uleb(struct dw_cursor *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	if (c->p < c->end && !(*c->p & 0x80))
		return *c->p++; /* most are one byte */
	while (c->p < c->end) {
		unsigned char b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	c->bad = 1;
	return 0;
}

static inline int64_t dw_sleb(struct dw_cursor *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (c->p < c->end) {
		unsigned char b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << shift;
			return (int64_t)v;
		}
	}
	c->bad = 1;
	return 0;
}

static inline void dw_skip(struct dw_cursor *c, uint64_t n)
{
	if (n > (uint64_t)(c->end - c->p)) {
		c->bad = 1;
		c->p = c->end;
	} else {
		c->p += n;
	}
}

#endif
