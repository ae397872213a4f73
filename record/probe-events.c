/* probe-events.c: probe events while recording (see probes.h): uprobes
 * made through the kernel's uprobe PMU (/sys/bus/event_source/devices/
 * uprobe: type, the retprobe bit and the ref_ctr_offset field of `config`,
 * config1 = path, config2 = file offset). No tracefs, nothing left behind:
 * the kernel removes a probe when its last event closes, also when prof is
 * killed. With ref_ctr_offset the kernel also increments a USDT probe's
 * semaphore in every process it installs the probe in, and decrements it
 * when the probe goes.
 *
 * One event per (target thread, CPU) per site, inherited by the threads it
 * creates, writing into the site's ring of that CPU. The rings belong to
 * dummy events on prof's own thread ("holders"), so probe events can be
 * closed and opened again (windows: the kernel removes the breakpoints
 * while closed, and a uprobe costs its trap on every hit whatever the
 * sampling) while the rings and what they hold stay.
 *
 * The kernel keeps every hit inside a window (sample_period 1): --every
 * and --every-bytes choose among them as they are read (probe-windows.c),
 * which is unbiased where a fixed kernel period is not. Probed all along,
 * --every N is a kernel period redrawn after each sample
 * (probe-kperiod.c). */
#include "recorder.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "lib/grow.h"
#include "proc-scan.h"
#include "lib/path-buf.h"

#define UPROBE_PMU "/sys/bus/event_source/devices/uprobe"
#define PROBE_STACK_SLICE 512 /* bytes of stack for stack-based arguments */
#define PROBE_SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			   PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN)

/* "config:N" or "config:A-B" of a PMU format file: the first bit, or -1. */
static int format_bit(const char *name)
{
	char path[128], buf[64];
	FILE *f;
	int bit = -1;

	snprintf(path, sizeof(path), UPROBE_PMU "/format/%s", name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f) && sscanf(buf, "config:%d", &bit) != 1)
		bit = -1;
	fclose(f);
	return bit;
}

static int pmu_type(void)
{
	FILE *f = fopen(UPROBE_PMU "/type", "re");
	int t = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &t) != 1)
		t = -1;
	fclose(f);
	return t;
}

/* A window's hits arrive in a burst (a JVM allocating in a loop: over a
 * thousand in 10 ms, each with a few hundred bytes of registers and stack
 * for the leaf fix): 4 MiB per CPU holds one; -m sets it. Thread starts
 * are rare: 64 KiB. */
static size_t probe_pages(const struct recorder *rec, const struct probe_site *s)
{
	if (rec->opts->ring_pages)
		return rec->opts->ring_pages;
	if (malloc_site_pages(s))
		return malloc_site_pages(s);
	return s->def.role == PROBE_ROLE_THREAD_START ? 16 : 1024;
}

/* The registers a site's hits carry: the arguments' and the stack
 * walker's (leaf fix or dwarf), in perf's numbering. */
static void site_regs(struct recorder *rec, struct probe_site *s)
{
	uint64_t mask = rec->ustack.on ? rec->ustack.regs_mask : 0;
	unsigned pos = 0;

	for (int k = 0; k < s->def.nargs; k++) {
		const struct usdt_arg *a = &s->def.arg[k];

		if (a->kind == USDT_ARG_REG || a->kind == USDT_ARG_MEM)
			mask |= 1ULL << a->reg;
		if (a->kind == USDT_ARG_MEM && a->index != USDT_REG_NONE)
			mask |= 1ULL << a->index;
	}
	if (s->def.stack_args)
		mask |= 1ULL << USDT_REG_SP;
	memset(s->reg_pos, 0xff, sizeof(s->reg_pos));
	for (unsigned r = 0; r < 64; r++)
		if (mask & (1ULL << r)) {
			if (r < USDT_NREGS)
				s->reg_pos[r] = (uint8_t)pos;
			pos++;
		}
	s->nregs = pos;
	s->regs_mask = mask;
	s->stack_size = rec->ustack.on ? rec->ustack.stack_size : 0;
	if (s->def.stack_args && s->stack_size < PROBE_STACK_SLICE)
		s->stack_size = PROBE_STACK_SLICE;
}

