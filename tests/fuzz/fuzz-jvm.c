/* fuzz-jvm.c: libFuzzer target for what jvm/ reads from a JVM (a process
 * prof does not trust): Thread.print dumps, VM.flags text and JIT map
 * names. Any bytes must parse without crashing or leaking; every thread
 * name must lie within its bounds; a cleaned name is never longer than its
 * buffer allows. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jvm/jvm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct jvm_thread *t;
	long n = jvm_parse_threads(text, size, &t), i;
	char out[64];
	volatile size_t sink = 0;

	for (i = 0; i < n; i++) {
		if (t[i].len > JVM_MAX_THREAD_NAME || t[i].len > size || !t[i].nid)
			abort();
		sink += t[i].name[t[i].len] == '\0';
	}
	if (n > 0)
		jvm_threads_free(t, (size_t)n);
	sink += (size_t)jvm_flags_value(text, size, "PreserveFramePointer");
	if (jvm_clean_name(text, size, size & 1, out, sizeof(out)) >= sizeof(out))
		abort();
	sink += jvm_clean_name(text, size, 0, out, 1);
	(void)sink;
	return 0;
}
