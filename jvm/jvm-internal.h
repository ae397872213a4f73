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

#endif
