/* sched-snapshot.c: --sched: the threads that are already asleep when the
 * recording of them begins. A thread blocked for the whole window never
 * switches while prof records, so no switch-out names its wait and it
 * would appear in no off-CPU stack. At attach, each thread's state is read
 * from /proc/PID/task/TID/stat; for one asleep (S or D) an OUT record is
 * written at the attach time with arg = its own tid (no switch happened:
 * docs/FORMAT.md), with a stack sample of the same time: the user
 * registers the kernel shows in /proc/PID/task/TID/syscall (sp and pc of
 * the blocked syscall; root only) and one copy of its user stack from sp
 * (process_vm_readv, bounded to the dwarf copy size) unwound with the CFI
 * unwinder. No ptrace: attaching would interrupt the thread's syscall
 * (epoll_wait returns EINTR) and prof must not change what a target does.
 *
 * Only sp and pc are known: a frame whose CFA is rbp-based (code built
 * with frame pointers) stops the walk unless a callee saved rbp. Then the
 * copy is scanned for frame records (a slot pointing further up the copy,
 * followed by a return address into mapped code), each tried as rbp, and
 * the walk that reaches the root (else goes furthest) is kept.
 *
 * Everything read is the target's: /proc reads are bounded (lib/procfs.h),
 * the stack copy is only read through the unwinder's checked reads. Runs
 * once per thread at attach; allocates the copy buffer once. */
#include "recorder.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "lib/procfs.h"
#include "proc-scan.h"

#define SNAP_RBP_TRIES	64   /* candidate frame records tried as rbp */
#define SNAP_SCAN_BYTES 8192 /* how far above sp they are looked for */

struct sched_snapshot {
	struct unwinder *unwinder;
	unsigned char *copy; /* the stack copy, stack_size bytes */
	size_t size;
	int event; /* event id of the stacks + 1; 0: not made yet */
	uint64_t asleep, stacks, root,
	    rbp_found; /* rbp_found: the walk kept was from a guessed rbp */
	uint64_t pcs[MAX_FRAMES + 1], best[MAX_FRAMES + 1];
};

static struct sched_snapshot *snapshot_get(struct recorder *rec)
{
	struct sched_snapshot *s = rec->sched.snap;
	struct unwind_opts uo = {
	    .find_map = ustack_find_map,
	    .ctx = rec,
	    .map_generation = &rec->spaces.generation,
	};

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->size = rec->opts->stack_size ? rec->opts->stack_size : RECORD_DEFAULT_STACK_SIZE;
	s->copy = malloc(s->size);
	s->unwinder = unwinder__new(&uo);
	if (!s->copy || !s->unwinder) {
		free(s->copy);
		unwinder__free(s->unwinder);
		free(s);
		return NULL;
	}
	rec->sched.snap = s;
	return s;
}

/* State letter and last CPU (fields 3 and 39) of /proc/PID/task/TID/stat:
 * 0, or -errno. The name before the last ')' may hold anything. */
static int read_stat(pid_t pid, pid_t tid, char *state, uint32_t *cpu)
{
	char path[64], buf[1024], *p;
	size_t n;
	int i, err;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	err = procfs_read_into(path, buf, sizeof(buf), &n);
	if (err)
		return err;
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2])
		return -EIO;
	*state = p[2];
	*cpu = 0;
	for (i = 3, p += 2; *p && i < 39; p++)
		i += *p == ' ';
	if (i == 39)
		*cpu = (uint32_t)strtoul(p, NULL, 10);
	return 0;
}

/* sp and pc of the blocked thread from /proc/PID/task/TID/syscall: "NR
 * ARG1..ARG6 SP PC" in a syscall, "-1 SP PC" blocked outside one,
 * "running". 0, or -errno (-EACCES: not root). */
