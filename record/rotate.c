/* rotate.c: `prof record --rotate` (record.h): one recording per period in
 * a directory. The periods' boundaries are fixed CLOCK_MONOTONIC times;
 * period k is recorded by a child process that attaches a little before
 * the boundary (LEAD) and keeps only the samples of [T_k, T_k+1)
 * (record_opts.window_*), so two recorders overlap briefly and no sample
 * time is missed or kept twice. Finishing a file (the last drain,
 * processing, symbolizing) happens in its own process while the next
 * period is already sampled; each process starts with empty tables, so
 * nothing grows over hours. This process only waits, names files and
 * prunes the directory. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/prof-error.h"
#include "record.h"
#include "rotate.h"

#define NS 1000000000ULL
/* How long before its period a recorder starts: attaching, reading the
 * targets' maps and choosing the stack mode take tens of ms for a small
 * target. Half a period, at most LEAD_NS, to begin with; each recorder
 * tells how long it took to start sampling (a pipe), and the lead grows
 * to twice the longest seen, up to a period or LEAD_MAX_NS. */
#define LEAD_NS	    (2 * NS)
#define LEAD_MAX_NS (10 * NS)
/* A recorder stops this long after its period, so the samples of the
 * period's last moment are in its rings when it drains them last. */
#define TAIL_NS 20000000ULL
#define POLL_NS 50000000L
/* Recorders at once: the one of the period, the next one starting, and
 * those still finishing their files (symbolizing can take seconds on a
 * loaded machine); when all are busy, the oldest is waited for. */
#define NSLOTS 8

static volatile sig_atomic_t rotate_stop;

static void on_signal(int sig)
{
	(void)sig;
	rotate_stop = 1;
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
}

struct period {
	pid_t pid; /* 0: free */
	uint64_t since, until;
	char name[64];
	int late_said;	 /* the child: its late start was reported */
	uint64_t forked; /* when it was started (monotonic) */
	int fd;		 /* the parent: the start-up time's pipe (-1: none); the child: its end */
};

struct rotation {
	const struct record_opts *opts;
	const char *dir;
	int dirfd;
	uint64_t period, t0, w0, end;
	const struct rotate_keep *keep;
	struct period slot[NSLOTS];
	uint64_t lead;
	int failed;	  /* periods that failed */
	int first_failed; /* the first one: nothing was ever recorded */
	int done;	  /* the targets exited: no more periods */
};

/* In the child: a recorder that began sampling after its period began
 * says how much it missed (a loaded machine; a target with many threads). */
static int child_tick(void *ctx, const struct record_tick *t)
{
	struct period *p = ctx;

	if (!p->late_said && p->fd >= 0) {
		uint64_t took = t->start_ns > p->forked ? t->start_ns - p->forked : 0;

		if (write(p->fd, &took, sizeof(took)) < 0) {
			/* the parent learns nothing: it keeps its lead */
		}
	}
	if (!p->late_said && p->since && t->start_ns > p->since) {
		fprintf(stderr,
			"prof record: warning: %s began sampling %.0f ms into its period: "
			"samples of that time are missing\n",
			p->name, (double)(t->start_ns - p->since) / 1e6);
	}
	p->late_said = 1;
	return 0;
}

/* In the child: stop once past the period. */
static int child_stop(void *ctx)
{
	const struct period *p = ctx;

	return clock_ns(CLOCK_MONOTONIC) >= p->until + TAIL_NS;
}

static long child_next_ms(void *ctx, uint64_t now)
{
	const struct period *p = ctx;
	uint64_t at = p->until + TAIL_NS;

	return now >= at ? 0 : (long)((at - now) / 1000000) + 1;
}

