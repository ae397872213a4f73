/* sched-events.c: `prof record --sched`: finds the scheduler tracepoints in
 * tracefs and opens the events that report context switches and wake-ups
 * into a ring of their own per CPU:
 *
 *   sched:sched_switch, raw fields only, filtered "prev_state != 1" in the
 *       kernel                                       -> switch-outs but plain
 *       sleeps (state, next task); its SWITCH records -> switch-ins, and
 *       the plain sleeps
 *   sched:sched_switch, 1 hit in N, call chain only  -> off-CPU stacks
 *       (with --call-graph dwarf: kernel chain, user registers and stack,
 *       unwound by user-stack.c like the CPU samples)
 *   sched:sched_waking, every hit, raw fields only   -> who woke whom
 *
 * CPU-wide (the default when the kernel allows it): one set per CPU, and the
 * decoder keeps the records of target tasks. A per-thread event costs at
 * every switch of its thread, when the kernel takes the thread's events off
 * the CPU and puts the next one's on; CPU-wide events stay put, so this
 * halves the slowdown of a switch-heavy target (docs/BENCHMARKS.md).
 * Switch-ins come from SWITCH records, not the tracepoint's next task: on
 * some kernels tracepoint hits in an idle CPU's context never reach
 * CPU-wide events.
 *
 * Per thread (--sched-per-thread, or when CPU-wide events are refused): one
 * set per (target thread, CPU), the same records.
 *
 * A stack is what a switch costs most (perf -g: 2.7x on a switch-heavy
 * workload), so state accounting never needs one; stacks are sampled. The
 * sampled event has no PERF_SAMPLE_PERIOD: with it the kernel would sample
 * every hit whatever the period. */
#include "recorder.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "lib/grow.h"
#include "proc-scan.h"

#define SCHED_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			   PERF_SAMPLE_CPU)

static const char *const switch_fields[] = {
	"prev_state", "next_comm", "next_pid", NULL,
};
static const char *const wake_fields[] = {
	"common_flags", "pid", "target_cpu", NULL,
};

/* Per CPU: -m x 4; else 4 MiB. */
static size_t sched_pages(const struct recorder *rec)
{
	return rec->opts->ring_pages ? rec->opts->ring_pages * 4 : RECORD_DEFAULT_SCHED_PAGES;
}

/* The DWARF switch-out stacks' ring, per CPU: -m x 4; else 4 MiB, up to
 * 16 MiB as root (about 32 KiB a stack: 4 MiB holds 128 of them), all
 * CPUs' together at most SCHED_STACKS_MAX_TOTAL. */
#define SCHED_STACKS_MAX_TOTAL (256ULL << 20)

static size_t stack_pages(const struct recorder *rec)
{
	size_t pages = RECORD_DEFAULT_SCHED_PAGES;
	uint64_t cap;

	if (rec->opts->ring_pages)
		return rec->opts->ring_pages * 4;
	if (geteuid())
		return pages;
	cap = SCHED_STACKS_MAX_TOTAL / (uint64_t)sysconf(_SC_PAGESIZE) /
	      (rec->ncpus ? rec->ncpus : 1);
	while (pages < RECORD_DEFAULT_SCHED_PAGES * 4 && pages * 2 <= cap)
		pages *= 2;
	return pages;
}

/* Does the stack event carry DWARF copies (its own ring)? */
static int stacks_apart(const struct sched_rec *s)
{
	return !!(s->attr[SCHED_EV_STACK].sample_type & PERF_SAMPLE_STACK_USER);
}

static void fill(struct recorder *rec, struct perf_event_attr *a, uint64_t id, uint64_t period,
		 uint64_t sample_type)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_TRACEPOINT;
	a->config = id;
	a->sample_period = period;
	a->sample_type = sample_type;
	a->sample_id_all = 1;
	a->inherit = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	/* Wake the recorder when a ring is a quarter full. */
	a->wakeup_watermark = (uint32_t)(sched_pages(rec) * (size_t)sysconf(_SC_PAGESIZE) / 4);
	a->disabled = rec->ev.attr.disabled;
	a->enable_on_exec = rec->ev.attr.enable_on_exec;
}

