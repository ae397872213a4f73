/* rec-writer.c: the recording file writer (see rec-writer.h). */
#include "rec-writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "grow.h"
#include "keymap.h"
#include "out-file.h"
#include "rec-args.h"
#include "strtab.h"

struct buf {
	unsigned char *data;
	size_t len, cap;
	uint32_t count;
};

struct rec_writer {
	int fd;                /* where writes go: out's, or next's while rewriting */
	int err;
	struct out_file out;   /* the file (lib/out-file.h) */
	struct out_file next;  /* the copy a rewrite makes (can_rewrite reserves it) */
	int old_fd;            /* rewriting: the original, for raw_read */
	struct raw_range {
		uint64_t off;  /* of the chunk header */
		uint32_t len;  /* payload bytes */
	} *raw;
	size_t nraw, raw_cap;
	uint64_t size;
	int stopped;            /* a write failed: the file ends in STOP */
	struct strtab strings;
	uint32_t strings_flushed;
	struct keymap frame_ids, stack_ids;
	struct rec_frame *frames; /* all frames, for the symbolizer */
	size_t nframes, frames_cap, frames_flushed;
	struct rec_mapping *mappings;
	size_t nmappings, mappings_cap, mappings_flushed;
	uint32_t nstacks; /* next stack node id */
	uint32_t nevents;
	struct buf meta, events, threads, stacks, samples, symbols, stats, sched, inlines;
	uint64_t sample_base, sched_base;
	struct buf args;        /* REC_CHUNK_ARGS being built */
	uint64_t nsamples;      /* samples appended, all chunks */
	uint64_t args_last;     /* sample of the last args record */
	int args_any;           /* an args record was written (args_last valid) */
	int hold;               /* rec_writer__hold: flushes write nothing */
};

/* Samples may arrive up to this long before the first one of their chunk
 * (rings of different CPUs are drained one after the other). */
#define SAMPLE_SLACK_NS 1000000000ULL

static int buf_add(struct buf *b, const void *p, size_t len)
{
	if (GROW(b->data, b->cap, b->len + len))
		return -ENOMEM;
	memcpy(b->data + b->len, p, len);
	b->len += len;
	return 0;
}

struct rec_writer *rec_writer__open(const char *path)
{
	struct rec_writer *w = rec_writer__create(path, 0600);
	int err;

	if (w && (err = rec_writer__commit(w))) {
		rec_writer__discard(w);
		errno = -err;
		return NULL;
	}
	return w;
}

/* The file header at the start of w->fd: 0 or a positive errno. */
static int write_header(struct rec_writer *w)
{
	struct rec_file_header h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, REC_MAGIC, REC_MAGIC_LEN);
	h.version = REC_VERSION;
	h.header_size = sizeof(h);
	if (write(w->fd, &h, sizeof(h)) != (ssize_t)sizeof(h))
		return errno ? errno : EIO;
	w->size = sizeof(h);
	return 0;
}

struct rec_writer *rec_writer__create(const char *path, mode_t mode)
{
	struct rec_writer *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return NULL;
	w->fd = -1;
	w->old_fd = -1;
	w->out.fd = w->out.dirfd = -1;
	w->next.fd = w->next.dirfd = -1;
	if (strtab__init(&w->strings) || keymap__init(&w->frame_ids, 4096) ||
	    keymap__init(&w->stack_ids, 16384)) {
		err = ENOMEM;
		goto fail;
	}
	w->strings_flushed = 1; /* "" is implicit in every reader */
	w->nstacks = 1;
	/* A new file, 0600 (a recording may hold raw stack bytes), named
	 * `path` at commit (a new file is read-write: a deferred recording
	 * reads its RAW chunks back). */
	err = -out_file__open(&w->out, path, mode);
	if (err)
		goto fail;
	w->fd = w->out.fd;
	err = write_header(w);
	if (err)
		goto fail;
	return w;
fail:
	rec_writer__discard(w);
	errno = err;
	return NULL;
}

