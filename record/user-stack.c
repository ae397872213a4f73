/* user-stack.c: user registers and stack bytes with every sample, turned
 * into user call stacks (docs/unwind-design.md).
 *
 * --call-graph dwarf: the kernel copies up to SIZE bytes of user stack and
 * the general registers with each sample and gives only the kernel part of
 * the call chain; the user part is unwound here with the binaries' CFI
 * (symbolize/unwind.h) and appended, so the file holds ordinary stacks and
 * readers need nothing new.
 *
 * Frame-pointer mode (fp, or auto's choice for code with frame pointers):
 * the kernel walks the user stack through rbp. In a function that has not
 * set up its frame (a frameless leaf, which gcc makes even with
 * -fno-omit-frame-pointer, or any function in its prologue or epilogue)
 * rbp is still the caller's, so the walk skips the caller. Two fixes
 * (--leaf-fix): with each sample come rip, rsp, rbp and 64 bytes of
 * stack, and the CFI row of the leaf pc gives its return
 * address, which is put back into the chain when the kernel's walk missed
 * it (stack); or the samples come as they are, and when the CFI row says
 * the leaf's frame is not set up, the call before the kernel's next return
 * address names the missing caller (callsite, record/callsite.h).
 *
 * Samples are queued while the rings are drained (a copy of what is needed,
 * no allocation once the queue has grown to a drain's worth) and processed
 * after the drain: by then the mmap records of every ring are in, so every
 * pc's binary is known. The processing happens during recording, at most a
 * second behind, so a recorder that is killed leaves a file whose stacks are
 * complete up to its last flush, like any other recording. */
#include "recorder.h"

#include <asm/perf_regs.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "jvm/jvm.h"
#include "lib/grow.h"
#include "symbolize/symbolize.h"
#include "callsite.h"

struct ustack_entry {
	uint64_t time, ip;
	uint32_t pid, tid, cpu;
	uint16_t misc;
	uint8_t has_regs, cut, event; /* event: the file's event id */
	uint8_t dwarf;                /* unwind by CFI (dwarf mode, or a switch-out's) */
	uint32_t nchain, stack_len;
	struct unwind_regs regs;
	/* then u64 chain[nchain], then stack bytes padded to 8 */
};

/* perf's x86 register numbers to DWARF's; -1: not used. */
int ustack_perf_to_dwarf(int perf_reg)
{
	switch (perf_reg) {
	case PERF_REG_X86_AX:
		return UNWIND_RAX;
	case PERF_REG_X86_BX:
		return UNWIND_RBX;
	case PERF_REG_X86_CX:
		return UNWIND_RCX;
	case PERF_REG_X86_DX:
		return UNWIND_RDX;
	case PERF_REG_X86_SI:
		return UNWIND_RSI;
	case PERF_REG_X86_DI:
		return UNWIND_RDI;
	case PERF_REG_X86_BP:
		return UNWIND_RBP;
	case PERF_REG_X86_SP:
		return UNWIND_RSP;
	case PERF_REG_X86_IP:
		return UNWIND_RIP;
	default:
		if (perf_reg >= PERF_REG_X86_R8 && perf_reg <= PERF_REG_X86_R15)
			return UNWIND_R8 + (perf_reg - PERF_REG_X86_R8);
		return -1;
	}
}

int ustack_find_map(void *ctx, uint32_t pid, uint64_t addr, struct unwind_map *m)
{
	struct recorder *rec = ctx;
	uint32_t id = addr_spaces__find(&rec->spaces, pid, addr);
	const struct rec_mapping *mp;

	if (id == REC_NO_MAPPING || id >= rec_writer__nmappings(rec->w))
		return 0;
	mp = &rec_writer__mappings(rec->w)[id];
	m->path = rec_writer__str(rec->w, mp->path);
	m->start = mp->start;
	m->end = mp->end;
	m->pgoff = mp->pgoff;
	m->id = id;
	return m->path != NULL;
}

