/*
 * sched-mix.c: threads with known scheduler behaviour, for the tests of
 * `prof record --sched`: time on CPU, runnable (R: preempted, or woken and
 * waiting for a CPU), sleeping (S), uninterruptible (D), and the stacks the
 * threads are switched out in.
 *
 *   usage: sched-mix [SECONDS [GROUPS]]   (default 3; fractions allowed)
 *
 * GROUPS is a comma-separated list of napper, spin, syncer, locker (default:
 * all four), so that a test can isolate behaviours: `sched-mix 3 napper,syncer`.
 *
 * Threads and what a scheduler profile of this program must show (measured
 * on the 2-CPU development VM, per thread, from /proc/PID/task/TID/schedstat
 * and the switch-out states of sched:sched_switch):
 *   napper  sleeps 20 ms in nanosleep, then 20 µs of CPU, in a loop: S more
 *       than 90% of its time (99% alone, 93-99% with all groups), about 48
 *       switch-outs a second, all S, in napper_loop;nap;[libc nanosleep].
 *   spin-1 .. spin-N  N = 2 x CPUs + 1 (the CPUs sched_getaffinity allows,
 *       normally the online ones: 5 spinners on 2 CPUs). Pure CPU in
 *       spinner_thread;spin_loop;burn_spin, never blocking: more runnable
 *       threads than CPUs, so all their switch-outs are R, and each is R
 *       (preempted) most of the time: alone (`sched-mix 3 spin`) on CPU about
 *       CPUs/N of the time (2/5: measured 37%) and R the rest (60%); with all
 *       groups, less on CPU (10-30%) and more R (66-85%).
 *   syncer  pwrite(2)s 64 KiB and fdatasync(2)s it, in a loop, in
 *       syncer_thread;sync_loop;sync_block: all its switch-outs are D
 *       (uninterruptible: waiting for the disk), in sync_block;[libc
 *       fdatasync], two per fdatasync: in folio_wait_writeback (the data
 *       write) and in blkdev_issue_flush (the disk's cache flush). Here (ext4
 *       on virtio-blk) an fdatasync takes about 140 µs: some 7000 a second,
 *       14000 D switch-outs a second, 450 MB/s written; D about 60% of its
 *       time alone on a quiet machine, 40-45% with all groups or on a busy
 *       machine (the rest on CPU, 15-35%, and waiting for a CPU).
 *       The file is made with mkstemp in $TMPDIR (default /var/tmp), which
 *       must be on a block device: on tmpfs (/dev/shm, and /tmp on many
 *       systems) fdatasync returns at once and there is no D at all (measured:
 *       99% on CPU). It is unlinked right after it is made, so it is gone
 *       however the program ends (exit, SIGTERM, SIGINT, even SIGKILL), and
 *       its 64 KiB blocks are rewritten in place in a 4 MiB ring, so it never
 *       grows past 4 MiB.
 *   locker-1 .. locker-4  contend for one pthread mutex: each in turn holds
 *       it for 20 ms of busy work (lock_wait_loop;hold_lock;work_under_lock;
 *       burn_lock), releases it, works 1 ms without it (think_work) and asks
 *       for it again in lock_wait_loop;take_lock;[libc], where it sleeps (S,
 *       futex_wait in the kernel) while the others have their turn. Alone
 *       (`sched-mix 3 locker`): each about 25% on CPU, 74% S, about 12 S
 *       switch-outs a second, all in take_lock; with all groups: 3-6% on CPU,
 *       R 15-35% (preempted while holding the mutex, which makes the others
 *       wait longer), S 60-80%. The 1 ms outside the mutex is what keeps
 *       the turns fair: a default mutex is not FIFO, and a thread that
 *       re-locked it at once after unlocking would always get it back
 *       before the waiter it woke ran, starving the three others. (A
 *       PTHREAD_PRIO_INHERIT mutex hands off FIFO, but its libc path,
 *       __pthread_mutex_lock_full, uses rbp as a general register: the
 *       frame-pointer stack ends in libc, without take_lock.)
 *   sched-mix  the main thread, in pthread_join: S all the time.
 *
 * Stacks with frame pointers: libc has none, so a frame-pointer unwinder
 * loses the function that calls into libc (its return address is in a libc
 * frame, which is not on the frame-pointer chain). Each libc call here goes
 * through a thin wrapper (nap_sleep, write_chunk, flush_chunk, lock_mutex,
 * unlock_mutex) so that the wrapper is what gets lost: a frame-pointer stack
 * reads nap;[libc], sync_block;[libc], take_lock;[libc] (the libc frame is
 * __lll_lock_wait, which has no dynamic symbol: pthread_mutex_lock's own
 * frame is not on the chain either), and a DWARF stack has the wrapper and
 * pthread_mutex_lock between them.
 *
 * Prints "ready PID" on stderr once all threads are named (a few ms after
 * the start; the spinners are started last and wait for that too), exits 0
 * SECONDS after the start (the lockers finish their current 20 ms first).
 * Before that the napper, the syncer and the spinners print "NAME wall_ms W run_ms R
 * wait_ms Q": their run time and run-queue wait from schedstat over their
 * loops, so that tests can compare prof's S share (napper) and D share
 * (syncer) with 1 - (R + Q) / W, on a loaded machine or a disk of any speed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "duty-cycle.h"

#define NAP_NS	     20000000ull /* napper: 20 ms asleep, */
#define NAP_WORK_NS  20000ull	 /* then 20 µs of CPU */
#define HOLD_NS	     20000000ull /* a locker holds the mutex 20 ms, */
#define THINK_NS     1000000ull	 /* then works 1 ms without it */
#define LOCKERS	     4
#define CHUNK	     (64 * 1024) /* syncer: 64 KiB per fdatasync, */
#define RING_CHUNKS  64		 /* rewritten in a 4 MiB ring */
#define MAX_SPINNERS 257