int rec_writer__commit(struct rec_writer *w)
{
	int err = out_file__commit(&w->out);

	if (err && !w->err)
		w->err = err;
	return err;
}

static int write_all(struct rec_writer *w, const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t n = write(w->fd, c, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -(n < 0 ? errno : EIO);
		c += n;
		len -= (size_t)n;
		w->size += (uint64_t)n;
	}
	return 0;
}

static int write_chunk(struct rec_writer *w, uint32_t type, uint32_t count, const void *payload,
		       size_t len);

/* A write failed at a chunk that began at WHOLE: cut the file back to its
 * last whole chunk (which frees the partial one's blocks) and append a STOP
 * chunk with the error, so that readers say why the file ends there
 * (FORMAT.md, "Why it stopped"). Best effort: a pipe or a device cannot be
 * cut, and a disk may not even take the 20 bytes. */
static void write_stop(struct rec_writer *w, uint64_t whole, int err)
{
	uint32_t e = (uint32_t)-err;

	if (w->stopped)
		return;
	w->stopped = 1;
	if (ftruncate(w->fd, (off_t)whole) || lseek(w->fd, (off_t)whole, SEEK_SET) < 0)
		return;
	w->size = whole;
	if (write_chunk(w, REC_CHUNK_STOP, 0, &e, sizeof(e)))
		(void)ftruncate(w->fd, (off_t)whole);
}

static int write_chunk(struct rec_writer *w, uint32_t type, uint32_t count, const void *payload,
		       size_t len)
{
	struct rec_chunk_header h;
	uint64_t whole = w->size;
	int err;

	if (len > UINT32_MAX)
		return -EFBIG;
	if (w->stopped && type != REC_CHUNK_STOP)
		return w->err ? w->err : -EIO;
	h.type = type;
	h.size = (uint32_t)len;
	h.count = count;
	h.crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), payload, (uInt)len);
	err = write_all(w, &h, sizeof(h));
	if (!err)
		err = write_all(w, payload, len);
	if (err && type != REC_CHUNK_STOP)
		write_stop(w, whole, err);
	return err;
}

static int flush_buf(struct rec_writer *w, uint32_t type, struct buf *b)
{
	int err;

	if (!b->len)
		return 0;
	err = write_chunk(w, type, b->count, b->data, b->len);
	b->len = 0;
	b->count = 0;
	return err;
}

static int flush_strings(struct rec_writer *w)
{
	struct buf b = {0};
	uint32_t id;
	int err = 0;

	if (w->strings_flushed >= w->strings.count)
		return 0;
	for (id = w->strings_flushed; id < w->strings.count && !err; id++) {
		uint32_t len = strtab__len(&w->strings, id);

		err = buf_add(&b, &len, sizeof(len));
		if (!err)
			err = buf_add(&b, strtab__str(&w->strings, id), len);
		b.count++;
	}
	if (!err)
		err = flush_buf(w, REC_CHUNK_STRINGS, &b);
	free(b.data);
	if (!err)
		w->strings_flushed = id;
	return err;
}

/* Hold mode: what every later file needs (meta, strings, events, mappings,
 * frames, stack nodes) stays pending; the timed records are dropped (the
 * flight recorder keeps its own copies). */
static int flush_held(struct rec_writer *w)
{
	struct buf *drop[] = {&w->threads, &w->samples, &w->args, &w->sched, &w->symbols,
			      &w->inlines, &w->stats};

	for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
		drop[i]->len = drop[i]->count = 0;
	w->args_any = 0;
	return 0;
}

