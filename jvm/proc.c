/* proc.c: what jvm/ reads of a process in /proc before it talks to it:
 * whether it maps libjvm.so, its pid in its own namespace, its effective
 * ids, whether it catches SIGQUIT, its options (command line and the
 * JAVA_TOOL_OPTIONS family), and its threads' namespaced tids. Every read
 * is bounded; a process that vanishes meanwhile gives -ESRCH or "no". */
#include "jvm/jvm-internal.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/grow.h"

/* Options files larger than this are read only this far. */
#define MAX_OPTIONS_BYTES (1u << 20)

int jvm_is_jvm(pid_t pid)
{
	char path[64], line[4096];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (!found && fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);

		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		/* "... /usr/lib/jvm/.../lib/server/libjvm.so" (maybe " (deleted)") */
		found = strstr(line, "/libjvm.so") != NULL;
	}
	fclose(f);
	return found;
}

int jvm_proc_status(pid_t pid, struct jvm_proc *p)
{
	char path[64], line[512];
	FILE *f;

	memset(p, 0, sizeof(*p));
	p->nspid = (uint32_t)pid;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b;
		unsigned long long mask;

		if (!strncmp(line, "Uid:", 4) && sscanf(line + 4, "%lu %lu", &a, &b) == 2)
			p->euid = (uid_t)b;
		else if (!strncmp(line, "Gid:", 4) && sscanf(line + 4, "%lu %lu", &a, &b) == 2)
			p->egid = (gid_t)b;
		else if (!strncmp(line, "SigCgt:", 7) && sscanf(line + 7, "%llx", &mask) == 1)
			p->catches_sigquit = (mask >> (3 - 1)) & 1; /* SIGQUIT is 3 */
		else if (!strncmp(line, "NSpid:", 6))
			p->nspid = jvm_last_field(line + 6, (uint32_t)pid);
	}
	fclose(f);
	return 0;
}

uint32_t jvm_last_field(const char *p, uint32_t dflt)
{
	uint32_t v = dflt;

	for (;;) {
		char *e;
		unsigned long x;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			break;
		x = strtoul(p, &e, 10);
		if (x && x <= UINT32_MAX)
			v = (uint32_t)x;
		p = e;
	}
	return v;
}

/* Reads at most `max` bytes of a /proc file into a malloc'ed buffer. */
static int read_small(const char *path, size_t max, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 0, n = 0;
	char *b = NULL;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r;

		if (n == cap && (n >= max || GROW(b, cap, n + 4096))) {
			if (n >= max)
				break;
			free(b);
			close(fd);
			return -ENOMEM;
		}
		r = read(fd, b + n, (cap < max ? cap : max) - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*buf = b;
	*len = n;
	return 0;
}

/* Scans NUL- or space-separated words in [p, end) for "-XX:+NAME" and
 * "-XX:-NAME" where opt is one of them; updates *state (the later wins). */
static void scan_words(const char *p, const char *end, const char *opt, int *state)
{
	size_t olen = strlen(opt);

	while (p < end) {
		const char *w = p;

		while (p < end && *p && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
		if ((size_t)(p - w) == olen && olen > 5 && !memcmp(w, opt, 5) &&
		    !memcmp(w + 5, opt + 5, olen - 5)) {
			*state = 1;
		} else if ((size_t)(p - w) == olen && olen > 5 && !memcmp(w, opt, 4) &&
			   (w[4] == '+' || w[4] == '-') && w[4] != opt[4] &&
			   !memcmp(w + 5, opt + 5, olen - 5)) {
			*state = 0;
		}
		p++;
	}
}

/* The words of environment variable `var` ("NAME=") in an environ block. */
static void scan_env(const char *buf, size_t len, const char *var, const char *opt, int *state)
{
	const char *p = buf, *end = buf + len;
	size_t vl = strlen(var);

	while (p && p < end) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));
		const char *e = nul ? nul : end;

		if ((size_t)(e - p) > vl && !memcmp(p, var, vl))
			scan_words(p + vl, e, opt, state);
		p = nul ? nul + 1 : NULL;
	}
}

int jvm_option_set(pid_t pid, const char *opt)
{
	char path[64], *env = NULL, *cmd = NULL;
	size_t envlen = 0, cmdlen = 0;
	int state = 0;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	if (read_small(path, MAX_OPTIONS_BYTES, &env, &envlen))
		env = NULL;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if (read_small(path, MAX_OPTIONS_BYTES, &cmd, &cmdlen))
		cmd = NULL;
	/* The JVM reads JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS (the java
	 * launcher), the command line, then _JAVA_OPTIONS: the later wins. */
	if (env) {
		scan_env(env, envlen, "JAVA_TOOL_OPTIONS=", opt, &state);
		scan_env(env, envlen, "JDK_JAVA_OPTIONS=", opt, &state);
	}
	if (cmd)
		scan_words(cmd, cmd + cmdlen, opt, &state);
	if (env)
		scan_env(env, envlen, "_JAVA_OPTIONS=", opt, &state);
	free(env);
	free(cmd);
	return state;
}

int jvm_list_tids(pid_t pid, pid_t **tids, size_t *n)
{
	char path[64];
	struct dirent *d;
	size_t cap = 0;
	DIR *dir;

	*tids = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((d = readdir(dir))) {
		char *e;
		long v = strtol(d->d_name, &e, 10);

		if (*e || v <= 0)
			continue;
		if (GROW(*tids, cap, *n + 1)) {
			closedir(dir);
			free(*tids);
			*tids = NULL;
			*n = 0;
			return -ENOMEM;
		}
		(*tids)[(*n)++] = (pid_t)v;
	}
	closedir(dir);
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
	char path[96], line[512];
	size_t cap = 0, ntids = 0, i;
	pid_t *tids = NULL;
	FILE *f;

	m->loaded = 1;
	if (jvm_list_tids(pid, &tids, &ntids))
		return;
	for (i = 0; i < ntids; i++) {
		uint32_t ns = (uint32_t)tids[i];

		snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tids[i]);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "NSpid:", 6)) {
				ns = jvm_last_field(line + 6, ns);
				break;
			}
		fclose(f);
		if (GROW(m->pairs, cap, m->n + 1))
			break;
		m->pairs[m->n++] = (struct jvm_tid_pair){.ns = ns, .host = (uint32_t)tids[i]};
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
