/* recording.c: the recording file reader (see recording.h). */
#include "recording.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "grow.h"
#include "keymap.h"
#include "rec-args.h"

/* The checksum work one look for chunks after a bad size field may do. */
#define SCAN_CRC_BYTES (64u << 20)

int recording_is_recording(const void *data, size_t size)
{
	return size >= REC_MAGIC_LEN && memcmp(data, REC_MAGIC, REC_MAGIC_LEN) == 0;
}

static int fail(char *errbuf, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errbuf, errlen, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

const char *recording__str(const struct recording *r, uint32_t id)
{
	return id < r->nstrs ? r->strs[id] : "";
}

uint64_t recording__stat(const struct recording *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->nstats; i++)
		if (!strcmp(recording__str(r, r->stats[i].key), key))
			return r->stats[i].value;
	return 0;
}

const char *recording__meta(const struct recording *r, const char *key)
{
	size_t i;

	for (i = r->nmeta; i-- > 0;)
		if (!strcmp(r->meta[i].key, key))
			return r->meta[i].value;
	return NULL;
}

int recording__event_is_probe(const struct recording *r, unsigned ev)
{
	const char *n;

	if (ev >= r->nevents)
		return 0;
	n = recording__str(r, r->events[ev].name);
	return !strncmp(n, "usdt:", 5) || !strncmp(n, "uprobe:", 7) ||
	       !strncmp(n, "uretprobe:", 10);
}

int recording__event_is_cpu(const struct recording *r, unsigned ev)
{
	return ev >= r->nevents || (r->events[ev].type != RECORDING_EVENT_TYPE_TRACEPOINT &&
				    !recording__event_is_probe(r, ev));
}

int recording__find_event(const struct recording *r, const char *name)
{
	for (size_t i = 0; i < r->nevents && i < 256; i++)
		if (!strcmp(recording__str(r, r->events[i].name), name))
			return (int)i;
	return -1;
}

/* Strings are copied out with terminators; string pointers are fixed up
 * after parsing because strbuf moves as it grows. */
static int strbuf_add(struct recording *r, const unsigned char *p, size_t len, size_t *off);

static int add_string(struct recording *r, const unsigned char *p, uint32_t len)
{
	size_t off, lens_cap = r->strs_cap;

	if (GROW(r->strs, r->strs_cap, r->nstrs + 1))
		return -ENOMEM;
	if (lens_cap != r->strs_cap) {
		uint32_t *lens = realloc(r->lens, r->strs_cap * sizeof(*r->lens));

		if (!lens)
			return -ENOMEM;
		r->lens = lens;
	}
	if (strbuf_add(r, p, len, &off))
		return -ENOMEM;
	r->strs[r->nstrs] = (const char *)(uintptr_t)off; /* offset for now */
	r->lens[r->nstrs++] = len;
	return 0;
}

struct parse {
	struct recording *r;
	char *errbuf;
	size_t errlen;
	size_t off; /* of the chunk being parsed */
};

#define BAD(ps, ...) fail((ps)->errbuf, (ps)->errlen, __VA_ARGS__)

static int check_str(struct parse *ps, uint32_t id, const char *what)
{
	if (id >= ps->r->nstrs)
		return BAD(ps, "%s refers to undefined string %u (chunk at byte %zu)", what, id,
			   ps->off);
	return 0;
}

static int parse_strings(struct parse *ps, const unsigned char *p, size_t size, uint32_t count)
{
	size_t pos = 0;
	uint32_t i;

	for (i = 0; i < count; i++) {
		uint32_t len;
		int err;

		if (size - pos < 4)
			return BAD(ps, "string table overruns its chunk (chunk at byte %zu)", ps->off);
		memcpy(&len, p + pos, 4);
		pos += 4;
		if (len > size - pos)
			return BAD(ps, "string of %u bytes overruns its chunk (chunk at byte %zu)",
				   len, ps->off);
		err = add_string(ps->r, p + pos, len);
		if (err)
			return err;
		pos += len;
	}
	if (pos != size)
		return BAD(ps, "string chunk has %zu stray bytes (chunk at byte %zu)", size - pos,
			   ps->off);
	return 0;
}

