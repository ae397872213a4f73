/* flight-save.c: a flight recorder's save (flight.h): the window of the
 * last ring_ns written as a new, complete recording. The recorder forks;
 * the child owns a copy of everything as it was (the held writer, the
 * ring), writes the file from it and symbolizes it, prints one line and
 * exits, while the parent goes on draining the rings: a save costs the
 * sampling a fork, never the writing or the symbolization. The file is
 * created O_EXCL|O_NOFOLLOW, 0600, under a name nobody had (a number is
 * added within the same second); a failed save is removed and reported,
 * and recording goes on. */
#include "flight.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "recorder.h"
#include "lib/text-clean.h"
#include "symbolize/symbolize.h"

int record_ring_name(char *buf, size_t size, const char *output, int64_t wall, unsigned n)
{
	const char *slash = strrchr(output, '/');
	const char *base = slash ? slash + 1 : output;
	const char *dot = strrchr(base, '.');
	time_t t = (time_t)wall;
	struct tm tm;
	char stamp[32], num[16] = "";
	size_t stem;
	int len;

	if (!dot || dot == base) /* no extension, or a dot file: all of it */
		dot = base + strlen(base);
	stem = (size_t)(dot - output);
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	if (n)
		snprintf(num, sizeof(num), "-%u", n);
	if (stem > INT_MAX)
		return -ENAMETOOLONG;
	len = snprintf(buf, size, "%.*s-%s%s%s", (int)stem, output, stamp, num, dot);
	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}

static void utc_text(char *buf, size_t size, uint64_t mono_ns, uint64_t now_mono,
		     const struct timespec *now_wall)
{
	int64_t back = (int64_t)((now_mono - mono_ns) / 1000000000ULL);
	time_t t = now_wall->tv_sec - (time_t)back;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

struct save_ctx {
	struct rec_writer *w;
	uint64_t samples;
};

static int put_rec(void *ctx, int sched, uint64_t time, const struct flight_rec *r)
{
	struct save_ctx *s = ctx;

	if (sched)
		return rec_writer__sched(s->w, time, r->tid, r->arg, r->cpu, r->x, r->y);
	s->samples++;
	return rec_writer__sample(s->w, time, r->tid, r->arg, r->cpu, r->x, r->y);
}

/* The threads alive at some point of [from, to), started at `from` with
 * their latest names (as prof top's save does), and their exits. */
static int put_threads(struct rec_writer *w, const struct flight *fl, uint64_t from)
{
	int err = 0;

	for (size_t i = 0; !err && i < fl->nthreads; i++) {
		const struct flight_thread *t = &fl->threads[i];

		if (t->exit && t->exit < from)
			continue;
		err = rec_writer__thread(w, REC_THREAD_START, from, t->pid, t->tid, t->name);
		if (!err && t->exit)
			err = rec_writer__thread(w, REC_THREAD_EXIT, t->exit, t->pid, t->tid, 0);
	}
	return err;
}

static int put_meta(struct rec_writer *w, const char *reason, uint64_t from, uint64_t to,
		    const struct flight *fl)
{
	struct timespec wall;
	uint64_t now = monotonic_ns();
	char buf[64];
	int err;

	clock_gettime(CLOCK_REALTIME, &wall);
	err = rec_writer__meta(w, "ring-reason", reason);
	snprintf(buf, sizeof(buf), "%.3f", (double)fl->ring_ns / 1e9);
	if (!err)
		err = rec_writer__meta(w, "ring-seconds", buf);
	utc_text(buf, sizeof(buf), from, now, &wall);
	if (!err)
		err = rec_writer__meta(w, "ring-from", buf);
	utc_text(buf, sizeof(buf), to, now, &wall);
	if (!err)
		err = rec_writer__meta(w, "ring-to", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)from);
	if (!err)
		err = rec_writer__meta(w, "ring-from-monotonic-ns", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)to);
	if (!err)
		err = rec_writer__meta(w, "ring-to-monotonic-ns", buf);
	return err;
}

