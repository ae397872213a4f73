/* test-sched.c: the scheduler side of report/: the per-thread model of
 * sched.h (buckets, switches, preemptors, wakers, CPUs, lost events, ties,
 * duplicate wake-ups), its CSV, and the off-CPU and wall-clock profiles of
 * report.h, all from one synthetic recording written with lib/rec-writer.h
 * whose every nanosecond is known. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/rec-writer.h"
#include "lib/recording.h"
#include "report/report.h"
#include "report/sched.h"

/* The recording: 100 ms from START_NS; times below in microseconds after it. */
#define START_NS     1000000000ull
#define DURATION_NS  100000000ull
#define T(us)	     (START_NS + (uint64_t)(us)*1000u)
#define MS(x)	     ((uint64_t)((x)*1000000.0 + 0.5))
#define PID	     100
#define SWITCH_EVERY 3 /* one switch-out in 3 carries a stack */

enum {
	SLEEPER = 101,	/* OUT S, WAKE (twice: a duplicate), IN */
	CRUNCHER = 102, /* preempted three times, by two tasks */
	DISKIO = 103,	/* starts in D, sleeps in D, woken by an interrupt */
	SPINNER = 104,	/* INIT R and nothing else: on CPU all along */
	CHILD = 105,	/* created at 60 ms, exits at 80 ms */
	LOSSY = 106,	/* a lost IN, then a lost OUT */
	TIES = 107,	/* equal times written in the wrong order */
	KWORKER = 201,
	KSOFTIRQD = 202,
};

#define CHILD_NAME "child, \"new\"" /* needs quoting in CSV */

struct fixture {
	char path[64];
	struct recording r;
	size_t nsched;
};

static uint32_t str(struct rec_writer *w, const char *s)
{
	uint32_t id;

	assert_int_equal(rec_writer__string(w, s, strlen(s), &id), 0);
	return id;
}

static uint32_t frame(struct rec_writer *w, uint32_t pid, uint64_t addr, uint32_t flags,
		      const char *sym)
{
	struct rec_symbol s = {.name = 0};
	uint32_t id;

	assert_int_equal(rec_writer__frame(w, pid, addr, flags, REC_NO_MAPPING, &id), 0);
	s.frame = id;
	s.name = str(w, sym);
	assert_int_equal(rec_writer__symbol(w, &s), 0);
	return id;
}

static uint32_t stack(struct rec_writer *w, const uint32_t *frames, size_t n)
{
	uint32_t id = 0;
	size_t i;

	for (i = 0; i < n; i++)
		assert_int_equal(rec_writer__stack(w, id, frames[i], &id), 0);
	return id;
}

static void sched(struct fixture *fx, struct rec_writer *w, uint64_t time, uint32_t tid,
		  uint32_t arg, uint16_t cpu, uint8_t kind, uint8_t state)
{
	assert_int_equal(rec_writer__sched(w, time, tid, arg, cpu, kind, state), 0);
	fx->nsched++;
}

static void thread(struct rec_writer *w, uint32_t kind, uint64_t time, uint32_t tid,
		   const char *name)
{
	assert_int_equal(rec_writer__thread(w, kind, time, PID, tid, name ? str(w, name) : 0), 0);
}

static void write_threads(struct rec_writer *w)
{
	thread(w, REC_THREAD_START, START_NS, SLEEPER, "sleeper");
	thread(w, REC_THREAD_START, START_NS, CRUNCHER, "cruncher");
	thread(w, REC_THREAD_START, START_NS, DISKIO, "diskio");
	thread(w, REC_THREAD_START, START_NS, SPINNER, "spinner");
	thread(w, REC_THREAD_START, T(60000), CHILD, CHILD_NAME);
	thread(w, REC_THREAD_EXIT, T(79900), CHILD, NULL);
	/* Seen a little after the start (attach scans /proc): INIT says it
	 * was there all along. */
	thread(w, REC_THREAD_START, T(1), LOSSY, "lossy");
	thread(w, REC_THREAD_START, START_NS, TIES, "ties");
}

/* The scheduler records, deliberately not in time order (as CPUs'
 * rings deliver them). */
