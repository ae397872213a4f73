/* dwarf-secs.c: the debug sections the DWARF tables are built from, read
 * with libelf and inflated here, only those (see dwarf-int.h).
 *
 * libdw's dwarf_begin_elf inflates every debug section it knows, the
 * location lists (a sixth of libc's DWARF) included, one after the other.
 * Here only the sections the tables need are read, and zlib-compressed
 * ones (SHF_COMPRESSED, ELFCOMPRESS_ZLIB) are inflated by zlib directly,
 * raw (the Adler-32 check is skipped: the data is bounds-checked as it is
 * decoded anyway), .debug_info on a second thread while this one inflates
 * the rest: on a 2-CPU machine that halves the wait. Other compressions
 * (zstd, the old .zdebug_ format) go through libelf on this thread. libelf
 * is called from this thread only: the worker sees plain buffers. */
#include <errno.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* A zlib stream to inflate into a buffer of known size. */
struct job {
	const unsigned char *in;
	size_t in_size, out_size;
	unsigned char *out;
	int err;
};

static void run_job(struct job *j)
{
	z_stream z;
	size_t done = 0;
	int rc = Z_OK;

	j->err = -EBADMSG;
	/* The zlib header: deflate, a window zlib can take, no preset
	 * dictionary, and a valid check of the two bytes. */
	if (j->in_size < 2 || (j->in[0] & 0x0f) != 8 || (j->in[0] >> 4) > 7 ||
	    (j->in[1] & 0x20) || ((unsigned)j->in[0] << 8 | j->in[1]) % 31)
		return;
	j->out = malloc(j->out_size ? j->out_size : 1);
	if (!j->out) {
		j->err = -ENOMEM;
		return;
	}
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, -15) != Z_OK) {
		j->err = -ENOMEM;
		return;
	}
	z.next_in = (unsigned char *)j->in + 2;
	z.avail_in = 0;
	while (rc == Z_OK) {
		size_t in_left = j->in_size - 2 - (size_t)(z.next_in - (j->in + 2));
		size_t out_left = j->out_size - done;

		if (!z.avail_in)
			z.avail_in = in_left > UINT32_MAX ? UINT32_MAX : (uInt)in_left;
		z.next_out = j->out + done;
		z.avail_out = out_left > UINT32_MAX ? UINT32_MAX : (uInt)out_left;
		if (!z.avail_out)
			break;
		rc = inflate(&z, Z_NO_FLUSH);
		done = (size_t)(z.next_out - j->out);
		if (rc == Z_BUF_ERROR && !z.avail_in)
			break; /* input ended early */
	}
	inflateEnd(&z);
	if (done == j->out_size && (rc == Z_STREAM_END || rc == Z_OK))
		j->err = 0;
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

int dwarf_secs__read(Elf *elf, struct dw_secs *s)
{
	struct job jobs[DW_NSECS];
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	pthread_t th;
	int started = 0, i, err = 0, found = 0;

	memset(s, 0, sizeof(*s));
	memset(jobs, 0, sizeof(jobs));
	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENOEXEC;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		GElf_Chdr ch;
		Elf_Data *raw;
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
		if (k < 0 || s->sec[k].p || jobs[k].in)
			continue; /* not wanted, or a second copy */
		if (k == DW_SEC_INFO)
			found = 1;
		if (!gnu && (sh.sh_flags & SHF_COMPRESSED) && gelf_getchdr(scn, &ch) &&
		    ch.ch_type == ELFCOMPRESS_ZLIB && ch.ch_size < MAX_INFLATED &&
		    (raw = elf_rawdata(scn, NULL)) && raw->d_buf) {
			size_t hdr = gelf_getclass(elf) == ELFCLASS32 ? sizeof(Elf32_Chdr)
								      : sizeof(Elf64_Chdr);

			if (raw->d_size < hdr)
				continue;
			jobs[k].in = (const unsigned char *)raw->d_buf + hdr;
			jobs[k].in_size = raw->d_size - hdr;
			jobs[k].out_size = ch.ch_size;
			continue;
		}
		if (plain_bytes(scn, &sh, gnu, &s->sec[k]))
			s->sec[k] = (struct dw_sec){0}; /* unreadable: as if absent */
	}
	if (!found)
		return -ENODATA;
	/* The largest section on the worker, the others here. */
	if (jobs[DW_SEC_INFO].in && jobs[DW_SEC_INFO].out_size > (1u << 20) &&
	    !pthread_create(&th, NULL, worker, &jobs[DW_SEC_INFO]))
		started = 1;
	for (i = 0; i < DW_NSECS; i++)
		if (jobs[i].in && !(started && i == DW_SEC_INFO))
			run_job(&jobs[i]);
	if (started)
		pthread_join(th, NULL);
	for (i = 0; i < DW_NSECS; i++) {
		if (!jobs[i].in)
			continue;
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

void dwarf_secs__free(struct dw_secs *s)
{
	int i;

	for (i = 0; i < DW_NSECS; i++)
		free(s->owned[i]);
	memset(s, 0, sizeof(*s));
}
