/* proc-scan.h: what /proc says about a process when we attach: its threads,
 * their names, its executable mappings (perf's "synthesized" events). */
#ifndef PROF_PROC_SCAN_H
#define PROF_PROC_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Lists the tids of `pid` into a malloc'ed array. 0 or -errno (-ESRCH when
 * the process is gone). */
int proc_list_tids(pid_t pid, pid_t **tids, size_t *n);

/* The process (thread group) that pid, maybe a thread's id, belongs to:
 * "Tgid:" of /proc/PID/status; pid itself when that cannot be read. */
pid_t proc_tgid(pid_t pid);

/* Reads /proc/PID/task/TID/comm into buf (without the newline). 0 or -errno. */
int proc_thread_name(pid_t pid, pid_t tid, char *buf, size_t len);

struct proc_map {
	uint64_t start, end, pgoff;
	char path[4096];
};

/* Calls fn for each executable, file-backed (or [vdso]) mapping of pid.
 * 0 or -errno. */
int proc_each_exec_map(pid_t pid, void (*fn)(void *ctx, const struct proc_map *m), void *ctx);

#endif