static void write_sched(struct fixture *fx, struct rec_writer *w)
{
	const uint8_t OUT = REC_SCHED_OUT, IN = REC_SCHED_IN, WAKE = REC_SCHED_WAKE;

	sched(fx, w, START_NS, SLEEPER, 0, 0, REC_SCHED_INIT, REC_STATE_RUNNING);
	sched(fx, w, START_NS, CRUNCHER, 0, 0, REC_SCHED_INIT, REC_STATE_RUNNING);
	sched(fx, w, START_NS, DISKIO, 0, 0, REC_SCHED_INIT, REC_STATE_DISK);
	sched(fx, w, START_NS, SPINNER, 0, 0, REC_SCHED_INIT, REC_STATE_RUNNING);
	sched(fx, w, START_NS, LOSSY, 0, 0, REC_SCHED_INIT, REC_STATE_RUNNING);
	sched(fx, w, START_NS, TIES, 0, 0, REC_SCHED_INIT, REC_STATE_RUNNING);

	/* cruncher: R+ at 20 (kworker) .. 25, 50 (ksoftirqd) .. 52, 70 (kworker) .. 71 */
	sched(fx, w, T(20000), KWORKER, str(w, "kworker/2:1"), 0, REC_SCHED_TASK, 0);
	sched(fx, w, T(20000), CRUNCHER, KWORKER, 2, OUT, REC_STATE_PREEMPTED);
	sched(fx, w, T(52000), CRUNCHER, 0, 3, IN, 0);
	sched(fx, w, T(25000), CRUNCHER, 0, 2, IN, 0);
	sched(fx, w, T(50000), KSOFTIRQD, str(w, "ksoftirqd/2"), 0, REC_SCHED_TASK, 0);
	sched(fx, w, T(50000), CRUNCHER, KSOFTIRQD, 2, OUT, REC_STATE_PREEMPTED);
	sched(fx, w, T(70000), CRUNCHER, KWORKER, 3, OUT, REC_STATE_PREEMPTED);
	sched(fx, w, T(71000), CRUNCHER, 0, 3, IN, 0);
	/* Renamed later: the preemption at 70 ms keeps the name it had then. */
	sched(fx, w, T(90000), KWORKER, str(w, "kworker/2:2"), 0, REC_SCHED_TASK, 0);

	/* sleeper: S at 10, woken by diskio at 30 (reported twice), in at 31 */
	sched(fx, w, T(30000), SLEEPER, DISKIO, 1, WAKE, 0);
	sched(fx, w, T(10000), SLEEPER, 0, 0, OUT, REC_STATE_SLEEPING);
	sched(fx, w, T(31000), SLEEPER, 0, 1, IN, 0);
	sched(fx, w, T(30000), SLEEPER, DISKIO, 1, WAKE, 0);

	/* diskio: D until 5, runs, D at 40, woken by an interrupt at 60 */
	sched(fx, w, T(5000), DISKIO, 0, 1, IN, 0);
	sched(fx, w, T(40000), DISKIO, 0, 1, OUT, REC_STATE_DISK);
	sched(fx, w, T(60000), DISKIO, 0, 1, WAKE, 0);
	sched(fx, w, T(60500), DISKIO, 0, 1, IN, 0);

	/* child: woken by its creator at 60, in at 60.2, exits at 80 */
	sched(fx, w, T(60000), CHILD, SLEEPER, 0, WAKE, 0);
	sched(fx, w, T(60200), CHILD, 0, 0, IN, 0);
	sched(fx, w, T(80000), CHILD, 0, 0, OUT, REC_STATE_DEAD);

	/* lossy: S at 10, [IN lost], S at 30, woken at 40, in at 41, [OUT
	 * lost], in at 50, S at 60, in at 90 without a wake-up */
	sched(fx, w, T(10000), LOSSY, 0, 0, OUT, REC_STATE_SLEEPING);
	sched(fx, w, T(30000), LOSSY, 0, 0, OUT, REC_STATE_SLEEPING);
	sched(fx, w, T(40000), LOSSY, SLEEPER, 0, WAKE, 0);
	sched(fx, w, T(41000), LOSSY, 0, 0, IN, 0);
	sched(fx, w, T(50000), LOSSY, 0, 1, IN, 0);
	sched(fx, w, T(60000), LOSSY, 0, 1, OUT, REC_STATE_SLEEPING);
	sched(fx, w, T(90000), LOSSY, 0, 1, IN, 0);

	/* ties: yields at 10 .. 15; at 20 an IN written before the OUT (S)
	 * of the same nanosecond; at 70 an IN written before its WAKE */
	sched(fx, w, T(10000), TIES, 0, 0, OUT, REC_STATE_RUNNING);
	sched(fx, w, T(15000), TIES, 0, 0, IN, 0);
	sched(fx, w, T(20000), TIES, 0, 0, IN, 0);
	sched(fx, w, T(20000), TIES, 0, 0, OUT, REC_STATE_SLEEPING);
	sched(fx, w, T(50000), TIES, 0, 0, OUT, REC_STATE_SLEEPING);
	sched(fx, w, T(70000), TIES, 0, 1, IN, 0);
	sched(fx, w, T(70000), TIES, SLEEPER, 1, WAKE, 0);
}

