/* jvm-step.c: the end of a recording of JVMs (docs/prof-jvm.md). Before
 * symbolization, every target process that maps libjvm.so and is still
 * alive (an attached one, or a child of a launched command) is asked over
 * HotSpot's attach socket (jvm/) for:
 *   - Compiler.perfmap: it writes /tmp/perf-NSPID.map in its own /tmp,
 *     which the symbolizer reads next (Java frames named, `_[j]`);
 *   - Thread.print: the full name of every thread, written as
 *     REC_THREAD_FULLNAME events (the kernel keeps 15 bytes of a name);
 *   - VM.flags: without -XX:+PreserveFramePointer, frame-pointer stacks
 *     stop at the first compiled Java frame: say so, once.
 * Sampling is stopped first, so the attach listener's work is not in the
 * profile. All three share one deadline per JVM (JVM_DEADLINE_MS), a JVM
 * seen stopped is given up within JVM_STOPPED_MS, and a stop signal (held
 * back here, see session.c; a signalfd wakes the waits) ends the step at
 * once: the recording is then finished without what was not asked. A socket that is
 * not the JVM's own is refused (jvm/attach.c): nothing is asked of it.
 * A JVM that already exited cannot be asked: its map is read if it wrote
 * one at exit (-XX:+DumpPerfMapAtExit), else a notice says how. */
#include "recorder.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jvm/jvm.h"
#include "lib/grow.h"
#include "lib/text-clean.h"
#include "symbolize/perf-map.h"

struct jvm_step {
	struct recorder *rec;
	int quiet;
	int fp_noticed;
	int stopped; /* a stop signal came: ask no more */
	int sigfd;   /* readable when a stop signal is pending (-1: none) */
	uint64_t names, maps;
};

/* SIGINT, SIGTERM and SIGHUP are blocked while the recording finishes:
 * one that came meanwhile waits, pending, and is seen here; a signalfd of
 * them (stop_fd) wakes every wait of the attach at once (it is only
 * polled, never read: the signal stays pending for session.c). */
static int stop_pending(void)
{
	sigset_t set;

	if (sigpending(&set))
		return 0;
	return sigismember(&set, SIGINT) == 1 || sigismember(&set, SIGTERM) == 1 ||
	       sigismember(&set, SIGHUP) == 1;
}

static int stop_fd(void)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd == 0) { /* stdin was closed: jvm_limits takes fd 0 for "none" */
		int d = fcntl(fd, F_DUPFD_CLOEXEC, 3);

		close(fd);
		fd = d;
	}
	return fd;
}

