/* format-pprof.c: the profile as pprof's profile.proto, gzipped (formats.h).
 *
 * The protobuf encoding is small and done here: varints, length-delimited
 * fields, nested messages encoded into a scratch buffer first (they are at
 * most two deep and small). The message is built in memory, then deflated
 * with zlib's gzip wrapper.
 *
 * From a recording (profile.origin set), a Location is a recorded frame:
 * its address, its mapping (with build-id), and one Line per function of its
 * inline chain, innermost first, as pprof expects; the function names are
 * the ones `prof report` shows, less the "_[i]" suffix (pprof marks inlined
 * lines itself). From folded or perf script text, a Location is a frame
 * name. Marker frames ([truncated], off-CPU states) are Locations without
 * an address. Samples carry the labels "thread" and "thread_id" (and "pid"). */
#include "report/formats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "lib/grow.h"
#include "lib/keymap.h"
#include "lib/strtab.h"
#include "lib/path-buf.h"

#define MAX_INLINE_FRAMES 64 /* as builder.c: names shown per address */

/* ---- protobuf encoding ---- */

struct pb {
	uint8_t *buf;
	size_t len, cap;
	int err;
};

static void pb_raw(struct pb *b, const void *p, size_t n)
{
	if (b->err || GROW(b->buf, b->cap, b->len + n)) {
		b->err = -ENOMEM;
		return;
	}
	memcpy(b->buf + b->len, p, n);
	b->len += n;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	pb_raw(b, tmp, n);
}

/* A varint field; proto3 leaves zero values out. */
static void pb_uint(struct pb *b, unsigned field, uint64_t v)
{
	if (!v)
		return;
	pb_varint(b, (uint64_t)field << 3);
	pb_varint(b, v);
}

static void pb_bytes(struct pb *b, unsigned field, const void *p, size_t n)
{
	pb_varint(b, (uint64_t)field << 3 | 2);
	pb_varint(b, n);
	pb_raw(b, p, n);
}

/* Moves `sub` into `b` as field `field` and empties it. */
static void pb_sub(struct pb *b, unsigned field, struct pb *sub)
{
	if (sub->err)
		b->err = sub->err;
	pb_bytes(b, field, sub->buf, sub->len);
	sub->len = 0;
}

/* ---- the writer's state ---- */

/* Profile message fields. */
enum {
	F_SAMPLE_TYPE = 1, F_SAMPLE, F_MAPPING, F_LOCATION, F_FUNCTION, F_STRING_TABLE,
	F_TIME_NANOS = 9, F_DURATION_NANOS, F_PERIOD_TYPE, F_PERIOD,
	F_DEFAULT_SAMPLE_TYPE = 14,
};

struct pprof {
	const struct profile *p;
	const struct recording *r;
	struct strtab strs; /* the string table: ids are pprof's indexes ("" is 0) */
	struct pb out, msg, sub, ids, fn; /* fn: a Function, made while a Location is */
	struct keymap funcs; /* (name, file) -> function id */
	uint32_t nfuncs;
	uint32_t nlocs;
	uint32_t *loc_of_frame; /* recording frame -> location id, 0: none yet */
	uint32_t *loc_of_name;  /* profile name -> location id (frames without address) */
	uint8_t *mapping_used;  /* recording mapping -> emitted */
	uint64_t *locs;		/* one sample's location ids, leaf first */
	size_t locs_cap;
};

static int str_id(struct pprof *w, const char *s, size_t n, uint64_t *id)
{
	uint32_t v;
	int err = strtab__intern(&w->strs, s, n, &v);

	*id = v;
	return err;
}

static int cstr_id(struct pprof *w, const char *s, uint64_t *id)
{
	return str_id(w, s, strlen(s), id);
}

static int function_id(struct pprof *w, const char *name, size_t n, const char *file,
		       uint64_t *id)
{
	uint64_t name_id, file_id;
	uint32_t v;
	int r;

	if (str_id(w, name, n, &name_id) || cstr_id(w, file ? file : "", &file_id))
		return -ENOMEM;
	r = keymap__put(&w->funcs, name_id, file_id, w->nfuncs + 1, &v);
	if (r < 0)
		return r;
	if (!r) {
		*id = v;
		return 0;
	}
	*id = ++w->nfuncs;
	pb_uint(&w->fn, 1, *id);
	pb_uint(&w->fn, 2, name_id);
	pb_uint(&w->fn, 3, name_id);
	pb_uint(&w->fn, 4, file_id);
	pb_sub(&w->out, F_FUNCTION, &w->fn);
	return w->out.err;
}