enum group { NAPPER = 1, SPIN = 2, SYNCER = 4, LOCKER = 8 };

static pthread_barrier_t named;				 /* all threads named: print "ready" */
static uint64_t end_ns;					 /* end of the run, on CLOCK_MONOTONIC */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* the lockers' */
static int sync_fd = -1;				 /* syncer's file, already unlinked */

/*
 * The burn functions: xorshift rounds through a volatile stack slot. The
 * volatile keeps the loop from being optimized away; the stack slot makes
 * gcc give the function a frame pointer (gcc omits it in leaf functions that
 * don't touch the stack, even with -fno-omit-frame-pointer, and frame-pointer
 * unwinding then loses the caller). They differ in their shift constants so
 * no pass can merge them. Each call: about 10 µs.
 */
NOINLINE static void burn_spin(void)
{
	volatile uint64_t v = 1;
	uint64_t x = v;

	for (int i = 0; i < BURN_ITERS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	v = x;
}

NOINLINE static void burn_lock(void)
{
	volatile uint64_t v = 3;
	uint64_t x = v;

	for (int i = 0; i < BURN_ITERS; i++) {
		x ^= x << 11;
		x ^= x >> 9;
		x ^= x << 19;
	}
	v = x;
}

NOINLINE static void burn_nap(void)
{
	volatile uint64_t v = 5;
	uint64_t x = v;

	for (int i = 0; i < BURN_ITERS; i++) {
		x ^= x << 7;
		x ^= x >> 13;
		x ^= x << 23;
	}
	v = x;
}

/* --- napper --------------------------------------------------------------- */

/* libc call wrapper (see the header comment). */
NOINLINE static void nap_sleep(const struct timespec *ts)
{
	nanosleep(ts, NULL);
}

NOINLINE static void nap(void)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)NAP_NS};

	nap_sleep(&ts);
}

NOINLINE static void nap_work(void)
{
	SPIN_CPU(NAP_WORK_NS, burn_nap());
}

NOINLINE static void napper_loop(uint64_t until)
{
	while (clock_ns(CLOCK_MONOTONIC) < until) {
		nap();
		nap_work();
	}
}

/* The thread's run and run-queue wait times so far, in ns (schedstat). */
static void thread_schedstat(unsigned long long *run, unsigned long long *wait)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "re");

	*run = *wait = 0;
	if (f) {
		if (fscanf(f, "%llu %llu", run, wait) != 2)
			*run = *wait = 0;
		fclose(f);
	}
}

/* "NAME wall_ms W run_ms R wait_ms Q" on stderr: wall time since t0 and the
 * run and run-queue wait times (ns) the thread spent over it. */
static void print_schedstat(const char *name, uint64_t t0, unsigned long long run,
			    unsigned long long wait)
{
	fprintf(stderr, "%s wall_ms %.1f run_ms %.1f wait_ms %.1f\n", name,
		(double)(clock_ns(CLOCK_MONOTONIC) - t0) / 1e6, (double)run / 1e6,
		(double)wait / 1e6);
}