int rec_writer__flush(struct rec_writer *w)
{
	int err;

	if (w->err)
		return w->err;
	if (w->hold)
		return flush_held(w);
	err = flush_buf(w, REC_CHUNK_META, &w->meta);
	if (!err)
		err = flush_strings(w);
	if (!err)
		err = flush_buf(w, REC_CHUNK_EVENTS, &w->events);
	if (!err)
		err = flush_buf(w, REC_CHUNK_THREADS, &w->threads);
	if (!err && w->nmappings > w->mappings_flushed) {
		size_t n = w->nmappings - w->mappings_flushed;

		err = write_chunk(w, REC_CHUNK_MAPPINGS, (uint32_t)n,
				  w->mappings + w->mappings_flushed, n * sizeof(*w->mappings));
		w->mappings_flushed = w->nmappings;
	}
	if (!err && w->nframes > w->frames_flushed) {
		size_t n = w->nframes - w->frames_flushed;

		err = write_chunk(w, REC_CHUNK_FRAMES, (uint32_t)n, w->frames + w->frames_flushed,
				  n * sizeof(*w->frames));
		w->frames_flushed = w->nframes;
	}
	if (!err)
		err = flush_buf(w, REC_CHUNK_STACKS, &w->stacks);
	if (!err)
		err = flush_buf(w, REC_CHUNK_SAMPLES, &w->samples);
	if (!err)
		err = flush_buf(w, REC_CHUNK_ARGS, &w->args);
	if (!err)
		err = flush_buf(w, REC_CHUNK_SCHED, &w->sched);
	if (!err)
		err = flush_buf(w, REC_CHUNK_SYMBOLS, &w->symbols);
	if (!err)
		err = flush_buf(w, REC_CHUNK_INLINES, &w->inlines);
	if (!err)
		err = flush_buf(w, REC_CHUNK_STATS, &w->stats);
	w->err = err;
	return err;
}

uint64_t rec_writer__size(const struct rec_writer *w)
{
	return w->size;
}

/* Closes the files (an uncommitted new file is removed) and frees. */
static void free_all(struct rec_writer *w)
{
	out_file__release(&w->next, 0);
	out_file__release(&w->out, 0);
	free(w->raw);
	strtab__release(&w->strings);
	keymap__release(&w->frame_ids);
	keymap__release(&w->stack_ids);
	free(w->frames);
	free(w->mappings);
	free(w->meta.data);
	free(w->events.data);
	free(w->threads.data);
	free(w->stacks.data);
	free(w->samples.data);
	free(w->sched.data);
	free(w->symbols.data);
	free(w->inlines.data);
	free(w->stats.data);
	free(w->args.data);
	free(w);
}

void rec_writer__abandon(struct rec_writer *w)
{
	if (!w)
		return;
	if (w->old_fd < 0) /* while rewriting, the original stays */
		out_file__commit(&w->out);
	free_all(w);
}

void rec_writer__hold(struct rec_writer *w)
{
	w->hold = 1;
}

int rec_writer__save_to(struct rec_writer *w, int fd)
{
	flush_held(w);
	out_file__release(&w->out, 0);
	w->out = (struct out_file){.fd = fd, .dirfd = -1, .how = OUT_FILE_DEVICE, .committed = 1};
	w->fd = fd;
	w->hold = 0;
	w->err = 0;
	w->stopped = 0;
	w->size = 0;
	w->nsamples = 0;
	w->strings_flushed = 1;
	w->mappings_flushed = w->frames_flushed = 0;
	w->err = -write_header(w);
	return w->err;
}

void rec_writer__discard(struct rec_writer *w)
{
	if (w)
		free_all(w);
}

int rec_writer__close(struct rec_writer *w)
{
	int err = rec_writer__flush(w);

	if (!err)
		err = write_chunk(w, REC_CHUNK_END, 0, "", 0);
	/* On an error the copy is dropped: the original keeps everything. */
	if (w->old_fd >= 0 && !err)
		err = rec_writer__end_rewrite(w);
	if (!err)
		err = out_file__commit(&w->out);
	if (!err) {
		if (close(w->fd))
			err = -errno;
		w->fd = w->out.fd = -1;
	}
	free_all(w);
	return err;
}

int rec_writer__meta(struct rec_writer *w, const char *key, const char *value)
{
	int err = buf_add(&w->meta, key, strlen(key) + 1);

	if (!err)
		err = buf_add(&w->meta, value, strlen(value) + 1);
	w->meta.count++;
	return err;
}

