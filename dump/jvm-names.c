/* jvm-names.c: for a target that is a HotSpot JVM, what names its Java
 * frames and threads, asked once its threads run again (never while one
 * is held): its JIT map (jcmd Compiler.perfmap, /tmp/perf-PID.map, which
 * the symbolizer reads) and its full thread names (Thread.print), as
 * `prof record` asks them. Bounded by JVM_DEADLINE_MS per JVM; a JVM
 * that does not answer leaves Java frames unnamed, with a notice. */
#include "dump/dump.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jvm/jvm.h"
#include "lib/text-clean.h"

static void notice(pid_t pid, const struct prof_error *err, const char *what)
{
	fprintf(stderr, "prof dump: JVM %d: ", (int)pid);
	text_put(stderr, err->msg);
	fprintf(stderr, ": %s\n", what);
}

/* Did pid map libjvm.so at the last snapshot? */
static int maps_libjvm(const struct dump_maps *m, pid_t pid)
{
	for (size_t i = 0; m && i < m->n; i++) {
		if (m->procs[i].pid != pid)
			continue;
		for (size_t k = 0; k < m->procs[i].n; k++) {
			size_t l = strlen(m->procs[i].maps[k].path);

			if (l >= 10 && !strcmp(m->procs[i].maps[k].path + l - 10, "/libjvm.so"))
				return 1;
		}
	}
	return 0;
}

void dump_ask_jvms(struct dump_rec *d, const pid_t *pids, size_t n, int (*cancelled)(void))
{
	for (size_t i = 0; i < n; i++) {
		struct jvm_limits lim = {.deadline_ms = jvm_deadline(JVM_DEADLINE_MS),
					 .cancelled = cancelled};
		struct prof_error err;
		char *out;
		size_t len;

		int is_jvm = jvm_is_jvm(pids[i]);

		if (is_jvm == -ESRCH && maps_libjvm(d->maps, pids[i]))
			fprintf(stderr, "prof dump: JVM %d exited before prof could ask for its "
				"Java frames' and threads' names\n", (int)pids[i]);
		if (is_jvm != 1)
			continue;
		if (jvm_jcmd(pids[i], "Compiler.perfmap", &lim, &out, &len, &err)) {
			notice(pids[i], &err, "Java frames stay unnamed");
			continue;
		}
		free(out);
		if (jvm_jcmd(pids[i], "Thread.print", &lim, &out, &len, &err)) {
			notice(pids[i], &err, "threads keep their kernel names");
			continue;
		}
		jvm_record_thread_names(d->w, pids[i], out, len, dump_now_ns());
		free(out);
	}
}
