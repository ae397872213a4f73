/* test-symbolize.c: unit tests of symbolize/ against real files: the test
 * binary itself and libc (found through /proc/self/maps, as the recorder
 * sees them), truncated and corrupted copies, non-ELF files, kallsyms text,
 * and symbolize_recording() over a small recording read back from disk.
 * Synthetic ELF files with exact symbol layouts are in test-symbolize-elf.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/rec-writer.h"
#include "lib/recording.h"
#include "symbolize/symbolize.h"

static char tmpdir[] = "/tmp/test-symbolize.XXXXXX";

static volatile unsigned sink;

/* The function looked up by name: static (so only .symtab has it), not
 * inlined, and big enough that offsets inside it are meaningful. */
__attribute__((noinline)) static unsigned static_marker(unsigned n)
{
	unsigned i, acc = 0;

	for (i = 0; i < n; i++)
		acc += i * sink + (acc >> 3);
	return acc;
}

static unsigned (*volatile marker_ptr)(unsigned) = static_marker;

struct mapping {
	char path[4096];
	uint64_t start, end, pgoff;
};

/* The /proc/self/maps line holding `addr`. Returns 1 if found. */
static int find_mapping(const void *addr, struct mapping *m)
{
	uintptr_t a = (uintptr_t)addr;
	char line[4096 + 256];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		int pos = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &s, &e, &off, &pos) < 3 || !pos)
			continue;
		if (a < s || a >= e)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(m->path, sizeof(m->path), "%s", line + pos);
		m->start = s;
		m->end = e;
		m->pgoff = off;
		found = 1;
	}
	fclose(f);
	return found;
}

static uint64_t file_offset(const struct mapping *m, const void *addr)
{
	return (uintptr_t)addr - m->start + m->pgoff;
}