/* Opens attr on the calling thread to learn whether we may. */
static int probe(struct perf_event_attr *a)
{
	struct perf_event_attr copy = *a;
	int fd;

	copy.disabled = 1;
	copy.enable_on_exec = 0;
	fd = sys_perf_event_open(&copy, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* --call-graph dwarf, or fp with sched_dwarf (auto, when the C library
 * keeps no frame pointer): the switch-out's user registers and stack go
 * with the kernel's chain, and user-stack.c unwinds them as it does dwarf
 * CPU samples (glibc's futex wait keeps no frame pointer: a frame-pointer
 * walk stops there). dwarf: the CPU samples' registers and size; a kernel
 * that refuses leaves the frame-pointer chain. */
static void dwarf_stacks(struct recorder *rec, struct perf_event_attr *a)
{
	struct ustack_rec *u = &rec->ustack;
	struct perf_event_attr d = *a;

	if (!u->on || (!u->dwarf && !u->sw.on))
		return;
	d.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	d.sample_regs_user = u->dwarf ? u->regs_mask : u->sw.regs_mask;
	d.sample_stack_user = u->dwarf ? u->stack_size : u->sw.stack_size;
	d.exclude_callchain_user = 1;
	if (!probe(&d))
		*a = d;
	else
		u->sw.on = 0;
}

int sched_setup(struct recorder *rec)
{
	struct sched_rec *s = &rec->sched;
	char dir[4096], why[512];
	uint64_t every = rec->opts->sched_stacks ? rec->opts->sched_stacks
						: RECORD_DEFAULT_SCHED_STACKS;
	struct rec_event_desc desc;
	uint32_t id;
	int err;

	if (keymap__init(&s->ids, 256) || keymap__init(&s->task_names, 256) ||
	    keymap__init(&s->unnamed, 64))
		return prof_error_set(rec->err, -ENOMEM, NULL, "%s", "out of memory");
	err = tracefs_find(dir, sizeof(dir), why, sizeof(why));
	if (err)
		return prof_error_set(rec->err, err,
				      "mount it with 'mount -t tracefs nodev /sys/kernel/tracing' "
				      "(as root)",
				      "%s", why);
	err = tracepoint_load(dir, "sched", "sched_switch", switch_fields, &s->sw);
	if (!err && (!s->sw.field[0].size || !s->sw.field[2].size || s->sw.field[1].size < 2))
		err = -EBADMSG;
	if (err)
		return prof_error_set(rec->err, err, err == -EACCES ? "run prof as root" : NULL,
				      "cannot use tracepoint sched:sched_switch under %s: %s", dir,
				      err == -EBADMSG ? "format not understood" : strerror(-err));
	err = tracepoint_load(dir, "sched", "sched_waking", wake_fields, &s->wake);
	if (err == -ENOENT) /* before Linux 4.3 */
		err = tracepoint_load(dir, "sched", "sched_wakeup", wake_fields, &s->wake);
	if (!err && !s->wake.field[1].size)
		err = -EBADMSG;
	if (err)
		return prof_error_set(rec->err, err, err == -EACCES ? "run prof as root" : NULL,
				      "cannot use tracepoint sched:sched_waking under %s: %s", dir,
				      err == -EBADMSG ? "format not understood" : strerror(-err));
	fill(rec, &s->attr[SCHED_EV_SWITCH], s->sw.id, 1, SCHED_SAMPLE_TYPE | PERF_SAMPLE_RAW);
	s->attr[SCHED_EV_SWITCH].context_switch = 1;
	s->filtered = 1;
	fill(rec, &s->attr[SCHED_EV_WAKE], s->wake.id, 1, SCHED_SAMPLE_TYPE | PERF_SAMPLE_RAW);
	if (every != RECORD_SCHED_STACKS_NONE) {
		fill(rec, &s->attr[SCHED_EV_STACK], s->sw.id, every,
		     SCHED_SAMPLE_TYPE | PERF_SAMPLE_CALLCHAIN);
		if (rec->ev.user_only) {
			s->attr[SCHED_EV_STACK].exclude_callchain_kernel = 1;
		}
		dwarf_stacks(rec, &s->attr[SCHED_EV_STACK]);
	}
	err = probe(&s->attr[SCHED_EV_SWITCH]);
	if (err == -EACCES || err == -EPERM)
		return prof_error_set(rec->err, err,
				      "scheduler tracepoints with their fields need root or "
				      "CAP_PERFMON (or kernel.perf_event_paranoid=-1)",
				      "%s", "not allowed to record scheduler events");
	if (err)
		return prof_error_set(rec->err, err, NULL,
				      "cannot open tracepoint sched:sched_switch: %s",
				      strerror(-err));
	s->rings = calloc(rec->ncpus, sizeof(*s->rings));
	s->stack_rings = calloc(rec->ncpus, sizeof(*s->stack_rings));
	s->tp_out = calloc(rec->ncpus, sizeof(*s->tp_out));
	s->stack_fds = calloc(rec->ncpus, sizeof(*s->stack_fds));
	if (!s->rings || !s->stack_rings || !s->tp_out || !s->stack_fds)
		return prof_error_set(rec->err, -ENOMEM, NULL, "%s", "out of memory");
	for (size_t i = 0; i < rec->ncpus; i++)
		s->rings[i].fd = s->stack_rings[i].fd = s->stack_fds[i] = -1;
	if (every != RECORD_SCHED_STACKS_NONE) {
		memset(&desc, 0, sizeof(desc));
		rec_writer__string(rec->w, "sched:sched_switch", 18, &desc.name);
		desc.type = PERF_TYPE_TRACEPOINT;
		desc.config = s->sw.id;
		desc.period = every;
		err = rec_writer__event(rec->w, &desc, &id);
		if (err)
			return prof_error_set(rec->err, err, NULL, "%s", "out of memory");
		s->stack_event = (uint8_t)id;
		rec->ustack.sw.event = (uint8_t)id;
	}
	s->on = 1;
	return 0;
}

/* The stack ring of CPU index i, mapped on a dummy event of that CPU
 * that records nothing and is never reopened (kept in rec->fds, closed
 * at the end), with the ring's wake-up at a quarter full. */
static int own_stack_ring(struct recorder *rec, size_t i)
{
	struct perf_event_attr a;
	size_t pages = stack_pages(rec);
	int fd, err;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.use_clockid = 1; /* the events sent into its ring must have its clock */
	a.clockid = CLOCK_MONOTONIC;
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)(pages * (size_t)sysconf(_SC_PAGESIZE) / 4);
	fd = sys_perf_event_open(&a, -1, rec->cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = recorder_keep_fd(rec, fd, i);
	if (err)
		return err;
	err = ring__map(&rec->sched.stack_rings[i], fd, pages);
	if (err)
		rec->sched.stack_rings[i].fd = -1;
	return err;
}

static int open_one(struct recorder *rec, enum sched_event_kind kind, pid_t tid, size_t i)
{
	struct sched_rec *s = &rec->sched;
	int apart = kind == SCHED_EV_STACK && stacks_apart(s);
	struct ring *ring = apart ? &s->stack_rings[i] : &s->rings[i];
	uint64_t id;
	int fd, err;

	if (!s->attr[kind].size)
		return 0;
	fd = sys_perf_event_open(&s->attr[kind], tid, rec->cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = recorder_keep_fd(rec, fd, i);
	if (err)
		return err;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &id))
		return -errno;
	/* Plain sleeps are the bulk of switches and the SWITCH record says
	 * enough of them; the tracepoint reports the other states. Without
	 * filter support every switch-out comes through the tracepoint. */
	if (kind == SCHED_EV_SWITCH && s->filtered &&
	    ioctl(fd, PERF_EVENT_IOC_SET_FILTER, "prev_state != 1"))
		s->filtered = 0;
	if (kind == SCHED_EV_STACK && tid == -1) {
		s->stack_fds[i] = fd;
		/* Nothing until the targets' tids are known (sched_refilter()). */
		if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, "prev_pid == -1"))
			s->stack_fds[i] = -1;
	}
	err = keymap__set(&s->ids, id, 0, kind);
	if (err)
		return err;
	if (ring->fd < 0 && apart && tid == -1) {
		/* CPU-wide, the stack event is opened again with each new
		 * filter: the ring belongs to an event that stays. */
		err = own_stack_ring(rec, i);
		if (err)
			return err;
	}
	if (ring->fd < 0) {
		err = ring__map(ring, fd, apart ? stack_pages(rec) : sched_pages(rec));
		if (err)
			ring->fd = -1;
		return err;
	}
	return ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring->fd) ? -errno : 0;
}