/* The queue's settings for dwarf (all general registers and stack_size
 * bytes) or the fp leaf fix (callsite: nothing; else ip, sp, bp and a
 * slice), without asking the kernel: setup asked, replay reads the file. */
/* The general registers: CFI rules name the callee-saved ones,
 * expressions (stack realignment, PLT) a few others. */
static uint64_t dwarf_regs_mask(void)
{
	uint64_t mask = 0;
	int i;

	for (i = PERF_REG_X86_AX; i <= PERF_REG_X86_IP; i++)
		mask |= 1ULL << i;
	for (i = PERF_REG_X86_R8; i <= PERF_REG_X86_R15; i++)
		mask |= 1ULL << i;
	return mask;
}

/* reg_dwarf[i]: the DWARF number of the i-th register of mask in a sample. */
static unsigned reg_order(uint64_t mask, uint8_t *reg_dwarf)
{
	unsigned n = 0;
	int i;

	for (i = 0; i < 64; i++)
		if (mask & (1ULL << i))
			reg_dwarf[n++] = (uint8_t)ustack_perf_to_dwarf(i);
	return n;
}

static void ustack_choose(struct ustack_rec *u, int dwarf, int callsite, uint32_t stack_size)
{
	u->dwarf = dwarf;
	u->callsite = !dwarf && callsite;
	if (u->callsite)
		return;
	if (dwarf) {
		u->regs_mask = dwarf_regs_mask();
		u->stack_size = stack_size ? stack_size : RECORD_DEFAULT_STACK_SIZE;
	} else {
		u->regs_mask =
		    1ULL << PERF_REG_X86_IP | 1ULL << PERF_REG_X86_SP | 1ULL << PERF_REG_X86_BP;
		u->stack_size = RECORD_LEAF_STACK_SIZE;
	}
}

/* Makes the unwinder (and the call-site table) and turns the queue on. */
static int ustack_start(struct recorder *rec)
{
	struct ustack_rec *u = &rec->ustack;
	struct unwind_opts uo = {
	    .find_map = ustack_find_map, .ctx = rec, .map_generation = &rec->spaces.generation,
	};

	u->nregs = reg_order(u->regs_mask, u->reg_dwarf);
	u->jvm = jvm_frames__new();
	/* Interpreted frames are stored as their Method*, which only this
	 * recorder can name: not for a recording symbolized later. */
	if (!rec->opts->no_symbolize)
		uo.frame_hook = jvm_frames__frame;
	uo.frame_step = jvm_frames__step;
	uo.frame_ctx = u->jvm;
	u->unwinder = u->jvm ? unwinder__new(&uo) : NULL;
	if (!u->unwinder || (u->callsite && keymap__init(&u->callsites, 1024))) {
		snprintf(rec->err->msg, sizeof(rec->err->msg), "out of memory");
		return -ENOMEM;
	}
	u->on = 1;
	if (!u->callsite)
		rec->sum->stack_size = u->stack_size;
	return 0;
}

int ustack_setup(struct recorder *rec)
{
	struct ustack_rec *u = &rec->ustack;
	int dwarf = rec->opts->call_graph == RECORD_CALL_GRAPH_DWARF, err;

	if (!dwarf && rec->opts->no_leaf_fix)
		return 0;
	ustack_choose(u, dwarf, rec->opts->leaf_fix == RECORD_LEAF_CALLSITE, rec->opts->stack_size);
	if (!dwarf && rec->opts->sched && rec->opts->sched_dwarf) {
		u->sw.on = 1;
		u->sw.regs_mask = dwarf_regs_mask();
		u->sw.nregs = reg_order(u->sw.regs_mask, u->sw.reg_dwarf);
		u->sw.stack_size =
		    rec->opts->stack_size ? rec->opts->stack_size : RECORD_DEFAULT_STACK_SIZE;
	}
	if (u->callsite) /* samples as the kernel gives them (caller_from_callsite()) */
		return ustack_start(rec);
	err = event_choice__user_stack(&rec->ev, u->regs_mask, u->stack_size, u->dwarf);
	if (err) {
		if (!u->dwarf) {
			memset(u, 0, sizeof(*u));
			return 0; /* no leaf fix on this kernel: plain frame pointers */
		}
		snprintf(rec->err->msg, sizeof(rec->err->msg),
			 "--call-graph dwarf: the kernel refuses user stack copies: %s",
			 strerror(-err));
		snprintf(rec->err->hint, sizeof(rec->err->hint),
			 "try a smaller size (--call-graph dwarf,8192), or frame pointers "
			 "(--call-graph fp)");
		return err;
	}
	return ustack_start(rec);
}