int rec_writer__string(struct rec_writer *w, const char *s, size_t len, uint32_t *id)
{
	return strtab__intern(&w->strings, s, len, id);
}

int rec_writer__event(struct rec_writer *w, const struct rec_event_desc *ev, uint32_t *id)
{
	int err = buf_add(&w->events, ev, sizeof(*ev));

	if (err)
		return err;
	w->events.count++;
	*id = w->nevents++;
	return 0;
}

int rec_writer__thread(struct rec_writer *w, uint32_t kind, uint64_t time, uint32_t pid,
		       uint32_t tid, uint32_t name)
{
	struct rec_thread_event ev = {
		.time = time, .pid = pid, .tid = tid, .kind = kind, .name = name,
	};
	int err = buf_add(&w->threads, &ev, sizeof(ev));

	if (!err)
		w->threads.count++;
	return err;
}

int rec_writer__mapping(struct rec_writer *w, const struct rec_mapping *m, uint32_t *id)
{
	if (w->nmappings >= REC_NO_MAPPING)
		return -ENOMEM;
	if (GROW(w->mappings, w->mappings_cap, w->nmappings + 1))
		return -ENOMEM;
	w->mappings[w->nmappings] = *m;
	*id = (uint32_t)w->nmappings++;
	return 0;
}

int rec_writer__frame_lookup(const struct rec_writer *w, uint32_t pid, uint64_t addr,
			     uint32_t flags, uint32_t *id)
{
	return keymap__get(&w->frame_ids, addr, (uint64_t)pid << 32 | flags, id);
}

int rec_writer__frame(struct rec_writer *w, uint32_t pid, uint64_t addr, uint32_t flags,
		      uint32_t mapping, uint32_t *id)
{
	uint64_t b = (uint64_t)pid << 32 | flags;
	int r;

	if (keymap__get(&w->frame_ids, addr, b, id))
		return 0;
	if (w->nframes >= UINT32_MAX - 1)
		return -ENOMEM;
	if (GROW(w->frames, w->frames_cap, w->nframes + 1))
		return -ENOMEM;
	r = keymap__put(&w->frame_ids, addr, b, (uint32_t)w->nframes, NULL);
	if (r < 0)
		return r;
	w->frames[w->nframes] = (struct rec_frame){
		.addr = addr, .pid = pid, .mapping = mapping, .flags = flags,
	};
	*id = (uint32_t)w->nframes++;
	return 0;
}

void rec_writer__frame_set_mapping(struct rec_writer *w, uint32_t id, uint32_t mapping)
{
	if (id < w->nframes)
		w->frames[id].mapping = mapping;
}

int rec_writer__stack(struct rec_writer *w, uint32_t parent, uint32_t frame, uint32_t *id)
{
	struct rec_stack_node node = {.parent = parent, .frame = frame};
	int r;

	if (keymap__get(&w->stack_ids, parent, frame, id))
		return 0;
	if (w->nstacks == UINT32_MAX)
		return -ENOMEM;
	r = keymap__put(&w->stack_ids, parent, frame, w->nstacks, NULL);
	if (r < 0)
		return r;
	r = buf_add(&w->stacks, &node, sizeof(node));
	if (r)
		return r;
	w->stacks.count++;
	*id = w->nstacks++;
	return 0;
}

int rec_writer__forget_stacks(struct rec_writer *w)
{
	int err = rec_writer__flush(w);

	if (err)
		return err;
	keymap__release(&w->frame_ids);
	keymap__release(&w->stack_ids);
	free(w->frames);
	w->frames = NULL;
	w->nframes = w->frames_cap = w->frames_flushed = 0;
	w->nstacks = 1;
	if (keymap__init(&w->frame_ids, 4096) || keymap__init(&w->stack_ids, 16384))
		return w->err = -ENOMEM;
	return 0;
}

