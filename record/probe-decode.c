/* probe-decode.c: a probe hit from a site's ring into the recording: its
 * call stack (as the recording's call-graph mode makes them: the kernel's
 * frame-pointer chain with the leaf fix, or a dwarf unwind of the stack
 * copy) as a sample of the probe's event, then its arguments decoded from
 * the note's specs into an ARGS record (lib/rec-args.h):
 *
 * - registers come with the hit (PERF_SAMPLE_REGS_USER): the uprobe fires
 *   at the probe's instruction, so they are exact;
 * - memory on the stack (rsp/rbp-based operands) from the hit's copy of the
 *   stack (PERF_SAMPLE_STACK_USER, 512 bytes or the call-graph's size);
 *   other memory, and the strings some arguments point to (class and
 *   thread names), are read from the target with process_vm_readv() when
 *   the ring is drained, at most a second later: they must still be
 *   there (HotSpot's class names live as long as their class; a thread's
 *   name is read at once, as thread starts are rare).
 *
 * --alloc's hotspot:object__alloc hits keep (class, size: -1 where the
 * JVM left it unset, alloc-size.c), the class name
 * interned once per (process, pointer); hotspot:thread__start hits become
 * REC_THREAD_FULLNAME thread events, not samples. */
#include "recorder.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "lib/rec-args.h"

#define MAX_NAME 1024 /* bytes of a class or thread name read from a target */

struct hit {
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t nr;
	const uint64_t *ips;
	const unsigned char *regs; /* nregs u64s, or NULL */
	const unsigned char *stack;
	uint64_t stack_len;
	uint64_t count, id; /* PERF_SAMPLE_READ (kernel periods): the event's count, id */
};

