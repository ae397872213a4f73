/* sched-decode.c: the records of the --sched rings (see sched-events.c)
 * into the recording's SCHED chunk and off-CPU stack samples. Hot path: a
 * ping-pong workload switches hundreds of thousands of times a second, so
 * this does fixed-offset reads, one or two hash lookups, one 16-byte
 * append per record; no allocation once the tables are warm. */
#include "recorder.h"

#include <string.h>

/* prev_state's preemption flag (TASK_REPORT_MAX, Linux 4.14 and later) and
 * the state bits below it, as the tracepoint's print format names them. */
#define TP_STATE_PREEMPT 0x100u
#define TP_FLAG_HARDIRQ 0x08u /* common_flags: woken from an interrupt */
#define TP_FLAG_SOFTIRQ 0x10u
#define TP_FLAG_NMI 0x40u

/* The head of every sched sample (IDENTIFIER | TID | TIME | CPU). */
struct sched_head {
	uint64_t id;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
};

/* The sample_id trailer of non-sample records for that sample_type. */
struct sched_trailer {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t id;
};

static uint64_t read_field(const unsigned char *raw, uint32_t raw_len, struct tp_field f)
{
	uint64_t v = 0;

	if (!f.size || f.offset + f.size > raw_len)
		return 0;
	switch (f.size) {
	case 1:
		return raw[f.offset];
	case 2: {
		uint16_t x;

		memcpy(&x, raw + f.offset, 2);
		return x;
	}
	case 4: {
		uint32_t x;

		memcpy(&x, raw + f.offset, 4);
		return x;
	}
	default:
		memcpy(&v, raw + f.offset, f.size < 8 ? f.size : 8);
		return v;
	}
}

static uint8_t state_of(uint64_t prev_state)
{
	uint64_t bits = prev_state & (TP_STATE_PREEMPT - 1);

	if (prev_state & TP_STATE_PREEMPT)
		return REC_STATE_PREEMPTED;
	if (!bits)
		return REC_STATE_RUNNING; /* yielded */
	if (bits & 0x01)
		return REC_STATE_SLEEPING;
	if (bits & 0x02)
		return REC_STATE_DISK;
	if (bits & 0x0c)
		return REC_STATE_STOPPED;
	if (bits & 0x30)
		return REC_STATE_DEAD;
	if (bits & 0xc0)
		return REC_STATE_IDLE; /* parked or idle */
	return REC_STATE_OTHER;
}

/* Writes a TASK record when `tid`'s name is new or changed. */
static void name_task(struct recorder *rec, uint64_t time, uint32_t tid, const char *comm,
		      size_t max)
{
	uint32_t id = 0, old;

	recorder_note_err(rec, rec_writer__string(rec->w, comm, strnlen(comm, max), &id));
	if (keymap__get(&rec->sched.task_names, tid, 0, &old) && old == id)
		return;
	recorder_note_err(rec, keymap__set(&rec->sched.task_names, tid, 0, id));
	recorder_note_err(rec, rec_sink__sched(rec->sink, time, tid, id, 0, REC_SCHED_TASK, 0));
}

static void on_switch(struct recorder *rec, const struct sched_head *s, const unsigned char *raw,
		      uint32_t len)
{
	const struct tracepoint *tp = &rec->sched.sw;
	uint32_t next = (uint32_t)read_field(raw, len, tp->field[2]);
	uint8_t state = state_of(read_field(raw, len, tp->field[0]));
	struct tp_field comm = tp->field[1];

	/* CPU-wide: every CPU's switches but plain sleeps come here; keep the
	 * targets' switch-outs (switch-ins: on_switch_record). */
	if (rec->cpu_wide && !recorder_is_target_task(rec, s->pid, s->tid))
		return;
	rec->sum->switches++;
	rec->sched.tp_out[rec->sched.cur] = (struct tp_out){.tid = s->tid, .time = s->time};
	if (comm.offset + comm.size <= len)
		name_task(rec, s->time, next, (const char *)raw + comm.offset, comm.size);
	recorder_note_err(rec, rec_sink__sched(rec->sink, s->time, s->tid, next, (uint16_t)s->cpu,
				       REC_SCHED_OUT, state));
}

