/* stack-intern.c: a sample's call chain made into the recording's stack
 * tree (each frame and each root-first prefix stored once, by id), and the
 * sample appended. Three shortcuts keep it cheap, in this order: a chain
 * seen before is one lookup (rec->chains); the root part shared with the
 * last stack interned needs no lookups (rec->last); a frame already in the
 * file is one lookup in the writer. A user frame whose mapping is not known
 * yet (its MMAP2 record is in another CPU's ring) is pending: retried after
 * every drain. Called by decode.c, user-stack.c and sched-decode.c; calls
 * nothing of theirs. */
#include "recorder.h"

#include "lib/grow.h"

void recorder_seen_thread(struct recorder *rec, uint32_t pid, uint32_t tid)
{
	if (keymap__put(&rec->seen_tids, tid, 0, 1, NULL) == 1)
		rec->sum->threads++;
	if (keymap__put(&rec->seen_pids, pid, 0, 1, NULL) == 1)
		rec->sum->processes++;
}

static void add_pending(struct recorder *rec, uint32_t frame)
{
	if (GROW(rec->pending, rec->pending_cap, rec->npending + 1))
		return; /* the frame just stays unmapped */
	rec->pending[rec->npending++] = (struct pending_frame){.frame = frame};
}

void recorder_resolve_pending(struct recorder *rec, int flushed)
{
	const struct rec_frame *frames = rec_writer__frames(rec->w);
	size_t i, kept = 0;

	for (i = 0; i < rec->npending; i++) {
		struct pending_frame pf = rec->pending[i];
		const struct rec_frame *f = &frames[pf.frame];
		uint32_t m = addr_spaces__find(&rec->spaces, f->pid, f->addr);

		if (m != REC_NO_MAPPING) {
			rec_sink__frame_set_mapping(rec->sink, pf.frame, m);
			continue;
		}
		pf.flushes += flushed ? 1 : 0;
		if (pf.flushes < 2)
			rec->pending[kept++] = pf;
	}
	rec->npending = kept;
}

void recorder_forget_stacks(struct recorder *rec)
{
	recorder_resolve_pending(rec, 0); /* the frames still unmapped stay so */
	rec->npending = 0;
	keymap__release(&rec->chains);
	recorder_note_err(rec, keymap__init(&rec->chains, 4096));
	rec->last.pid = 0;
	rec->last.n = 0;
	recorder_note_err(rec, rec_sink__forget_stacks(rec->sink));
}

/* Two independent 64-bit hashes of a raw call chain in an address space:
 * together a 128-bit key whose collisions are not a practical concern. */
static void chain_hash(uint32_t pid, const uint64_t *ips, uint64_t nr, uint64_t *a,
		       uint64_t *b)
{
	uint64_t h1 = 0x9e3779b97f4a7c15ULL ^ pid, h2 = 0xc2b2ae3d27d4eb4fULL ^ nr;

	for (uint64_t i = 0; i < nr; i++) {
		h1 = (h1 ^ ips[i]) * 0xff51afd7ed558ccdULL;
		h1 ^= h1 >> 32;
		h2 = (h2 + ips[i]) * 0x94d049bb133111ebULL;
		h2 ^= h2 >> 29;
	}
	*a = h1;
	*b = h2 ^ ((uint64_t)pid << 32);
}

#define CACHED_TRUNCATED 0x80000000u

/* Highest user address on x86-64 with 4-level page tables (5-level ones
 * go to 0x00ffffffffffffff, and only for programs that ask). */
#define USER_ADDR_MAX 0x00007fffffffffffULL

size_t recorder_user_frames(const uint64_t *chain, size_t k, size_t n)
{
	size_t i;

	for (i = k + 1; i < n; i++)
		if (chain[i] < 4096 || chain[i] > USER_ADDR_MAX)
			break;
	return i < n ? i : n;
}

void recorder_add_stack_sample(struct recorder *rec, uint32_t pid, uint32_t tid, uint64_t time,
			       uint32_t cpu, uint64_t ip, uint16_t misc, const uint64_t *ips,
			       uint64_t nr, uint8_t event)
{
	size_t k = 0;

	while (k < nr && ips[k] != PERF_CONTEXT_USER)
		k++;
	recorder_add_chain(rec, pid, tid, time, cpu, ip, misc, ips,
			   recorder_user_frames(ips, k, (size_t)nr), event, -1);
}