/* Copies len bytes plus a NUL into strbuf; *off gets their offset. */
static int strbuf_add(struct recording *r, const unsigned char *p, size_t len, size_t *off)
{
	if (GROW(r->strbuf, r->strbuf_cap, r->strbuf_len + len + 1))
		return -ENOMEM;
	memcpy(r->strbuf + r->strbuf_len, p, len);
	r->strbuf[r->strbuf_len + len] = '\0';
	*off = r->strbuf_len;
	r->strbuf_len += len + 1;
	return 0;
}

static int parse_meta(struct parse *ps, const unsigned char *p, size_t size, uint32_t count)
{
	struct recording *r = ps->r;
	size_t pos = 0, off[2];
	uint32_t i;
	int k, err;

	for (i = 0; i < count; i++) {
		for (k = 0; k < 2; k++) {
			const unsigned char *nul = pos < size ? memchr(p + pos, 0, size - pos) : NULL;

			if (!nul)
				return BAD(ps, "meta entry is not terminated (chunk at byte %zu)", ps->off);
			err = strbuf_add(r, p + pos, (size_t)(nul - (p + pos)), &off[k]);
			if (err)
				return err;
			pos = (size_t)(nul - p) + 1;
		}
		if (GROW(r->meta, r->meta_cap, r->nmeta + 1))
			return -ENOMEM;
		/* Offsets for now; turned into pointers once strbuf stops moving. */
		r->meta[r->nmeta].key = (const char *)(uintptr_t)off[0];
		r->meta[r->nmeta].value = (const char *)(uintptr_t)off[1];
		r->nmeta++;
	}
	return 0;
}

/* Grows the per-frame symbol table to cover every frame, zeroing new slots. */
static int ensure_symbols(struct recording *r)
{
	size_t old = r->symbols_cap;

	if (r->nframes <= old && old)
		return 0;
	if (GROW(r->symbols, r->symbols_cap, r->nframes ? r->nframes : 1))
		return -ENOMEM;
	memset(r->symbols + old, 0, (r->symbols_cap - old) * sizeof(*r->symbols));
	return 0;
}

/* Grows the per-frame inline spans to cover every frame, zeroing new slots. */
static int ensure_inline_of(struct recording *r)
{
	size_t old = r->inline_of_cap;

	if (r->nframes <= old && old)
		return 0;
	if (GROW(r->inline_of, r->inline_of_cap, r->nframes ? r->nframes : 1))
		return -ENOMEM;
	memset(r->inline_of + old, 0, (r->inline_of_cap - old) * sizeof(*r->inline_of));
	return 0;
}

/* Appends `count` fixed-size records of `elem` bytes to *arr (holding *n,
 * capacity *cap), checking the payload size first. */
static int append_records(struct parse *ps, void *arr, size_t *n, size_t *cap, size_t elem,
			  const unsigned char *p, size_t size, uint32_t count)
{
	void **parr = arr;

	if (size != (size_t)count * elem)
		return BAD(ps, "chunk size %zu does not match %u records (chunk at byte %zu)", size,
			   count, ps->off);
	if (!count)
		return 0;
	if (grow_array(parr, cap, *n + count, elem))
		return -ENOMEM;
	memcpy((char *)*parr + *n * elem, p, size);
	*n += count;
	return 0;
}

#define APPEND(ps, arr, n, cap, p, size, count)                                            \
	append_records(ps, &(arr), &(n), &(cap), sizeof(*(arr)), p, size, count)

/* REC_CHUNK_ARGS (lib/rec-args.h): every record's sample must exist
 * already and come after the previous record's; string arguments must name
 * defined strings. */
