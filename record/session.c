/* session.c: one recording from start to finish: check the targets, set
 * up the engines (the event sources, engine.h) and open their events on
 * every target thread (or CPU), wait and drain them, stop on duration /
 * target exit / signal / the caller's hooks, then let them settle and
 * finish, symbolize and close the file. Every way out after the file is
 * created leaves it complete. */
#include "engine.h"

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

/* CPU-wide mode: every engine's events on every CPU, opened once, before
 * the targets. */
static int open_cpu_events(struct recorder *rec)
{
	size_t i, k;
	int err;

	if (rec->cpus_opened)
		return 0;
	rec->cpus_opened = 1;
	for (i = 0; i < rec->ncpus; i++)
		for_each_engine(rec, k, open_cpu)
			if ((err = rec_engines[k]->open_cpu(rec, i)))
				return err;
	return 0;
}

/* Opens every engine's events on tid (CPU-wide mode: only notes the thread
 * as a target). 0, -ESRCH (thread gone), -errno. */
static int open_thread(struct recorder *rec, pid_t tid)
{
	size_t k;
	int err;

	for_each_engine(rec, k, open_thread)
		if ((err = rec_engines[k]->open_thread(rec, tid)))
			return err;
	return keymap__set(&rec->opened_tids, (uint64_t)tid, 0, 1);
}

/* Every engine marks how far its rings go, then every engine drains (the
 * order CPU-wide mode needs: engine-cpu.c). */
static void drain_all(struct recorder *rec)
{
	size_t k;

	for_each_engine(rec, k, mark)
		rec_engines[k]->mark(rec);
	for_each_engine(rec, k, drain)
		rec_engines[k]->drain(rec);
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
	size_t n, i, k;
	void *ctx[2] = {rec, &pid};

	if (proc_list_tids(pid, &tids, &n))
		return;
	for (i = 0; i < n; i++) {
		char name[64];

		if (proc_thread_name(pid, tids[i], name, sizeof(name)))
			continue;
		recorder_thread_start(rec, now, (uint32_t)pid, (uint32_t)tids[i], name);
		for_each_engine(rec, k, found_thread)
			rec_engines[k]->found_thread(rec, now, pid, tids[i]);
	}
	free(tids);
	proc_each_exec_map(pid, synth_map, ctx);
	for_each_engine(rec, k, found_process) /* after the mappings */
		rec_engines[k]->found_process(rec, pid, now);
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
	{ /* the same moment on both clocks, to the ns: --since 03:14:05.5 */
		struct timespec wall;
		uint64_t mono = monotonic_ns();

		clock_gettime(CLOCK_REALTIME, &wall);
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)mono);
		rec_writer__meta(rec->w, "start-monotonic-ns", buf);
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)wall.tv_sec * 1000000000ULL +
			 (unsigned long long)wall.tv_nsec);
		rec_writer__meta(rec->w, "start-time-ns", buf);
	}
	if (rec->opts->window_until_ns) { /* --rotate: this file's period */
		snprintf(buf, sizeof(buf), "%llu %llu",
			 (unsigned long long)rec->opts->window_since_ns,
			 (unsigned long long)rec->opts->window_until_ns);
		rec_writer__meta(rec->w, "rotate-window-ns", buf);
	}
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

/* Lists the CPUs, then sets up each engine the options want, in table
 * order (an engine whose setup was begun is on: the end releases it). */
static int setup_engines(struct recorder *rec)
{
	int err = list_cpus(rec);

	if (err)
		return prof_error_set(rec->err, err, NULL, "out of memory");
	for (size_t k = 0; k < rec_nengines; k++) {
		const struct rec_engine *e = rec_engines[k];

		if (e->wanted && !e->wanted(rec))
			continue;
		rec->engines |= 1u << k;
		if (e->setup && (err = e->setup(rec)))
			return err;
	}
	return 0;
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
			return prof_error_set(rec->err, err, perf_permission_hint(),
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
	size_t k;
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
			return prof_error_set(rec->err, err, perf_permission_hint(),
					      "cannot profile '%s': %s", argv[0], strerror(-err));
		return prof_error_set(rec->err, err, NULL, "cannot profile '%s': %s", argv[0],
				      strerror(-err));
	}
	rec->targets[0].pid = pid;
	rec->targets[0].pidfd = open_pidfd(pid);
	recorder_thread_start(rec, monotonic_ns(), (uint32_t)pid, (uint32_t)pid,
			      base ? base + 1 : argv[0]);
	for_each_engine(rec, k, launched)
		rec_engines[k]->launched(rec, pid, monotonic_ns());
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
	uint64_t lost = 0;
	size_t k;

	for_each_engine(rec, k, lost)
		lost += rec_engines[k]->lost(rec);
	if (lost <= *seen)
		return tick_ms;
	*seen = lost;
	if (tick_ms > TICK_LOSS_MS && getpriority(PRIO_PROCESS, 0) > RECORD_SCHED_NICE)
		setpriority(PRIO_PROCESS, 0, RECORD_SCHED_NICE);
	return TICK_LOSS_MS;
}

