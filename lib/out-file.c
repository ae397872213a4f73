/* out-file.c: creating an output file safely (see out-file.h). */
#include "out-file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* Tries at an unused name: each is 62^12 to one to collide by chance, so
 * running out means someone keeps creating our names, or a bug. */
#define TMP_TRIES 16
#define TMP_RANDOM 12

mode_t out_file_default_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

static int owned_by_us_or_root(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/* A symlink nobody but root or we could have made or replaced: ours or
 * root's, in a directory ours or root's that no one else may write. */
static int trusted_link(int dirfd, const struct stat *link)
{
	struct stat dir;

	return owned_by_us_or_root(link->st_uid) && !fstat(dirfd, &dir) &&
	       owned_by_us_or_root(dir.st_uid) && !(dir.st_mode & (S_IWGRP | S_IWOTH));
}

/* path's directory opened (O_PATH) into f->dirfd, its last part into
 * f->base. */
static int split_open(struct out_file *f, const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;

	f->path = strdup(path);
	f->base = strdup(slash ? slash + 1 : path);
	dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	if (!f->path || !f->base || !dir) {
		free(dir);
		return -ENOMEM;
	}
	f->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (f->dirfd < 0)
		return -errno;
	if (!f->base[0] || !strcmp(f->base, ".") || !strcmp(f->base, ".."))
		return -EISDIR;
	return 0;
}

/* A new file in f->dirfd with an unpredictable name: O_EXCL and
 * O_NOFOLLOW, so whatever another user put in the directory is never
 * opened. */
static int create_tmp(struct out_file *f)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t blen = strlen(f->base), i;
	int tries;

	/* Beside the output, so a killed recorder's leftover says whose it
	 * is; a name too long for that gets a hidden generic one. */
	if (blen > 200)
		blen = 0;
	f->tmp = malloc(blen + 32);
	if (!f->tmp)
		return -ENOMEM;
	for (tries = 0; tries < TMP_TRIES; tries++) {
		unsigned char rnd[TMP_RANDOM];
		char *p;

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			return errno ? -errno : -EIO;
		if (blen) {
			memcpy(f->tmp, f->base, blen);
			p = f->tmp + blen;
			memcpy(p, ".tmp-", 5);
			p += 5;
		} else {
			p = f->tmp;
			memcpy(p, ".prof-tmp-", 10);
			p += 10;
		}
		for (i = 0; i < TMP_RANDOM; i++)
			*p++ = chars[rnd[i] % (sizeof(chars) - 1)];
		*p = '\0';
		f->fd = openat(f->dirfd, f->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			       0600);
		if (f->fd >= 0) {
			f->how = OUT_FILE_NEW;
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	{
		int err = errno == EEXIST ? -EEXIST : -errno;

		free(f->tmp);
		f->tmp = NULL;
		return err;
	}
}

/* The directory refuses new files: write over an existing regular file of
 * ours in place (never a link, never one with other names). */
static int open_in_place(struct out_file *f, const struct stat *lst)
{
	struct stat st;

	f->fd = openat(f->dirfd, f->base, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (f->fd < 0 && errno == EACCES)
		f->fd = openat(f->dirfd, f->base, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (f->fd < 0)
		return -errno;
	if (fstat(f->fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    st.st_ino != lst->st_ino || st.st_dev != lst->st_dev)
		return -EPERM;
	f->how = OUT_FILE_IN_PLACE;
	return 0;
}

/* Opens what is at the name as it is: a device or FIFO (O_NOFOLLOW), or
 * through a trusted link (`follow`). A regular file reached so is written
 * in place. */
static int open_existing(struct out_file *f, int follow)
{
	struct stat st;

	/* Write-only, as fopen(3) opened them: a FIFO waits for its reader. */
	f->fd = openat(f->dirfd, f->base,
		       O_WRONLY | O_NOCTTY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (f->fd < 0)
		return -errno;
	if (fstat(f->fd, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	f->how = S_ISREG(st.st_mode) ? OUT_FILE_IN_PLACE : OUT_FILE_DEVICE;
	return 0;
}

static int do_open(struct out_file *f, const char *path)
{
	struct stat lst;
	int err, exists;

	err = split_open(f, path);
	if (err)
		return err;
	exists = !fstatat(f->dirfd, f->base, &lst, AT_SYMLINK_NOFOLLOW);
	if (!exists && errno != ENOENT)
		return -errno;
	if (exists && S_ISDIR(lst.st_mode))
		return -EISDIR;
	if (exists && S_ISLNK(lst.st_mode)) {
		if (trusted_link(f->dirfd, &lst))
			return open_existing(f, 1);
		f->replaces_link = 1;
	} else if (exists && !S_ISREG(lst.st_mode)) {
		err = open_existing(f, 0);
		/* Replaced by a regular file meanwhile: it gets a new one. */
		if (err || f->how == OUT_FILE_DEVICE)
			return err;
		close(f->fd);
		f->fd = -1;
	}
	err = create_tmp(f);
	if ((err == -EACCES || err == -EPERM || err == -EROFS) && exists &&
	    S_ISREG(lst.st_mode) && lst.st_nlink == 1)
		err = open_in_place(f, &lst);
	return err;
}

int out_file__open(struct out_file *f, const char *path, mode_t mode)
{
	int err;

	memset(f, 0, sizeof(*f));
	f->fd = f->dirfd = -1;
	f->mode = mode;
	err = do_open(f, path);
	if (err)
		out_file__release(f, 0);
	return err;
}

int out_file__open_beside(struct out_file *f, const struct out_file *of)
{
	int err = -ENOMEM;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->mode = of->mode;
	f->dirfd = fcntl(of->dirfd, F_DUPFD_CLOEXEC, 0);
	f->path = strdup(of->path);
	f->base = strdup(of->base);
	if (f->dirfd < 0)
		err = -errno;
	else if (f->path && f->base)
		err = create_tmp(f);
	if (err)
		out_file__release(f, 0);
	return err;
}

int out_file__commit(struct out_file *f)
{
	off_t off;

	if (f->committed)
		return 0;
	switch (f->how) {
	case OUT_FILE_NEW: {
		struct stat mine, there;

		if (f->mode != 0600 && fchmod(f->fd, f->mode))
			return -errno;
		/* In a directory another user can write, they can move our
		 * file away and put something else (a link) under its name:
		 * rename only our own file. */
		if (fstat(f->fd, &mine) || fstatat(f->dirfd, f->tmp, &there, AT_SYMLINK_NOFOLLOW))
			return -errno;
		if (mine.st_ino != there.st_ino || mine.st_dev != there.st_dev)
			return -EEXIST;
		if (renameat(f->dirfd, f->tmp, f->dirfd, f->base))
			return -errno;
		if (f->replaces_link)
			cli_warn("'%s' was a symbolic link another user could have made: replaced "
				 "the link with the output (what it pointed to is untouched)",
				 f->path);
		break;
	}
	case OUT_FILE_IN_PLACE:
		off = lseek(f->fd, 0, SEEK_CUR);
		if (off < 0 || ftruncate(f->fd, off))
			return -errno;
		break;
	case OUT_FILE_DEVICE:
		break;
	}
	f->committed = 1;
	return 0;
}

void out_file__release(struct out_file *f, int closed)
{
	if (f->fd >= 0 && !closed)
		close(f->fd);
	if (f->tmp && !f->committed && f->dirfd >= 0)
		unlinkat(f->dirfd, f->tmp, 0);
	if (f->dirfd >= 0)
		close(f->dirfd);
	free(f->path);
	free(f->base);
	free(f->tmp);
	memset(f, 0, sizeof(*f));
	f->fd = f->dirfd = -1;
}

FILE *out_file__fopen(struct out_file *f, const char *path)
{
	FILE *fp;
	int err = out_file__open(f, path, out_file_default_mode());

	if (err) {
		errno = -err;
		return NULL;
	}
	fp = fdopen(f->fd, "w");
	if (!fp) {
		err = errno;
		out_file__release(f, 0);
		errno = err;
	}
	return fp;
}

int out_file__fclose(struct out_file *f, FILE *fp, int ok)
{
	int err = 0;

	errno = 0;
	if (fflush(fp))
		err = errno ? -errno : -EIO;
	if (ok && !err)
		err = out_file__commit(f);
	errno = 0;
	if (fclose(fp) && !err)
		err = errno ? -errno : -EIO;
	out_file__release(f, 1);
	return err;
}