static int parse_args(struct parse *ps, const unsigned char *p, size_t size, uint32_t count)
{
	struct recording *r = ps->r;
	uint64_t sample;
	size_t pos = 4;
	uint32_t first, i;

	if (size < 4)
		return BAD(ps, "args chunk is cut short (chunk at byte %zu)", ps->off);
	memcpy(&first, p, 4);
	sample = first;
	if (count > (size - 4) / 3) /* a record takes 3 bytes at least */
		return BAD(ps, "args chunk is too small for %u records (chunk at byte %zu)", count,
			   ps->off);
	if (GROW(r->args, r->args_cap, r->nargs + count))
		return -ENOMEM;
	for (i = 0; i < count; i++) {
		int64_t vals[REC_ARGS_MAX];
		uint32_t delta, mask;
		unsigned n;
		struct rec_args_ref *a;

		if (rec_args_decode(p, size, &pos, &delta, &n, &mask, vals))
			return BAD(ps, "args record %u is malformed (chunk at byte %zu)", i, ps->off);
		sample += delta;
		if (sample >= r->nsamples ||
		    (r->nargs && sample <= r->args[r->nargs - 1].sample))
			return BAD(ps, "args record for an undefined or repeated sample (chunk at byte %zu)",
				   ps->off);
		for (unsigned k = 0; k < n; k++)
			if (((mask >> k) & 1) && (vals[k] < 0 || (uint64_t)vals[k] >= r->nstrs))
				return BAD(ps, "args record refers to an undefined string (chunk at byte %zu)",
					   ps->off);
		if (GROW(r->argvals, r->argvals_cap, r->nargvals + n ? r->nargvals + n : 1))
			return -ENOMEM;
		a = &r->args[r->nargs++];
		*a = (struct rec_args_ref){.sample = (uint32_t)sample, .first = (uint32_t)r->nargvals,
					   .strmask = (uint16_t)mask, .n = (uint8_t)n};
		memcpy(r->argvals + r->nargvals, vals, n * sizeof(*vals));
		r->nargvals += n;
	}
	if (pos != size)
		return BAD(ps, "args chunk has %zu stray bytes (chunk at byte %zu)", size - pos, ps->off);
	return 0;
}

const struct rec_args_ref *recording__args(const struct recording *r, size_t sample)
{
	size_t lo = 0, hi = r->nargs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->args[mid].sample < sample)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nargs && r->args[lo].sample == sample ? &r->args[lo] : NULL;
}