int ustack_setup_replay(struct recorder *rec, int dwarf, int callsite, uint32_t stack_size)
{
	ustack_choose(&rec->ustack, dwarf, callsite, stack_size);
	return ustack_start(rec);
}

void ustack_add(struct recorder *rec, uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu,
		uint64_t ip, uint16_t misc, const uint64_t *chain, uint64_t nr,
		const unsigned char *p, const unsigned char *end)
{
	ustack_add_event(rec, pid, tid, time, cpu, ip, misc, chain, nr, p, end, 0);
}

void ustack_add_event(struct recorder *rec, uint32_t pid, uint32_t tid, uint64_t time,
		      uint32_t cpu, uint64_t ip, uint16_t misc, const uint64_t *chain, uint64_t nr,
		      const unsigned char *p, const unsigned char *end, uint8_t event)
{
	struct ustack_rec *u = &rec->ustack;
	struct ustack_entry e = {
	    .time = time,
	    .ip = ip,
	    .pid = pid,
	    .tid = tid,
	    .cpu = cpu,
	    .misc = misc,
	    .event = event,
	};
	const unsigned char *stack = NULL;
	/* A switch-out's stack in fp mode with sched_dwarf: its own layout. */
	int sw = !u->dwarf && u->sw.on && event == u->sw.event;
	unsigned nregs = sw ? u->sw.nregs : u->nregs;
	const uint8_t *reg_dwarf = sw ? u->sw.reg_dwarf : u->reg_dwarf;
	uint64_t abi, size = 0, dyn = 0, need;
	unsigned i;

	e.dwarf = (uint8_t)(u->dwarf || sw);
	/* PERF_SAMPLE_REGS_USER: u64 abi, then the registers unless abi is
	 * NONE (a kernel thread). */
	if ((size_t)(end - p) < 8)
		goto plain;
	memcpy(&abi, p, 8);
	p += 8;
	if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
		if ((size_t)(end - p) < (size_t)nregs * 8)
			goto plain;
		for (i = 0; i < nregs; i++) {
			uint64_t v;

			memcpy(&v, p + (size_t)i * 8, 8);
			e.regs.r[reg_dwarf[i]] = v;
			e.regs.valid |= 1u << reg_dwarf[i];
		}
		p += (size_t)nregs * 8;
		e.has_regs = abi == PERF_SAMPLE_REGS_ABI_64;
	}
	/* PERF_SAMPLE_STACK_USER: u64 size, size bytes, u64 dyn_size (the
	 * bytes actually copied) unless size is 0. */
	if ((size_t)(end - p) >= 8) {
		memcpy(&size, p, 8);
		p += 8;
		if (size && size <= (uint64_t)(end - p) && (size_t)(end - p) - size >= 8) {
			memcpy(&dyn, p + size, 8);
			if (dyn > size)
				dyn = 0;
			stack = p;
		}
	}
	e.stack_len = (uint32_t)dyn;
	e.cut = dyn && dyn == size; /* the kernel may have given less than asked */
	if (e.cut && sw)
		u->sw.cut++;
	else if (e.cut)
		u->cut++;
plain:
	if (nr > MAX_FRAMES)
		nr = MAX_FRAMES;
	e.nchain = (uint32_t)nr;
	need = sizeof(e) + nr * 8 + ((e.stack_len + 7u) & ~7u);
	if (GROW(u->queue, u->cap, u->len + need)) {
		/* No memory for the queue: keep the sample as the kernel gave it. */
		recorder_add_stack_sample(rec, pid, tid, time, cpu, ip, misc, chain, nr, event);
		return;
	}
	memcpy(u->queue + u->len, &e, sizeof(e));
	memcpy(u->queue + u->len + sizeof(e), chain, nr * 8);
	if (e.stack_len)
		memcpy(u->queue + u->len + sizeof(e) + nr * 8, stack, e.stack_len);
	u->len += need;
}

