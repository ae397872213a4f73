/* malloc-decode.c: the hits of `prof record --malloc`'s probes (see
 * malloc-probes.c) made into allocation samples.
 *
 * Without --leaks only the entries are probed, and a kept entry is a
 * sample at once (size, address 0, estimated bytes). With --leaks an
 * allocation is two hits in two rings (the entry's, with the size and
 * the stack, and the return's, with the address), and a free a third: a
 * thread that moved CPU between them puts them in rings drained in any
 * order. So the hits are kept, small, in a buffer, and after each drain
 * those older than the drain's start (which were all in their rings) are
 * handled in time order; the rest wait for the next drain.
 *
 * Sampling by bytes (lib/sample-skip.h): at each entry, the skip says
 * whether this allocation holds a sampling point (mean distance
 * --every-bytes, 512 KiB by default); only a kept entry's record is
 * copied (one per 512 KiB allocated: rare). An entry outside the
 * probes' windows (probe-windows.c: their edges) is not kept, so that the
 * attached time holds the allocations kept. Per thread, an entry waits for
 * the return of the same function; the pair becomes a sample of event
 * "uprobe:malloc" with the entry's stack and arguments (size, address,
 * the bytes it stands for: size / p; an entry whose return was lost: one
 * with address 0). With --leaks, a kept block's address goes
 * into a table, and its free (free(), or realloc() giving it back) writes
 * a sample of event "uprobe:malloc:free" whose argument is the allocation's
 * sample index; what is never freed is what `prof report --leaks` shows.
 *
 * Memory: the buffer holds one drain's hits (about 56 bytes a hit), a
 * slot per thread, an entry per kept block. */
#include "recorder.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "lib/grow.h"
#include "lib/sample-skip.h"

struct mhit {
	uint64_t time, seq;
	uint64_t size; /* entry: the bytes asked for */
	int64_t a0;    /* entry: posix_memalign's &ptr; return: rax; free: the block */
	uint32_t pid, tid;
	const struct probe_site *site;
	void *copy; /* a kept entry's record */
};

struct pending { /* per thread: the entry waiting for its return */
	const struct probe_site *site;
	void *copy; /* NULL: not kept */
	uint64_t size;
	int64_t memptr;
	int valid;
};

struct malloc_rec {
	struct sample_skip skip;
	struct mhit *hits;
	size_t nhits, cap;
	uint64_t seq;
	struct keymap threads; /* tid -> index in pend */
	struct pending *pend;
	size_t npend, pend_cap;
	struct keymap live; /* (address, pid) -> sample index + 1; 0: freed */
	int leaks;
	uint8_t ev_free;
	uint64_t calls, kept, unpaired, frees, freed_kept, bytes_kept;
};

int malloc_decode_setup(struct recorder *rec)
{
	struct probe_rec *p = &rec->probes;
	struct malloc_rec *m = calloc(1, sizeof(*m));
	uint64_t mean = rec->opts->every_bytes ? rec->opts->every_bytes : RECORD_MALLOC_EVERY_BYTES;
	char buf[32];

	if (!m || keymap__init(&m->threads, 64) || keymap__init(&m->live, 1024)) {
		if (m) {
			keymap__release(&m->threads);
			free(m);
		}
		return prof_error_set(rec->err, -ENOMEM, NULL, "%s", "out of memory");
	}
	sample_skip_init(&m->skip, mean, monotonic_ns() ^ (uint64_t)getpid() << 40);
	m->leaks = rec->opts->leaks;
	for (size_t k = 0; k < p->nsites; k++)
		if (p->sites[k].def.role == PROBE_ROLE_FREE)
			m->ev_free = p->sites[k].event;
	p->malloc = m;
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)mean);
	rec_writer__meta(rec->w, "malloc-every-bytes", buf);
	rec_writer__meta(rec->w, "malloc-leaks", m->leaks ? "1" : "0");
	return 0;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* The bytes an entry asks for, from its arguments (rdi, rsi, rdx). */
static uint64_t entry_size(int func, const int64_t *v)
{
	switch (func) {
	case MALLOC_FN_MALLOC:
		return (uint64_t)v[0];
	case MALLOC_FN_CALLOC:
		return mul_sat((uint64_t)v[0], (uint64_t)v[1]);
	case MALLOC_FN_REALLOC:
	case MALLOC_FN_MEMALIGN:
		return (uint64_t)v[1];
	case MALLOC_FN_POSIX_MEMALIGN:
		return (uint64_t)v[2];
	default:
		return 0;
	}
}

