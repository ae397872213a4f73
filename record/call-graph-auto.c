/* call-graph-auto.c: --call-graph auto (call-graph-auto.h). The targets'
 * main executables and the libraries they link from their own trees are
 * judged by their code (symbolize/fp-detect.h); one binary without frame
 * pointers makes the whole recording DWARF, since the perf event, and so
 * the stack mode, is one for the recording. At most AUTO_MAX_FILES distinct
 * files are judged (a -p list of a hundred workers of one server is one).
 * Files are opened O_NONBLOCK: a FIFO named like a library in a target's
 * directory must not hang the recorder (fp_detect_fd refuses anything but
 * a regular file). */
#include "call-graph-auto.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jvm/jvm.h"
#include "proc-scan.h"

#define AUTO_MAX_FILES 64

struct auto_state {
	struct cg_auto *c;
	dev_t dev[AUTO_MAX_FILES];
	ino_t ino[AUTO_MAX_FILES];
	size_t nseen;
};

static int seen_before(struct auto_state *st, int fd)
{
	struct stat sb;
	size_t i;

	if (fstat(fd, &sb))
		return 1;
	for (i = 0; i < st->nseen; i++)
		if (st->dev[i] == sb.st_dev && st->ino[i] == sb.st_ino)
			return 1;
	if (st->nseen == AUTO_MAX_FILES)
		return 1;
	st->dev[st->nseen] = sb.st_dev;
	st->ino[st->nseen++] = sb.st_ino;
	return 0;
}

/* Judges the file on fd, shown as `name`; the first without frame
 * pointers decides. */
static void judge(struct auto_state *st, int fd, const char *name)
{
	struct cg_auto *c = st->c;
	struct fp_share s;

	if (c->dwarf || seen_before(st, fd) || fp_detect_fd(fd, &s))
		return;
	if (!c->judged++ || !fp_share_has_fp(&s)) {
		snprintf(c->path, sizeof(c->path), "%s", name);
		c->share = s;
		c->dwarf = !fp_share_has_fp(&s);
	}
}

static void judge_lib(void *ctx, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return;
	judge(ctx, fd, path);
	close(fd);
}

/* The executable on fd (shown as name, in directory dir) and its own libraries. */
static void judge_program(struct auto_state *st, int fd, const char *name, const char *dir)
{
	judge(st, fd, name);
	if (!st->c->dwarf)
		fp_detect_own_libs(fd, dir, judge_lib, st);
}

static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else
		snprintf(dir, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

static int open_fd(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	return fd < 0 ? -errno : fd;
}

/* As execvp finds it: a name with a slash as it is, else the first
 * executable regular file in PATH. fd or -errno; the path in found. */
static int open_command(const char *cmd, char *found, size_t len)
{
	const char *path = getenv("PATH"), *p;
	struct stat sb;

	if (strchr(cmd, '/')) {
		snprintf(found, len, "%s", cmd);
		return open_fd(cmd);
	}
	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");

		if (snprintf(found, len, "%.*s/%s", n ? (int)n : 1, n ? p : ".", cmd) < (int)len &&
		    !stat(found, &sb) && S_ISREG(sb.st_mode) && !access(found, X_OK))
			return open_fd(found);
		p += n;
		if (*p == ':')
			p++;
	}
	return -ENOENT;
}

/* Is pid a running HotSpot JVM (whether or not it may be attached to)?
 * Read from /proc and its libjvm.so; nothing is sent to it. */
static int hotspot(pid_t pid)
{
	struct prof_error e;
	int r;

	if (jvm_is_jvm(pid) != 1)
		return 0;
	r = jvm_may_signal(pid, &e);
	return r != -ENOEXEC && r != -ESRCH && r != -ENOMEM;
}

/* The last -XX:[+-]PreserveFramePointer in s (space-separated words):
 * 1 on, 0 off, else `state` unchanged. */
static int pfp_in(const char *s, int state)
{
	static const char flag[] = "PreserveFramePointer";
	const char *p = s;

	while (p && (p = strstr(p, "-XX:")) != NULL) {
		if ((p[4] == '+' || p[4] == '-') && !strncmp(p + 5, flag, sizeof(flag) - 1) &&
		    (!p[5 + sizeof(flag) - 1] || p[5 + sizeof(flag) - 1] == ' '))
			state = p[4] == '+';
		p += 4;
	}
	return state;
}

/* A command that is a JDK launcher (java, javac, ...: bin/NAME beside
 * lib/libjli.so), started without -XX:+PreserveFramePointer (or
 * -J-XX:+...) in its options or the variables the launcher and the JVM
 * read, in their order (@argfiles are not read: a flag only there is
 * missed, and DWARF stacks are taken). */
static int java_without_pfp(const struct record_opts *o, const char *path)
{
	static const char *const vars[] = {"JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS"};
	char real[PATH_MAX], dir[PATH_MAX], jli[PATH_MAX + 32];
	int state = 0;

	/* /usr/bin/java is a link to the JDK's (through /etc/alternatives) */
	if (!realpath(path, real))
		return 0;
	dir_of(real, dir, sizeof(dir));
	snprintf(jli, sizeof(jli), "%s/../lib/libjli.so", dir);
	if (access(jli, F_OK))
		return 0;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		state = pfp_in(getenv(vars[i]), state);
	for (size_t i = 1; o->argv[i] && o->argv[i][0] == '-'; i++)
		state = pfp_in(o->argv[i], state);
	return !pfp_in(getenv("_JAVA_OPTIONS"), state);
}

