/* procfs.h: bounded reads of /proc/PID files, for every module that looks
 * at a process before or while it profiles it (jvm/, record/, symbolize/).
 *
 * What these files say is partly written by the target's owner (its name
 * in status and comm, its cmdline and environ) and the process can exit or
 * change while they are read (docs/SECURITY.md): every read stops at a
 * fixed size, lines are taken with explicit lengths (a NUL byte ends a line
 * early, an overlong line is skipped whole, never split into two), and of
 * a status field given twice the last wins: the Name line comes first, so
 * a name that forges "\nNSpid:" cannot override the kernel's own line. */
#ifndef PROF_PROCFS_H
#define PROF_PROCFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A status line longer than this is skipped (NSpid at 32 levels of pid
 * namespaces is ~380 bytes; a long "Groups:" line is of no interest). */
#define PROCFS_LINE_MAX 1024
/* At most this much of a status file is read (65536 groups fit). */
#define PROCFS_STATUS_MAX (1u << 20)

/* Which fields a status read found (struct procfs_status's `have`). */
enum {
	PROCFS_HAVE_TGID = 1 << 0,
	PROCFS_HAVE_UID = 1 << 1,
	PROCFS_HAVE_GID = 1 << 2,
	PROCFS_HAVE_SIGCGT = 1 << 3,
	PROCFS_HAVE_NSPID = 1 << 4,
};

/* What /proc/PID/status says that prof uses. A field not found keeps the
 * default procfs_status_parse() was given (see there). */
struct procfs_status {
	pid_t tgid;	 /* "Tgid:", the process a thread belongs to */
	uint32_t nspid;	 /* the last "NSpid:" number: the id in its own namespace */
	uid_t euid;	 /* "Uid:", the second number */
	gid_t egid;	 /* "Gid:", the second number */
	uint64_t sigcgt; /* "SigCgt:", signals with a handler (bit N-1: signal N) */
	unsigned have;	 /* PROCFS_HAVE_* */
};

/* Reads at most `max` bytes of `path` into a malloc'ed buffer (*buf, the
 * caller frees), with a NUL after the *len bytes read. Blocks on read(2)
 * only. 0 or -errno (-ENOENT when the file or process is gone). */
int procfs_read(const char *path, size_t max, char **buf, size_t *len);

/* One read(2) of at most len - 1 bytes of `path` into buf, NUL-terminated
 * after the *n bytes read (enough for comm, stat and other files the
 * kernel writes whole in one go); len > 0. 0 or -errno. */
int procfs_read_into(const char *path, char *buf, size_t len, size_t *n);

/* Parses status text [text, text + len). Fields found overwrite *st and
 * set their bit in st->have; the caller sets the defaults before. Lines
 * longer than PROCFS_LINE_MAX are skipped; never reads past len. */
void procfs_status_parse(const char *text, size_t len, struct procfs_status *st);

/* Reads /proc/PID/status, or /proc/PID/task/TID/status when tid > 0.
 * Defaults: tgid = pid, nspid = tid > 0 ? tid : pid, ids 0, sigcgt 0.
 * 0, -ESRCH (gone) or -errno; *st holds the defaults on an error. */
int procfs_status(pid_t pid, pid_t tid, struct procfs_status *st);

/* The tids of pid (/proc/PID/task) into a malloc'ed array (*n may be 0).
 * 0, -ESRCH (gone), -ENOMEM or -errno; *tids is NULL, *n 0 on an error. */
int procfs_list_tids(pid_t pid, pid_t **tids, size_t *n);

/* The name of thread tid of pid (/proc/PID/task/TID/comm) into buf, at
 * most len - 1 bytes, without the trailing newline; len > 0. 0 or -errno. */
int procfs_thread_name(pid_t pid, pid_t tid, char *buf, size_t len);

/* One line of /proc/PID/maps. The path is what the target mapped (its
 * owner picks the name: spaces and all; the kernel escapes a newline), cut
 * at sizeof(path) - 1 bytes, trailing blanks dropped; "" when anonymous. */
struct procfs_map {
	uint64_t start, end, pgoff;
	char perms[8]; /* "r-xp" */
	char path[4096];
};

/* Parses one maps line (NUL-terminated, maybe with its '\n') into *m.
 * 0, or -EINVAL when it is not a maps line. */
int procfs_parse_map(const char *line, struct procfs_map *m);

/* Calls fn for each mapping of pid in /proc/PID/maps, in order, until fn
 * returns nonzero; lines that do not parse are skipped. Allocates one
 * line buffer and one struct procfs_map (m is only valid during the call).
 * fn's nonzero value, 0, -ESRCH (gone), -ENOMEM or -errno. */
int procfs_each_map(pid_t pid, int (*fn)(void *ctx, const struct procfs_map *m), void *ctx);

/* The start time of process pid in clock ticks since boot (field 22 of
 * /proc/PID/stat, counted from the last ')': the name before it may hold
 * anything). 0, -ESRCH (gone), -EIO (unreadable) or -errno. */
int procfs_start_ticks(pid_t pid, unsigned long long *ticks);
/* The same from stat text (NUL-terminated). 0 or -EIO. */
int procfs_stat_start(const char *text, unsigned long long *ticks);

#endif
