/* session.c: one recording from start to finish: check the targets, open
 * one event per (thread, CPU) redirected into one ring per CPU, wait and
 * drain (keeping the records raw while deferring: defer.c), stop on
 * duration / target exit / signal, then process what was deferred,
 * symbolize and close the file. Every way out after the file is created
 * leaves it complete. */
#include "recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/grow.h"
#include "lib/text-clean.h"
#include "proc-scan.h"
#include "symbolize/symbolize.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* Drain at least this often. Rings also wake us when a quarter full, target
 * exits and signals wake us at once: a slower tick costs the target less
 * (each wake-up preempts it; 100 ms measured +0.3-0.5 points of slowdown at
 * 4999 Hz against this, docs/BENCHMARKS.md). */
#define TICK_MS 1000
#define FLUSH_NS 1000000000ULL /* the file lags the target by at most this */

static volatile sig_atomic_t stop_requested;

void record_request_stop(void)
{
	stop_requested = 1;
}

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int fail(struct recorder *rc, int err, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(struct recorder *rc, int err, const char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rc->err->msg, sizeof(rc->err->msg), fmt, ap);
	va_end(ap);
	snprintf(rc->err->hint, sizeof(rc->err->hint), "%s", hint ? hint : "");
	return err < 0 ? err : -err;
}