static void run_child(struct rotation *r, struct period *p, int first)
{
	struct record_opts o = *r->opts;
	struct record_hooks hooks = {
	    .tick = child_tick, .stop = child_stop, .next_ms = child_next_ms, .ctx = p};
	struct record_summary sum;
	struct prof_error err;
	char path[4200];
	struct stat st;
	int rc;

	prctl(PR_SET_PDEATHSIG, SIGTERM);
	snprintf(path, sizeof(path), "%s/%s", r->dir, p->name);
	o.output = path;
	o.duration_ns = 0;
	o.quiet = r->opts->quiet || !first; /* the notices once */
	o.window_since_ns = p->since;
	o.window_until_ns = p->until;
	rc = record_run_hooks(&o, &hooks, &sum, &err);
	if (rc && !fstatat(r->dirfd, p->name, &st, AT_SYMLINK_NOFOLLOW) && !st.st_size)
		unlinkat(r->dirfd, p->name, 0); /* the claimed name, never written */
	if (rc == -ESRCH && !first) {
		/* the targets ended before it began: nothing to say */
	} else if (rc) {
		fprintf(stderr, "prof record: %s\n", err.msg);
		if (err.hint[0])
			fprintf(stderr, "hint: %s\n", err.hint);
	} else if (!r->opts->quiet) {
		fprintf(stderr, "prof record: %s: %llu samples, %llu lost, %.0f KB\n", path,
			(unsigned long long)sum.samples, (unsigned long long)sum.lost,
			(double)sum.bytes / 1024.0);
	}
	exit(!rc ? 0 : rc == -ESRCH ? 3 : rc == -ENOSPC || rc == -EDQUOT || rc == -EIO ? 4 : 1);
}

static int start_period(struct rotation *r, struct period *p, uint64_t since, uint64_t until,
			int first)
{
	uint64_t wall = r->w0 + (since > r->t0 ? since - r->t0 : 0);
	int err = rotate_dir_claim(r->dirfd, wall, p->name, sizeof(p->name));

	if (err)
		return err;
	int pfd[2];

	p->since = first ? 0 : since;
	p->until = until;
	if (pipe2(pfd, O_CLOEXEC | O_NONBLOCK))
		pfd[0] = pfd[1] = -1;
	fflush(NULL);
	p->forked = clock_ns(CLOCK_MONOTONIC);
	p->pid = fork();
	if (p->pid < 0) {
		err = -errno;
		p->pid = 0;
		close(pfd[0]);
		close(pfd[1]);
		unlinkat(r->dirfd, p->name, 0);
		return err;
	}
	if (!p->pid) {
		for (int k = 0; k < NSLOTS; k++)
			if (r->slot[k].fd >= 0 && &r->slot[k] != p)
				close(r->slot[k].fd);
		if (pfd[0] >= 0)
			close(pfd[0]);
		p->fd = pfd[1];
		run_child(r, p, first);
	}
	if (pfd[1] >= 0)
		close(pfd[1]);
	if (p->fd >= 0)
		close(p->fd);
	p->fd = pfd[0];
	return 0;
}

static int targets_alive(const struct record_opts *o)
{
	for (size_t i = 0; i < o->npids; i++)
		if (!kill(o->pids[i], 0) || errno != ESRCH)
			return 1;
	return 0;
}

static int busy_slots(const struct rotation *r)
{
	int n = 0;

	for (int k = 0; k < NSLOTS; k++)
		n += r->slot[k].pid != 0;
	return n;
}

/* --keep: the oldest files go, never one a recorder still writes. */
static void prune(struct rotation *r)
{
	const char *busy[NSLOTS];
	size_t removed;

	if (!r->keep->seconds && !r->keep->bytes)
		return;
	for (int i = 0; i < NSLOTS; i++)
		busy[i] = r->slot[i].pid ? r->slot[i].name : NULL;
	rotate_dir_prune(r->dirfd, r->keep, busy, NSLOTS, &removed);
}

/* The start-up times the recorders sent: the lead follows the longest. */
static void learn_lead(struct rotation *r)
{
	uint64_t cap = r->period < LEAD_MAX_NS ? r->period : LEAD_MAX_NS;

	for (int k = 0; k < NSLOTS; k++) {
		uint64_t took;

		if (r->slot[k].fd < 0 || read(r->slot[k].fd, &took, sizeof(took)) != sizeof(took))
			continue;
		took = 2 * took < cap ? 2 * took : cap;
		if (took > r->lead)
			r->lead = took;
	}
}

/* Reaps the recorders that ended (block: waits for the one at `only`,
 * else -1: any that ended); prunes after each. */
