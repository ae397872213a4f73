/* perf-script-read.c: an input read in two steps, so that perf script text
 * streams instead of sitting whole in memory (a 200 MB text once took 201
 * MB): its first bytes, enough to tell its format (report/input.c), then
 * either the rest in 1 MiB chunks through perf-script.c's reader, or, for
 * the formats read whole (recordings, folded text), the rest appended. */
#include "report/formats.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/grow.h"

#define CHUNK (1u << 20)

/* read() that retries EINTR: bytes read, 0 at EOF, or -errno. */
static ssize_t read_some(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

int profile__read_perf_script(struct profile *p, int fd, const char *head, size_t head_len,
			      const struct perf_script_opts *opts, struct perf_script_stats *st)
{
	struct perf_script_reader *r;
	char *buf = NULL;
	ssize_t n = 0;
	int err = perf_script_reader__new(&r, p, opts, st);

	if (err)
		return err;
	err = perf_script_reader__feed(r, head, head_len);
	if (!err && fd >= 0) {
		buf = malloc(CHUNK);
		if (!buf)
			err = -ENOMEM;
	}
	while (!err && fd >= 0 && (n = read_some(fd, buf, CHUNK)) > 0)
		err = perf_script_reader__feed(r, buf, (size_t)n);
	if (!err && n < 0) {
		err = (int)n;
		st->bad_line = 0;
	}
	if (!err)
		err = perf_script_reader__finish(r);
	free(buf);
	perf_script_reader__free(r);
	return err;
}

int profile_text__read_head(const char *path, size_t want, int *fd, unsigned char **data,
			    size_t *size)
{
	int f = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	unsigned char *buf;
	size_t len = 0;
	struct stat st;

	*fd = -1;
	*data = NULL;
	*size = 0;
	if (f < 0)
		return -errno;
	if (!fstat(f, &st) && S_ISDIR(st.st_mode)) {
		close(f);
		return -EISDIR;
	}
	buf = malloc(want + 1);
	if (!buf) {
		if (f)
			close(f);
		return -ENOMEM;
	}
	while (len < want) {
		ssize_t n = read_some(f, buf + len, want - len);

		if (n < 0) {
			free(buf);
			if (f)
				close(f);
			return (int)n;
		}
		if (!n) { /* all of it: nothing left to read */
			if (f)
				close(f);
			f = -1;
			break;
		}
		len += (size_t)n;
	}
	*fd = f;
	*data = buf;
	*size = len;
	return 0;
}

int profile_text__read_rest(int fd, unsigned char **data, size_t *size)
{
	size_t cap = *size + 1, want = CHUNK;
	struct stat st;

	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && (size_t)st.st_size >= *size)
		want = (size_t)st.st_size - *size + 1; /* one read, then EOF */
	for (;;) {
		ssize_t n;

		if (GROW(*data, cap, *size + want))
			return -ENOMEM;
		if (want > CHUNK) /* a file's size: all of it is filled */
			populate_write(*data + *size, want);
		n = read_some(fd, *data + *size, cap - *size);
		if (n < 0)
			return (int)n;
		if (!n)
			return 0;
		*size += (size_t)n;
		want = CHUNK;
	}
}
