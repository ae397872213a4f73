/* test-symbolize-elf.c: elf_symtab against small ELF files built byte by
 * byte, so every rule can be checked exactly: which symbols are kept, alias
 * choice, sizes and gaps, unsized symbols, file offset -> vaddr, build-id
 * from PT_NOTE or from a section. Then the same file truncated at every
 * length and mutated a few thousand times: loading must fail with ENOEXEC
 * or give a table that looks up safely (run it under ASan+UBSan). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/symbolize.h"

static char tmpdir[] = "/tmp/test-symbolize-elf.XXXXXX";
static char elf_path[256];

/* The file's layout: every piece at a fixed offset. */
enum {
	OFF_PHDR = 0x40,
	OFF_NOTE = 0x100,
	OFF_TEXT = 0x1000,
	TEXT_SIZE = 0x1000,
	TEXT_ADDR = 0x401000,
	OFF_DATA = 0x2000,
	DATA_SIZE = 0x100,
	DATA_ADDR = 0x403000,
	OFF_SYMTAB = 0x2100,
	OFF_STRTAB = 0x2400,
	OFF_DYNSYM = 0x2800,
	OFF_DYNSTR = 0x2a00,
	OFF_SHSTRTAB = 0x2c00,
	OFF_SHDRS = 0x2d00,
	NSECTIONS = 9,
	FILE_SIZE = OFF_SHDRS + NSECTIONS * sizeof(Elf64_Shdr),
	MAX_SYMS = 32,
};

enum { SEC_TEXT = 1, SEC_DATA, SEC_NOTE, SEC_SYMTAB, SEC_STRTAB, SEC_DYNSYM, SEC_DYNSTR,
       SEC_SHSTRTAB };

struct tsym {
	const char *name; /* NULL: use name_off as is */
	uint64_t value, size;
	unsigned type, bind;
	uint16_t shndx;
	uint32_t name_off;
};

struct telf {
	const struct tsym *symtab, *dynsym;
	size_t nsymtab, ndynsym;
	const unsigned char *build_id;
	size_t build_id_len;
	int note_in_phdr; /* else only the section has it */
};

static unsigned char image[FILE_SIZE];

static size_t put_str(unsigned char *base, size_t *len, const char *s)
{
	size_t off = *len;

	memcpy(base + off, s, strlen(s) + 1);
	*len += strlen(s) + 1;
	return off;
}

static size_t put_syms(size_t sym_off, size_t str_off, const struct tsym *syms, size_t n)
{
	Elf64_Sym *out = (Elf64_Sym *)(image + sym_off);
	size_t i, str_len = 1; /* "" at 0 */

	assert_true(n < MAX_SYMS);
	memset(out, 0, sizeof(*out)); /* the null symbol */
	for (i = 0; i < n; i++) {
		Elf64_Sym *s = &out[i + 1];

		s->st_name = syms[i].name ? (uint32_t)put_str(image + str_off, &str_len, syms[i].name)
					  : syms[i].name_off;
		s->st_value = syms[i].value;
		s->st_size = syms[i].size;
		s->st_info = ELF64_ST_INFO(syms[i].bind, syms[i].type);
		s->st_shndx = syms[i].shndx;
	}
	assert_true(str_len < 0x200);
	return str_len;
}

static void set_shdr(unsigned idx, uint32_t name, uint32_t type, uint64_t flags, uint64_t addr,
		     uint64_t off, uint64_t size, uint32_t link, uint64_t entsize)
{
	Elf64_Shdr *sh = (Elf64_Shdr *)(image + OFF_SHDRS) + idx;

	sh->sh_name = name;
	sh->sh_type = type;
	sh->sh_flags = flags;
	sh->sh_addr = addr;
	sh->sh_offset = off;
	sh->sh_size = size;
	sh->sh_link = link;
	sh->sh_info = link ? 1 : 0;
	sh->sh_addralign = 1;
	sh->sh_entsize = entsize;
}