static int fill_attr(struct recorder *rec, size_t k, int type, int ret_bit, int ref_bit)
{
	struct probe_site *s = &rec->probes.sites[k];
	struct perf_event_attr *a = calloc(1, sizeof(*a));
	uint64_t id;

	if (!a)
		return -ENOMEM;
	s->attr = a;
	a->size = sizeof(*a);
	if (!rec->probes.pmu && !probe_tracefs_define(rec, k, &id)) {
		a->type = PERF_TYPE_TRACEPOINT;
		a->config = id;
	} else {
		if (!rec->probes.pmu && !rec->opts->quiet && rec->probes.window_ns)
			fprintf(stderr, "prof record: cannot define %s in tracefs: through the "
				"uprobe PMU, each window's end takes about 80 ms per thread and CPU\n",
				s->def.event);
		a->type = (uint32_t)type;
		a->config1 = (uint64_t)(uintptr_t)s->def.path;
		a->config2 = s->def.offset;
		if (s->def.kind == PROBE_URETPROBE)
			a->config |= 1ULL << ret_bit;
		if (s->def.ref_ctr && ref_bit >= 0)
			a->config |= s->def.ref_ctr << ref_bit;
	}
	a->sample_period = 1;
	a->sample_type = PROBE_SAMPLE_TYPE;
	site_regs(rec, s);
	if (s->nregs) {
		a->sample_type |= PERF_SAMPLE_REGS_USER;
		a->sample_regs_user = s->regs_mask;
	}
	if (s->stack_size) {
		a->sample_type |= PERF_SAMPLE_STACK_USER;
		a->sample_stack_user = s->stack_size;
	}
	a->exclude_callchain_kernel = 1; /* the kernel part is the trap handler */
	a->exclude_callchain_user = rec->ustack.on && rec->ustack.dwarf;
	a->inherit = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	if (s->def.role == PROBE_ROLE_THREAD_START) {
		/* Rare, and its name is read from the JVM: wake us at once,
		 * before the JVM reuses the memory the name is in. */
		a->wakeup_events = 1;
	} else {
		a->watermark = 1;
		a->wakeup_watermark =
			(uint32_t)(probe_pages(rec, s) * (size_t)sysconf(_SC_PAGESIZE) / 4);
	}
	a->disabled = rec->ev.attr.disabled;
	a->enable_on_exec = rec->ev.attr.enable_on_exec;
	return 0;
}

