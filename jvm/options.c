/* options.c: is a boolean -XX option in effect in a running JVM, from
 * every place HotSpot and the java launcher take options (jvm.h,
 * jvm_option_set): the -XX:Flags= file (or .hotspotrc), JAVA_TOOL_OPTIONS,
 * JDK_JAVA_OPTIONS, the command line with its @argfiles expanded and its
 * -XX:VMOptionsFile=, then _JAVA_OPTIONS; the later setting wins.
 *
 * Everything here is the target owner's: the files are opened inside the
 * JVM's root (openat2 RESOLVE_IN_ROOT, no magic links, not through a final
 * symlink, non-blocking: a FIFO is refused), regular files only, at most
 * OPT_FILE_MAX bytes each and OPT_FILES_MAX of them; a file that is named
 * but cannot be read makes the answer "unknown", which jvm_may_signal()
 * treats as "do not signal". */
#include "jvm/jvm-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/procfs.h"

#define OPT_FILE_MAX  (1u << 20)
#define OPT_FILES_MAX 64
#define OPT_ENV_MAX   (1u << 20)

struct opt_scan {
	pid_t pid;
	const char *opt; /* "-XX:+NAME" or "-XX:-NAME" */
	size_t olen;
	int state;	       /* 1 on, 0 off, -1 not set */
	int unknown;	       /* a file named in the options could not be read */
	unsigned files;	       /* files read so far */
	char flags_file[4096]; /* the last -XX:Flags= seen */
};

/* A token of "-XX:+NAME" / "-XX:-NAME" form (prefix "-XX:", or "" in a
 * -XX:Flags= file) updates the state when NAME is the option's. */
static void word(struct opt_scan *s, const char *w, size_t n, const char *prefix)
{
	size_t pl = strlen(prefix), name = s->olen - 5;

	if (n != pl + 1 + name || memcmp(w, prefix, pl) || (w[pl] != '+' && w[pl] != '-') ||
	    memcmp(w + pl + 1, s->opt + 5, name))
		return;
	s->state = w[pl] == s->opt[4];
}

/* The next token of an options text in [*p, end): blanks separate tokens,
 * ' and " quote (the launcher's @argfiles also take backslash escapes in
 * quotes and # comments, `argfile`; a -XX:Flags= file # comments). The
 * token is copied, unquoted, into out (cut at cap - 1 bytes). 1 and *len,
 * or 0 at the end. */
static int next_token(const char **p, const char *end, int argfile, int comments, char *out,
		      size_t cap, size_t *len)
{
	const char *q = *p;
	size_t n = 0;
	char quote = 0;

	for (;;) {
		while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r' || !*q))
			q++;
		if (q < end && comments && *q == '#') {
			while (q < end && *q != '\n')
				q++;
			continue;
		}
		break;
	}
	if (q >= end) {
		*p = q;
		return 0;
	}
	for (; q < end; q++) {
		char c = *q;

		if (quote) {
			if (c == quote) {
				quote = 0;
				continue;
			}
			if (argfile && c == '\\' && q + 1 < end) {
				c = *++q;
				c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
			}
		} else if (c == '"' || c == '\'') {
			quote = c;
			continue;
		} else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || !c) {
			break;
		}
		if (n + 1 < cap)
			out[n++] = c;
	}
	out[n] = '\0';
	*p = q;
	*len = n;
	return 1;
}