static void write_samples(struct rec_writer *w)
{
	struct rec_event_desc cpu = {.name = str(w, "cpu-clock"), .type = 1, .freq = 1000};
	struct rec_event_desc sw = {
	    .name = str(w, "sched:sched_switch"), .type = 2, .period = SWITCH_EVERY};
	uint32_t ev_cpu, ev_sw, f_main, f_work, f_crunch, f_wait, f_futex, f_read, f_io;
	uint32_t s_work, s_crunch, s_futex, s_io;

	assert_int_equal(rec_writer__event(w, &cpu, &ev_cpu), 0);
	assert_int_equal(rec_writer__event(w, &sw, &ev_sw), 0);
	assert_int_equal(ev_cpu, 0);
	f_main = frame(w, PID, 0x1000, REC_FRAME_CALLER, "main");
	f_work = frame(w, PID, 0x2000, 0, "work");
	f_crunch = frame(w, PID, 0x3000, 0, "crunch");
	f_wait = frame(w, PID, 0x4000, REC_FRAME_CALLER, "wait_for_work");
	f_futex = frame(w, 0, 0xffffffff81000000ull, REC_FRAME_KERNEL, "futex_wait");
	f_read = frame(w, PID, 0x5000, REC_FRAME_CALLER, "read_file");
	f_io = frame(w, 0, 0xffffffff81001000ull, REC_FRAME_KERNEL, "io_schedule");
	s_work = stack(w, (uint32_t[]){f_main, f_work}, 2);
	s_crunch = stack(w, (uint32_t[]){f_main, f_crunch}, 2);
	s_futex = stack(w, (uint32_t[]){f_main, f_wait, f_futex}, 3);
	s_io = stack(w, (uint32_t[]){f_main, f_read, f_io}, 3);

	/* CPU samples: 1 ms each at 1000 Hz. */
	assert_int_equal(rec_writer__sample(w, T(5000), SLEEPER, s_work, 0, ev_cpu, 0), 0);
	assert_int_equal(rec_writer__sample(w, T(6000), SLEEPER, s_work, 0, ev_cpu, 0), 0);
	assert_int_equal(rec_writer__sample(w, T(30000), CRUNCHER, s_crunch, 2, ev_cpu, 0), 0);
	/* Off-CPU stacks, a few µs off their OUT. */
	assert_int_equal(rec_writer__sample(w, T(10003), SLEEPER, s_futex, 0, ev_sw, 0), 0);
	assert_int_equal(rec_writer__sample(w, T(39998), DISKIO, s_io, 1, ev_sw, 0), 0);
	assert_int_equal(rec_writer__sample(w, T(50001), CRUNCHER, s_crunch, 2, ev_sw, 0), 0);
	/* No OUT within 1 ms: left out. */
	assert_int_equal(rec_writer__sample(w, T(35000), CRUNCHER, s_crunch, 2, ev_sw, 0), 0);
	assert_int_equal(rec_writer__sample(w, T(15000), SLEEPER, s_futex, 0, ev_sw, 0), 0);
}

