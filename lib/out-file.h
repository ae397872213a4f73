/* out-file.h: creating an output file safely when prof runs as root in
 * directories other users can write (docs/SECURITY.md).
 *
 * An output is written to a NEW file in its directory, with an
 * unpredictable name, created O_EXCL|O_NOFOLLOW and mode 0600, and
 * out_file__commit() renames it over the output's name: a rename replaces a
 * symlink itself (never what it points to) and splits a hard link, so
 * nothing but the file prof created is ever written, and an existing output
 * is replaced only when the caller says the new one is good (until then a
 * failure leaves it as it was). The directory is opened once and every
 * later step is relative to it.
 *
 * Exceptions, written in place as before:
 * - a device, FIFO or socket at the path (`-o /dev/null`), opened with
 *   O_NOFOLLOW and without O_CREAT;
 * - a symlink nobody else could have planted: owned by root or by us, in a
 *   directory owned by root or by us that no one else may write
 *   (`/dev/stdout`, `/dev/stderr`, a link the user made in their own
 *   directory). Any other symlink is replaced by the commit, its target
 *   untouched, and the commit prints a notice saying so;
 * - an existing regular file (not hard-linked) in a directory that refuses
 *   new files (EACCES, EPERM, EROFS): opened without O_TRUNC and truncated at
 *   the commit, so a failure before the commit leaves it partly overwritten.
 *
 * Functions return 0 or -errno; they do not block (except open(2) of a
 * FIFO, which waits for a reader as it always did) and allocate only the
 * names. */
#ifndef PROF_OUT_FILE_H
#define PROF_OUT_FILE_H

#include <stdio.h>
#include <sys/types.h>

enum out_file_how {
	OUT_FILE_NEW,      /* a new file, renamed over the output at commit */
	OUT_FILE_IN_PLACE, /* the existing file, truncated at commit */
	OUT_FILE_DEVICE,   /* a device, FIFO or trusted link to one: as is */
};

struct out_file {
	int fd;          /* where to write (read-write for a new file) */
	int dirfd;       /* the output's directory */
	char *path;      /* as the user named it, for messages */
	char *base;      /* its last component, in dirfd */
	char *tmp;       /* OUT_FILE_NEW: the new file's name in dirfd */
	enum out_file_how how;
	mode_t mode;     /* the new file's mode, given at commit */
	int committed;
	int replaces_link; /* the commit replaces an untrusted symlink */
};

/* The mode text outputs (reports, SVGs) get: 0666 less the umask, as
 * fopen(3) would create them. Recordings are 0600. */
mode_t out_file_default_mode(void);

/* Opens the output `path` (see above). `mode` is given to a new file at
 * commit (it is 0600 until then). On failure *f holds nothing to release. */
int out_file__open(struct out_file *f, const char *path, mode_t mode);
/* A second new file beside an OUT_FILE_NEW one (same directory, name and
 * mode), for writing a replacement of a committed output. */
int out_file__open_beside(struct out_file *f, const struct out_file *of);
/* Makes the file the output: rename over the name, or truncate in place at
 * the current offset of fd. The fd stays open and usable. Prints one notice
 * on stderr when a symlink was replaced. Once only; later calls return 0. */
int out_file__commit(struct out_file *f);
/* Closes the fd (unless closed = 1: the caller closed it, e.g. fclose) and
 * the directory; an uncommitted new file is removed. */
void out_file__release(struct out_file *f, int closed);

/* stdio for text outputs: out_file__open + fdopen, NULL + errno on failure.
 * out_file__fclose flushes and closes `fp`; when ok and it succeeded,
 * commits, else removes the new file. 0 or -errno. */
FILE *out_file__fopen(struct out_file *f, const char *path);
int out_file__fclose(struct out_file *f, FILE *fp, int ok);

#endif
