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
#include "call-graph-auto.h"
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
/* Once a ring overflowed: drain this often, and at RECORD_SCHED_NICE (when
 * allowed), for the rest of the recording; a recorder kept waiting for a
 * CPU by a busy target is what overflows rings (see hurry_on_loss). */
#define TICK_LOSS_MS 20
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
static int list_cpus(struct recorder *rec)
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
				if (GROW(rec->cpus, cap, rec->ncpus + 1)) {
					fclose(f);
					return -ENOMEM;
				}
				rec->cpus[rec->ncpus++] = (int)c;
			}
			if (*p == ',')
				p++;
			else
				break;
		}
	}
	if (f)
		fclose(f);
	if (!rec->ncpus) {
		long n = sysconf(_SC_NPROCESSORS_CONF), c;

		for (c = 0; c < (n > 0 ? n : 1); c++) {
			if (GROW(rec->cpus, cap, rec->ncpus + 1))
				return -ENOMEM;
			rec->cpus[rec->ncpus++] = (int)c;
		}
	}
	return 0;
}

/* Ring sizes, per CPU: a ring holds RING_HOLD_MS of samples at the full
 * rate (every thread on that CPU sampled -F times a second), so that a
 * recorder kept off the CPU that long after its quarter-full wake-up loses
 * nothing; all the rings together take at most RING_MAX_TOTAL. */
#define RING_HOLD_MS 250
#define RING_MAX_TOTAL (512ULL << 20)
#define RING_MAX_PER_CPU (64ULL << 20)

/* The most bytes one sample takes in a ring: header and ids, a full call
 * chain, and with stack copies the registers and the copy. */
static uint64_t sample_bytes(const struct recorder *rec)
{
	uint64_t n = 64 + 8 * (rec->max_stack + 8);

	if (rec->ustack.on)
		n += 8 * (rec->ustack.nregs + 1) + 16 + rec->ustack.stack_size;
	return n;
}

/* Per CPU: -m; else room for RING_HOLD_MS of samples at -F, a power of
 * two, at least the old defaults (1 MiB, 4 MiB with dwarf copies). With
 * dwarf copies of 32 KiB: 4 MiB at 99 Hz, 16 MiB at 999 Hz (4 MiB lost 5%
 * of a CPU-bound target's samples on a busy 2-CPU host), 64 MiB at 4999 Hz;
 * frame pointers: 1 MiB up to ~3000 Hz. Not root: the old defaults, which
 * other users' locked-memory limit (kernel.perf_event_mlock_kb) allows. */
static size_t ring_pages(const struct recorder *rec)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t min = rec->ustack.on && rec->ustack.dwarf ? RECORD_DWARF_RING_PAGES
							: RECORD_DEFAULT_RING_PAGES;
	uint64_t freq = rec->opts->freq ? rec->opts->freq : RECORD_DEFAULT_FREQ;
	uint64_t max = RING_MAX_TOTAL / (rec->ncpus ? rec->ncpus : 1);

	if (rec->opts->ring_pages)
		return rec->opts->ring_pages;
	if (geteuid())
		return min;
	if (max > RING_MAX_PER_CPU)
		max = RING_MAX_PER_CPU;
	return ring__pages_for(freq * sample_bytes(rec), RING_HOLD_MS, page, min,
			       (size_t)(max / page));
}