/* Index of the PERF_CONTEXT_USER marker in chain, or n. */
static size_t user_marker(const uint64_t *chain, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (chain[i] == PERF_CONTEXT_USER)
			return i;
	return n;
}

static void process_dwarf(struct recorder *rec, const struct ustack_entry *e, const uint64_t *chain,
			  const struct unwind_stack *st, uint8_t event)
{
	struct ustack_rec *u = &rec->ustack;
	size_t k = user_marker(chain, e->nchain), n = 0, real = 0, i;
	enum unwind_status s;
	int trunc;

	/* The kernel part, as the kernel gave it (no user part: we asked for
	 * none, but an older kernel might give it anyway). */
	memcpy(u->ips, chain, k * 8);
	for (i = 0; i < k; i++)
		real += chain[i] < PERF_CONTEXT_MAX;
	trunc = real >= rec->max_stack;
	if (e->has_regs) {
		u->ips[k] = PERF_CONTEXT_USER;
		s = unwinder__unwind(u->unwinder, e->pid, &e->regs, st, u->ips + k + 1,
				     MAX_FRAMES - k, &n);
		if (u->dwarf) {
			u->stacks++;
			u->fail[s]++;
		} else { /* a switch-out's, fp mode: counted apart */
			u->sw.stacks++;
			u->sw.root += s == UNWIND_OK_ROOT;
		}
		if (s == UNWIND_STACK_CUT || s == UNWIND_MAX_FRAMES)
			trunc = 1;
		n = n ? n + 1 : 0;
	}
	recorder_add_chain(rec, e->pid, e->tid, e->time, e->cpu, e->ip, e->misc, u->ips, k + n, event,
			   trunc);
}

struct target_read {
	struct recorder *rec;
	uint32_t pid;
};

/* Reads the target's memory; when it cannot (the process has exited, as
 * short ones have by the time their samples are processed), the bytes of
 * the mapped file, which are the code's (a GOT slot read from the file
 * holds no address: a call through one is then not followed). The file is
 * opened by the path the mmap record gave, as seen from prof: for a
 * process of another mount namespace that has exited, possibly another
 * file; a callee read from it must still fall in a code mapping of the
 * target (callee_of()). */
static int read_target(void *ctx, uint64_t addr, void *buf, size_t n)
{
	const struct target_read *t = ctx;
	struct iovec local = {.iov_base = buf, .iov_len = n};
	struct iovec remote = {.iov_base = (void *)(uintptr_t)addr, .iov_len = n};
	const struct rec_mapping *mp;
	const char *path;
	uint32_t id;
	ssize_t got;
	int fd;

	if (process_vm_readv((pid_t)t->pid, &local, 1, &remote, 1, 0) == (ssize_t)n)
		return 0;
	id = addr_spaces__find(&t->rec->spaces, t->pid, addr);
	if (id == REC_NO_MAPPING || id >= rec_writer__nmappings(t->rec->w))
		return -1;
	mp = &rec_writer__mappings(t->rec->w)[id];
	path = rec_writer__str(t->rec->w, mp->path);
	if (!path || path[0] != '/' || addr + n > mp->end)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	got = pread(fd, buf, n, (off_t)(addr - mp->start + mp->pgoff));
	close(fd);
	return got == (ssize_t)n ? 0 : -1;
}

/* The function called by the call before return address ra in pid
 * (callsite.h), when it is in a mapping of pid's code; 0 otherwise.
 * Remembered per (pid, ra) until pid's mappings change. */
