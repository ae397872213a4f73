/* jvm.h: the jvm/ module's public interface: asking a running HotSpot JVM
 * for what a profile needs (its JIT symbol map, its threads' full names,
 * its flags) over HotSpot's dynamic attach socket, in C, without any JDK
 * tool; and reading what it answers (docs/prof-jvm.md).
 *
 * The attach protocol (HotSpot 8 to 21's "version 1"): the JVM listens on
 * the UNIX socket /tmp/.java_pidNSPID (its /tmp and its own pid, as seen in
 * its pid namespace). If the socket is not there, a file .attach_pidNSPID
 * in its working directory or /tmp and a SIGQUIT make it start listening.
 * A client connects, with the JVM's effective uid and gid or as root (the
 * JVM checks SO_PEERCRED), writes "1\0jcmd\0COMMAND\0\0\0" and reads a
 * status line ("0" = ok) and the command's output until EOF.
 *
 * /tmp is shared: anyone can bind a socket there first. As the JDK's own
 * client does, the socket file must be owned by the JVM's effective uid and
 * closed to group and others; and the process listening on it (SO_PEERCRED
 * of the connection, before anything is sent) must be the JVM itself, with
 * that uid. Anything else is refused: nothing is sent to it.
 *
 * SIGQUIT kills a process that does not handle it, and makes a JVM that
 * refuses attach print a thread dump on its stdout: it is only ever sent
 * to a running HotSpot JVM that allows attach (jvm_may_signal()). */
#ifndef PROF_JVM_H
#define PROF_JVM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/prof-error.h"

/* Bounds: the wait for the socket after SIGQUIT, the wait for a JVM to
 * take a connection (its accept queue full: frozen, or flooded), everything
 * asked of one JVM (jvm_limits' default), the slice between looks at
 * `cancelled`, the largest answer read (a thread dump of a JVM with tens of
 * thousands of threads fits). */
#define JVM_ATTACH_TIMEOUT_MS 5000
#define JVM_CONNECT_TIMEOUT_MS 5000
#define JVM_DEADLINE_MS 20000
#define JVM_POLL_MS 100
#define JVM_MAX_REPLY (64u << 20)
/* A JVM seen stopped (SIGSTOP, a debugger: state T or t) this long in a
 * row while prof waits for it is given up: it cannot answer. */
#define JVM_STOPPED_MS 3000

/* How long jvm_jcmd() may take: it gives up at `deadline_ms`
 * (CLOCK_MONOTONIC milliseconds, from jvm_deadline(); 0: JVM_DEADLINE_MS
 * from the call) with -ETIMEDOUT, and, when `cancelled` is set, asks it
 * every JVM_POLL_MS while it waits and gives up with -EINTR when it returns
 * nonzero. `cancel_fd`, when > 0, is an fd that turns readable when the
 * caller wants to stop (a signalfd of its stop signals): every wait polls
 * it beside what it waits for, so it wakes at once (-EINTR). Share one deadline among the commands
 * sent to one JVM to bound them together. */
struct jvm_limits {
	uint64_t deadline_ms;
	int (*cancelled)(void);
	int cancel_fd;
};

/* CLOCK_MONOTONIC milliseconds `ms` from now. */
uint64_t jvm_deadline(unsigned ms);

/* Is `pid` a HotSpot JVM: does it map libjvm.so? 1 yes, 0 no, -errno when
 * /proc/PID/maps cannot be read (-ESRCH: gone; -EACCES). Reads the maps. */
int jvm_is_jvm(pid_t pid);

/* Has `pid` exited: gone, or a zombie not yet reaped (whose maps read
 * empty)? 1 / 0. One bounded read of /proc/PID/stat. */
int jvm_proc_exited(pid_t pid);