/* Asks for PERF_FORMAT_LOST when the kernel knows it. */
static void want_lost_counts(struct recorder *rec)
{
	struct perf_event_attr a = rec->ev.attr;
	int fd;

	a.read_format |= PERF_FORMAT_LOST;
	a.disabled = 1;
	a.enable_on_exec = 0;
	fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return;
	close(fd);
	rec->ev.attr.read_format |= PERF_FORMAT_LOST;
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

/* CPU-wide mode: each CPU's sampling event (with the side-band records of
 * every task) and scheduler events. Opened once, before the targets. */
static int open_cpu_events(struct recorder *rec)
{
	struct perf_event_attr a = rec->ev.attr;
	size_t i;
	int fd, err;

	if (rec->rings[0].fd >= 0)
		return 0;
	a.inherit = 0;
	a.enable_on_exec = 0;
	a.disabled = 0;
	for (i = 0; i < rec->ncpus; i++) {
		fd = sys_perf_event_open(&a, -1, rec->cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			return -errno;
		err = recorder_keep_fd(rec, fd, i);
		if (!err && (err = ring__map(&rec->rings[i], fd, ring_pages(rec))))
			rec->rings[i].fd = -1;
		if (!err)
			err = sched_open_cpu(rec, i);
		if (err)
			return err;
	}
	return 0;
}

/* Opens the event on tid for every CPU (CPU-wide mode: only notes the
 * thread as a target). 0, -ESRCH (thread gone), -errno. */
static int open_thread(struct recorder *rec, pid_t tid)
{
	size_t i;

	for (i = 0; i < rec->ncpus && !rec->cpu_wide; i++) {
		int fd = sys_perf_event_open(&rec->ev.attr, tid, rec->cpus[i], -1,
					     PERF_FLAG_FD_CLOEXEC);
		int err;

		if (fd < 0)
			return -errno;
		err = recorder_keep_fd(rec, fd, i);
		if (err)
			return err;
		if (rec->rings[i].fd < 0) {
			err = ring__map(&rec->rings[i], fd, ring_pages(rec));
			if (err) {
				rec->rings[i].fd = -1;
				return err;
			}
		} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, rec->rings[i].fd)) {
			return -errno;
		}
		if (rec->sched.on && (err = sched_open_thread(rec, tid, i)))
			return err;
	}
	if (rec->probes.on) {
		int err = probes_open_thread(rec, tid);

		if (err)
			return err;
	}
	return keymap__set(&rec->opened_tids, (uint64_t)tid, 0, 1);
}

/* CPU-wide mode: records are kept when their task is a target, so a new
 * target must be known before its first record is decoded; but its FORK
 * can sit in another CPU's ring than its first records. So: note where
 * every ring ends, learn from the FORK records in all CPU rings, then
 * decode up to the noted ends: each record decoded then was written before
 * the FORK records were looked at. */
static void drain_cpu_wide(struct recorder *rec)
{
	uint64_t *cpu_heads = rec->heads, *sched_heads_ = rec->heads + rec->ncpus; /* 2 * ncpus */
	size_t i;

	for (i = 0; i < rec->ncpus; i++)
		cpu_heads[i] = rec->rings[i].fd >= 0 ? ring__head(&rec->rings[i]) : 0;
	sched_heads(rec, sched_heads_);
	for (i = 0; i < rec->ncpus; i++)
		if (rec->rings[i].fd >= 0)
			ring__peek(&rec->rings[i], rec->scratch, recorder_learn_fork, rec);
	for (i = 0; i < rec->ncpus; i++)
		if (rec->rings[i].fd >= 0 &&
		    ring__drain_to(&rec->rings[i], cpu_heads[i], rec->scratch,
				   recorder_handle_record, rec) < 0)
			rec->bad_ring = 1;
	ustack_process(rec);
	sched_drain(rec, sched_heads_);
}

static void drain_all(struct recorder *rec)
{
	size_t i;

	if (rec->defer.on) { /* copies only: processed at the end (defer.c) */
		for (i = 0; i < rec->ncpus; i++)
			if (rec->rings[i].fd >= 0 &&
			    ring__drain(&rec->rings[i], rec->scratch, defer_keep, rec) < 0)
				rec->bad_ring = 1;
		return;
	}
	if (rec->cpu_wide) {
		drain_cpu_wide(rec);
		probes_drain(rec);
		return;
	}
	for (i = 0; i < rec->ncpus; i++)
		if (rec->rings[i].fd >= 0 &&
		    ring__drain(&rec->rings[i], rec->scratch, recorder_handle_record, rec) < 0)
			rec->bad_ring = 1;
	ustack_process(rec);
	sched_drain(rec, NULL);
	probes_drain(rec);
}

static void synth_map(void *ctx, const struct proc_map *m)
{
	struct recorder *rec = ((void **)ctx)[0];
	pid_t pid = *(pid_t *)((void **)ctx)[1];

	recorder_add_mapping(rec, monotonic_ns(), (uint32_t)pid, m->start, m->end, m->pgoff,
			     m->path);
}

/* Attach: open every thread of pid, then look again for threads created
 * meanwhile that did not inherit our events (made by a thread we had not
 * opened yet). Returns 0, or -ESRCH when the process vanished first. */
static int attach_process(struct recorder *rec, pid_t pid)
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

			if (keymap__get(&rec->opened_tids, (uint64_t)tids[i], 0, &dummy) ||
			    keymap__get(&rec->forked_tids, (uint64_t)tids[i], 0, &dummy))
				continue;
			err = open_thread(rec, tids[i]);
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
		drain_all(rec); /* learn which new threads inherited events */
	}
	if (!opened)
		return -ESRCH;
	return err == -ESRCH ? 0 : err;
}

