/* capture.c: holding one thread as briefly as it can be held.
 *
 * PTRACE_SEIZE attaches without stopping; PTRACE_INTERRUPT stops the
 * thread wherever it is (a blocking syscall is interrupted and restarted
 * when it runs again, as under gdb); its registers come with one
 * PTRACE_GETREGS and the live part of its stack, from the stack pointer to
 * the end of its mapping (at most stack_max bytes), with one
 * process_vm_readv; PTRACE_DETACH lets it run. Nothing else happens while
 * it is held: unwinding and names come after.
 *
 * Safety: SIGINT, SIGTERM and SIGHUP are blocked while a thread is held,
 * so prof stops between threads, never during one. A thread that does not
 * stop within DUMP_STOP_WAIT_NS (uninterruptible sleep, a stopped process)
 * is left seized with the interrupt pending: dump_capture_late() takes it
 * once the other threads of the snapshot are done, and the kernel
 * detaches it if prof exits first (it runs on: PTRACE_O_EXITKILL is never
 * set). A signal that arrives meanwhile is passed back on detach. */
#include "dump/dump.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>


#define DUMP_STOP_WAIT_NS 2000000ull /* 2 ms: then the next threads, this one polled between them */

static uint64_t now_ns(void)
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

/* Waits for tid's stop. 1: stopped (*sig: a signal to pass back on
 * detach), 0: gone, -ETIMEDOUT. Spins first: a running thread stops in
 * microseconds, and sleeping for it would lengthen its pause. */
static int wait_stop(pid_t tid, int *sig, uint64_t max_ns)
{
	uint64_t start = now_ns();
	unsigned spins = 0;

	*sig = 0;
	for (;;) {
		int st;
		pid_t r = waitpid(tid, &st, __WALL | WNOHANG);

		if (r == tid) {
			if (WIFEXITED(st) || WIFSIGNALED(st))
				return 0;
			if (WIFSTOPPED(st)) {
				/* a signal-delivery stop came first: the signal
				 * goes back on detach (the interrupt is dropped) */
				if ((st >> 16) == 0 && WSTOPSIG(st) != SIGTRAP)
					*sig = WSTOPSIG(st);
				return 1;
			}
			continue;
		}
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return 0;
		}
		if (now_ns() - start > max_ns)
			return -ETIMEDOUT;
		if (++spins > 200) {
			struct timespec ts = {0, 20000};

			nanosleep(&ts, NULL);
		}
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
 * it go (passing back `sig`). */
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
	t->pause_ns = now_ns() - t0;
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

static void block_signals(sigset_t *old)
{
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, old);
}

int dump_capture(struct dump_thread *t, size_t stack_max, const struct dump_maps *maps)
{
	sigset_t old;
	int sig = 0, stopped;

	t->captured = 0;
	t->err = grow_scratch(stack_max);
	if (t->err)
		return t->err;
	block_signals(&old);
	if (ptrace(PTRACE_SEIZE, t->tid, 0, 0) < 0) {
		t->err = -errno;
		goto out;
	}
	t->held_at = now_ns();
	if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) < 0) {
		t->err = -errno;
		goto out; /* gone: the kernel dropped it */
	}
	stopped = wait_stop(t->tid, &sig, DUMP_STOP_WAIT_NS);
	if (stopped > 0)
		take(t, stack_max, maps, sig, t->held_at);
	else if (stopped == -ETIMEDOUT)
		t->pending = 1; /* still seized: dump_capture_late() */
	else
		t->err = -ESRCH;
	if (stopped <= 0)
		t->err = stopped ? stopped : -ESRCH;
out:
	t->time = now_ns();
	sigprocmask(SIG_SETMASK, &old, NULL);
	return t->err;
}

int dump_capture_late(struct dump_thread *t, size_t stack_max, const struct dump_maps *maps,
		      uint64_t wait_ns)
{
	sigset_t old;
	int sig = 0, stopped;

	if (!t->pending)
		return t->err;
	block_signals(&old);
	stopped = wait_stop(t->tid, &sig, wait_ns);
	if (stopped > 0) {
		take(t, stack_max, maps, sig, t->held_at);
	} else if (stopped == 0) {
		t->pending = 0;
		t->err = -ESRCH;
	}
	/* else still not stopped: it stays seized with the interrupt pending;
	 * if prof exits first, the kernel detaches it and drops the interrupt */
	sigprocmask(SIG_SETMASK, &old, NULL);
	return t->err;
}

int dump_release_if_stopped(pid_t tid)
{
	int st;
	pid_t r = waitpid(tid, &st, __WALL | WNOHANG);

	if (r == 0)
		return 0;
	if (r == tid && WIFSTOPPED(st)) {
		int sig = (st >> 16) == 0 && WSTOPSIG(st) != SIGTRAP ? WSTOPSIG(st) : 0;

		ptrace(PTRACE_DETACH, tid, 0, (void *)(uintptr_t)sig);
	}
	return 1;
}
