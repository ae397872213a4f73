/* dump.h: inside dump/ only: `prof dump`, every thread's stack now.
 *
 * A snapshot holds each thread alone, as briefly as it can (capture.c:
 * PTRACE_SEIZE, PTRACE_INTERRUPT, its registers and the live part of its
 * stack copied with one process_vm_readv, PTRACE_DETACH), after reading
 * what /proc tells of it without stopping it (thread-info.c: state, wait
 * channel, kernel stack, blocked syscall). Everything else happens once
 * the thread runs again: unwinding with the CFI unwinder, a recording
 * written and symbolized as `prof record` does (to-recording.c), the lock
 * owners read from the mutexes (locks.c), and the output (output-*.c). */
#ifndef PROF_DUMP_H
#define PROF_DUMP_H

#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include "lib/keymap.h"
#include "lib/rec-writer.h"
#include "lib/strtab.h"
#include "symbolize/symbolize.h"
#include "symbolize/unwind.h"

#define DUMP_KSTACK_MAX 64     /* kernel frames kept per thread */
#define DUMP_STACK_DEFAULT (128 * 1024) /* user stack bytes copied at most */

/* One thread in one snapshot. */
struct dump_thread {
	pid_t pid, tid;
	pid_t nstid;            /* its id in its own pid namespace (a container's), = tid on the host */
	uint32_t snapshot;
	uint64_t time;          /* CLOCK_MONOTONIC ns when it stopped (its stack's moment) */
	char state;             /* R, S, D, T, t, Z, X, I ... from /proc stat; '?' */
	char comm[16];
	char wchan[64];         /* "" when none or hidden */
	/* The kernel stack read from /proc/PID/task/TID/stack before the
	 * stop (root only): "function+0xoff/0xlen" names. */
	char (*kframes)[96];
	size_t nkframes;
	/* Registers at the stop (valid when captured). */
	int captured;           /* 1: registers and stack taken */
	int err;                /* why not: -errno (ESRCH: gone, ETIMEDOUT: did not stop) */
	uint64_t regs[17];      /* DWARF order (symbolize/unwind.h) */
	int64_t syscall;        /* orig_rax: the syscall it was in, -1: none */
	uint64_t sysargs[6];
	unsigned char *stack;   /* [stack_start, stack_start + stack_len), malloc'ed */
	size_t stack_len;
	uint64_t stack_start;
	int stack_cut;          /* the copy stopped at its size, not at the mapping's end */
	uint64_t pause_ns;      /* from its stop to the detach (capture.c: quiet_at) */
	uint64_t stop_wait_ns;  /* from the interrupt to its stop: it ran or slept on */
	uint64_t held_at;       /* when the interrupt was sent */
	int pending;            /* seized, did not stop in time: dump_capture_late() */
	int tried;              /* its capture was attempted (not skipped by a stop) */
	/* In futex(): the 32 bytes at its address, read while held (a
	 * mutex's lock word, owner and kind: locks.c). */
	int futex_read;
	uint32_t futex_words[8];
};

/* A process's mappings, as /proc/PID/maps gave them before a snapshot. */
struct dump_map {
	uint64_t start, end, pgoff;
	char perms[5];
	char *path; /* "" for anonymous */
};

struct dump_proc {
	pid_t pid;
	struct dump_map *maps; /* sorted by start */
	size_t n;
};

struct dump_maps {
	struct dump_proc *procs;
	size_t n;
};

/* maps.c: (re)reads the mappings of pid. 0 or -errno. */
int dump_maps__read(struct dump_maps *m, pid_t pid);
void dump_maps__release(struct dump_maps *m);
/* The mapping of pid that covers addr, or NULL. */
const struct dump_map *dump_maps__find(const struct dump_maps *m, pid_t pid, uint64_t addr);
/* The end of that mapping, or 0. */
uint64_t dump_maps_end(const struct dump_maps *m, pid_t pid, uint64_t addr);

struct dump_opts {
	pid_t *pids;
	size_t npids;
	unsigned count;          /* snapshots */
	uint64_t interval_ns;
	size_t stack_max;
	int kernel_stacks;       /* read /proc/.../stack (root) */
	const char *path;        /* the recording */
	int no_symbolize;
};

/* A growing list of captures. */
struct dump_set {
	struct dump_thread *t;
	size_t n, cap;
};

void dump_set__release(struct dump_set *s);

/* run.c: the snapshots. Every capture goes into `set` (in order: the
 * recording's samples follow it) and into the recording at `o->path`.
 * *stopped is set when a signal ended the run early. 0 or -errno, with a
 * line for the user in msg. */
int dump_run(const struct dump_opts *o, struct dump_set *set, int *stopped,
	     struct symbolize_stats *ss, char *msg, size_t len);
/* Asks a running dump_run() to stop after the thread it holds (signals). */
void dump_request_stop(void);

/* thread-info.c: what /proc says of tid without stopping it. 0, -ESRCH. */
int dump_thread_info(struct dump_thread *t, int kernel_stack);
/* The tids of process pid, in /proc order. 0 or -errno (-ESRCH). */
int dump_list_threads(pid_t pid, pid_t **tids, size_t *n);
/* 0 when pid can be traced; else -errno with a one-line reason in msg
 * (traced by another process, Yama, no such process). */
