/* rotate.h: `prof record --rotate`'s directory and its files (internal to
 * record/: rotate-dir.c; the command calls record_rotate(), record.h). */
#ifndef PROF_RECORD_ROTATE_H
#define PROF_RECORD_ROTATE_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

/* Opens (making it 0700 when missing) the directory dir, not through a
 * symlink, and only when root or we own it and others cannot write it
 * (sticky directories aside): *fd, 0; -ELOOP (a symlink), -EPERM (owner
 * or mode), -ENOTDIR, -errno. */
int rotate_dir_open(const char *dir, int *fd);
/* Is s a name of a rotated file: prof-YYYYMMDDTHHMMSSZ.data, or with -N
 * (1-9) before .data? */
int rotate_name_ok(const char *s);
/* Claims the name of the file of a period starting at wall_ns (ns since
 * the epoch): an empty 0600 file made with O_EXCL | O_NOFOLLOW (-N added
 * when the name is taken); its name into name (len bytes). 0 or -errno. */
int rotate_dir_claim(int dirfd, uint64_t wall_ns, char *name, size_t len);
/* Removes the oldest rotated files (by name: by time) of ours, regular
 * files, until those left are younger than keep->seconds (by mtime) and
 * add up to at most keep->bytes (0: no bound), never one named in busy.
 * *removed: how many went. 0 or -errno. */
int rotate_dir_prune(int dirfd, const struct rotate_keep *keep, const char *const *busy,
		     size_t nbusy, size_t *removed);

#endif