static int read_target(uint32_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = {buf, len}, remote = {(void *)(uintptr_t)addr, len};

	return process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

static uint64_t reg(const struct probe_site *s, const struct hit *h, unsigned r)
{
	uint64_t v = 0;

	if (r < USDT_NREGS && s->reg_pos[r] != 0xff && h->regs)
		memcpy(&v, h->regs + (size_t)s->reg_pos[r] * 8, 8);
	return v;
}

static int64_t extend(uint64_t raw, const struct usdt_arg *a)
{
	unsigned bits = 8u * a->size;

	if (bits >= 64)
		return (int64_t)raw;
	raw &= (1ULL << bits) - 1;
	if (a->is_signed && (raw >> (bits - 1)))
		raw |= ~0ULL << bits;
	return (int64_t)raw;
}

/* One argument's value. 0 or -EFAULT (memory that cannot be read). */
static int arg_value(const struct probe_site *s, const struct hit *h, const struct usdt_arg *a,
		     int64_t *out)
{
	uint64_t raw = 0, addr, sp;

	switch (a->kind) {
	case USDT_ARG_CONST:
		*out = a->value;
		return 0;
	case USDT_ARG_REG:
		*out = extend(reg(s, h, a->reg) >> a->shift, a);
		return 0;
	case USDT_ARG_MEM:
		addr = reg(s, h, a->reg) + (uint64_t)a->value;
		if (a->index != USDT_REG_NONE)
			addr += reg(s, h, a->index) * a->scale;
		sp = reg(s, h, USDT_REG_SP);
		if (h->stack && addr >= sp && addr - sp <= h->stack_len &&
		    h->stack_len - (addr - sp) >= a->size)
			memcpy(&raw, h->stack + (addr - sp), a->size);
		else if (read_target(h->pid, addr, &raw, a->size))
			return -EFAULT;
		*out = extend(raw, a);
		return 0;
	default:
		return -EFAULT;
	}
}

/* The string at (pid, addr) of len bytes, interned (cached by address for
 * class names, whose bytes never move). 0 or -EFAULT. */
static int target_string(struct recorder *rec, uint32_t pid, uint64_t addr, int64_t len,
			 int java_class, int cache, uint32_t *id)
{
	struct probe_rec *p = &rec->probes;
	char raw[MAX_NAME], name[MAX_NAME + 64];
	size_t n;
	int err;

	if (cache && keymap__get(&p->strings, addr, pid, id))
		return 0;
	if (len <= 0 || !addr)
		return -EFAULT;
	if (len > MAX_NAME)
		len = MAX_NAME;
	if (read_target(pid, addr, raw, (size_t)len))
		return -EFAULT;
	if (java_class) {
		n = java_class_name(raw, (size_t)len, name, sizeof(name));
	} else {
		n = (size_t)len;
		memcpy(name, raw, n);
	}
	err = rec_writer__string(rec->w, name, n, id);
	if (!err && cache)
		err = keymap__set(&p->strings, addr, pid, *id);
	recorder_note_err(rec, err);
	return err;
}

static void thread_start(struct recorder *rec, const struct probe_site *s, const struct hit *h)
{
	int64_t v[5];
	uint32_t id;

	for (int k = 0; k < 5; k++)
		if (arg_value(s, h, &s->def.arg[k], &v[k])) {
			rec->probes.unreadable++;
			return;
		}
	/* name, length, java tid, native tid, daemon */
	if (v[3] <= 0 || v[3] > INT32_MAX || target_string(rec, h->pid, (uint64_t)v[0], v[1], 0, 0, &id)) {
		rec->probes.unreadable++;
		return;
	}
	if (rec_writer__thread(rec->w, REC_THREAD_FULLNAME, h->time, h->pid, (uint32_t)v[3], id) &&
	    !rec->write_err)
		rec->write_err = -ENOMEM;
}

/* The values stored for a hit: the arguments, or (class, size). Returns
 * the count, with *strmask; -1 when nothing can be stored. */
static int hit_args(struct recorder *rec, const struct probe_site *s, const struct hit *h,
		    int64_t *vals, uint32_t *strmask)
{
	*strmask = 0;
	if (s->def.role == PROBE_ROLE_ALLOC) {
		int64_t ptr, len, size;
		uint32_t id;

		/* java thread id, class name pointer, its length, size in bytes */
		if (arg_value(s, h, &s->def.arg[1], &ptr) || arg_value(s, h, &s->def.arg[2], &len) ||
		    arg_value(s, h, &s->def.arg[3], &size) ||
		    target_string(rec, h->pid, (uint64_t)ptr, len, 1, 1, &id))
			return -1;
		vals[0] = id;
		vals[1] = alloc_size(s, &(struct alloc_hit){h->ip, h->ips, h->nr,
				     reg(s, h, USDT_REG_BP), reg(s, h, USDT_REG_SP),
				     h->stack, h->stack_len}, size);
		*strmask = 1;
		return 2;
	}
	for (int k = 0; k < s->def.nargs; k++)
		if (arg_value(s, h, &s->def.arg[k], &vals[k]))
			return -1;
	return s->def.nargs;
}

/* An allocation's size in bytes for --every-bytes (its argument 3), -1
 * when unknown (or for any other probe). */
static int64_t hit_size(const struct recorder *rec, const struct probe_site *s,
			const struct hit *h)
{
	int64_t size;

	if (!rec->opts->every_bytes || s->def.role != PROBE_ROLE_ALLOC ||
	    arg_value(s, h, &s->def.arg[3], &size))
		return -1;
	return size;
}

static int parse_hit(const struct probe_site *s, const struct perf_event_header *hdr,
		     struct hit *h)
{
	const unsigned char *p = (const unsigned char *)(hdr + 1);
	const unsigned char *end = (const unsigned char *)hdr + hdr->size;
	const size_t fixed = offsetof(struct hit, nr);
	uint64_t abi, size, dyn;

	memset(h, 0, sizeof(*h));
	if ((size_t)(end - p) < fixed + 8 + (s->kperiod ? 16 : 0))
		return -EBADMSG;
	memcpy(h, p, fixed);
	p += fixed;
	if (s->kperiod) { /* PERF_SAMPLE_READ, PERF_FORMAT_ID: value, id */
		memcpy(&h->count, p, 8);
		memcpy(&h->id, p + 8, 8);
		p += 16;
	}
	memcpy(&h->nr, p, 8);
	p += 8;
	if (h->nr > (uint64_t)(end - p) / 8)
		return -EBADMSG;
	h->ips = (const uint64_t *)p;
	p += h->nr * 8;
	if (s->nregs) {
		if ((size_t)(end - p) < 8)
			return -EBADMSG;
		memcpy(&abi, p, 8);
		p += 8;
		if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
			if ((size_t)(end - p) < (size_t)s->nregs * 8)
				return -EBADMSG;
			h->regs = p;
			p += (size_t)s->nregs * 8;
		}
	}
	if (s->stack_size && (size_t)(end - p) >= 8) {
		memcpy(&size, p, 8);
		p += 8;
		if (size && size <= (uint64_t)(end - p) && (size_t)(end - p) - size >= 8) {
			memcpy(&dyn, p + size, 8);
			h->stack = p;
			h->stack_len = dyn <= size ? dyn : 0;
		}
	}
	return 0;
}