void call_graph_auto(const struct record_opts *o, struct cg_auto *c)
{
	struct auto_state *st = calloc(1, sizeof(*st));
	const int probing = o->alloc || o->malloc || o->nevents;
	char path[PATH_MAX], dir[PATH_MAX], exe[64];
	size_t i;
	int fd;

	memset(c, 0, sizeof(*c));
	if (!st)
		return;
	st->c = c;
	if (o->argv && o->argv[0]) {
		fd = open_command(o->argv[0], path, sizeof(path));
		if (fd >= 0 && !probing && java_without_pfp(o, path)) {
			c->dwarf = 1;
			c->jvm = -1;
			snprintf(c->path, sizeof(c->path), "%.1000s", path);
		}
		if (fd >= 0 && !c->dwarf) {
			dir_of(path, dir, sizeof(dir));
			judge_program(st, fd, path, dir);
		}
		if (fd >= 0)
			close(fd);
	}
	/* Not with probes (--alloc, --malloc, -e): a 32 KB stack copy per hit
	 * at allocation rates overflows the rings (t0610's JavaAlloc lost
	 * 5,000-10,000 samples in 4 s); their stacks stay frame-pointer ones. */
	for (i = 0; i < o->npids && !c->dwarf && !probing; i++) {
		if (hotspot(o->pids[i]) &&
		    !jvm_option_set(o->pids[i], "-XX:+PreserveFramePointer")) {
			c->dwarf = 1;
			c->jvm = (int)o->pids[i];
		}
	}
	for (i = 0; i < o->npids && !c->dwarf; i++) {
		ssize_t n;

		/* The executable the kernel ran, whatever its path now says;
		 * its name (readlink) only to show and to find its libraries. */
		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)o->pids[i]);
		fd = open(exe, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = readlink(exe, path, sizeof(path) - 1);
		path[n > 0 ? n : 0] = '\0';
		if (n <= 0)
			snprintf(path, sizeof(path), "%s", exe);
		dir_of(path, dir, sizeof(dir));
		judge_program(st, fd, path, dir);
		close(fd);
	}
	free(st);
}

/* The C library's mapping found in a process's maps: the first one. */
struct libc_map {
	uint64_t start, end;
	char path[4096];
	int found;
};

static void find_libc(void *ctx, const struct proc_map *m)
{
	struct libc_map *l = ctx;
	const char *base = strrchr(m->path, '/');

	base = base ? base + 1 : m->path;
	if (l->found || (strncmp(base, "libc.so", 7) && strncmp(base, "libc-", 5)))
		return;
	l->start = m->start;
	l->end = m->end;
	snprintf(l->path, sizeof(l->path), "%s", m->path);
	l->found = 1;
}

void call_graph_auto_libc(const struct record_opts *o, struct cg_auto *c)
{
	pid_t pid = o->npids ? o->pids[0] : getpid();
	struct libc_map *l = calloc(1, sizeof(*l));
	char mf[96];
	int fd;

	if (!l)
		return;
	/* The mapped file itself, whatever its path says in the target's
	 * mount namespace (the path only to show). */
	if (!proc_each_exec_map(pid, find_libc, l) && l->found) {
		snprintf(mf, sizeof(mf), "/proc/%d/map_files/%llx-%llx", (int)pid,
			 (unsigned long long)l->start, (unsigned long long)l->end);
		fd = open(mf, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0 && !fp_detect_fd(fd, &c->libc_share)) {
			c->libc_judged = 1;
			c->libc_dwarf = !fp_share_has_fp(&c->libc_share);
			snprintf(c->libc_path, sizeof(c->libc_path), "%.1023s", l->path);
		}
		if (fd >= 0)
			close(fd);
	}
	free(l);
}

static void why(const char *path, const struct fp_share *s, int none, char *buf, size_t len)
{
	unsigned pct = s->bytes ? (unsigned)(s->fp_bytes * 100 / s->bytes) : 0;

	snprintf(buf, len, "%s %s frame pointers (%u%% of its code keeps one)", path,
		 none ? "has no" : "has", pct);
}

void call_graph_auto_why(const struct cg_auto *c, char *buf, size_t len)
{
	if (c->jvm > 0)
		snprintf(buf, len, "JVM %d runs without -XX:+PreserveFramePointer", c->jvm);
	else if (c->jvm)
		snprintf(buf, len, "%s starts a JVM without -XX:+PreserveFramePointer", c->path);
	else if (!c->judged)
		snprintf(buf, len, "no target binary could be judged");
	else
		why(c->path, &c->share, c->dwarf, buf, len);
}

void call_graph_auto_libc_why(const struct cg_auto *c, char *buf, size_t len)
{
	if (!c->libc_judged)
		snprintf(buf, len, "the C library could not be judged");
	else
		why(c->libc_path, &c->libc_share, c->libc_dwarf, buf, len);
}
