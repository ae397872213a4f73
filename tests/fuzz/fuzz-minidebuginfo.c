/* fuzz-minidebuginfo.c: libFuzzer target for the MiniDebugInfo path of
 * symbolize/elf-symtab.c. The first byte picks what the rest is:
 *   odd:  an xz stream, given to minidebuginfo_decompress() with a small
 *         bound (corrupt streams, bombs, trailing bytes);
 *   even: the decompressed ELF image: it is wrapped as an xz stream into
 *         the .gnu_debugdata section of a minimal host ELF written to a
 *         memfd, which elf_symtab__load_opts() then reads, so mutations
 *         reach the ELF and symbol parsing of the embedded image.
 * Nothing may crash, leak or allocate without bound. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <elf.h>
#include <lzma.h>

#include "symbolize/debuginfo.h"
#include "symbolize/symbolize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A host ELF: header, the section's bytes, .shstrtab, 3 section headers. */
static size_t host_elf(unsigned char *out, size_t cap, const unsigned char *sec, size_t len)
{
	static const char shstr[] = "\0.shstrtab\0.gnu_debugdata";
	size_t off_sec = sizeof(Elf64_Ehdr), off_str = off_sec + len;
	size_t off_sh = (off_str + sizeof(shstr) + 7) & ~(size_t)7;
	size_t total = off_sh + 3 * sizeof(Elf64_Shdr);
	Elf64_Ehdr eh;
	Elf64_Shdr sh[3];

	if (total > cap)
		return 0;
	memset(out, 0, total);
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_shoff = off_sh;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 3;
	eh.e_shstrndx = 1;
	memcpy(out, &eh, sizeof(eh));
	memcpy(out + off_sec, sec, len);
	memcpy(out + off_str, shstr, sizeof(shstr));
	memset(sh, 0, sizeof(sh));
	sh[1].sh_name = 1;
	sh[1].sh_type = SHT_STRTAB;
	sh[1].sh_offset = off_str;
	sh[1].sh_size = sizeof(shstr);
	sh[1].sh_addralign = 1;
	sh[2].sh_name = 11;
	sh[2].sh_type = SHT_PROGBITS;
	sh[2].sh_offset = off_sec;
	sh[2].sh_size = len;
	sh[2].sh_addralign = 1;
	memcpy(out + off_sh, sh, sizeof(sh));
	return total;
}

/* An .xz stream holding `in` in uncompressed LZMA2 chunks: real
 * compression (even preset 0) cost 75% of this target's time in encoder
 * set-up, and the decoder's path through the container and LZMA2 is the
 * same. 0 or -1. */
static int xz(const uint8_t *in, size_t len, unsigned char *out, size_t *outlen, size_t cap)
{
	lzma_stream_flags sf = {.version = 0, .check = LZMA_CHECK_CRC32};
	lzma_block block = {.version = 0, .check = LZMA_CHECK_CRC32};
	lzma_filter filters[2] = {{LZMA_FILTER_LZMA2, NULL}, {LZMA_VLI_UNKNOWN, NULL}};
	size_t pos = LZMA_STREAM_HEADER_SIZE;
	lzma_index *idx;
	int ok;

	block.filters = filters;
	if (cap < LZMA_STREAM_HEADER_SIZE || lzma_stream_header_encode(&sf, out) != LZMA_OK ||
	    lzma_block_uncomp_encode(&block, in, len, out, &pos, cap) != LZMA_OK)
		return -1;
	idx = lzma_index_init(NULL);
	if (!idx)
		return -1;
	ok = lzma_index_append(idx, NULL, lzma_block_unpadded_size(&block),
			       block.uncompressed_size) == LZMA_OK &&
	     lzma_index_buffer_encode(idx, out, &pos, cap) == LZMA_OK &&
	     cap - pos >= LZMA_STREAM_HEADER_SIZE;
	sf.backward_size = lzma_index_size(idx);
	lzma_index_end(idx, NULL);
	if (!ok || lzma_stream_footer_encode(&sf, out + pos) != LZMA_OK)
		return -1;
	*outlen = pos + LZMA_STREAM_HEADER_SIZE;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	volatile size_t sink = 0;

	if (!size)
		return 0;
	if (data[0] & 1) {
		void *out;
		size_t outlen;

		if (!minidebuginfo_decompress(data + 1, size - 1, 1u << 20, &out, &outlen))
			sink += outlen;
		free(out);
		return 0;
	}
	{
		size_t cap = size + size / 2 + 4096, zlen = 0, hlen;
		unsigned char *z = malloc(cap), *host = malloc(cap + 4096);
		char path[64];
		int fd = -1;

		if (!z || !host || xz(data + 1, size - 1, z, &zlen, cap))
			goto out;
		hlen = host_elf(host, cap + 4096, z, zlen);
		fd = memfd_create("fuzz-minidebuginfo", MFD_CLOEXEC);
		if (!hlen || fd < 0 || write(fd, host, hlen) != (ssize_t)hlen)
			goto out;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		{
			struct elf_symtab_opts o = {.debug_dirs = "/nonexistent"};
			struct elf_symtab *t = elf_symtab__load_opts(path, &o);
			uint64_t a, off;
			const char *name;

			if (t) {
				for (a = 0; a < 0x10000; a += 0x101)
					if (elf_symtab__lookup_vaddr(t, a, &name, &off))
						sink += strlen(name);
				sink += elf_symtab__count(t) + strlen(elf_symtab__source(t));
				elf_symtab__free(t);
			}
		}
out:
		if (fd >= 0)
			close(fd);
		free(z);
		free(host);
	}
	return 0;
}