static void tmp_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* A whole file into a malloc'ed buffer. */
static void slurp(const char *path, unsigned char **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	long len;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len >= 0);
	rewind(f);
	*data = malloc((size_t)len + 1);
	assert_non_null(*data);
	assert_int_equal(fread(*data, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*size = (size_t)len;
}

static void read_self(unsigned char **data, size_t *size)
{
	struct mapping m;

	assert_true(find_mapping((const void *)static_marker, &m));
	slurp(m.path, data, size);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int group_setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	return nftw(tmpdir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* ---- real binaries ---- */

static void test_self_static_function(void **state)
{
	struct elf_symtab *t;
	struct mapping m;
	const char *name;
	uint64_t off;

	(void)state;
	assert_int_equal(marker_ptr(3), static_marker(3));
	assert_true(find_mapping((const void *)static_marker, &m));
	t = elf_symtab__load(m.path);
	assert_non_null(t);
	assert_true(elf_symtab__count(t) > 10);
	assert_int_equal(elf_symtab__lookup_offset(t, file_offset(&m, (const void *)static_marker),
						   &name, &off),
			 1);
	assert_string_equal(name, "static_marker");
	assert_int_equal(off, 0);
	/* A return address minus one, inside the function. */
	assert_int_equal(elf_symtab__lookup_offset(
				 t, file_offset(&m, (const char *)static_marker + 5), &name, &off),
			 1);
	assert_string_equal(name, "static_marker");
	assert_int_equal(off, 5);
	/* And a global one, through the same table. */
	assert_true(find_mapping((const void *)elf_symtab__load, &m));
	assert_int_equal(elf_symtab__lookup_offset(
				 t, file_offset(&m, (const void *)elf_symtab__load), &name, &off),
			 1);
	assert_string_equal(name, "elf_symtab__load");
	/* Offsets outside every PT_LOAD segment resolve to nothing. */
	assert_int_equal(elf_symtab__lookup_offset(t, UINT64_MAX - 10, &name, &off), 0);
	elf_symtab__free(t);
}

static void test_self_build_id(void **state)
{
	struct elf_symtab *t;
	struct mapping m;
	const char *id;
	size_t i, len;

	(void)state;
	assert_true(find_mapping((const void *)static_marker, &m));
	t = elf_symtab__load(m.path);
	assert_non_null(t);
	id = elf_symtab__build_id(t);
	len = strlen(id);
	assert_true(len >= 16);
	assert_int_equal(len % 2, 0);
	for (i = 0; i < len; i++)
		assert_non_null(strchr("0123456789abcdef", id[i]));
	elf_symtab__free(t);
}

static void check_libc_function(const void *fn, const char *want)
{
	struct elf_symtab *t;
	struct mapping m;
	const char *name;
	uint64_t off;

	assert_true(find_mapping(fn, &m));
	t = elf_symtab__load(m.path);
	assert_non_null(t);
	assert_int_equal(elf_symtab__lookup_offset(t, file_offset(&m, fn), &name, &off), 1);
	/* Aliases at one address: perf's choice (elf-symtab.c, cand_cmp). */
	assert_string_equal(name, want);
	assert_int_equal(off, 0);
	assert_true(strlen(elf_symtab__build_id(t)) > 0);
	elf_symtab__free(t);
}

static int in_libasan(const void *fn)
{
	struct mapping m;

	return find_mapping(fn, &m) && strstr(m.path, "libasan");
}

static void test_libc_functions(void **state)
{
	(void)state;
	/* getpid is a weak alias of the global __getpid: perf's name. */
	check_libc_function((const void *)getpid, "__getpid");
	/* Under ASan this is libasan's interceptor, whose "malloc" is a weak
	 * alias of the global __interceptor_malloc: perf's name. */
	check_libc_function((const void *)malloc,
			    in_libasan((const void *)malloc) ? "__interceptor_malloc" : "malloc");
}

/* ---- files that are not (good) ELF ---- */

static void expect_load_error(const char *path, int want_errno)
{
	struct elf_symtab *t;

	errno = 0;
	t = elf_symtab__load(path);
	assert_null(t);
	assert_int_equal(errno, want_errno);
}

static void test_not_elf(void **state)
{
	static const char text[] = "#!/bin/sh\necho this is not an ELF file\n";
	char path[256];

	(void)state;
	tmp_path(path, sizeof(path), "not-elf");
	write_file(path, text, sizeof(text) - 1);
	expect_load_error(path, ENOEXEC);
	tmp_path(path, sizeof(path), "empty");
	write_file(path, "", 0);
	expect_load_error(path, ENOEXEC);
	tmp_path(path, sizeof(path), "fake-magic");
	write_file(path, "\177ELF", 4);
	expect_load_error(path, ENOEXEC);
	expect_load_error("/nonexistent/prof-test/libnothing.so", ENOENT);
	expect_load_error(tmpdir, EISDIR);
}

static void test_truncated(void **state)
{
	unsigned char *data;
	size_t size, cuts[8], i;
	char path[256];

	(void)state;
	read_self(&data, &size);
	cuts[0] = 16;
	cuts[1] = sizeof(Elf64_Ehdr) - 1;
	cuts[2] = sizeof(Elf64_Ehdr) + 8;
	cuts[3] = 4096;
	cuts[4] = size / 2;
	cuts[5] = size - 4096;
	cuts[6] = size - 64;
	cuts[7] = size - 1; /* the last byte of the section headers */
	tmp_path(path, sizeof(path), "truncated");
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		write_file(path, data, cuts[i]);
		expect_load_error(path, ENOEXEC);
	}
	free(data);
}

/* Writes the test binary with one field changed through `poke`, loads it
 * and checks that it either fails with ENOEXEC or yields a usable table. */
static void load_patched(const unsigned char *orig, size_t size,
			 void (*poke)(unsigned char *data, size_t size), int must_fail)
{
	unsigned char *data = malloc(size);
	struct elf_symtab *t;
	char path[256];
	const char *name;
	uint64_t off, a;

	assert_non_null(data);
	memcpy(data, orig, size);
	poke(data, size);
	tmp_path(path, sizeof(path), "patched");
	write_file(path, data, size);
	free(data);
	errno = 0;
	t = elf_symtab__load(path);
	if (!t) {
		assert_int_equal(errno, ENOEXEC);
		return;
	}
	assert_false(must_fail);
	for (a = 0; a < 1 << 20; a += 4093)
		(void)elf_symtab__lookup_offset(t, a, &name, &off);
	(void)strlen(elf_symtab__build_id(t));
	elf_symtab__free(t);
}

static Elf64_Shdr *shdrs(unsigned char *data, size_t size, size_t *n)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)data;

	assert_true(eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) <= size);
	*n = eh->e_shnum;
	return (Elf64_Shdr *)(data + eh->e_shoff);
}

