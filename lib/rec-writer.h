/* rec-writer.h: appends a recording file (format in recfile.h, docs/FORMAT.md).
 *
 * The writer interns strings, frames and stack nodes (each stored once) and
 * buffers records per chunk type; rec_writer__flush() writes them out in
 * dependency order, so every flushed prefix of the file is consistent. The
 * recorder calls flush at least once a second. No per-record allocation in
 * steady state: buffers and tables grow geometrically and are reused.
 *
 * Functions return 0 or -errno; after the first write error every call
 * returns that error (the file still reads up to the last good chunk). */
#ifndef PROF_REC_WRITER_H
#define PROF_REC_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "recfile.h"

struct rec_writer;

/* Starts the recording `path` and writes the file header. NULL + errno.
 * The file is a new one beside `path` (lib/out-file.h: a symlink there is
 * never followed unless only root or we could have made it), given `mode`
 * and the name `path` at rec_writer__commit, or at a successful close;
 * until then an existing `path` is untouched. */
struct rec_writer *rec_writer__create(const char *path, mode_t mode);
/* rec_writer__create(path, 0600) and commit at once. */
struct rec_writer *rec_writer__open(const char *path);
/* The file becomes `path` now (a recorder does this once it started, so a
 * killed recorder leaves a readable file there). 0 or -errno. */
int rec_writer__commit(struct rec_writer *w);
/* Flushes, writes the END chunk, commits, closes. Returns the first error
 * seen; on one, a file never committed is removed. */
int rec_writer__close(struct rec_writer *w);
/* Closes without END (for tests of incomplete files), committing, and
 * frees. */
void rec_writer__abandon(struct rec_writer *w);
/* Closes and frees; a file never committed is removed, so an existing
 * `path` stays as it was. */
void rec_writer__discard(struct rec_writer *w);

int rec_writer__flush(struct rec_writer *w);
/* Hold mode (the flight recorder, record/flight.h): from now on flushes
 * write nothing; meta, strings, events, mappings, frames and stack nodes
 * are kept for a later file, threads, samples, scheduler records, symbols
 * and stats are dropped. Memory grows with the distinct code seen, not
 * with time. */
void rec_writer__hold(struct rec_writer *w);
/* A held writer (in a forked copy of the recorder) made the writer of the
 * new file fd (which it owns from now on: close or discard closes it): the
 * file header now, everything held at the next flush. 0 or -errno. */
int rec_writer__save_to(struct rec_writer *w, int fd);
/* Bytes written to the file so far. */
uint64_t rec_writer__size(const struct rec_writer *w);

int rec_writer__meta(struct rec_writer *w, const char *key, const char *value);
/* Interns a string; its id is usable at once. */
int rec_writer__string(struct rec_writer *w, const char *s, size_t len, uint32_t *id);
int rec_writer__event(struct rec_writer *w, const struct rec_event_desc *ev, uint32_t *id);
int rec_writer__thread(struct rec_writer *w, uint32_t kind, uint64_t time, uint32_t pid,
		       uint32_t tid, uint32_t name);
int rec_writer__mapping(struct rec_writer *w, const struct rec_mapping *m, uint32_t *id);
/* Finds an interned frame: 1 (id in *id) or 0. Never allocates. */
int rec_writer__frame_lookup(const struct rec_writer *w, uint32_t pid, uint64_t addr,
			     uint32_t flags, uint32_t *id);
/* Interns frame (pid, addr, flags); `mapping` is only stored on first sight. */
int rec_writer__frame(struct rec_writer *w, uint32_t pid, uint64_t addr, uint32_t flags,
		      uint32_t mapping, uint32_t *id);
/* Sets the mapping of a frame whose mapping was not known when it was
 * interned (its mmap record was still in another CPU's ring). Takes effect in
 * the file if the frame was not flushed yet, and for the symbolizer always. */
void rec_writer__frame_set_mapping(struct rec_writer *w, uint32_t id, uint32_t mapping);
/* Interns stack node (parent, frame): the stack `parent` extended by one
 * callee frame. */
int rec_writer__stack(struct rec_writer *w, uint32_t parent, uint32_t frame, uint32_t *id);
/* Forgets every frame and stack node (their tables freed), after flushing:
 * later ids start again from 0 and 1. Only for a file nobody reads (prof
 * top writes into /dev/null and keeps its own copy): a recording keeps one
 * numbering. 0 or -errno (of the flush). */
int rec_writer__forget_stacks(struct rec_writer *w);
int rec_writer__sample(struct rec_writer *w, uint64_t time, uint32_t tid, uint32_t stack,
		       uint16_t cpu, uint8_t event, uint8_t flags);
/* A scheduler event (struct rec_sched without dt; time in ns). */
int rec_writer__sched(struct rec_writer *w, uint64_t time, uint32_t tid, uint32_t arg,
		      uint16_t cpu, uint8_t kind, uint8_t state);
/* Samples appended so far: the index the next sample gets in the file. */
uint64_t rec_writer__nsamples(const struct rec_writer *w);
/* The decoded arguments of sample `sample` (an index from nsamples, in
 * increasing order): n values, bit i of strmask set when value i is a
 * string id (lib/rec-args.h). 0 or -errno (-EINVAL: out of order). */
int rec_writer__args(struct rec_writer *w, uint64_t sample, unsigned n, uint32_t strmask,
		     const int64_t *vals);
int rec_writer__symbol(struct rec_writer *w, const struct rec_symbol *sym);
/* One record of a frame's inline chain (recfile.h: a frame's records are
 * added consecutively, innermost first). */
int rec_writer__inline(struct rec_writer *w, const struct rec_inline *in);
int rec_writer__stat(struct rec_writer *w, const char *key, uint64_t value);

/* Deferred recording (record/defer.c). raw appends a REC_CHUNK_RAW chunk of
 * perf records at once (after flushing what is buffered) and remembers it;
 * can_rewrite says whether the file can be replaced (a new file of ours,
 * not a device or a file written in place) and, if so, creates the copy's
 * file already (unpredictable name, O_EXCL, 0600: lib/out-file.h), so that
 * no name is left for another user to take meanwhile. begin_rewrite starts
 * the copy of the file without its RAW chunks, and writing goes on there,
 * while raw_read reads the RAW chunks back from the original; end_rewrite
 * renames the copy over the original (close does it too). Until then the
 * original is untouched: a recorder killed meanwhile leaves it, RAW chunks
 * and all, for a reader to replay (and the copy's file, empty or partial,
 * beside it). */
int rec_writer__raw(struct rec_writer *w, const void *data, size_t len);
int rec_writer__can_rewrite(struct rec_writer *w);
size_t rec_writer__nraw(const struct rec_writer *w);
/* Chunk i's payload into *buf (grown as needed); its size in *len. */
int rec_writer__raw_read(struct rec_writer *w, size_t i, unsigned char **buf, size_t *cap,
			 size_t *len);
int rec_writer__begin_rewrite(struct rec_writer *w);
int rec_writer__end_rewrite(struct rec_writer *w);

/* Read-only views for the symbolizer at the end of a recording. */
size_t rec_writer__nframes(const struct rec_writer *w);
const struct rec_frame *rec_writer__frames(const struct rec_writer *w);
size_t rec_writer__nmappings(const struct rec_writer *w);
const struct rec_mapping *rec_writer__mappings(const struct rec_writer *w);
const char *rec_writer__str(const struct rec_writer *w, uint32_t id);

#endif
