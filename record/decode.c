/* decode.c: turns the kernel's perf records into recording entries. This is
 * the hot path: per sample it does two hash lookups per frame and appends a
 * 16-byte record; no allocation once the tables are warm, no syscalls, no
 * stdio. Mapping lookups happen once per new frame only. */
#include "recorder.h"

#include <string.h>

#include "lib/grow.h"

/* The trailer that sample_id_all appends to non-sample records, for our
 * sample_type (TID | TIME | CPU). */
struct sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
};

static uint64_t record_time(const struct perf_event_header *h)
{
	struct sample_id id;

	if (h->size < sizeof(*h) + sizeof(id))
		return 0;
	memcpy(&id, (const char *)h + h->size - sizeof(id), sizeof(id));
	return id.time;
}

static void note_err(struct recorder *rec, int err)
{
	if (err && !rec->write_err)
		rec->write_err = err;
}

static uint32_t intern(struct recorder *rec, const char *s, size_t len)
{
	uint32_t id = 0;

	note_err(rec, rec_writer__string(rec->w, s, len, &id));
	return id;
}

static void seen_thread(struct recorder *rec, uint32_t pid, uint32_t tid)
{
	if (keymap__put(&rec->seen_tids, tid, 0, 1, NULL) == 1)
		rec->sum->threads++;
	if (keymap__put(&rec->seen_pids, pid, 0, 1, NULL) == 1)
		rec->sum->processes++;
}

int recorder_thread_start(struct recorder *rec, uint64_t time, uint32_t pid, uint32_t tid,
			  const char *name)
{
	uint32_t id = intern(rec, name, strlen(name));

	note_err(rec, keymap__set(&rec->names, tid, 0, id));
	note_err(rec, rec_writer__thread(rec->w, REC_THREAD_START, time, pid, tid, id));
	seen_thread(rec, pid, tid);
	return rec->write_err;
}

int recorder_add_mapping(struct recorder *rec, uint64_t time, uint32_t pid, uint64_t start,
			 uint64_t end, uint64_t pgoff, const char *path)
{
	struct rec_mapping m = {
		.start = start, .end = end, .pgoff = pgoff, .time = time, .pid = pid,
	};
	uint32_t id;
	int err;

	m.path = intern(rec, path, strlen(path));
	err = rec_writer__mapping(rec->w, &m, &id);
	if (!err)
		err = addr_spaces__add(&rec->spaces, pid, start, end, id);
	note_err(rec, err);
	return err;
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
			rec_writer__frame_set_mapping(rec->w, pf.frame, m);
			continue;
		}
		pf.flushes += flushed ? 1 : 0;
		if (pf.flushes < 2)
			rec->pending[kept++] = pf;
	}
	rec->npending = kept;
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

void recorder_add_stack_sample(struct recorder *rec, uint32_t pid, uint32_t tid, uint64_t time,
			       uint32_t cpu, uint64_t ip, uint16_t misc, const uint64_t *ips,
			       uint64_t nr, uint8_t event)
{
	recorder_add_chain(rec, pid, tid, time, cpu, ip, misc, ips, nr, event, -1);
}

