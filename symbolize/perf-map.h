/* perf-map.h: JIT symbol maps, /tmp/perf-PID.map (symbolize/ internal).
 *
 * Runtimes that generate code (JVMs with -XX:+UnlockDiagnosticVMOptions
 * -XX:+DumpPerfMapAtExit or `jcmd PID Compiler.perfmap`, node --perf-basic-prof,
 * LuaJIT, .NET, ...) write one text line per piece of code:
 *     START SIZE NAME        (START and SIZE hex, with or without 0x)
 * in /tmp/perf-PID.map, PID as the process sees itself (its pid namespace).
 * Addresses outside any file mapping (anonymous executable memory) are
 * looked up there. A later line for the same address wins (code caches
 * reuse memory). */
#ifndef PROF_PERF_MAP_H
#define PROF_PERF_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Map files larger than this, or with more lines, are read only this far
 * (perf_map__cut says so). Far above a real map: a busy JVM's map is a few
 * MB (the example Service's, 62 KB in 740 lines; docs/prof-symbolize.md), a big one
 * tens of MB; the cap bounds what another user can make root's recorder
 * read and keep (about 64 MB and 2 s here, instead of a whole file). */
#define PERF_MAP_MAX_BYTES (64u << 20)
#define PERF_MAP_MAX_ENTRIES (2u << 20)
/* Longer names are cut to this many bytes. */
#define PERF_MAP_MAX_NAME 4096

struct perf_map;

/* Parses map text (not NUL-terminated). Malformed lines are skipped and
 * counted (perf_map__skipped). NULL + errno (ENOMEM only). Allocates the
 * entries and one copy of the names: O(len) memory, O(n log n) time. */
struct perf_map *perf_map__parse(const char *text, size_t len);
void perf_map__free(struct perf_map *m);
size_t perf_map__count(const struct perf_map *m);
size_t perf_map__skipped(const struct perf_map *m);
/* 0, or the size of the text when it was read only in part (a cap). */
uint64_t perf_map__cut(const struct perf_map *m);

/* Returns 1 and sets *name (owned by m) and *off when an entry covers addr,
 * else 0. O(log n). */
int perf_map__lookup(const struct perf_map *m, uint64_t addr, const char **name,
		     uint64_t *off);
/* Entry i (< perf_map__count) in address order: its range and name (owned
 * by m). */
void perf_map__entry(const struct perf_map *m, size_t i, uint64_t *start, uint64_t *end,
		     const char **name);

/* Why a map file was not used. */
enum perf_map_verdict {
	PERF_MAP_OK = 0,
	PERF_MAP_MISSING,     /* no such file (or unreadable) */
	PERF_MAP_NOT_REGULAR, /* a symlink, a FIFO, a directory... */
	PERF_MAP_NOT_OWNED,   /* owner is not root, us, or the process's owner */
	PERF_MAP_WRITABLE,    /* writable by others: anyone could have written it */
	PERF_MAP_STALE,       /* older than the process: an earlier one's, same pid */
};

/* The ownership rule, as perf's (owned by root or by the user running prof)
 * plus the owner of the process itself (target_uid; (uid_t)-1 when
 * unknown), since a JVM writes its map as its own user while prof often runs
 * as root. The file must be a regular file not writable by others. */
enum perf_map_verdict perf_map__check(const struct stat *st, uid_t euid, uid_t target_uid);

/* Was a map with this stat written before a process that started at
 * start_ns (CLOCK_REALTIME ns) and has run ran_ns, beyond clock slack
 * (1 s, plus 0.1% of ran_ns for clock drift)? 1 stale, 0 not. */
int perf_map__stale(const struct stat *st, int64_t start_ns, int64_t ran_ns);

/* When process pid started, on the wall clock (CLOCK_REALTIME ns), and
 * how long it has run: from its start time in /proc/PID/stat (clock ticks
 * since boot; a zombie's too). 0 or -errno. */
int perf_map__proc_start(uint32_t pid, int64_t *start_ns, int64_t *ran_ns);

/* Finds and loads the map of process `pid`:
 *   - with root_prefix: ROOT/tmp/perf-PID.map only;
 *   - else, while the process lives: /proc/PID/root/tmp/perf-NSPID.map
 *     (NSPID: the last field of NSpid in /proc/PID/status), then
 *     /tmp/perf-PID.map.
 * The file is opened without following symlinks and checked on the open
 * descriptor (perf_map__check); while the process lives, a map older than
 * it is refused (perf_map__stale: left by an earlier process with that
 * pid). It is read in pieces, at most PERF_MAP_MAX_BYTES. Returns the
 * verdict; on PERF_MAP_OK *out is the map. `path` gets the file looked at
 * last (for messages). -ENOMEM on allocation failure. Blocks on file I/O. */
int perf_map__load_pid(uint32_t pid, const char *root_prefix, struct perf_map **out,
		       char *path, size_t pathlen);

/* The pid of `pid` inside its own pid namespace (the last NSpid field of
 * /proc/PID/status), or pid itself when that cannot be read. */
uint32_t perf_map__nspid(uint32_t pid);

#endif