/* Adds one Line (function `name`, file, line) to the Location in w->msg;
 * an inlined function (a Line of a recorded frame) without its "_[i]". */
static int add_line(struct pprof *w, const char *name, const char *file, uint32_t line,
		    int inlined)
{
	size_t n = strlen(name);
	uint64_t fid;

	if (inlined && n > 4 && !memcmp(name + n - 4, "_[i]", 4))
		n -= 4;
	if (function_id(w, name, n, file, &fid))
		return -ENOMEM;
	pb_uint(&w->sub, 1, fid);
	pb_uint(&w->sub, 2, line);
	pb_sub(&w->msg, 4, &w->sub);
	return w->msg.err;
}

/* A Location of name `id` alone: no address, no mapping. */
static int name_location(struct pprof *w, uint32_t id, uint64_t *loc)
{
	if (w->loc_of_name[id]) {
		*loc = w->loc_of_name[id];
		return 0;
	}
	w->loc_of_name[id] = ++w->nlocs;
	pb_uint(&w->msg, 1, w->nlocs);
	if (add_line(w, profile__name(w->p, id), NULL, 0, 0))
		return -ENOMEM;
	pb_sub(&w->out, F_LOCATION, &w->msg);
	*loc = w->nlocs;
	return w->out.err;
}

static int emit_mapping(struct pprof *w, uint32_t m)
{
	const struct recording *r = w->r;
	const struct rec_mapping *mp = &r->mappings[m];
	uint64_t path, build_id;

	if (w->mapping_used[m])
		return 0;
	w->mapping_used[m] = 1;
	const char *bid = mp->build_id ? recording__str(r, mp->build_id) : NULL;
	char key[PATH_BUF];

	if (!bid || !*bid) {
		/* The symbolizer's META "build-id:PATH" entries. */
		snprintf(key, sizeof(key), "build-id:%s", recording__str(r, mp->path));
		bid = recording__meta(r, key);
	}
	if (cstr_id(w, recording__str(r, mp->path), &path) || cstr_id(w, bid ? bid : "", &build_id))
		return -ENOMEM;
	pb_uint(&w->sub, 1, (uint64_t)m + 1);
	pb_uint(&w->sub, 2, mp->start);
	pb_uint(&w->sub, 3, mp->end);
	pb_uint(&w->sub, 4, mp->pgoff);
	pb_uint(&w->sub, 5, path);
	pb_uint(&w->sub, 6, build_id);
	pb_uint(&w->sub, 7, 1); /* names are in the file: pprof must not symbolize */
	pb_uint(&w->sub, 8, r->ninlines ? 1 : 0);
	pb_uint(&w->sub, 9, r->ninlines ? 1 : 0);
	pb_uint(&w->sub, 10, r->ninlines ? 1 : 0);
	pb_sub(&w->out, F_MAPPING, &w->sub);
	return w->out.err;
}

/* How many names builder.c shows for frame f. */
static uint32_t names_of_frame(const struct recording *r, uint32_t f)
{
	uint32_t k = f < r->inline_of_cap ? r->inline_of[f].count : 0;

	return k > MAX_INLINE_FRAMES ? MAX_INLINE_FRAMES : k ? k : 1;
}

/* The Location of recording frame f, whose names are names[0 .. n), root
 * (the function) first. */
