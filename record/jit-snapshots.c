/* jit-snapshots.c: JIT maps asked for while recording (see
 * jit-snapshots.h; the end of the recording asks once more, jvm-step.c).
 *
 * Each period the targets and the processes seen so far (at most
 * JIT_SNAPSHOT_MAX_PROCS) are looked at; a JVM among them is asked for
 * Compiler.perfmap with sampling paused, so that the attach listener's
 * work (writing the map) stays out of the profile, and the map it wrote
 * is read (symbolize/perf-map.c: bounded, ownership checked) into the
 * timeline. The ask is bounded by JIT_SNAPSHOT_DEADLINE_MS and by a stop
 * signal; a JVM that refuses or does not answer is asked less often, and
 * never again once it refused attach. Nothing is printed: what was done is
 * in the file's stats (jvm-jit-*). */
#include "recorder.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "jvm/jvm.h"
#include "lib/grow.h"
#include "lib/procfs.h"
#include "symbolize/jit-timeline.h"
#include "symbolize/perf-map.h"

/* A stop signal waits, blocked, outside the loop's ppoll: give up then. */
static int stop_signalled(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	sigset_t set;
	size_t i;

	if (sigpending(&set))
		return 0;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigismember(&set, sigs[i]) == 1)
			return 1;
	return 0;
}

static struct jit_proc *proc_of(struct jit_snapshots *js, pid_t pid, int add)
{
	size_t i;

	for (i = 0; i < js->nprocs; i++)
		if (js->procs[i].pid == pid)
			return &js->procs[i];
	if (!add || js->nprocs >= JIT_SNAPSHOT_MAX_PROCS ||
	    GROW(js->procs, js->procs_cap, js->nprocs + 1))
		return NULL;
	js->procs[js->nprocs] = (struct jit_proc){.pid = pid};
	return &js->procs[js->nprocs++];
}

/* The pids of a keymap (keymap.h has no iterator: its slots walked). */
static void add_procs(struct jit_snapshots *js, const struct keymap *pids)
{
	size_t i;

	for (i = 0; pids->slots && i <= pids->mask; i++) {
		const struct keymap_slot *s = &pids->slots[i];

		if (s->hash && s->a && s->a <= INT32_MAX)
			proc_of(js, (pid_t)s->a, 1);
	}
}

/* The targets, the processes seen (samples made into stacks) and those
 * created (fork records: known while samples wait to be processed too). */
static void find_procs(struct recorder *rec)
{
	size_t i;

	for (i = 0; i < rec->ntargets; i++)
		if (rec->targets[i].pid > 0 && !rec->targets[i].exited)
			proc_of(&rec->jit, rec->targets[i].pid, 1);
	add_procs(&rec->jit, &rec->seen_pids);
	add_procs(&rec->jit, &rec->target_pids);
}

static void pause_sampling(struct recorder *rec, unsigned long req)
{
	size_t k;

	for (k = 0; k < rec->nfds; k++)
		if (!rec->fds[k].hung_up)
			ioctl(rec->fds[k].fd, req, 0);
}

/* The anonymous memory around JIT code: runs of address-contiguous
 * anonymous mappings (HotSpot's code cache is one reservation, committed
 * in pieces: rwx and ---p mappings side by side) that hold code of the
 * snapshot, [lo, hi). Code compiled later lands in them too, above the
 * snapshot's last entry: frames there get their epoch at once. */
struct code_range {
	uint64_t lo, hi;         /* the snapshot's entries */
	uint64_t run_lo, run_hi; /* the run being read */
	uint64_t out_lo, out_hi; /* the runs that hold entries */
};

static void close_run(struct code_range *c)
{
	if (c->run_hi > c->lo && c->run_lo < c->hi) {
		if (!c->out_hi || c->run_lo < c->out_lo)
			c->out_lo = c->run_lo;
		if (c->run_hi > c->out_hi)
			c->out_hi = c->run_hi;
	}
	c->run_lo = c->run_hi = 0;
}

static int code_run(void *ctx, const struct procfs_map *m)
{
	struct code_range *c = ctx;

	if (m->path[0] || m->start != c->run_hi)
		close_run(c);
	if (m->path[0])
		return 0;
	if (!c->run_hi)
		c->run_lo = m->start;
	c->run_hi = m->end;
	return 0;
}

static void widen_to_mappings(struct jit_proc *p)
{
	struct code_range c = {.lo = p->lo, .hi = p->hi};

	if (procfs_each_map(p->pid, code_run, &c) < 0)
		return;
	close_run(&c);
	if (c.out_hi && c.out_lo < p->lo)
		p->lo = c.out_lo;
	if (c.out_hi > p->hi)
		p->hi = c.out_hi;
}

/* The map p wrote, into the timeline as the end of its current epoch;
 * *gone: entries of its last snapshot no longer there. */
static int keep_map(struct jit_snapshots *js, struct jit_proc *p, uint64_t t, size_t *gone)
{
	struct perf_map *m = NULL;
	char path[256];
	size_t i, n;
	int r;

	r = perf_map__load_pid((uint32_t)p->pid, NULL, &m, path, sizeof(path));
	if (r != PERF_MAP_OK)
		return r < 0 ? r : -ENOENT;
	if (!js->timeline)
		js->timeline = jit_timeline__new();
	if (p->ntimes >= REC_FRAME_EPOCH_MAX)
		r = -E2BIG; /* frames have 16 bits for it */
	else
		r = !js->timeline ? -ENOMEM : GROW(p->times, p->times_cap, p->ntimes + 1);
	if (!r)
		r = jit_timeline__add(js->timeline, (uint32_t)p->pid, p->ntimes, m, gone);
	n = r ? 0 : perf_map__count(m);
	for (i = 0; i < n; i++) {
		uint64_t start, end;
		const char *name;

		perf_map__entry(m, i, &start, &end, &name);
		if (!p->hi || start < p->lo)
			p->lo = start;
		if (end > p->hi)
			p->hi = end;
	}
	perf_map__free(m);
	if (!r && n)
		widen_to_mappings(p);
	if (!r)
		p->times[p->ntimes++] = t;
	return r;
}

