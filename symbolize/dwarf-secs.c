/* dwarf-secs.c: the debug sections the DWARF tables are built from, only
 * those (see dwarf-internal.h), straight from a read-only mapping of the file.
 *
 * libdw's dwarf_begin_elf inflates every debug section it knows, the
 * location lists (a sixth of libc's DWARF) included, one after the other,
 * and libelf reads each uncompressed section into a copy. Here the file
 * is mapped once: an uncompressed section is used where it lies in the
 * mapping (no read, no copy; the page cache's pages are shared), and a
 * zlib-compressed one (SHF_COMPRESSED, ELFCOMPRESS_ZLIB) is inflated from
 * the mapping by libdeflate, whole-buffer, raw (the Adler-32 check is
 * skipped: the data is bounds-checked as it is decoded anyway), 2-3 times
 * as fast as zlib's streaming inflate. .debug_info, the largest, is
 * inflated on a second thread while this one inflates the others (and
 * dwarf-build.c decodes the line programs); dwarf_secs__ready() waits for
 * it. Other compressions (zstd, the old .zdebug_ format) go through libelf
 * on this thread. libelf is called from this thread only.
 *
 * The price of the mapping: a file cut short while prof reads it raises
 * SIGBUS (as for perf, gdb and llvm-symbolizer, which map files too).
 * Sections are checked to lie inside the file as it was when mapped;
 * binaries are replaced by renaming a new file over them (package
 * managers, linkers), which leaves the mapped one intact. */
#include <errno.h>
#include <gelf.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/dwarf-internal.h"

#define MAX_INFLATED ((size_t)1 << 32) /* a bound against hostile headers */
#define THREAD_MIN ((size_t)128 << 10)  /* smaller .debug_info: no thread */

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

/* A zlib stream (in the mapping) to inflate into a buffer of known size. */
struct job {
	const unsigned char *in;
	size_t in_size, out_size;
	unsigned char *out;
	int err;
};

/* .debug_info while the worker inflates it. */
struct dw_stream {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done;
	struct job job;
};

#define HUGE_SIZE ((size_t)2 << 20)

/* A buffer for an inflated section. From 2 MB up, anonymous memory in
 * transparent huge pages where the system gives them (madvise mode): a
 * 6 MB .debug_info then costs 3 page faults instead of 1,500, and 20% less
 * CPU to inflate here. *len: the mapping's length, 0 for malloc. */
static unsigned char *out_buffer(size_t size, size_t *len)
{
	void *p;

	*len = 0;
	if (size < HUGE_SIZE)
		return malloc(size ? size : 1);
	*len = (size + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1);
	p = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		*len = 0;
		return NULL;
	}
	madvise(p, *len, MADV_HUGEPAGE); /* a hint: fine if refused */
	return p;
}

static void free_buffer(void *p, size_t len)
{
	if (len)
		munmap(p, len);
	else
		free(p);
}

static void run_job(struct job *j)
{
	struct libdeflate_decompressor *dec;
	const unsigned char *h = j->in;

	j->err = -EBADMSG;
	/* The zlib header: deflate, a window zlib can take, no preset
	 * dictionary, and a valid check of the two bytes. */
	if (j->in_size < 2 || (h[0] & 0x0f) != 8 || (h[0] >> 4) > 7 || (h[1] & 0x20) ||
	    ((unsigned)h[0] << 8 | h[1]) % 31)
		return;
	dec = libdeflate_alloc_decompressor();
	if (!dec) {
		j->err = -ENOMEM;
		return;
	}
	/* No actual_out: anything but exactly out_size bytes is an error. */
	if (libdeflate_deflate_decompress(dec, h + 2, j->in_size - 2, j->out, j->out_size, NULL) ==
	    LIBDEFLATE_SUCCESS)
		j->err = 0;
	libdeflate_free_decompressor(dec);
}

static void *worker(void *arg)
{
	struct dw_stream *st = arg;

	run_job(&st->job);
	pthread_mutex_lock(&st->mu);
	st->done = 1;
	pthread_cond_broadcast(&st->cv);
	pthread_mutex_unlock(&st->mu);
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
 * stream is and how big it inflates. */
static int zlib_header(Elf *elf, const unsigned char *sec, const GElf_Shdr *sh, struct job *j)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL), *b = sec;
	size_t hdr;
	uint64_t type, size;
	int i;

	if (!ident || ident[EI_DATA] != ELFDATA2LSB)
		return 0;
	hdr = ident[EI_CLASS] == ELFCLASS32 ? sizeof(Elf32_Chdr) : sizeof(Elf64_Chdr);
	if (sh->sh_size < hdr)
		return 0;
	type = b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	if (hdr == sizeof(Elf32_Chdr)) {
		size = b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;
	} else {
		for (i = 7, size = 0; i >= 0; i--)
			size = size << 8 | b[8 + i];
	}
	if (type != ELFCOMPRESS_ZLIB || size >= MAX_INFLATED || sh->sh_size - hdr < 2)
		return 0;
	j->in = sec + hdr;
	j->in_size = sh->sh_size - hdr;
	j->out_size = size;
	return 1;
}

