/* probes.h: inside record/: probe events (uprobes and USDT probes through
 * the kernel's uprobe PMU) for `prof record -e`, `--alloc` and
 * `prof probes`. See docs/prof-probes.md and docs/prof-record.md.
 *
 * A probe is resolved once (probe-spec.c: which binary, which file offset,
 * which semaphore, which arguments), then opened on every target thread for
 * each CPU (probe-events.c), its hits going into a ring per (probe, CPU)
 * owned by a dummy event on prof's own thread, so that the probe's events
 * can be closed (removing the breakpoints) between windows while the ring
 * stays. probe-decode.c turns each hit into a sample with its stack and its
 * decoded arguments. */
#ifndef PROF_RECORD_PROBES_H
#define PROF_RECORD_PROBES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbolize/usdt.h"

/* One file a process maps with execute permission. */
struct probe_binary {
	char *path;      /* as the process sees it (/proc/PID/maps) */
	char *open_path; /* where prof opens it: /proc/PID/root/PATH when readable */
};

/* The binaries of pid, each once. 0 or -errno (-ESRCH: no such process). */
int probe_binaries_of(pid_t pid, struct probe_binary **bins, size_t *n);
void probe_binaries_free(struct probe_binary *bins, size_t n);

enum probe_kind {
	PROBE_USDT = 1,
	PROBE_UPROBE,
	PROBE_URETPROBE,
};

/* What the recorder does with a probe's arguments. */
enum probe_role {
	PROBE_ROLE_ARGS = 0,     /* store the decoded arguments */
	PROBE_ROLE_ALLOC,        /* hotspot:object__alloc: class (string) + size */
	PROBE_ROLE_THREAD_START, /* hotspot:thread__start: full thread names */
};

/* A probe event, resolved. */
struct probe_def {
	char event[512];    /* name in the recording: "usdt:PROVIDER:NAME", ... */
	enum probe_kind kind;
	enum probe_role role;
	char path[4200];    /* the binary, as prof opens it */
	uint64_t offset;    /* file offset of the probed instruction */
	uint64_t ref_ctr;   /* file offset of the USDT semaphore, 0: none */
	int nargs;
	struct usdt_arg arg[USDT_MAX_ARGS];
	int stack_args;     /* some argument is read from the stack (rsp/rbp based) */
};

/* A parsed -e: "usdt:[PATH:]PROVIDER:NAME", "uprobe:PATH:SYMBOL[+OFF]",
 * "uretprobe:PATH:SYMBOL". Resolves the binary (for usdt without a path:
 * the one among `pids`' mappings, or `cmd`'s program in launch mode that
 * has the probe) and fills *d. 0, or -errno with a one-line reason and a
 * hint in msg/hint (unknown probe or symbol, missing binary, a binary none
 * of the targets maps). */
int probe_resolve(const char *spec, const pid_t *pids, size_t npids, const char *cmd,
		  struct probe_def *d, char *msg, size_t msglen, char *hint, size_t hintlen);

/* Is `spec` one of the probe forms (else it may be cpu-clock, or bad)? */
int probe_spec_is_probe(const char *spec);

#endif
