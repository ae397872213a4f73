/* proc.c: what jvm/ reads of a process in /proc before it talks to it:
 * whether it maps libjvm.so, its pid in its own namespace, its effective
 * ids, whether it catches SIGQUIT, whether it is stopped or a zombie,
 * whether it may be sent SIGQUIT at all (a running HotSpot JVM: its
 * libjvm.so's symbols, its Signal Dispatcher thread; its options are
 * options.c's), and its threads' namespaced tids. Every read is bounded
 * (lib/procfs.h); a process that vanishes meanwhile gives -ESRCH or "no". */
#include "jvm/jvm-internal.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/grow.h"
#include "lib/procfs.h"

/* "... /usr/lib/jvm/.../lib/server/libjvm.so" (maybe " (deleted)") */
static int maps_libjvm(void *ctx, const struct procfs_map *m)
{
	(void)ctx;
	return strstr(m->path, "/libjvm.so") != NULL;
}

int jvm_is_jvm(pid_t pid)
{
	return procfs_each_map(pid, maps_libjvm, NULL);
}

int jvm_proc_status(pid_t pid, struct jvm_proc *p)
{
	struct procfs_status st;
	int err = procfs_status(pid, 0, &st);

	memset(p, 0, sizeof(*p));
	p->nspid = st.nspid;
	if (err)
		return err;
	p->euid = st.euid;
	p->egid = st.egid;
	p->catches_sigquit = (st.sigcgt >> (3 - 1)) & 1; /* SIGQUIT is 3 */
	return 0;
}

static int pair_cmp(const void *a, const void *b)
{
	const struct jvm_tid_pair *x = a, *y = b;

	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

/* One /proc/PID/task/TID/status read per thread, then sorted by ns tid. */
static void load_tids(struct jvm_tid_map *m, pid_t pid)
{
	size_t cap = 0, ntids = 0, i;
	pid_t *tids = NULL;

	m->loaded = 1;
	if (procfs_list_tids(pid, &tids, &ntids))
		return;
	for (i = 0; i < ntids; i++) {
		struct procfs_status st;

		if (procfs_status(pid, tids[i], &st))
			continue;
		if (GROW(m->pairs, cap, m->n + 1))
			break;
		m->pairs[m->n++] = (struct jvm_tid_pair){.ns = st.nspid, .host = (uint32_t)tids[i]};
	}
	free(tids);
	if (m->n)
		qsort(m->pairs, m->n, sizeof(*m->pairs), pair_cmp);
}

uint32_t jvm_tid_map_lookup(struct jvm_tid_map *m, pid_t pid, uint32_t nstid)
{
	size_t lo = 0, hi;

	if (!m->loaded)
		load_tids(m, pid);
	hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->pairs[mid].ns < nstid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->pairs[lo].ns == nstid ? m->pairs[lo].host : 0;
}

void jvm_tid_map_release(struct jvm_tid_map *m)
{
	free(m->pairs);
	memset(m, 0, sizeof(*m));
}

/* The executable mapping of libjvm.so, for jvm_may_signal(). */
struct libjvm_map {
	char path[4096];
	uint64_t start, end;
	int found;
};

static int exec_libjvm(void *ctx, const struct procfs_map *m)
{
	struct libjvm_map *l = ctx;
	size_t n = strlen(m->path);

	if (n < 10 || strcmp(m->path + n - 10, "/libjvm.so") || m->perms[2] != 'x')
		return 0;
	snprintf(l->path, sizeof(l->path), "%s", m->path);
	l->start = m->start;
	l->end = m->end;
	l->found = 1;
	return 1;
}

static int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	ssize_t r = pread(fd, buf, n, (off_t)off);

	return r == (ssize_t)n ? 0 : -EIO;
}

/* Does the ELF file at fd name symbol `sym` in its dynamic string table
 * (the one .dynsym links to)? Reads the ELF header, the section headers
 * (LIBJVM_MAX_SECTIONS at most) and that table (LIBJVM_MAX_DYNSTR at
 * most). 1, 0, or -EIO for a file we cannot read as 64-bit ELF. */
#define LIBJVM_MAX_SECTIONS 4096
#define LIBJVM_MAX_DYNSTR (4u << 20)
static int elf_dynstr_has(int fd, const char *sym)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh, str;
	size_t sl = strlen(sym);
	unsigned i;
	char *tab;
	int found;

	if (pread_all(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(sh) ||
	    eh.e_shnum > LIBJVM_MAX_SECTIONS)
		return -EIO;
	for (i = 0; i < eh.e_shnum; i++) {
		if (pread_all(fd, &sh, sizeof(sh), eh.e_shoff + (uint64_t)i * sizeof(sh)))
			return -EIO;
		if (sh.sh_type == SHT_DYNSYM)
			break;
	}
	if (i == eh.e_shnum || sh.sh_link >= eh.e_shnum ||
	    pread_all(fd, &str, sizeof(str), eh.e_shoff + (uint64_t)sh.sh_link * sizeof(str)) ||
	    str.sh_type != SHT_STRTAB || str.sh_size < 2 || str.sh_size > LIBJVM_MAX_DYNSTR)
		return -EIO;
	tab = malloc(str.sh_size);
	if (!tab)
		return -ENOMEM;
	found = -EIO;
	if (!pread_all(fd, tab, str.sh_size, str.sh_offset)) {
		const char *p = tab, *end = tab + str.sh_size;

		found = 0;
		/* Each name is NUL-terminated and follows a NUL. */
		while (!found && (p = memmem(p, (size_t)(end - p), sym, sl + 1)))
			found = (p == tab || p[-1] == '\0') ? 1 : (p++, 0);
	}
	free(tab);
	return found;
}