int sched_try_cpu_wide(struct recorder *rec)
{
	struct sched_rec *s = &rec->sched;
	struct perf_event_attr a = s->attr[SCHED_EV_SWITCH];
	int fd;

	a.inherit = 0;
	a.context_switch = 0;
	a.enable_on_exec = 0;
	a.disabled = 1;
	fd = sys_perf_event_open(&a, -1, rec->cpus[0], -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	for (size_t k = 0; k < sizeof(s->attr) / sizeof(s->attr[0]); k++) {
		s->attr[k].inherit = 0;
		s->attr[k].context_switch = 0;
		s->attr[k].enable_on_exec = 0;
		s->attr[k].disabled = 0;
	}
	/* Switch-ins come from the CPU-wide SWITCH records: on some kernels
	 * (this project's VMs) tracepoints hit in an idle CPU's context, the
	 * switch from idle to a woken task among them, never reach CPU-wide
	 * events, where the SWITCH record of the task switched in does. */
	s->attr[SCHED_EV_SWITCH].context_switch = 1;
	return 0;
}

int sched_open_cpu(struct recorder *rec, size_t i)
{
	int err = open_one(rec, SCHED_EV_SWITCH, -1, i);

	if (!err)
		err = open_one(rec, SCHED_EV_STACK, -1, i);
	if (!err)
		err = open_one(rec, SCHED_EV_WAKE, -1, i);
	return err;
}

int sched_open_thread(struct recorder *rec, pid_t tid, size_t i)
{
	int err;

	if (rec->cpu_wide)
		return 0;
	err = open_one(rec, SCHED_EV_SWITCH, tid, i);

	if (!err)
		err = open_one(rec, SCHED_EV_STACK, tid, i);
	if (!err)
		err = open_one(rec, SCHED_EV_WAKE, tid, i);
	return err;
}

/* Appends " || prev_pid == TID" for every key of m to f (at f->len); -ENOSPC
 * past its size. */
struct filter_text {
	char buf[4000]; /* the kernel takes a page at most */
	size_t len;
};

static int filter_add(struct filter_text *f, const struct keymap *m)
{
	for (size_t i = 0; m->slots && i <= m->mask; i++) {
		int n;

		if (!m->slots[i].hash)
			continue;
		n = snprintf(f->buf + f->len, sizeof(f->buf) - f->len, "%sprev_pid == %llu",
			     f->len ? " || " : "", (unsigned long long)m->slots[i].a);
		if (n < 0 || (size_t)n >= sizeof(f->buf) - f->len)
			return -ENOSPC;
		f->len += (size_t)n;
	}
	return 0;
}

/* The stack event of CPU index i opened again with `filter` (the kernel
 * sets an event's filter once), into the same ring, in the old one's place
 * in rec->fds. 0 or -errno (the old one is kept). */
static int reopen_stack(struct recorder *rec, size_t i, const char *filter)
{
	struct sched_rec *s = &rec->sched;
	uint64_t id;
	int fd = sys_perf_event_open(&s->attr[SCHED_EV_STACK], -1, rec->cpus[i], -1,
				     PERF_FLAG_FD_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) || ioctl(fd, PERF_EVENT_IOC_ID, &id) ||
	    ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT,
		  stacks_apart(s) ? s->stack_rings[i].fd : s->rings[i].fd))
		err = -errno;
	if (!err)
		err = keymap__set(&s->ids, id, 0, SCHED_EV_STACK);
	if (err) {
		close(fd);
		return err;
	}
	for (size_t k = 0; k < rec->nfds; k++)
		if (rec->fds[k].fd == s->stack_fds[i])
			rec->fds[k].fd = fd;
	close(s->stack_fds[i]);
	s->stack_fds[i] = fd;
	return 0;
}