/* Appends a record to a chunk that starts with a u64 base time, the record's
 * first field being a u32 offset from it; a record outside the chunk's time
 * window closes the chunk first. */
static int add_timed(struct rec_writer *w, struct buf *b, uint64_t *base, uint64_t time,
		     void *rec, size_t size)
{
	uint32_t dt;
	int err;

	if (b->len && (time < *base || time - *base > UINT32_MAX)) {
		/* Frames and stacks the chunk uses must be written first, so
		 * flush everything. */
		err = rec_writer__flush(w);
		if (err)
			return err;
	}
	if (!b->len) {
		*base = time > SAMPLE_SLACK_NS ? time - SAMPLE_SLACK_NS : 0;
		err = buf_add(b, base, sizeof(*base));
		if (err)
			return err;
	}
	dt = (uint32_t)(time - *base);
	memcpy(rec, &dt, sizeof(dt));
	err = buf_add(b, rec, size);
	if (!err)
		b->count++;
	return err;
}

int rec_writer__sample(struct rec_writer *w, uint64_t time, uint32_t tid, uint32_t stack,
		       uint16_t cpu, uint8_t event, uint8_t flags)
{
	struct rec_sample s = {
		.tid = tid, .stack = stack, .cpu = cpu, .event = event, .flags = flags,
	};

	int err = add_timed(w, &w->samples, &w->sample_base, time, &s, sizeof(s));

	if (!err)
		w->nsamples++;
	return err;
}

uint64_t rec_writer__nsamples(const struct rec_writer *w)
{
	return w->nsamples;
}

int rec_writer__args(struct rec_writer *w, uint64_t sample, unsigned n, uint32_t strmask,
		     const int64_t *vals)
{
	unsigned char rec[REC_ARGS_RECORD_MAX];
	uint64_t prev;
	size_t len;
	int err;

	if (n > REC_ARGS_MAX || sample >= w->nsamples || sample > UINT32_MAX ||
	    (w->args_any && sample <= w->args_last))
		return -EINVAL;
	if (!w->args.len) {
		uint32_t first = (uint32_t)sample;

		err = buf_add(&w->args, &first, sizeof(first));
		if (err)
			return err;
		prev = sample;
	} else {
		prev = w->args_last;
	}
	len = rec_args_encode(rec, (uint32_t)(sample - prev), n, strmask, vals);
	err = buf_add(&w->args, rec, len);
	if (err)
		return err;
	w->args.count++;
	w->args_last = sample;
	w->args_any = 1;
	return 0;
}

int rec_writer__sched(struct rec_writer *w, uint64_t time, uint32_t tid, uint32_t arg,
		      uint16_t cpu, uint8_t kind, uint8_t state)
{
	struct rec_sched s = {.tid = tid, .arg = arg, .cpu = cpu, .kind = kind, .state = state};

	return add_timed(w, &w->sched, &w->sched_base, time, &s, sizeof(s));
}

int rec_writer__symbol(struct rec_writer *w, const struct rec_symbol *sym)
{
	int err = buf_add(&w->symbols, sym, sizeof(*sym));

	if (!err)
		w->symbols.count++;
	return err;
}

int rec_writer__inline(struct rec_writer *w, const struct rec_inline *in)
{
	int err = buf_add(&w->inlines, in, sizeof(*in));

	if (!err)
		w->inlines.count++;
	return err;
}

int rec_writer__stat(struct rec_writer *w, const char *key, uint64_t value)
{
	struct rec_stat st = {.value = value};
	int err = rec_writer__string(w, key, strlen(key), &st.key);

	if (!err)
		err = buf_add(&w->stats, &st, sizeof(st));
	if (!err)
		w->stats.count++;
	return err;
}

size_t rec_writer__nframes(const struct rec_writer *w)
{
	return w->nframes;
}

const struct rec_frame *rec_writer__frames(const struct rec_writer *w)
{
	return w->frames;
}

size_t rec_writer__nmappings(const struct rec_writer *w)
{
	return w->nmappings;
}