/* The child: the window [from, to) into fd through the held writer. */
static int write_save(struct recorder *rec, int fd, const char *reason, uint64_t from,
		      uint64_t to, uint64_t *samples)
{
	struct flight *fl = rec->flight;
	struct save_ctx s = {.w = rec->w};
	struct symbolize_stats ss = {0};
	int err = rec_writer__save_to(rec->w, fd);

	if (!err)
		err = put_meta(rec->w, reason, from, to, fl);
	if (!err)
		err = put_threads(rec->w, fl, from);
	if (!err)
		err = flight__each(fl, from, to, put_rec, &s);
	if (!err)
		err = rec_writer__flush(rec->w);
	if (!err && !rec->opts->no_symbolize) {
		struct symbolize_opts so = {0};

		ustack_symbolize_opts(rec, &so);
		so.jit_timeline = rec->jit.timeline;
		err = symbolize_recording(rec->w, &so, &ss);
	} else if (!err) {
		err = symbolize_build_ids(rec->w, NULL);
	}
	if (!err) {
		rec_writer__stat(rec->w, "samples", s.samples);
		rec_writer__stat(rec->w, "lost", rec->sum->lost);
		rec_writer__stat(rec->w, "duration-ns", to - from);
		rec_writer__stat(rec->w, "frames", rec_writer__nframes(rec->w));
		rec_writer__stat(rec->w, "ring-dropped", fl->dropped);
		if (!rec->opts->no_symbolize) {
			rec_writer__stat(rec->w, "frames-resolved", ss.resolved);
			rec_writer__stat(rec->w, "frames-unresolved", ss.unresolved);
		}
		err = rec_writer__meta(rec->w, "symbolized", rec->opts->no_symbolize ? "no" : "yes");
	}
	*samples = s.samples;
	return err;
}

/* The child's file: a new name from the output and the time. fd or -errno. */
static int create_save(const char *output, char *path, size_t size)
{
	struct timespec wall;

	clock_gettime(CLOCK_REALTIME, &wall);
	for (unsigned n = 0; n < 100; n++) {
		int err = record_ring_name(path, size, output, wall.tv_sec, n), fd;

		if (err)
			return err;
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

static void quoted(const char *s)
{
	fputc('\'', stderr);
	text_put(stderr, s); /* the output's name is the user's, cleaned anyway */
	fputc('\'', stderr);
}

static int child_main(struct recorder *rec, const char *reason, uint64_t to)
{
	struct flight *fl = rec->flight;
	uint64_t samples = 0;
	uint64_t from = to > fl->start_ns + fl->ring_ns ? to - fl->ring_ns : fl->start_ns;
	char path[PATH_MAX];
	int fd = create_save(fl->output, path, sizeof(path)), err;

	if (fd < 0) {
		fputs("prof record: cannot save the ring from ", stderr);
		quoted(fl->output);
		fprintf(stderr, ": %s (recording goes on)\n", strerror(-fd));
		return 1;
	}
	err = write_save(rec, fd, reason, from, to, &samples);
	if (!err)
		err = rec_writer__close(rec->w); /* closes fd */
	else
		rec_writer__discard(rec->w);
	rec->w = NULL;
	if (err) {
		unlink(path);
		fputs("prof record: cannot save ", stderr);
		quoted(path);
		fprintf(stderr, ": %s (recording goes on)\n", strerror(-err));
		return 1;
	}
	fputs("prof record: saved ", stderr);
	quoted(path);
	fprintf(stderr, " (%s): %.1f s, %llu samples\n", reason, (double)(to - from) / 1e9,
		(unsigned long long)samples);
	return 0;
}

int flight_save_start(struct recorder *rec, const char *reason, uint64_t to)
{
	struct flight *fl = rec->flight;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		/* The parent's signals are not ours: a Ctrl-C ends the
		 * recorder, which waits for this save. */
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_DFL);
		_exit(child_main(rec, reason, to));
	}
	fl->child = pid;
	return 0;
}

void flight_save_reap(struct flight *fl, int wait)
{
	int status;
	pid_t r;

	if (!fl->child)
		return;
	do
		r = waitpid(fl->child, &status, wait ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return;
	if (r == fl->child && WIFEXITED(status) && !WEXITSTATUS(status))
		fl->saves++;
	else
		fl->failures++;
	fl->child = 0;
}