static int read_syscall(pid_t pid, pid_t tid, uint64_t *sp, uint64_t *pc)
{
	char path[64], buf[256], *p, *e;
	unsigned long long v[9];
	size_t n, k = 0;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
	err = procfs_read_into(path, buf, sizeof(buf), &n);
	if (err)
		return err;
	for (p = buf; k < 9; p = e) {
		errno = 0;
		v[k] = strtoull(p, &e, 0);
		if (e == p || errno)
			break;
		k++;
	}
	if (k == 9 || (k == 3 && buf[0] == '-')) {
		*sp = v[k - 2];
		*pc = v[k - 1];
		return *sp && *pc ? 0 : -ENODATA;
	}
	return -ENODATA;
}

/* One copy of up to s->size bytes of the stack from sp; a read that runs
 * past the stack's end is retried shorter, ending on a page boundary. */
static size_t copy_stack(struct sched_snapshot *s, pid_t pid, uint64_t sp)
{
	size_t len = s->size;
	int tries;

	if (sp > UINT64_MAX - len)
		return 0;
	for (tries = 0; tries < 8 && len >= 8; tries++) {
		struct iovec local = {.iov_base = s->copy, .iov_len = len};
		struct iovec remote = {.iov_base = (void *)(uintptr_t)sp, .iov_len = len};
		ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		uint64_t end = (sp + len / 2) & ~4095ull;

		if (got > 0)
			return (size_t)got < len ? (size_t)got : len;
		if (end <= sp) /* the rest of sp's page only */
			end = sp + len / 2 < sp + 8 ? sp + 8 : sp + len / 2;
		len = (size_t)(end - sp); /* shorter each time, never more than the copy */
	}
	return 0;
}

/* Does the copy hold a frame record at sp + off: a saved rbp further up
 * the copy (or 0, the outermost), then a return address into code? */
static int frame_record_at(struct recorder *rec, uint32_t pid, const struct unwind_stack *st,
			   size_t off)
{
	struct unwind_map m;
	uint64_t fp, ra, at = st->start + off;

	memcpy(&fp, st->data + off, 8);
	memcpy(&ra, st->data + off + 8, 8);
	if (fp && (fp <= at || fp >= st->start + st->size || (fp & 7)))
		return 0;
	return ra && ustack_find_map(rec, pid, ra, &m);
}

/* Unwinds from sp and pc into s->best (*n frames): as they are, then with
 * each frame record found in the copy as rbp; the first walk to reach the
 * root wins, else the longest. */
static enum unwind_status unwind(struct recorder *rec, struct sched_snapshot *s, uint32_t pid,
				 struct unwind_regs *regs, const struct unwind_stack *st, size_t *n)
{
	enum unwind_status best, r;
	size_t off, got, tries = 0;
	int guessed = 0;

	best = unwinder__unwind(s->unwinder, pid, regs, st, s->best, MAX_FRAMES, n);
	for (off = 0; best != UNWIND_OK_ROOT && off + 16 <= st->size && off < SNAP_SCAN_BYTES &&
		      tries < SNAP_RBP_TRIES;
	     off += 8) {
		if (!frame_record_at(rec, pid, st, off))
			continue;
		tries++;
		regs->r[UNWIND_RBP] = st->start + off;
		regs->valid |= 1u << UNWIND_RBP;
		r = unwinder__unwind(s->unwinder, pid, regs, st, s->pcs, MAX_FRAMES, &got);
		if (r == UNWIND_OK_ROOT || got > *n) {
			memcpy(s->best, s->pcs, got * sizeof(*s->pcs));
			*n = got;
			best = r;
			guessed = 1;
		}
	}
	s->rbp_found += guessed;
	return best;
}

/* The wait stack of an asleep thread, as a sample of the snapshot event
 * at `time`: empty when its registers or stack cannot be read (another
 * user's process without CAP_SYS_PTRACE), so that off-CPU views still
 * count its time. */