static uint64_t read_sysctl(const char *path, uint64_t dflt)
{
	FILE *f = fopen(path, "re");
	unsigned long long v;

	if (!f)
		return dflt;
	if (fscanf(f, "%llu", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

static long read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	long v = 2;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

/* Online CPUs from /sys ("0-3,6"), falling back to 0..nconf-1. */
static int list_cpus(struct recorder *rc)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	char buf[4096];
	size_t cap = 0;
	char *p;

	if (f && fgets(buf, sizeof(buf), f)) {
		for (p = buf; *p && *p != '\n';) {
			long a = strtol(p, &p, 10), b = a, c;

			if (*p == '-')
				b = strtol(p + 1, &p, 10);
			for (c = a; c <= b && c < 65536; c++) {
				if (GROW(rc->cpus, cap, rc->ncpus + 1)) {
					fclose(f);
					return -ENOMEM;
				}
				rc->cpus[rc->ncpus++] = (int)c;
			}
			if (*p == ',')
				p++;
			else
				break;
		}
	}
	if (f)
		fclose(f);
	if (!rc->ncpus) {
		long n = sysconf(_SC_NPROCESSORS_CONF), c;

		for (c = 0; c < (n > 0 ? n : 1); c++) {
			if (GROW(rc->cpus, cap, rc->ncpus + 1))
				return -ENOMEM;
			rc->cpus[rc->ncpus++] = (int)c;
		}
	}
	return 0;
}

/* Per CPU: -m, else 4 MiB for dwarf stack copies, else 1 MiB. */
static size_t ring_pages(const struct recorder *rc)
{
	if (rc->opts->ring_pages)
		return rc->opts->ring_pages;
	return rc->opts->call_graph == RECORD_CALL_GRAPH_DWARF ? RECORD_DWARF_RING_PAGES
							       : RECORD_DEFAULT_RING_PAGES;
}

static const char *permission_hint(void)
{
	static char hint[400];

	snprintf(hint, sizeof(hint),
		 "kernel.perf_event_paranoid is %ld: run prof as root, give it CAP_PERFMON "
		 "(and CAP_SYS_PTRACE for other users' processes), or lower it with "
		 "'sysctl kernel.perf_event_paranoid=1'",
		 read_paranoid());
	return hint;
}

static int keep_fd(struct recorder *rc, int fd, size_t i)
{
	if (GROW(rc->fds, rc->fds_cap, rc->nfds + 1)) {
		close(fd);
		return -ENOMEM;
	}
	rc->fds[rc->nfds++] = (struct event_fd){.fd = fd, .cpu = (int)i};
	return 0;
}

/* CPU-wide mode: each CPU's sampling event (with the side-band records of
 * every task) and scheduler events. Opened once, before the targets. */
static int open_cpu_events(struct recorder *rc)
{
	struct perf_event_attr a = rc->ev.attr;
	size_t i;
	int fd, err;

	if (rc->rings[0].fd >= 0)
		return 0;
	a.inherit = 0;
	a.enable_on_exec = 0;
	a.disabled = 0;
	for (i = 0; i < rc->ncpus; i++) {
		fd = sys_perf_event_open(&a, -1, rc->cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			return -errno;
		err = keep_fd(rc, fd, i);
		if (!err && (err = ring__map(&rc->rings[i], fd, ring_pages(rc))))
			rc->rings[i].fd = -1;
		if (!err)
			err = sched_open_cpu(rc, i);
		if (err)
			return err;
	}
	return 0;
}

/* Opens the event on tid for every CPU (CPU-wide mode: only notes the
 * thread as a target). 0, -ESRCH (thread gone), -errno. */
static int open_thread(struct recorder *rc, pid_t tid)
{
	size_t i;

	for (i = 0; i < rc->ncpus && !rc->cpu_wide; i++) {
		int fd = sys_perf_event_open(&rc->ev.attr, tid, rc->cpus[i], -1,
					     PERF_FLAG_FD_CLOEXEC);
		int err;

		if (fd < 0)
			return -errno;
		err = keep_fd(rc, fd, i);
		if (err)
			return err;
		if (rc->rings[i].fd < 0) {
			err = ring__map(&rc->rings[i], fd, ring_pages(rc));
			if (err) {
				rc->rings[i].fd = -1;
				return err;
			}
		} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, rc->rings[i].fd)) {
			return -errno;
		}
		if (rc->sched.on && (err = sched_open_thread(rc, tid, i)))
			return err;
	}
	if (rc->probes.on) {
		int err = probes_open_thread(rc, tid);

		if (err)
			return err;
	}
	return keymap__set(&rc->opened_tids, (uint64_t)tid, 0, 1);
}

/* CPU-wide mode: records are kept when their task is a target, so a new
 * target must be known before its first record is decoded; but its FORK
 * can sit in another CPU's ring than its first records. So: note where
 * every ring ends, learn from the FORK records in all CPU rings, then
 * decode up to the noted ends: each record decoded then was written before
 * the FORK records were looked at. */
static void drain_cpu_wide(struct recorder *rc)
{
	uint64_t *cpu_heads = rc->heads, *sched_heads_ = rc->heads + rc->ncpus;
	size_t i;

	for (i = 0; i < rc->ncpus; i++)
		cpu_heads[i] = rc->rings[i].fd >= 0 ? ring__head(&rc->rings[i]) : 0;
	sched_heads(rc, sched_heads_);
	for (i = 0; i < rc->ncpus; i++)
		if (rc->rings[i].fd >= 0)
			ring__peek(&rc->rings[i], rc->scratch, recorder_learn_fork, rc);
	for (i = 0; i < rc->ncpus; i++)
		if (rc->rings[i].fd >= 0 && ring__drain_to(&rc->rings[i], cpu_heads[i], rc->scratch,
							   recorder_handle_record, rc) < 0)
			rc->bad_ring = 1;
	ustack_process(rc);
	sched_drain(rc, sched_heads_);
}

static void drain_all(struct recorder *rc)
{
	size_t i;

	if (rc->defer.on) { /* copies only: processed at the end (defer.c) */
		for (i = 0; i < rc->ncpus; i++)
			if (rc->rings[i].fd >= 0 &&
			    ring__drain(&rc->rings[i], rc->scratch, defer_keep, rc) < 0)
				rc->bad_ring = 1;
		return;
	}
	if (rc->cpu_wide) {
		drain_cpu_wide(rc);
		probes_drain(rc);
		return;
	}
	for (i = 0; i < rc->ncpus; i++)
		if (rc->rings[i].fd >= 0 &&
		    ring__drain(&rc->rings[i], rc->scratch, recorder_handle_record, rc) < 0)
			rc->bad_ring = 1;
	ustack_process(rc);
	sched_drain(rc, NULL);
	probes_drain(rc);
}

static void synth_map(void *ctx, const struct proc_map *m)
{
	struct recorder *rc = ((void **)ctx)[0];
	pid_t pid = *(pid_t *)((void **)ctx)[1];

	recorder_add_mapping(rc, monotonic_ns(), (uint32_t)pid, m->start, m->end, m->pgoff,
			     m->path);
}

/* Attach: open every thread of pid, then look again for threads created
 * meanwhile that did not inherit our events (made by a thread we had not
 * opened yet). Returns 0, or -ESRCH when the process vanished first. */
static int attach_process(struct recorder *rc, pid_t pid)
{
	int round, opened = 0, err = 0;

	for (round = 0; round < 4; round++) {
		pid_t *tids;
		size_t n, i, fresh = 0;

		err = proc_list_tids(pid, &tids, &n);
		if (err)
			break;
		for (i = 0; i < n; i++) {
			uint32_t dummy;

			if (keymap__get(&rc->opened_tids, (uint64_t)tids[i], 0, &dummy) ||
			    keymap__get(&rc->forked_tids, (uint64_t)tids[i], 0, &dummy))
				continue;
			err = open_thread(rc, tids[i]);
			if (err == -ESRCH) {
				err = 0;
				continue;
			}
			if (err) {
				free(tids);
				return err;
			}
			fresh++;
			opened++;
		}
		free(tids);
		if (!fresh)
			break;
		drain_all(rc); /* learn which new threads inherited events */
	}
	if (!opened)
		return -ESRCH;
	return err == -ESRCH ? 0 : err;
}

/* Writes what /proc says of pid's threads and mappings, as of `now` (when
 * attaching began: the threads existed then, as far as we can tell). */
static void synth_process(struct recorder *rc, pid_t pid, uint64_t now)
{
	pid_t *tids;
	size_t n, i;
	void *ctx[2] = {rc, &pid};

	if (proc_list_tids(pid, &tids, &n))
		return;
	for (i = 0; i < n; i++) {
		char name[64];

		if (proc_thread_name(pid, tids[i], name, sizeof(name)))
			continue;
		recorder_thread_start(rc, now, (uint32_t)pid, (uint32_t)tids[i], name);
		sched_init_state(rc, now, pid, tids[i]);
	}
	free(tids);
	proc_each_exec_map(pid, synth_map, ctx);
}

static void write_meta(struct recorder *rc)
{
	struct utsname u;
	char buf[256], host[256];
	time_t now = time(NULL);
	struct tm tm;

	rec_writer__meta(rc->w, "prof-version", "0.1.0");
	if (!uname(&u)) {
		rec_writer__meta(rc->w, "kernel", u.release);
		rec_writer__meta(rc->w, "arch", u.machine);
	}
	if (!gethostname(host, sizeof(host))) {
		host[sizeof(host) - 1] = '\0';
		rec_writer__meta(rc->w, "hostname", host);
	}
	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	rec_writer__meta(rc->w, "start-time", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)monotonic_ns());
	rec_writer__meta(rc->w, "start-monotonic-ns", buf);
	rec_writer__meta(rc->w, "clock", "CLOCK_MONOTONIC");
	if (rc->opts->cmdline)
		rec_writer__meta(rc->w, "cmdline", rc->opts->cmdline);
	snprintf(buf, sizeof(buf), "%zu", rc->ncpus);
	rec_writer__meta(rc->w, "cpus", buf);
	rec_writer__meta(rc->w, "event", rc->ev.name);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)rc->ev.attr.sample_freq);
	rec_writer__meta(rc->w, "frequency", buf);
	if (rc->ustack.on && rc->ustack.dwarf) {
		rec_writer__meta(rc->w, "call-graph", "dwarf");
		snprintf(buf, sizeof(buf), "%u", rc->ustack.stack_size);
		rec_writer__meta(rc->w, "stack-size", buf);
	} else {
		rec_writer__meta(rc->w, "call-graph", "fp");
		rec_writer__meta(rc->w, "leaf-fix", !rc->ustack.on     ? "no"
						    : rc->ustack.callsite ? "callsite"
									  : "stack");
	}
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)rc->max_stack);
	rec_writer__meta(rc->w, "max-stack", buf);
	if (rc->opts->no_symbolize)
		rec_writer__meta(rc->w, "symbolize", "no");
	rec_writer__meta(rc->w, "kernel-stacks", rc->ev.user_only ? "no" : "yes");
	rec_writer__meta(rc->w, "sched", rc->sched.on ? "yes" : "no");
	rec_writer__meta(rc->w, "scope", rc->cpu_wide ? "cpu-wide" : "per-thread");
}