int jvm_open_in_root(pid_t pid, const char *path)
{
	struct open_how how = {.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	char dir[64];
	struct stat st;
	int dfd, fd, err;

	snprintf(dir, sizeof(dir), "/proc/%d/%s", (int)pid, path[0] == '/' ? "root" : "cwd");
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	fd = (int)syscall(SYS_openat2, dfd, path, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS) /* before Linux 5.6: the final name not followed */
		fd = openat(dfd, path[0] == '/' ? path + 1 : path, (int)how.flags);
	err = fd < 0 ? -errno : 0;
	close(dfd);
	if (err)
		return err;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* Reads a file named in the options (bounded). 0 and a malloc'ed buffer,
 * or -errno, and then the answer is unknown (unless `optional` and the
 * file is not there). */
static int read_named(struct opt_scan *s, const char *path, int optional, char **buf, size_t *len)
{
	size_t cap = OPT_FILE_MAX, n = 0;
	char *b;
	int fd;

	*buf = NULL;
	if (!path[0] || s->files >= OPT_FILES_MAX) {
		s->unknown = 1;
		return -E2BIG;
	}
	s->files++;
	fd = jvm_open_in_root(s->pid, path);
	if (fd < 0) {
		s->unknown |= !(optional && fd == -ENOENT);
		return fd;
	}
	b = malloc(cap + 1);
	while (b && n < cap) {
		ssize_t r = read(fd, b + n, cap - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (!b) {
		s->unknown = 1;
		return -ENOMEM;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

/* A buffer of VM options (JAVA_TOOL_OPTIONS, _JAVA_OPTIONS, a
 * -XX:VMOptionsFile=): tokens, quotes, no @files; -XX:Flags= noted. */
static void vm_options(struct opt_scan *s, const char *p, const char *end)
{
	char tok[4096];
	size_t n;

	while (next_token(&p, end, 0, 0, tok, sizeof(tok), &n)) {
		if (!strncmp(tok, "-XX:Flags=", 10))
			snprintf(s->flags_file, sizeof(s->flags_file), "%s", tok + 10);
		word(s, tok, n, "-XX:");
	}
}

/* The java launcher's options that take the next argument as their value. */
static int takes_value(const char *a)
{
	static const char *const v[] = {"-cp",
					"-classpath",
					"--class-path",
					"-p",
					"--module-path",
					"--upgrade-module-path",
					"--add-modules",
					"--limit-modules",
					"--add-exports",
					"--add-opens",
					"--add-reads",
					"--patch-module",
					"--enable-native-access",
					"--source"};
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!strcmp(a, v[i]))
			return 1;
	return 0;
}

struct launcher {
	int no_files;	/* after --disable-@files */
	int value_next; /* the next argument is an option's value */
	int done;	/* past the main class: the rest is the program's */
};

static void launcher_arg(struct opt_scan *s, struct launcher *l, const char *a, size_t n,
			 int in_file);

/* An @argfile's arguments, as if given in its place (not expanded again). */
static void argfile(struct opt_scan *s, struct launcher *l, const char *path)
{
	char *buf, tok[4096];
	const char *p;
	size_t len, n;

	if (read_named(s, path, 0, &buf, &len))
		return;
	p = buf;
	while (!l->done && next_token(&p, buf + len, 1, 1, tok, sizeof(tok), &n))
		launcher_arg(s, l, tok, n, 1);
	free(buf);
}

static void launcher_arg(struct opt_scan *s, struct launcher *l, const char *a, size_t n,
			 int in_file)
{
	if (l->done)
		return;
	if (l->value_next) {
		l->value_next = 0;
		return;
	}
	if (a[0] == '@' && !l->no_files && !in_file) {
		if (a[1] == '@') /* "@@x": the argument "@x" */
			return;
		argfile(s, l, a + 1);
		return;
	}
	if (!strcmp(a, "--disable-@files")) {
		l->no_files = 1;
		return;
	}
	if (a[0] != '-' || !strcmp(a, "-jar") || !strcmp(a, "-m") || !strcmp(a, "--module") ||
	    !strncmp(a, "--module=", 9)) {
		l->done = 1; /* the main class, jar or module: the program's arguments follow */
		return;
	}
	if (takes_value(a)) {
		l->value_next = 1;
		return;
	}
	if (!strncmp(a, "-XX:VMOptionsFile=", 18)) {
		char *buf;
		size_t len;

		if (!read_named(s, a + 18, 0, &buf, &len)) {
			vm_options(s, buf, buf + len);
			free(buf);
		}
		return;
	}
	if (!strncmp(a, "-XX:Flags=", 10))
		snprintf(s->flags_file, sizeof(s->flags_file), "%s", a + 10);
	word(s, a, n, "-XX:");
}

/* The value of environment variable `var` ("NAME=") in an environ block,
 * or NULL; *vend its end. The first definition, as getenv(3) finds it. */
static const char *env_value(const char *buf, size_t len, const char *var, const char **vend)
{
	const char *p = buf, *end = buf + len;
	size_t vl = strlen(var);

	while (p < end) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));
		const char *e = nul ? nul : end;

		if ((size_t)(e - p) >= vl && !memcmp(p, var, vl)) {
			*vend = e;
			return p + vl;
		}
		p = e + 1;
	}
	return NULL;
}

/* Every source, in the order HotSpot applies them; s->state ends -1
 * when none set the option. */
static void scan(struct opt_scan *s)
{
	char path[64], *env = NULL, *cmd = NULL, *flags = NULL, tok[4096];
	const char *v, *ve = NULL, *p;
	size_t envlen = 0, cmdlen = 0, flen = 0, n;
	struct launcher l = {0};
	int later;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)s->pid);
	procfs_read(path, OPT_ENV_MAX, &env, &envlen); /* NULL when unreadable */
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)s->pid);
	procfs_read(path, OPT_ENV_MAX, &cmd, &cmdlen);
	if (!cmd || !env)
		s->unknown = 1; /* what we cannot read may hold the option */
	/* JAVA_TOOL_OPTIONS (the VM's, no @files). */
	if (env && (v = env_value(env, envlen, "JAVA_TOOL_OPTIONS=", &ve)))
		vm_options(s, v, ve);
	/* The launcher's arguments: JDK_JAVA_OPTIONS, then argv[1..]. */
	if (env && (v = env_value(env, envlen, "JDK_JAVA_OPTIONS=", &ve)))
		for (p = v; next_token(&p, ve, 0, 0, tok, sizeof(tok), &n);)
			launcher_arg(s, &l, tok, n, 0);
	l.done = l.value_next = 0;
	for (p = cmd ? memchr(cmd, '\0', cmdlen) : NULL; p && ++p < cmd + cmdlen;) {
		const char *e = memchr(p, '\0', (size_t)(cmd + cmdlen - p));

		launcher_arg(s, &l, p, e ? (size_t)(e - p) : (size_t)(cmd + cmdlen - p), 0);
		p = e;
	}
	/* _JAVA_OPTIONS. */
	if (env && (v = env_value(env, envlen, "_JAVA_OPTIONS=", &ve)))
		vm_options(s, v, ve);
	free(env);
	free(cmd);
	/* The -XX:Flags= file, which HotSpot applies first (everything above
	 * overrides it); else .hotspotrc in its working directory, which debug
	 * builds read (product builds only warn: reading it errs on the safe
	 * side). Its lines are "+NAME", "-NAME", "NAME=value", # comments. */
	later = s->state;
	s->state = -1;
	if (!read_named(s, s->flags_file[0] ? s->flags_file : ".hotspotrc", !s->flags_file[0],
			&flags, &flen)) {
		for (p = flags; next_token(&p, flags + flen, 0, 1, tok, sizeof(tok), &n);)
			word(s, tok, n, "");
		free(flags);
	}
	if (later >= 0)
		s->state = later;
}

static int option_state(pid_t pid, const char *opt, int *unknown)
{
	struct opt_scan *s = calloc(1, sizeof(*s));
	int state;

	if (!s) {
		*unknown = 1;
		return 0;
	}
	s->pid = pid;
	s->opt = opt;
	s->olen = strlen(opt);
	s->state = -1;
	if (s->olen > 5 && !strncmp(opt, "-XX:", 4))
		scan(s);
	state = s->state == 1;
	*unknown = s->unknown;
	free(s);
	return state;
}

int jvm_option_set(pid_t pid, const char *opt)
{
	int unknown;

	return option_state(pid, opt, &unknown);
}

int jvm_option_refuses_attach(pid_t pid)
{
	int unknown, on = option_state(pid, "-XX:+DisableAttachMechanism", &unknown);

	return on ? 1 : unknown ? -EIO : 0;
}
