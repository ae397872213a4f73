/* engine-cpu.c: the CPU sampling source. One sampling event (cycles, else
 * cpu-clock; a dummy one for the side-band records when only probes are
 * asked for) per (thread, CPU), or per CPU in CPU-wide mode, redirected
 * into one ring per CPU; the user registers and stack copies its samples
 * carry are unwound after each drain (user-stack.c), and while deferring
 * its records are kept raw (defer.c). */
#include "engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Ring sizes, per CPU: a ring holds RING_HOLD_MS of samples at the full
 * rate (every thread on that CPU sampled -F times a second), so that a
 * recorder kept off the CPU that long after its quarter-full wake-up loses
 * nothing; all the rings together take at most RING_MAX_TOTAL. */
#define RING_HOLD_MS	 250
#define RING_MAX_TOTAL	 (512ULL << 20)
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

static int choose_event(struct recorder *rec, uint64_t freq)
{
	uint64_t max_rate = perf_read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate", 100000);
	int err;

	if (freq > max_rate)
		return prof_error_set(rec->err, -EINVAL,
				      "lower -F, or raise kernel.perf_event_max_sample_rate",
				      "-F %llu is above the kernel's limit of %llu Hz",
				      (unsigned long long)freq, (unsigned long long)max_rate);
	err = event_choice__probe(&rec->ev, freq, rec->opts->argv != NULL);
	if (err == -EACCES || err == -EPERM)
		return prof_error_set(rec->err, err, perf_permission_hint(),
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
			fprintf(
			    stderr,
			    "prof record: no hardware cycle counter here: sampling cpu-clock\n");
		if (rec->ev.user_only)
			fprintf(stderr,
				"prof record: kernel sampling not allowed (%s, "
				"perf_event_paranoid=%ld): recording user stacks only\n",
				strerror(rec->ev.kernel_error), perf_paranoid());
	}
	return 0;
}

static int cpu_setup(struct recorder *rec)
{
	uint64_t freq = rec->opts->freq ? rec->opts->freq : RECORD_DEFAULT_FREQ;
	struct rec_event_desc desc;
	uint32_t id;
	size_t i;
	int err;

	err = choose_event(rec, freq);
	if (err)
		return err;
	err = ustack_setup(rec);
	if (err)
		return err;
	want_lost_counts(rec);
	/* Wake us when a ring is a quarter full, on top of the tick. */
	rec->ev.attr.wakeup_watermark =
	    (uint32_t)(ring_pages(rec) * (size_t)sysconf(_SC_PAGESIZE) / 4);
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
		return 0;
	}
	memset(&desc, 0, sizeof(desc));
	rec_writer__string(rec->w, rec->ev.name, strlen(rec->ev.name), &desc.name);
	desc.type = rec->ev.attr.type;
	desc.config = rec->ev.attr.config;
	desc.freq = freq;
	err = rec_writer__event(rec->w, &desc, &id);
	if (err)
		return prof_error_set(rec->err, err, NULL, "out of memory");
	return 0;
}

/* CPU-wide mode: CPU i's sampling event, with the side-band records of
 * every task. */
static int cpu_open_cpu(struct recorder *rec, size_t i)
{
	struct perf_event_attr a = rec->ev.attr;
	int fd, err;

	a.inherit = 0;
	a.enable_on_exec = 0;
	a.disabled = 0;
	fd = sys_perf_event_open(&a, -1, rec->cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = recorder_keep_fd(rec, fd, i);
	if (!err && (err = ring__map(&rec->rings[i], fd, ring_pages(rec))))
		rec->rings[i].fd = -1;
	return err;
}

/* The event on tid for every CPU (CPU-wide mode: nothing to open). */
static int cpu_open_thread(struct recorder *rec, pid_t tid)
{
	size_t i;

	for (i = 0; i < rec->ncpus && !rec->cpu_wide; i++) {
		int fd =
		    sys_perf_event_open(&rec->ev.attr, tid, rec->cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
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
	}
	return 0;
}

/* CPU-wide mode: records are kept when their task is a target, so a new
 * target must be known before its first record is decoded; but its FORK
 * can sit in another CPU's ring than its first records. So: note where
 * every ring ends (here, and the other engines' marks), learn from the
 * FORK records in all CPU rings, then decode up to the noted ends (drain):
 * each record decoded then was written before the FORK records were
 * looked at. rec->heads: the CPU rings' first. */
static void cpu_mark(struct recorder *rec)
{
	size_t i;

	if (!rec->cpu_wide || rec->defer.on)
		return;
	for (i = 0; i < rec->ncpus; i++)
		rec->heads[i] = rec->rings[i].fd >= 0 ? ring__head(&rec->rings[i]) : 0;
}

static void cpu_drain(struct recorder *rec)
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
		for (i = 0; i < rec->ncpus; i++)
			if (rec->rings[i].fd >= 0)
				ring__peek(&rec->rings[i], rec->scratch, recorder_learn_fork, rec);
		for (i = 0; i < rec->ncpus; i++)
			if (rec->rings[i].fd >= 0 &&
			    ring__drain_to(&rec->rings[i], rec->heads[i], rec->scratch,
					   recorder_handle_record, rec) < 0)
				rec->bad_ring = 1;
	} else {
		for (i = 0; i < rec->ncpus; i++)
			if (rec->rings[i].fd >= 0 && ring__drain(&rec->rings[i], rec->scratch,
								 recorder_handle_record, rec) < 0)
				rec->bad_ring = 1;
	}
	ustack_process(rec);
}

static uint64_t cpu_lost(const struct recorder *rec)
{
	return rec->sum->lost;
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

static void cpu_close(struct recorder *rec)
{
	count_unreported_loss(rec);
	for (size_t i = 0; rec->rings && i < rec->ncpus; i++)
		ring__unmap(&rec->rings[i]);
}

const struct rec_engine rec_engine_cpu = {
    .name = "cpu",
    .setup = cpu_setup,
    .open_cpu = cpu_open_cpu,
    .open_thread = cpu_open_thread,
    .mark = cpu_mark,
    .drain = cpu_drain,
    .lost = cpu_lost,
    .close = cpu_close,
    .write_stats = ustack_write_stats,
    .release = ustack_release,
};