static uint64_t callee_of(struct recorder *rec, uint32_t pid, uint64_t ra)
{
	struct ustack_rec *u = &rec->ustack;
	uint64_t to;
	uint32_t i;

	if (u->callsites_generation != rec->spaces.generation) {
		keymap__clear(&u->callsites);
		u->ncallees = 0;
		u->callsites_generation = rec->spaces.generation;
	}
	if (keymap__get(&u->callsites, pid, ra, &i))
		return u->callees[i];
	to = callsite_target(ra, read_target, &(struct target_read){.rec = rec, .pid = pid});
	if (to && addr_spaces__find(&rec->spaces, pid, to) == REC_NO_MAPPING)
		to = 0;
	if (!GROW(u->callees, u->callees_cap, u->ncallees + 1) &&
	    keymap__set(&u->callsites, pid, ra, (uint32_t)u->ncallees) == 0)
		u->callees[u->ncallees++] = to;
	return to;
}

/* The stack leaf fix (--leaf-fix stack, the default): the leaf's return
 * address, from its CFI row and the stack slice, when the kernel's walk
 * missed it; else 0. chain[k + 1] is the leaf (the user rip), chain[k + 2]
 * what the kernel found as its caller through rbp. */
static uint64_t caller_from_stack(struct ustack_rec *u, const struct ustack_entry *e,
				  const uint64_t *chain, size_t k, const struct unwind_stack *st)
{
	uint64_t ra;

	if (!e->has_regs)
		return 0;
	u->leaf_checked++;
	if (unwinder__leaf_return(u->unwinder, e->pid, &e->regs, st, &ra) &&
	    (k + 2 >= e->nchain || chain[k + 2] != ra))
		return ra;
	return 0;
}

/* The call-site leaf fix (--leaf-fix callsite): when the leaf's pc is where
 * its frame is not set up, rbp is still the frame of the function X that
 * called it, and the kernel's walk went on from X's return address R: X is
 * what the call before R entered. Returned as X's entry + 1, a return
 * address like the others (frames after the leaf are stepped back by
 * one), so that the frame names X; else 0. */
static uint64_t caller_from_callsite(struct recorder *rec, const struct ustack_entry *e,
				     const uint64_t *chain, size_t k)
{
	uint64_t to;

	if (k + 2 >= e->nchain || chain[k + 2] >= PERF_CONTEXT_MAX)
		return 0;
	rec->ustack.leaf_checked++;
	if (!unwinder__frameless(rec->ustack.unwinder, e->pid, chain[k + 1]))
		return 0;
	to = callee_of(rec, e->pid, chain[k + 2]);
	return to ? to + 1 : 0;
}

/* Does a frame-pointer walk whose outermost frame is `pc` end at its
 * thread's root? The C library calls a program's code from its start
 * routines (__libc_start_call_main, start_thread), which follow _start
 * and clone3 where the frame pointer is zeroed: a walk that got through
 * the program's frames ends there, in libc. A walk lost in code without
 * frame pointers ends anywhere else, or at garbage (cut above). Callbacks
 * from libc (qsort) end there too: this is a measure, not a proof. */
static int fp_root(struct recorder *rec, uint32_t pid, uint64_t pc)
{
	uint32_t id = addr_spaces__find(&rec->spaces, pid, pc);
	const char *path, *base;

	if (id == REC_NO_MAPPING || id >= rec_writer__nmappings(rec->w))
		return 0;
	path = rec_writer__str(rec->w, rec_writer__mappings(rec->w)[id].path);
	if (!path)
		return 0;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return !strncmp(base, "libc.so", 7) || !strncmp(base, "libc-", 5);
}

/* Frame-pointer stacks: the kernel's chain, cut before its first garbage
 * frame, with the caller of a frameless leaf put back after the leaf when
 * a leaf fix finds it. */