static int frame_location(struct pprof *w, uint32_t f, const uint32_t *names, uint32_t n,
			  uint64_t *loc)
{
	const struct recording *r = w->r;
	const struct rec_frame *fr = &r->frames[f];
	const struct rec_inline_span *sp = f < r->inline_of_cap ? &r->inline_of[f] : NULL;
	uint32_t j;

	if (w->loc_of_frame[f]) {
		*loc = w->loc_of_frame[f];
		return 0;
	}
	if (fr->mapping != REC_NO_MAPPING && fr->mapping < r->nmappings &&
	    emit_mapping(w, fr->mapping))
		return -ENOMEM;
	w->loc_of_frame[f] = ++w->nlocs;
	pb_uint(&w->msg, 1, w->nlocs);
	if (fr->mapping != REC_NO_MAPPING && fr->mapping < r->nmappings)
		pb_uint(&w->msg, 2, (uint64_t)fr->mapping + 1);
	pb_uint(&w->msg, 3, fr->addr);
	/* Innermost first: names[n - 1] is the innermost inlined function,
	 * inline record 0. */
	for (j = 0; j < n; j++) {
		const struct rec_inline *in =
			sp && j < sp->count ? &r->inlines[sp->first + j] : NULL;

		if (add_line(w, profile__name(w->p, names[n - 1 - j]),
			     in && in->file ? recording__str(r, in->file) : NULL, in ? in->line : 0,
			     j + 1 < n))
			return -ENOMEM;
	}
	pb_sub(&w->out, F_LOCATION, &w->msg);
	*loc = w->nlocs;
	return w->out.err;
}

static int push_loc(struct pprof *w, size_t *n, uint64_t loc)
{
	if (GROW(w->locs, w->locs_cap, *n + 1))
		return -ENOMEM;
	w->locs[(*n)++] = loc;
	return 0;
}

/* The location ids of profile stack `s`, leaf first, into w->locs. */
static int stack_locations(struct pprof *w, uint32_t s, size_t *nlocs)
{
	const struct profile *p = w->p;
	const uint32_t *names = profile__stack_frames(p, s);
	uint32_t depth = p->stacks[s].depth, lo = 0, hi = depth, expect = 0, node;
	uint64_t stack2 = p->origin && w->r ? p->origin[s] : 0, loc;
	int err = 0;

	*nlocs = 0;
	if (stack2) {
		const struct recording *r = w->r;

		stack2--;
		if (stack2 & 1)
			lo = 1; /* [truncated] root */
		for (node = (uint32_t)(stack2 >> 1); node; node = r->stacks[node].parent)
			expect += names_of_frame(r, r->stacks[node].frame);
		if (!expect || expect > hi - lo) {
			stack2 = 0; /* [no-stack], or not what was rendered: names only */
			lo = 0;
		} else {
			/* An added leaf (off-CPU state) after the frames. */
			for (; hi > lo + expect && !err; hi--)
				if (!(err = name_location(w, names[hi - 1], &loc)))
					err = push_loc(w, nlocs, loc);
			for (node = (uint32_t)(stack2 >> 1); node && !err;
			     node = r->stacks[node].parent) {
				uint32_t f = r->stacks[node].frame, k = names_of_frame(r, f);

				hi -= k;
				err = frame_location(w, f, names + hi, k, &loc);
				if (!err)
					err = push_loc(w, nlocs, loc);
			}
		}
	}
	for (; hi > lo && !stack2 && !err; hi--)
		if (!(err = name_location(w, names[hi - 1], &loc)))
			err = push_loc(w, nlocs, loc);
	if (lo && !err && !(err = name_location(w, names[0], &loc)))
		err = push_loc(w, nlocs, loc);
	return err;
}

static void value_type(struct pprof *w, unsigned field, uint64_t type, uint64_t unit)
{
	pb_uint(&w->sub, 1, type);
	pb_uint(&w->sub, 2, unit);
	pb_sub(&w->out, field, &w->sub);
}

/* Nanoseconds per CPU sample of the recording's first CPU event, 0 if
 * unknown. */
static uint64_t cpu_period_ns(const struct recording *r)
{
	const char *f = r ? recording__meta(r, "frequency") : NULL;
	size_t ev;

	for (ev = 0; r && ev < r->nevents; ev++) {
		const struct rec_event_desc *d = &r->events[ev];

		if (!recording__event_is_cpu(r, (unsigned)ev))
			continue;
		if (d->freq)
			return (1000000000ull + d->freq / 2) / d->freq;
		if (d->period && d->type == 1 /* PERF_TYPE_SOFTWARE */ && d->config <= 1)
			return d->period; /* cpu-clock, task-clock: ns */
		break;
	}
	if (f && strtoull(f, NULL, 10))
		return (1000000000ull + strtoull(f, NULL, 10) / 2) / strtoull(f, NULL, 10);
	return 0;
}

