/* attach.c: HotSpot's dynamic attach protocol in C (see jvm.h): find or
 * trigger the JVM's attach socket, make sure it is the JVM's (its owner,
 * then the credentials of the process listening on it), connect with the
 * JVM's credentials, send one jcmd command, read the answer. Bounded in
 * time (JVM_ATTACH_TIMEOUT_MS for the socket to appear,
 * JVM_CONNECT_TIMEOUT_MS for a connection, JVM_STOPPED_MS of a stopped
 * JVM, the caller's deadline for all) and size (JVM_MAX_REPLY); every wait
 * is a poll() that also wakes on the caller's cancel fd, in slices of
 * JVM_POLL_MS between looks at its `cancelled` and the JVM's state. */
#include "jvm/jvm-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "lib/grow.h"

struct attach {
	pid_t pid;
	struct jvm_proc proc;
	char sock[sizeof(((struct sockaddr_un *)0)->sun_path)];
	/* What to do about a socket that is not the JVM's. */
	char rm_hint[sizeof(((struct sockaddr_un *)0)->sun_path) + 80];
	uint64_t deadline; /* CLOCK_MONOTONIC ms */
	int (*cancelled)(void);
	int cancel_fd;		/* > 0: readable when the caller wants to stop */
	uint64_t stopped_since; /* when the JVM was first seen stopped, 0: running */
	struct prof_error *err;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

uint64_t jvm_deadline(unsigned ms)
{
	return now_ms() + ms;
}

/* Has the caller asked to stop: its cancel fd readable (looked at without
 * waiting), or `cancelled`? */
static int cancelled(const struct attach *a)
{
	struct pollfd pfd = {.fd = a->cancel_fd, .events = POLLIN};

	if (a->cancel_fd > 0 && poll(&pfd, 1, 0) > 0)
		return 1;
	return a->cancelled && a->cancelled();
}

/* 0 while there is time left before `until` (and the deadline), the
 * caller has not cancelled and the JVM has not been stopped for
 * JVM_STOPPED_MS; else -ETIMEDOUT, -EINTR or -EHOSTDOWN. */
static int time_left(struct attach *a, uint64_t until)
{
	uint64_t t = now_ms();

	if (cancelled(a))
		return -EINTR;
	if (!jvm_proc_stopped(a->pid))
		a->stopped_since = 0;
	else if (!a->stopped_since)
		a->stopped_since = t;
	else if (t - a->stopped_since >= JVM_STOPPED_MS)
		return -EHOSTDOWN;
	return t < (until < a->deadline ? until : a->deadline) ? 0 : -ETIMEDOUT;
}

/* Waits up to ms (at most JVM_POLL_MS, and not past the deadline) for
 * `events` on fd (-1: none), waking at once when the caller's cancel fd
 * turns readable. 1 fd ready, 0 not (yet), -errno. */
static int wait_slice(const struct attach *a, int fd, short events, unsigned ms)
{
	struct pollfd pfd[2] = {{.fd = fd, .events = events},
				{.fd = a->cancel_fd > 0 ? a->cancel_fd : -1, .events = POLLIN}};
	uint64_t t = now_ms();
	int r;

	if (t >= a->deadline)
		return 0;
	if (ms > a->deadline - t)
		ms = (unsigned)(a->deadline - t);
	r = poll(pfd, 2, (int)(ms < JVM_POLL_MS ? ms : JVM_POLL_MS));
	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	return fd >= 0 && pfd[0].revents ? 1 : 0;
}

/* Sleeps ms, or less: up to the deadline, in slices of JVM_POLL_MS, and
 * not past the caller's cancel fd turning readable. */
static void nap(const struct attach *a, unsigned ms)
{
	wait_slice(a, -1, 0, ms);
}

/* Waits for `events` on fd until the deadline, waking at once when the
 * caller cancels, looking at `cancelled` and at the JVM's state every
 * JVM_POLL_MS. 0, -ETIMEDOUT, -EINTR (cancelled), -EHOSTDOWN (stopped)
 * or -errno. */
static int wait_fd(struct attach *a, int fd, short events)
{
	for (;;) {
		int r = time_left(a, UINT64_MAX);

		if (r)
			return r;
		r = wait_slice(a, fd, events, JVM_POLL_MS);
		if (r)
			return r > 0 ? 0 : r;
	}
}

/* One connect() with the JVM's effective ids when we are root and they
 * differ: the JVM accepts a peer with its own euid and egid, or root in
 * its user namespace (which host root is not, in a container with its own
 * user namespace). SO_PEERCRED is taken at connect(), so the ids are
 * switched back right after. The socket is non-blocking: a listener whose
 * accept queue is full gives -EAGAIN at once instead of blocking. */
static int connect_once(struct attach *a, int fd)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	uid_t euid = geteuid();
	gid_t egid = getegid();
	int switched = 0, err = 0;