static uint64_t write_alloc(struct recorder *rec, struct malloc_rec *m, const struct probe_site *s,
			    const struct perf_event_header *hdr, uint64_t size, int64_t addr);

void malloc_handle_record(void *ctx, const struct perf_event_header *hdr)
{
	struct recorder *rec = ctx;
	const struct probe_site *s = &rec->probes.sites[rec->probes.cur];
	struct malloc_rec *m = rec->probes.malloc;
	struct mhit h = {.site = s};
	int64_t v[3] = {0, 0, 0};
	int keep;

	if (hdr->type != PERF_RECORD_SAMPLE) {
		recorder_count_loss(rec, hdr, &rec->sum->lost);
		return;
	}
	if (!m)
		return;
	for (int k = 0; k < s->def.nargs && k < 3; k++)
		if (probes_hit_arg(s, hdr, k, &h.pid, &h.tid, &h.time, &v[k]))
			return;
	rec->probes.hits++;
	h.a0 = v[0];
	if (s->def.role == PROBE_ROLE_MALLOC) {
		m->calls++;
		h.size = entry_size(s->def.func, v);
		/* an entry outside the windows (their edges) is not kept, as
		 * --alloc's hits (probe-windows.c), but still pairs its return */
		keep = probe_windows_inside(&rec->probes, s, h.time) && h.size &&
		       sample_skip_take(&m->skip, h.size);
		if (!m->leaks) { /* no address needed: a sample at once */
			if (keep)
				write_alloc(rec, m, s, hdr, h.size, 0);
			return;
		}
		if (keep) {
			h.copy = malloc(hdr->size);
			if (h.copy)
				memcpy(h.copy, hdr, hdr->size);
		}
	} else if (s->def.role == PROBE_ROLE_FREE) {
		m->frees++;
		if (!m->leaks || !h.a0)
			return;
	}
	if (GROW(m->hits, m->cap, m->nhits + 1)) {
		free(h.copy);
		return;
	}
	h.seq = m->seq++;
	m->hits[m->nhits++] = h;
}