static void add_stack(struct recorder *rec, struct sched_snapshot *s, pid_t pid, pid_t tid,
		      uint64_t time, uint32_t cpu)
{
	struct unwind_regs regs = {.valid = 1u << UNWIND_RIP | 1u << UNWIND_RSP};
	struct unwind_stack st;
	uint64_t sp, pc, chain[MAX_FRAMES + 1];
	size_t n = 0;

	if (read_syscall(pid, tid, &sp, &pc)) {
		recorder_note_err(rec,
				  rec_writer__sample(rec->w, time, (uint32_t)tid, 0, (uint16_t)cpu,
						     (uint8_t)(s->event - 1), 0));
		return;
	}
	regs.r[UNWIND_RIP] = pc;
	regs.r[UNWIND_RSP] = sp;
	st = (struct unwind_stack){.start = sp, .data = s->copy};
	st.size = copy_stack(s, pid, sp);
	st.cut = st.size == s->size;
	if (unwind(rec, s, (uint32_t)pid, &regs, &st, &n) == UNWIND_OK_ROOT)
		s->root++;
	chain[0] = PERF_CONTEXT_USER;
	memcpy(chain + 1, s->best, n * sizeof(*chain));
	s->stacks += n > 0;
	recorder_add_chain(rec, (uint32_t)pid, (uint32_t)tid, time, cpu, pc, PERF_RECORD_MISC_USER,
			   chain, n ? n + 1 : 0, (uint8_t)(s->event - 1), 0);
}

static int make_event(struct recorder *rec, struct sched_snapshot *s)
{
	struct rec_event_desc desc = {.type = PERF_TYPE_TRACEPOINT, .period = 1};
	uint32_t id;
	int err;

	if (s->event)
		return 0;
	desc.config = rec->sched.sw.id;
	err = rec_writer__string(rec->w, SCHED_SNAPSHOT_EVENT, strlen(SCHED_SNAPSHOT_EVENT),
				 &desc.name);
	if (!err)
		err = rec_writer__event(rec->w, &desc, &id);
	if (!err && id > 255)
		err = -E2BIG;
	if (!err)
		s->event = (int)id + 1;
	return err;
}

void sched_snapshot_process(struct recorder *rec, pid_t pid, uint64_t time)
{
	struct sched_snapshot *s;
	pid_t *tids;
	size_t n, i;

	if (!rec->sched.on || proc_list_tids(pid, &tids, &n))
		return;
	s = snapshot_get(rec);
	if (!s || make_event(rec, s)) {
		recorder_note_err(rec, -ENOMEM);
		free(tids);
		return;
	}
	for (i = 0; i < n; i++) {
		uint32_t cpu;
		char state;

		/* A thread gone meanwhile, or a file we may not read: skipped. */
		if (read_stat(pid, tids[i], &state, &cpu) || (state != 'S' && state != 'D'))
			continue;
		s->asleep++;
		recorder_note_err(
		    rec, rec_sink__sched(rec->sink, time, (uint32_t)tids[i], (uint32_t)tids[i],
					   (uint16_t)cpu, REC_SCHED_OUT,
					   state == 'S' ? REC_STATE_SLEEPING : REC_STATE_DISK));
		add_stack(rec, s, pid, tids[i], time, cpu);
	}
	free(tids);
}

void sched_snapshot_write_stats(struct recorder *rec)
{
	const struct sched_snapshot *s = rec->sched.snap;

	if (!s)
		return;
	rec_writer__stat(rec->w, "sched-snapshot-asleep", s->asleep);
	rec_writer__stat(rec->w, "sched-snapshot-stacks", s->stacks);
	rec_writer__stat(rec->w, "sched-snapshot-root", s->root);
	rec_writer__stat(rec->w, "sched-snapshot-rbp-found", s->rbp_found);
}

void sched_snapshot_release(struct recorder *rec)
{
	struct sched_snapshot *s = rec->sched.snap;

	if (!s)
		return;
	unwinder__free(s->unwinder);
	free(s->copy);
	free(s);
	rec->sched.snap = NULL;
}