/* Runs jcmd `command` (e.g. "Compiler.perfmap", "Thread.print") in JVM
 * `pid`, triggering its attach listener first if needed (see above),
 * within `lim` (NULL: JVM_DEADLINE_MS, not cancellable).
 * Returns 0 and a malloc'ed, NUL-terminated copy of the output in *out
 * (*len bytes, the caller frees), or -errno with a one-line reason in
 * err->msg (and, when there is one, a "what to do" in err->hint):
 *   -ENOEXEC    not a JVM (no libjvm.so mapped): nothing was sent;
 *   -ENOTSUP    the JVM refuses dynamic attach (-XX:+DisableAttachMechanism,
 *               -Xrs) or does not know the command (too old);
 *   -ETIMEDOUT  no attach socket within JVM_ATTACH_TIMEOUT_MS of SIGQUIT,
 *               or the deadline passed;
 *   -EBUSY      no connection taken within JVM_CONNECT_TIMEOUT_MS (or
 *               JVM_STOPPED_MS of it stopped): its accept queue is full;
 *   -EHOSTDOWN  the JVM is stopped (SIGSTOP, a debugger): not signalled,
 *               or given up after JVM_STOPPED_MS of waiting on it;
 *               (jvm_may_signal() says why a JVM is not signalled:
 *               -ENOEXEC for a process that is not a running HotSpot JVM);
 *   -EINTR      lim->cancelled said so;
 *   -EACCES/-EPERM  not allowed (another user's JVM, prof not root);
 *   -ENOTCONN   the socket is not the JVM's (another owner, open to
 *               others, or another process listens on it): refused,
 *               nothing was sent;
 *   -ESRCH      the process is gone; -EPROTO  a reply we cannot read.
 * Blocks (until the deadline at most). Not thread-safe when run as root:
 * switches the effective uid and gid around connect(). */
int jvm_jcmd(pid_t pid, const char *command, const struct jvm_limits *lim, char **out,
	     size_t *len, struct prof_error *err);

/* Is boolean option `opt` ("-XX:+NAME" or "-XX:-NAME") in effect in JVM
 * `pid`, as its options say: read from every place HotSpot and the java
 * launcher take them (options.c): a -XX:Flags= file (or .hotspotrc in its
 * working directory), JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS and the command
 * line with their @argfiles expanded as the launcher does, the
 * -XX:VMOptionsFile= file, _JAVA_OPTIONS; the later of "-XX:+X" and
 * "-XX:-X" wins, as in the JVM. Files are read through /proc/PID/root and
 * /proc/PID/cwd, regular files only, not through a final symlink, at most
 * 1 MiB each, 64 of them. 1 / 0 (also when unreadable). */
int jvm_option_set(pid_t pid, const char *opt);

/* May prof send SIGQUIT to `pid` to start its attach listener? Only if it
 * is a running HotSpot JVM that catches SIGQUIT and allows attach:
 *   - it maps libjvm.so executable, and that file exports HotSpot's
 *     gHotSpotVMStructs (OpenJ9's libjvm.so does not: it would write a
 *     javacore);
 *   - it runs HotSpot's "Signal Dispatcher" thread (the one that answers
 *     SIGQUIT; a program that only maps a libjvm.so has none);
 *   - it catches SIGQUIT (not -Xrs) and is not stopped (a stopped JVM
 *     would take the signal when resumed, after prof removed the trigger,
 *     and print a thread dump);
 *   - its options do not hold -XX:+DisableAttachMechanism (jvm_option_set);
 *   - it runs no "Attach Listener" thread (-EALREADY: its listener runs,
 *     just started by another client, or its socket was removed, and JDK 8
 *     to 13 answer SIGQUIT with a thread dump, not a new socket: wait for
 *     the socket instead).
 * 0 yes; else -errno with the reason in err->msg (and a hint): -ENOEXEC
 * not a running HotSpot JVM; -ENOTSUP it refuses attach or SIGQUIT (-Xrs), or its
 * options could not all be read; -EHOSTDOWN stopped; -ESRCH gone.
 * Reads /proc and part of libjvm.so's ELF (bounded); never signals. */