static void write_recording(struct fixture *fx)
{
	struct rec_writer *w = rec_writer__open(fx->path);
	char buf[32];

	assert_non_null(w);
	snprintf(buf, sizeof(buf), "%llu", START_NS);
	assert_int_equal(rec_writer__meta(w, "start-monotonic-ns", buf), 0);
	write_threads(w);
	write_samples(w);
	write_sched(fx, w);
	assert_int_equal(rec_writer__stat(w, "duration-ns", DURATION_NS), 0);
	assert_int_equal(rec_writer__stat(w, "sched-lost", 3), 0);
	assert_int_equal(rec_writer__close(w), 0);
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	unsigned char *data;
	size_t size;
	char err[256] = "";
	int fd;

	assert_non_null(fx);
	strcpy(fx->path, "/tmp/test-sched-XXXXXX");
	fd = mkstemp(fx->path);
	assert_true(fd >= 0);
	close(fd);
	write_recording(fx);
	assert_int_equal(read_whole_file(fx->path, &data, &size), 0);
	assert_int_equal(recording__parse(&fx->r, data, size, err, sizeof(err)), 0);
	assert_int_equal(fx->r.nsched, fx->nsched);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	recording__release(&fx->r);
	unlink(fx->path);
	free(fx);
	return 0;
}

/* ---- the scheduler model ---- */

static const struct sched_thread *find(const struct sched_profile *sp, uint32_t tid)
{
	size_t i;

	for (i = 0; i < sp->nthreads; i++)
		if (sp->threads[i].tid == tid)
			return &sp->threads[i];
	fail_msg("no thread %u", tid);
	return NULL;
}

static void assert_ns(const struct sched_thread *t, uint64_t on, uint64_t preempted, uint64_t woken,
		      uint64_t sleeping, uint64_t disk, uint64_t other)
{
	assert_int_equal(t->ns[SCHED_ON_CPU], on);
	assert_int_equal(t->ns[SCHED_PREEMPTED], preempted);
	assert_int_equal(t->ns[SCHED_WOKEN], woken);
	assert_int_equal(t->ns[SCHED_SLEEPING], sleeping);
	assert_int_equal(t->ns[SCHED_DISK], disk);
	assert_int_equal(t->ns[SCHED_OTHER], other);
}

static void build_sched(struct fixture *fx, struct sched_profile *sp)
{
	assert_int_equal(sched_profile__from_recording(sp, &fx->r), 0);
}

static void test_model_window_and_order(void **state)
{
	struct fixture *fx = *state;
	struct sched_profile sp;
	const char *want[] = {CHILD_NAME, "cruncher", "diskio", "lossy",
			      "sleeper",  "spinner",  "ties"};
	size_t i, b;

	build_sched(fx, &sp);
	assert_int_equal(sp.start, START_NS);
	assert_int_equal(sp.end, START_NS + DURATION_NS);
	assert_int_equal(sp.ncpus, 4);
	assert_int_equal(sp.nrecords, fx->nsched);
	assert_int_equal(sp.lost, 3);
	assert_int_equal(sp.inconsistent, 2);
	assert_int_equal(sp.nthreads, 7);
	for (i = 0; i < sp.nthreads; i++) {
		const struct sched_thread *t = &sp.threads[i];
		uint64_t sum = 0;

		assert_string_equal(sched_profile__name(&sp, t->name), want[i]);
		assert_int_equal(t->pid, PID);
		/* Every nanosecond of the window in exactly one bucket. */
		for (b = 0; b < SCHED_NBUCKETS; b++)
			sum += t->ns[b];
		assert_int_equal(sum, t->end - t->start);
	}
	sched_profile__release(&sp);
}

