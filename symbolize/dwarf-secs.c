/* dwarf-secs.c: the debug sections the DWARF tables are built from, read
 * with libelf and inflated here, only those (see dwarf-int.h).
 *
 * libdw's dwarf_begin_elf inflates every debug section it knows, the
 * location lists (a sixth of libc's DWARF) included, one after the other.
 * Here only the sections the tables need are read, and zlib-compressed
 * ones (SHF_COMPRESSED, ELFCOMPRESS_ZLIB) are inflated by zlib directly,
 * raw (the Adler-32 check is skipped: the data is bounds-checked as it is
 * decoded anyway). .debug_info is inflated on a second thread that
 * publishes its progress, so that the units can be read while the rest
 * of it is still being inflated (dwarf_secs__ready()). Other compressions
 * (zstd, the old .zdebug_ format) go through libelf on this thread. libelf
 * is called from this thread only: the worker sees plain buffers. */
#include <errno.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "symbolize/dwarf-int.h"

#define MAX_INFLATED ((size_t)1 << 32) /* a bound against hostile headers */

static const char *const names[DW_NSECS] = {
	[DW_SEC_INFO] = ".debug_info",
	[DW_SEC_ABBREV] = ".debug_abbrev",
	[DW_SEC_LINE] = ".debug_line",
	[DW_SEC_STR] = ".debug_str",
	[DW_SEC_LINE_STR] = ".debug_line_str",
	[DW_SEC_RANGES] = ".debug_ranges",
	[DW_SEC_RNGLISTS] = ".debug_rnglists",
	[DW_SEC_ADDR] = ".debug_addr",
	[DW_SEC_STR_OFFSETS] = ".debug_str_offsets",
};

#define CHUNK ((size_t)128 << 10) /* progress is published this often */

#define IN_CHUNK ((size_t)128 << 10) /* compressed bytes read at a time */

/* A zlib stream to inflate into a buffer of known size, read from the
 * file in chunks (in_off, in_size) into one small buffer: the compressed
 * bytes are never all in memory. */
struct job {
	int fd;
	uint64_t in_off;
	size_t in_size, out_size;
	unsigned char *out;
	int err;
	struct dw_stream *stream; /* progress goes here, when set */
};

/* .debug_info while the worker inflates it. */
struct dw_stream {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t ready; /* bytes inflated so far */
	int done;
	struct job job;
};

static void publish(struct dw_stream *st, size_t ready, int done)
{
	pthread_mutex_lock(&st->mu);
	st->ready = ready;
	st->done = done;
	pthread_cond_broadcast(&st->cv);
	pthread_mutex_unlock(&st->mu);
}

static void run_job(struct job *j)
{
	unsigned char head[2], *in = NULL;
	size_t done = 0, fed = 2;
	z_stream z;
	int rc = Z_OK, init = 0;

	j->err = -EBADMSG;
	/* The zlib header: deflate, a window zlib can take, no preset
	 * dictionary, and a valid check of the two bytes. */
	if (j->in_size < 2 || pread(j->fd, head, 2, (off_t)j->in_off) != 2 ||
	    (head[0] & 0x0f) != 8 || (head[0] >> 4) > 7 || (head[1] & 0x20) ||
	    ((unsigned)head[0] << 8 | head[1]) % 31)
		goto out;
	in = malloc(IN_CHUNK);
	memset(&z, 0, sizeof(z));
	if (!in || inflateInit2(&z, -15) != Z_OK) {
		j->err = -ENOMEM;
		goto out;
	}
	init = 1;
	while (rc == Z_OK) {
		size_t out_left = j->out_size - done;

		if (!z.avail_in && fed < j->in_size) {
			size_t want = j->in_size - fed < IN_CHUNK ? j->in_size - fed : IN_CHUNK;
			ssize_t got = pread(j->fd, in, want, (off_t)(j->in_off + fed));

			if (got <= 0)
				break; /* the file is shorter than its headers say */
			fed += (size_t)got;
			z.next_in = in;
			z.avail_in = (uInt)got;
		}
		if (j->stream && out_left > CHUNK)
			out_left = CHUNK;
		z.next_out = j->out + done;
		z.avail_out = out_left > UINT32_MAX ? UINT32_MAX : (uInt)out_left;
		if (!z.avail_out)
			break;
		rc = inflate(&z, Z_NO_FLUSH);
		done = (size_t)(z.next_out - j->out);
		if (j->stream)
			publish(j->stream, done, 0);
		if (rc == Z_BUF_ERROR && !z.avail_in && fed >= j->in_size)
			break; /* input ended early */
		if (rc == Z_BUF_ERROR)
			rc = Z_OK; /* wants more input or output: give it */
	}
	if (done == j->out_size && (rc == Z_STREAM_END || rc == Z_OK))
		j->err = 0;
out:
	if (init)
		inflateEnd(&z);
	free(in);
	if (j->stream)
		publish(j->stream, j->err ? j->stream->ready : j->out_size, 1);
}