static void *napper_thread(void *arg)
{
	unsigned long long run0, wait0, run1, wait1;
	uint64_t t0;

	(void)arg;
	pthread_setname_np(pthread_self(), "napper");
	pthread_barrier_wait(&named);
	thread_schedstat(&run0, &wait0);
	t0 = clock_ns(CLOCK_MONOTONIC);
	napper_loop(end_ns);
	thread_schedstat(&run1, &wait1);
	/* What the napper really did: on a loaded machine it waits for a CPU
	 * after each nap, and tests compare prof's states with this. */
	print_schedstat("napper", t0, run1 - run0, wait1 - wait0);
	return NULL;
}

/* --- spinners ------------------------------------------------------------- */

NOINLINE static void spin_loop(uint64_t until)
{
	while (clock_ns(CLOCK_MONOTONIC) < until)
		burn_spin();
}

static void *spinner_thread(void *arg)
{
	unsigned long long run0, wait0, run1, wait1;
	uint64_t t0;
	char name[16];

	snprintf(name, sizeof(name), "spin-%d", (int)(intptr_t)arg);
	pthread_setname_np(pthread_self(), name);
	pthread_barrier_wait(&named);
	thread_schedstat(&run0, &wait0);
	t0 = clock_ns(CLOCK_MONOTONIC);
	spin_loop(end_ns);
	thread_schedstat(&run1, &wait1);
	/* Their run-queue wait is their R: the tests' oracle beside hogs. */
	print_schedstat(name, t0, run1 - run0, wait1 - wait0);
	return NULL;
}

/* --- syncer --------------------------------------------------------------- */

/* libc call wrappers (see the header comment). */
NOINLINE static int write_chunk(int fd, const char *buf, off_t off)
{
	return pwrite(fd, buf, CHUNK, off) == CHUNK ? 0 : -1;
}

NOINLINE static int flush_chunk(int fd)
{
	return fdatasync(fd);
}

/* One 64 KiB block written and waited for: the thread's D time is here. */
NOINLINE static int sync_block(int fd, const char *buf, unsigned n)
{
	if (write_chunk(fd, buf, (off_t)(n % RING_CHUNKS) * CHUNK))
		return -1;
	return flush_chunk(fd);
}

NOINLINE static int sync_loop(int fd, char *buf, uint64_t until)
{
	unsigned n;

	for (n = 0; clock_ns(CLOCK_MONOTONIC) < until; n++) {
		buf[n % CHUNK] ^= (char)n; /* never the same bytes twice */
		if (sync_block(fd, buf, n))
			return -1;
	}
	return 0;
}

static void *syncer_thread(void *arg)
{
	static char buf[CHUNK];
	unsigned long long run0, wait0, run1, wait1;
	uint64_t t0;

	(void)arg;
	pthread_setname_np(pthread_self(), "syncer");
	memset(buf, 'x', sizeof(buf));
	pthread_barrier_wait(&named);
	thread_schedstat(&run0, &wait0);
	t0 = clock_ns(CLOCK_MONOTONIC);
	if (sync_loop(sync_fd, buf, end_ns)) {
		perror("sched-mix: syncer");
		exit(1);
	}
	thread_schedstat(&run1, &wait1);
	/* Its time off CPU and not waiting for one is its D time: how much
	 * depends on the disk, and tests compare prof's D share with this. */
	print_schedstat("syncer", t0, run1 - run0, wait1 - wait0);
	return NULL;
}

/* Makes the syncer's file, unlinked at once. 0, or -1 with a message. */
static int open_sync_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];

	if (!dir || !*dir)
		dir = "/var/tmp";
	if (snprintf(path, sizeof(path), "%s/sched-mix.XXXXXX", dir) >= (int)sizeof(path)) {
		fprintf(stderr, "sched-mix: TMPDIR too long\n");
		return -1;
	}
	sync_fd = mkstemp(path);
	if (sync_fd < 0) {
		fprintf(stderr, "sched-mix: cannot create '%s': %s\n", path, strerror(errno));
		return -1;
	}
	unlink(path);
	return 0;
}

/* --- lockers -------------------------------------------------------------- */

/* libc call wrapper (see the header comment). */
NOINLINE static void lock_mutex(pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
}