static void poke_shoff(unsigned char *data, size_t size)
{
	((Elf64_Ehdr *)data)->e_shoff = size - 10;
}

static void poke_phoff(unsigned char *data, size_t size)
{
	((Elf64_Ehdr *)data)->e_phoff = (uint64_t)size + 4096;
}

static void poke_shnum(unsigned char *data, size_t size)
{
	(void)size;
	((Elf64_Ehdr *)data)->e_shnum = 0xfff0;
}

static void poke_symtab_fields(unsigned char *data, size_t size, int which)
{
	size_t n, i;
	Elf64_Shdr *sh = shdrs(data, size, &n);

	for (i = 0; i < n; i++) {
		if (sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM)
			continue;
		if (which == 0)
			sh[i].sh_link = 0xfff0; /* string table out of range */
		else if (which == 1)
			sh[i].sh_offset = (uint64_t)size - 8; /* data past the end */
		else if (which == 2)
			sh[i].sh_link = (uint32_t)i; /* links to itself */
		else if (which == 3)
			sh[i].sh_size = UINT64_MAX - 7; /* absurd size */
	}
}

static void poke_symtab_link(unsigned char *data, size_t size)
{
	poke_symtab_fields(data, size, 0);
}

static void poke_symtab_offset(unsigned char *data, size_t size)
{
	poke_symtab_fields(data, size, 1);
}

static void poke_symtab_self_link(unsigned char *data, size_t size)
{
	poke_symtab_fields(data, size, 2);
}

static void poke_symtab_size(unsigned char *data, size_t size)
{
	poke_symtab_fields(data, size, 3);
}

/* Every symbol's name offset points past its string table. */
static void poke_st_names(unsigned char *data, size_t size)
{
	size_t n, i, j;
	Elf64_Shdr *sh = shdrs(data, size, &n);

	for (i = 0; i < n; i++) {
		Elf64_Sym *syms;

		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_offset + sh[i].sh_size > size)
			continue;
		syms = (Elf64_Sym *)(data + sh[i].sh_offset);
		for (j = 0; j < sh[i].sh_size / sizeof(*syms); j++)
			syms[j].st_name = 0xfffffff0u - (uint32_t)j;
	}
}

/* Every string table loses its terminating NULs. */
static void poke_strtabs(unsigned char *data, size_t size)
{
	size_t n, i, j;
	Elf64_Shdr *sh = shdrs(data, size, &n);

	for (i = 0; i < n; i++) {
		if (sh[i].sh_type != SHT_STRTAB || sh[i].sh_offset + sh[i].sh_size > size ||
		    i == ((Elf64_Ehdr *)data)->e_shstrndx)
			continue;
		for (j = 0; j < sh[i].sh_size; j++)
			if (!data[sh[i].sh_offset + j])
				data[sh[i].sh_offset + j] = 'x';
	}
}

/* Section indexes of every symbol out of range. */
static void poke_st_shndx(unsigned char *data, size_t size)
{
	size_t n, i, j;
	Elf64_Shdr *sh = shdrs(data, size, &n);

	for (i = 0; i < n; i++) {
		Elf64_Sym *syms;

		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_offset + sh[i].sh_size > size)
			continue;
		syms = (Elf64_Sym *)(data + sh[i].sh_offset);
		for (j = 0; j < sh[i].sh_size / sizeof(*syms); j++) {
			syms[j].st_shndx = (uint16_t)(0xff00 + j % 0x100);
			syms[j].st_info = ELF64_ST_INFO(STB_GLOBAL, j % 2 ? STT_NOTYPE : STT_FUNC);
		}
	}
}

