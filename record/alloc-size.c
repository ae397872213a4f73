/* alloc-size.c: the size of a hotspot:object__alloc hit, or -1 when the
 * JVM did not set it. HotSpot 9 to 20 declare the probe's function as
 * SharedRuntime::dtrace_object_alloc(oopDesc *o, int size) and fire the
 * probe with size * 8 (a 4-byte argument, "-4@%ebx" in Debian's JDK 17),
 * but only the JVM's C++ runtime (MemAllocator: the interpreter's and the
 * compilers' slow paths, arrays made by the runtime) passes a size. The
 * code the JVM generates calls it with the object alone, so the size is
 * whatever the register held:
 *
 * - the template interpreter's `new` (its TLAB fast path),
 * - C1's "dtrace_object_alloc" Runtime1 stub (instances and arrays),
 * - C2's inline allocation, which calls dtrace_object_alloc_base(thread,
 *   oop) and leaves the size register as it was.
 *
 * Those hits are told apart by who called the probe's function (a tail
 * call away from dtrace_object_alloc, so the return address in its frame
 * is the caller's): an address inside the JVM's library is the runtime,
 * anything else (the code cache) generated code, whose size is stored as
 * -1, "unknown". The right size cannot be had there: at the probe the
 * object's address is gone from every register (the thread id lookup
 * calls out), and reading the class's layout through a register the
 * compiler happened to pick would hold for one build only. A size that is
 * impossible anyway (not a positive multiple of the 8-byte object
 * alignment, or past 2^40) is unknown too. JDK 21 and later pass a size_t
 * (an 8-byte argument) computed from the object on every path: trusted. */
#include "probes.h"

#include <string.h>
#include <sys/stat.h>

#define MAX_SIZE (1ULL << 40) /* more than any Java heap holds */

void alloc_size_setup(struct probe_site *s)
{
	struct stat st;

	s->image_len = 0;
	if (s->def.nargs == 4 && s->def.arg[3].size == 4 && !stat(s->def.path, &st) &&
	    st.st_size > 0)
		s->image_len = (uint64_t)st.st_size;
}

/* The return address of the probe's function: the frame after the probe's
 * in the kernel's user callchain, else [bp + 8] from the hit's copy of the
 * stack (the function keeps a frame pointer). 0: cannot tell. */
static uint64_t caller_of(const struct alloc_hit *h)
{
	uint64_t k = 0, ret = 0;

	while (k < h->nr && h->ips[k] != PERF_CONTEXT_USER)
		k++;
	if (k + 2 < h->nr && h->ips[k + 1] == h->ip)
		return h->ips[k + 2];
	if (h->stack && h->bp >= h->sp && h->bp - h->sp <= h->stack_len &&
	    h->stack_len - (h->bp - h->sp) >= 16) {
		memcpy(&ret, h->stack + (h->bp - h->sp) + 8, 8);
		return ret;
	}
	return 0;
}

int64_t alloc_size(const struct probe_site *s, const struct alloc_hit *h, int64_t size)
{
	if (size <= 0 || (size & 7) || (uint64_t)size > MAX_SIZE)
		return -1;
	if (s->image_len) {
		/* The library spans [ip - offset, + its file size): its text
		 * sits at its file offsets (so in Debian's JDK 17 and
		 * Temurin's 25; a library linked otherwise would see more
		 * hits unknown, never a wrong size). */
		uint64_t ret = caller_of(h), base = h->ip - s->def.offset;

		if (!ret || ret < base || ret - base >= s->image_len)
			return -1;
	}
	return size;
}