int dump_check_traceable(pid_t pid, char *msg, size_t len);

/* capture.c: holding threads one at a time. dump_interrupt() seizes tid
 * and asks it to stop (t->pending); dump_next_stop() gives the next thread
 * prof holds that stopped (or exited), waiting up to max_ns, and *since,
 * the earliest time that stop can have happened; dump_take()
 * copies a stopped thread's registers, futex words and up to stack_max
 * bytes of its stack and lets it go. dump_let_go() detaches a stopped
 * thread prof no longer wants. Signals are not blocked: prof's handlers
 * only ask it to stop, and hold.c interrupts no further thread then. */
enum { DUMP_STOP_NONE = 0, DUMP_STOP_STOPPED, DUMP_STOP_GONE };
/* CLOCK_MONOTONIC in ns: every time dump/ keeps (captures, pauses, waits). */
uint64_t dump_now_ns(void);
int dump_interrupt(struct dump_thread *t, size_t stack_max);
int dump_next_stop(uint64_t max_ns, pid_t *tid, int *sig, uint64_t *since);
void dump_take(struct dump_thread *t, size_t stack_max, const struct dump_maps *maps, int sig,
	       uint64_t since);
void dump_let_go(pid_t tid, int sig);

/* hold.c: the capture pass of a snapshot (see there). */
struct dump_holder {
	size_t *pend;    /* indexes into the set of threads interrupted, not stopped */
	size_t npend, pend_cap;
	pid_t *seized;   /* threads that never stopped in time, still seized */
	size_t nseized, seized_cap;
};
/* Holds and takes set->t[first..n) one at a time; stops before the next
 * interrupt once *stop is set. 0 or -ENOMEM. */
int dump_hold_pass(struct dump_holder *h, struct dump_set *set, size_t first,
		   const struct dump_opts *o, const struct dump_maps *maps,
		   volatile sig_atomic_t *stop);
/* Lets go the seized threads as they stop, waiting up to ns. */
void dump_holder__drain(struct dump_holder *h, struct dump_set *set, uint64_t ns);
/* Frees the lists (threads still seized are let go by the kernel at exit). */
void dump_holder__release(struct dump_holder *h);

/* kernel-names.c: kernel function names -> addresses (/proc/kallsyms,
 * read at the first lookup). The zero value is ready to use. */
struct dump_kernel_names {
	const char *path;    /* NULL: /proc/kallsyms */
	int loaded;
	struct kallsyms *syms; /* symbolize/kallsyms.c's table; NULL: none */
};
void dump_kernel_names__release(struct dump_kernel_names *k);
/* The address of a /proc stack frame ("name+0xoff/0xlen"), or 0. */
uint64_t dump_kernel_names__addr(struct dump_kernel_names *k, const char *frame);

/* to-recording.c: the recording of a dump (see there). */
struct dump_rec {
	struct rec_writer *w;
	struct unwinder *u;
	const struct dump_maps *maps; /* the snapshot's */
	uint64_t generation;          /* changes with maps (the unwinder's memo) */
	struct keymap mapids;         /* mapping -> the recording's id */
	struct keymap named;          /* tid -> the name string it was given */
	struct dump_kernel_names knames;
	uint8_t event;
	uint64_t *pcs;
	uint64_t unwound[UNWIND_NSTATUS];
};
/* 0 or -errno; on an error nothing is left to release. */
int dump_rec__open(struct dump_rec *d, const char *path);
/* The mappings the next captures are unwound with. */
void dump_rec__new_maps(struct dump_rec *d, const struct dump_maps *maps);
int dump_rec__add(struct dump_rec *d, const struct dump_thread *t);
/* jvm-names.c: the JIT maps and full thread names of the targets that are
 * JVMs, asked after the snapshots (cancelled: stop waiting when nonzero). */
void dump_ask_jvms(struct dump_rec *d, const pid_t *pids, size_t n, int (*cancelled)(void));
/* Symbolizes (unless told not to), closes and releases. 0 or -errno. */
int dump_rec__close(struct dump_rec *d, int symbolize, struct symbolize_stats *ss);
void dump_rec__discard(struct dump_rec *d);

/* locks.c: the lock thread set->t[i] waits for, given its frames' names
 * (root first): the kind, its address and its owner's tid (0: unknown). */
enum dump_lock_kind {
	DUMP_LOCK_NONE = 0,
	DUMP_LOCK_MUTEX,
	DUMP_LOCK_RWLOCK,
	DUMP_LOCK_COND,
};
enum dump_lock_kind dump_lock_of(const struct dump_set *s, size_t i, const char *const *names,
				 size_t n, uint64_t *addr, pid_t *owner);
/* The owner's capture in the same snapshot, or NULL. */
const struct dump_thread *dump_owner_thread(const struct dump_set *s, size_t i, pid_t owner);

/* output.c: prints the dump from the recording at `path` (read back) and
 * the captures. 0 or -errno with a line in msg. */
enum dump_format {
	DUMP_FORMAT_PMP = 0,
	DUMP_FORMAT_RAW,
	DUMP_FORMAT_FOLDED,
	DUMP_FORMAT_JSON,
};
int dump_output(FILE *out, enum dump_format fmt, const struct dump_set *set, const char *path,
		char *msg, size_t len);

#endif