/* A holder per CPU: a dummy event on this thread owning the site's ring. */
static int make_rings(struct recorder *rec, struct probe_site *s)
{
	struct perf_event_attr a;

	s->rings = calloc(rec->ncpus, sizeof(*s->rings));
	s->holders = calloc(rec->ncpus, sizeof(*s->holders));
	if (!s->rings || !s->holders)
		return -ENOMEM;
	for (size_t i = 0; i < rec->ncpus; i++) {
		s->rings[i].fd = -1;
		s->holders[i] = -1;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.watermark = 1;
	a.wakeup_watermark = s->attr->wakeup_watermark;
	a.exclude_kernel = rec->ev.user_only;
	for (size_t i = 0; i < rec->ncpus; i++) {
		int fd = sys_perf_event_open(&a, 0, rec->cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
		int err;

		if (fd < 0)
			return -errno;
		s->holders[i] = fd;
		err = ring__map(&s->rings[i], fd, probe_pages(rec, s));
		if (err) {
			s->rings[i].fd = -1;
			return err;
		}
		/* Polled with the other events: a quarter-full ring wakes us. */
		if (GROW(rec->fds, rec->fds_cap, rec->nfds + 1))
			return -ENOMEM;
		rec->fds[rec->nfds++] = (struct event_fd){.fd = dup(fd), .cpu = (int)i};
	}
	return 0;
}

static int add_specs(struct recorder *rec, struct probe_def **defs, size_t *n, size_t *cap)
{
	const struct record_opts *o = rec->opts;
	char *const *argv = o->argv;

	for (size_t i = 0; i < o->nevents; i++) {
		int err;

		if (!probe_spec_is_probe(o->events[i]))
			continue; /* cpu-clock: the sampling event */
		err = probe_resolve(o->events[i], o->pids, o->npids, argv ? argv[0] : NULL, defs, n,
				    cap, rec->err);
		if (err)
			return err;
	}
	return 0;
}

/* --alloc: hotspot:object__alloc (and thread__start for full thread names)
 * in the targets' libjvm.so. */
static int add_alloc(struct recorder *rec, struct probe_def **defs, size_t *n, size_t *cap)
{
	const struct record_opts *o = rec->opts;
	size_t before = *n;
	struct prof_error ignored; /* thread__start is optional */
	int err;

	if (!o->npids)
		return prof_error_set(rec->err, -EINVAL,
				      "start the JVM with -XX:+DTraceAllocProbes, then "
				      "'prof record -p PID --alloc'",
				      "%s", "--alloc attaches to a running JVM: give -p PID");
	err = probe_resolve("usdt:hotspot:object__alloc", o->pids, o->npids, NULL, defs, n, cap,
			    rec->err);
	if (err == -ENOENT)
		return prof_error_set(rec->err, err,
				      "--alloc needs a HotSpot JVM (OpenJDK) built with "
				      "DTrace probes",
				      "no HotSpot JVM (libjvm.so with "
				      "hotspot:object__alloc) in process %d",
				      (int)o->pids[0]);
	if (err)
		return err;
	for (size_t i = 0; i < o->npids; i++) {
		int state = alloc_flag_state(o->pids[i]);

		if (state == ALLOC_FLAG_OFF)
			return prof_error_set(
			    rec->err, -ENODATA, alloc_flag_hint,
			    "JVM %d runs without -XX:+DTraceAllocProbes: HotSpot fires "
			    "hotspot:object__alloc only with it, so no allocation would be "
			    "recorded",
			    (int)o->pids[i]);
		if (state == ALLOC_FLAG_UNKNOWN && !o->quiet)
			fprintf(stderr, "prof record: cannot tell whether JVM %d runs with "
				"-XX:+DTraceAllocProbes (options files are not read); without it "
				"nothing is recorded\n", (int)o->pids[i]);
	}
	for (size_t i = before; i < *n; i++) {
		(*defs)[i].role = PROBE_ROLE_ALLOC;
		if ((*defs)[i].nargs != 4)
			return prof_error_set(rec->err, -EINVAL, NULL,
					      "hotspot:object__alloc has %d arguments "
					      "here, not 4: an unknown JVM",
					      (*defs)[i].nargs);
	}
	before = *n;
	if (!probe_resolve("usdt:hotspot:thread__start", o->pids, o->npids, NULL, defs, n, cap,
			   &ignored))
		for (size_t i = before; i < *n; i++)
			(*defs)[i].role = (*defs)[i].nargs == 5 ? PROBE_ROLE_THREAD_START
								: PROBE_ROLE_ARGS;
	return 0;
}

/* META "probe-args:EVENT": the arguments' names and types, space-separated
 * "NAME:TYPE" (TYPE s8 .. s64, u8 .. u64, or str: a string id). */
static void write_arg_meta(struct recorder *rec, const struct probe_site *s)
{
	char key[600], val[256];
	size_t len = 0;

	snprintf(key, sizeof(key), "probe-args:%s", s->def.event);
	val[0] = '\0';
	if (s->def.role == PROBE_ROLE_ALLOC) {
		snprintf(val, sizeof(val), "class:str size:s64");
	} else if (s->def.role == PROBE_ROLE_MALLOC) {
		snprintf(val, sizeof(val), "size:s64 addr:u64 bytes:s64");
	} else if (s->def.role == PROBE_ROLE_FREE) {
		snprintf(val, sizeof(val), "alloc:u64");
	} else if (s->def.kind == PROBE_URETPROBE) {
		snprintf(val, sizeof(val), "ret:s64");
	} else {
		for (int k = 0; k < s->def.nargs && len < sizeof(val) - 16; k++)
			len += (size_t)snprintf(val + len, sizeof(val) - len, "%sarg%d:%c%d",
						k ? " " : "", k, s->def.arg[k].is_signed ? 's' : 'u',
						8 * s->def.arg[k].size);
	}
	rec_writer__meta(rec->w, key, val);
}

/* Does this process map the file at path (then a probe in it would trap
 * here too)? */
static int self_maps(const char *path)
{
	struct stat want;
	char line[PATH_LINE_BUF];
	FILE *f;
	int hit = 0;

	if (stat(path, &want))
		return 1;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return 1;
	while (!hit && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		unsigned long long ino;

		if (sscanf(line, "%*x-%*x %*s %*x %x:%x %llu", &maj, &min, &ino) == 3 && ino &&
		    ino == (unsigned long long)want.st_ino && makedev(maj, min) == want.st_dev)
			hit = 1;
	}
	fclose(f);
	return hit;
}

/* A tracefs uprobe is registered while some event uses it; the last event
 * to close unregisters it, waiting for a grace period under the kernel's
 * event_mutex, and the next window's first open registers it again. A
 * disabled event on prof's own thread (which does not map the binary: no
 * breakpoint here) keeps it registered, so that windows only add and
 * remove the targets' breakpoints. */
static void open_anchor(struct probe_site *s)
{
	struct perf_event_attr a = *s->attr;

	s->anchor = -1;
	if (a.type != PERF_TYPE_TRACEPOINT || self_maps(s->def.path))
		return;
	a.disabled = 1;
	a.inherit = 0;
	a.enable_on_exec = 0;
	s->anchor = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int probes_setup(struct recorder *rec)
{
	struct probe_rec *p = &rec->probes;
	struct probe_def *defs = NULL;
	size_t n = 0, cap = 0;
	int type, ret_bit, ref_bit, err;
	const struct record_opts *o = rec->opts;

	err = add_specs(rec, &defs, &n, &cap);
	if (!err && o->alloc)
		err = add_alloc(rec, &defs, &n, &cap);
	if (!err && o->malloc)
		err = malloc_probes_add(rec, &defs, &n, &cap);
	if (err) {
		free(defs);
		if (err == -ENOMEM && !rec->err->msg[0])
			return prof_error_set(rec->err, err, NULL, "%s", "out of memory");
		return err;
	}
	if (!n) {
		free(defs);
		return 0;
	}
	type = pmu_type();
	ret_bit = format_bit("retprobe");
	ref_bit = format_bit("ref_ctr_offset");
	if (type < 0 || ret_bit < 0) {
		free(defs);
		return prof_error_set(rec->err, -ENOENT,
				      "uprobes need Linux 4.17 or later with "
				      "CONFIG_UPROBE_EVENTS",
				      "%s", "this kernel has no uprobe PMU (" UPROBE_PMU ")");
	}
	if (keymap__init(&p->strings, 1024)) {
		free(defs);
		return prof_error_set(rec->err, -ENOMEM, NULL, "%s", "out of memory");
	}
	p->sites = calloc(n, sizeof(*p->sites));
	if (!p->sites) {
		free(defs);
		return prof_error_set(rec->err, -ENOMEM, NULL, "%s", "out of memory");
	}
	p->nsites = n;
	p->pmu = o->uprobe_pmu;
	if (o->window_ms && o->window_ms != RECORD_PROBE_WINDOW_OFF) {
		p->window_ns = (uint64_t)o->window_ms * 1000000;
		p->period_ns = (uint64_t)o->period_ms * 1000000;
	} else if ((o->alloc || o->malloc) && o->window_ms != RECORD_PROBE_WINDOW_OFF) {
		p->window_ns = (uint64_t)RECORD_ALLOC_WINDOW_MS * 1000000;
		p->period_ns = (uint64_t)RECORD_ALLOC_PERIOD_MS * 1000000;
	}
	for (size_t i = 0; i < n; i++) {
		struct probe_site *s = &p->sites[i];
		struct rec_event_desc desc;
		uint32_t id = 0;
		size_t j;

		s->def = defs[i];
		s->kperiod = probe_kperiod_site(rec, s);
		if (s->def.role == PROBE_ROLE_ALLOC)
			alloc_size_setup(s);
		if (s->def.ref_ctr && ref_bit < 0 && !o->quiet)
			fprintf(stderr, "prof record: this kernel cannot set USDT semaphores "
				"(no uprobe ref_ctr_offset): %s fires only when another tracer "
				"enables it\n", s->def.event);
		/* Sites of one probe share its event. */
		for (j = 0; j < i && strcmp(p->sites[j].def.event, s->def.event); j++)
			;
		if (j < i) {
			s->event = p->sites[j].event;
		} else {
			memset(&desc, 0, sizeof(desc));
			err = rec_writer__string(rec->w, s->def.event, strlen(s->def.event), &desc.name);
			desc.type = (uint32_t)type;
			desc.config = s->def.offset;
			desc.period = o->every ? o->every : 1;
			if (!err)
				err = rec_writer__event(rec->w, &desc, &id);
			if (!err && id > 255)
				err = -E2BIG;
			if (err) {
				free(defs);
				return prof_error_set(rec->err, err, NULL, "%s",
						      err == -E2BIG
							  ? "too many events (255 at most)"
							  : "out of memory");
			}
			s->event = (uint8_t)id;
			if (s->def.role != PROBE_ROLE_THREAD_START)
				write_arg_meta(rec, s);
		}
		if (s->def.role == PROBE_ROLE_THREAD_START)
			p->have_thread_start = 1;
		err = fill_attr(rec, i, type, ret_bit, ref_bit);
		if (!err)
			malloc_site_attr(s);
		if (!err && s->kperiod)
			probe_kperiod_attr(s);
		if (!err)
			err = make_rings(rec, s);
		if (!err)
			open_anchor(s);
		if (err) {
			free(defs);
			return prof_error_set(rec->err, err, NULL, "cannot set up probe %s: %s",
					      s->def.event, strerror(-err));
		}
	}
	free(defs);
	if (o->malloc && (err = malloc_decode_setup(rec)))
		return err;
	if (probe_kperiod_setup(rec))
		return prof_error_set(rec->err, -ENOMEM, NULL, "%s", "out of memory");
	p->on = 1;
	rec->sum->probes = 1;
	probe_windows_init(rec);
	p->attached = 1; /* the first window opens with the targets' events */
	p->window_start = p->first_start = monotonic_ns();
	p->windows = 1;
	return 0;
}

/* Thread starts are rare and cost nothing until one happens: that probe
 * stays attached through the windows, which are for the hot ones. */
static int windowed(const struct probe_site *s)
{
	return s->def.role != PROBE_ROLE_THREAD_START && !s->def.continuous;
}

static int open_site(struct recorder *rec, struct probe_site *s, pid_t tid)
{
	struct probe_rec *p = &rec->probes;
	int **fds = windowed(s) ? &p->fds : &p->cfds;
	size_t *n = windowed(s) ? &p->nfds : &p->ncfds, *cap = windowed(s) ? &p->fds_cap
									  : &p->cfds_cap;

	for (size_t i = 0; i < rec->ncpus; i++) {
		int fd, err;

		probe_kperiod_draw(rec, s);
		fd = sys_perf_event_open(s->attr, tid, rec->cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (GROW(*fds, *cap, *n + 1)) {
			close(fd);
			return -ENOMEM;
		}
		(*fds)[(*n)++] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->holders[i]))
			return -errno;
		if ((err = probe_kperiod_opened(rec, s, fd, tid)))
			return err;
	}
	return 0;
}

static int open_sites(struct recorder *rec, pid_t tid, int all)
{
	struct probe_rec *p = &rec->probes;
	uint64_t t0;
	int err = 0;

	if (!p->on || !p->attached)
		return 0;
	t0 = monotonic_ns();
	for (size_t k = 0; k < p->nsites && !err; k++)
		if (all || windowed(&p->sites[k]))
			err = open_site(rec, &p->sites[k], tid);
	p->open_ns += monotonic_ns() - t0;
	if (err == -EACCES || err == -EPERM)
		prof_error_set(rec->err, err, "run prof as root or give it CAP_PERFMON",
			       "not allowed to place uprobes: %s", strerror(-err));
	else if (err == -EINVAL || err == -ENOENT)
		prof_error_set(rec->err, err, NULL, "the kernel refuses probe %s: %s",
			       p->sites[0].def.event, strerror(-err));
	return err;
}

int probes_open_thread(struct recorder *rec, pid_t tid)
{
	return open_sites(rec, tid, 1);
}

/* Every thread of every target process (launched ones and their children
 * included): target_pids holds them all. */
void probes_attach(struct recorder *rec)
{
	struct probe_rec *p = &rec->probes;
	const struct keymap *m = &rec->target_pids;

	if (!p->on || p->attached)
		return;
	p->attached = 1;
	p->windows++;
	/* Opened disabled and enabled together below: opening one takes
	 * milliseconds, and sites opened first would count longer windows
	 * (--malloc's five functions: realloc's share off by 14%). */
	for (size_t k = 0; k < p->nsites; k++)
		p->sites[k].attr->disabled = windowed(&p->sites[k]);
	/* Every target pid: the keymap's slots walked in place, as in
	 * sched_finish() (keymap.h has no iterator). */
	for (size_t i = 0; m->slots && i <= m->mask; i++) {
		pid_t *tids;
		size_t n;

		if (!m->slots[i].hash || proc_list_tids((pid_t)m->slots[i].a, &tids, &n))
			continue;
		for (size_t k = 0; k < n; k++)
			if (open_sites(rec, tids[k], 0) && !rec->write_err)
				rec->err->msg[0] = '\0'; /* a thread that went: not an error */
		free(tids);
	}
	for (size_t k = 0; k < p->nsites; k++)
		p->sites[k].attr->disabled = rec->ev.attr.disabled;
	for (size_t i = 0; i < p->nfds; i++)
		ioctl(p->fds[i], PERF_EVENT_IOC_ENABLE, 0);
	/* Attached from here: opening waits for the kernel's event_mutex
	 * (seconds when other tracers close uprobes), and the breakpoints are
	 * in only once it is done. Hits outside [here, detach] are dropped
	 * (probe-windows.c), so that the attached time holds the hits kept. */
	p->window_start = monotonic_ns();
	probe_windows_live(p, p->window_start, UINT64_MAX);
}

/* The last close of a uprobe's events (every close, through the PMU)
 * waits for an RCU grace period, about 80 ms here, after the breakpoints
 * are gone (probe-tracefs.c): a thread does the closing, off the
 * recorder's loop. */
static _Atomic int closers_running;

struct close_job {
	int *fds;
	size_t n;
};

static void *close_fds(void *arg)
{
	struct close_job *job = arg;

	for (size_t i = 0; i < job->n; i++)
		close(job->fds[i]);
	free(job->fds);
	free(job);
	closers_running--;
	return NULL;
}

static void close_all(const int *fds, size_t n)
{
	struct close_job *job = n ? malloc(sizeof(*job)) : NULL;
	pthread_attr_t attr;
	pthread_t t;

	if (job && !(job->fds = malloc(n * sizeof(*fds)))) {
		free(job);
		job = NULL;
	}
	if (!job) {
		for (size_t i = 0; i < n; i++)
			close(fds[i]);
		return;
	}
	memcpy(job->fds, fds, n * sizeof(*fds));
	job->n = n;
	closers_running++;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, close_fds, job))
		close_fds(job);
	pthread_attr_destroy(&attr);
}