/* Writes what /proc says of pid's threads and mappings, as of `now` (when
 * attaching began: the threads existed then, as far as we can tell). */
static void synth_process(struct recorder *rec, pid_t pid, uint64_t now)
{
	pid_t *tids;
	size_t n, i;
	void *ctx[2] = {rec, &pid};

	if (proc_list_tids(pid, &tids, &n))
		return;
	for (i = 0; i < n; i++) {
		char name[64];

		if (proc_thread_name(pid, tids[i], name, sizeof(name)))
			continue;
		recorder_thread_start(rec, now, (uint32_t)pid, (uint32_t)tids[i], name);
		sched_init_state(rec, now, pid, tids[i]);
	}
	free(tids);
	proc_each_exec_map(pid, synth_map, ctx);
	sched_snapshot_process(rec, pid, now); /* needs the mappings */
}

static void write_meta(struct recorder *rec)
{
	struct utsname u;
	char buf[256], host[256];
	time_t now = time(NULL);
	struct tm tm;

	rec_writer__meta(rec->w, "prof-version", "0.1.0");
	if (!uname(&u)) {
		rec_writer__meta(rec->w, "kernel", u.release);
		rec_writer__meta(rec->w, "arch", u.machine);
	}
	if (!gethostname(host, sizeof(host))) {
		host[sizeof(host) - 1] = '\0';
		rec_writer__meta(rec->w, "hostname", host);
	}
	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	rec_writer__meta(rec->w, "start-time", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)monotonic_ns());
	rec_writer__meta(rec->w, "start-monotonic-ns", buf);
	rec_writer__meta(rec->w, "clock", "CLOCK_MONOTONIC");
	if (rec->opts->cmdline)
		rec_writer__meta(rec->w, "cmdline", rec->opts->cmdline);
	snprintf(buf, sizeof(buf), "%zu", rec->ncpus);
	rec_writer__meta(rec->w, "cpus", buf);
	rec_writer__meta(rec->w, "event", rec->ev.name);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)rec->ev.attr.sample_freq);
	rec_writer__meta(rec->w, "frequency", buf);
	if (rec->ustack.on && rec->ustack.dwarf) {
		rec_writer__meta(rec->w, "call-graph", "dwarf");
		snprintf(buf, sizeof(buf), "%u", rec->ustack.stack_size);
		rec_writer__meta(rec->w, "stack-size", buf);
	} else {
		rec_writer__meta(rec->w, "call-graph", "fp");
		rec_writer__meta(rec->w, "leaf-fix", !rec->ustack.on     ? "no"
						    : rec->ustack.callsite ? "callsite"
									  : "stack");
	}
	if (rec->sched.on && rec->sched.attr[SCHED_EV_STACK].size)
		rec_writer__meta(rec->w, "sched-call-graph",
				 rec->sched.attr[SCHED_EV_STACK].sample_type & PERF_SAMPLE_STACK_USER
				     ? "dwarf" : "fp");
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)rec->max_stack);
	rec_writer__meta(rec->w, "max-stack", buf);
	if (rec->opts->no_symbolize)
		rec_writer__meta(rec->w, "symbolize", "no");
	rec_writer__meta(rec->w, "kernel-stacks", rec->ev.user_only ? "no" : "yes");
	rec_writer__meta(rec->w, "sched", rec->sched.on ? "yes" : "no");
	rec_writer__meta(rec->w, "scope", rec->cpu_wide ? "cpu-wide" : "per-thread");
}

/* --sched: goes CPU-wide (see recorder.h) when the kernel lets us open a
 * CPU-wide sampling event and scheduler events; else stays per thread. */