static int parse_chunk(struct parse *ps, const struct rec_chunk_header *h, const unsigned char *p)
{
	struct recording *r = ps->r;
	size_t size = h->size, i, first;
	int err = 0;

	switch (h->type) {
	case REC_CHUNK_META:
		return parse_meta(ps, p, size, h->count);
	case REC_CHUNK_STRINGS:
		return parse_strings(ps, p, size, h->count);
	case REC_CHUNK_EVENTS:
		if (r->nevents + h->count > 256)
			return BAD(ps, "more than 256 events (chunk at byte %zu)", ps->off);
		err = APPEND(ps, r->events, r->nevents, r->events_cap, p, size, h->count);
		if (err)
			return err;
		first = r->nevents - h->count;
		for (i = first; i < r->nevents; i++)
			if ((err = check_str(ps, r->events[i].name, "event")))
				return err;
		return 0;
	case REC_CHUNK_THREADS:
		err = APPEND(ps, r->threads, r->nthreads, r->threads_cap, p, size, h->count);
		if (err)
			return err;
		first = r->nthreads - h->count;
		for (i = first; i < r->nthreads; i++) {
			const struct rec_thread_event *t = &r->threads[i];

			if (t->kind < REC_THREAD_START || t->kind > REC_THREAD_FULLNAME)
				return BAD(ps, "thread event of unknown kind %u (chunk at byte %zu)",
					   t->kind, ps->off);
			if ((err = check_str(ps, t->name, "thread event")))
				return err;
		}
		return 0;
	case REC_CHUNK_MAPPINGS:
		err = APPEND(ps, r->mappings, r->nmappings, r->mappings_cap, p, size, h->count);
		if (err)
			return err;
		first = r->nmappings - h->count;
		for (i = first; i < r->nmappings; i++) {
			const struct rec_mapping *m = &r->mappings[i];

			if ((err = check_str(ps, m->path, "mapping")) ||
			    (err = check_str(ps, m->build_id, "mapping")))
				return err;
			if (m->end < m->start)
				return BAD(ps, "mapping ends before it starts (chunk at byte %zu)",
					   ps->off);
		}
		return 0;
	case REC_CHUNK_FRAMES:
		err = APPEND(ps, r->frames, r->nframes, r->frames_cap, p, size, h->count);
		if (err)
			return err;
		first = r->nframes - h->count;
		for (i = first; i < r->nframes; i++)
			if (r->frames[i].mapping != REC_NO_MAPPING &&
			    r->frames[i].mapping >= r->nmappings)
				return BAD(ps, "frame %zu refers to undefined mapping %u (chunk at byte %zu)",
					   i, r->frames[i].mapping, ps->off);
		return 0;
	case REC_CHUNK_STACKS:
		err = APPEND(ps, r->stacks, r->nstacks, r->stacks_cap, p, size, h->count);
		if (err)
			return err;
		first = r->nstacks - h->count;
		for (i = first; i < r->nstacks; i++)
			/* parent < own id: the tree is acyclic by construction. */
			if (r->stacks[i].parent >= i || r->stacks[i].frame >= r->nframes)
				return BAD(ps, "stack node %zu is malformed (chunk at byte %zu)", i,
					   ps->off);
		return 0;
	case REC_CHUNK_SAMPLES: {
		uint64_t base;

		if (size < 8 || size - 8 != (size_t)h->count * sizeof(struct rec_sample))
			return BAD(ps, "sample chunk size %zu does not match %u samples (chunk at byte %zu)",
				   size, h->count, ps->off);
		if (GROW(r->samples, r->samples_cap, r->nsamples + h->count))
			return -ENOMEM;
		memcpy(&base, p, 8);
		for (i = 0; i < h->count; i++) {
			struct rec_sample s;
			struct rec_sample_full *f = &r->samples[r->nsamples];

			memcpy(&s, p + 8 + i * sizeof(s), sizeof(s));
			if (s.stack >= r->nstacks || s.event >= (r->nevents ? r->nevents : 1))
				return BAD(ps, "sample refers to undefined stack or event (chunk at byte %zu)",
					   ps->off);
			f->time = base + s.dt;
			f->tid = s.tid;
			f->stack = s.stack;
			f->cpu = s.cpu;
			f->event = s.event;
			f->flags = s.flags;
			r->nsamples++;
		}
		return 0;
	}
	case REC_CHUNK_SCHED: {
		uint64_t base;

		if (size < 8 || size - 8 != (size_t)h->count * sizeof(struct rec_sched))
			return BAD(ps, "sched chunk size %zu does not match %u records (chunk at byte %zu)",
				   size, h->count, ps->off);
		if (GROW(r->sched, r->sched_cap, r->nsched + h->count))
			return -ENOMEM;
		memcpy(&base, p, 8);
		for (i = 0; i < h->count; i++) {
			struct rec_sched s;
			struct rec_sched_full *f = &r->sched[r->nsched];

			memcpy(&s, p + 8 + i * sizeof(s), sizeof(s));
			if (s.kind < REC_SCHED_OUT || s.kind > REC_SCHED_TASK ||
			    s.state >= REC_STATE_COUNT)
				return BAD(ps, "sched record of unknown kind or state (chunk at byte %zu)",
					   ps->off);
			if (s.kind == REC_SCHED_TASK && (err = check_str(ps, s.arg, "sched task")))
				return err;
			f->time = base + s.dt;
			f->tid = s.tid;
			f->arg = s.arg;
			f->cpu = s.cpu;
			f->kind = s.kind;
			f->state = s.state;
			r->nsched++;
		}
		return 0;
	}
	case REC_CHUNK_SYMBOLS:
		if (size != (size_t)h->count * sizeof(struct rec_symbol))
			return BAD(ps, "symbol chunk size does not match its count (chunk at byte %zu)",
				   ps->off);
		if (ensure_symbols(r))
			return -ENOMEM;
		for (i = 0; i < h->count; i++) {
			struct rec_symbol s;

			memcpy(&s, p + i * sizeof(s), sizeof(s));
			if (s.frame >= r->nframes)
				return BAD(ps, "symbol for undefined frame %u (chunk at byte %zu)",
					   s.frame, ps->off);
			if ((err = check_str(ps, s.name, "symbol")))
				return err;
			r->symbols[s.frame] = s;
		}
		return 0;
	case REC_CHUNK_INLINES:
		if (size != (size_t)h->count * sizeof(struct rec_inline))
			return BAD(ps, "inline chunk size does not match its count (chunk at byte %zu)",
				   ps->off);
		if (r->ninlines + h->count >= UINT32_MAX)
			return BAD(ps, "too many inline records (chunk at byte %zu)", ps->off);
		if (ensure_inline_of(r) || GROW(r->inlines, r->inlines_cap, r->ninlines + h->count))
			return -ENOMEM;
		for (i = 0; i < h->count; i++) {
			struct rec_inline in;
			struct rec_inline_span *span;

			memcpy(&in, p + i * sizeof(in), sizeof(in));
			if (in.frame >= r->nframes)
				return BAD(ps, "inline record for undefined frame %u (chunk at byte %zu)",
					   in.frame, ps->off);
			if ((err = check_str(ps, in.name, "inline function")) ||
			    (err = check_str(ps, in.file, "inline file")))
				return err;
			span = &r->inline_of[in.frame];
			/* A frame's records are consecutive; a later run replaces
			 * an earlier one. */
			if (i && r->inlines[r->ninlines - 1].frame == in.frame)
				span->count++;
			else
				*span = (struct rec_inline_span){(uint32_t)r->ninlines, 1};
			r->inlines[r->ninlines++] = in;
		}
		return 0;
	case REC_CHUNK_STATS:
		if (size != (size_t)h->count * sizeof(struct rec_stat))
			return BAD(ps, "stats chunk size does not match its count (chunk at byte %zu)",
				   ps->off);
		for (i = 0; i < h->count; i++) {
			struct rec_stat s;
			size_t j;

			memcpy(&s, p + i * sizeof(s), sizeof(s));
			if ((err = check_str(ps, s.key, "counter")))
				return err;
			for (j = 0; j < r->nstats && r->stats[j].key != s.key; j++)
				;
			if (j == r->nstats) {
				if (GROW(r->stats, r->stats_cap, r->nstats + 1))
					return -ENOMEM;
				r->nstats++;
			}
			r->stats[j].key = s.key;
			r->stats[j].value = s.value;
		}
		return 0;
	case REC_CHUNK_ARGS:
		return parse_args(ps, p, size, h->count);
	case REC_CHUNK_END:
		r->complete = 1;
		return 0;
	case REC_CHUNK_STOP: {
		uint32_t e;

		if (size != 4)
			return BAD(ps, "stop chunk of %zu bytes (chunk at byte %zu)", size, ps->off);
		memcpy(&e, p, 4);
		r->stop_errno = e && e < 4096 ? (int)e : EIO;
		return 0;
	}
	case REC_CHUNK_RAW:
		if (GROW(r->raw, r->raw_cap, r->nraw + 1))
			return -ENOMEM;
		r->raw[r->nraw].off = (size_t)(p - r->data);
		r->raw[r->nraw++].len = size;
		return 0;
	default:
		/* Unknown chunk types are skipped: newer writers may add some. */
		return 0;
	}
}