/* The build-id note claims a huge descriptor. */
static void poke_note(unsigned char *data, size_t size)
{
	size_t n, i;
	Elf64_Shdr *sh = shdrs(data, size, &n);

	for (i = 0; i < n; i++) {
		Elf64_Nhdr *nh;

		if (sh[i].sh_type != SHT_NOTE || sh[i].sh_offset + sizeof(*nh) > size)
			continue;
		nh = (Elf64_Nhdr *)(data + sh[i].sh_offset);
		nh->n_descsz = 0xfffffff0u;
		nh->n_namesz = 0xfffffff0u;
	}
}

static void test_corrupt(void **state)
{
	unsigned char *data;
	size_t size;

	(void)state;
	read_self(&data, &size);
	assert_true(size > sizeof(Elf64_Ehdr) && data[EI_CLASS] == ELFCLASS64);
	load_patched(data, size, poke_shoff, 1);
	load_patched(data, size, poke_phoff, 1);
	load_patched(data, size, poke_shnum, 1);
	load_patched(data, size, poke_symtab_link, 0);
	load_patched(data, size, poke_symtab_offset, 1);
	load_patched(data, size, poke_symtab_self_link, 0);
	load_patched(data, size, poke_symtab_size, 1);
	load_patched(data, size, poke_st_names, 0);
	load_patched(data, size, poke_strtabs, 0);
	load_patched(data, size, poke_st_shndx, 0);
	load_patched(data, size, poke_note, 0);
	free(data);
}

/* ---- kallsyms ---- */

static const char kallsyms_text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 t local_func\n"
	"ffffffff81000200 T global_func\n"
	"ffffffff81000300 D some_data\n"
	"ffffffff81000400 W weak_func\n"
	"ffffffff81000800 T __alias_b\n"
	"ffffffff81000800 t alias_a\n"
	"ffffffff81001000 T _etext\n"
	"ffffffff81002000 r some_rodata\n"
	"this line is garbage\n"
	"ffffffff8100300 \n"
	"ffffffff81003000 T\n"
	"ffffffff82000000 t init_func\n"
	"ffffffffc0001000 t mod_func\t[mymod]\n"
	"ffffffffc0001100 T mod_func2\t[mymod]\n"
	"ffffffffc0001180 d mod_data\t[mymod]\n"
	"ffffffffc0020000 t other_func\t[othermod]\n";

static struct kallsyms *load_kallsyms_text(const char *name, const char *text)
{
	struct kallsyms *k;
	char path[256];

	tmp_path(path, sizeof(path), name);
	write_file(path, text, strlen(text));
	k = kallsyms__load(path);
	assert_non_null(k);
	return k;
}

static void expect_ksym(const struct kallsyms *k, uint64_t addr, const char *want,
			uint64_t want_off)
{
	const char *name = NULL;
	uint64_t off = 0;
	int found = kallsyms__lookup(k, addr, &name, &off);

	if (!want) {
		if (found)
			fail_msg("%#llx resolved to %s+%#llx", (unsigned long long)addr, name,
				 (unsigned long long)off);
		return;
	}
	assert_int_equal(found, 1);
	assert_string_equal(name, want);
	assert_int_equal(off, want_off);
}

