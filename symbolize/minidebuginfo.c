/* minidebuginfo.c: decompresses a binary's .gnu_debugdata section
 * ("MiniDebugInfo": an xz-compressed ELF file holding a .symtab of the
 * functions .dynsym lacks, as Fedora and other distributions ship it) and
 * opens it with elf_memory() (minidebuginfo_open()), so that elf-symtab.c
 * and elf-function.c read the symbols from it one way.
 *
 * The section is untrusted: the output is capped (max_out) and so is the
 * decoder's memory (a stream can ask for a dictionary of gigabytes), and the
 * output buffer grows geometrically from a small start rather than trusting
 * any size the stream claims. liblzma lives only in this file. */
#include "debuginfo.h"
#include "symbolize/elf-file.h"

#include <errno.h>
#include <lzma.h>
#include <stdlib.h>

/* xz -9 uses a 64 MiB dictionary; Fedora's minidebuginfo uses the default
 * (8 MiB). 128 MiB of decoder state is more than any real stream needs. */
#define DECODER_MEMLIMIT (128u << 20)

int minidebuginfo_decompress(const void *xz, size_t len, size_t max_out, void **out,
			     size_t *outlen)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	unsigned char *buf = NULL;
	size_t cap = 0;
	lzma_ret ret;
	int err = 0;

	*out = NULL;
	*outlen = 0;
	if (!len || !max_out)
		return -EBADMSG;
	/* No LZMA_CONCATENATED: one stream, and trailing bytes are an error. */
	ret = lzma_stream_decoder(&strm, DECODER_MEMLIMIT, 0);
	if (ret != LZMA_OK)
		return ret == LZMA_MEM_ERROR ? -ENOMEM : -EINVAL;
	strm.next_in = xz;
	strm.avail_in = len;
	for (;;) {
		if (strm.avail_out == 0) {
			size_t used = cap - strm.avail_out, ncap;
			unsigned char *nbuf;

			if (cap >= max_out) {
				err = -EFBIG;
				break;
			}
			ncap = cap ? cap * 2 : 64 * 1024;
			if (ncap > max_out || ncap < cap)
				ncap = max_out;
			nbuf = realloc(buf, ncap);
			if (!nbuf) {
				err = -ENOMEM;
				break;
			}
			buf = nbuf;
			strm.next_out = buf + used;
			strm.avail_out = ncap - used;
			cap = ncap;
		}
		ret = lzma_code(&strm, LZMA_FINISH);
		if (ret == LZMA_STREAM_END)
			break;
		if (ret == LZMA_OK)
			continue;
		if (ret == LZMA_BUF_ERROR && strm.avail_out == 0)
			continue; /* room was all used: grow and go on */
		err = ret == LZMA_MEM_ERROR ? -ENOMEM : -EBADMSG;
		break;
	}
	if (!err && strm.avail_in)
		err = -EBADMSG; /* bytes after the stream */
	if (err) {
		free(buf);
		lzma_end(&strm);
		return err;
	}
	*outlen = cap - strm.avail_out;
	lzma_end(&strm);
	*out = buf ? buf : malloc(1);
	return *out ? 0 : -ENOMEM;
}

int minidebuginfo_open(Elf *bin, Elf **elf, void **image, size_t *len)
{
	Elf_Scn *scn = elf_section_by_name(bin, ".gnu_debugdata");
	Elf_Data *d;
	int err;

	*elf = NULL;
	*image = NULL;
	*len = 0;
	if (!scn)
		return 0;
	d = elf_rawdata(scn, NULL);
	if (!d || !d->d_buf || !d->d_size)
		return 0;
	err = minidebuginfo_decompress(d->d_buf, d->d_size, MINIDEBUGINFO_MAX_OUT, image, len);
	if (err)
		return err == -ENOMEM ? err : 0;
	*elf = elf_memory(*image, *len);
	if (*elf)
		return 1;
	err = elf_last_error();
	free(*image);
	*image = NULL;
	*len = 0;
	return err == -ENOMEM ? err : 0;
}