void recorder_add_chain(struct recorder *rec, uint32_t pid, uint32_t tid, uint64_t time,
			uint32_t cpu, uint64_t ip, uint16_t misc, const uint64_t *ips, uint64_t nr,
			uint8_t event, int trunc)
{
	uint64_t i, nframes = 0, context = PERF_CONTEXT_USER, real = 0, ka = 0, kb = 0;
	int first_in_context = 1;
	uint32_t parent = 0, frame, node;
	uint8_t flags = 0;

	/* Most samples repeat a call chain seen before (off-CPU stacks nearly
	 * always do): one lookup instead of one per frame. */
	if (nr) {
		chain_hash(pid, ips, nr, &ka, &kb);
		ka ^= (uint64_t)(trunc + 1) << 62; /* the same chain, cut or not */
		if (keymap__get(&rec->chains, ka, kb, &node)) {
			if (!keymap__get(&rec->seen_tids, tid, 0, &frame))
				seen_thread(rec, pid, tid);
			note_err(rec, rec_writer__sample(rec->w, time, tid, node & ~CACHED_TRUNCATED,
							(uint16_t)cpu, event,
							(node & CACHED_TRUNCATED) ?
							REC_SAMPLE_TRUNCATED : 0));
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

		while (j < rec->last.n && j < nframes && rec->last.addr[j] == rec->frame_addr[i - 1] &&
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

		if (!rec_writer__frame_lookup(rec->w, space, addr, fl, &frame)) {
			uint32_t mapping = space ? addr_spaces__find(&rec->spaces, space, addr)
						 : REC_NO_MAPPING;

			note_err(rec, rec_writer__frame(rec->w, space, addr, fl, mapping, &frame));
			if (space && mapping == REC_NO_MAPPING && !rec->write_err)
				add_pending(rec, frame);
		}
		note_err(rec, rec_writer__stack(rec->w, parent, frame, &node));
		parent = node;
		rec->last.addr[rec->last.n] = addr;
		rec->last.flags[rec->last.n] = fl;
		rec->last.node[rec->last.n++] = node;
	}
	if (rec->write_err)
		rec->last.n = 0; /* nodes not made: nothing to reuse */
	if (nr && !rec->write_err && parent < CACHED_TRUNCATED)
		note_err(rec, keymap__set(&rec->chains, ka, kb,
					 parent | ((flags & REC_SAMPLE_TRUNCATED) ? CACHED_TRUNCATED : 0)));
	if (!keymap__get(&rec->seen_tids, tid, 0, &node))
		seen_thread(rec, pid, tid);
	note_err(rec, rec_writer__sample(rec->w, time, tid, parent, (uint16_t)cpu, event, flags));
}

static void handle_sample(struct recorder *rec, const struct perf_event_header *h)
{
	const unsigned char *p = (const unsigned char *)(h + 1);
	const unsigned char *end = (const unsigned char *)h + h->size;
	struct {
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time;
		uint32_t cpu, res;
		uint64_t nr;
	} s;

	if ((size_t)(end - p) < sizeof(s))
		return;
	memcpy(&s, p, sizeof(s));
	p += sizeof(s);
	if (s.nr > (uint64_t)(end - p) / 8)
		return;
	if (rec->cpu_wide && !recorder_is_target_task(rec, s.pid, s.tid))
		return;
	rec->sum->samples++;
	if (rec->ustack.on) {
		ustack_add(rec, s.pid, s.tid, s.time, s.cpu, s.ip, h->misc, (const uint64_t *)p,
			   s.nr, p + s.nr * 8, end);
		return;
	}
	recorder_add_stack_sample(rec, s.pid, s.tid, s.time, s.cpu, s.ip, h->misc,
				  (const uint64_t *)p, s.nr, 0);
}

static void handle_comm(struct recorder *rec, const struct perf_event_header *h)
{
	const char *p = (const char *)(h + 1);
	size_t avail = h->size - sizeof(*h);
	uint32_t pid, tid, id;

	if (avail < 8 + sizeof(struct sample_id))
		return;
	memcpy(&pid, p, 4);
	memcpy(&tid, p + 4, 4);
	if (rec->cpu_wide && !recorder_is_target_task(rec, pid, tid))
		return;
	p += 8;
	avail -= 8 + sizeof(struct sample_id);
	id = intern(rec, p, strnlen(p, avail));
	if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
		/* Queued user stacks of the old program need its mappings. */
		ustack_process_pid(rec, pid, record_time(h));
		addr_spaces__clear_before(&rec->spaces, pid, record_time(h),
					  rec_writer__mappings(rec->w), rec_writer__nmappings(rec->w));
	}
	note_err(rec, keymap__set(&rec->names, tid, 0, id));
	note_err(rec, rec_writer__thread(rec->w, REC_THREAD_NAME, record_time(h), pid, tid, id));
	seen_thread(rec, pid, tid);
}

static void handle_task(struct recorder *rec, const struct perf_event_header *h)
{
	struct {
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
	} t;
	uint32_t name = 0;

	if (h->size < sizeof(*h) + sizeof(t))
		return;
	memcpy(&t, h + 1, sizeof(t));
	/* CPU-wide: the targets' threads, and the processes they fork. */
	if (rec->cpu_wide && !recorder_is_target_task(rec, t.pid, t.tid) &&
	    (h->type == PERF_RECORD_EXIT || !recorder_is_target_task(rec, t.ppid, t.ptid)))
		return;
	if (h->type == PERF_RECORD_EXIT) {
		note_err(rec, rec_writer__thread(rec->w, REC_THREAD_EXIT, t.time, t.pid, t.tid, 0));
		return;
	}
	if (t.pid != t.ppid) {
		note_err(rec, addr_spaces__fork(&rec->spaces, t.ppid, t.pid));
		note_err(rec, keymap__set(&rec->target_pids, t.pid, 0, 1));
	}
	keymap__get(&rec->names, t.ptid, 0, &name); /* a new thread has its creator's name */
	note_err(rec, keymap__set(&rec->names, t.tid, 0, name));
	note_err(rec, keymap__set(&rec->forked_tids, t.tid, 0, 1));
	note_err(rec, rec_writer__thread(rec->w, REC_THREAD_START, t.time, t.pid, t.tid, name));
	seen_thread(rec, t.pid, t.tid);
}

void recorder_learn_fork(void *ctx, const struct perf_event_header *h)
{
	struct recorder *rec = ctx;
	struct {
		uint32_t pid, ppid, tid, ptid;
	} t;

	if (h->type != PERF_RECORD_FORK || h->size < sizeof(*h) + sizeof(t))
		return;
	memcpy(&t, h + 1, sizeof(t));
	if (!recorder_is_target_task(rec, t.ppid, t.ptid) && !recorder_is_target_task(rec, t.pid, t.tid))
		return;
	note_err(rec, keymap__set(&rec->target_pids, t.pid, 0, 1));
	note_err(rec, keymap__set(&rec->forked_tids, t.tid, 0, 1));
}

static void handle_mmap2(struct recorder *rec, const struct perf_event_header *h)
{
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint32_t maj, min;
		uint64_t ino, ino_generation;
		uint32_t prot, flags;
	} m;
	const char *name;
	size_t avail;

	if (h->size < sizeof(*h) + sizeof(m) + sizeof(struct sample_id))
		return;
	memcpy(&m, h + 1, sizeof(m));
	if (rec->cpu_wide && !recorder_is_target_task(rec, m.pid, m.tid))
		return;
	name = (const char *)(h + 1) + sizeof(m);
	avail = h->size - sizeof(*h) - sizeof(m) - sizeof(struct sample_id);
	if (strnlen(name, avail) == avail)
		return; /* not terminated: malformed */
	if (m.addr + m.len < m.addr)
		return;
	recorder_add_mapping(rec, record_time(h), m.pid, m.addr, m.addr + m.len, m.pgoff, name);
}