/* FULLNAME events sorted by (pid, tid, file order), for apply_full_names. */
static int fullname_cmp(const void *pa, const void *pb, void *arg)
{
	const struct rec_thread_event *t = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	if (t[a].pid != t[b].pid)
		return t[a].pid < t[b].pid ? -1 : 1;
	if (t[a].tid != t[b].tid)
		return t[a].tid < t[b].tid ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Is kernel name k the kernel's truncation of full name f? */
static int truncation_of(const struct recording *r, uint32_t k, uint32_t f)
{
	uint32_t kl = r->lens[k], fl = r->lens[f];

	if (kl == fl)
		return !memcmp(r->strbuf + (uintptr_t)r->strs[k], r->strbuf + (uintptr_t)r->strs[f],
			       kl);
	return kl == REC_KERNEL_NAME_MAX && fl > kl &&
	       !memcmp(r->strbuf + (uintptr_t)r->strs[k], r->strbuf + (uintptr_t)r->strs[f], kl);
}

/* START/NAME/EXIT events sorted by (pid, tid, time, file order). */
static int name_event_cmp(const void *pa, const void *pb, void *arg)
{
	const struct rec_thread_event *t = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	if (t[a].pid == t[b].pid && t[a].tid == t[b].tid && t[a].time != t[b].time)
		return t[a].time < t[b].time ? -1 : 1;
	return fullname_cmp(pa, pb, arg);
}

/* A full name names the thread as it was when it was taken (the JVM's
 * thread list at the end of a recording): when the kernel's name then was
 * the one the thread had when first seen (a START, not renamed since as
 * far as the kernel reported), the full name replaces it even if it is
 * not its truncation: the java launcher's "java" for the thread Java calls
 * "main", or a name another thread gave it (Thread.setName from another
 * thread does not reach the kernel). A name the kernel reported as a
 * rename (NAME) keeps the truncation rule. Sets over[i] for such START
 * events. */
static int full_names_override(struct recording *r, const uint32_t *full, size_t nfull,
			       uint32_t *over)
{
	uint32_t *ev;
	size_t nev = 0, i;

	for (i = 0; i < r->nthreads; i++)
		nev += r->threads[i].kind >= REC_THREAD_START && r->threads[i].kind <= REC_THREAD_EXIT;
	ev = malloc((nev ? nev : 1) * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	for (i = 0, nev = 0; i < r->nthreads; i++)
		if (r->threads[i].kind >= REC_THREAD_START && r->threads[i].kind <= REC_THREAD_EXIT)
			ev[nev++] = (uint32_t)i;
	qsort_r(ev, nev, sizeof(*ev), name_event_cmp, r->threads);
	for (i = 0; i < nfull; i++) {
		const struct rec_thread_event *f = &r->threads[full[i]];
		size_t lo = 0, hi = nev;

		/* The first event of the thread after f's time; the one before
		 * it, if the thread's, was its name then. */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const struct rec_thread_event *e = &r->threads[ev[mid]];

			if (e->pid < f->pid || (e->pid == f->pid && (e->tid < f->tid ||
			    (e->tid == f->tid && e->time <= f->time))))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo) {
			const struct rec_thread_event *e = &r->threads[ev[lo - 1]];

			if (e->pid == f->pid && e->tid == f->tid && e->kind == REC_THREAD_START &&
			    e->name)
				over[ev[lo - 1]] = f->name;
		}
	}
	free(ev);
	return 0;
}

/* Gives START/NAME events the full name of their thread (recfile.h,
 * REC_THREAD_FULLNAME), so every reader shows full names: a kernel name
 * that is the full name's truncation, and the first name of a thread the
 * kernel saw no rename of (full_names_override). Runs before the string
 * pointers are fixed up: compares through strbuf offsets. O((n + f) log n)
 * for n thread events and f full names. */
static int apply_full_names(struct recording *r)
{
	uint32_t *full = NULL, *over;
	size_t nfull = 0, i;
	int err;

	for (i = 0; i < r->nthreads; i++)
		nfull += r->threads[i].kind == REC_THREAD_FULLNAME;
	if (!nfull)
		return 0;
	full = malloc(nfull * sizeof(*full));
	over = calloc(r->nthreads, sizeof(*over));
	if (!full || !over) {
		free(full);
		free(over);
		return -ENOMEM;
	}
	for (i = 0, nfull = 0; i < r->nthreads; i++)
		if (r->threads[i].kind == REC_THREAD_FULLNAME && r->threads[i].name)
			full[nfull++] = (uint32_t)i;
	qsort_r(full, nfull, sizeof(*full), fullname_cmp, r->threads);
	err = full_names_override(r, full, nfull, over);
	for (i = 0; !err && i < r->nthreads; i++) {
		struct rec_thread_event *t = &r->threads[i];
		size_t lo = 0, hi = nfull, j;
		uint32_t kernel_name = t->name;

		if ((t->kind != REC_THREAD_START && t->kind != REC_THREAD_NAME) || !t->name)
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const struct rec_thread_event *f = &r->threads[full[mid]];

			if (f->pid < t->pid || (f->pid == t->pid && f->tid < t->tid))
				lo = mid + 1;
			else
				hi = mid;
		}
		/* The last full name (in file order) that fits wins. */
		for (j = lo; j < nfull && r->threads[full[j]].pid == t->pid &&
			     r->threads[full[j]].tid == t->tid; j++)
			if (truncation_of(r, kernel_name, r->threads[full[j]].name))
				t->name = r->threads[full[j]].name;
		if (over[i])
			t->name = over[i];
	}
	free(full);
	free(over);
	return err;
}

