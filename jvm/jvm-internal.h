/* jvm-internal.h: shared by the files of jvm/ (proc.c, attach.c); commands
 * and other modules use jvm.h. */
#ifndef PROF_JVM_INTERNAL_H
#define PROF_JVM_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>

#include "jvm/jvm.h"

/* What /proc/PID/status says that attaching needs. */
struct jvm_proc {
	uint32_t nspid;      /* pid in its own pid namespace */
	uid_t euid;
	gid_t egid;
	int catches_sigquit; /* a SIGQUIT handler is installed */
};

/* 0, -ESRCH (gone) or -errno. */
int jvm_proc_status(pid_t pid, struct jvm_proc *p);

/* Is pid stopped (state T, or t: a debugger)? 1 / 0. */
int jvm_proc_stopped(pid_t pid);

/* options.c: does JVM pid run with -XX:+DisableAttachMechanism? 1 yes,
 * 0 no, -EIO when a file its options name (an @argfile, a -XX:Flags= or
 * -XX:VMOptionsFile= file) or its command line could not be read. */
int jvm_option_refuses_attach(pid_t pid);

/* Opens `path` as JVM pid sees it, read-only: an absolute path inside its
 * root, a relative one from its working directory (openat2
 * RESOLVE_IN_ROOT: symlinks cannot leave that root; no magic links; the
 * final name not followed; non-blocking). Regular files only (-EINVAL).
 * fd or -errno. */
int jvm_open_in_root(pid_t pid, const char *path);

#endif