	memcpy(sa.sun_path, a->sock, sizeof(sa.sun_path));
	if (euid == 0 && (a->proc.euid != 0 || a->proc.egid != egid)) {
		if (setegid(a->proc.egid) || seteuid(a->proc.euid)) {
			err = -errno;
			if (setegid(egid))
				err = -errno;
			return err;
		}
		switched = 1;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		err = -errno;
	if (switched && (seteuid(euid) || setegid(egid)))
		abort(); /* cannot get root back: never go on with the wrong ids */
	if (err == -EINPROGRESS) {
		socklen_t sl = sizeof(err);

		err = wait_fd(a, fd, POLLOUT);
		if (!err && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl))
			err = errno;
		err = err > 0 ? -err : err;
	}
	return err;
}

/* Is the socket file the JVM's: owned by its euid, closed to group and
 * others, as HotSpot makes it (and as the JDK's client checks)? 0, -ENOENT,
 * or -ENOTCONN with the reason in a->err. */
static int check_socket_file(struct attach *a)
{
	const char *shown = strstr(a->sock, "/tmp/");
	struct stat st;

	if (lstat(a->sock, &st))
		return -errno;
	if (!S_ISSOCK(st.st_mode))
		return prof_error_set(a->err, -ENOTCONN, a->rm_hint,
				      "refusing JVM %d's attach socket '%s': not a socket",
				      (int)a->pid, shown);
	if (st.st_uid != a->proc.euid)
		return prof_error_set(
		    a->err, -ENOTCONN, a->rm_hint,
		    "refusing JVM %d's attach socket '%s': owned by uid %u, not by the "
		    "JVM's uid %u",
		    (int)a->pid, shown, (unsigned)st.st_uid, (unsigned)a->proc.euid);
	if (st.st_mode & (S_IRWXG | S_IRWXO))
		return prof_error_set(
		    a->err, -ENOTCONN, a->rm_hint,
		    "refusing JVM %d's attach socket '%s': open to other users (mode %03o)",
		    (int)a->pid, shown, (unsigned)(st.st_mode & 0777));
	return 0;
}

/* Is the process listening on the connected fd the JVM itself, with its
 * uid? SO_PEERCRED gives the listener's pid and ids as seen from our
 * namespaces, as /proc shows the JVM's (a JVM in a container too). */
static int check_peer(struct attach *a, int fd)
{
	struct ucred cr;
	socklen_t sl = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &sl))
		return -errno;
	if (cr.pid == a->pid && cr.uid == a->proc.euid)
		return 0;
	return prof_error_set(
	    a->err, -ENOTCONN, a->rm_hint,
	    "refusing JVM %d's attach socket '%s': process %d (uid %u) listens on it, "
	    "not the JVM",
	    (int)a->pid, strstr(a->sock, "/tmp/"), (int)cr.pid, (unsigned)cr.uid);
}

/* Connects to the JVM's socket, checked before (the file) and after (the
 * listener) connect(), retrying a full accept queue for up to
 * JVM_CONNECT_TIMEOUT_MS. 0 and *fdp, or -errno (-ENOTCONN: refused, with
 * a->err set; nothing was sent). */