/* Up to 10 s: the kernel may take 80 ms per event through the PMU. */
void probes_wait_closed(void)
{
	for (int i = 0; i < 10000 && closers_running > 0; i++) {
		struct timespec ts = {0, 1000000};

		nanosleep(&ts, NULL);
	}
}

void probes_close_all(struct recorder *rec)
{
	struct probe_rec *p = &rec->probes;

	probes_detach(rec);
	if (p->on && !p->end_ns)
		p->end_ns = monotonic_ns();
	close_all(p->cfds, p->ncfds);
	p->ncfds = 0;
}

void probes_detach(struct recorder *rec)
{
	struct probe_rec *p = &rec->probes;
	uint64_t t0 = monotonic_ns();

	if (!p->on || !p->attached)
		return;
	probe_windows_live(p, p->window_start, t0);
	/* All stop at once; closing them one by one takes longer. */
	for (size_t i = 0; i < p->nfds; i++)
		ioctl(p->fds[i], PERF_EVENT_IOC_DISABLE, 0);
	probe_kperiod_detach(rec);
	close_all(p->fds, p->nfds);
	p->nfds = 0;
	p->attached = 0;
	p->open_ns += monotonic_ns() - t0;
	p->attached_ns += monotonic_ns() - p->window_start;
}

/* Window k closes W after its planned start, not W after the wake-up
 * that opened it: on a loaded host the recorder wakes late for both edges
 * and the two delays cancel, where timing each window from its late
 * opening added the close's delay to every window (--probe-window 100/400
 * beside two CPU hogs, prof at nice 10: 38-44% attached instead of 25%).
 * What the earlier windows still overran (the close waits behind a drain
 * of their hits) comes off this one, up to half of it, so the attached
 * time holds at W a window. A window opened after its planned end (10 ms
 * windows wait longer than that for a CPU there) stays open a quarter of
 * W; one that a stall carried past its end is skipped. Each starts at a
 * random offset in its period (probe-windows.c). */
