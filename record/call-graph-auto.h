/* call-graph-auto.h: --call-graph auto, the default: frame pointers when
 * the targets' code keeps them, DWARF stack copies when it does not
 * (call-graph-auto.c). record/ internal. */
#ifndef PROF_RECORD_CALL_GRAPH_AUTO_H
#define PROF_RECORD_CALL_GRAPH_AUTO_H

#include <stddef.h>

#include "record.h"
#include "symbolize/fp-detect.h"

struct cg_auto {
	int dwarf;             /* the choice */
	int judged;            /* binaries judged; 0: none could be (fp, as before) */
	char path[1024];       /* the binary that decided: the first without frame
				  pointers, else the first judged */
	struct fp_share share; /* its code that keeps a frame pointer */
	int jvm;	       /* a HotSpot JVM without -XX:+PreserveFramePointer
				  decided: its pid (-p), -1 a java command (path) */
	/* --sched with frame-pointer stacks: the targets' C library, where
	 * lock, condition and I/O waits switch out; without frame pointers
	 * (Debian's) a frame-pointer switch-out stack ends in it, so the
	 * switch-out stacks are DWARF ones (libc_dwarf). */
	int libc_judged, libc_dwarf;
	char libc_path[1024];
	struct fp_share libc_share;
};

/* A HotSpot JVM target (-p) whose options (jvm/options.c, read without
 * attaching) lack -XX:+PreserveFramePointer decides dwarf first: its
 * compiled Java frames keep no frame pointer, and DWARF walks step over
 * them by their frame sizes (jvm/java-frames.c). */
/* Judges each target's main executable (-p: /proc/PID/exe; a command: its
 * file, found through PATH as execvp finds it) and the libraries each links
 * from its own tree (fp-detect.h): dwarf when any of them lacks frame
 * pointers. System libraries are not judged: Debian's libc has none, and
 * the leaf fix finds the callers of its frameless leaves. Each file is
 * judged once (by device and inode). Never fails: what cannot be read is
 * not judged. Blocks on file reads; allocates nothing that outlives it. */
void call_graph_auto(const struct record_opts *o, struct cg_auto *c);

/* With --sched (and switch-out stacks) when the choice is fp: judges the C
 * library (-p: the one the first target maps, through /proc/PID/map_files;
 * a command: the one prof runs with, as the command will) into c->libc_*. */
void call_graph_auto_libc(const struct record_opts *o, struct cg_auto *c);

/* The why, for the notice and the file's meta ("call-graph-auto"), e.g.
 * "/usr/bin/redis-server has no frame pointers (1% of its code keeps
 * one)", or "JVM 4242 runs without -XX:+PreserveFramePointer". */
void call_graph_auto_why(const struct cg_auto *c, char *buf, size_t len);
/* The same for the switch-out stacks, e.g. "/lib/x86_64-linux-gnu/libc.so.6
 * has no frame pointers (0% of its code keeps one)". */
void call_graph_auto_libc_why(const struct cg_auto *c, char *buf, size_t len);

#endif
