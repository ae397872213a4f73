/* ring.c: draining perf_event mmap rings (see ring.h). The protocol: read
 * data_head with acquire, consume records up to it, write data_tail with
 * release so the kernel may reuse the space. */
#include "ring.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int ring__map(struct ring *r, int fd, size_t pages)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	r->map_len = (pages + 1) * (size_t)page;
	p = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->fd = fd;
	r->meta = p;
	r->data = (unsigned char *)p + page;
	r->size = pages * (size_t)page;
	return 0;
}

void ring__unmap(struct ring *r)
{
	if (r->meta)
		munmap(r->meta, r->map_len);
	r->meta = NULL;
}

uint64_t ring__head(const struct ring *r)
{
	return __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
}

/* Walks the records from the tail up to head; consume: then frees them. */
static long walk(struct ring *r, uint64_t head, unsigned char *scratch, ring_record_fn fn,
		 void *ctx, int consume)
{
	uint64_t tail = r->meta->data_tail;
	size_t mask = r->size - 1;
	long n = 0;

	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail & mask;
		const struct perf_event_header *rec;

		if (head - tail < sizeof(h))
			break;
		if (off + sizeof(h) <= r->size) {
			memcpy(&h, r->data + off, sizeof(h));
		} else {
			size_t first = r->size - off;

			memcpy(&h, r->data + off, first);
			memcpy((char *)&h + first, r->data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || h.size > head - tail) {
			tail = head;
			n = -EBADMSG;
			break;
		}
		if (off + h.size <= r->size) {
			rec = (const void *)(r->data + off);
		} else {
			size_t first = r->size - off;

			memcpy(scratch, r->data + off, first);
			memcpy(scratch + first, r->data, h.size - first);
			rec = (const void *)scratch;
		}
		fn(ctx, rec);
		tail += h.size;
		n++;
	}
	if (consume)
		__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

long ring__drain(struct ring *r, unsigned char *scratch, ring_record_fn fn, void *ctx)
{
	return walk(r, ring__head(r), scratch, fn, ctx, 1);
}

long ring__drain_to(struct ring *r, uint64_t head, unsigned char *scratch, ring_record_fn fn,
		    void *ctx)
{
	return walk(r, head, scratch, fn, ctx, 1);
}

long ring__peek(struct ring *r, unsigned char *scratch, ring_record_fn fn, void *ctx)
{
	return walk(r, ring__head(r), scratch, fn, ctx, 0);
}

size_t ring__pages_for(uint64_t bytes_per_s, unsigned ms, size_t page_size, size_t min_pages,
		       size_t max_pages)
{
	uint64_t want = bytes_per_s / 1000 * ms + bytes_per_s % 1000 * ms / 1000;
	size_t pages = min_pages ? min_pages : 1;

	while ((uint64_t)pages * page_size < want && pages <= max_pages / 2)
		pages *= 2;
	return pages;
}