static int by_time(const void *a, const void *b)
{
	const struct mhit *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct pending *pending_of(struct malloc_rec *m, uint32_t tid)
{
	uint32_t idx;

	if (keymap__get(&m->threads, tid, 0, &idx))
		return &m->pend[idx];
	if (GROW(m->pend, m->pend_cap, m->npend + 1) ||
	    keymap__set(&m->threads, tid, 0, (uint32_t)m->npend))
		return NULL;
	memset(&m->pend[m->npend], 0, sizeof(m->pend[0]));
	return &m->pend[m->npend++];
}

/* A kept allocation as a sample: its entry's record, size, address (0:
 * unknown). Returns the sample's index, or UINT64_MAX. */
static uint64_t write_alloc(struct recorder *rec, struct malloc_rec *m, const struct probe_site *s,
			    const struct perf_event_header *hdr, uint64_t size, int64_t addr)
{
	uint64_t index = rec_writer__nsamples(rec->w);
	int64_t vals[3] = {(int64_t)size, addr,
			   (int64_t)llround(sample_skip_size_weight(size, m->skip.mean))};

	probes_write_hit(rec, s, hdr, s->event, 3, vals);
	if (rec_writer__nsamples(rec->w) != index + 1)
		return UINT64_MAX;
	m->kept++;
	m->bytes_kept += size;
	return index;
}

/* An entry whose return was not seen (lost, or after the window): still
 * an allocation of its size, at an unknown address. */
static void drop(struct recorder *rec, struct malloc_rec *m, struct pending *pd)
{
	if (pd->valid && pd->copy) {
		m->unpaired++;
		write_alloc(rec, m, pd->site, pd->copy, pd->size, 0);
	}
	free(pd->copy);
	memset(pd, 0, sizeof(*pd));
}

/* posix_memalign's block: *ptr, read from the target now (the variable
 * usually still holds it: most callers keep it). 0 when unreadable. */
static int64_t read_memptr(uint32_t pid, int64_t memptr)
{
	int64_t v = 0;
	struct iovec local = {&v, sizeof(v)}, remote = {(void *)(uintptr_t)memptr, sizeof(v)};

	if (process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof(v))
		return 0;
	return v;
}

static void allocated(struct recorder *rec, struct malloc_rec *m, struct pending *pd,
		      const struct mhit *h)
{
	int64_t addr = h->a0;
	uint64_t index;

	if (pd->site->def.func == MALLOC_FN_POSIX_MEMALIGN)
		addr = h->a0 ? 0 : read_memptr(h->pid, pd->memptr); /* rax: 0 on success */
	if (addr) {
		index = write_alloc(rec, m, pd->site, pd->copy, pd->size, addr);
		if (index != UINT64_MAX &&
		    keymap__set(&m->live, (uint64_t)addr, h->pid, (uint32_t)(index + 1)) &&
		    !rec->write_err)
			rec->write_err = -ENOMEM;
	} /* else failed: nothing allocated */
	free(pd->copy);
	memset(pd, 0, sizeof(*pd));
}

static void freed(struct recorder *rec, struct malloc_rec *m, const struct mhit *h)
{
	uint32_t v;
	int64_t arg;

	if (!keymap__get(&m->live, (uint64_t)h->a0, h->pid, &v) || !v)
		return;
	keymap__set(&m->live, (uint64_t)h->a0, h->pid, 0);
	arg = (int64_t)v - 1;
	m->freed_kept++;
	if (rec_writer__sample(rec->w, h->time, h->tid, 0, 0, m->ev_free, 0) ||
	    rec_writer__args(rec->w, rec_writer__nsamples(rec->w) - 1, 1, 0, &arg))
		if (!rec->write_err)
			rec->write_err = -ENOMEM;
}

static void handle(struct recorder *rec, struct malloc_rec *m, const struct mhit *h)
{
	struct pending *pd;

	if (h->site->def.role == PROBE_ROLE_FREE) {
		freed(rec, m, h);
		return;
	}
	pd = pending_of(m, h->tid);
	if (!pd) {
		free(h->copy);
		return;
	}
	if (h->site->def.role == PROBE_ROLE_MALLOC) {
		drop(rec, m, pd); /* an earlier entry whose return never came */
		*pd = (struct pending){
		    .site = h->site, .copy = h->copy, .size = h->size, .memptr = h->a0, .valid = 1};
		return;
	}
	if (!pd->valid || pd->site->def.func != h->site->def.func)
		return; /* a return whose entry was before the window */
	if (!pd->copy)
		memset(pd, 0, sizeof(*pd)); /* not kept */
	else
		allocated(rec, m, pd, h);
}

void malloc_decode_flush(struct recorder *rec, uint64_t before)
{
	struct malloc_rec *m = rec->probes.malloc;
	/* Every probe closed (the recording's end: stop_events() drains once
	 * they are gone): all there will be is in, and before symbolizing. */
	int final = !rec->probes.attached && !rec->probes.ncfds;
	size_t i;

	if (!m)
		return;
	if (final)
		before = UINT64_MAX;
	if (m->nhits)
		qsort(m->hits, m->nhits, sizeof(*m->hits), by_time);
	for (i = 0; i < m->nhits && m->hits[i].time < before; i++)
		handle(rec, m, &m->hits[i]);
	if (i && i < m->nhits)
		memmove(m->hits, m->hits + i, (m->nhits - i) * sizeof(*m->hits));
	m->nhits -= i;
	for (size_t k = 0; final && k < m->npend; k++)
		drop(rec, m, &m->pend[k]);
}

void malloc_decode_stats(struct recorder *rec)
{
	struct malloc_rec *m = rec->probes.malloc;

	if (!m)
		return;
	malloc_decode_flush(rec, UINT64_MAX);
	for (size_t i = 0; i < m->npend; i++)
		drop(rec, m, &m->pend[i]);
	rec_writer__stat(rec->w, "malloc-calls", m->calls);
	rec_writer__stat(rec->w, "malloc-kept", m->kept);
	rec_writer__stat(rec->w, "malloc-kept-bytes", m->bytes_kept);
	rec_writer__stat(rec->w, "malloc-unpaired", m->unpaired);
	if (m->leaks) {
		rec_writer__stat(rec->w, "malloc-frees", m->frees);
		rec_writer__stat(rec->w, "malloc-frees-of-kept", m->freed_kept);
	}
	rec->sum->malloc_calls = m->calls;
	rec->sum->malloc_kept = m->kept;
	rec->sum->malloc_frees = m->frees;
	rec->sum->malloc_unpaired = m->unpaired;
}

void malloc_decode_release(struct recorder *rec)
{
	struct malloc_rec *m = rec->probes.malloc;

	if (!m)
		return;
	for (size_t i = 0; i < m->nhits; i++)
		free(m->hits[i].copy);
	for (size_t i = 0; i < m->npend; i++)
		free(m->pend[i].copy);
	free(m->hits);
	free(m->pend);
	keymap__release(&m->threads);
	keymap__release(&m->live);
	free(m);
	rec->probes.malloc = NULL;
}