const struct rec_mapping *rec_writer__mappings(const struct rec_writer *w)
{
	return w->mappings;
}

const char *rec_writer__str(const struct rec_writer *w, uint32_t id)
{
	return strtab__str(&w->strings, id);
}

int rec_writer__raw(struct rec_writer *w, const void *data, size_t len)
{
	uint64_t off;
	int err = rec_writer__flush(w);

	if (err)
		return err;
	if (GROW(w->raw, w->raw_cap, w->nraw + 1))
		return w->err = -ENOMEM;
	off = w->size;
	err = write_chunk(w, REC_CHUNK_RAW, 0, data, len);
	if (err)
		return w->err = err;
	w->raw[w->nraw++] = (struct raw_range){.off = off, .len = (uint32_t)len};
	return 0;
}

int rec_writer__can_rewrite(struct rec_writer *w)
{
	/* Only a file of our own making is replaced by a rename (not a
	 * device, nor a file written in place). The copy's file is made now,
	 * so the rewrite cannot fail for want of it, and no name is left
	 * free for another user meanwhile. */
	if (w->out.how != OUT_FILE_NEW || w->old_fd >= 0)
		return 0;
	if (w->next.path)
		return 1;
	return !out_file__open_beside(&w->next, &w->out);
}

size_t rec_writer__nraw(const struct rec_writer *w)
{
	return w->nraw;
}

static int pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -(n < 0 ? errno : EIO);
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int rec_writer__raw_read(struct rec_writer *w, size_t i, unsigned char **buf, size_t *cap,
			 size_t *len)
{
	const struct raw_range *r;

	if (i >= w->nraw)
		return -EINVAL;
	r = &w->raw[i];
	if (GROW(*buf, *cap, (size_t)r->len + 1))
		return -ENOMEM;
	*len = r->len;
	return pread_all(w->old_fd >= 0 ? w->old_fd : w->fd, *buf, r->len,
			 r->off + sizeof(struct rec_chunk_header));
}

/* Copies bytes [from, to) of the original to the end of the copy. */
static int copy_range(struct rec_writer *w, uint64_t from, uint64_t to)
{
	unsigned char buf[65536];
	int err = 0;

	while (from < to && !err) {
		size_t n = to - from < sizeof(buf) ? (size_t)(to - from) : sizeof(buf);

		err = pread_all(w->old_fd, buf, n, from);
		if (!err)
			err = write_all(w, buf, n);
		from += n;
	}
	return err;
}

int rec_writer__begin_rewrite(struct rec_writer *w)
{
	uint64_t end = w->size, from = 0;
	size_t i;
	int err = 0;

	if (w->err)
		return w->err;
	if (w->old_fd >= 0)
		return -EBUSY;
	if (!w->next.path && w->out.how != OUT_FILE_NEW)
		return w->err = -EINVAL;
	if (!w->next.path && (err = out_file__open_beside(&w->next, &w->out)))
		return w->err = err;
	w->old_fd = w->fd;
	w->fd = w->next.fd;
	w->size = 0;
	for (i = 0; i < w->nraw && !err; i++) {
		err = copy_range(w, from, w->raw[i].off);
		from = w->raw[i].off + sizeof(struct rec_chunk_header) + w->raw[i].len;
	}
	if (!err)
		err = copy_range(w, from, end);
	return w->err = err;
}

int rec_writer__end_rewrite(struct rec_writer *w)
{
	int err;

	if (w->old_fd < 0)
		return 0;
	err = rec_writer__flush(w);
	if (!err)
		err = out_file__commit(&w->next);
	if (err)
		return w->err = err; /* the copy is removed by close or abandon */
	/* The copy is the file now; the original's name was taken over. */
	out_file__release(&w->out, 0);
	w->out = w->next;
	memset(&w->next, 0, sizeof(w->next));
	w->next.fd = w->next.dirfd = -1;
	w->old_fd = -1;
	w->nraw = 0;
	return 0;
}