static void test_kallsyms(void **state)
{
	struct kallsyms *k = load_kallsyms_text("kallsyms", kallsyms_text);

	(void)state;
	assert_int_equal(kallsyms__hidden(k), 0);
	expect_ksym(k, 0xffffffff80ffffff, NULL, 0);
	expect_ksym(k, 0xffffffff81000000, "_stext", 0); /* first of equals */
	expect_ksym(k, 0xffffffff81000150, "local_func", 0x50);
	/* Data symbols are skipped: global_func runs to weak_func. */
	expect_ksym(k, 0xffffffff81000350, "global_func", 0x150);
	expect_ksym(k, 0xffffffff810007ff, "weak_func", 0x3ff);
	/* The global alias wins even with more underscores. */
	expect_ksym(k, 0xffffffff81000804, "__alias_b", 4);
	/* Core text ends at _etext. */
	expect_ksym(k, 0xffffffff81000fff, "__alias_b", 0x7ff);
	expect_ksym(k, 0xffffffff81001000, NULL, 0);
	expect_ksym(k, 0xffffffff81002000, NULL, 0);
	expect_ksym(k, 0xffffffff82000010, "init_func", 0x10);
	expect_ksym(k, 0xffffffff82000000 + (2u << 20), NULL, 0);
	expect_ksym(k, 0xffffffffc0001010, "mod_func [mymod]", 0x10);
	expect_ksym(k, 0xffffffffc0001190, "mod_func2 [mymod]", 0x90);
	/* Past the last symbol of a module, a bounded tail and no further. */
	expect_ksym(k, 0xffffffffc0001100 + 0x8000, "mod_func2 [mymod]", 0x8000);
	expect_ksym(k, 0xffffffffc0001100 + 0x18000, NULL, 0);
	expect_ksym(k, 0xffffffffc0020008, "other_func [othermod]", 8);
	expect_ksym(k, 0xffffffffc0020000 + (1u << 20), NULL, 0);
	expect_ksym(k, UINT64_MAX, NULL, 0);
	kallsyms__free(k);
}

static void expect_kaddr(struct kallsyms *k, const char *name, uint64_t want)
{
	uint64_t addr = 0;
	int found = kallsyms__find(k, name, strlen(name), &addr);

	if (!want) {
		if (found)
			fail_msg("%s found at %#llx", name, (unsigned long long)addr);
		return;
	}
	assert_int_equal(found, 1);
	assert_int_equal(addr, want);
}

/* Names to addresses (what prof dump does with /proc/PID/stack), aliases,
 * module spellings and pieces of names included. */
static void test_kallsyms_find(void **state)
{
	struct kallsyms *k = load_kallsyms_text("kallsyms-find", kallsyms_text);
	uint64_t addr;

	(void)state;
	expect_kaddr(k, "local_func", 0xffffffff81000100);
	expect_kaddr(k, "weak_func", 0xffffffff81000400);
	/* both names of one address, the one address order dropped too */
	expect_kaddr(k, "__alias_b", 0xffffffff81000800);
	expect_kaddr(k, "alias_a", 0xffffffff81000800);
	expect_kaddr(k, "mod_func [mymod]", 0xffffffffc0001000);
	expect_kaddr(k, "other_func [othermod]", 0xffffffffc0020000);
	expect_kaddr(k, "mod_func", 0);        /* a module's needs its module */
	expect_kaddr(k, "some_data", 0);       /* not text */
	expect_kaddr(k, "local", 0);           /* a prefix is not a name */
	expect_kaddr(k, "local_func_more", 0);
	expect_kaddr(k, "", 0);
	/* the len bytes only, whatever follows them */
	assert_int_equal(kallsyms__find(k, "init_func+0x10/0x20", 9, &addr), 1);
	assert_int_equal(addr, 0xffffffff82000000);
	assert_int_equal(kallsyms__find(k, "init_func\0x", 11, &addr), 0);
	kallsyms__free(k);
	k = load_kallsyms_text("kallsyms-find-dup", "ffffffff81000300 t dup\n"
						    "ffffffff81000100 t dup\n"
						    "ffffffff81000200 T other\n");
	expect_kaddr(k, "dup", 0xffffffff81000300); /* the file's first */
	kallsyms__free(k);
	k = load_kallsyms_text("kallsyms-find-empty", "");
	expect_kaddr(k, "dup", 0);
	kallsyms__free(k);
}