/* Does a chunk start somewhere after the header at `off`, whose size runs
 * past the end of the file? Then that size field is corrupt: a file cut
 * short (a recorder killed, a full disk) ends inside its last chunk. An END
 * chunk that ends the file counts, or any nonempty chunk of a known type
 * whose checksum matches (a CRC-32 matching by chance: 1 in 2^32). The
 * scan reads each later offset once and checksums SCAN_CRC_BYTES at most. */
static int chunks_follow(const unsigned char *data, size_t size, size_t off)
{
	static const struct rec_chunk_header end = {REC_CHUNK_END, 0, 0, 0};
	struct rec_chunk_header h;
	size_t pos, budget = SCAN_CRC_BYTES;

	if (size - off >= 2 * sizeof(h) && !memcmp(data + size - sizeof(end), &end, sizeof(end)))
		return 1;
	for (pos = off + sizeof(h); size - pos >= sizeof(h) && pos < size; pos++) {
		memcpy(&h, data + pos, sizeof(h));
		if (h.type < REC_CHUNK_META || h.type > REC_CHUNK_STOP || !h.size ||
		    h.size > size - pos - sizeof(h))
			continue;
		if (h.size > budget)
			return 0;
		budget -= h.size;
		if ((uint32_t)crc32(crc32(0L, Z_NULL, 0), data + pos + sizeof(h), h.size) == h.crc)
			return 1;
	}
	return 0;
}

