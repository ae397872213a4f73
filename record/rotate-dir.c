/* rotate-dir.c: the directory of `prof record --rotate` (see record.h):
 * opened without following a symlink and only when root or we own it;
 * each period's file name claimed with O_EXCL (a file already there, ours
 * or planted, is never replaced); the oldest of prof's own files removed
 * for --keep. Only names of prof's pattern, regular files we own, are
 * ever counted or removed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/grow.h"
#include "rotate.h"

int rotate_dir_open(const char *dir, int *fd)
{
	char path[4096];
	size_t len = strlen(dir);
	struct stat st;

	/* "DIR/" would follow a symlink DIR: the slashes go. */
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (!len || len >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, dir, len);
	path[len] = '\0';
	if (mkdir(path, 0700) && errno != EEXIST)
		return -errno;
	*fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0)
		return errno == ENOTDIR || errno == ELOOP ? -ELOOP : -errno;
	if (fstat(*fd, &st) || !S_ISDIR(st.st_mode) || (st.st_uid && st.st_uid != geteuid()) ||
	    ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))) {
		int err = !S_ISDIR(st.st_mode) ? -ENOTDIR : -EPERM;

		close(*fd);
		*fd = -1;
		return err;
	}
	return 0;
}

/* prof-YYYYMMDDTHHMMSSZ.data or prof-YYYYMMDDTHHMMSSZ-N.data */
int rotate_name_ok(const char *s)
{
	static const char shape[] = "prof-ddddddddTddddddZ";
	size_t i;

	for (i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != shape[i])
			return 0;
	if (s[i] == '-' && s[i + 1] >= '1' && s[i + 1] <= '9')
		i += 2;
	return !strcmp(s + i, ".data");
}

int rotate_dir_claim(int dirfd, uint64_t wall_ns, char *name, size_t len)
{
	time_t t = (time_t)(wall_ns / 1000000000ULL);
	char stamp[32];
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	for (int n = 0; n < 10; n++) {
		int fd;

		if (n)
			snprintf(name, len, "prof-%s-%d.data", stamp, n);
		else
			snprintf(name, len, "prof-%s.data", stamp);
		fd =
		    openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

struct rot_file {
	char name[64];
	uint64_t size;
	time_t mtime;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct rot_file *)a)->name, ((const struct rot_file *)b)->name);
}

static int is_busy(const char *name, const char *const *busy, size_t nbusy)
{
	for (size_t i = 0; i < nbusy; i++)
		if (busy[i] && !strcmp(busy[i], name))
			return 1;
	return 0;
}

int rotate_dir_prune(int dirfd, const struct rotate_keep *keep, const char *const *busy,
		     size_t nbusy, size_t *removed)
{
	struct rot_file *f = NULL;
	size_t n = 0, cap = 0, i;
	uint64_t total = 0;
	time_t now = time(NULL);
	struct dirent *e;
	DIR *d;
	int dup = fcntl(dirfd, F_DUPFD_CLOEXEC, 0), err = 0;

	*removed = 0;
	if (dup < 0 || !(d = fdopendir(dup))) {
		if (dup >= 0)
			close(dup);
		return -errno;
	}
	rewinddir(d);
	while ((e = readdir(d))) {
		struct stat st;

		if (!rotate_name_ok(e->d_name) || strlen(e->d_name) >= sizeof(f->name))
			continue;
		if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid())
			continue;
		if (GROW(f, cap, n + 1)) {
			err = -ENOMEM;
			break;
		}
		snprintf(f[n].name, sizeof(f[n].name), "%s", e->d_name);
		f[n].size = (uint64_t)st.st_size;
		f[n].mtime = st.st_mtime;
		total += f[n].size;
		n++;
	}
	closedir(d);
	if (!err)
		qsort(f, n, sizeof(*f), by_name);
	for (i = 0; i < n && !err; i++) {
		int old = keep->seconds && (uint64_t)(now - f[i].mtime) > keep->seconds;
		int big = keep->bytes && total > keep->bytes;

		if ((!old && !big) || is_busy(f[i].name, busy, nbusy))
			continue;
		if (unlinkat(dirfd, f[i].name, 0) && errno != ENOENT)
			continue;
		total -= f[i].size;
		(*removed)++;
	}
	free(f);
	return err;
}