static uint64_t window_end(const struct probe_rec *p)
{
	uint64_t due = (p->windows - 1) * p->window_ns, over = 0, end;

	if (p->attached && p->attached_ns > due)
		over = p->attached_ns - due;
	if (over > p->window_ns / 2)
		over = p->window_ns / 2;
	end = p->next_switch + p->window_ns - over;
	return end > p->window_start + p->window_ns / 4 ? end : p->window_start + p->window_ns / 4;
}

long probes_tick(struct recorder *rec, uint64_t now)
{
	struct probe_rec *p = &rec->probes;
	uint64_t next;

	if (!p->on || !p->window_ns || p->window_ns >= p->period_ns)
		return -1;
	if (!p->next_switch) { /* the first window starts with the recording's loop */
		p->next_switch = p->slot = p->window_start = p->first_start = now;
		probe_windows_live(p, now, UINT64_MAX);
	}
	if (p->attached && now >= window_end(p)) {
		probes_detach(rec);
		probe_windows_next(p);
	}
	while (!p->attached && now >= p->next_switch + p->window_ns)
		probe_windows_next(p);
	if (!p->attached && now >= p->next_switch)
		probes_attach(rec);
	next = p->attached ? window_end(p) : p->next_switch;
	return next > now ? (long)((next - now + 999999) / 1000000) : 0;
}

