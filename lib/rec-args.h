/* rec-args.h: the encoding of probe arguments in a recording (chunk
 * REC_CHUNK_ARGS, docs/FORMAT.md "Probe arguments"), shared by the writer
 * and the reader. The payload is a u32 (the index of the first record's
 * sample in the file), then one record per sample that has arguments:
 *
 *   uleb128 delta   sample index - the previous record's (first: - the u32)
 *   u8      n       argument count, at most REC_ARGS_MAX
 *   uleb128 strmask bit i set: argument i is a string id (STRINGS)
 *   n x uleb128     values, zigzag-encoded (small negatives stay small)
 *
 * Sample indexes count samples in file order from 0, across SAMPLES
 * chunks; a record's sample is always in an earlier or the same flush
 * (SAMPLES before ARGS). An allocation sample (class string id, size) costs
 * about 6 bytes here on top of its 16-byte sample record. */
#ifndef PROF_REC_ARGS_H
#define PROF_REC_ARGS_H

#include <stddef.h>
#include <stdint.h>

#define REC_ARGS_MAX 12
/* The most bytes one record takes. */
#define REC_ARGS_RECORD_MAX (5 + 1 + 3 + REC_ARGS_MAX * 10)

/* Appends one record to buf (at least REC_ARGS_RECORD_MAX bytes free);
 * returns the bytes written. n must be at most REC_ARGS_MAX. */
size_t rec_args_encode(unsigned char *buf, uint32_t delta, unsigned n, uint32_t strmask,
		       const int64_t *vals);

/* Reads one record at p[*pos], len bytes in all, untrusted: 0 and *pos
 * past it, or -EBADMSG (cut short, too many arguments, a varint too long,
 * a delta or mask out of range). vals holds REC_ARGS_MAX. */
int rec_args_decode(const unsigned char *p, size_t len, size_t *pos, uint32_t *delta,
		    unsigned *n, uint32_t *strmask, int64_t *vals);

#endif