static void test_model_sleeper(void **state)
{
	struct fixture *fx = *state;
	struct sched_profile sp;
	const struct sched_thread *t;

	build_sched(fx, &sp);
	t = find(&sp, SLEEPER);
	assert_int_equal(t->start, START_NS);
	assert_int_equal(t->end, START_NS + DURATION_NS);
	/* On CPU until its first OUT (on CPU 0), then from the IN on CPU 1. */
	assert_ns(t, MS(10) + MS(69), 0, MS(1), MS(20), 0, 0);
	assert_int_equal(t->cpu_ns[0], MS(10));
	assert_int_equal(t->cpu_ns[1], MS(69));
	assert_int_equal(t->nswitches, 1);
	assert_int_equal(t->switches[REC_STATE_SLEEPING], 1);
	assert_int_equal(sched_thread__runnable_ns(t), MS(1));
	/* The duplicate wake-up counts once; the waker is named after its
	 * thread (no TASK record names it). */
	assert_int_equal(t->nwakers, 1);
	assert_int_equal(t->wakers[0].tid, DISKIO);
	assert_string_equal(sched_profile__name(&sp, t->wakers[0].name), "diskio");
	assert_int_equal(t->wakers[0].count, 1);
	assert_int_equal(t->wakers[0].ns, MS(1));
	assert_int_equal(t->npreemptors, 0);
	sched_profile__release(&sp);
}

static void test_model_preempted(void **state)
{
	struct fixture *fx = *state;
	struct sched_profile sp;
	const struct sched_thread *t;

	build_sched(fx, &sp);
	t = find(&sp, CRUNCHER);
	assert_ns(t, MS(20 + 25 + 18 + 29), MS(5 + 2 + 1), 0, 0, 0, 0);
	assert_int_equal(t->cpu_ns[2], MS(45));
	assert_int_equal(t->cpu_ns[3], MS(47));
	assert_int_equal(t->switches[REC_STATE_PREEMPTED], 3);
	assert_int_equal(t->nswitches, 3);
	/* Two preemptors, by the runnable time that followed; kworker keeps
	 * the name it had at 70 ms. */
	assert_int_equal(t->npreemptors, 2);
	assert_string_equal(sched_profile__name(&sp, t->preemptors[0].name), "kworker/2:1");
	assert_int_equal(t->preemptors[0].tid, KWORKER);
	assert_int_equal(t->preemptors[0].count, 2);
	assert_int_equal(t->preemptors[0].ns, MS(6));
	assert_string_equal(sched_profile__name(&sp, t->preemptors[1].name), "ksoftirqd/2");
	assert_int_equal(t->preemptors[1].count, 1);
	assert_int_equal(t->preemptors[1].ns, MS(2));
	sched_profile__release(&sp);
}

static void test_model_disk_and_irq_waker(void **state)
{
	struct fixture *fx = *state;
	struct sched_profile sp;
	const struct sched_thread *t;

	build_sched(fx, &sp);
	t = find(&sp, DISKIO);
	/* INIT D until the first IN at 5 ms. */
	assert_ns(t, MS(35) + MS(39.5), 0, MS(0.5), 0, MS(5) + MS(20), 0);
	assert_int_equal(t->cpu_ns[1], MS(74.5));
	assert_int_equal(t->switches[REC_STATE_DISK], 1);
	assert_int_equal(t->nwakers, 1);
	assert_string_equal(sched_profile__name(&sp, t->wakers[0].name), "[idle/irq]");
	assert_int_equal(t->wakers[0].tid, 0);
	assert_int_equal(t->wakers[0].ns, MS(0.5));
	sched_profile__release(&sp);
}

static void test_model_never_switches(void **state)
{
	struct fixture *fx = *state;
	struct sched_profile sp;
	const struct sched_thread *t;
	size_t c;

	build_sched(fx, &sp);
	t = find(&sp, SPINNER);
	assert_ns(t, MS(100), 0, 0, 0, 0, 0);
	assert_int_equal(t->nswitches, 0);
	for (c = 0; c < sp.ncpus; c++)
		assert_int_equal(t->cpu_ns[c], 0); /* its CPU is not known */
	sched_profile__release(&sp);
}

static void test_model_created_mid_recording(void **state)
{
	struct fixture *fx = *state;
	struct sched_profile sp;
	const struct sched_thread *t;

	build_sched(fx, &sp);
	t = find(&sp, CHILD);
	/* From its creation to its last OUT (after its EXIT event). */
	assert_int_equal(t->start, T(60000));
	assert_int_equal(t->end, T(80000));
	assert_ns(t, MS(19.8), 0, MS(0.2), 0, 0, 0);
	assert_int_equal(t->cpu_ns[0], MS(19.8));
	assert_int_equal(t->switches[REC_STATE_DEAD], 1);
	assert_int_equal(t->nwakers, 1);
	assert_string_equal(sched_profile__name(&sp, t->wakers[0].name), "sleeper");
	assert_int_equal(t->wakers[0].ns, MS(0.2));
	sched_profile__release(&sp);
}