/* CPU-wide: the stack event sees every task's switch-outs, and a stack
 * (32 KiB of it with --call-graph dwarf) of another task's would fill the
 * ring for nothing, and count towards the 1 in N. A filter on the
 * targets' tids keeps them out in the kernel; the event is opened again
 * with a new filter after a drain that learnt new threads (their first
 * switch-outs until then have no stack; off-cpu.c weighs each thread's
 * stacks to its whole off-CPU time). Too many tids for a filter: every
 * task's, as without one. */
void sched_refilter(struct recorder *rec)
{
	struct sched_rec *s = &rec->sched;
	size_t n = rec->opened_tids.count + rec->forked_tids.count;
	struct filter_text *f;

	if (!rec->cpu_wide || !s->stack_fds || n == s->filter_tids)
		return;
	s->filter_tids = n;
	s->filter_ns = monotonic_ns();
	f = malloc(sizeof(*f));
	if (!f)
		return;
	f->len = 0;
	if (filter_add(f, &rec->opened_tids) || filter_add(f, &rec->forked_tids))
		snprintf(f->buf, sizeof(f->buf), "prev_pid > 0");
	for (size_t i = 0; i < rec->ncpus; i++)
		if (s->stack_fds[i] >= 0)
			reopen_stack(rec, i, f->buf);
	free(f);
}

/* Threads come in bursts (a server's pool at start, a job's workers):
 * for FILTER_HURRY_NS after the filter last changed, drain every
 * FILTER_TICK_MS, so that a new thread's switch-outs have stacks within
 * that long (a 1 s tick left a short command's threads without any);
 * then at the usual tick, which costs the target less. */
#define FILTER_HURRY_NS 2000000000ull
#define FILTER_TICK_MS  20

long sched_tick_ms(const struct recorder *rec, uint64_t now)
{
	const struct sched_rec *s = &rec->sched;

	if (!s->on || !rec->cpu_wide || !s->stack_fds || !s->filter_ns ||
	    now - s->filter_ns >= FILTER_HURRY_NS)
		return -1;
	return FILTER_TICK_MS;
}

