/* codecache.c: the code blobs of a running JVM, walked from outside it
 * (hotspot.h). CodeCache::_heaps is a GrowableArray<CodeHeap*>; each
 * CodeHeap reserves _memory (a VirtualSpace, committed from _low to
 * _high) cut in segments of 2^_log2_segment_size bytes; a block starts
 * with a HeapBlock header (its length in segments, a used bit) and a used
 * block holds one CodeBlob right after the header. HotSpot names a
 * compiled Java method's blob "nmethod" (a JNI wrapper: "native nmethod").
 *
 * The JVM allocates and frees blobs while this runs: a block whose header
 * or blob cannot be read or makes no sense is skipped, and a zero length
 * ends that heap's walk. At most HS_MAX_BLOBS blocks per heap. */
#include "jvm/hotspot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BLOB_READ 512	      /* bytes of a blob read in one go: every field we use */
#define WINDOW	  (64u << 10) /* bytes of a heap read in one system call */

/* A window onto a heap's committed memory [.., limit): headers and blobs
 * are served from one read of WINDOW bytes where they can be (a heap of a
 * few MB: tens of reads instead of two per block). */
struct window {
	struct jvm_mem *m;
	uint64_t start, len, limit;
	unsigned char *buf; /* NULL: read each piece on its own */
};

static int win_read(struct window *w, uint64_t addr, void *out, size_t len)
{
	if (w->buf && (addr < w->start || addr + len > w->start + w->len)) {
		uint64_t n = w->limit > addr && w->limit - addr < WINDOW ? w->limit - addr : WINDOW;

		w->len = 0;
		if (n >= len && !jvm_mem__read(w->m, addr, w->buf, n)) {
			w->start = addr;
			w->len = n;
		}
	}
	if (w->buf && addr >= w->start && addr + len <= w->start + w->len) {
		memcpy(out, w->buf + (addr - w->start), len);
		return 0;
	}
	return jvm_mem__read(w->m, addr, out, len);
}

static int fits(const struct hs_layout *l)
{
	const uint64_t offs[] = {l->blob_name,		 l->blob_size,	   l->blob_frame_size,
				 l->blob_code_begin,	 l->blob_code_end, l->nm_method,
				 l->blob_frame_complete, l->nm_compile_id};

	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		if (offs[i] > BLOB_READ - 8)
			return 0;
	return 1;
}

/* The blob at addr, in a block of `room` bytes: 0, or -EFAULT / -EBADMSG
 * (freed meanwhile, or not a blob). */
static int read_blob(struct window *w, const struct hs_layout *l, uint64_t addr, uint64_t room,
		     struct hs_blob *b)
{
	unsigned char raw[BLOB_READ];
	int32_t size;

	if (win_read(w, addr, raw, sizeof(raw)))
		return -EFAULT;
	memset(b, 0, sizeof(*b));
	b->addr = addr;
	size = hs_i32_at(raw, l->blob_size);
	b->code_begin = hs_u64_at(raw, l->blob_code_begin);
	b->code_end = hs_u64_at(raw, l->blob_code_end);
	b->frame_size = hs_i32_at(raw, l->blob_frame_size);
	b->frame_complete = hs_i32_at(raw, l->blob_frame_complete);
	if (size <= 0 || (uint64_t)size > room || b->code_begin < addr ||
	    b->code_end < b->code_begin || b->code_end > addr + (uint64_t)size ||
	    b->frame_size < 0 || b->frame_size > HS_MAX_FRAME_WORDS ||
	    b->frame_complete < -1 || b->frame_complete > size)
		return -EBADMSG; /* not a blob, or one being built or freed meanwhile */
	if (jvm_mem__string(w->m, hs_u64_at(raw, l->blob_name), b->name, sizeof(b->name)) ==
	    -EFAULT)
		return -EBADMSG;
	if (!strcmp(b->name, "nmethod") || !strcmp(b->name, "native nmethod")) {
		b->is_nmethod = 1;
		b->method = hs_u64_at(raw, l->nm_method);
		b->compile_id = hs_i32_at(raw, l->nm_compile_id);
	}
	return 0;
}

static int walk_heap(struct jvm_mem *m, const struct hs_layout *l, uint64_t heap,
		     int (*fn)(void *ctx, const struct hs_blob *b), void *ctx, uint64_t *skipped)
{
	uint64_t low, high, seg;
	struct window w = {.m = m};
	int32_t log2;
	int r = 0;

	if (jvm_mem__u64(m, heap + l->heap_memory + l->vs_low, &low) ||
	    jvm_mem__u64(m, heap + l->heap_memory + l->vs_high, &high) ||
	    jvm_mem__read(m, heap + l->heap_log2_seg, &log2, sizeof(log2)))
		return -EFAULT;
	if (log2 < 4 || log2 > 20 || high < low || high - low > (1ull << 40))
		return -EBADMSG;
	seg = 1ull << log2;
	w.limit = high;
	w.buf = malloc(WINDOW); /* NULL: slower, not wrong */
	for (uint64_t at = low, n = 0; at < high && n < HS_MAX_BLOBS && !r; n++) {
		unsigned char hdr[16];
		uint64_t len;
		struct hs_blob b;

		if (win_read(&w, at + l->hb_header, hdr, sizeof(hdr))) {
			r = -EFAULT;
			break;
		}
		len = hs_u64_at(hdr, l->hb_length);
		if (!len || len > (high - at) / seg)
			break;
		if (hdr[l->hb_used]) {
			if (read_blob(&w, l, at + l->hb_size, len * seg - l->hb_size, &b))
				++*skipped;
			else
				r = fn(ctx, &b);
		}
		at += len * seg;
	}
	free(w.buf);
	return r;
}

int hs_codecache__each(struct jvm_mem *m, const struct hs_layout *l,
		       int (*fn)(void *ctx, const struct hs_blob *b), void *ctx, uint64_t *skipped)
{
	uint64_t arr, data, heaps[HS_MAX_HEAPS];
	int32_t len;

	*skipped = 0;
	if (!fits(l) || l->hb_length > 8 || l->hb_used > 15 || l->hb_size < 16)
		return -EBADMSG;
	if (jvm_mem__u64(m, l->code_heaps, &arr) ||
	    jvm_mem__read(m, arr + l->ga_len, &len, sizeof(len)) ||
	    jvm_mem__u64(m, arr + l->ga_data, &data))
		return -EFAULT;
	if (len < 0 || len > HS_MAX_HEAPS)
		return -EBADMSG;
	if (jvm_mem__read(m, data, heaps, (size_t)len * sizeof(heaps[0])))
		return -EFAULT;
	for (int32_t i = 0; i < len; i++) {
		int r = walk_heap(m, l, heaps[i], fn, ctx, skipped);

		if (r > 0 || r == -ENOMEM)
			return r;
		if (r)
			++*skipped; /* a heap that cannot be read: the others may be */
	}
	return 0;
}
