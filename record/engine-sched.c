/* engine-sched.c: the scheduler source (--sched): switch and wake-up
 * tracepoints in their own rings (sched-events.c, decoded by
 * sched-decode.c), the state of the threads found at attach, the wait
 * stacks of those asleep then (sched-snapshot.c); and the CPU-wide mode,
 * taken when the kernel allows it (unless --sched-per-thread). */
#include "engine.h"

#include <stdlib.h>
#include <unistd.h>

static int sched_wanted(const struct recorder *rec)
{
	return rec->opts->sched;
}

/* Goes CPU-wide (see recorder.h) when the kernel lets us open a CPU-wide
 * sampling event and scheduler events; else stays per thread. */
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

static int sched_engine_setup(struct recorder *rec)
{
	int err = sched_setup(rec);

	if (!err && !rec->opts->sched_per_thread)
		try_cpu_wide(rec);
	return err;
}

static int sched_engine_open_thread(struct recorder *rec, pid_t tid)
{
	for (size_t i = 0; i < rec->ncpus && !rec->cpu_wide; i++) {
		int err = sched_open_thread(rec, tid, i);

		if (err)
			return err;
	}
	return 0;
}

static void sched_found_process(struct recorder *rec, pid_t pid, uint64_t time)
{
	sched_snapshot_process(rec, pid, time); /* needs the mappings */
}

/* It runs as soon as it is let go; its switch-outs have stacks from the
 * start. */
static void sched_launched(struct recorder *rec, pid_t pid, uint64_t time)
{
	rec_writer__sched(rec->w, time, (uint32_t)pid, 0, 0, REC_SCHED_INIT, REC_STATE_RUNNING);
	sched_refilter(rec);
}

static long sched_engine_tick_ms(struct recorder *rec, uint64_t now)
{
	return sched_tick_ms(rec, now);
}

/* CPU-wide mode: where each sched ring ends (rec->heads after the CPU
 * rings'), before the CPU engine learns the new threads (engine-cpu.c). */
static void sched_mark(struct recorder *rec)
{
	if (rec->cpu_wide)
		sched_heads(rec, rec->heads + rec->ncpus);
}

static void sched_engine_drain(struct recorder *rec)
{
	sched_drain(rec, rec->cpu_wide ? rec->heads + rec->ncpus : NULL);
}

static uint64_t sched_lost(const struct recorder *rec)
{
	return rec->sum->sched_lost + rec->sum->sched_stacks_lost;
}

static void sched_close(struct recorder *rec)
{
	size_t i;

	for (i = 0; rec->sched.rings && i < rec->ncpus; i++)
		ring__unmap(&rec->sched.rings[i]);
	for (i = 0; rec->sched.stack_rings && i < rec->ncpus; i++)
		ring__unmap(&rec->sched.stack_rings[i]);
}

static void sched_engine_release(struct recorder *rec)
{
	sched_release(rec);
	sched_snapshot_release(rec);
}

const struct rec_engine rec_engine_sched = {
    .name = "sched",
    .wanted = sched_wanted,
    .setup = sched_engine_setup,
    .open_cpu = sched_open_cpu,
    .open_thread = sched_engine_open_thread,
    .found_thread = sched_init_state,
    .found_process = sched_found_process,
    .launched = sched_launched,
    .tick_ms = sched_engine_tick_ms,
    .mark = sched_mark,
    .drain = sched_engine_drain,
    .lost = sched_lost,
    .close = sched_close,
    .finish = sched_finish,
    .write_stats = sched_snapshot_write_stats,
    .release = sched_engine_release,
};
