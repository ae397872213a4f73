/* launch.c: starting `prof record -- CMD`: the child is forked first and
 * waits on a pipe, so the events are opened on it (enabled at exec) before
 * it runs a single instruction of the command. */
#include "recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

int launch_prepare(char *const *argv, pid_t *pid, int *go_fd, int *err_fd)
{
	int go[2], ex[2];
	pid_t p;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(ex, O_CLOEXEC)) {
		int err = -errno;

		close(go[0]);
		close(go[1]);
		return err;
	}
	p = fork();
	if (p < 0) {
		int err = -errno;

		close(go[0]);
		close(go[1]);
		close(ex[0]);
		close(ex[1]);
		return err;
	}
	if (p == 0) {
		char c;
		sigset_t none;
		int e;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(go[1]);
		close(ex[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127); /* the recorder gave up before the start */
		execvp(argv[0], argv);
		e = errno;
		if (write(ex[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	*pid = p;
	*go_fd = go[1];
	*err_fd = ex[0];
	return 0;
}

int launch_go(int go_fd, int err_fd)
{
	int e = 0;
	ssize_t n;

	n = write(go_fd, "g", 1);
	close(go_fd);
	if (n != 1) {
		close(err_fd);
		return -EPIPE;
	}
	/* EOF (the pipe closed at exec) means exec worked. */
	do
		n = read(err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(err_fd);
	return n == (ssize_t)sizeof(e) ? -e : 0;
}