static int connect_as_target(struct attach *a, int *fdp)
{
	uint64_t until = now_ms() + JVM_CONNECT_TIMEOUT_MS;
	unsigned wait = 10;
	int fd, err;

	err = check_socket_file(a);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	while ((err = connect_once(a, fd)) == -EAGAIN && !(err = time_left(a, until))) {
		nap(a, wait);
		if (wait < 200)
			wait *= 2;
		err = -EAGAIN;
	}
	if (err == -ETIMEDOUT || err == -EHOSTDOWN)
		err = -EBUSY; /* the JVM takes no connection: frozen or flooded */
	if (!err)
		err = check_peer(a, fd);
	if (err) {
		close(fd);
		return err;
	}
	*fdp = fd;
	return 0;
}

/* The trigger file .attach_pidNSPID: in the JVM's working directory (where
 * HotSpot looks first), else in its /tmp. Owned by us: HotSpot accepts a
 * trigger owned by its euid or root. Returns 0 and the path, or -errno. */
static int create_trigger(struct attach *a, char *path, size_t len)
{
	const char *dirs[] = {"cwd", "root/tmp"};
	int i, fd, err = -ENOENT;

	for (i = 0; i < 2; i++) {
		snprintf(path, len, "/proc/%d/%s/.attach_pid%u", (int)a->pid, dirs[i],
			 (unsigned)a->proc.nspid);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			/* Made by root, for a JVM running as another user; a
			 * root-owned trigger is accepted too, so a failure here
			 * does not matter. */
			if (geteuid() == 0 && fchown(fd, a->proc.euid, a->proc.egid) < 0)
				errno = 0;
			close(fd);
			return 0;
		}
		err = -errno;
		if (err == -EEXIST) {
			path[0] = '\0'; /* someone else's: leave it alone */
			return 0;
		}
	}
	return err;
}

static int path_exists(const struct attach *a)
{
	struct stat st;

	return !lstat(a->sock, &st);
}

/* Wakes up the attach listener and waits for its socket, with backoff:
 * 10, 20, 40 ... 200 ms between looks. */
static int trigger(struct attach *a)
{
	char trig[128];
	uint64_t deadline;
	unsigned wait = 10;
	int err, alive = 1, listening;

	/* Only a running HotSpot JVM that handles SIGQUIT and allows attach
	 * (jvm.h): SIGQUIT kills other processes, and makes a JVM that refuses
	 * attach print a thread dump on its output. */
	err = jvm_may_signal(a->pid, a->err);
	/* Its listener runs (another client just started it, or its socket
	 * was removed): wait for the socket, without a signal. */
	listening = err == -EALREADY;
	if (err && !listening)
		return err;
	trig[0] = '\0';
	err = listening ? 0 : create_trigger(a, trig, sizeof(trig));
	if (err)
		return prof_error_set(a->err, err, NULL,
				      "cannot create the attach trigger file for JVM %d: %s",
				      (int)a->pid, strerror(-err));
	if (!listening && kill(a->pid, SIGQUIT)) {
		err = -errno;
		if (trig[0])
			unlink(trig);
		return prof_error_set(a->err, err, NULL, "cannot signal JVM %d: %s", (int)a->pid,
				      strerror(-err));
	}
	deadline = now_ms() + JVM_ATTACH_TIMEOUT_MS;
	while (!path_exists(a) && !(err = time_left(a, deadline)) &&
	       (alive = !jvm_proc_exited(a->pid))) {
		nap(a, wait);
		if (wait < 200)
			wait *= 2;
	}
	if (trig[0])
		unlink(trig);
	if (!alive)
		return prof_error_set(a->err, -ESRCH, NULL, "JVM %d exited", (int)a->pid);
	if (err == -EINTR)
		return prof_error_set(a->err, err, NULL,
				      "stopped while waiting for JVM %d's attach socket",
				      (int)a->pid);
	if (err == -EHOSTDOWN)
		return prof_error_set(a->err, err, "kill -CONT it and record again",
				      "JVM %d was stopped (SIGSTOP or a debugger) before it opened "
				      "its attach socket",
				      (int)a->pid);
	if (!path_exists(a) && listening)
		return -ENOTSUP; /* a->err says why (jvm_may_signal) */
	if (!path_exists(a))
		return prof_error_set(
		    a->err, -ETIMEDOUT,
		    "it may run with -XX:+DisableAttachMechanism, or be too busy: try again",
		    "JVM %d did not open its attach socket within %d s", (int)a->pid,
		    JVM_ATTACH_TIMEOUT_MS / 1000);
	return 0;
}