/* The caller's tick (record_run_hooks): nonzero stops the run. */
static int call_tick(struct recorder *rec, const struct record_hooks *hooks, uint64_t start)
{
	struct record_tick t = {.start_ns = start, .now_ns = monotonic_ns(), .sum = rec->sum};

	return hooks && hooks->tick && hooks->tick(hooks->ctx, &t);
}

static int run_loop(struct recorder *rec, uint64_t start, const struct record_hooks *hooks)
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

		if (hooks && hooks->stop && hooks->stop(hooks->ctx))
			break;
		if (hooks && hooks->interval_ms && hooks->interval_ms < (uint32_t)timeout_ms)
			timeout_ms = (long)hooks->interval_ms;
		if (rec->opts->duration_ns) {
			uint64_t end = start + rec->opts->duration_ns;

			if (now >= end)
				break;
			if ((end - now) / 1000000 < (uint64_t)timeout_ms)
				timeout_ms = (long)((end - now) / 1000000) + 1;
		}
		/* Wake when an engine asks: a probe window to open or close, new
		 * threads still joining the switch stacks' filter. */
		for_each_engine(rec, i, tick_ms) {
			long w = rec_engines[i]->tick_ms(rec, now);

			if (w >= 0 && w < timeout_ms)
				timeout_ms = w;
		}
		/* Wake when the caller wants to run (prof top). */
		if (hooks && hooks->next_ms) {
			long w = hooks->next_ms(hooks->ctx, now);

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
		if (hooks && hooks->forget_stacks && hooks->forget_stacks(hooks->ctx))
			recorder_forget_stacks(rec);
		/* A thread that exited leaves its fd readable forever (POLLHUP):
		 * stop polling it, or we would spin like perf record -p does. */
		for (i = 0, n = 0; i < rec->nfds; i++) {
			if (rec->fds[i].hung_up)
				continue;
			if (pfds[n++].revents & (POLLHUP | POLLERR))
				rec->fds[i].hung_up = 1;
		}
		if (targets_done(rec, pfds, first_target) || call_tick(rec, hooks, start))
			break;
		if (monotonic_ns() - last_flush >= FLUSH_NS) {
			for_each_engine(rec, i, flush)
				if (!rec->write_err)
					rec->write_err = rec_engines[i]->flush(rec);
			if (!rec->write_err)
				rec->write_err = rec_writer__flush(rec->w);
			recorder_resolve_pending(rec, 1);
			last_flush = monotonic_ns();
		}
	}
	free(pfds);
	return 0;
}

/* Stops every engine: its own last steps (probes removed), every event
 * disabled, a last drain, its final counts read and rings unmapped, then
 * every fd closed. */
static void stop_events(struct recorder *rec)
{
	size_t i, k;

	for_each_engine(rec, k, stop)
		rec_engines[k]->stop(rec);
	for (i = 0; i < rec->nfds; i++)
		ioctl(rec->fds[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	drain_all(rec);
	for_each_engine(rec, k, close)
		rec_engines[k]->close(rec);
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
	size_t k;

	/* The samples so far become stacks: the JVM step needs the mappings,
	 * and what comes after is processed as it comes. The stat
	 * deferred-processing-ns is written only for a deferred recording. */
	for_each_engine(rec, k, settle)
		if (!rec->write_err)
			rec->write_err = rec_engines[k]->settle(rec);
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
	for_each_engine(rec, k, finish)
		rec_engines[k]->finish(rec);
	rec->sum->duration_ns = monotonic_ns() - start - defer_ns - jvm_ns;
	rec->sum->defer_ns = defer_ns;
	if (!rec->write_err)
		rec->write_err = rec_writer__flush(rec->w);
	if (rec->opts->ring_ns) {
		/* --ring: the writer held everything for the saves, each
		 * symbolized on its own (flight-save.c) */
	} else if (!rec->opts->no_symbolize && !rec->write_err) {
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
	return record_run_hooks(opts, NULL, sum, errp);
}

int record_run_hooks(const struct record_opts *opts, const struct record_hooks *hooks,
		     struct record_summary *sum, struct prof_error *errp)
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
	rec.max_stack = perf_read_sysctl("/proc/sys/kernel/perf_event_max_stack", 127);
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
	err = setup_engines(&rec);
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
	err = run_loop(&rec, start, hooks);
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