static void test_kallsyms_hidden(void **state)
{
	struct kallsyms *k = load_kallsyms_text("kallsyms-hidden",
						"0000000000000000 T _stext\n"
						"0000000000000000 t local_func\n"
						"0000000000000000 D some_data\n"
						"0000000000000000 t mod_func\t[mymod]\n");

	(void)state;
	assert_int_equal(kallsyms__hidden(k), 1);
	expect_ksym(k, 0, NULL, 0);
	expect_ksym(k, 0xffffffff81000000, NULL, 0);
	kallsyms__free(k);
	k = load_kallsyms_text("kallsyms-empty", "");
	assert_int_equal(kallsyms__hidden(k), 0);
	expect_ksym(k, 0xffffffff81000000, NULL, 0);
	kallsyms__free(k);
}

static void test_kallsyms_errors(void **state)
{
	struct kallsyms *k;
	char buf[5000];

	(void)state;
	errno = 0;
	assert_null(kallsyms__load("/nonexistent/prof-test/kallsyms"));
	assert_int_equal(errno, ENOENT);
	/* Binary junk and an overlong name: skipped, not fatal. */
	memset(buf, 'a', sizeof(buf));
	memcpy(buf, "ffffffff81000000 T ", 19);
	buf[sizeof(buf) - 1] = '\0';
	k = load_kallsyms_text("kallsyms-junk", buf);
	assert_int_equal(kallsyms__hidden(k), 0);
	expect_ksym(k, 0xffffffff81000000, NULL, 0);
	kallsyms__free(k);
	k = load_kallsyms_text("kallsyms-junk2", "\xff\xfe\n\t\t\n ffff T x\n1 T\n2 t y\t[\n");
	expect_ksym(k, 1, NULL, 0);
	kallsyms__free(k);
}

static void test_kallsyms_proc(void **state)
{
	struct kallsyms *k;

	(void)state;
	k = kallsyms__load("/proc/kallsyms");
	if (!k)
		skip();
	/* Nothing to compare with; it must parse without surprises. */
	if (!kallsyms__hidden(k)) {
		const char *name;
		uint64_t off;

		assert_int_equal(kallsyms__lookup(k, 0, &name, &off), 0);
	}
	kallsyms__free(k);
}

/* ---- a whole recording ---- */

struct rec_fixture {
	struct rec_writer *w;
	char rec_path[256], ks_path[256];
	struct mapping self;
	uint32_t frames[10];
};

static void add_frame(struct rec_fixture *fx, int i, uint64_t addr, uint32_t flags,
		      uint32_t mapping)
{
	assert_int_equal(rec_writer__frame(fx->w, (uint32_t)getpid(), addr, flags, mapping,
					   &fx->frames[i]),
			 0);
}

/* A mapping of ours; `build_id` (hex) is what the recorder saw, or NULL. */
static uint32_t add_mapping_id(struct rec_fixture *fx, const char *path, uint64_t start,
			       uint64_t end, uint64_t pgoff, const char *build_id)
{
	struct rec_mapping m = {.start = start, .end = end, .pgoff = pgoff,
				.pid = (uint32_t)getpid()};
	uint32_t id;

	assert_int_equal(rec_writer__string(fx->w, path, strlen(path), &m.path), 0);
	if (build_id)
		assert_int_equal(rec_writer__string(fx->w, build_id, strlen(build_id),
						    &m.build_id), 0);
	assert_int_equal(rec_writer__mapping(fx->w, &m, &id), 0);
	return id;
}

static uint32_t add_mapping(struct rec_fixture *fx, const char *path, uint64_t start,
			    uint64_t end, uint64_t pgoff)
{
	return add_mapping_id(fx, path, start, end, pgoff, NULL);
}

static void read_recording(const char *path, struct recording *r)
{
	unsigned char *data;
	size_t size;
	char err[256];

	slurp(path, &data, &size);
	assert_int_equal(recording__parse(r, data, size, err, sizeof(err)), 0);
}

static void expect_symbol(const struct recording *r, uint32_t frame, const char *want,
			  uint32_t want_off)
{
	assert_true(frame < r->nframes);
	if (!want) {
		assert_int_equal(r->symbols[frame].name, 0);
		return;
	}
	assert_string_equal(recording__str(r, r->symbols[frame].name), want);
	assert_int_equal(r->symbols[frame].offset, want_off);
}