/* Inflates .debug_info on a thread of its own; the buffer is in place
 * (s->sec[DW_SEC_INFO]) when this returns 0. 1: no thread, inflate it
 * here. */
static int start_stream(struct dw_secs *s, struct job *j)
{
	struct dw_stream *st = calloc(1, sizeof(*st));

	if (!st)
		return -ENOMEM;
	st->job = *j;
	st->job.out = out_buffer(j->out_size, &s->owned_len[DW_SEC_INFO]);
	if (!st->job.out) {
		free(st);
		return -ENOMEM;
	}
	pthread_mutex_init(&st->mu, NULL);
	pthread_cond_init(&st->cv, NULL);
	if (pthread_create(&st->thread, NULL, worker, st)) {
		pthread_mutex_destroy(&st->mu);
		pthread_cond_destroy(&st->cv);
		free_buffer(st->job.out, s->owned_len[DW_SEC_INFO]);
		s->owned_len[DW_SEC_INFO] = 0;
		free(st);
		return 1;
	}
	s->info = st;
	s->owned[DW_SEC_INFO] = st->job.out;
	s->sec[DW_SEC_INFO].p = st->job.out;
	s->sec[DW_SEC_INFO].size = j->out_size;
	j->in_size = 0; /* taken */
	return 0;
}

/* Maps the whole file read-only: sections are used where they lie. */
static int map_file(int fd, struct dw_secs *s)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st))
		return -errno;
	if (st.st_size <= 0)
		return 0;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return errno == ENOMEM ? -ENOMEM : -ENOEXEC;
	s->map = p;
	s->map_size = (size_t)st.st_size;
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
	err = map_file(fd, s);
	if (err)
		return err;
	while ((scn = elf_nextscn(elf, scn))) {
		const unsigned char *bytes;
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
		if (sh.sh_offset > s->map_size || sh.sh_size > s->map_size - sh.sh_offset)
			continue; /* not inside the file: as if absent */
		bytes = (const unsigned char *)s->map + sh.sh_offset;
		if (gnu || (sh.sh_flags & SHF_COMPRESSED)) {
			if (!gnu && zlib_header(elf, bytes, &sh, &jobs[k]))
				continue;
			if (plain_bytes(scn, &sh, gnu, &s->sec[k]))
				s->sec[k] = (struct dw_sec){0}; /* unreadable: as if absent */
			continue;
		}
		s->sec[k].p = bytes;
		s->sec[k].size = sh.sh_size;
	}
	if (!found) {
		dwarf_secs__free(s);
		return -ENODATA;
	}
	/* The largest section is inflated on a thread while this one inflates
	 * the others (and then decodes the line programs). */
	if (jobs[DW_SEC_INFO].in_size && jobs[DW_SEC_INFO].out_size > THREAD_MIN) {
		err = start_stream(s, &jobs[DW_SEC_INFO]);
		if (err < 0) {
			dwarf_secs__free(s);
			return err;
		}
		err = 0;
	}
	for (i = 0; i < DW_NSECS; i++) {
		if (!jobs[i].in_size)
			continue;
		jobs[i].out = out_buffer(jobs[i].out_size, &s->owned_len[i]);
		if (!jobs[i].out) {
			err = -ENOMEM;
			continue;
		}
		run_job(&jobs[i]);
		if (jobs[i].err == -ENOMEM)
			err = -ENOMEM;
		if (jobs[i].err) {
			free_buffer(jobs[i].out, s->owned_len[i]);
			s->owned_len[i] = 0;
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
	int err;

	(void)want; /* inflated whole: all or nothing */
	if (!st)
		return s->sec[DW_SEC_INFO].size;
	pthread_mutex_lock(&st->mu);
	while (!st->done)
		pthread_cond_wait(&st->cv, &st->mu);
	err = st->job.err;
	pthread_mutex_unlock(&st->mu);
	return err ? 0 : s->sec[DW_SEC_INFO].size;
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
		free_buffer(s->owned[i], s->owned_len[i]);
	if (s->map)
		munmap(s->map, s->map_size);
	memset(s, 0, sizeof(*s));
}