int recorder_is_target_task(const struct recorder *rec, uint32_t pid, uint32_t tid)
{
	uint32_t v;

	/* An exiting thread's last moments come with tid -1 (no pid left). */
	return tid && tid != UINT32_MAX && keymap__get(&rec->target_pids, pid, 0, &v);
}

int recorder_is_target_tid(const struct recorder *rec, uint32_t tid)
{
	uint32_t v;

	return tid && (keymap__get(&rec->opened_tids, tid, 0, &v) ||
		       keymap__get(&rec->forked_tids, tid, 0, &v));
}

void recorder_count_loss(struct recorder *rec, const struct perf_event_header *h, uint64_t *lost)
{
	uint64_t v[2];

	switch (h->type) {
	case PERF_RECORD_LOST: /* id, count */
		if (h->size >= sizeof(*h) + 16) {
			memcpy(v, h + 1, 16);
			*lost += v[1];
		}
		break;
	case PERF_RECORD_LOST_SAMPLES: /* count */
		if (h->size >= sizeof(*h) + 8) {
			memcpy(v, h + 1, 8);
			*lost += v[0];
		}
		break;
	case PERF_RECORD_THROTTLE:
		rec->sum->throttled++;
		break;
	default:
		break;
	}
}

void recorder_handle_record(void *ctx, const struct perf_event_header *h)
{
	struct recorder *rec = ctx;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		handle_sample(rec, h);
		break;
	case PERF_RECORD_COMM:
		handle_comm(rec, h);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		handle_task(rec, h);
		break;
	case PERF_RECORD_MMAP2:
		handle_mmap2(rec, h);
		break;
	default:
		recorder_count_loss(rec, h, &rec->sum->lost);
		break;
	}
}