static void test_symbolize_recording(void **state)
{
	struct symbolize_opts opts = {0};
	struct symbolize_stats st;
	struct rec_fixture fx;
	struct recording r;
	struct elf_symtab *t;
	uint64_t marker = (uintptr_t)static_marker;
	uint32_t m_self, m_self2, m_vdso, m_vdso32, m_vdso_old, m_missing;
	/* Our vdso as the dynamic linker knows it: its clock_gettime. */
	void *vdso = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
	const void *vdso_fn = vdso ? dlsym(vdso, "__vdso_clock_gettime") : NULL;
	struct mapping vm;
	char key[4200];

	(void)state;
	memset(&fx, 0, sizeof(fx));
	memset(&r, 0, sizeof(r));
	tmp_path(fx.rec_path, sizeof(fx.rec_path), "rec");
	tmp_path(fx.ks_path, sizeof(fx.ks_path), "kallsyms-rec");
	write_file(fx.ks_path, kallsyms_text, strlen(kallsyms_text));
	assert_true(find_mapping((const void *)static_marker, &fx.self));
	fx.w = rec_writer__open(fx.rec_path);
	assert_non_null(fx.w);

	m_self = add_mapping(&fx, fx.self.path, fx.self.start, fx.self.end, fx.self.pgoff);
	/* The same binary again (another process, say): loaded once. */
	m_self2 = add_mapping(&fx, fx.self.path, fx.self.start, fx.self.end, fx.self.pgoff);
	assert_non_null(vdso_fn);
	assert_true(find_mapping(vdso_fn, &vm));
	assert_string_equal(vm.path, "[vdso]");
	m_vdso = add_mapping(&fx, "[vdso]", vm.start, vm.end, 0);
	/* One page: another ABI's vdso (32-bit), not ours: left unnamed. */
	m_vdso32 = add_mapping(&fx, "[vdso]", 0x7ffff7fc1000, 0x7ffff7fc2000, 0);
	/* Recorded under another kernel (another vdso build-id): unnamed. */
	m_vdso_old = add_mapping_id(&fx, "[vdso]", vm.start, vm.end, 0,
				    "0123456789abcdef0123456789abcdef01234567");
	m_missing = add_mapping(&fx, "/nonexistent/prof-test/libgone.so", 0x7f0000000000,
				0x7f0000010000, 0);
	add_frame(&fx, 0, marker, 0, m_self);
	add_frame(&fx, 1, marker + 2, REC_FRAME_CALLER, m_self2);
	add_frame(&fx, 2, 0xffffffff81000150, REC_FRAME_KERNEL, REC_NO_MAPPING);
	add_frame(&fx, 3, (uintptr_t)vdso_fn + 4, 0, m_vdso);
	add_frame(&fx, 8, 0x7ffff7fc1100, 0, m_vdso32);
	add_frame(&fx, 9, (uintptr_t)vdso_fn + 8, 0, m_vdso_old);
	add_frame(&fx, 4, 0x7f0000000100, 0, m_missing);
	add_frame(&fx, 5, 0x1234, 0, REC_NO_MAPPING);
	add_frame(&fx, 6, fx.self.end + 16, 0, m_self); /* outside its mapping */
	add_frame(&fx, 7, 0xffffffff90000000, REC_FRAME_KERNEL, REC_NO_MAPPING);

	opts.kallsyms_path = fx.ks_path;
	assert_int_equal(symbolize_recording(fx.w, &opts, &st), 0);
	assert_int_equal(st.frames, 10);
	assert_int_equal(st.resolved, 4);
	assert_int_equal(st.unresolved, 6);
	assert_int_equal(st.binaries, 2); /* ourselves, the vdso */
	assert_int_equal(st.binaries_missing, 1);
	assert_int_equal(st.kernel_hidden, 0);
	assert_int_equal(rec_writer__close(fx.w), 0);

	read_recording(fx.rec_path, &r);
	expect_symbol(&r, fx.frames[0], "static_marker", 0);
	expect_symbol(&r, fx.frames[1], "static_marker", 2);
	expect_symbol(&r, fx.frames[2], "local_func", 0x50);
	expect_symbol(&r, fx.frames[3], "__vdso_clock_gettime", 4);
	expect_symbol(&r, fx.frames[8], NULL, 0);
	expect_symbol(&r, fx.frames[9], NULL, 0);
	expect_symbol(&r, fx.frames[4], NULL, 0);
	expect_symbol(&r, fx.frames[5], NULL, 0);
	expect_symbol(&r, fx.frames[6], NULL, 0);
	expect_symbol(&r, fx.frames[7], NULL, 0);
	t = elf_symtab__load(fx.self.path);
	assert_non_null(t);
	snprintf(key, sizeof(key), "build-id:%s", fx.self.path);
	assert_non_null(recording__meta(&r, key));
	assert_string_equal(recording__meta(&r, key), elf_symtab__build_id(t));
	elf_symtab__free(t);
	/* The vdso's build-id too, for a later `prof symbolize -i`. */
	assert_non_null(recording__meta(&r, "build-id:[vdso]"));
	assert_int_equal(strlen(recording__meta(&r, "build-id:[vdso]")), 40);
	recording__release(&r);
	dlclose(vdso);
}