void sched_drain(struct recorder *rec, const uint64_t *heads)
{
	struct sched_rec *s = &rec->sched;

	if (s->on)
		sched_refilter(rec);

	for (size_t k = 0; s->on && k < 2 * rec->ncpus; k++) {
		size_t i = k % rec->ncpus;
		struct ring *r = k < rec->ncpus ? &s->rings[i] : &s->stack_rings[i];

		s->cur = i;
		s->draining_stacks = k >= rec->ncpus;
		if (r->fd >= 0 && (heads ? ring__drain_to(r, heads[k], rec->scratch,
							   sched_handle_record, rec)
					 : ring__drain(r, rec->scratch, sched_handle_record, rec)) < 0)
			rec->bad_ring = 1;
	}
	s->draining_stacks = 0;
}

void sched_heads(const struct recorder *rec, uint64_t *heads)
{
	const struct sched_rec *s = &rec->sched;

	for (size_t i = 0; s->on && i < rec->ncpus; i++) {
		heads[i] = s->rings[i].fd >= 0 ? ring__head(&s->rings[i]) : 0;
		heads[rec->ncpus + i] =
		    s->stack_rings[i].fd >= 0 ? ring__head(&s->stack_rings[i]) : 0;
	}
}

static uint8_t state_of_letter(char c)
{
	switch (c) {
	case 'R':
		return REC_STATE_RUNNING;
	case 'S':
		return REC_STATE_SLEEPING;
	case 'D':
		return REC_STATE_DISK;
	case 'T':
	case 't':
		return REC_STATE_STOPPED;
	case 'Z':
	case 'X':
		return REC_STATE_DEAD;
	case 'I':
	case 'P':
		return REC_STATE_IDLE;
	default:
		return REC_STATE_OTHER;
	}
}

void sched_init_state(struct recorder *rec, uint64_t time, pid_t pid, pid_t tid)
{
	char path[96], buf[512], *p;
	FILE *f;
	uint8_t state = REC_STATE_OTHER;

	if (!rec->sched.on)
		return;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	f = fopen(path, "re");
	if (f) {
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);

		buf[n] = '\0';
		fclose(f);
		/* "tid (comm) S ...": comm may hold ')' and spaces. */
		p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2])
			state = state_of_letter(p[2]);
	}
	if (rec_sink__sched(rec->sink, time, (uint32_t)tid, 0, 0, REC_SCHED_INIT, state) &&
	    !rec->write_err)
		rec->write_err = -ENOMEM;
}

/* Names the wakers that never showed up as a next task, from /proc while
 * they still exist. */
static void name_waker(struct recorder *rec, uint64_t tid)
{
	char path[64], name[64];
	uint32_t id;
	FILE *f;

	if (keymap__get(&rec->sched.task_names, tid, 0, &id) ||
	    keymap__get(&rec->names, tid, 0, &id))
		return;
	snprintf(path, sizeof(path), "/proc/%llu/comm", (unsigned long long)tid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(name, sizeof(name), f)) {
		name[strcspn(name, "\n")] = '\0';
		if (!rec_writer__string(rec->w, name, strlen(name), &id))
			rec_sink__sched(rec->sink, monotonic_ns(), (uint32_t)tid, id, 0,
					  REC_SCHED_TASK, 0);
	}
	fclose(f);
}

void sched_finish(struct recorder *rec)
{
	const struct keymap *m = &rec->sched.unnamed;

	/* Every key of the keymap, its slots walked in place: keymap.h has no
	 * iterator, and a map without deletion has a key in each used slot. */
	for (size_t i = 0; rec->sched.on && m->slots && i <= m->mask; i++)
		if (m->slots[i].hash)
			name_waker(rec, m->slots[i].a);
}

void sched_release(struct recorder *rec)
{
	struct sched_rec *s = &rec->sched;

	if (s->rings) {
		for (size_t i = 0; i < rec->ncpus; i++)
			ring__unmap(&s->rings[i]);
		free(s->rings);
		s->rings = NULL;
	}
	if (s->stack_rings) {
		for (size_t i = 0; i < rec->ncpus; i++)
			ring__unmap(&s->stack_rings[i]);
		free(s->stack_rings);
		s->stack_rings = NULL;
	}
	free(s->tp_out);
	s->tp_out = NULL;
	free(s->stack_fds); /* the fds are in rec->fds */
	s->stack_fds = NULL;
	keymap__release(&s->ids);
	keymap__release(&s->task_names);
	keymap__release(&s->unnamed);
}