static void try_cpu_wide(struct recorder *rec)
{
	struct perf_event_attr a = rec->ev.attr;
	int fd;

	a.inherit = 0;
	a.enable_on_exec = 0;
	a.disabled = 1;
	fd = sys_perf_event_open(&a, -1, rec->cpus[0], -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return;
	close(fd);
	rec->heads = calloc(3 * rec->ncpus, sizeof(*rec->heads));
	if (rec->heads && !sched_try_cpu_wide(rec))
		rec->cpu_wide = 1;
}

/* -e without cpu-clock (or --alloc, --malloc alone): probe hits only. */
static int probes_only(const struct recorder *rec)
{
	const struct record_opts *o = rec->opts;
	size_t i;

	if (!o->nevents && !o->alloc && !o->malloc)
		return 0;
	for (i = 0; i < o->nevents; i++)
		if (!probe_spec_is_probe(o->events[i]))
			return 0;
	return 1;
}

static int setup_events(struct recorder *rec)
{
	uint64_t freq = rec->opts->freq ? rec->opts->freq : RECORD_DEFAULT_FREQ;
	uint64_t max_rate = read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate", 100000);
	struct rec_event_desc desc;
	uint32_t id;
	size_t i;
	int err;

	if (freq > max_rate)
		return prof_error_set(rec->err, -EINVAL,
				      "lower -F, or raise kernel.perf_event_max_sample_rate",
				      "-F %llu is above the kernel's limit of %llu Hz",
				      (unsigned long long)freq, (unsigned long long)max_rate);
	err = event_choice__probe(&rec->ev, freq, rec->opts->argv != NULL);
	if (err == -EACCES || err == -EPERM)
		return prof_error_set(rec->err, err, permission_hint(),
				      "not allowed to use perf events: %s", strerror(-err));
	if (err == -ENOENT || err == -ENOSYS)
		return prof_error_set(rec->err, err,
				      "this kernel lacks perf events (CONFIG_PERF_EVENTS)",
				      "cannot open a sampling event: %s", strerror(-err));
	if (err)
		return prof_error_set(rec->err, err, NULL, "cannot open a sampling event: %s",
				      strerror(-err));
	if (!rec->opts->quiet) {
		if (rec->ev.fell_back && !probes_only(rec))
			fprintf(stderr, "prof record: no hardware cycle counter here: sampling cpu-clock\n");
		if (rec->ev.user_only)
			fprintf(stderr, "prof record: kernel sampling not allowed (%s, "
				"perf_event_paranoid=%ld): recording user stacks only\n",
				strerror(rec->ev.kernel_error), read_paranoid());
	}
	err = ustack_setup(rec);
	if (err)
		return err;
	want_lost_counts(rec);
	err = list_cpus(rec);
	if (err)
		return prof_error_set(rec->err, err, NULL, "out of memory");
	/* Wake us when a ring is a quarter full, on top of the tick. */
	rec->ev.attr.wakeup_watermark = (uint32_t)(ring_pages(rec) * (size_t)sysconf(_SC_PAGESIZE) / 4);
	rec->rings = calloc(rec->ncpus, sizeof(*rec->rings));
	if (!rec->rings)
		return prof_error_set(rec->err, -ENOMEM, NULL, "out of memory");
	for (i = 0; i < rec->ncpus; i++)
		rec->rings[i].fd = -1;
	if (probes_only(rec)) {
		/* The side-band records (names, mappings, threads) still come
		 * from an event on every thread: one that never samples. */
		rec->ev.attr.type = PERF_TYPE_SOFTWARE;
		rec->ev.attr.config = PERF_COUNT_SW_DUMMY;
		rec->ev.name = "none";
	} else {
		memset(&desc, 0, sizeof(desc));
		rec_writer__string(rec->w, rec->ev.name, strlen(rec->ev.name), &desc.name);
		desc.type = rec->ev.attr.type;
		desc.config = rec->ev.attr.config;
		desc.freq = freq;
		err = rec_writer__event(rec->w, &desc, &id);
		if (err)
			return prof_error_set(rec->err, err, NULL, "out of memory");
	}
	err = probes_setup(rec);
	if (err)
		return err;
	if (!rec->opts->sched)
		return 0;
	err = sched_setup(rec);
	if (!err && !rec->opts->sched_per_thread)
		try_cpu_wide(rec);
	return err;
}

static int open_pidfd(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static int start_attach(struct recorder *rec)
{
	size_t i;
	int err;

	for (i = 0; i < rec->opts->npids; i++) {
		/* -p may name a thread: its whole process is the target. */
		pid_t pid = proc_tgid(rec->opts->pids[i]);
		uint64_t t0 = monotonic_ns();

		err = keymap__set(&rec->target_pids, (uint64_t)pid, 0, 1);
		if (!err && rec->cpu_wide)
			err = open_cpu_events(rec);
		if (!err)
			err = attach_process(rec, pid);
		if (err == -ESRCH)
			return prof_error_set(rec->err, err, NULL,
					      "process %d exited before sampling started",
					      (int)pid);
		if (err == -EACCES || err == -EPERM)
			return prof_error_set(rec->err, err, permission_hint(),
					      "cannot profile process %d: %s", (int)pid,
					      strerror(-err));
		if (err == -EMFILE || err == -ENFILE)
			return prof_error_set(
			    rec->err, err, "raise the open file limit ('ulimit -n')",
			    "too many threads to open events on: %s", strerror(-err));
		if (err)
			return prof_error_set(rec->err, err, NULL, "cannot profile process %d: %s",
					      (int)pid, strerror(-err));
		rec->targets[i].pid = pid;
		rec->targets[i].pidfd = open_pidfd(pid);
		synth_process(rec, pid, t0);
	}
	return 0;
}

static int start_launch(struct recorder *rec)
{
	char *const *argv = rec->opts->argv;
	const char *base = strrchr(argv[0], '/');
	int go_fd, err_fd, err;
	pid_t pid;

	err = launch_prepare(argv, &pid, &go_fd, &err_fd);
	if (err)
		return prof_error_set(rec->err, err, NULL, "cannot start '%s': %s", argv[0],
				      strerror(-err));
	rec->child = pid;
	err = keymap__set(&rec->target_pids, (uint64_t)pid, 0, 1);
	if (!err && rec->cpu_wide)
		err = open_cpu_events(rec);
	if (!err)
		err = open_thread(rec, pid);
	if (err) {
		close(go_fd); /* the child exits without running the command */
		close(err_fd);
		waitpid(pid, NULL, 0);
		rec->child = 0;
		if (err == -EACCES || err == -EPERM)
			return prof_error_set(rec->err, err, permission_hint(),
					      "cannot profile '%s': %s", argv[0], strerror(-err));
		return prof_error_set(rec->err, err, NULL, "cannot profile '%s': %s", argv[0],
				      strerror(-err));
	}
	rec->targets[0].pid = pid;
	rec->targets[0].pidfd = open_pidfd(pid);
	recorder_thread_start(rec, monotonic_ns(), (uint32_t)pid, (uint32_t)pid,
			      base ? base + 1 : argv[0]);
	if (rec->sched.on) { /* it runs as soon as it is let go */
		rec_writer__sched(rec->w, monotonic_ns(), (uint32_t)pid, 0, 0, REC_SCHED_INIT,
				  REC_STATE_RUNNING);
		sched_refilter(rec); /* its switch-outs have stacks from the start */
	}
	err = launch_go(go_fd, err_fd);
	if (err) {
		waitpid(pid, NULL, 0);
		rec->child = 0;
		return prof_error_set(
		    rec->err, err, err == -ENOENT ? "check the command name and your PATH" : NULL,
		    "cannot run '%s': %s", argv[0], strerror(-err));
	}
	return 0;
}

/* Has every target exited? Reaps the launched command. */
static int targets_done(struct recorder *rec, const struct pollfd *pfds, size_t first)
{
	size_t i, live = 0;

	for (i = 0; i < rec->ntargets; i++) {
		struct target *t = &rec->targets[i];

		if (t->exited)
			continue;
		if (t->pidfd >= 0 ? (pfds[first + i].revents & (POLLIN | POLLHUP)) != 0
				  : kill(t->pid, 0) && errno == ESRCH)
			t->exited = 1;
		if (t->pid == rec->child && rec->child) {
			int status;

			if (waitpid(rec->child, &status, WNOHANG) == rec->child) {
				t->exited = 1;
				rec->sum->target_status = WIFEXITED(status) ? WEXITSTATUS(status)
									  : 128 + WTERMSIG(status);
				rec->child = 0;
			}
		}
		if (!t->exited)
			live++;
	}
	return live == 0;
}

/* After a drain: when records were lost since the last call (*seen holds
 * the count then), drain every TICK_LOSS_MS from now on and raise the
 * recorder's priority as --sched does. Returns the tick to use. */
static long hurry_on_loss(struct recorder *rec, uint64_t *seen, long tick_ms)
{
	uint64_t lost = rec->sum->lost + rec->sum->sched_lost + rec->sum->sched_stacks_lost;

	if (lost <= *seen)
		return tick_ms;
	*seen = lost;
	if (tick_ms > TICK_LOSS_MS && getpriority(PRIO_PROCESS, 0) > RECORD_SCHED_NICE)
		setpriority(PRIO_PROCESS, 0, RECORD_SCHED_NICE);
	return TICK_LOSS_MS;
}

static int run_loop(struct recorder *rec, uint64_t start)
{
	uint64_t seen_lost = 0;
	long tick_ms = TICK_MS;
	struct pollfd *pfds = NULL;
	size_t cap = 0, i;
	uint64_t last_flush = start;
	sigset_t unblocked;

	sigemptyset(&unblocked);
	while (!stop_requested && !rec->write_err) {
		size_t n = 0, first_target;
		uint64_t now = monotonic_ns();
		long timeout_ms = tick_ms;
		struct timespec ts;

		if (rec->opts->duration_ns) {
			uint64_t end = start + rec->opts->duration_ns;

			if (now >= end)
				break;
			if ((end - now) / 1000000 < (uint64_t)timeout_ms)
				timeout_ms = (long)((end - now) / 1000000) + 1;
		}
		/* Wake for the next probe window to open or close. */
		{
			long w = probes_tick(rec, now);

			if (w >= 0 && w < timeout_ms)
				timeout_ms = w;
		}
		/* Wake soon while new threads are still joining the stack filter. */
		{
			long w = sched_tick_ms(rec, now);

			if (w >= 0 && w < timeout_ms)
				timeout_ms = w;
		}
		/* Wake when the caller's tick wants to run (prof top). */
		if (rec->opts->tick) {
			long w = rec->opts->tick(rec->opts->tick_ctx, now);

			if (w >= 0 && w < timeout_ms)
				timeout_ms = w;
		}
		{ /* JIT maps asked for while recording */
			long w = jit_snapshots_tick(rec, now);

			if (w >= 0 && w < timeout_ms)
				timeout_ms = w;
		}
		/* Wake for the next flush, so the file lags by at most FLUSH_NS. */
		if (last_flush + FLUSH_NS > now &&
		    (last_flush + FLUSH_NS - now) / 1000000 < (uint64_t)timeout_ms)
			timeout_ms = (long)((last_flush + FLUSH_NS - now) / 1000000) + 1;
		if (GROW(pfds, cap, rec->nfds + rec->ntargets + 1)) {
			free(pfds);
			return -ENOMEM;
		}
		for (i = 0; i < rec->nfds; i++)
			if (!rec->fds[i].hung_up)
				pfds[n++] = (struct pollfd){.fd = rec->fds[i].fd, .events = POLLIN};
		first_target = n;
		for (i = 0; i < rec->ntargets; i++)
			pfds[n++] = (struct pollfd){.fd = rec->targets[i].exited ? -1 :
					rec->targets[i].pidfd, .events = POLLIN};
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (timeout_ms % 1000) * 1000000L;
		/* Signals are blocked except inside ppoll: no lost wake-ups. */
		if (ppoll(pfds, n, &ts, &unblocked) < 0 && errno != EINTR) {
			free(pfds);
			return -errno;
		}
		drain_all(rec);
		tick_ms = hurry_on_loss(rec, &seen_lost, tick_ms);
		recorder_resolve_pending(rec, 0);
		/* A thread that exited leaves its fd readable forever (POLLHUP):
		 * stop polling it, or we would spin like perf record -p does. */
		for (i = 0, n = 0; i < rec->nfds; i++) {
			if (rec->fds[i].hung_up)
				continue;
			if (pfds[n++].revents & (POLLHUP | POLLERR))
				rec->fds[i].hung_up = 1;
		}
		if (targets_done(rec, pfds, first_target))
			break;
		if (monotonic_ns() - last_flush >= FLUSH_NS) {
			rec->write_err = defer_flush(rec);
			if (!rec->write_err)
				rec->write_err = rec_writer__flush(rec->w);
			recorder_resolve_pending(rec, 1);
			last_flush = monotonic_ns();
		}
	}
	free(pfds);
	return 0;
}

/* The kernel reports samples it had no room for with a LOST record, but
 * writes that only with the next sample that finds room: those lost in
 * the last moments, or while a stopped recorder caught up just before the
 * end, would go unreported. So each sampling event also counts its own
 * (PERF_FORMAT_LOST, Linux 6.0), read at the end: the larger of the two
 * sums is the loss (an inherited event's children keep their counts to
 * themselves, so the records stay the measure for threads created while
 * recording). */
static void count_unreported_loss(struct recorder *rec)
{
	uint64_t lost = 0, v[2];
	size_t i;

	if (!(rec->ev.attr.read_format & PERF_FORMAT_LOST))
		return;
	for (i = 0; i < rec->nfds; i++) /* 16 bytes: a sampling event's */
		if (read(rec->fds[i].fd, v, sizeof(v)) == (ssize_t)sizeof(v))
			lost += v[1];
	if (lost > rec->sum->lost)
		rec->sum->lost = lost;
}

static void stop_events(struct recorder *rec)
{
	size_t i;

	probes_close_all(rec); /* closing the probes removes their breakpoints */
	probes_wait_closed();
	for (i = 0; i < rec->nfds; i++)
		ioctl(rec->fds[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	drain_all(rec);
	count_unreported_loss(rec);
	for (i = 0; i < rec->ncpus; i++)
		ring__unmap(&rec->rings[i]);
	for (i = 0; rec->sched.rings && i < rec->ncpus; i++)
		ring__unmap(&rec->sched.rings[i]);
	for (i = 0; rec->sched.stack_rings && i < rec->ncpus; i++)
		ring__unmap(&rec->sched.stack_rings[i]);
	for (i = 0; i < rec->nfds; i++)
		close(rec->fds[i].fd);
	rec->nfds = 0;
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int finish(struct recorder *rec, uint64_t start)
{
	struct symbolize_stats ss = {0};
	uint64_t t0 = monotonic_ns(), defer_ns = 0, jvm_ns;
	int err = 0, deferred = rec->defer.limit != 0; /* set up to defer */

	/* The samples so far become stacks: the JVM step needs the mappings,
	 * and what comes after is processed as it comes. The stat
	 * deferred-processing-ns is written only for a deferred recording. */
	if (!rec->write_err)
		rec->write_err = defer_process(rec);
	if (deferred)
		defer_ns = monotonic_ns() - t0;
	jvm_ns = monotonic_ns();
	recorder_jvm_step(rec); /* while the JVMs still run */
	jvm_ns = monotonic_ns() - jvm_ns; /* not sampled: not in the duration */
	if (rec->child) {
		/* Duration reached or we were told to stop: end the command
		 * as perf does, so it does not outlive an interrupted recording. */
		int status;

		kill(rec->child, SIGTERM);
		if (waitpid(rec->child, &status, 0) == rec->child)
			rec->sum->target_status = WIFEXITED(status) ? WEXITSTATUS(status)
								  : 128 + WTERMSIG(status);
		rec->child = 0;
	}
	stop_events(rec);
	recorder_resolve_pending(rec, 0);
	sched_finish(rec);
	rec->sum->duration_ns = monotonic_ns() - start - defer_ns - jvm_ns;
	rec->sum->defer_ns = defer_ns;
	if (!rec->write_err)
		rec->write_err = rec_writer__flush(rec->w);
	if (!rec->opts->no_symbolize && !rec->write_err) {
		struct symbolize_opts so = {0};

		ustack_symbolize_opts(rec, &so); /* leaves so as it is when no JVM */
		so.jit_timeline = rec->jit.timeline;
		err = symbolize_recording(rec->w, &so, &ss);
		if (err)
			rec->write_err = err;
		if (ss.kernel_hidden && !rec->opts->quiet)
			fprintf(stderr, "prof record: kernel symbols are hidden (kernel.kptr_restrict): "
				"kernel frames keep raw addresses\n");
		if (ss.notice[0] && !rec->opts->quiet) {
			/* It quotes paths and names a target's owner chose. */
			fputs("prof record: ", stderr);
			text_put(stderr, ss.notice);
			fputc('\n', stderr);
		}
	} else if (!rec->write_err) {
		/* Build-ids only, so 'prof symbolize -i' can tell a changed binary. */
		rec->write_err = symbolize_build_ids(rec->w, NULL);
	}
	recorder_write_stats(rec, rec->opts->no_symbolize ? NULL : &ss);
	rec_writer__meta(rec->w, "symbolized", rec->opts->no_symbolize ? "no" : "yes");
	err = rec->write_err;
	rec->sum->bytes = rec_writer__size(rec->w);
	{
		int cerr = rec_writer__close(rec->w);

		if (!err)
			err = cerr;
	}
	rec->w = NULL;
	return err;
}

/* --call-graph auto's one line: which mode and why. The path is the
 * target's: shown cleaned, as other notices. */
static void print_auto_notice(const struct recorder *rec, const struct cg_auto *cg,
			      const char *why, const char *libc_why)
{
	fputs("prof record: ", stderr);
	text_put(stderr, why);
	if (cg->dwarf)
		fprintf(stderr, ": DWARF stacks (--call-graph dwarf,%u; --call-graph fp to "
			"override)\n", RECORD_DEFAULT_STACK_SIZE);
	else
		fputs(": frame-pointer stacks (--call-graph dwarf to override)\n", stderr);
	if (!rec->ustack.sw.on)
		return;
	fputs("prof record: ", stderr);
	text_put(stderr, libc_why);
	fputs(": its lock and I/O waits would end the off-CPU stacks there: DWARF switch-out "
	      "stacks\n", stderr);
}

int record_run(const struct record_opts *opts, struct record_summary *sum,
	       struct prof_error *errp)
{
	struct recorder rec;
	const char *out = opts->output ? opts->output : RECORD_DEFAULT_OUTPUT;
	struct record_opts chosen;
	struct cg_auto cg;
	char why[1200] = "", libc_why[1200] = "";
	struct sigaction sa;
	sigset_t block, old;
	uint64_t start;
	int err;

	if (opts->call_graph == RECORD_CALL_GRAPH_AUTO) {
		call_graph_auto(opts, &cg);
		call_graph_auto_why(&cg, why, sizeof(why));
		chosen = *opts;
		chosen.call_graph = cg.dwarf ? RECORD_CALL_GRAPH_DWARF : RECORD_CALL_GRAPH_FP;
		if (!cg.dwarf && opts->sched && opts->sched_stacks != RECORD_SCHED_STACKS_NONE) {
			call_graph_auto_libc(opts, &cg);
			call_graph_auto_libc_why(&cg, libc_why, sizeof(libc_why));
			chosen.sched_dwarf = cg.libc_dwarf;
		}
		opts = &chosen;
	}
	err = recorder_init(&rec, opts, sum, errp);
	stop_requested = 0;
	rec.max_stack = read_sysctl("/proc/sys/kernel/perf_event_max_stack", 127);
	rec.ntargets = opts->argv ? 1 : opts->npids;
	rec.targets = calloc(rec.ntargets ? rec.ntargets : 1, sizeof(*rec.targets));
	rec.scratch = malloc(RING_SCRATCH_SIZE);
	if (err || !rec.targets || !rec.scratch) {
		recorder_release(&rec);
		return prof_error_set(rec.err, -ENOMEM, NULL, "out of memory");
	}
	for (size_t i = 0; i < rec.ntargets; i++)
		rec.targets[i].pidfd = -1;
	raise_fd_limit();

	for (size_t i = 0; i < opts->npids; i++) {
		if (kill(opts->pids[i], 0) && errno == ESRCH) {
			recorder_release(&rec);
			return prof_error_set(rec.err, -ESRCH, "check the PID with 'ps -e'",
					      "no such process: %d", (int)opts->pids[i]);
		}
	}
	rec.w = rec_writer__create(out, 0600);
	if (!rec.w) {
		err = -errno;
		recorder_release(&rec);
		return prof_error_set(rec.err, err, "choose another path with -o",
				      "cannot open '%s' for writing: %s", out, strerror(-err));
	}
	err = setup_events(&rec);
	if (!err)
		defer_setup(&rec);
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
		write_meta(&rec);
		if (why[0])
			rec_writer__meta(rec.w, "call-graph-auto", why);
		if (libc_why[0])
			rec_writer__meta(rec.w, "sched-call-graph-auto", libc_why);
		err = opts->argv ? start_launch(&rec) : start_attach(&rec);
		if (err) {
			sigprocmask(SIG_SETMASK, &old, NULL);
		}
	}
	/* Once it records: a refused recording says only what went wrong. */
	if (!err && why[0] && !opts->quiet)
		print_auto_notice(&rec, &cg, why, libc_why);
	/* Started: the new file takes the output's name now, so a recorder
	 * killed from here on leaves a readable file there. Until now an
	 * existing output was untouched. */
	if (!err) {
		err = rec_writer__commit(rec.w);
		if (err) {
			sigprocmask(SIG_SETMASK, &old, NULL);
			if (rec.child) { /* started: it must not run unrecorded */
				kill(rec.child, SIGTERM);
				waitpid(rec.child, NULL, 0);
				rec.child = 0;
			}
			err = prof_error_set(rec.err, err, "choose another path with -o",
					     "cannot write '%s': %s", out, strerror(-err));
		}
	}
	if (err) {
		/* Nothing was sampled: the new file goes, an old one stays. */
		if (rec.nfds) /* closed before the file goes: they drain into it */
			stop_events(&rec);
		rec_writer__discard(rec.w);
		recorder_release(&rec);
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
	err = run_loop(&rec, start);
	sum->stopped_by_signal = stop_requested;
	{
		int ferr = finish(&rec, start);

		if (!err)
			err = ferr;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	recorder_release(&rec); /* finish() closed the events */
	if (err)
		return prof_error_set(rec.err, err,
				      err == -ENOSPC ? "free some space or write elsewhere with -o"
						     : NULL,
				      "error writing '%s': %s (the file holds what was written "
				      "before)",
				      out, strerror(-err));
	return 0;
}