static void test_model_lost_events(void **state)
{
	struct fixture *fx = *state;
	struct sched_profile sp;
	const struct sched_thread *t;

	build_sched(fx, &sp);
	t = find(&sp, LOSSY);
	/* The window starts at the recording's start (INIT), not at START. */
	assert_int_equal(t->start, START_NS);
	/* 10..30 (an IN lost) and 41..50 (an OUT lost) are unknown. */
	assert_ns(t, MS(10 + 10 + 10), 0, MS(1), MS(10 + 30), 0, MS(20 + 9));
	assert_int_equal(t->cpu_ns[0], MS(10));
	assert_int_equal(t->cpu_ns[1], MS(20));
	assert_int_equal(t->switches[REC_STATE_SLEEPING], 3);
	sched_profile__release(&sp);
}

static void test_model_ties(void **state)
{
	struct fixture *fx = *state;
	struct sched_profile sp;
	const struct sched_thread *t;

	build_sched(fx, &sp);
	t = find(&sp, TIES);
	/* OUT before IN at 20 ms (it was on CPU); WAKE before IN at 70 ms. */
	assert_ns(t, MS(10 + 5 + 30 + 30), MS(5), 0, MS(20), 0, 0);
	assert_int_equal(t->switches[REC_STATE_RUNNING], 1);
	assert_int_equal(t->switches[REC_STATE_SLEEPING], 2);
	assert_int_equal(t->nwakers, 1);
	assert_int_equal(t->wakers[0].count, 1);
	assert_int_equal(t->wakers[0].ns, 0);
	sched_profile__release(&sp);
}

static void test_model_no_sched_data(void **state)
{
	struct sched_profile sp;
	struct recording r;
	struct profile p;
	struct profile_build_opts o = {.weight = PROFILE_WEIGHT_OFF_CPU};
	struct rec_writer *w;
	unsigned char *data;
	size_t size;
	char path[] = "/tmp/test-sched-XXXXXX", err[128];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	w = rec_writer__open(path);
	assert_non_null(w);
	assert_int_equal(rec_writer__sample(w, 5, 1, 0, 0, 0, 0), 0);
	assert_int_equal(rec_writer__close(w), 0);
	assert_int_equal(read_whole_file(path, &data, &size), 0);
	assert_int_equal(recording__parse(&r, data, size, err, sizeof(err)), 0);
	assert_int_equal(sched_profile__from_recording(&sp, &r), -ENODATA);
	sched_profile__release(&sp);
	assert_int_equal(profile__init(&p), 0);
	assert_int_equal(profile__from_recording(&p, &r, &o), -ENODATA);
	profile__release(&p);
	recording__release(&r);
	unlink(path);
}

/* ---- CSV ---- */

/* Splits one CSV line (RFC 4180) into fields; returns their number. */
static size_t csv_split(const char *line, char fields[][64], size_t max)
{
	size_t n = 0, len = 0;
	int quoted = 0;

	memset(fields, 0, max * sizeof(fields[0]));
	for (; *line && *line != '\n'; line++) {
		if (quoted) {
			if (*line == '"' && line[1] == '"')
				fields[n][len++] = *line++;
			else if (*line == '"')
				quoted = 0;
			else
				fields[n][len++] = *line;
		} else if (*line == '"') {
			quoted = 1;
		} else if (*line == ',') {
			assert_true(++n < max);
			len = 0;
		} else {
			fields[n][len++] = *line;
		}
		assert_true(len < 64);
	}
	return n + 1;
}

#define assert_prefix(s, lit) assert_true(!strncmp((s), lit, strlen(lit)))

