/* thread-names.c: a JVM's full thread names (its Thread.print answer) into
 * a recording, as REC_THREAD_FULLNAME events of the host's tids: what
 * `prof record` and `prof dump` both write once the JVM answered. */
#include "jvm/jvm.h"

#include "lib/rec-writer.h"
#include "lib/recfile.h"

size_t jvm_record_thread_names(struct rec_writer *w, pid_t pid, const char *dump, size_t len,
			       uint64_t time)
{
	struct jvm_tid_map map = {0};
	struct jvm_thread *t;
	long n = jvm_parse_threads(dump, len, &t), i;
	size_t named = 0;

	for (i = 0; i < n; i++) {
		uint32_t tid = jvm_tid_map_lookup(&map, pid, t[i].nid), id;

		if (!tid || rec_writer__string(w, t[i].name, t[i].len, &id) ||
		    rec_writer__thread(w, REC_THREAD_FULLNAME, time, (uint32_t)pid, tid, id))
			continue;
		named++;
	}
	if (n > 0)
		jvm_threads_free(t, (size_t)n);
	jvm_tid_map_release(&map);
	return named;
}