void recorder_add_chain(struct recorder *rec, uint32_t pid, uint32_t tid, uint64_t time,
			uint32_t cpu, uint64_t ip, uint16_t misc, const uint64_t *ips, uint64_t nr,
			uint8_t event, int trunc)
{
	uint64_t i, nframes = 0, context = PERF_CONTEXT_USER, real = 0, ka = 0, kb = 0;
	int first_in_context = 1;
	uint32_t parent = 0, frame, node;
	uint8_t flags = 0;
	const struct jit_proc *jp;
	uint32_t epoch = jit_snapshots__epoch(&rec->jit, pid, time, &jp);

	/* Most samples repeat a call chain seen before (off-CPU stacks nearly
	 * always do): one lookup instead of one per frame. */
	if (nr) {
		chain_hash(pid, ips, nr, &ka, &kb);
		ka ^= (uint64_t)(trunc + 1) << 62; /* the same chain, cut or not */
		kb ^= keymap_mix64(epoch); /* its JIT frames differ per epoch */
		if (keymap__get(&rec->chains, ka, kb, &node)) {
			if (!keymap__get(&rec->seen_tids, tid, 0, &frame))
				recorder_seen_thread(rec, pid, tid);
			flags = (node & CACHED_TRUNCATED) ? REC_SAMPLE_TRUNCATED : 0;
			recorder_note_err(rec, rec_sink__sample(rec->sink, time, tid,
								  node & ~CACHED_TRUNCATED,
								  (uint16_t)cpu, event, flags));
			return;
		}
	}

	for (i = 0; i < nr && nframes < MAX_FRAMES; i++) {
		uint64_t a = ips[i];

		if (a >= PERF_CONTEXT_MAX) {
			context = a;
			first_in_context = 1;
			continue;
		}
		if (context != PERF_CONTEXT_KERNEL && context != PERF_CONTEXT_USER)
			continue; /* guest frames: not ours */
		real++;
		rec->frame_flags[nframes] = context == PERF_CONTEXT_KERNEL ? REC_FRAME_KERNEL : 0;
		/* Past the first frame of a context, addresses are return
		 * addresses: step back into the call instruction. */
		if (!first_in_context && a) {
			a--;
			rec->frame_flags[nframes] |= REC_FRAME_CALLER;
		}
		/* JIT code: a frame per epoch (jit-snapshots.h). */
		if (jp && context == PERF_CONTEXT_USER && a >= jp->lo && a < jp->hi)
			rec->frame_flags[nframes] |= epoch << REC_FRAME_EPOCH_SHIFT;
		rec->frame_addr[nframes++] = a;
		first_in_context = 0;
	}
	if (!nframes) {
		int kernel = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;

		rec->frame_addr[0] = ip;
		rec->frame_flags[0] = kernel ? REC_FRAME_KERNEL : 0;
		nframes = 1;
	}
	if (trunc < 0 ? real >= rec->max_stack || i < nr : trunc || i < nr)
		flags |= REC_SAMPLE_TRUNCATED;

	/* Intern root first: each prefix of the stack is a node of the tree.
	 * The root part shared with the last stack interned is known. */
	i = nframes;
	if (rec->last.pid == pid) {
		uint64_t j = 0;

		while (j < rec->last.n && j < nframes &&
		       rec->last.addr[j] == rec->frame_addr[i - 1] &&
		       rec->last.flags[j] == rec->frame_flags[i - 1]) {
			parent = rec->last.node[j++];
			i--;
		}
	}
	rec->last.pid = pid;
	rec->last.n = (uint32_t)(nframes - i);
	for (; i-- > 0;) {
		uint32_t fl = rec->frame_flags[i];
		uint32_t space = (fl & REC_FRAME_KERNEL) ? 0 : pid;
		uint64_t addr = rec->frame_addr[i];

		if (!rec_sink__frame_lookup(rec->sink, space, addr, fl, &frame)) {
			uint32_t mapping = space ? addr_spaces__find(&rec->spaces, space, addr)
						 : REC_NO_MAPPING;

			recorder_note_err(
			    rec, rec_sink__frame(rec->sink, space, addr, fl, mapping, &frame));
			if (space && mapping == REC_NO_MAPPING && !rec->write_err)
				add_pending(rec, frame);
		}
		recorder_note_err(rec, rec_sink__stack(rec->sink, parent, frame, &node));
		parent = node;
		rec->last.addr[rec->last.n] = addr;
		rec->last.flags[rec->last.n] = fl;
		rec->last.node[rec->last.n++] = node;
	}
	if (rec->write_err)
		rec->last.n = 0; /* nodes not made: nothing to reuse */
	if (nr && !rec->write_err && parent < CACHED_TRUNCATED)
		recorder_note_err(rec, keymap__set(&rec->chains, ka, kb,
					 parent | ((flags & REC_SAMPLE_TRUNCATED) ? CACHED_TRUNCATED : 0)));
	if (!keymap__get(&rec->seen_tids, tid, 0, &node))
		recorder_seen_thread(rec, pid, tid);
	recorder_note_err(
	    rec, rec_sink__sample(rec->sink, time, tid, parent, (uint16_t)cpu, event, flags));
}
