/* capture.c: holding one thread as briefly as it can be held.
 *
 * PTRACE_SEIZE attaches without stopping; PTRACE_INTERRUPT stops the
 * thread wherever it is (a blocking syscall is interrupted and restarted
 * when it runs again, as under gdb). Its stop is reported to prof as
 * SIGCHLD, read from a signalfd, so that the wait ends when the stop comes
 * (dump_next_stop: any thread prof holds, hold.c takes whichever stops).
 * Its registers come with one PTRACE_GETREGS and the live part of its
 * stack, from the stack pointer to the end of its mapping (at most
 * stack_max bytes), with one process_vm_readv into a buffer made before;
 * PTRACE_DETACH lets it run. Nothing else happens while it is held:
 * unwinding and names come after. A signal that arrived meanwhile is
 * passed back on detach. PTRACE_O_EXITKILL is never set: if prof dies, the
 * kernel lets every thread go. */
#include "dump/dump.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>



uint64_t dump_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The copy is made here while the thread is held, then moved to a buffer
 * of its size once it runs: no allocation during the pause. */
static unsigned char *scratch;
static size_t scratch_cap;

static void regs_to_dwarf(const struct user_regs_struct *r, uint64_t *d)
{
	d[0] = r->rax, d[1] = r->rdx, d[2] = r->rcx, d[3] = r->rbx;
	d[4] = r->rsi, d[5] = r->rdi, d[6] = r->rbp, d[7] = r->rsp;
	d[8] = r->r8, d[9] = r->r9, d[10] = r->r10, d[11] = r->r11;
	d[12] = r->r12, d[13] = r->r13, d[14] = r->r14, d[15] = r->r15;
	d[16] = r->rip;
}

/* Stops of the threads prof holds arrive as SIGCHLD, read from this
 * signalfd (SIGCHLD blocked): the wait for a stop wakes when it comes, not
 * at the next poll of a timer. -1: not made, waits poll waitpid. */
static int chld_fd = -2;