/* Chunk types whose records add up or take the next ids: a second copy of
 * such a chunk would count its records twice (or shift every later id).
 * A writer never writes one twice: each holds records the file did not
 * have yet (new strings, frames and stacks; samples, switches and thread
 * events with their times). META, SYMBOLS, INLINES and STATS may repeat:
 * the last one wins. */
static int adds_up(uint32_t type)
{
	switch (type) {
	case REC_CHUNK_STRINGS:
	case REC_CHUNK_THREADS:
	case REC_CHUNK_MAPPINGS:
	case REC_CHUNK_FRAMES:
	case REC_CHUNK_STACKS:
	case REC_CHUNK_SAMPLES:
	case REC_CHUNK_EVENTS:
	case REC_CHUNK_SCHED:
	case REC_CHUNK_ARGS:
	case REC_CHUNK_RAW:
		return 1;
	default:
		return 0;
	}
}

/* The chunks of adds_up() types seen, by (type, crc, size, count). */
struct seen_chunks {
	struct keymap map;
	size_t *off;
	size_t n, cap;
};

/* 1 if the chunk at `off` is a byte-for-byte copy of one seen before (*of:
 * that one's offset), else 0 (and it is remembered), or -ENOMEM. One
 * memcmp at most per chunk: chunks that only share a checksum are kept. */
static int duplicate_chunk(struct seen_chunks *s, const unsigned char *data, size_t off,
			   const struct rec_chunk_header *h, size_t *of)
{
	uint64_t a = (uint64_t)h->type << 32 | h->crc, b = (uint64_t)h->size << 32 | h->count;
	uint32_t v;

	if (!adds_up(h->type) || !h->size)
		return 0;
	if (keymap__get(&s->map, a, b, &v)) {
		if (memcmp(data + s->off[v] + sizeof(*h), data + off + sizeof(*h), h->size))
			return 0;
		*of = s->off[v];
		return 1;
	}
	if (s->n >= UINT32_MAX || GROW(s->off, s->cap, s->n + 1) ||
	    keymap__put(&s->map, a, b, (uint32_t)s->n, NULL) < 0)
		return -ENOMEM;
	s->off[s->n++] = off;
	return 0;
}

