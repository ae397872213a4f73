/* run.c: the snapshots of `prof dump`. For each snapshot and each target
 * process: its mappings and threads are read, each thread is looked at
 * through /proc, then the threads are held one at a time for their
 * captures (hold.c, capture.c); once the
 * snapshot's threads all run again their stacks are unwound into the
 * recording (to-recording.c) and the stack copies freed, so memory stays
 * bounded by one snapshot's copies. Snapshots start `interval` apart. */
#include "dump/dump.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "lib/grow.h"

static volatile sig_atomic_t stop_requested;

void dump_request_stop(void)
{
	stop_requested = 1;
}

static int stop_pending(void)
{
	return stop_requested;
}

/* Sleeps until `when` (monotonic ns) or a stop request. */
static void sleep_until(uint64_t when)
{
	while (!stop_requested) {
		uint64_t now = dump_now_ns();
		struct timespec ts;

		if (now >= when)
			return;
		ts.tv_sec = (time_t)((when - now) / 1000000000ull);
		ts.tv_nsec = (long)((when - now) % 1000000000ull);
		if (ts.tv_sec > 0 || ts.tv_nsec > 100000000)
			ts = (struct timespec){0, 100000000};
		nanosleep(&ts, NULL);
	}
}

/* While threads are held prof should not wait for a CPU behind other
 * work: as root, for the capture pass only (not the unwinding after), prof
 * runs at the lowest real-time priority, SCHED_FIFO 1: on a loaded machine
 * that halves how long a spinning thread stays held (docs/prof-dump.md).
 * The kernel's real-time throttling (sched_rt_runtime_us) still bounds it.
 * Where that is refused, the highest nice level instead. */
struct boost {
	int nice0, policy, can_nice;
	struct sched_param param;
};

static void boost_start(struct boost *b)
{
	struct sched_param rt = {.sched_priority = 1};

	b->policy = -1;
	b->can_nice = 0;
	if (geteuid() != 0)
		return;
	b->policy = sched_getscheduler(0);
	if (b->policy == SCHED_OTHER && !sched_getparam(0, &b->param) &&
	    !sched_setscheduler(0, SCHED_FIFO, &rt))
		return;
	b->policy = -1;
	errno = 0;
	b->nice0 = getpriority(PRIO_PROCESS, 0);
	b->can_nice = !errno && b->nice0 > -20 && !setpriority(PRIO_PROCESS, 0, -20);
}

static void boost_end(const struct boost *b)
{
	if (b->policy >= 0)
		sched_setscheduler(0, b->policy, &b->param);
	else if (b->can_nice)
		setpriority(PRIO_PROCESS, 0, b->nice0);
}

/* One snapshot of process pid, in two passes: first what /proc says of
 * every thread (state, wait channel, kernel stack: nothing held), then the
 * captures back to back, so that the first and the last thread's stacks
 * are as close in time as they can be. A thread slow to stop is taken as
 * soon as it stops, between the others' captures, not left held. */
static int snapshot_of(const struct dump_opts *o, struct dump_maps *maps, struct dump_holder *h,
		       pid_t pid, unsigned k, struct dump_set *set, size_t *alive)
{
	pid_t *tids = NULL;
	size_t n = 0, first = set->n, keep;
	int err = dump_maps__read(maps, pid);

	if (!err)
		err = dump_list_threads(pid, &tids, &n);
	if (err)
		return err == -ENOENT ? -ESRCH : err;
	(*alive)++;
	for (size_t i = 0; i < n && !err; i++) {
		struct dump_thread t = {.pid = pid, .tid = tids[i], .snapshot = k, .syscall = -1};

		if (dump_thread_info(&t, o->kernel_stacks))
			continue; /* gone meanwhile */
		if (GROW(set->t, set->cap, set->n + 1)) {
			free(t.kframes);
			err = -ENOMEM;
			break;
		}
		set->t[set->n++] = t;
	}
	free(tids);
	if (!err)
		err = dump_hold_pass(h, set, first, o, maps, &stop_requested);
	/* leave out the threads gone meanwhile, and those a stop request left
	 * untried */
	keep = first;
	for (size_t i = first; i < set->n; i++) {
		struct dump_thread *t = &set->t[i];

		if (!t->tried || (t->err == -ESRCH && !t->captured)) {
			free(t->stack);
			free(t->kframes);
			continue;
		}
		set->t[keep++] = *t;
	}
	set->n = keep;
	return err;
}

int dump_run(const struct dump_opts *o, struct dump_set *set, int *stopped,
	     struct symbolize_stats *ss, char *msg, size_t len)
{
	struct dump_maps maps = {0};
	struct dump_holder holder = {0};
	struct dump_rec rec;
	uint64_t start = dump_now_ns();
	int err = dump_rec__open(&rec, o->path);

	*stopped = 0;
	stop_requested = 0;
	if (err) {
		snprintf(msg, len, "cannot write '%s': %s", o->path, strerror(-err));
		return err;
	}
	for (unsigned k = 0; k < o->count && !stop_requested && !err; k++) {
		size_t first = set->n, alive = 0;
		struct boost boost;

		if (k)
			sleep_until(start + k * o->interval_ns);
		if (stop_requested)
			break;
		boost_start(&boost);
		for (size_t p = 0; p < o->npids && !err; p++) {
			err = snapshot_of(o, &maps, &holder, o->pids[p], k, set, &alive);
			if (err == -ESRCH)
				err = 0; /* that one exited: the others go on */
			else if (err)
				snprintf(msg, len, "cannot hold the threads of process %d: %s",
					 (int)o->pids[p], strerror(-err));
		}
		boost_end(&boost);
		if (!err && !alive) {
			if (!k) {
				err = -ESRCH;
				snprintf(msg, len, "no such process");
			}
			break; /* every target exited */
		}
		if (err)
			break;
		dump_rec__new_maps(&rec, &maps);
		for (size_t i = first; i < set->n && !err; i++) {
			err = dump_rec__add(&rec, &set->t[i]);
			free(set->t[i].stack);
			set->t[i].stack = NULL;
		}
		if (!err) /* whole snapshots in the file, whatever happens next */
			err = rec_writer__flush(rec.w);
		if (err)
			snprintf(msg, len, "cannot write '%s': %s", o->path, strerror(-err));
	}
	*stopped = stop_requested;
	dump_holder__drain(&holder, set, 1000000000ull);
	dump_holder__release(&holder); /* the rest: the kernel lets them go when prof exits */
	if (err) {
		dump_rec__discard(&rec);
		dump_maps__release(&maps);
		return err;
	}
	if (!o->no_symbolize && !stop_requested)
		dump_ask_jvms(&rec, o->pids, o->npids, stop_pending);
	err = dump_rec__close(&rec, !o->no_symbolize, ss);
	dump_maps__release(&maps);
	if (err)
		snprintf(msg, len, "cannot write '%s': %s", o->path, strerror(-err));
	return err;
}