int jvm_may_signal(pid_t pid, struct prof_error *err);

/* Is boolean flag `flag` (e.g. "DTraceAllocProbes", "PreserveFramePointer")
 * on in JVM `pid`? Asks VM.flags over the attach socket: 1 on, 0 off (or
 * at its default, which is off for these flags), -errno as jvm_jcmd(). */
int jvm_has_flag(pid_t pid, const char *flag);

/* ---- parsers of the JVM's answers (untrusted text; never crash) ---- */

/* In VM.flags output: 1 "-XX:+FLAG", 0 "-XX:-FLAG", -ENOENT when the flag
 * is not listed (VM.flags lists flags set away from their defaults). */
int jvm_flags_value(const char *text, size_t len, const char *flag);

struct jvm_thread {
	char *name;   /* the Java thread name, as the JVM printed it (bytes) */
	size_t len;
	uint32_t nid; /* native thread id in the JVM's pid namespace */
};

/* Parses a Thread.print dump: every thread header `"NAME" ... nid=0xHEX
 * ...`. Names may hold quotes, spaces, any bytes, even newlines: a name ends
 * at the last quote before the header's fields. Malformed headers are
 * skipped. Returns the number of threads (>= 0) with *threads malloc'ed
 * (free with jvm_threads_free), or -ENOMEM. Names longer than
 * JVM_MAX_THREAD_NAME bytes are cut there. */
#define JVM_MAX_THREAD_NAME 4096
long jvm_parse_threads(const char *text, size_t len, struct jvm_thread **threads);
void jvm_threads_free(struct jvm_thread *threads, size_t n);

/* Maps a tid in `pid`'s pid namespace to the host's (the last NSpid field
 * of /proc/PID/task/TID/status): the host tid, or 0 when no thread of pid
 * has it. The map caches the task list (read on the first lookup): pass a zeroed struct, release with
 * jvm_tid_map_release(). */
struct jvm_tid_pair {
	uint32_t ns, host;
};
struct jvm_tid_map {
	struct jvm_tid_pair *pairs; /* sorted by ns */
	size_t n;
	int loaded;
};
uint32_t jvm_tid_map_lookup(struct jvm_tid_map *m, pid_t pid, uint32_t nstid);
void jvm_tid_map_release(struct jvm_tid_map *m);

/* thread-names.c: the threads of a Thread.print answer (`dump`) written to
 * w as REC_THREAD_FULLNAME events of pid's threads (host tids) at `time`.
 * Returns how many were named; a name that cannot be written is skipped. */
struct rec_writer;
size_t jvm_record_thread_names(struct rec_writer *w, pid_t pid, const char *dump, size_t len,
			       uint64_t time);

/* ---- Java frame names ---- */

/* Cleans a JIT map name as HotSpot writes it into the name profiles show:
 *   "int java.lang.String.hashCode()"          -> "java.lang.String.hashCode"
 *   "void Service$Handler.<init>(int)"         -> "Service$Handler.<init>"
 *   "Ljava/util/HashMap;::get" (agents' form)  -> "java.util.HashMap.get"
 *   "java/util/HashMap.get"                    -> "java.util.HashMap.get"
 *   "StubRoutines (1)"                         -> "StubRoutines"
 *   "Interpreter"                              -> "Interpreter"
 * With `signature` set, a method's parameter list is kept
 * ("java.util.HashMap.get(java.lang.Object)"). Names that do not look like
 * HotSpot's (other runtimes' maps) are copied unchanged. Writes at most
 * cap - 1 bytes and a NUL into out; returns the cleaned length. */
size_t jvm_clean_name(const char *name, size_t len, int signature, char *out, size_t cap);

/* ---- Java frames in stack walks (java-frames.c) ---- */