int recording__parse(struct recording *r, unsigned char *data, size_t size, char *errbuf,
		     size_t errlen)
{
	struct parse ps = {.r = r, .errbuf = errbuf, .errlen = errlen};
	struct seen_chunks seen = {0};
	struct rec_file_header fh;
	size_t off, of, i;
	int err = 0;

	memset(r, 0, sizeof(*r));
	r->data = data;
	r->size = size;
	if (!recording_is_recording(data, size))
		return fail(errbuf, errlen, "not a prof recording (bad magic)");
	if (size < sizeof(fh))
		return fail(errbuf, errlen, "file header is cut short (%zu bytes)", size);
	memcpy(&fh, data, sizeof(fh));
	if (fh.version != REC_VERSION)
		return fail(errbuf, errlen, "recording format version %u is not supported (this prof reads %u)",
			    fh.version, REC_VERSION);
	if (fh.header_size < sizeof(fh) || fh.header_size > size)
		return fail(errbuf, errlen, "file header size %u is invalid", fh.header_size);
	if ((err = add_string(r, (const unsigned char *)"", 0)))
		return err;
	if (GROW(r->stacks, r->stacks_cap, 1))
		return -ENOMEM;
	r->stacks[0] = (struct rec_stack_node){0, 0};
	r->nstacks = 1;

	off = fh.header_size;
	while (off < size && !r->complete) {
		struct rec_chunk_header h;
		const unsigned char *payload;

		if (size - off < sizeof(h)) {
			r->cut_at = off;
			break;
		}
		memcpy(&h, data + off, sizeof(h));
		if (h.size > size - off - sizeof(h)) {
			if (chunks_follow(data, size, off)) {
				err = fail(errbuf, errlen,
					   "corrupt chunk at byte %zu (its size, %u bytes, runs past the "
					   "end of the file, and chunks follow it)",
					   off, h.size);
				break;
			}
			r->cut_at = off; /* last chunk was cut short: stop here */
			break;
		}
		payload = data + off + sizeof(h);
		ps.off = off;
		if ((uint32_t)crc32(crc32(0L, Z_NULL, 0), payload, h.size) != h.crc) {
			err = fail(errbuf, errlen, "corrupt chunk at byte %zu (checksum mismatch)", off);
			break;
		}
		err = duplicate_chunk(&seen, data, off, &h, &of);
		if (err > 0) {
			if (!r->duplicates++) {
				r->duplicate_at = off;
				r->duplicate_of = of;
			}
			err = 0;
		} else if (!err) {
			err = parse_chunk(&ps, &h, payload);
		}
		if (err)
			break;
		off += sizeof(h) + h.size;
	}
	keymap__release(&seen.map);
	free(seen.off);
	if (!r->complete && !r->cut_at)
		r->cut_at = off;
	if (!err)
		err = apply_full_names(r);
	/* Fix up string pointers now that strbuf no longer moves. */
	for (i = 0; i < r->nstrs; i++)
		r->strs[i] = r->strbuf + (uintptr_t)r->strs[i];
	for (i = 0; i < r->nmeta; i++) {
		r->meta[i].key = r->strbuf + (uintptr_t)r->meta[i].key;
		r->meta[i].value = r->strbuf + (uintptr_t)r->meta[i].value;
	}
	if (!err && (ensure_symbols(r) || ensure_inline_of(r)))
		err = -ENOMEM;
	return err;
}

void recording__release(struct recording *r)
{
	free(r->data);
	free(r->strs);
	free(r->lens);
	free(r->strbuf);
	free(r->meta);
	free(r->events);
	free(r->threads);
	free(r->mappings);
	free(r->frames);
	free(r->stacks);
	free(r->samples);
	free(r->sched);
	free(r->symbols);
	free(r->inlines);
	free(r->inline_of);
	free(r->stats);
	free(r->args);
	free(r->argvals);
	free(r->raw);
	memset(r, 0, sizeof(*r));
}

int read_whole_file(const char *path, unsigned char **data, size_t *size)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0, want = 65536;
	struct stat st;

	if (fd < 0)
		return -errno;
	if (!fstat(fd, &st) && S_ISDIR(st.st_mode)) {
		close(fd);
		return -EISDIR;
	}
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0)
		want = (size_t)st.st_size + 1; /* one read, then EOF */
	for (;;) {
		ssize_t n;

		if (GROW(buf, cap, len + want)) {
			free(buf);
			if (fd)
				close(fd);
			return -ENOMEM;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			free(buf);
			if (fd)
				close(fd);
			return err;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		want = 65536;
	}
	if (fd)
		close(fd);
	*data = buf;
	*size = len;
	return 0;
}
