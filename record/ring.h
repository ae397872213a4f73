/* ring.h: reading a perf_event mmap ring buffer (the kernel writes, we read).
 * One ring per CPU; every target event on that CPU is redirected into it. */
#ifndef PROF_RING_H
#define PROF_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct ring {
	int fd;                  /* the event that owns the mapping */
	struct perf_event_mmap_page *meta;
	unsigned char *data;     /* data area: size bytes, a power of two */
	size_t size;
	size_t map_len;
};

/* Maps 1 + pages pages of `fd`. 0 or -errno. */
int ring__map(struct ring *r, int fd, size_t pages);
void ring__unmap(struct ring *r);

/* Calls fn for each complete record in the ring, in order, then frees the
 * space. Wrapped records are copied into `scratch` (at least 64 KiB, the
 * largest record). Returns the number of records, or -EBADMSG when a header
 * is malformed (the ring is then skipped to the head: the kernel's data can
 * no longer be trusted, and the rest of that batch is counted as lost).
 * No allocation, no locks, no stdio. */
typedef void (*ring_record_fn)(void *ctx, const struct perf_event_header *h);
long ring__drain(struct ring *r, unsigned char *scratch, ring_record_fn fn, void *ctx);

/* Where the kernel has written up to (to drain up to later). */
uint64_t ring__head(const struct ring *r);
/* ring__drain, up to `head` (from ring__head) rather than the current head. */
long ring__drain_to(struct ring *r, uint64_t head, unsigned char *scratch, ring_record_fn fn,
		    void *ctx);
/* Calls fn for each complete record, as ring__drain does, but leaves them in
 * the ring for the next drain. */
long ring__peek(struct ring *r, unsigned char *scratch, ring_record_fn fn, void *ctx);

#define RING_SCRATCH_SIZE 65536

/* The data pages of a ring that holds `ms` milliseconds of records coming
 * at `bytes_per_s`: the smallest power of two at least min_pages (itself a
 * power of two) that does, at most max_pages (rounded down to a power of
 * two, never below min_pages). Pure arithmetic. */
size_t ring__pages_for(uint64_t bytes_per_s, unsigned ms, size_t page_size, size_t min_pages,
		       size_t max_pages);

#endif
