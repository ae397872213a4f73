/* path-buf.h: the size of the buffers prof builds paths in. A path from
 * the kernel or a user is at most PATH_MAX (4096) bytes; prof puts a prefix
 * before it ("/proc/PID/root", a container root, "build-id:") or fields
 * around it (a tracefs probe line), so its buffers are a little larger.
 * snprintf into them is still checked: a longer result is an error, never
 * a cut path. */
#ifndef PROF_PATH_BUF_H
#define PROF_PATH_BUF_H

/* A path with a prefix of up to 100 bytes. */
#define PATH_BUF 4200
/* A text line that holds one such path and a few fields. */
#define PATH_LINE_BUF 4400

#endif