static int64_t start_time_ns(const struct recording *r)
{
	const char *s = r ? recording__meta(r, "start-time") : NULL;
	struct tm tm;
	const char *end;

	memset(&tm, 0, sizeof(tm));
	if (!s || !(end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)))
		return 0;
	return (int64_t)timegm(&tm) * 1000000000;
}

/* The unit of the first value: pprof's values are int64, so fractional
 * counts (folded input, report.h) are written as the model keeps them,
 * scaled integers, with a unit that says by how much: 0.5 samples are 5
 * "tenths". Shares and pprof's percentages are the same either way. */
static const char *count_unit(unsigned decimals)
{
	static const char *const units[PROFILE_MAX_DECIMALS + 1] = {
		"count", "tenths", "hundredths", "thousandths",
		"ten-thousandths", "hundred-thousandths", "millionths",
	};

	return units[decimals <= PROFILE_MAX_DECIMALS ? decimals : 0];
}

/* Sample types, period and times. *scale: what one count is worth in the
 * second value (0: no second value). */
static int header(struct pprof *w, const struct pprof_opts *o, uint64_t *scale)
{
	uint64_t t1 = 0, u1 = 0, t2 = 0, u2 = 0, ns = 0;
	int err = 0;

	*scale = 0;
	if (w->p->alloc_objects) {
		/* Allocation recordings: both values, named as Go's heap
		 * profiles name them, bytes shown by default. */
		err = cstr_id(w, "alloc_objects", &t1);
		err = err ? err : cstr_id(w, "count", &u1);
		err = err ? err : cstr_id(w, "alloc_space", &t2);
		err = err ? err : cstr_id(w, "bytes", &u2);
		if (err)
			return err;
		value_type(w, F_SAMPLE_TYPE, t1, u1);
		value_type(w, F_SAMPLE_TYPE, t2, u2);
		pb_uint(&w->out, F_DEFAULT_SAMPLE_TYPE, t2);
		return w->out.err;
	}
	switch (o->weight) {
	case PROFILE_WEIGHT_OFF_CPU:
	case PROFILE_WEIGHT_WALL:
		err = cstr_id(w, o->weight == PROFILE_WEIGHT_WALL ? "wall" : "off-cpu", &t1);
		err = err ? err : cstr_id(w, "nanoseconds", &u1);
		*scale = 1000; /* microseconds in the model */
		break;
	default:
		err = cstr_id(w, o->period ? "period" : "samples", &t1);
		err = err ? err : cstr_id(w, count_unit(w->p->count_decimals), &u1);
		ns = cpu_period_ns(w->r);
		if (!err && ns) {
			err = cstr_id(w, "cpu", &t2);
			err = err ? err : cstr_id(w, "nanoseconds", &u2);
			*scale = ns;
		}
	}
	if (err)
		return err;
	if (o->weight != PROFILE_WEIGHT_CPU) {
		value_type(w, F_SAMPLE_TYPE, t1, u1);
		value_type(w, F_PERIOD_TYPE, t1, u1);
		pb_uint(&w->out, F_PERIOD, 1000);
		*scale = 1000;
		return w->out.err;
	}
	value_type(w, F_SAMPLE_TYPE, t1, u1);
	if (ns) {
		value_type(w, F_SAMPLE_TYPE, t2, u2);
		value_type(w, F_PERIOD_TYPE, t2, u2);
		pb_uint(&w->out, F_PERIOD, ns);
	}
	if (w->r) {
		pb_uint(&w->out, F_TIME_NANOS, (uint64_t)start_time_ns(w->r));
		pb_uint(&w->out, F_DURATION_NANOS, recording__stat(w->r, "duration-ns"));
	}
	return w->out.err;
}

static int label(struct pprof *w, const char *key, uint32_t str, const char *s, uint64_t num)
{
	uint64_t k, v = 0;

	if (cstr_id(w, key, &k) || (s && str_id(w, s, str, &v)))
		return -ENOMEM;
	pb_uint(&w->sub, 1, k);
	pb_uint(&w->sub, 2, v);
	pb_uint(&w->sub, 3, num);
	pb_sub(&w->msg, 3, &w->sub);
	return w->msg.err;
}

static uint64_t sat_mul(uint64_t a, uint64_t b);