static void *worker(void *arg)
{
	run_job(arg);
	return NULL;
}

static int which(const char *name)
{
	int i;

	for (i = 0; i < DW_NSECS; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

/* The section's bytes through libelf (uncompressed, or inflated by
 * libelf when it is not plain zlib). */
static int plain_bytes(Elf_Scn *scn, const GElf_Shdr *sh, int gnu, struct dw_sec *out)
{
	Elf_Data *data;

	if (gnu) {
		if (elf_compress_gnu(scn, 0, 0) < 0)
			return -EBADMSG;
	} else if ((sh->sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) {
		return -EBADMSG;
	}
	data = elf_getdata(scn, NULL);
	if (!data || (!data->d_buf && data->d_size))
		return -EBADMSG;
	out->p = data->d_buf;
	out->size = data->d_size;
	return 0;
}

/* A SHF_COMPRESSED section compressed with zlib, little-endian: where its
 * stream is and how big it inflates (read from the file: libelf would read
 * the whole section into memory to hand over its header). */
static int zlib_header(Elf *elf, int fd, const GElf_Shdr *sh, struct job *j)
{
	unsigned char b[sizeof(Elf64_Chdr)];
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	size_t hdr;
	uint64_t type, size;

	if (!ident || ident[EI_DATA] != ELFDATA2LSB)
		return 0;
	hdr = ident[EI_CLASS] == ELFCLASS32 ? sizeof(Elf32_Chdr) : sizeof(Elf64_Chdr);
	if (sh->sh_size < hdr || pread(fd, b, hdr, (off_t)sh->sh_offset) != (ssize_t)hdr)
		return 0;
	if (hdr == sizeof(Elf32_Chdr)) {
		type = b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
		size = b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;
	} else {
		int i;

		type = b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
		for (i = 7, size = 0; i >= 0; i--)
			size = size << 8 | b[8 + i];
	}
	if (type != ELFCOMPRESS_ZLIB || size >= MAX_INFLATED || sh->sh_size - hdr < 2)
		return 0;
	j->in_off = sh->sh_offset + hdr;
	j->in_size = sh->sh_size - hdr;
	j->out_size = size;
	return 1;
}

/* Inflates .debug_info on a thread of its own, publishing its progress;
 * the buffer is in place (s->sec[DW_SEC_INFO]) when this returns. */
static int start_stream(struct dw_secs *s, struct job *j)
{
	struct dw_stream *st = calloc(1, sizeof(*st));

	if (!st)
		return -ENOMEM;
	st->job = *j;
	st->job.stream = st;
	st->job.out = malloc(j->out_size ? j->out_size : 1);
	if (!st->job.out) {
		free(st);
		return -ENOMEM;
	}
	pthread_mutex_init(&st->mu, NULL);
	pthread_cond_init(&st->cv, NULL);
	if (pthread_create(&st->thread, NULL, worker, &st->job)) {
		pthread_mutex_destroy(&st->mu);
		pthread_cond_destroy(&st->cv);
		free(st->job.out);
		free(st);
		return 1; /* no thread: inflate it here */
	}
	s->info = st;
	s->owned[DW_SEC_INFO] = st->job.out;
	s->sec[DW_SEC_INFO].p = st->job.out;
	s->sec[DW_SEC_INFO].size = j->out_size;
	j->in_size = 0; /* taken */
	return 0;
}

int dwarf_secs__read(Elf *elf, int fd, struct dw_secs *s)
{
	struct job jobs[DW_NSECS];
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	int i, err = 0, found = 0;

	memset(s, 0, sizeof(*s));
	memset(jobs, 0, sizeof(jobs));
	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENOEXEC;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		int k, gnu = 0;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (!strncmp(name, ".zdebug_", 8)) {
			char plain[64];

			if (strlen(name) + 1 > sizeof(plain))
				continue;
			snprintf(plain, sizeof(plain), ".debug_%s", name + 8);
			k = which(plain);
			gnu = 1;
		} else {
			k = which(name);
		}
		if (k < 0 || s->sec[k].p || jobs[k].in_size)
			continue; /* not wanted, or a second copy */
		if (k == DW_SEC_INFO)
			found = 1;
		if (!gnu && (sh.sh_flags & SHF_COMPRESSED) && zlib_header(elf, fd, &sh, &jobs[k])) {
			jobs[k].fd = fd;
			continue;
		}
		if (plain_bytes(scn, &sh, gnu, &s->sec[k]))
			s->sec[k] = (struct dw_sec){0}; /* unreadable: as if absent */
	}
	if (!found)
		return -ENODATA;
	/* The largest section streams in on a thread while this one inflates
	 * the others and decodes the line programs. */
	if (jobs[DW_SEC_INFO].in_size && jobs[DW_SEC_INFO].out_size > CHUNK) {
		err = start_stream(s, &jobs[DW_SEC_INFO]);
		if (err < 0)
			return err;
		err = 0;
	}
	for (i = 0; i < DW_NSECS; i++) {
		if (!jobs[i].in_size)
			continue;
		jobs[i].out = malloc(jobs[i].out_size ? jobs[i].out_size : 1);
		if (!jobs[i].out) {
			err = -ENOMEM;
			continue;
		}
		run_job(&jobs[i]);
		if (jobs[i].err == -ENOMEM)
			err = -ENOMEM;
		if (jobs[i].err) {
			free(jobs[i].out);
			continue; /* a corrupt stream: the section is absent */
		}
		s->owned[i] = jobs[i].out;
		s->sec[i].p = jobs[i].out;
		s->sec[i].size = jobs[i].out_size;
	}
	if (!err && !s->sec[DW_SEC_INFO].p)
		err = -ENOEXEC;
	if (err)
		dwarf_secs__free(s);
	return err;
}

size_t dwarf_secs__ready(struct dw_secs *s, size_t want)
{
	struct dw_stream *st = s->info;
	size_t ready;

	if (!st)
		return s->sec[DW_SEC_INFO].size;
	pthread_mutex_lock(&st->mu);
	while (st->ready < want && !st->done)
		pthread_cond_wait(&st->cv, &st->mu);
	ready = st->ready;
	pthread_mutex_unlock(&st->mu);
	return ready;
}

int dwarf_secs__finish(struct dw_secs *s)
{
	struct dw_stream *st = s->info;
	int err;

	if (!st)
		return 0;
	pthread_join(st->thread, NULL);
	err = st->job.err;
	pthread_mutex_destroy(&st->mu);
	pthread_cond_destroy(&st->cv);
	free(st);
	s->info = NULL;
	if (err)
		s->sec[DW_SEC_INFO].size = 0;
	return err == -ENOMEM ? -ENOMEM : err ? -ENOEXEC : 0;
}

void dwarf_secs__free(struct dw_secs *s)
{
	int i;

	dwarf_secs__finish(s);
	for (i = 0; i < DW_NSECS; i++)
		free(s->owned[i]);
	memset(s, 0, sizeof(*s));
}
