/* cmd-output.c: with the full-screen view and `-- CMD`, the command's
 * stdout and stderr go to a file instead of drawing over the view
 * (top-internal.h): prof-top-cmd-YYYYMMDD-HHMMSS.log in the current
 * directory, a new file (0600, never through a symlink). prof's own fds 1
 * and 2 point there while the command is started, so that it inherits
 * them; the view draws on a copy of the terminal's fd, and both fds are
 * put back at the end. */
#include "top-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int top_cmd_output__begin(struct top_cmd_output *o)
{
	time_t now = time(NULL);
	struct tm tm;
	int fd, tty, err;

	memset(o, 0, sizeof(*o));
	o->saved_out = o->saved_err = -1;
	gmtime_r(&now, &tm);
	strftime(o->path, sizeof(o->path), "prof-top-cmd-%Y%m%d-%H%M%S.log", &tm);
	fd = open(o->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	tty = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	o->saved_out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	o->saved_err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	o->tty = tty >= 0 ? fdopen(tty, "w") : NULL;
	fflush(stdout);
	fflush(stderr);
	if (!o->tty || o->saved_out < 0 || o->saved_err < 0 || dup2(fd, STDOUT_FILENO) < 0 ||
	    dup2(fd, STDERR_FILENO) < 0) {
		err = errno ? -errno : -EIO;
		if (!o->tty && tty >= 0)
			close(tty);
		close(fd);
		top_cmd_output__end(o);
		unlink(o->path);
		return err;
	}
	close(fd);
	return 0;
}

void top_cmd_output__end(struct top_cmd_output *o)
{
	fflush(stdout);
	fflush(stderr);
	if (o->saved_out >= 0) {
		dup2(o->saved_out, STDOUT_FILENO);
		close(o->saved_out);
	}
	if (o->saved_err >= 0) {
		dup2(o->saved_err, STDERR_FILENO);
		close(o->saved_err);
	}
	if (o->tty)
		fclose(o->tty);
	o->saved_out = o->saved_err = -1;
	o->tty = NULL;
}