void probes_drain(struct recorder *rec)
{
	struct probe_rec *p = &rec->probes;
	uint64_t t0 = monotonic_ns();

	for (size_t k = 0; p->on && k < p->nsites; k++) {
		p->cur = k;
		for (size_t i = 0; i < rec->ncpus; i++)
			if (p->sites[k].rings[i].fd >= 0 &&
			    ring__drain(&p->sites[k].rings[i], rec->scratch,
					p->sites[k].def.role >= PROBE_ROLE_MALLOC ? malloc_handle_record
										  : probes_handle_record,
					rec) < 0)
				rec->bad_ring = 1;
	}
	probe_kperiod_redraw(rec);
	/* Every hit before t0 was in its ring: those can be put in order. */
	if (p->malloc)
		malloc_decode_flush(rec, t0 - 1000000);
}

void probes_write_stats(struct recorder *rec)
{
	struct probe_rec *p = &rec->probes;
	uint64_t dur = rec->sum->duration_ns;
	char buf[64];

	if (!p->on)
		return;
	if (p->malloc)
		malloc_decode_stats(rec);
	probe_kperiod_write_stats(rec);
	rec_writer__stat(rec->w, "probe-hits", p->hits);
	rec_writer__stat(rec->w, "probe-windows", p->windows);
	rec_writer__stat(rec->w, "probe-attached-ns", p->attached_ns);
	rec_writer__stat(rec->w, "probe-open-ns", p->open_ns);
	if (p->unreadable)
		rec_writer__stat(rec->w, "probe-args-unreadable", p->unreadable);
	if (p->window_ns && p->window_ns < p->period_ns)
		snprintf(buf, sizeof(buf), "%llu/%llu", (unsigned long long)(p->window_ns / 1000000),
			 (unsigned long long)(p->period_ns / 1000000));
	else
		snprintf(buf, sizeof(buf), "continuous");
	rec_writer__meta(rec->w, "probe-window", buf);
	rec_writer__meta(rec->w, "probe-api", p->pmu || !p->tracefs[0] ? "uprobe-pmu" : "tracefs");
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)(rec->opts->every ? rec->opts->every : 1));
	rec_writer__meta(rec->w, "probe-every", buf);
	rec->sum->probe_hits = p->hits;
	rec->sum->probe_windows = p->windows;
	rec->sum->probe_attached_ns = p->attached_ns > dur && dur ? dur : p->attached_ns;
	rec->sum->probe_open_ns = p->open_ns;
	rec->sum->alloc_no_hit = rec->opts->alloc && !p->alloc_first_hit_ns;
	probe_windows_write_stats(rec);
}

void probes_release(struct recorder *rec)
{
	struct probe_rec *p = &rec->probes;

	probes_close_all(rec);
	probes_wait_closed();
	for (size_t k = 0; k < p->nsites; k++)
		if (p->sites[k].anchor > 0)
			close(p->sites[k].anchor);
	probe_tracefs_undefine(rec);
	for (size_t k = 0; k < p->nsites; k++) {
		struct probe_site *s = &p->sites[k];

		for (size_t i = 0; s->rings && i < rec->ncpus; i++) {
			ring__unmap(&s->rings[i]);
			if (s->holders[i] >= 0)
				close(s->holders[i]);
		}
		free(s->rings);
		free(s->holders);
		free(s->attr);
	}
	free(p->sites);
	free(p->fds);
	free(p->cfds);
	keymap__release(&p->strings);
	malloc_decode_release(rec);
	probe_kperiod_release(rec);
	memset(p, 0, sizeof(*p));
}