/* Entry `ei` of the profile as a Sample. */
static int sample(struct pprof *w, size_t ei, uint64_t scale, int single)
{
	const struct profile *p = w->p;
	const struct profile_entry *e = &p->entries[ei];
	size_t n, i;
	int err = stack_locations(w, e->stack, &n);

	if (err)
		return err;
	for (i = 0; i < n; i++)
		pb_varint(&w->ids, w->locs[i]);
	pb_sub(&w->msg, 1, &w->ids);
	if (p->alloc_objects) {
		pb_varint(&w->ids, p->alloc_objects[ei]);
		pb_varint(&w->ids, p->alloc_bytes[ei]);
	} else if (single) {
		pb_varint(&w->ids, sat_mul(e->count, scale)); /* one value, in ns */
	} else {
		pb_varint(&w->ids, e->count);
		if (scale)
			pb_varint(&w->ids, sat_mul(e->count, scale));
	}
	pb_sub(&w->msg, 2, &w->ids);
	if (p->has_threads && e->thread) {
		err = label(w, "thread", strtab__len(&p->names, e->thread),
			    profile__name(p, e->thread), 0);
		if (!err && e->tid)
			err = label(w, "thread_id", 0, NULL, e->tid);
		if (!err && e->pid)
			err = label(w, "pid", 0, NULL, e->pid);
		if (err)
			return err;
	}
	pb_sub(&w->out, F_SAMPLE, &w->msg);
	return w->out.err;
}

static int gzip_out(const struct pb *b, FILE *out)
{
	z_stream z;
	unsigned char buf[1 << 16];
	int zr, err = 0;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -ENOMEM;
	z.next_in = b->buf;
	z.avail_in = (uInt)b->len; /* the message stays well below 4 GB */
	do {
		size_t have;

		z.next_out = buf;
		z.avail_out = sizeof(buf);
		zr = deflate(&z, Z_FINISH);
		have = sizeof(buf) - z.avail_out;
		errno = 0;
		if (have && fwrite(buf, 1, have, out) != have) {
			err = errno ? -errno : -EIO;
			break;
		}
	} while (zr == Z_OK);
	if (!err && zr != Z_STREAM_END)
		err = -EIO;
	deflateEnd(&z);
	errno = 0;
	if (!err && fflush(out))
		err = errno ? -errno : -EIO;
	return err;
}

static int writer_init(struct pprof *w)
{
	const struct recording *r = w->r;

	if (strtab__init(&w->strs) || keymap__init(&w->funcs, 256))
		return -ENOMEM;
	w->loc_of_name = calloc(w->p->names.count + 1, sizeof(*w->loc_of_name));
	w->loc_of_frame = calloc(r ? r->nframes + 1 : 1, sizeof(*w->loc_of_frame));
	w->mapping_used = calloc(r ? r->nmappings + 1 : 1, 1);
	return w->loc_of_name && w->loc_of_frame && w->mapping_used ? 0 : -ENOMEM;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

int profile__write_pprof(const struct profile *p, const struct recording *r,
			 const struct pprof_opts *o, FILE *out)
{
	static const struct pprof_opts defaults;
	struct pprof w = {.p = p, .r = p->origin ? r : NULL};
	uint64_t scale;
	size_t i;
	int err = -ENOMEM;

	if (!o)
		o = &defaults;
	if (writer_init(&w))
		goto out;
	err = header(&w, o, &scale);
	for (i = 0; i < p->nentries && !err; i++)
		if (p->entries[i].count || (p->alloc_objects && p->alloc_objects[i]))
			err = sample(&w, i, scale, o->weight != PROFILE_WEIGHT_CPU);
	/* The string table goes last: every string is interned by now. */
	for (i = 0; i < w.strs.count && !err; i++)
		pb_bytes(&w.out, F_STRING_TABLE, strtab__str(&w.strs, (uint32_t)i),
			 strtab__len(&w.strs, (uint32_t)i));
	if (!err)
		err = w.out.err;
	if (!err)
		err = gzip_out(&w.out, out);
out:
	strtab__release(&w.strs);
	keymap__release(&w.funcs);
	free(w.out.buf);
	free(w.msg.buf);
	free(w.sub.buf);
	free(w.ids.buf);
	free(w.fn.buf);
	free(w.loc_of_frame);
	free(w.loc_of_name);
	free(w.mapping_used);
	free(w.locs);
	return err;
}