static void regs_for_unwind(const struct probe_site *s, const struct hit *h,
			    struct unwind_regs *ur)
{
	memset(ur, 0, sizeof(*ur));
	for (unsigned r = 0; r < USDT_NREGS; r++) {
		int d;

		if (s->reg_pos[r] == 0xff || (d = ustack_perf_to_dwarf((int)r)) < 0)
			continue;
		ur->r[d] = reg(s, h, r);
		ur->valid |= 1u << d;
	}
}

/* The hit's stack as a sample of `event`; its index, or UINT64_MAX when
 * none was written. */
static uint64_t write_sample(struct recorder *rec, const struct probe_site *s,
			     const struct perf_event_header *hdr, const struct hit *h, uint8_t event)
{
	struct unwind_regs ur;
	struct unwind_stack st;
	uint64_t index = rec_writer__nsamples(rec->w);

	if (h->regs) {
		regs_for_unwind(s, h, &ur);
		st = (struct unwind_stack){.start = reg(s, h, USDT_REG_SP), .data = h->stack,
					   .size = h->stack_len};
	}
	ustack_sample_now(rec, h->pid, h->tid, h->time, h->cpu, h->ip, hdr->misc, h->ips, h->nr,
			  h->regs ? &ur : NULL, h->regs ? &st : NULL, event);
	return rec_writer__nsamples(rec->w) == index + 1 ? index : UINT64_MAX;
}

int probes_hit_arg(const struct probe_site *s, const struct perf_event_header *hdr, int k,
		   uint32_t *pid, uint32_t *tid, uint64_t *time, int64_t *val)
{
	struct hit h;

	if (parse_hit(s, hdr, &h))
		return -EBADMSG;
	*pid = h.pid;
	*tid = h.tid;
	*time = h.time;
	return k < s->def.nargs ? arg_value(s, &h, &s->def.arg[k], val) : -EINVAL;
}

void probes_write_hit(struct recorder *rec, const struct probe_site *s,
		      const struct perf_event_header *hdr, uint8_t event, unsigned n,
		      const int64_t *vals)
{
	struct hit h;
	uint64_t index;

	if (parse_hit(s, hdr, &h))
		return;
	index = write_sample(rec, s, hdr, &h, event);
	if (index != UINT64_MAX && n && rec_writer__args(rec->w, index, n, 0, vals) &&
	    !rec->write_err)
		rec->write_err = -ENOMEM;
}

void probes_handle_record(void *ctx, const struct perf_event_header *hdr)
{
	struct recorder *rec = ctx;
	struct probe_rec *p = &rec->probes;
	const struct probe_site *s = &p->sites[p->cur];
	int64_t vals[USDT_MAX_ARGS];
	uint32_t strmask;
	uint64_t index;
	struct hit h;
	int n;

	if (hdr->type != PERF_RECORD_SAMPLE) {
		recorder_count_loss(rec, hdr, &rec->sum->lost);
		return;
	}
	if (parse_hit(s, hdr, &h))
		return;
	p->hits++;
	if (!p->alloc_first_hit_ns && s->def.role == PROBE_ROLE_ALLOC)
		p->alloc_first_hit_ns = h.time;
	if (s->def.role == PROBE_ROLE_THREAD_START) {
		thread_start(rec, s, &h);
		return;
	}
	if (s->kperiod) { /* the kernel kept it; the report weighs it */
		if (!probe_kperiod_hit(rec, h.tid, h.id, h.time)) {
			p->hits--; /* written before its redraw: counted at the end */
			return;
		}
		if (!probe_windows_inside(p, s, h.time))
			return;
	} else if (!probe_windows_keep(rec, s, hit_size(rec, s, &h), h.time)) {
		return; /* --every, --every-bytes: before the stack is interned */
	}
	index = write_sample(rec, s, hdr, &h, s->event);
	if (index == UINT64_MAX || !s->def.nargs)
		return;
	n = hit_args(rec, s, &h, vals, &strmask);
	if (n < 0) {
		p->unreadable++;
		return;
	}
	if (rec_writer__args(rec->w, index, (unsigned)n, strmask, vals) && !rec->write_err)
		rec->write_err = -ENOMEM;
}
