/* proc.c: what jvm/ reads of a process in /proc before it talks to it:
 * whether it maps libjvm.so, its pid in its own namespace, its effective
 * ids, whether it catches SIGQUIT, its options (command line and the
 * JAVA_TOOL_OPTIONS family), and its threads' namespaced tids. Every read
 * is bounded (lib/procfs.h); a process that vanishes meanwhile gives -ESRCH or "no". */
#include "jvm/jvm-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/procfs.h"

/* Options files larger than this are read only this far. */
#define MAX_OPTIONS_BYTES (1u << 20)

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
	procfs_read(path, MAX_OPTIONS_BYTES, &env, &envlen); /* NULL when unreadable */
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	procfs_read(path, MAX_OPTIONS_BYTES, &cmd, &cmdlen);
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