static void test_csv(void **state)
{
	struct fixture *fx = *state;
	struct sched_profile sp;
	char *out = NULL, *line, fields[32][64];
	size_t len = 0, rows = 0;
	FILE *f;

	build_sched(fx, &sp);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(sched_profile__write_csv(&sp, f), 0);
	fclose(f);
	assert_prefix(out, "tid,pid,name,start_ms,end_ms,switches,on_cpu_ms,runnable_ms,sleep_ms,"
			   "iowait_ms,other_ms,preempted_ms,wakeup_wait_ms,switches_r,switches_s,"
			   "switches_d,switches_other,top_preemptor,cpus\n");
	for (line = strchr(out, '\n') + 1; *line; line = strchr(line, '\n') + 1)
		rows++;
	assert_int_equal(rows, sp.nthreads);

	/* The first row: the quoted name, read back. */
	line = strchr(out, '\n') + 1;
	assert_prefix(line, "105,100,\"child, \"\"new\"\"\",60.000,80.000,1,19.800,0.200,");
	assert_int_equal(csv_split(line, fields, 32), 19);
	assert_string_equal(fields[2], CHILD_NAME);
	assert_string_equal(fields[16], "1"); /* switches_other: X */
	assert_string_equal(fields[18], "0:19.800");

	/* cruncher, whole. */
	line = strstr(out, "\n102,") + 1;
	assert_int_equal(csv_split(line, fields, 32), 19);
	assert_string_equal(fields[0], "102");
	assert_string_equal(fields[2], "cruncher");
	assert_string_equal(fields[3], "0.000");
	assert_string_equal(fields[4], "100.000");
	assert_string_equal(fields[5], "3");
	assert_string_equal(fields[6], "92.000");
	assert_string_equal(fields[7], "8.000");
	assert_string_equal(fields[11], "8.000");
	assert_string_equal(fields[12], "0.000");
	assert_string_equal(fields[13], "3");
	assert_string_equal(fields[17], "kworker/2:1");
	assert_string_equal(fields[18], "2:45.000 3:47.000");

	/* diskio: half milliseconds. */
	line = strstr(out, "\n103,") + 1;
	assert_prefix(line, "103,100,diskio,0.000,100.000,1,74.500,0.500,0.000,25.000,0.000,"
			    "0.000,0.500,0,0,1,0,,1:74.500\n");
	/* A thread never on a known CPU: an empty last field. */
	line = strstr(out, "\n104,") + 1;
	assert_prefix(line, "104,100,spinner,0.000,100.000,0,100.000,0.000,0.000,0.000,0.000,"
			    "0.000,0.000,0,0,0,0,,\n");
	free(out);
	sched_profile__release(&sp);
}

/* ---- off-CPU and wall profiles ---- */

static char *folded(struct profile *p, enum profile_thread_root root)
{
	struct folded_opts o = {.thread_root = root};
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(profile__write_folded(p, &o, f), 0);
	fclose(f);
	return out;
}

static void assert_profile(struct fixture *fx, enum profile_by by, enum profile_weight weight,
			   enum profile_thread_root root, const char *want)
{
	struct profile_build_opts o = {.by = by, .weight = weight};
	struct profile p;
	char *out;

	assert_int_equal(profile__init(&p), 0);
	assert_int_equal(profile__from_recording(&p, &fx->r, &o), 0);
	out = folded(&p, root);
	assert_string_equal(out, want);
	free(out);
	profile__release(&p);
}

static void test_cpu_profile_ignores_tracepoints(void **state)
{
	struct fixture *fx = *state;

	assert_profile(fx, PROFILE_BY_STACK, PROFILE_WEIGHT_CPU, PROFILE_ROOT_NONE,
		       "main;crunch 1\nmain;work 2\n");
	assert_profile(fx, PROFILE_BY_THREAD, PROFILE_WEIGHT_CPU, PROFILE_ROOT_NAME,
		       "cruncher;main;crunch 1\nsleeper;main;work 2\n");
}

/* Each stack weighs its OUT's time off CPU, scaled by the thread's off-CPU
 * time after all its OUTs over that after its OUTs with a stack, in µs:
 * sleeper 20 ms asleep + 1 ms waiting for a CPU, diskio 20 ms in D + 0.5
 * ms (their only OUTs, each with its stack: x 1); cruncher 2 ms preempted
 * at 50 ms, the one of its three OUTs with a stack (5 + 2 + 1 ms): x 4. */