static void ask(struct recorder *rec, struct jit_proc *p, uint64_t now)
{
	struct jit_snapshots *js = &rec->jit;
	struct jvm_limits lim = {.deadline_ms = jvm_deadline(JIT_SNAPSHOT_DEADLINE_MS),
				 .cancelled = stop_signalled};
	struct prof_error err;
	uint64_t t0, paused;
	char *out;
	size_t len, gone = 0;
	int r;

	/* Samples before t0 belong to the epoch this snapshot closes. */
	pause_sampling(rec, PERF_EVENT_IOC_DISABLE);
	t0 = monotonic_ns();
	r = jvm_jcmd(p->pid, "Compiler.perfmap", &lim, &out, &len, &err);
	if (!r)
		free(out);
	pause_sampling(rec, PERF_EVENT_IOC_ENABLE);
	paused = monotonic_ns() - t0;
	js->paused_ns += paused;
	js->asks++;
	if (!r)
		r = keep_map(js, p, t0, &gone);
	js->ask_ns += monotonic_ns() - t0;
	if (!r) {
		uint64_t min = JIT_SNAPSHOT_MIN_MS * 1000000ULL;

		if (min > js->period_ns)
			min = js->period_ns;
		if (!p->period_ns)
			p->period_ns = min;
		if (gone)
			p->period_ns = p->period_ns / 2 > min ? p->period_ns / 2 : min;
		else
			p->period_ns = p->period_ns * 2 < js->period_ns ? p->period_ns * 2
									: js->period_ns;
		/* Not sampled while asked: at most 1/JIT_SNAPSHOT_PAUSE_SHARE of
		 * the time, whatever the period. */
		if (p->period_ns < paused * JIT_SNAPSHOT_PAUSE_SHARE)
			p->period_ns = paused * JIT_SNAPSHOT_PAUSE_SHARE;
		p->next_ns = now + p->period_ns;
		return;
	}
	js->failed++;
	p->next_ns = now + js->period_ns;
	if (r == -E2BIG || r == -ENOMEM)
		js->full = 1;
	else if (r == -ENOTSUP || r == -EPERM || r == -EACCES || r == -ESRCH)
		p->jvm = -1; /* refused attach, or gone: not asked again */
	else
		p->next_ns = now + JIT_SNAPSHOT_BACKOFF * js->period_ns;
}

long jit_snapshots_tick(struct recorder *rec, uint64_t now)
{
	struct jit_snapshots *js = &rec->jit;
	uint64_t next, first;
	size_t i;

	/* --no-symbolize: nothing would name frames from them. */
	if (rec->opts->no_symbolize || rec->opts->jit_every_ns == RECORD_JIT_END_ONLY ||
	    js->full)
		return -1;
	if (!js->period_ns)
		js->period_ns = rec->opts->jit_every_ns ? rec->opts->jit_every_ns
							: (uint64_t)JIT_SNAPSHOT_PERIOD_MS * 1000000;
	first = JIT_SNAPSHOT_MIN_MS * 1000000ULL;
	if (first > js->period_ns)
		first = js->period_ns;
	if (now >= js->next_scan_ns) { /* new processes, at most this often */
		find_procs(rec);
		js->next_scan_ns = now + first;
	}
	next = js->next_scan_ns;
	for (i = 0; i < js->nprocs; i++) {
		struct jit_proc *p = &js->procs[i];

		if (p->jvm < 0)
			continue;
		if (!p->next_ns) { /* first seen: the first ask soon */
			p->next_ns = now + first;
		} else if (now >= p->next_ns) {
			if (!p->jvm) {
				int r = jvm_is_jvm(p->pid);

				p->jvm = r == 1 ? 1 : r < 0 ? -1 : 0;
				if (!p->jvm && ++p->checks >= JIT_SNAPSHOT_JVM_CHECKS)
					p->jvm = -1;
			}
			if (p->jvm == 1 && !stop_signalled())
				ask(rec, p, now);
			else
				p->next_ns = now + js->period_ns;
		}
		if (p->jvm >= 0 && p->next_ns < next)
			next = p->next_ns;
	}
	now = monotonic_ns();
	return next <= now ? 0 : (long)((next - now) / 1000000) + 1;
}

void jit_snapshots_write_stats(struct recorder *rec)
{
	struct jit_snapshots *js = &rec->jit;

	if (!js->asks)
		return;
	rec_writer__stat(rec->w, "jvm-jit-snapshots", js->asks - js->failed);
	rec_writer__stat(rec->w, "jvm-jit-snapshots-failed", js->failed);
	rec_writer__stat(rec->w, "jvm-jit-snapshot-ns", js->ask_ns);
	rec_writer__stat(rec->w, "jvm-jit-paused-ns", js->paused_ns);
	if (js->timeline)
		rec_writer__stat(rec->w, "jvm-jit-entries",
				 (uint64_t)jit_timeline__entries(js->timeline));
}

void jit_snapshots_release(struct jit_snapshots *js)
{
	size_t i;

	for (i = 0; i < js->nprocs; i++)
		free(js->procs[i].times);
	free(js->procs);
	jit_timeline__free(js->timeline);
	*js = (struct jit_snapshots){0};
}