/* --sched: goes CPU-wide (see recorder.h) when the kernel lets us open a
 * CPU-wide sampling event and scheduler events; else stays per thread. */
static void try_cpu_wide(struct recorder *rc)
{
	struct perf_event_attr a = rc->ev.attr;
	int fd;

	a.inherit = 0;
	a.enable_on_exec = 0;
	a.disabled = 1;
	fd = sys_perf_event_open(&a, -1, rc->cpus[0], -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return;
	close(fd);
	rc->heads = calloc(2 * rc->ncpus, sizeof(*rc->heads));
	if (rc->heads && !sched_try_cpu_wide(rc))
		rc->cpu_wide = 1;
}

/* -e without cpu-clock (or --alloc alone): probe hits only. */
static int probes_only(const struct recorder *rc)
{
	const struct record_opts *o = rc->opts;
	size_t i;

	if (!o->nevents && !o->alloc)
		return 0;
	for (i = 0; i < o->nevents; i++)
		if (!probe_spec_is_probe(o->events[i]))
			return 0;
	return 1;
}

static int setup_events(struct recorder *rc)
{
	uint64_t freq = rc->opts->freq ? rc->opts->freq : RECORD_DEFAULT_FREQ;
	uint64_t max_rate = read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate", 100000);
	struct rec_event_desc desc;
	uint32_t id;
	size_t i;
	int err;

	if (freq > max_rate)
		return fail(rc, -EINVAL, "lower -F, or raise kernel.perf_event_max_sample_rate",
			    "-F %llu is above the kernel's limit of %llu Hz",
			    (unsigned long long)freq, (unsigned long long)max_rate);
	err = event_choice__probe(&rc->ev, freq, rc->opts->argv != NULL);
	if (err == -EACCES || err == -EPERM)
		return fail(rc, err, permission_hint(), "not allowed to use perf events: %s",
			    strerror(-err));
	if (err == -ENOENT || err == -ENOSYS)
		return fail(rc, err, "this kernel lacks perf events (CONFIG_PERF_EVENTS)",
			    "cannot open a sampling event: %s", strerror(-err));
	if (err)
		return fail(rc, err, NULL, "cannot open a sampling event: %s", strerror(-err));
	if (!rc->opts->quiet) {
		if (rc->ev.fell_back && !probes_only(rc))
			fprintf(stderr, "prof record: no hardware cycle counter here: sampling cpu-clock\n");
		if (rc->ev.user_only)
			fprintf(stderr, "prof record: kernel sampling not allowed (%s, "
				"perf_event_paranoid=%ld): recording user stacks only\n",
				strerror(rc->ev.kernel_error), read_paranoid());
	}
	err = ustack_setup(rc);
	if (err)
		return err;
	/* Wake us when a ring is a quarter full, on top of the 100 ms tick. */
	rc->ev.attr.wakeup_watermark = (uint32_t)(ring_pages(rc) * (size_t)sysconf(_SC_PAGESIZE) / 4);
	err = list_cpus(rc);
	if (err)
		return fail(rc, err, NULL, "out of memory");
	rc->rings = calloc(rc->ncpus, sizeof(*rc->rings));
	if (!rc->rings)
		return fail(rc, -ENOMEM, NULL, "out of memory");
	for (i = 0; i < rc->ncpus; i++)
		rc->rings[i].fd = -1;
	if (probes_only(rc)) {
		/* The side-band records (names, mappings, threads) still come
		 * from an event on every thread: one that never samples. */
		rc->ev.attr.type = PERF_TYPE_SOFTWARE;
		rc->ev.attr.config = PERF_COUNT_SW_DUMMY;
		rc->ev.name = "none";
	} else {
		memset(&desc, 0, sizeof(desc));
		rec_writer__string(rc->w, rc->ev.name, strlen(rc->ev.name), &desc.name);
		desc.type = rc->ev.attr.type;
		desc.config = rc->ev.attr.config;
		desc.freq = freq;
		err = rec_writer__event(rc->w, &desc, &id);
		if (err)
			return fail(rc, err, NULL, "out of memory");
	}
	err = probes_setup(rc);
	if (err)
		return err;
	if (!rc->opts->sched)
		return 0;
	err = sched_setup(rc);
	if (!err && !rc->opts->sched_per_thread)
		try_cpu_wide(rc);
	return err;
}

static int open_pidfd(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static int start_attach(struct recorder *rc)
{
	size_t i;
	int err;

	for (i = 0; i < rc->opts->npids; i++) {
		/* -p may name a thread: its whole process is the target. */
		pid_t pid = proc_tgid(rc->opts->pids[i]);
		uint64_t t0 = monotonic_ns();

		err = keymap__set(&rc->target_pids, (uint64_t)pid, 0, 1);
		if (!err && rc->cpu_wide)
			err = open_cpu_events(rc);
		if (!err)
			err = attach_process(rc, pid);
		if (err == -ESRCH)
			return fail(rc, err, NULL, "process %d exited before sampling started",
				    (int)pid);
		if (err == -EACCES || err == -EPERM)
			return fail(rc, err, permission_hint(), "cannot profile process %d: %s",
				    (int)pid, strerror(-err));
		if (err == -EMFILE || err == -ENFILE)
			return fail(rc, err, "raise the open file limit ('ulimit -n')",
				    "too many threads to open events on: %s", strerror(-err));
		if (err)
			return fail(rc, err, NULL, "cannot profile process %d: %s", (int)pid,
				    strerror(-err));
		rc->targets[i].pid = pid;
		rc->targets[i].pidfd = open_pidfd(pid);
		synth_process(rc, pid, t0);
	}
	return 0;
}

static int start_launch(struct recorder *rc)
{
	char *const *argv = rc->opts->argv;
	const char *base = strrchr(argv[0], '/');
	int go_fd, err_fd, err;
	pid_t pid;

	err = launch_prepare(argv, &pid, &go_fd, &err_fd);
	if (err)
		return fail(rc, err, NULL, "cannot start '%s': %s", argv[0], strerror(-err));
	rc->child = pid;
	err = keymap__set(&rc->target_pids, (uint64_t)pid, 0, 1);
	if (!err && rc->cpu_wide)
		err = open_cpu_events(rc);
	if (!err)
		err = open_thread(rc, pid);
	if (err) {
		close(go_fd); /* the child exits without running the command */
		close(err_fd);
		waitpid(pid, NULL, 0);
		rc->child = 0;
		if (err == -EACCES || err == -EPERM)
			return fail(rc, err, permission_hint(), "cannot profile '%s': %s", argv[0],
				    strerror(-err));
		return fail(rc, err, NULL, "cannot profile '%s': %s", argv[0], strerror(-err));
	}
	rc->targets[0].pid = pid;
	rc->targets[0].pidfd = open_pidfd(pid);
	recorder_thread_start(rc, monotonic_ns(), (uint32_t)pid, (uint32_t)pid,
			      base ? base + 1 : argv[0]);
	if (rc->sched.on) /* it runs as soon as it is let go */
		rec_writer__sched(rc->w, monotonic_ns(), (uint32_t)pid, 0, 0, REC_SCHED_INIT,
				  REC_STATE_RUNNING);
	err = launch_go(go_fd, err_fd);
	if (err) {
		waitpid(pid, NULL, 0);
		rc->child = 0;
		return fail(rc, err, err == -ENOENT ? "check the command name and your PATH" : NULL,
			    "cannot run '%s': %s", argv[0], strerror(-err));
	}
	return 0;
}

/* Has every target exited? Reaps the launched command. */
static int targets_done(struct recorder *rc, const struct pollfd *pfds, size_t first)
{
	size_t i, live = 0;

	for (i = 0; i < rc->ntargets; i++) {
		struct target *t = &rc->targets[i];

		if (t->exited)
			continue;
		if (t->pidfd >= 0 ? (pfds[first + i].revents & (POLLIN | POLLHUP)) != 0
				  : kill(t->pid, 0) && errno == ESRCH)
			t->exited = 1;
		if (t->pid == rc->child && rc->child) {
			int status;

			if (waitpid(rc->child, &status, WNOHANG) == rc->child) {
				t->exited = 1;
				rc->sum->target_status = WIFEXITED(status) ? WEXITSTATUS(status)
									  : 128 + WTERMSIG(status);
				rc->child = 0;
			}
		}
		if (!t->exited)
			live++;
	}
	return live == 0;
}

static int run_loop(struct recorder *rc, uint64_t start)
{
	struct pollfd *pfds = NULL;
	size_t cap = 0, i;
	uint64_t last_flush = start;
	sigset_t unblocked;

	sigemptyset(&unblocked);
	while (!stop_requested && !rc->write_err) {
		size_t n = 0, first_target;
		uint64_t now = monotonic_ns();
		long timeout_ms = TICK_MS;
		struct timespec ts;

		if (rc->opts->duration_ns) {
			uint64_t end = start + rc->opts->duration_ns;

			if (now >= end)
				break;
			if ((end - now) / 1000000 < (uint64_t)timeout_ms)
				timeout_ms = (long)((end - now) / 1000000) + 1;
		}
		/* Wake for the next probe window to open or close. */
		{
			long w = probes_tick(rc, now);

			if (w >= 0 && w < timeout_ms)
				timeout_ms = w;
		}
		/* Wake for the next flush, so the file lags by at most FLUSH_NS. */
		if (last_flush + FLUSH_NS > now &&
		    (last_flush + FLUSH_NS - now) / 1000000 < (uint64_t)timeout_ms)
			timeout_ms = (long)((last_flush + FLUSH_NS - now) / 1000000) + 1;
		if (GROW(pfds, cap, rc->nfds + rc->ntargets + 1)) {
			free(pfds);
			return -ENOMEM;
		}
		for (i = 0; i < rc->nfds; i++)
			if (!rc->fds[i].hung_up)
				pfds[n++] = (struct pollfd){.fd = rc->fds[i].fd, .events = POLLIN};
		first_target = n;
		for (i = 0; i < rc->ntargets; i++)
			pfds[n++] = (struct pollfd){.fd = rc->targets[i].exited ? -1 :
					rc->targets[i].pidfd, .events = POLLIN};
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (timeout_ms % 1000) * 1000000L;
		/* Signals are blocked except inside ppoll: no lost wake-ups. */
		if (ppoll(pfds, n, &ts, &unblocked) < 0 && errno != EINTR) {
			free(pfds);
			return -errno;
		}
		drain_all(rc);
		recorder_resolve_pending(rc, 0);
		/* A thread that exited leaves its fd readable forever (POLLHUP):
		 * stop polling it, or we would spin like perf record -p does. */
		for (i = 0, n = 0; i < rc->nfds; i++) {
			if (rc->fds[i].hung_up)
				continue;
			if (pfds[n++].revents & (POLLHUP | POLLERR))
				rc->fds[i].hung_up = 1;
		}
		if (targets_done(rc, pfds, first_target))
			break;
		if (monotonic_ns() - last_flush >= FLUSH_NS) {
			rc->write_err = defer_flush(rc);
			if (!rc->write_err)
				rc->write_err = rec_writer__flush(rc->w);
			recorder_resolve_pending(rc, 1);
			last_flush = monotonic_ns();
		}
	}
	free(pfds);
	return 0;
}

static void stop_events(struct recorder *rc)
{
	size_t i;

	probes_close_all(rc); /* closing the probes removes their breakpoints */
	probes_wait_closed();
	for (i = 0; i < rc->nfds; i++)
		ioctl(rc->fds[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	drain_all(rc);
	for (i = 0; i < rc->ncpus; i++)
		ring__unmap(&rc->rings[i]);
	for (i = 0; rc->sched.rings && i < rc->ncpus; i++)
		ring__unmap(&rc->sched.rings[i]);
	for (i = 0; i < rc->nfds; i++)
		close(rc->fds[i].fd);
	rc->nfds = 0;
}

void recorder_write_stats(struct recorder *rc, const struct symbolize_stats *ss)
{
	struct record_summary *s = rc->sum;

	rec_writer__stat(rc->w, "samples", s->samples);
	rec_writer__stat(rc->w, "lost", s->lost);
	rec_writer__stat(rc->w, "throttled", s->throttled);
	rec_writer__stat(rc->w, "threads", s->threads);
	rec_writer__stat(rc->w, "processes", s->processes);
	rec_writer__stat(rc->w, "duration-ns", s->duration_ns);
	if (s->defer_ns)
		rec_writer__stat(rc->w, "deferred-processing-ns", s->defer_ns);
	rec_writer__stat(rc->w, "frames", rec_writer__nframes(rc->w));
	if (ss) {
		rec_writer__stat(rc->w, "frames-resolved", ss->resolved);
		rec_writer__stat(rc->w, "frames-unresolved", ss->unresolved);
		rec_writer__stat(rc->w, "binaries-missing", ss->binaries_missing);
	}
	if (rc->sched.on) {
		rec_writer__stat(rc->w, "sched-switches", s->switches);
		rec_writer__stat(rc->w, "sched-wakeups", s->wakeups);
		rec_writer__stat(rc->w, "sched-lost", s->sched_lost);
	}
	if (rc->bad_ring)
		rec_writer__stat(rc->w, "malformed-ring-data", 1);
	ustack_write_stats(rc);
	probes_write_stats(rc);
}

int recorder_init_tables(struct recorder *rc)
{
	if (addr_spaces__init(&rc->spaces) || keymap__init(&rc->opened_tids, 64) ||
	    keymap__init(&rc->forked_tids, 64) || keymap__init(&rc->target_pids, 16) ||
	    keymap__init(&rc->names, 64) || keymap__init(&rc->seen_tids, 64) ||
	    keymap__init(&rc->seen_pids, 16) || keymap__init(&rc->chains, 4096))
		return -ENOMEM;
	return 0;
}

void recorder_release(struct recorder *rc)
{
	size_t i;

	if (rc->nfds)
		stop_events(rc);
	for (i = 0; i < rc->ntargets; i++)
		if (rc->targets[i].pidfd >= 0)
			close(rc->targets[i].pidfd);
	free(rc->targets);
	free(rc->fds);
	free(rc->rings);
	free(rc->cpus);
	free(rc->scratch);
	free(rc->pending);
	sched_release(rc);
	probes_release(rc);
	defer_release(rc);
	ustack_release(rc);
	keymap__release(&rc->opened_tids);
	keymap__release(&rc->forked_tids);
	keymap__release(&rc->target_pids);
	free(rc->heads);
	keymap__release(&rc->names);
	keymap__release(&rc->seen_tids);
	keymap__release(&rc->seen_pids);
	keymap__release(&rc->chains);
	addr_spaces__release(&rc->spaces);
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int finish(struct recorder *rc, uint64_t start)
{
	struct symbolize_stats ss = {0};
	uint64_t t0 = monotonic_ns(), defer_ns = 0;
	int err = 0, deferred = rc->defer.limit != 0; /* set up to defer */

	/* The samples so far become stacks: the JVM step needs the mappings,
	 * and what comes after is processed as it comes. The stat
	 * deferred-processing-ns is written only for a deferred recording. */
	if (!rc->write_err)
		rc->write_err = defer_process(rc);
	if (deferred)
		defer_ns = monotonic_ns() - t0;
	recorder_jvm_step(rc); /* while the JVMs still run */
	if (rc->child) {
		/* Duration reached or we were told to stop: end the command
		 * as perf does, so it does not outlive an interrupted recording. */
		int status;

		kill(rc->child, SIGTERM);
		if (waitpid(rc->child, &status, 0) == rc->child)
			rc->sum->target_status = WIFEXITED(status) ? WEXITSTATUS(status)
								  : 128 + WTERMSIG(status);
		rc->child = 0;
	}
	stop_events(rc);
	recorder_resolve_pending(rc, 0);
	sched_finish(rc);
	rc->sum->duration_ns = monotonic_ns() - start - defer_ns;
	rc->sum->defer_ns = defer_ns;
	if (!rc->write_err)
		rc->write_err = rec_writer__flush(rc->w);
	if (!rc->opts->no_symbolize && !rc->write_err) {
		err = symbolize_recording(rc->w, NULL, &ss);
		if (err)
			rc->write_err = err;
		if (ss.kernel_hidden && !rc->opts->quiet)
			fprintf(stderr, "prof record: kernel symbols are hidden (kernel.kptr_restrict): "
				"kernel frames keep raw addresses\n");
		if (ss.notice[0] && !rc->opts->quiet) {
			/* It quotes paths and names a target's owner chose. */
			fputs("prof record: ", stderr);
			text_put(stderr, ss.notice);
			fputc('\n', stderr);
		}
	} else if (!rc->write_err) {
		/* Build-ids only, so 'prof symbolize -i' can tell a changed binary. */
		rc->write_err = symbolize_build_ids(rc->w, NULL);
	}
	recorder_write_stats(rc, rc->opts->no_symbolize ? NULL : &ss);
	rec_writer__meta(rc->w, "symbolized", rc->opts->no_symbolize ? "no" : "yes");
	err = rc->write_err;
	rc->sum->bytes = rec_writer__size(rc->w);
	{
		int cerr = rec_writer__close(rc->w);

		if (!err)
			err = cerr;
	}
	rc->w = NULL;
	return err;
}

int record_run(const struct record_opts *opts, struct record_summary *sum,
	       struct record_error *errp)
{
	struct recorder rc;
	const char *out = opts->output ? opts->output : RECORD_DEFAULT_OUTPUT;
	struct sigaction sa;
	sigset_t block, old;
	uint64_t start;
	int err;

	memset(&rc, 0, sizeof(rc));
	memset(sum, 0, sizeof(*sum));
	memset(errp, 0, sizeof(*errp));
	rc.opts = opts;
	rc.sum = sum;
	rc.err = errp;
	stop_requested = 0;
	rc.max_stack = read_sysctl("/proc/sys/kernel/perf_event_max_stack", 127);
	rc.ntargets = opts->argv ? 1 : opts->npids;
	rc.targets = calloc(rc.ntargets ? rc.ntargets : 1, sizeof(*rc.targets));
	rc.scratch = malloc(RING_SCRATCH_SIZE);
	if (!rc.targets || !rc.scratch || recorder_init_tables(&rc)) {
		recorder_release(&rc);
		return fail(&rc, -ENOMEM, NULL, "out of memory");
	}
	for (size_t i = 0; i < rc.ntargets; i++)
		rc.targets[i].pidfd = -1;
	raise_fd_limit();

	for (size_t i = 0; i < opts->npids; i++) {
		if (kill(opts->pids[i], 0) && errno == ESRCH) {
			recorder_release(&rc);
			return fail(&rc, -ESRCH, "check the PID with 'ps -e'", "no such process: %d",
				    (int)opts->pids[i]);
		}
	}
	rc.w = rec_writer__create(out, 0600);
	if (!rc.w) {
		err = -errno;
		recorder_release(&rc);
		return fail(&rc, err, "choose another path with -o",
			    "cannot open '%s' for writing: %s", out, strerror(-err));
	}
	err = setup_events(&rc);
	if (!err)
		defer_setup(&rc);
	if (!err) {
		/* Stop signals are held back except while we wait in ppoll. */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_stop_signal;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		sigaddset(&block, SIGHUP);
		sigprocmask(SIG_BLOCK, &block, &old);
		write_meta(&rc);
		err = opts->argv ? start_launch(&rc) : start_attach(&rc);
		if (err) {
			sigprocmask(SIG_SETMASK, &old, NULL);
		}
	}
	/* Started: the new file takes the output's name now, so a recorder
	 * killed from here on leaves a readable file there. Until now an
	 * existing output was untouched. */
	if (!err) {
		err = rec_writer__commit(rc.w);
		if (err) {
			sigprocmask(SIG_SETMASK, &old, NULL);
			if (rc.child) { /* started: it must not run unrecorded */
				kill(rc.child, SIGTERM);
				waitpid(rc.child, NULL, 0);
				rc.child = 0;
			}
			err = fail(&rc, err, "choose another path with -o",
				   "cannot write '%s': %s", out, strerror(-err));
		}
	}
	if (err) {
		/* Nothing was sampled: the new file goes, an old one stays. */
		rec_writer__discard(rc.w);
		recorder_release(&rc);
		return err;
	}
	/* Switch events come at hundreds of thousands a second; with as many
	 * runnable threads as a busy target has, a recorder at the default
	 * priority waits too long for a CPU and the rings overflow (measured
	 * here: a fifth of the events lost at nice 0, none at -10). The
	 * targets were started or exist already, so they keep their own. */
	if (opts->sched)
		setpriority(PRIO_PROCESS, 0, RECORD_SCHED_NICE);
	start = monotonic_ns();
	err = run_loop(&rc, start);
	sum->stopped_by_signal = stop_requested;
	{
		int ferr = finish(&rc, start);

		if (!err)
			err = ferr;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	recorder_release(&rc);
	if (err)
		return fail(&rc, err, err == -ENOSPC ? "free some space or write elsewhere with -o"
			    : NULL, "error writing '%s': %s (the file holds what was written "
			    "before)", out, strerror(-err));
	return 0;
}

int recorder_fail(struct recorder *rc, int err, const char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rc->err->msg, sizeof(rc->err->msg), fmt, ap);
	va_end(ap);
	snprintf(rc->err->hint, sizeof(rc->err->hint), "%s", hint ? hint : "");
	return err;
}