static const char want_off_cpu[] =
    "cruncher;main;crunch;[R preempted] 8000\n"
    "diskio;main;read_file;io_schedule_[k];[D uninterruptible] 20000\n"
    "diskio;main;read_file;io_schedule_[k];[R waiting for CPU] 500\n"
    "sleeper;main;wait_for_work;futex_wait_[k];[R waiting for CPU] 1000\n"
    "sleeper;main;wait_for_work;futex_wait_[k];[S sleeping] 20000\n";

static void test_off_cpu_profile(void **state)
{
	struct fixture *fx = *state;

	assert_profile(fx, PROFILE_BY_THREAD, PROFILE_WEIGHT_OFF_CPU, PROFILE_ROOT_NAME,
		       want_off_cpu);
	assert_profile(fx, PROFILE_BY_STACK, PROFILE_WEIGHT_OFF_CPU, PROFILE_ROOT_NONE,
		       "main;crunch;[R preempted] 8000\n"
		       "main;read_file;io_schedule_[k];[D uninterruptible] 20000\n"
		       "main;read_file;io_schedule_[k];[R waiting for CPU] 500\n"
		       "main;wait_for_work;futex_wait_[k];[R waiting for CPU] 1000\n"
		       "main;wait_for_work;futex_wait_[k];[S sleeping] 20000\n");
}

static void test_off_cpu_filters(void **state)
{
	struct fixture *fx = *state;
	struct profile_build_opts o = {.by = PROFILE_BY_THREAD, .weight = PROFILE_WEIGHT_OFF_CPU};
	struct profile_filter f;
	struct profile p;
	char err[64], *out;

	assert_int_equal(profile__init(&p), 0);
	assert_int_equal(profile__from_recording(&p, &fx->r, &o), 0);
	assert_int_equal(p.total, 8000 + 20000 + 500 + 1000 + 20000);
	assert_int_equal(profile_filter__init(&f, 0), 0);
	assert_int_equal(
	    profile_filter__add_regex(&f, PROFILE_INCLUDE, "waiting for CPU", err, sizeof(err)), 0);
	assert_int_equal(profile_filter__add_tid(&f, SLEEPER), 0);
	assert_int_equal(profile__filter(&p, &f), 0);
	out = folded(&p, PROFILE_ROOT_NAME_TID);
	assert_string_equal(
	    out, "sleeper/101;main;wait_for_work;futex_wait_[k];[R waiting for CPU] 1000\n");
	free(out);
	profile_filter__release(&f);
	profile__release(&p);
}

static void test_wall_profile(void **state)
{
	struct fixture *fx = *state;

	/* CPU samples at 1000 Hz weigh 1000 µs each, beside the off-CPU time. */
	assert_profile(fx, PROFILE_BY_THREAD, PROFILE_WEIGHT_WALL, PROFILE_ROOT_NAME,
		       "cruncher;main;crunch 1000\n"
		       "cruncher;main;crunch;[R preempted] 8000\n"
		       "diskio;main;read_file;io_schedule_[k];[D uninterruptible] 20000\n"
		       "diskio;main;read_file;io_schedule_[k];[R waiting for CPU] 500\n"
		       "sleeper;main;wait_for_work;futex_wait_[k];[R waiting for CPU] 1000\n"
		       "sleeper;main;wait_for_work;futex_wait_[k];[S sleeping] 20000\n"
		       "sleeper;main;work 2000\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_model_window_and_order),
	    cmocka_unit_test(test_model_sleeper),
	    cmocka_unit_test(test_model_preempted),
	    cmocka_unit_test(test_model_disk_and_irq_waker),
	    cmocka_unit_test(test_model_never_switches),
	    cmocka_unit_test(test_model_created_mid_recording),
	    cmocka_unit_test(test_model_lost_events),
	    cmocka_unit_test(test_model_ties),
	    cmocka_unit_test(test_model_no_sched_data),
	    cmocka_unit_test(test_csv),
	    cmocka_unit_test(test_cpu_profile_ignores_tracepoints),
	    cmocka_unit_test(test_off_cpu_profile),
	    cmocka_unit_test(test_off_cpu_filters),
	    cmocka_unit_test(test_wall_profile),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