static void reap(struct rotation *r, int only)
{
	for (int k = 0; k < NSLOTS; k++) {
		struct period *p = &r->slot[k];
		int status;
		pid_t got;

		if (!p->pid || (only >= 0 && k != only))
			continue;
		got = waitpid(p->pid, &status, only >= 0 ? 0 : WNOHANG);
		if (got != p->pid)
			continue;
		p->pid = 0;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			r->failed++;
			if (!p->since && WIFEXITED(status) && WEXITSTATUS(status) == 1)
				r->done = r->first_failed = 1; /* the first: it said why */
			else if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
				r->done = 1; /* nothing left to attach to */
			else
				fprintf(stderr,
					"prof record: warning: the recording of %s/%s failed "
					"(above); recording goes on\n",
					r->dir, p->name);
		}
		if (clock_ns(CLOCK_MONOTONIC) < p->until && !targets_alive(r->opts))
			r->done = 1;
		prune(r);
	}
}

static void signal_children(struct rotation *r)
{
	for (int k = 0; k < NSLOTS; k++)
		if (r->slot[k].pid)
			kill(r->slot[k].pid, SIGINT);
}

static int rotate_loop(struct rotation *r)
{
	uint64_t next = r->t0 + r->period; /* the next boundary */
	int err;

	r->lead = r->period / 2 < LEAD_NS ? r->period / 2 : LEAD_NS;
	err = start_period(r, &r->slot[0], r->t0, next < r->end ? next : r->end, 1);
	if (err)
		return err;
	while (!rotate_stop && !r->done) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC);
		struct timespec ts = {0, POLL_NS};

		learn_lead(r);
		reap(r, -1);
		if (r->done || next >= r->end) {
			if (!busy_slots(r))
				break;
		} else if (now + r->lead >= next) {
			uint64_t until = next + r->period < r->end ? next + r->period : r->end;
			int k, oldest = 0;

			for (k = 0; k < NSLOTS && r->slot[k].pid; k++)
				if (r->slot[k].since < r->slot[oldest].since)
					oldest = k;
			if (k == NSLOTS) { /* all busy: wait for the oldest to finish */
				reap(r, oldest);
				k = oldest;
			}
			err = start_period(r, &r->slot[k], next, until, 0);
			if (err)
				fprintf(stderr,
					"prof record: warning: cannot start the next file in %s: "
					"%s; trying again next period\n",
					r->dir, strerror(-err));
			next += r->period;
			prune(r);
		}
		nanosleep(&ts, NULL);
	}
	if (rotate_stop)
		signal_children(r);
	for (int k = 0; k < NSLOTS; k++)
		if (r->slot[k].pid)
			reap(r, k);
	return 0;
}

int record_rotate(const struct record_opts *opts, uint64_t period_ns,
		  const struct rotate_keep *keep, struct prof_error *errp)
{
	struct rotation r = {.opts = opts, .period = period_ns, .keep = keep, .dirfd = -1};
	char dir[4096];
	size_t len;
	struct sigaction sa, old[3];
	const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
	int err;

	memset(errp, 0, sizeof(*errp));
	/* DIR/ is shown DIR: the files DIR/NAME */
	len = strlen(opts->output);
	while (len > 1 && opts->output[len - 1] == '/')
		len--;
	snprintf(dir, sizeof(dir), "%.*s", (int)len, opts->output);
	r.dir = dir;
	for (int k = 0; k < NSLOTS; k++)
		r.slot[k].fd = -1;
	err = rotate_dir_open(r.dir, &r.dirfd);
	if (err == -ELOOP)
		return prof_error_set(errp, err, "give a directory of yours with -o",
				      "'%s' is a symlink: refusing to write through it", r.dir);
	if (err == -EPERM)
		return prof_error_set(errp, err, "give a directory of yours (mode 0700) with -o",
				      "'%s' belongs to another user or others can write to it",
				      r.dir);
	if (err)
		return prof_error_set(errp, err, NULL,
				      "cannot use '%s' as the directory of the "
				      "recordings: %s",
				      r.dir, strerror(-err));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	rotate_stop = 0;
	r.t0 = clock_ns(CLOCK_MONOTONIC);
	r.w0 = clock_ns(CLOCK_REALTIME);
	r.end = opts->duration_ns ? r.t0 + opts->duration_ns : UINT64_MAX;
	err = rotate_loop(&r);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	for (int k = 0; k < NSLOTS; k++)
		if (r.slot[k].fd >= 0)
			close(r.slot[k].fd);
	close(r.dirfd);
	if (!err && r.first_failed)
		return -ECANCELED; /* the recorder said why */
	if (err)
		return prof_error_set(errp, err, NULL, "cannot start a recording in '%s': %s",
				      r.dir, strerror(-err));
	return 0;
}