/* Is the mapped libjvm.so HotSpot's: does it export gHotSpotVMStructs (the
 * table the serviceability agent reads; OpenJ9's libjvm.so has none)?
 * Through /proc/PID/map_files (the very file mapped; root only), else its
 * path inside the process's root. 1, 0, or -errno. */
static int libjvm_is_hotspot(pid_t pid, const struct libjvm_map *l)
{
	char path[96];
	int fd, r;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)l->start, (unsigned long long)l->end);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		fd = jvm_open_in_root(pid, l->path);
	if (fd < 0)
		return fd;
	r = elf_dynstr_has(fd, "gHotSpotVMStructs");
	close(fd);
	return r;
}

/* Does pid run a thread the kernel names `name` (its 15-byte comm)? */
static int has_thread_named(pid_t pid, const char *name)
{
	pid_t *tids = NULL;
	size_t n = 0, i;
	int found = 0;

	if (procfs_list_tids(pid, &tids, &n))
		return 0;
	for (i = 0; i < n && !found; i++) {
		char comm[32];

		found = !procfs_thread_name(pid, tids[i], comm, sizeof(comm)) &&
			!strcmp(comm, name);
	}
	free(tids);
	return found;
}

int jvm_proc_stopped(pid_t pid)
{
	char path[64], buf[1024];
	const char *p;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (procfs_read_into(path, buf, sizeof(buf), &n))
		return 0;
	p = strrchr(buf, ')'); /* the name before it may hold anything */
	return p && p[1] == ' ' && (p[2] == 'T' || p[2] == 't');
}

int jvm_proc_exited(pid_t pid)
{
	char path[64], buf[1024];
	const char *p;
	size_t n;
	int r;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	r = procfs_read_into(path, buf, sizeof(buf), &n);
	if (r)
		return r == -ENOENT || r == -ESRCH;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

int jvm_may_signal(pid_t pid, struct prof_error *err)
{
	struct libjvm_map *l = calloc(1, sizeof(*l));
	struct jvm_proc proc;
	const char *why = NULL;
	int r;

	if (!l)
		return prof_error_set(err, -ENOMEM, NULL, "out of memory");
	r = procfs_each_map(pid, exec_libjvm, l);
	if (r == -ESRCH || (!r && jvm_proc_exited(pid))) {
		free(l);
		return prof_error_set(err, -ESRCH, NULL, "JVM %d exited", (int)pid);
	}
	if (!l->found)
		why = "no executable libjvm.so mapping";
	else if ((r = libjvm_is_hotspot(pid, l)) != 1)
		why = r ? "its libjvm.so cannot be read" : "its libjvm.so is not HotSpot's";
	else if (!has_thread_named(pid, "Signal Dispatch"))
		why = "it runs no HotSpot Signal Dispatcher thread";
	free(l);
	if (why)
		return prof_error_set(err, -ENOEXEC, NULL,
				      "process %d maps libjvm.so but is not a running HotSpot JVM "
				      "(%s): not sent SIGQUIT to start an attach listener",
				      (int)pid, why);
	r = jvm_proc_status(pid, &proc);
	if (r)
		return prof_error_set(err, r, NULL, "cannot read the status of process %d: %s",
				      (int)pid, strerror(-r));
	/* SIGQUIT's default action kills the process: send it only to a JVM
	 * that handles it (not -Xrs / -XX:+ReduceSignalUsage). */
	if (!proc.catches_sigquit)
		return prof_error_set(
		    err, -ENOTSUP, "restart it without -Xrs (-XX:+ReduceSignalUsage)",
		    "JVM %d does not handle SIGQUIT (-Xrs?): cannot start its attach "
		    "listener without killing it",
		    (int)pid);
	r = jvm_option_refuses_attach(pid);
	if (r > 0)
		return prof_error_set(
		    err, -ENOTSUP, "restart it without -XX:+DisableAttachMechanism",
		    "JVM %d refuses dynamic attach (-XX:+DisableAttachMechanism): not sent "
		    "SIGQUIT, which would print a thread dump on its output",
		    (int)pid);
	if (r < 0)
		return prof_error_set(
		    err, -ENOTSUP,
		    "run prof as root or as the JVM's user, or start its listener first "
		    "(jcmd PID VM.version)",
		    "cannot read all of JVM %d's options (its command line, an @argfile, a "
		    "-XX:Flags= or -XX:VMOptionsFile= file): not sent SIGQUIT, as they may "
		    "hold -XX:+DisableAttachMechanism",
		    (int)pid);
	/* Its listener runs but the socket is gone (a /tmp cleaner): HotSpot
	 * 14 and later recreate it on SIGQUIT, older ones print a thread
	 * dump instead, and which one this is is not known here. */
	if (has_thread_named(pid, "Attach Listener"))
		return prof_error_set(
		    err, -EALREADY,
		    "on JDK 14 and later, 'kill -QUIT PID' makes it bind it again (older ones "
		    "print a thread dump instead), then record again",
		    "JVM %d's attach listener runs but its socket is gone (removed from its "
		    "/tmp?): not sent SIGQUIT, which older JVMs answer with a thread dump",
		    (int)pid);
	if (jvm_proc_stopped(pid))
		return prof_error_set(err, -EHOSTDOWN, "kill -CONT it and record again",
				      "JVM %d is stopped (SIGSTOP or a debugger): not sent SIGQUIT, "
				      "which it would take only when resumed",
				      (int)pid);
	return 0;
}