static void process_fp(struct recorder *rec, const struct ustack_entry *e, const uint64_t *chain,
		       const struct unwind_stack *st, uint8_t event)
{
	struct ustack_rec *u = &rec->ustack;
	size_t k = user_marker(chain, e->nchain), n = e->nchain;
	uint64_t ra = 0;

	if (k + 1 < n) {
		n = recorder_user_frames(chain, k, n);
		u->stacks++;
		if (n < e->nchain)
			u->fp_cut++;
		else if (fp_root(rec, e->pid, chain[n - 1]))
			u->fp_root++;
	}
	if (k + 1 < n && n < MAX_FRAMES) {
		struct ustack_entry kept = *e; /* the leaf fixes see the cut chain */

		kept.nchain = (uint32_t)n;
		ra = u->callsite ? caller_from_callsite(rec, &kept, chain, k)
				 : caller_from_stack(u, &kept, chain, k, st);
	}
	if (ra) {
		memcpy(u->ips, chain, (k + 2) * 8);
		u->ips[k + 2] = ra;
		memcpy(u->ips + k + 3, chain + k + 2, (n - k - 2) * 8);
		u->leaf_fixed++;
		recorder_add_chain(rec, e->pid, e->tid, e->time, e->cpu, e->ip, e->misc, u->ips,
				   n + 1, event, -1);
		return;
	}
	recorder_add_chain(rec, e->pid, e->tid, e->time, e->cpu, e->ip, e->misc, chain, n, event,
			   -1);
}

void ustack_process(struct recorder *rec)
{
	ustack_process_pid(rec, 0, 0);
}

void ustack_process_pid(struct recorder *rec, uint32_t pid, uint64_t before)
{
	struct ustack_rec *u = &rec->ustack;
	size_t off = 0, kept = 0;
	uint64_t t0;

	if (!u->on || !u->len)
		return;
	t0 = monotonic_ns();
	while (off + sizeof(struct ustack_entry) <= u->len) {
		struct ustack_entry e;
		const uint64_t *chain;
		struct unwind_stack st;
		size_t len;

		memcpy(&e, u->queue + off, sizeof(e));
		len = sizeof(e) + (size_t)e.nchain * 8 + ((e.stack_len + 7u) & ~7u);
		if (pid && (e.pid != pid || e.time >= before)) {
			if (kept != off)
				memmove(u->queue + kept, u->queue + off, len);
			kept += len;
			off += len;
			continue;
		}
		chain = (const uint64_t *)(u->queue + off + sizeof(e));
		st = (struct unwind_stack){
		    .start = e.regs.r[UNWIND_RSP],
		    .data = u->queue + off + sizeof(e) + (size_t)e.nchain * 8,
		    .size = e.stack_len,
		    .cut = e.cut,
		};
		if (e.dwarf)
			process_dwarf(rec, &e, chain, &st, e.event);
		else
			process_fp(rec, &e, chain, &st, e.event);
		off += len;
	}
	u->len = kept;
	u->ns += monotonic_ns() - t0;
}

void ustack_sample_now(struct recorder *rec, uint32_t pid, uint32_t tid, uint64_t time,
		       uint32_t cpu, uint64_t ip, uint16_t misc, const uint64_t *chain,
		       uint64_t nr, const struct unwind_regs *regs, const struct unwind_stack *st,
		       uint8_t event)
{
	struct ustack_entry e = {
	    .time = time, .ip = ip, .pid = pid, .tid = tid, .cpu = cpu, .misc = misc,
	    .nchain = (uint32_t)(nr > MAX_FRAMES ? MAX_FRAMES : nr),
	};
	struct unwind_stack none = {0};

	if (!rec->ustack.on || !regs) {
		recorder_add_chain(rec, pid, tid, time, cpu, ip, misc, chain, nr, event, -1);
		return;
	}
	e.regs = *regs;
	e.has_regs = 1;
	if (rec->ustack.dwarf || (rec->ustack.sw.on && event == rec->ustack.sw.event))
		process_dwarf(rec, &e, chain, st ? st : &none, event);
	else
		process_fp(rec, &e, chain, st ? st : &none, event);
}