static int write_all(struct attach *a, int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EAGAIN) {
			int err = wait_fd(a, fd, POLLOUT);

			if (err)
				return err;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads until EOF, the size cap or the deadline. */
static int read_reply(struct attach *a, int fd, char **buf, size_t *len)
{
	size_t cap = 0, n = 0;
	char *b = NULL;

	for (;;) {
		ssize_t r;
		int err;

		if (GROW(b, cap, n + 65536 + 1)) {
			free(b);
			return -ENOMEM;
		}
		err = wait_fd(a, fd, POLLIN);
		if (err) {
			free(b);
			return err;
		}
		r = read(fd, b + n, cap - n - 1);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0) {
			err = -errno;
			free(b);
			return err;
		}
		if (!r)
			break;
		n += (size_t)r;
		if (n >= JVM_MAX_REPLY)
			break; /* keep what fits: the rest is dropped */
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

/* An answer: "STATUS\nOUTPUT". For jcmd the status is 0 even when the
 * command failed (HotSpot prints the exception into the output), so the
 * output is checked for the ones that say the command is unknown. */
static int parse_reply(struct attach *a, const char *cmd, char *buf, size_t len, char **out,
		       size_t *outlen)
{
	char *nl = memchr(buf, '\n', len), *end;
	long status;

	if (!nl)
		return prof_error_set(a->err, -EPROTO, NULL,
				      "JVM %d sent a reply without a status line", (int)a->pid);
	*nl = '\0';
	status = strtol(buf, &end, 10);
	if (end == buf || *end)
		return prof_error_set(a->err, -EPROTO, NULL, "JVM %d sent a reply we cannot read",
				      (int)a->pid);
	len -= (size_t)(nl + 1 - buf);
	memmove(buf, nl + 1, len + 1);
	if (status != 0) {
		nl = strchr(buf, '\n');
		if (nl)
			*nl = '\0';
		return prof_error_set(a->err, -EPROTO, NULL,
				      "JVM %d failed '%s' (status %ld): %.200s", (int)a->pid, cmd,
				      status, buf);
	}
	if (strstr(buf, "Unknown diagnostic command") ||
	    (!strncmp(buf, "java.lang.IllegalArgumentException", 34) && len < 4096)) {
		nl = strchr(buf, '\n');
		if (nl)
			*nl = '\0';
		return prof_error_set(a->err, -ENOTSUP,
				      "it is older than JDK 17: see docs/prof-jvm.md",
				      "JVM %d does not know '%s': %.200s", (int)a->pid, cmd, buf);
	}
	*out = buf;
	*outlen = len;
	return 0;
}

int jvm_jcmd(pid_t pid, const char *command, const struct jvm_limits *lim, char **out,
	     size_t *len, struct prof_error *errp)
{
	struct attach a = {.pid = pid, .err = errp};
	char req[512], *reply = NULL;
	size_t rlen = 0, qlen;
	int err, fd = -1, n;

	*out = NULL;
	*len = 0;
	prof_error_clear(errp);
	a.deadline = lim && lim->deadline_ms ? lim->deadline_ms : jvm_deadline(JVM_DEADLINE_MS);
	a.cancelled = lim ? lim->cancelled : NULL;
	a.cancel_fd = lim ? lim->cancel_fd : 0;
	err = jvm_is_jvm(pid);
	if (err == 0)
		return prof_error_set(a.err, -ENOEXEC, NULL,
				      "process %d is not a JVM (no libjvm.so mapped)", (int)pid);
	if (err == -ESRCH)
		return prof_error_set(a.err, err, NULL, "process %d is gone", (int)pid);
	if (err < 0)
		return prof_error_set(a.err, err, "run prof as root or as the JVM's user",
				      "cannot read the mappings of process %d: %s", (int)pid,
				      strerror(-err));
	err = jvm_proc_status(pid, &a.proc);
	if (err)
		return prof_error_set(a.err, err, NULL, "cannot read the status of process %d: %s",
				      (int)pid, strerror(-err));
	if (geteuid() != 0 && geteuid() != a.proc.euid)
		return prof_error_set(
		    a.err, -EPERM, "run prof as root or as the JVM's user",
		    "JVM %d runs as uid %u: only root or that user may attach to it", (int)pid,
		    (unsigned)a.proc.euid);
	n = snprintf(a.sock, sizeof(a.sock), "/proc/%d/root/tmp/.java_pid%u", (int)pid,
		     (unsigned)a.proc.nspid);
	if (n < 0 || (size_t)n >= sizeof(a.sock))
		return prof_error_set(a.err, -ENAMETOOLONG, NULL, "attach socket path too long");
	snprintf(a.rm_hint, sizeof(a.rm_hint), "another user may have planted it: remove it "
		 "(rm %s) and record again", a.sock);
	qlen = (size_t)snprintf(req, sizeof(req), "1%cjcmd%c%s%c%c%c", 0, 0, command, 0, 0, 0);
	if (qlen >= sizeof(req))
		return prof_error_set(a.err, -EINVAL, NULL, "jcmd command too long");
	/* A socket left by an earlier JVM with the same pid refuses: trigger.
	 * One that is not the JVM's is refused, and not replaced: the JVM
	 * could not bind its own over another user's file in /tmp. */
	err = connect_as_target(&a, &fd);
	if (err == -ECONNREFUSED)
		unlink(a.sock); /* nobody listens: HotSpot would remove it too */
	if (err == -ECONNREFUSED || err == -ENOENT) {
		err = trigger(&a);
		if (err)
			return err;
		err = connect_as_target(&a, &fd);
	}
	if (err == -ENOTCONN)
		return err; /* refused: a.err says why */
	if (err == -EINTR)
		return prof_error_set(a.err, err, NULL, "stopped while connecting to JVM %d",
				      (int)pid);
	if (err == -EBUSY)
		return prof_error_set(
		    a.err, err,
		    jvm_proc_stopped(pid) ? "kill -CONT it and record again"
					  : "it may be stopped (SIGSTOP) or hung",
		    "JVM %d takes no connection on its attach socket (its accept queue "
		    "stays full)%s",
		    (int)pid, jvm_proc_stopped(pid) ? ": it is stopped (SIGSTOP or a debugger)" : "");
	if (err == -EACCES || err == -EPERM)
		return prof_error_set(a.err, err, "run prof as root or as the JVM's user",
				      "not allowed to connect to JVM %d's attach socket: %s",
				      (int)pid, strerror(-err));
	if (err)
		return prof_error_set(a.err, err, NULL,
				      "cannot connect to JVM %d's attach socket: %s", (int)pid,
				      strerror(-err));
	err = write_all(&a, fd, req, qlen);
	if (!err)
		err = read_reply(&a, fd, &reply, &rlen);
	close(fd);
	if (err == -ETIMEDOUT)
		return prof_error_set(a.err, err, NULL, "JVM %d did not answer '%s' in time",
				      (int)pid, command);
	if (err == -EHOSTDOWN)
		return prof_error_set(a.err, err, "kill -CONT it and record again",
				      "JVM %d is stopped (SIGSTOP or a debugger) and did not answer "
				      "'%s' within %d s of it",
				      (int)pid, command, JVM_STOPPED_MS / 1000);
	if (err == -EINTR)
		return prof_error_set(a.err, err, NULL,
				      "stopped while waiting for JVM %d's answer to '%s'", (int)pid,
				      command);
	if (err)
		return prof_error_set(a.err, err, NULL, "talking to JVM %d: %s", (int)pid,
				      strerror(-err));
	err = parse_reply(&a, command, reply, rlen, out, len);
	if (err)
		free(reply);
	return err;
}

int jvm_has_flag(pid_t pid, const char *flag)
{
	struct prof_error err;
	char *out;
	size_t len;
	int r = jvm_jcmd(pid, "VM.flags", NULL, &out, &len, &err);

	if (r)
		return r;
	r = jvm_flags_value(out, len, flag);
	free(out);
	return r == -ENOENT ? 0 : r;
}