static void on_wake(struct recorder *rec, const struct sched_head *s, const unsigned char *raw,
		    uint32_t len)
{
	const struct tracepoint *tp = &rec->sched.wake;
	struct sched_rec *sr = &rec->sched;
	uint32_t flags = (uint32_t)read_field(raw, len, tp->field[0]);
	uint32_t wakee = (uint32_t)read_field(raw, len, tp->field[1]);
	uint32_t cpu = tp->field[2].size ? (uint32_t)read_field(raw, len, tp->field[2]) : s->cpu;
	uint32_t waker = (flags & (TP_FLAG_HARDIRQ | TP_FLAG_SOFTIRQ | TP_FLAG_NMI)) ? 0 : s->tid;
	uint32_t dummy;

	if (rec->cpu_wide && !recorder_is_target_tid(rec, wakee))
		return;
	/* A wake-up between two target threads reaches both their events:
	 * the copies sit next to each other in this CPU's ring. */
	if (sr->last_wake.wakee == wakee && sr->last_wake.waker == waker &&
	    s->time - sr->last_wake.time < 20000)
		return;
	sr->last_wake.wakee = wakee;
	sr->last_wake.waker = waker;
	sr->last_wake.time = s->time;
	rec->sum->wakeups++;
	if (waker && !keymap__get(&sr->task_names, waker, 0, &dummy) &&
	    !keymap__get(&rec->names, waker, 0, &dummy))
		recorder_note_err(rec, keymap__set(&sr->unnamed, waker, 0, 1));
	recorder_note_err(rec, rec_sink__sched(rec->sink, s->time, wakee, waker, (uint16_t)cpu,
				       REC_SCHED_WAKE, 0));
}

static void on_sample(struct recorder *rec, const struct perf_event_header *h)
{
	const unsigned char *p = (const unsigned char *)(h + 1);
	const unsigned char *end = (const unsigned char *)h + h->size;
	struct sched_head s;
	uint32_t kind, raw_len;
	uint64_t nr;

	if ((size_t)(end - p) < sizeof(s))
		return;
	memcpy(&s, p, sizeof(s));
	p += sizeof(s);
	if (!keymap__get(&rec->sched.ids, s.id, 0, &kind))
		return;
	if (kind == SCHED_EV_STACK) {
		if (rec->cpu_wide && !recorder_is_target_task(rec, s.pid, s.tid))
			return;
		if ((size_t)(end - p) < 8)
			return;
		memcpy(&nr, p, 8);
		p += 8;
		if (nr > (uint64_t)(end - p) / 8)
			return;
		if (rec->sched.attr[SCHED_EV_STACK].sample_type & PERF_SAMPLE_STACK_USER)
			ustack_add_event(rec, s.pid, s.tid, s.time, s.cpu, 0, h->misc,
					 (const uint64_t *)p, nr, p + nr * 8, end,
					 rec->sched.stack_event);
		else
			recorder_add_stack_sample(rec, s.pid, s.tid, s.time, s.cpu, 0, h->misc,
						  (const uint64_t *)p, nr, rec->sched.stack_event);
		return;
	}
	if ((size_t)(end - p) < 4)
		return;
	memcpy(&raw_len, p, 4);
	p += 4;
	if (raw_len > (size_t)(end - p))
		return;
	if (kind == SCHED_EV_SWITCH)
		on_switch(rec, &s, p, raw_len);
	else if (kind == SCHED_EV_WAKE)
		on_wake(rec, &s, p, raw_len);
}

static void on_switch_record(struct recorder *rec, const struct perf_event_header *h)
{
	struct sched_trailer t;

	if (h->size < sizeof(*h) + sizeof(t))
		return;
	memcpy(&t, (const char *)h + h->size - sizeof(t), sizeof(t));
	/* CPU-wide: every switch of the CPU; keep the targets'. */
	if (rec->cpu_wide && !recorder_is_target_task(rec, t.pid, t.tid))
		return;
	if (h->misc & PERF_RECORD_MISC_SWITCH_OUT) {
		struct sched_rec *sr = &rec->sched;

		/* The tracepoint came just before, with the state; else the
		 * filter held it back: a plain sleep. Both are written inside
		 * one __schedule() with interrupts off, so nothing of this CPU
		 * comes between them: a tracepoint pairs with the next
		 * switch-out of its CPU, however far apart their times (a
		 * vCPU the host takes away between them once counted the
		 * switch twice), and with no later one. */
		if (!sr->filtered)
			return;
		struct tp_out *last = &sr->tp_out[sr->cur];
		int paired = last->tid == t.tid;

		last->tid = 0;
		if (paired)
			return;
		rec->sum->switches++;
		recorder_note_err(rec, rec_sink__sched(rec->sink, t.time, t.tid, 0, (uint16_t)t.cpu,
					       REC_SCHED_OUT, REC_STATE_SLEEPING));
		return;
	}
	recorder_note_err(
	    rec, rec_sink__sched(rec->sink, t.time, t.tid, 0, (uint16_t)t.cpu, REC_SCHED_IN, 0));
}

void sched_handle_record(void *ctx, const struct perf_event_header *h)
{
	struct recorder *rec = ctx;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		on_sample(rec, h);
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		on_switch_record(rec, h);
		break;
	default: /* a stack ring's losses are stacks only (sched-events.c) */
		recorder_count_loss(rec, h, rec->sched.draining_stacks ? &rec->sum->sched_stacks_lost
								     : &rec->sum->sched_lost);
		break;
	}
}