static void build(const struct telf *spec)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)image;
	Elf64_Phdr *ph = (Elf64_Phdr *)(image + OFF_PHDR);
	Elf64_Nhdr *nh = (Elf64_Nhdr *)(image + OFF_NOTE);
	size_t shstr_len = 1, note_size = 0, strtab_len, dynstr_len;
	uint32_t names[NSECTIONS];
	static const char *const sec_names[NSECTIONS] = {
		"", ".text", ".data", ".note.gnu.build-id", ".symtab", ".strtab", ".dynsym",
		".dynstr", ".shstrtab",
	};
	unsigned i;

	memset(image, 0, sizeof(image));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = OFF_PHDR;
	eh->e_shoff = OFF_SHDRS;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = spec->note_in_phdr ? 2 : 1;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = NSECTIONS;
	eh->e_shstrndx = SEC_SHSTRTAB;

	for (i = 0; i < NSECTIONS; i++)
		names[i] = (uint32_t)put_str(image + OFF_SHSTRTAB, &shstr_len, sec_names[i]);
	if (spec->build_id_len) {
		nh->n_namesz = 4;
		nh->n_descsz = (uint32_t)spec->build_id_len;
		nh->n_type = NT_GNU_BUILD_ID;
		memcpy(nh + 1, "GNU", 4);
		memcpy((unsigned char *)(nh + 1) + 4, spec->build_id, spec->build_id_len);
		note_size = sizeof(*nh) + 4 + ((spec->build_id_len + 3) & ~(size_t)3);
	}
	ph[0] = (Elf64_Phdr){
		.p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = OFF_TEXT,
		.p_vaddr = TEXT_ADDR, .p_paddr = TEXT_ADDR, .p_filesz = TEXT_SIZE,
		.p_memsz = TEXT_SIZE, .p_align = 0x1000,
	};
	ph[1] = (Elf64_Phdr){
		.p_type = PT_NOTE, .p_flags = PF_R, .p_offset = OFF_NOTE, .p_vaddr = 0x400100,
		.p_filesz = note_size, .p_memsz = note_size, .p_align = 4,
	};
	memset(image + OFF_TEXT, 0xcc, TEXT_SIZE);
	strtab_len = put_syms(OFF_SYMTAB, OFF_STRTAB, spec->symtab, spec->nsymtab);
	dynstr_len = put_syms(OFF_DYNSYM, OFF_DYNSTR, spec->dynsym, spec->ndynsym);

	set_shdr(SEC_TEXT, names[SEC_TEXT], SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, TEXT_ADDR,
		 OFF_TEXT, TEXT_SIZE, 0, 0);
	set_shdr(SEC_DATA, names[SEC_DATA], SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, DATA_ADDR,
		 OFF_DATA, DATA_SIZE, 0, 0);
	set_shdr(SEC_NOTE, names[SEC_NOTE], note_size ? SHT_NOTE : SHT_PROGBITS, SHF_ALLOC,
		 0x400100, OFF_NOTE, note_size, 0, 0);
	set_shdr(SEC_SYMTAB, names[SEC_SYMTAB], SHT_SYMTAB, 0, 0, OFF_SYMTAB,
		 (spec->nsymtab + 1) * sizeof(Elf64_Sym), SEC_STRTAB, sizeof(Elf64_Sym));
	set_shdr(SEC_STRTAB, names[SEC_STRTAB], SHT_STRTAB, 0, 0, OFF_STRTAB, strtab_len, 0, 0);
	set_shdr(SEC_DYNSYM, names[SEC_DYNSYM], SHT_DYNSYM, SHF_ALLOC, 0, OFF_DYNSYM,
		 (spec->ndynsym + 1) * sizeof(Elf64_Sym), SEC_DYNSTR, sizeof(Elf64_Sym));
	set_shdr(SEC_DYNSTR, names[SEC_DYNSTR], SHT_STRTAB, SHF_ALLOC, 0, OFF_DYNSTR, dynstr_len,
		 0, 0);
	set_shdr(SEC_SHSTRTAB, names[SEC_SHSTRTAB], SHT_STRTAB, 0, 0, OFF_SHSTRTAB, shstr_len, 0,
		 0);
}