static void notice(const struct jvm_step *js, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void notice(const struct jvm_step *js, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (js->quiet)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* It may quote what a JVM (or an impostor) answered. */
	fputs("prof record: ", stderr);
	text_put(stderr, line);
	fputc('\n', stderr);
}

static void fp_notice(struct jvm_step *js, pid_t pid)
{
	/* DWARF stacks step over compiled frames by their sizes (jvm/) */
	if (js->rec->ustack.dwarf && jvm_frames__ready(js->rec->ustack.jvm, (uint32_t)pid))
		return;
	if (js->fp_noticed++ || js->quiet)
		return;
	fprintf(stderr, "prof record: JVM %d runs without -XX:+PreserveFramePointer: its Java "
		"stacks stop at the first compiled frame\n", (int)pid);
	fprintf(stderr, "hint: restart it with -XX:+PreserveFramePointer (costs it a few %%) for "
		"whole Java stacks, or record with --call-graph dwarf\n");
}

/* Thread.print -> one FULLNAME event per thread still there. */
static void thread_names(struct jvm_step *js, pid_t pid, const char *dump, size_t len)
{
	js->names += jvm_record_thread_names(js->rec->w, pid, dump, len, monotonic_ns());
}

static void ask_jvm(struct jvm_step *js, pid_t pid)
{
	struct jvm_limits lim = {.deadline_ms = jvm_deadline(JVM_DEADLINE_MS),
				 .cancelled = stop_pending,
				 .cancel_fd = js->sigfd};
	struct prof_error err;
	char *out;
	size_t len;
	int r;

	r = jvm_jcmd(pid, "Compiler.perfmap", &lim, &out, &len, &err);
	js->stopped = r == -EINTR;
	if (r == -ENOTSUP && strstr(err.msg, "does not know"))
		snprintf(err.hint, sizeof(err.hint),
			 "for JDK 8 to 16, start it with -XX:+UnlockDiagnostic"
			 "VMOptions -XX:+DumpPerfMapAtExit, or use a perf-map agent");
	if (r) {
		notice(js, "%s%s", err.msg,
		       r == -ENOEXEC ? "" : ": Java frames stay unnamed and threads keep kernel names");
		if (err.hint[0] && !js->quiet) {
			fputs("hint: ", stderr);
			text_put(stderr, err.hint);
			fputc('\n', stderr);
		}
		if (r != -ENOEXEC && !jvm_option_set(pid, "-XX:+PreserveFramePointer"))
			fp_notice(js, pid);
		return;
	}
	free(out);
	js->maps++;
	r = jvm_jcmd(pid, "Thread.print", &lim, &out, &len, &err);
	if (!r) {
		thread_names(js, pid, out, len);
		free(out);
	} else {
		js->stopped = r == -EINTR;
		notice(js, "%s: threads keep their kernel names", err.msg);
		if (js->stopped)
			return;
	}
	r = jvm_jcmd(pid, "VM.flags", &lim, &out, &len, &err);
	js->stopped = r == -EINTR;
	if (!r) {
		if (jvm_flags_value(out, len, "PreserveFramePointer") != 1)
			fp_notice(js, pid);
		free(out);
	}
}

/* A process that mapped libjvm.so during the recording but is gone now. */
static int mapped_jvm(const struct recorder *rec, uint32_t pid)
{
	const struct rec_mapping *m = rec_writer__mappings(rec->w);
	size_t n = rec_writer__nmappings(rec->w), i;

	for (i = 0; i < n; i++) {
		const char *path = m[i].pid == pid ? rec_writer__str(rec->w, m[i].path) : "";
		size_t l = strlen(path);

		if (l >= 10 && !strcmp(path + l - 10, "/libjvm.so"))
			return 1;
	}
	return 0;
}

static void exited_jvm(struct jvm_step *js, uint32_t pid)
{
	char path[64];
	struct stat st;

	if (!mapped_jvm(js->rec, pid))
		return;
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", (unsigned)pid);
	if (!stat(path, &st)) {
		int64_t start, ran;

		/* written at its exit: the symbolizer reads it; unless it is
		 * older than the process (an earlier one's with its pid) */
		if (perf_map__proc_start(pid, &start, &ran) || !perf_map__stale(&st, start, ran))
			return;
	}
	if (!js->quiet) {
		fprintf(stderr, "prof record: JVM %u exited before prof could ask for its JIT map: "
			"Java frames stay unnamed\n", (unsigned)pid);
		fprintf(stderr, "hint: run it with -XX:+UnlockDiagnosticVMOptions "
			"-XX:+DumpPerfMapAtExit, or record it with -d shorter than its run\n");
	}
}

/* The processes to look at: the targets and every process seen. */
static size_t candidates(const struct recorder *rec, pid_t **out)
{
	size_t n = 0, cap = 0, i, j;
	pid_t *p = NULL;

	for (i = 0; i < rec->ntargets; i++) {
		if (GROW(p, cap, n + 1))
			break;
		p[n++] = rec->targets[i].pid;
	}
	/* The keymap's slots walked in place (keymap.h has no iterator). */
	for (i = 0; rec->seen_pids.slots && i <= rec->seen_pids.mask; i++) {
		const struct keymap_slot *s = &rec->seen_pids.slots[i];

		if (!s->hash || !s->a)
			continue;
		for (j = 0; j < n && p[j] != (pid_t)s->a; j++)
			;
		if (j < n || GROW(p, cap, n + 1))
			continue;
		p[n++] = (pid_t)s->a;
	}
	*out = p;
	return n;
}

void recorder_jvm_step(struct recorder *rec)
{
	struct jvm_step js = {.rec = rec, .quiet = rec->opts->quiet, .sigfd = -1};
	uint64_t t0 = monotonic_ns();
	pid_t *pids;
	size_t n = candidates(rec, &pids), i;
	int stopped = 0, jvms = 0;

	for (i = 0; i < n; i++) {
		int r = pids[i] > 0 ? jvm_is_jvm(pids[i]) : 0;

		/* A zombie's maps read empty: it exited too. */
		if (r == -ESRCH || (r == 0 && pids[i] > 0 && jvm_proc_exited(pids[i]))) {
			exited_jvm(&js, (uint32_t)pids[i]);
			continue;
		}
		if (r != 1)
			continue;
		if (js.stopped || stop_pending()) {
			notice(&js, "stopped: JVM %d not asked for its JIT map and thread names",
			       (int)pids[i]);
			continue;
		}
		if (!stopped++) {
			size_t k;

			js.sigfd = stop_fd();
			/* Nothing more is sampled: the attach work stays out. */
			for (k = 0; k < rec->nfds; k++)
				ioctl(rec->fds[k].fd, PERF_EVENT_IOC_DISABLE, 0);
		}
		jvms++;
		ask_jvm(&js, pids[i]);
	}
	free(pids);
	if (js.sigfd >= 0)
		close(js.sigfd);
	if (!jvms)
		return;
	rec_writer__stat(rec->w, "jvm-processes", (uint64_t)jvms);
	rec_writer__stat(rec->w, "jvm-perfmaps", js.maps);
	rec_writer__stat(rec->w, "jvm-thread-names", js.names);
	rec_writer__stat(rec->w, "jvm-attach-ns", monotonic_ns() - t0);
	if (!js.quiet && js.maps)
		fprintf(stderr, "prof record: asked %d JVM%s for JIT maps and %llu thread names "
			"(%.1f ms)\n", jvms, jvms > 1 ? "s" : "", (unsigned long long)js.names,
			(double)(monotonic_ns() - t0) / 1e6);
}