/* Waits for the mutex: the lockers' off-CPU time is here. */
NOINLINE static void take_lock(void)
{
	lock_mutex(&lock);
}

/* libc call wrapper (see the header comment). */
NOINLINE static void unlock_mutex(pthread_mutex_t *m)
{
	pthread_mutex_unlock(m);
}

NOINLINE static void release_lock(void)
{
	unlock_mutex(&lock);
}

NOINLINE static void work_under_lock(uint64_t until)
{
	while (clock_ns(CLOCK_MONOTONIC) < until)
		burn_lock();
}

NOINLINE static void hold_lock(void)
{
	work_under_lock(clock_ns(CLOCK_MONOTONIC) + HOLD_NS);
}

/* On CPU between a release and the next take_lock: the woken waiter's
 * chance to take the mutex (see the header comment). */
NOINLINE static void think_work(void)
{
	uint64_t until = clock_ns(CLOCK_MONOTONIC) + THINK_NS;

	while (clock_ns(CLOCK_MONOTONIC) < until)
		burn_lock();
}

NOINLINE static void lock_wait_loop(uint64_t until)
{
	for (;;) {
		take_lock();
		if (clock_ns(CLOCK_MONOTONIC) >= until)
			break;
		hold_lock();
		release_lock();
		think_work();
	}
	release_lock();
}

static void *locker_thread(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "locker-%d", (int)(intptr_t)arg);
	pthread_setname_np(pthread_self(), name);
	pthread_barrier_wait(&named);
	lock_wait_loop(end_ns);
	return NULL;
}

/* --- main ----------------------------------------------------------------- */

static int parse_groups(const char *s)
{
	static const struct {
		const char *name;
		int bit;
	} names[] = {{"napper", NAPPER}, {"spin", SPIN}, {"syncer", SYNCER}, {"locker", LOCKER}};
	int groups = 0;

	while (*s) {
		size_t len = strcspn(s, ","), i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (len == strlen(names[i].name) && !strncmp(s, names[i].name, len))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return -1;
		groups |= names[i].bit;
		s += len;
		if (*s == ',')
			s++;
	}
	return groups ? groups : -1;
}

/* CPUs this process may run on. */
static int usable_cpus(void)
{
	cpu_set_t set;
	long n;

	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_SPINNERS + LOCKERS + 2];
	int groups = NAPPER | SPIN | SYNCER | LOCKER;
	int nth = 0, nspin = 0, i;
	double secs = 3;
	char *end;

	if (argc > 3 || (argc >= 2 && ((secs = strtod(argv[1], &end)) <= 0 || *end)) ||
	    (argc == 3 && (groups = parse_groups(argv[2])) < 0)) {
		fprintf(stderr, "usage: sched-mix [SECONDS [napper,spin,syncer,locker]]\n");
		return 2;
	}
	pthread_setname_np(pthread_self(), "sched-mix");
	if (groups & SPIN) {
		nspin = 2 * usable_cpus() + 1;
		if (nspin > MAX_SPINNERS)
			nspin = MAX_SPINNERS;
	}
	if ((groups & SYNCER) && open_sync_file())
		return 1;
	pthread_barrier_init(&named, NULL,
			     1 + !!(groups & NAPPER) + !!(groups & SYNCER) +
				 (groups & LOCKER ? LOCKERS : 0) + nspin);
	end_ns = clock_ns(CLOCK_MONOTONIC) + (uint64_t)(secs * 1e9);

	/* The spinners last: they could delay the others' start on a small
	 * machine (they wait at the barrier until all are named anyway). */
	if ((groups & NAPPER) && pthread_create(&th[nth++], NULL, napper_thread, NULL))
		goto fail;
	if ((groups & SYNCER) && pthread_create(&th[nth++], NULL, syncer_thread, NULL))
		goto fail;
	for (i = 1; (groups & LOCKER) && i <= LOCKERS; i++)
		if (pthread_create(&th[nth++], NULL, locker_thread, (void *)(intptr_t)i))
			goto fail;
	for (i = 1; i <= nspin; i++)
		if (pthread_create(&th[nth++], NULL, spinner_thread, (void *)(intptr_t)i))
			goto fail;
	pthread_barrier_wait(&named);
	fprintf(stderr, "ready %d\n", (int)getpid());

	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	if (sync_fd >= 0)
		close(sync_fd);
	return 0;
fail:
	perror("sched-mix: pthread_create");
	return 1;
}