/* What the Java frame walker did, when it met a JVM. */
static void jvm_stats(struct recorder *rec)
{
	struct jvm_frames_stats st;

	if (!rec->ustack.jvm)
		return;
	jvm_frames__stats(rec->ustack.jvm, &st);
	if (!st.jvms)
		return;
	rec_writer__stat(rec->w, "jvm-compiled-frames", st.compiled);
	rec_writer__stat(rec->w, "jvm-interpreted-named", st.named);
	rec_writer__stat(rec->w, "jvm-inline-pcs", st.inline_pcs);
	rec_writer__stat(rec->w, "jvm-inline-deep", st.inline_deep);
	rec_writer__stat(rec->w, "jvm-inline-failed", st.inline_failed);
	rec_writer__stat(rec->w, "jvm-inline-moved", st.inline_moved);
	rec_writer__stat(rec->w, "jvm-nmethod-reads", st.nm_reads);
}

void ustack_write_stats(struct recorder *rec)
{
	struct ustack_rec *u = &rec->ustack;
	char key[64];
	int s;

	if (!u->on)
		return;
	if (!u->dwarf) {
		if (u->sw.on) {
			rec_writer__stat(rec->w, "switch-unwind-stacks", u->sw.stacks);
			rec_writer__stat(rec->w, "switch-unwind-root", u->sw.root);
			rec_writer__stat(rec->w, "switch-unwind-stack-cut", u->sw.cut);
			rec->sum->switch_unwind_stacks = u->sw.stacks;
			rec->sum->switch_unwind_root = u->sw.root;
		}
		rec_writer__stat(rec->w, "leaf-checked", u->leaf_checked);
		rec_writer__stat(rec->w, "leaf-fixed", u->leaf_fixed);
		rec_writer__stat(rec->w, "leaf-fix-ns", u->ns);
		/* which fix: 1 the call-site one, 0 registers and stack */
		rec_writer__stat(rec->w, "leaf-fix-callsite", (uint64_t)u->callsite);
		rec_writer__stat(rec->w, "fp-stacks", u->stacks);
		rec_writer__stat(rec->w, "fp-root", u->fp_root);
		rec_writer__stat(rec->w, "fp-cut", u->fp_cut);
		rec->sum->fp_stacks = u->stacks;
		rec->sum->fp_root = u->fp_root;
		rec->sum->fp_cut = u->fp_cut;
		rec->sum->leaf_checked = u->leaf_checked;
		rec->sum->leaf_fixed = u->leaf_fixed;
		rec->sum->leaf_ns = u->ns;
		return;
	}
	rec_writer__stat(rec->w, "unwind-stacks", u->stacks);
	rec_writer__stat(rec->w, "unwind-root", u->fail[UNWIND_OK_ROOT]);
	rec_writer__stat(rec->w, "unwind-stack-cut", u->cut);
	rec_writer__stat(rec->w, "unwind-ns", u->ns);
	for (s = 1; s < UNWIND_NSTATUS; s++) {
		if (!u->fail[s])
			continue;
		snprintf(key, sizeof(key), "unwind-failed-%s", unwind_status_name(s));
		rec_writer__stat(rec->w, key, u->fail[s]);
	}
	jvm_stats(rec);
	rec->sum->unwind_stacks = u->stacks;
	rec->sum->unwind_root = u->fail[UNWIND_OK_ROOT];
	rec->sum->unwind_cut = u->cut;
	rec->sum->unwind_ns = u->ns;
}

const struct symbolize_opts *ustack_symbolize_opts(struct recorder *rec,
						   struct symbolize_opts *so)
{
	if (!rec->ustack.jvm)
		return NULL;
	*so = (struct symbolize_opts){.frame_name = jvm_frames__name,
				      .frame_inlines = jvm_frames__inlines,
				      .frame_name_arg = rec->ustack.jvm};
	return so;
}

void ustack_release(struct recorder *rec)
{
	unwinder__free(rec->ustack.unwinder);
	rec->ustack.unwinder = NULL;
	jvm_frames__free(rec->ustack.jvm);
	rec->ustack.jvm = NULL;
	free(rec->ustack.queue);
	rec->ustack.queue = NULL;
	keymap__release(&rec->ustack.callsites);
	free(rec->ustack.callees);
	rec->ustack.callees = NULL;
}