static void chld_init(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	chld_fd = -1;
	if (!sigprocmask(SIG_BLOCK, &set, NULL))
		chld_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

/* When a stop reported now can have happened at the earliest: the time
 * of the last waitpid() that found nothing, or the time a SIGCHLD woke
 * prof (the stop that sent it came just before, by prof's wake-up: about
 * 20 us on this VM, so a pause is that much short). When prof was busy
 * copying another thread it is the last time it looked, and the pause it
 * gives is an upper bound. */
static uint64_t quiet_at;

/* Sleeps until a SIGCHLD comes or `ns` pass. */
static void chld_wait(uint64_t ns)
{
	struct signalfd_siginfo si;

	if (chld_fd >= 0) {
		struct pollfd p = {.fd = chld_fd, .events = POLLIN};
		struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};

		if (ppoll(&p, 1, &ts, NULL) > 0)
			quiet_at = dump_now_ns();
		while (read(chld_fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			;
	} else {
		struct timespec ts = {0, 20000};

		nanosleep(&ts, NULL);
	}
}

int dump_next_stop(uint64_t max_ns, pid_t *tid, int *sig, uint64_t *since)
{
	uint64_t start = dump_now_ns(), now;

	*sig = 0;
	if (chld_fd == -2)
		chld_init();
	for (;;) {
		int st;
		uint64_t before = dump_now_ns();
		pid_t r = waitpid(-1, &st, __WALL | WNOHANG);

		if (r == 0)
			quiet_at = before;
		if (r > 0) {
			*tid = r;
			*since = quiet_at;
			if (WIFEXITED(st) || WIFSIGNALED(st))
				return DUMP_STOP_GONE;
			if (!WIFSTOPPED(st))
				continue;
			/* a signal-delivery stop came first: the signal goes
			 * back on detach (the interrupt is dropped) */
			if ((st >> 16) == 0 && WSTOPSIG(st) != SIGTRAP)
				*sig = WSTOPSIG(st);
			return DUMP_STOP_STOPPED;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return DUMP_STOP_NONE; /* nothing held */
		now = dump_now_ns();
		if (now - start >= max_ns)
			return DUMP_STOP_NONE;
		chld_wait(max_ns - (now - start));
	}
}

/* Copies [sp, sp + len) of tid's memory; short when a page is unreadable. */
static size_t read_stack(pid_t tid, uint64_t sp, unsigned char *buf, size_t len)
{
	struct iovec local = {buf, len}, remote = {(void *)(uintptr_t)sp, len};
	ssize_t r = process_vm_readv(tid, &local, 1, &remote, 1, 0);

	if (r >= 0)
		return (size_t)r;
	/* the first page failed? then nothing; else read up to the fault page by page */
	{
		size_t got = 0, page = 4096 - (sp & 4095);

		while (got < len) {
			size_t n = len - got < page ? len - got : page;

			local = (struct iovec){buf + got, n};
			remote = (struct iovec){(void *)(uintptr_t)(sp + got), n};
			if (process_vm_readv(tid, &local, 1, &remote, 1, 0) != (ssize_t)n)
				break;
			got += n;
			page = 4096;
		}
		return got;
	}
}

/* Takes registers, futex words and the stack of stopped tid, then lets
 * it go (passing back `sig`); t0: when it stopped. */
static void take(struct dump_thread *t, size_t stack_max, const struct dump_maps *maps, int sig,
		 uint64_t t0)
{
	struct user_regs_struct r;
	uint64_t end;

	if (ptrace(PTRACE_GETREGS, t->tid, 0, &r) < 0) {
		t->err = -errno;
		goto detach;
	}
	regs_to_dwarf(&r, t->regs);
	t->syscall = (int64_t)r.orig_rax;
	t->sysargs[0] = r.rdi, t->sysargs[1] = r.rsi, t->sysargs[2] = r.rdx;
	t->sysargs[3] = r.r10, t->sysargs[4] = r.r8, t->sysargs[5] = r.r9;
	if (t->syscall == SYS_futex) {
		struct iovec local = {t->futex_words, sizeof(t->futex_words)};
		struct iovec remote = {(void *)(uintptr_t)r.rdi, sizeof(t->futex_words)};

		t->futex_read = process_vm_readv(t->tid, &local, 1, &remote, 1, 0) ==
				(ssize_t)sizeof(t->futex_words);
	}
	end = dump_maps_end(maps, t->pid, r.rsp);
	t->stack_cut = 1;
	if (end > r.rsp && end - r.rsp <= stack_max) {
		stack_max = end - r.rsp;
		t->stack_cut = 0;
	}
	t->stack_start = r.rsp;
	t->stack_len = stack_max ? read_stack(t->tid, r.rsp, scratch, stack_max) : 0;
	t->captured = 1;
	t->err = 0;
detach:
	ptrace(PTRACE_DETACH, t->tid, 0, (void *)(uintptr_t)sig);
	t->pause_ns = dump_now_ns() - t0;
	t->pending = 0;
	if (t->captured && t->stack_len) {
		t->stack = malloc(t->stack_len);
		if (t->stack)
			memcpy(t->stack, scratch, t->stack_len);
		else
			t->stack_len = 0;
	}
}

static int grow_scratch(size_t stack_max)
{
	if (stack_max > scratch_cap) {
		unsigned char *b = realloc(scratch, stack_max);

		if (!b)
			return -ENOMEM;
		scratch = b;
		scratch_cap = stack_max;
	}
	return 0;
}

int dump_interrupt(struct dump_thread *t, size_t stack_max)
{
	t->captured = 0;
	t->err = grow_scratch(stack_max);
	if (t->err)
		return t->err;
	if (ptrace(PTRACE_SEIZE, t->tid, 0, 0) < 0)
		return t->err = -errno;
	t->held_at = dump_now_ns();
	if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) < 0)
		return t->err = -errno; /* gone: the kernel dropped it */
	t->pending = 1;
	return 0;
}

void dump_take(struct dump_thread *t, size_t stack_max, const struct dump_maps *maps, int sig,
	       uint64_t since)
{
	/* the stack is as it was at the stop: that is the capture's time */
	t->time = since > t->held_at ? since : t->held_at;
	t->stop_wait_ns = t->time - t->held_at;
	take(t, stack_max, maps, sig, t->time);
}

void dump_let_go(pid_t tid, int sig)
{
	ptrace(PTRACE_DETACH, tid, 0, (void *)(uintptr_t)sig);
}