/* For stack walks of JVMs (record/'s --call-graph dwarf). A compiled frame
 * keeps no frame pointer (without -XX:+PreserveFramePointer): its blob's
 * frame size steps over it (jvm_frames__step). An interpreted
 * frame's pc is HotSpot's one Interpreter blob, whatever method runs; the
 * Method* the interpreter keeps in the frame (rbp + 8 *
 * interpreter_frame_method_offset) says which. jvm_frames__frame(), an
 * unwind frame hook (symbolize/unwind.h), stores such a frame as its
 * Method* (a metadata address, never code) once the method was named from
 * the JVM's memory (docs/prof-jvm.md, "HotSpot's metadata");
 * jvm_frames__name() gives that name back to the symbolizer. A process is
 * looked at on its first frame: not a JVM, or one whose tables prof cannot
 * read, is retried at most once a second for JVM_FRAMES_TRIES seconds,
 * then left alone. Single-threaded (the recorder's thread). */
struct jvm_frames;
struct unwind_regs;
struct unwind_stack;

#define JVM_FRAMES_TRIES 30
#define JVM_FRAMES_MAX_METHODS (1u << 20) /* methods named, all JVMs together */

struct jvm_frames_stats {
	uint64_t jvms;		 /* processes whose interpreter frames are named */
	uint64_t frames, named;	 /* interpreter frames seen, of them named */
	uint64_t methods, bad;	 /* Method* values named, refused */
	uint64_t compiled;	 /* frames stepped by their blob's frame size */
	uint64_t reloads;	 /* code cache tables read again (a pc not found) */
	/* compiled frames' inlined methods (jvm_frames__inlines) */
	uint64_t inline_pcs;	  /* pcs whose scope chain was decoded */
	uint64_t inline_deep;	  /* of them, with inlined methods */
	uint64_t inline_failed;	  /* pcs left as one frame: unreadable or refused */
	uint64_t inline_moved;	  /* pcs dropped: a different nmethod there later */
	uint64_t nm_reads;	  /* nmethods' debug tables read */
	char why[PROF_ERROR_LEN]; /* the first JVM that could not be read and why */
};

/* NULL + errno (ENOMEM). */
struct jvm_frames *jvm_frames__new(void);
void jvm_frames__free(struct jvm_frames *jf);
/* The unwind frame hook (ctx: a struct jvm_frames). */
void jvm_frames__frame(void *ctx, uint32_t pid, const struct unwind_regs *r,
		       const struct unwind_stack *st, uint64_t *pc);
/* The unwind step hook: 1 and the caller's registers in *next when r's pc
 * is in a compiled blob of a JVM with a frame size, else 0 (the walk goes
 * on through rbp). The code cache is read again, at most ten times a
 * second, when a pc is in none of the blobs read before. */
int jvm_frames__step(void *ctx, uint32_t pid, const struct unwind_regs *r,
		     const struct unwind_stack *st, struct unwind_regs *next);
/* 1 and the name ("pkg.Class.method", owned by jf) of a frame that
 * jvm_frames__frame() stored for pid, else 0. */
int jvm_frames__name(void *ctx, uint32_t pid, uint64_t addr, const char **name);
/* The Java methods inlined at compiled code `pc` of pid, as decoded from
 * its nmethod when a stack walk stepped over it (jvm_frames__step): 1 + k
 * names into names[max], innermost first, the compiled method itself
 * last, owned by jf; 0 when there are none (no inlining there, not
 * decoded, refused, or the pc held other code later). caller: pc is a
 * return address (the walk's later frames), else a sampled pc. */
#define JVM_FRAMES_MAX_INLINE_PCS (1u << 18) /* pcs decoded, all JVMs together */
size_t jvm_frames__inlines(void *ctx, uint32_t pid, uint64_t pc, int caller, const char **names,
			   size_t max);
void jvm_frames__stats(const struct jvm_frames *jf, struct jvm_frames_stats *st);
/* Were pid's tables read, its frames handled (jf NULL: no)? */
int jvm_frames__ready(const struct jvm_frames *jf, uint32_t pid);

#endif
