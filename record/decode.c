/* decode.c: turns the kernel's perf records into recording entries: names,
 * threads and mappings here, a sample's call chain through stack-intern.c
 * (or first through user-stack.c's queue). This is the hot path: no
 * allocation once the tables are warm, no syscalls, no stdio. */
#include "recorder.h"

#include <string.h>

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

static uint32_t intern(struct recorder *rec, const char *s, size_t len)
{
	uint32_t id = 0;

	recorder_note_err(rec, rec_sink__string(rec->sink, s, len, &id));
	return id;
}

int recorder_thread_start(struct recorder *rec, uint64_t time, uint32_t pid, uint32_t tid,
			  const char *name)
{
	uint32_t id = intern(rec, name, strlen(name));

	recorder_note_err(rec, keymap__set(&rec->names, tid, 0, id));
	recorder_note_err(rec, rec_sink__thread(rec->sink, REC_THREAD_START, time, pid, tid, id));
	recorder_seen_thread(rec, pid, tid);
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
	err = rec_sink__mapping(rec->sink, &m, &id);
	if (!err)
		err = addr_spaces__add(&rec->spaces, pid, start, end, id);
	recorder_note_err(rec, err);
	return err;
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
	/* --rotate: another file has the samples outside this one's period. */
	if (rec->opts->window_until_ns &&
	    (s.time < rec->opts->window_since_ns || s.time >= rec->opts->window_until_ns))
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
	recorder_note_err(rec, keymap__set(&rec->names, tid, 0, id));
	recorder_note_err(
	    rec, rec_sink__thread(rec->sink, REC_THREAD_NAME, record_time(h), pid, tid, id));
	recorder_seen_thread(rec, pid, tid);
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
		recorder_note_err(
		    rec, rec_sink__thread(rec->sink, REC_THREAD_EXIT, t.time, t.pid, t.tid, 0));
		return;
	}
	if (t.pid != t.ppid) {
		recorder_note_err(rec, addr_spaces__fork(&rec->spaces, t.ppid, t.pid, t.time,
							 rec_writer__mappings(rec->w),
							 rec_writer__nmappings(rec->w)));
		recorder_note_err(rec, keymap__set(&rec->target_pids, t.pid, 0, 1));
	}
	keymap__get(&rec->names, t.ptid, 0, &name); /* a new thread has its creator's name */
	recorder_note_err(rec, keymap__set(&rec->names, t.tid, 0, name));
	recorder_note_err(rec, keymap__set(&rec->forked_tids, t.tid, 0, 1));
	recorder_note_err(rec,
			  rec_sink__thread(rec->sink, REC_THREAD_START, t.time, t.pid, t.tid, name));
	recorder_seen_thread(rec, t.pid, t.tid);
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
	recorder_note_err(rec, keymap__set(&rec->target_pids, t.pid, 0, 1));
	recorder_note_err(rec, keymap__set(&rec->forked_tids, t.tid, 0, 1));
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