static void write_image(const unsigned char *data, size_t len)
{
	FILE *f = fopen(elf_path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static struct elf_symtab *build_and_load(const struct telf *spec)
{
	struct elf_symtab *t;

	build(spec);
	write_image(image, sizeof(image));
	t = elf_symtab__load(elf_path);
	if (!t)
		fail_msg("load: %s", strerror(errno));
	return t;
}

#define FUNC(n, v, s) {.name = n, .value = v, .size = s, .type = STT_FUNC, .bind = STB_GLOBAL, \
			.shndx = SEC_TEXT}

static const struct tsym main_symtab[] = {
	FUNC("alpha", 0x401000, 0x20),
	{.name = "beta", .value = 0x401040, .type = STT_FUNC, .bind = STB_LOCAL,
	 .shndx = SEC_TEXT},
	FUNC("gamma", 0x401080, 0x10),
	{.name = "asm_sized", .value = 0x401100, .size = 8, .type = STT_NOTYPE,
	 .bind = STB_GLOBAL, .shndx = SEC_TEXT},
	{.name = "asm_unsized", .value = 0x401180, .type = STT_NOTYPE, .bind = STB_GLOBAL,
	 .shndx = SEC_TEXT},
	{.name = "data_notype", .value = DATA_ADDR, .size = 0x10, .type = STT_NOTYPE,
	 .bind = STB_GLOBAL, .shndx = SEC_DATA},
	{.name = "an_object", .value = DATA_ADDR + 0x20, .size = 8, .type = STT_OBJECT,
	 .bind = STB_GLOBAL, .shndx = SEC_DATA},
	{.name = "ifunc_sym", .value = 0x401200, .size = 0x10, .type = STT_GNU_IFUNC,
	 .bind = STB_GLOBAL, .shndx = SEC_TEXT},
	FUNC("__libc_thing", 0x401300, 0x20),
	{.name = "thing", .value = 0x401300, .size = 0x20, .type = STT_FUNC, .bind = STB_WEAK,
	 .shndx = SEC_TEXT},
	/* perf's choice among aliases, less its two exceptions (elf-symtab.c,
	 * cand_cmp): a public name over a local one, a plain name over an old
	 * version's alias. */
	{.name = "__GI_write", .value = 0x401340, .size = 0x10, .type = STT_FUNC,
	 .bind = STB_LOCAL, .shndx = SEC_TEXT},
	{.name = "write", .value = 0x401340, .size = 0x10, .type = STT_FUNC, .bind = STB_WEAK,
	 .shndx = SEC_TEXT},
	FUNC("cfree@GLIBC_2.2.5", 0x401360, 0x10),
	FUNC("free", 0x401360, 0x10),
	FUNC("__memcpy_avx", 0x401380, 0x10),
	FUNC("__memmove_avx", 0x401380, 0x10),
	FUNC("a_unsized", 0x4013a0, 0),
	{.name = "__sized", .value = 0x4013a0, .size = 0x10, .type = STT_FUNC, .bind = STB_WEAK,
	 .shndx = SEC_TEXT},
	FUNC("outer", 0x401400, 0x100),
	FUNC("inner", 0x401410, 0x10),
	{.name = "abs_func", .value = 0x401e00, .size = 0x10, .type = STT_FUNC,
	 .bind = STB_GLOBAL, .shndx = SHN_ABS},
	{.name = "last_unsized", .value = 0x401f00, .type = STT_FUNC, .bind = STB_GLOBAL,
	 .shndx = SEC_TEXT},
	{.name = "undefined", .type = STT_FUNC, .bind = STB_GLOBAL, .shndx = SHN_UNDEF},
	{.name = NULL, .name_off = 0xffff, .value = 0x401500, .size = 0x10, .type = STT_FUNC,
	 .bind = STB_GLOBAL, .shndx = SEC_TEXT},
	{.name = "bad_shndx", .value = 0x401600, .size = 0x10, .type = STT_NOTYPE,
	 .bind = STB_GLOBAL, .shndx = 0x1234},
};

static const struct tsym main_dynsym[] = {
	FUNC("gamma_dyn", 0x401080, 0x10),
	FUNC("delta", 0x4010c0, 0x10),
	FUNC("beta_dyn", 0x401040, 0x8), /* lends beta its size */
};

static const unsigned char main_build_id[20] = {
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc,
	0xba, 0x98, 0x76, 0x54, 0x32, 0x10, 0x00, 0xff, 0x0a, 0xa0,
};

static const struct telf main_spec = {
	.symtab = main_symtab,
	.nsymtab = sizeof(main_symtab) / sizeof(main_symtab[0]),
	.dynsym = main_dynsym,
	.ndynsym = sizeof(main_dynsym) / sizeof(main_dynsym[0]),
	.build_id = main_build_id,
	.build_id_len = sizeof(main_build_id),
	.note_in_phdr = 1,
};

static void expect_vaddr(const struct elf_symtab *t, uint64_t vaddr, const char *want,
			 uint64_t want_off)
{
	const char *name = NULL;
	uint64_t off = 0;
	int found = elf_symtab__lookup_vaddr(t, vaddr, &name, &off);

	if (!want) {
		if (found)
			fail_msg("%#llx resolved to %s+%#llx", (unsigned long long)vaddr, name,
				 (unsigned long long)off);
		return;
	}
	if (!found)
		fail_msg("%#llx unresolved, want %s", (unsigned long long)vaddr, want);
	assert_string_equal(name, want);
	assert_int_equal(off, want_off);
}

static void test_rules(void **state)
{
	struct elf_symtab *t = build_and_load(&main_spec);

	(void)state;
	/* alpha beta gamma delta asm_sized ifunc_sym __libc_thing write free
	 * __memmove_avx __sized outer inner abs_func last_unsized */
	assert_int_equal(elf_symtab__count(t), 15);
	expect_vaddr(t, 0x400fff, NULL, 0);
	expect_vaddr(t, 0x401000, "alpha", 0);
	expect_vaddr(t, 0x40101f, "alpha", 0x1f);
	expect_vaddr(t, 0x401020, NULL, 0); /* a gap after a sized symbol */
	expect_vaddr(t, 0x401044, "beta", 4);
	expect_vaddr(t, 0x401048, NULL, 0); /* beta's size came from beta_dyn */
	expect_vaddr(t, 0x401085, "gamma", 5); /* .symtab's name over .dynsym's */
	expect_vaddr(t, 0x4010c4, "delta", 4); /* only in .dynsym */
	expect_vaddr(t, 0x401104, "asm_sized", 4);
	expect_vaddr(t, 0x401180, NULL, 0); /* unsized NOTYPE is not a function */
	expect_vaddr(t, DATA_ADDR, NULL, 0);
	expect_vaddr(t, DATA_ADDR + 0x20, NULL, 0);
	expect_vaddr(t, 0x40120f, "ifunc_sym", 0xf);
	expect_vaddr(t, 0x401300, "__libc_thing", 0); /* global over weak "thing", as perf */
	expect_vaddr(t, 0x401340, "write", 0);         /* public over local __GI_write */
	expect_vaddr(t, 0x401360, "free", 0);          /* over cfree@GLIBC_2.2.5 */
	expect_vaddr(t, 0x401380, "__memmove_avx", 0); /* the longest, as perf */
	expect_vaddr(t, 0x4013a8, "__sized", 8);       /* sized over unsized */
	expect_vaddr(t, 0x401418, "inner", 8);
	expect_vaddr(t, 0x401480, "outer", 0x80); /* inner ended, outer goes on */
	expect_vaddr(t, 0x401500, NULL, 0);       /* its name was out of range */
	expect_vaddr(t, 0x401600, NULL, 0);       /* its section does not exist */
	expect_vaddr(t, 0x401e08, "abs_func", 8);
	expect_vaddr(t, 0x401f00, "last_unsized", 0);
	expect_vaddr(t, 0x401fff, "last_unsized", 0xff); /* to the end of .text */
	expect_vaddr(t, 0x402000, NULL, 0);
	expect_vaddr(t, 0, NULL, 0);
	expect_vaddr(t, UINT64_MAX, NULL, 0);
	elf_symtab__free(t);
}

static void test_offsets(void **state)
{
	struct elf_symtab *t = build_and_load(&main_spec);
	const char *name;
	uint64_t off;

	(void)state;
	/* vaddr = offset - p_offset + p_vaddr, inside the PT_LOAD only. */
	assert_int_equal(elf_symtab__lookup_offset(t, OFF_TEXT + 0x10, &name, &off), 1);
	assert_string_equal(name, "alpha");
	assert_int_equal(off, 0x10);
	assert_int_equal(elf_symtab__lookup_offset(t, OFF_TEXT + TEXT_SIZE - 1, &name, &off), 1);
	assert_string_equal(name, "last_unsized");
	assert_int_equal(elf_symtab__lookup_offset(t, OFF_TEXT + TEXT_SIZE, &name, &off), 0);
	assert_int_equal(elf_symtab__lookup_offset(t, OFF_TEXT - 1, &name, &off), 0);
	assert_int_equal(elf_symtab__lookup_offset(t, 0x10, &name, &off), 0);
	/* A vaddr is not an offset. */
	assert_int_equal(elf_symtab__lookup_offset(t, 0x401000, &name, &off), 0);
	elf_symtab__free(t);
}

static void test_build_id(void **state)
{
	struct telf spec = main_spec;
	struct elf_symtab *t;

	(void)state;
	t = build_and_load(&spec);
	assert_string_equal(elf_symtab__build_id(t), "0123456789abcdeffedcba9876543210" "00ff0aa0");
	elf_symtab__free(t);
	/* Only in the section (no PT_NOTE). */
	spec.note_in_phdr = 0;
	t = build_and_load(&spec);
	assert_string_equal(elf_symtab__build_id(t), "0123456789abcdeffedcba9876543210" "00ff0aa0");
	elf_symtab__free(t);
	/* An odd length, in the section only. */
	spec.build_id_len = 5;
	t = build_and_load(&spec);
	assert_string_equal(elf_symtab__build_id(t), "0123456789");
	elf_symtab__free(t);
	spec.build_id_len = 0;
	t = build_and_load(&spec);
	assert_string_equal(elf_symtab__build_id(t), "");
	elf_symtab__free(t);
}

static void test_empty_and_extreme(void **state)
{
	static const struct tsym high[] = {
		{.name = "top", .value = UINT64_MAX - 0xf, .size = 0x100, .type = STT_FUNC,
		 .bind = STB_GLOBAL, .shndx = SHN_ABS},
		{.name = "low_unsized", .value = 0x10, .type = STT_FUNC, .bind = STB_GLOBAL,
		 .shndx = SHN_ABS},
	};
	struct telf spec = {0};
	struct elf_symtab *t;
	const char *name;
	uint64_t off;

	(void)state;
	t = build_and_load(&spec);
	assert_int_equal(elf_symtab__count(t), 0);
	assert_string_equal(elf_symtab__build_id(t), "");
	assert_int_equal(elf_symtab__lookup_vaddr(t, 0x401000, &name, &off), 0);
	assert_int_equal(elf_symtab__lookup_offset(t, OFF_TEXT, &name, &off), 0);
	elf_symtab__free(t);
	/* A size that runs past the top of memory; an unsized symbol with no
	 * section, running to the next symbol. */
	spec.symtab = high;
	spec.nsymtab = 2;
	t = build_and_load(&spec);
	assert_int_equal(elf_symtab__count(t), 2);
	expect_vaddr(t, UINT64_MAX - 1, "top", 0xe); /* end saturates */
	expect_vaddr(t, 0x20, "low_unsized", 0x10);
	elf_symtab__free(t);
}

/* Every shorter prefix of the file cuts into its section headers. */
static void test_truncated_everywhere(void **state)
{
	struct elf_symtab *t;
	size_t len;

	(void)state;
	build(&main_spec);
	for (len = 0; len < sizeof(image); len += len < 0x200 ? 1 : 37) {
		write_image(image, len);
		errno = 0;
		t = elf_symtab__load(elf_path);
		if (t)
			fail_msg("a file cut at %zu bytes loaded", len);
		assert_int_equal(errno, ENOEXEC);
	}
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Flips bytes, mostly in the headers, symbols and notes, where they matter. */
static void mutate(unsigned char *buf)
{
	static const size_t hot[][2] = {
		{0, 0x100},                               /* ELF and program headers */
		{OFF_NOTE, 0x40},                         /* the note */
		{OFF_SYMTAB, 0x300},                      /* symbols */
		{OFF_DYNSYM, 0x80},                       /* dynamic symbols */
		{OFF_SHDRS, NSECTIONS * sizeof(Elf64_Shdr)}, /* section headers */
	};
	unsigned n = 1 + rng() % 6, i;

	for (i = 0; i < n; i++) {
		size_t r = rng() % 8, pos;
		uint64_t v = rng();

		if (r < 6) {
			const size_t *h = hot[rng() % (sizeof(hot) / sizeof(hot[0]))];

			pos = h[0] + rng() % h[1];
		} else {
			pos = rng() % FILE_SIZE;
		}
		switch (rng() % 4) {
		case 0:
			buf[pos] ^= (unsigned char)(1u << (v % 8));
			break;
		case 1:
			buf[pos] = (unsigned char)v;
			break;
		case 2:
			buf[pos] = 0xff;
			break;
		default:
			/* A plausible-but-wrong 8-byte field. */
			pos &= ~(size_t)7;
			if (pos + 8 <= FILE_SIZE) {
				uint64_t x = (v & 1) ? UINT64_MAX - (v >> 60) : v % (2 * FILE_SIZE);

				memcpy(buf + pos, &x, 8);
			}
			break;
		}
	}
}

static void test_mutations(void **state)
{
	static unsigned char copy[FILE_SIZE];
	unsigned iter, loaded = 0;

	(void)state;
	build(&main_spec);
	for (iter = 0; iter < 3000; iter++) {
		struct elf_symtab *t;
		const char *name;
		uint64_t a, off;

		memcpy(copy, image, sizeof(copy));
		mutate(copy);
		write_image(copy, sizeof(copy));
		errno = 0;
		t = elf_symtab__load(elf_path);
		if (!t) {
			if (errno != ENOEXEC)
				fail_msg("iteration %u: errno %d", iter, errno);
			continue;
		}
		loaded++;
		for (a = TEXT_ADDR - 0x100; a < TEXT_ADDR + 0x1100; a += 3)
			if (elf_symtab__lookup_vaddr(t, a, &name, &off))
				assert_true(strlen(name) < FILE_SIZE && off <= a);
		for (a = 0; a < FILE_SIZE; a += 61)
			(void)elf_symtab__lookup_offset(t, a, &name, &off);
		assert_true(strlen(elf_symtab__build_id(t)) <= 128);
		elf_symtab__free(t);
	}
	/* Most mutations leave a loadable file: the test did reach the
	 * symbol code, not only the header checks. */
	assert_true(loaded > 300);
}

static int group_setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(elf_path, sizeof(elf_path), "%s/synth.so", tmpdir);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	unlink(elf_path);
	return rmdir(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_offsets),
		cmocka_unit_test(test_build_id),
		cmocka_unit_test(test_empty_and_extreme),
		cmocka_unit_test(test_truncated_everywhere),
		cmocka_unit_test(test_mutations),
	};

	return cmocka_run_group_tests_name("symbolize-elf", tests, group_setup, group_teardown);
}