/* Build-ids recorded with a mapping must match, or the file at that path
 * was replaced since and its names would be wrong. Also: hidden kallsyms,
 * and a root prefix that leads nowhere. */
static void test_symbolize_recording_checks(void **state)
{
	struct symbolize_opts opts = {0};
	struct symbolize_stats st;
	struct rec_fixture fx;
	struct rec_mapping m;
	uint32_t id;

	(void)state;
	memset(&fx, 0, sizeof(fx));
	tmp_path(fx.rec_path, sizeof(fx.rec_path), "rec2");
	tmp_path(fx.ks_path, sizeof(fx.ks_path), "kallsyms-rec2");
	write_file(fx.ks_path, "0000000000000000 T _stext\n", 26);
	assert_true(find_mapping((const void *)static_marker, &fx.self));
	fx.w = rec_writer__open(fx.rec_path);
	assert_non_null(fx.w);
	memset(&m, 0, sizeof(m));
	m.start = fx.self.start;
	m.end = fx.self.end;
	m.pgoff = fx.self.pgoff;
	m.pid = (uint32_t)getpid();
	assert_int_equal(rec_writer__string(fx.w, fx.self.path, strlen(fx.self.path), &m.path),
			 0);
	assert_int_equal(rec_writer__string(fx.w, "00112233", 8, &m.build_id), 0);
	assert_int_equal(rec_writer__mapping(fx.w, &m, &id), 0);
	add_frame(&fx, 0, (uintptr_t)static_marker, 0, id);
	add_frame(&fx, 1, 0xffffffff81000000, REC_FRAME_KERNEL, REC_NO_MAPPING);

	opts.kallsyms_path = fx.ks_path;
	assert_int_equal(symbolize_recording(fx.w, &opts, &st), 0);
	assert_int_equal(st.frames, 2);
	assert_int_equal(st.resolved, 0);
	assert_int_equal(st.unresolved, 2);
	assert_int_equal(st.binaries_missing, 1);
	assert_int_equal(st.kernel_hidden, 1);

	opts.root_prefix = "/nonexistent/prof-test-root";
	assert_int_equal(symbolize_recording(fx.w, &opts, NULL), 0);
	rec_writer__abandon(fx.w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_static_function),
		cmocka_unit_test(test_self_build_id),
		cmocka_unit_test(test_libc_functions),
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_kallsyms_find),
		cmocka_unit_test(test_kallsyms_hidden),
		cmocka_unit_test(test_kallsyms_errors),
		cmocka_unit_test(test_kallsyms_proc),
		cmocka_unit_test(test_symbolize_recording),
		cmocka_unit_test(test_symbolize_recording_checks),
	};

	return cmocka_run_group_tests_name("symbolize", tests, group_setup, group_teardown);
}
