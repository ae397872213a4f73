/* test-debuginfo.c: separate debug files and MiniDebugInfo, with this test
 * binary itself as the subject: stripped copies of it (binutils' strip and
 * objcopy, the way distributions do it) must still name its static
 * function through a debug file found by build-id, by .gnu_debuglink in
 * each place it may be, under a container root, or through a
 * .gnu_debugdata section built as Fedora builds it (also for annotate's
 * function reader). Debug files that do not
 * belong (bad CRC, other build-id) and hostile sections (malformed
 * debuglinks, corrupt or oversized xz streams) are rejected cleanly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/debuginfo.h"
#include "symbolize/function.h"
#include "symbolize/symbolize.h"

static char tmpdir[] = "/tmp/test-debuginfo.XXXXXX";
static char self[4096];
static uint64_t marker_off; /* file offset of debuginfo_marker in self */

static volatile unsigned sink;

/* Static: only .symtab (and so the debug file) names it. */
__attribute__((noinline)) static unsigned debuginfo_marker(unsigned n)
{
	unsigned i, acc = 0;

	for (i = 0; i < n; i++)
		acc += i * sink + (acc >> 3);
	return acc;
}

static unsigned (*volatile marker_ptr)(unsigned) = debuginfo_marker;

/* Runs a shell command built from fmt; asserts it succeeds. */
__attribute__((format(printf, 1, 2))) static void sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof(cmd));
	if (system(cmd) != 0)
		fail_msg("command failed: %s", cmd);
}

static void path_of(char *buf, size_t len, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", tmpdir, name);

	assert_true(n > 0 && (size_t)n < len);
}

/* The file offset of debuginfo_marker, from /proc/self/maps. */
static void find_marker(void)
{
	uintptr_t a = (uintptr_t)marker_ptr;
	char line[4096 + 256];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;

		if (sscanf(line, "%llx-%llx %*s %llx", &s, &e, &off) < 3 || a < s || a >= e)
			continue;
		marker_off = a - s + off;
		found = 1;
	}
	fclose(f);
	assert_true(found);
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
	ssize_t n;

	(void)state;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || !mkdtemp(tmpdir))
		return -1;
	self[n] = '\0';
	if (system("command -v objcopy >/dev/null && command -v strip >/dev/null && "
		   "command -v xz >/dev/null") != 0)
		return -1;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	return nftw(tmpdir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* Looks up debuginfo_marker in `path`; returns the name found or NULL. The
 * table is left in *out for further checks (caller frees). */
static const char *lookup_marker(const char *path, const struct elf_symtab_opts *o,
				 struct elf_symtab **out)
{
	struct elf_symtab *t = elf_symtab__load_opts(path, o);
	const char *name = NULL;
	uint64_t off;

	assert_non_null(t);
	if (!elf_symtab__lookup_offset(t, marker_off + 4, &name, &off))
		name = NULL;
	else
		assert_int_equal(off, 4);
	*out = t;
	return name;
}

static void expect_marker(const char *path, const struct elf_symtab_opts *o,
			  const char *source, const char *debug_file)
{
	struct elf_symtab *t;
	const char *name = lookup_marker(path, o, &t);

	assert_non_null(name);
	assert_string_equal(name, "debuginfo_marker");
	assert_string_equal(elf_symtab__source(t), source);
	if (debug_file)
		assert_string_equal(elf_symtab__debug_file(t), debug_file);
	elf_symtab__free(t);
}

static void expect_no_marker(const char *path, const struct elf_symtab_opts *o)
{
	struct elf_symtab *t;

	assert_null(lookup_marker(path, o, &t));
	assert_string_equal(elf_symtab__debug_file(t), "");
	elf_symtab__free(t);
}

static void self_build_id(char hex[DEBUGINFO_BUILD_ID_HEX])
{
	struct elf_symtab *t = elf_symtab__load_opts(self, &(struct elf_symtab_opts){
								   .no_debuginfo = 1});

	assert_non_null(t);
	assert_true(strlen(elf_symtab__build_id(t)) >= 4);
	snprintf(hex, DEBUGINFO_BUILD_ID_HEX, "%s", elf_symtab__build_id(t));
	elf_symtab__free(t);
}

/* Flips one bit of the first occurrence of `len` bytes in file `path`. */
static void flip_first(const char *path, const void *bytes, size_t len)
{
	unsigned char *p;
	FILE *f = fopen(path, "r+b");
	long n, i;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	p = malloc((size_t)n);
	assert_non_null(p);
	rewind(f);
	assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
	for (i = 0; i + (long)len <= n; i++)
		if (!memcmp(p + i, bytes, len))
			break;
	assert_true(i + (long)len <= n);
	p[i] ^= 1;
	rewind(f);
	assert_int_equal(fwrite(p, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	free(p);
}

/* ---- separate debug files ---- */

static void test_stripped_alone(void **state)
{
	char bin[4200], empty[4200];
	struct elf_symtab_opts o = {0};

	(void)state;
	find_marker();
	path_of(bin, sizeof(bin), "alone");
	path_of(empty, sizeof(empty), "empty-debug-root");
	sh("strip -o '%s' '%s' && mkdir -p '%s'", bin, self, empty);
	o.debug_dirs = empty;
	expect_no_marker(bin, &o);
}

static void test_build_id_dir(void **state)
{
	char bin[4200], root[4200], dbg[4400], hex[DEBUGINFO_BUILD_ID_HEX];
	struct elf_symtab_opts o = {0};

	(void)state;
	find_marker();
	self_build_id(hex);
	path_of(bin, sizeof(bin), "by-build-id");
	path_of(root, sizeof(root), "debug-root");
	snprintf(dbg, sizeof(dbg), "%s/.build-id/%.2s/%s.debug", root, hex, hex + 2);
	sh("strip -o '%s' '%s' && mkdir -p '%s/.build-id/%.2s' && "
	   "objcopy --only-keep-debug '%s' '%s'", bin, self, root, hex, self, dbg);
	o.debug_dirs = root;
	expect_marker(bin, &o, "debuginfo", dbg);
	/* Through the environment, as prof record and prof symbolize do. */
	setenv(DEBUGINFO_ENV, root, 1);
	expect_marker(bin, NULL, "debuginfo", dbg);
	/* The list is searched in order; empty entries are skipped. */
	setenv(DEBUGINFO_ENV, "::/nonexistent/prof-dbg:", 1);
	expect_no_marker(bin, NULL);
	o.debug_dirs = "/nonexistent/prof-dbg::";
	expect_no_marker(bin, &o);
	snprintf(dbg, sizeof(dbg), "/nonexistent/prof-dbg:%s", root);
	o.debug_dirs = dbg;
	expect_marker(bin, &o, "debuginfo", NULL);
	unsetenv(DEBUGINFO_ENV);
	/* Not asked for. */
	o.no_debuginfo = 1;
	expect_no_marker(bin, &o);
}

/* A debug file at the build-id path whose own build-id differs (the same
 * code otherwise: its names would even be right, but nothing proves it). */
static void test_build_id_mismatch(void **state)
{
	char bin[4200], root[4200], dbg[4400], hex[DEBUGINFO_BUILD_ID_HEX];
	struct elf_symtab_opts o = {0};
	unsigned char raw[DEBUGINFO_BUILD_ID_HEX / 2];
	size_t i, n;

	(void)state;
	find_marker();
	self_build_id(hex);
	n = strlen(hex) / 2;
	for (i = 0; i < n; i++) {
		unsigned v;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		raw[i] = (unsigned char)v;
	}
	path_of(bin, sizeof(bin), "mismatch");
	path_of(root, sizeof(root), "debug-root-wrong");
	snprintf(dbg, sizeof(dbg), "%s/.build-id/%.2s/%s.debug", root, hex, hex + 2);
	sh("strip -o '%s' '%s' && mkdir -p '%s/.build-id/%.2s' && "
	   "objcopy --only-keep-debug '%s' '%s'", bin, self, root, hex, self, dbg);
	o.debug_dirs = root;
	expect_marker(bin, &o, "debuginfo", dbg);
	flip_first(dbg, raw, n);
	expect_no_marker(bin, &o);
}

static void test_debuglink_places(void **state)
{
	char dir[512], bin[1024], glob[1024];
	struct elf_symtab_opts o = {0};

	(void)state;
	find_marker();
	path_of(dir, sizeof(dir), "link");
	path_of(glob, sizeof(glob), "global");
	snprintf(bin, sizeof(bin), "%s/prog", dir);
	o.debug_dirs = glob;
	sh("mkdir -p '%s/.debug' '%s%s' && objcopy --only-keep-debug '%s' '%s/prog.debug' && "
	   "strip -o '%s.s' '%s' && objcopy --add-gnu-debuglink='%s/prog.debug' '%s.s' '%s'",
	   dir, glob, dir, self, dir, bin, self, dir, bin, bin);

	/* 1. next to the binary */
	snprintf(glob, sizeof(glob), "%s/prog.debug", dir);
	expect_marker(bin, &o, "debuginfo", glob);
	/* 2. in .debug/ */
	sh("mv '%s/prog.debug' '%s/.debug/prog.debug'", dir, dir);
	snprintf(glob, sizeof(glob), "%s/.debug/prog.debug", dir);
	expect_marker(bin, &o, "debuginfo", glob);
	/* 3. in the global directory, under the binary's directory */
	path_of(glob, sizeof(glob), "global");
	sh("mv '%s/.debug/prog.debug' '%s%s/prog.debug'", dir, glob, dir);
	{
		char want[4096];

		snprintf(want, sizeof(want), "%s%s/prog.debug", glob, dir);
		expect_marker(bin, &o, "debuginfo", want);
		/* A CRC that does not match: the file was changed since. */
		sh("printf x >> '%s'", want);
		expect_no_marker(bin, &o);
	}
}

static void test_debuglink_bad_crc(void **state)
{
	char bin[4200], dbg[4200];
	uint32_t crc;

	(void)state;
	find_marker();
	path_of(bin, sizeof(bin), "crc");
	path_of(dbg, sizeof(dbg), "crc.debug");
	sh("objcopy --only-keep-debug '%s' '%s' && strip -o '%s.s' '%s' && "
	   "objcopy --add-gnu-debuglink='%s' '%s.s' '%s'", self, dbg, bin, self, dbg, bin, bin);
	expect_marker(bin, &(struct elf_symtab_opts){.debug_dirs = "/nonexistent"},
		      "debuginfo", dbg);
	/* Flip one bit of the CRC the link holds: the same file is refused. */
	assert_int_equal(debuginfo_file_crc(dbg, &crc), 0);
	flip_first(bin, &crc, 4);
	expect_no_marker(bin, &(struct elf_symtab_opts){.debug_dirs = "/nonexistent"});
	assert_int_equal(debuginfo_find(bin, NULL, dbg, sizeof(dbg)), -ENOENT);
}

/* Debuglink sections that must be ignored: a path, not terminated, no
 * room for the CRC. */
static void test_debuglink_malformed(void **state)
{
	static const struct {
		const char *bytes;
		size_t len;
	} bad[] = {
		{"../../etc/x.debug\0\0\0\0\0\0\0", 24},
		{"sub/x.debug\0\0\0\0\0", 16},
		{"..\0\0\0\0\0\0", 8},
		{"unterminated", 12},
		{"x.debug\0\1\2", 10},
		{"\0\0\0\0\0\0\0\0", 8},
	};
	char bin[4200], sec[4200], dbg[4200];
	size_t i;

	(void)state;
	find_marker();
	path_of(bin, sizeof(bin), "badlink");
	path_of(sec, sizeof(sec), "badlink.sec");
	/* A debug file that would match by name were the link followed. */
	path_of(dbg, sizeof(dbg), "x.debug");
	sh("objcopy --only-keep-debug '%s' '%s'", self, dbg);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *f = fopen(sec, "wb");
		char out[4200];

		assert_non_null(f);
		assert_int_equal(fwrite(bad[i].bytes, 1, bad[i].len, f), bad[i].len);
		fclose(f);
		sh("strip -o '%s.s' '%s' && objcopy --add-section .gnu_debuglink='%s' '%s.s' '%s'",
		   bin, self, sec, bin, bin);
		expect_no_marker(bin, &(struct elf_symtab_opts){.debug_dirs = "/nonexistent"});
		assert_int_equal(debuginfo_find(bin, NULL, out, sizeof(out)), -ENOENT);
	}
	{
		char out[8];

		assert_int_equal(debuginfo_find("/nonexistent/prof-bin", NULL, out, sizeof(out)),
				 -ENOENT);
		assert_int_equal(debuginfo_find(dbg, NULL, out, 0), -ENOENT);
	}
}

/* A container: the binary seen through ROOT, its debug file installed in
 * ROOT/usr/lib/debug (build-id) or ROOT/usr/lib/debug/DIR (debuglink). */
static void test_container_root(void **state)
{
	char root[4200], bin[4400], hex[DEBUGINFO_BUILD_ID_HEX], want[8400];
	struct elf_symtab_opts o = {.debug_dirs = "/usr/lib/debug"};

	(void)state;
	find_marker();
	self_build_id(hex);
	path_of(root, sizeof(root), "container");
	snprintf(bin, sizeof(bin), "%s/opt/app/prog", root);
	sh("mkdir -p '%s/opt/app' '%s/usr/lib/debug/.build-id/%.2s' && strip -o '%s' '%s' && "
	   "objcopy --only-keep-debug '%s' '%s/usr/lib/debug/.build-id/%.2s/%s.debug'",
	   root, root, hex, bin, self, self, root, hex, hex + 2);
	o.root = root;
	snprintf(want, sizeof(want), "%s/usr/lib/debug/.build-id/%.2s/%s.debug", root, hex,
		 hex + 2);
	expect_marker(bin, &o, "debuginfo", want);
	/* Without the root, the host's /usr/lib/debug has nothing for it. */
	o.root = NULL;
	expect_no_marker(bin, &o);

	/* debuglink: ROOT/usr/lib/debug/opt/app/prog.debug */
	sh("rm -r '%s/usr/lib/debug/.build-id' && mkdir -p '%s/usr/lib/debug/opt/app' && "
	   "objcopy --only-keep-debug '%s' '%s/usr/lib/debug/opt/app/prog.debug' && "
	   "objcopy --add-gnu-debuglink='%s/usr/lib/debug/opt/app/prog.debug' '%s'",
	   root, root, self, root, root, bin);
	o.root = root;
	snprintf(want, sizeof(want), "%s/usr/lib/debug/opt/app/prog.debug", root);
	expect_marker(bin, &o, "debuginfo", want);
	{
		char found[8400];

		assert_int_equal(debuginfo_find(bin, root, found, sizeof(found)), 0);
		assert_string_equal(found, want);
		assert_int_equal(debuginfo_find(bin, NULL, found, sizeof(found)), -ENOENT);
	}
}

/* A binary with its own .symtab but no DWARF still gets its debug file
 * noted (for the DWARF reader); symbols stay its own. */
static void test_symtab_without_dwarf(void **state)
{
	char bin[4200], dbg[4200];

	(void)state;
	find_marker();
	path_of(bin, sizeof(bin), "nodwarf");
	path_of(dbg, sizeof(dbg), "nodwarf.debug");
	sh("objcopy --only-keep-debug '%s' '%s' && strip --strip-debug -o '%s.s' '%s' && "
	   "objcopy --add-gnu-debuglink='%s' '%s.s' '%s'", self, dbg, bin, self, dbg, bin, bin);
	expect_marker(bin, &(struct elf_symtab_opts){.debug_dirs = "/nonexistent"}, "symtab",
		      dbg);
	/* With DWARF of its own, nothing is looked for. */
	expect_marker(self, &(struct elf_symtab_opts){.debug_dirs = "/nonexistent"}, "symtab",
		      "");
}

/* ---- MiniDebugInfo ---- */

/* Builds BIN stripped, with a .gnu_debugdata made as Fedora's
 * find-debuginfo does: the function symbols .dynsym lacks, in an
 * --only-keep-debug copy stripped of everything else, xz-compressed. */
static void make_minidebuginfo(const char *bin)
{
	sh("set -e; d='%s'; b='%s'; s='%s';"
	   "nm -D \"$s\" --format=posix --defined-only | awk '{print $1}' | sort > \"$d/dynsyms\";"
	   "nm \"$s\" --format=posix --defined-only | awk '$2 ~ /[Tt]/ {print $1}' | sort"
	   "  > \"$d/funcsyms\";"
	   "comm -13 \"$d/dynsyms\" \"$d/funcsyms\" > \"$d/keep\";"
	   "objcopy --only-keep-debug \"$s\" \"$d/mini.full\";"
	   "objcopy -S --remove-section .gdb_index --remove-section .comment"
	   "  --keep-symbols=\"$d/keep\" \"$d/mini.full\" \"$d/mini\";"
	   "rm -f \"$d/mini.xz\"; xz -k \"$d/mini\";"
	   "strip -o \"$b.s\" \"$s\";"
	   "objcopy --add-section .gnu_debugdata=\"$d/mini.xz\" \"$b.s\" \"$b\"",
	   tmpdir, bin, self);
}

static void test_minidebuginfo(void **state)
{
	struct elf_symtab_opts o = {.debug_dirs = "/nonexistent"};
	char bin[4200], sec[4200];

	(void)state;
	find_marker();
	path_of(bin, sizeof(bin), "mini-bin");
	make_minidebuginfo(bin);
	expect_marker(bin, &o, "minidebuginfo", "");
	/* A debug file, when there is one, wins over MiniDebugInfo. */
	{
		char dbg[4200];

		path_of(dbg, sizeof(dbg), "mini-bin.debug");
		sh("objcopy --only-keep-debug '%s' '%s' && objcopy --add-gnu-debuglink='%s' '%s'",
		   self, dbg, dbg, bin);
		expect_marker(bin, &o, "debuginfo", dbg);
		sh("rm '%s'", dbg);
	}
	/* Garbage, a truncated stream, and a stream of the wrong data in
	 * .gnu_debugdata: the binary still loads, with .dynsym only. */
	path_of(sec, sizeof(sec), "mini-bad");
	sh("head -c 4000 /dev/urandom > '%s' && strip -o '%s.s' '%s' && "
	   "objcopy --add-section .gnu_debugdata='%s' '%s.s' '%s'", sec, bin, self, sec, bin, bin);
	expect_no_marker(bin, &o);
	sh("head -c 300 '%s/mini.xz' > '%s' && objcopy --add-section .gnu_debugdata='%s' '%s.s' '%s'",
	   tmpdir, sec, sec, bin, bin);
	expect_no_marker(bin, &o);
	sh("head -c 100000 /dev/urandom | xz > '%s' && "
	   "objcopy --add-section .gnu_debugdata='%s' '%s.s' '%s'", sec, sec, bin, bin);
	expect_no_marker(bin, &o);
}

/* annotate's function reader takes a stripped binary's local function from
 * its MiniDebugInfo, with the bounds and bytes the unstripped binary has;
 * without a usable .gnu_debugdata the function is not there. */
static void test_minidebuginfo_function(void **state)
{
	struct elf_function want, fn;
	char bin[4200], sec[4200];

	(void)state;
	find_marker();
	assert_int_equal(elf_function__load(&want, self, NULL, "debuginfo_marker", marker_off), 0);
	path_of(bin, sizeof(bin), "mini-fn");
	make_minidebuginfo(bin);
	assert_int_equal(elf_function__load(&fn, bin, NULL, "debuginfo_marker", marker_off), 0);
	assert_int_equal(fn.vaddr, want.vaddr);
	assert_int_equal(fn.size, want.size);
	assert_int_equal(fn.file_off, want.file_off);
	assert_memory_equal(fn.code, want.code, want.size);
	assert_false(fn.from_dynsym);
	assert_string_equal(fn.build_id, want.build_id);
	elf_function__release(&fn);
	assert_int_equal(elf_function__load(&fn, bin, NULL, "debuginfo_marker", ELF_FUNCTION_ANY),
			 0);
	elf_function__release(&fn);
	path_of(sec, sizeof(sec), "mini-fn-bad");
	sh("head -c 300 '%s/mini.xz' > '%s' && objcopy --add-section .gnu_debugdata='%s' '%s.s' '%s'",
	   tmpdir, sec, sec, bin, bin);
	assert_int_equal(elf_function__load(&fn, bin, NULL, "debuginfo_marker", marker_off), -ESRCH);
	elf_function__release(&fn);
	elf_function__release(&want);
}

static void xz_encode(const void *in, size_t len, unsigned char **out, size_t *outlen)
{
	size_t cap = len + len / 2 + 4096, pos = 0;

	*out = malloc(cap);
	assert_non_null(*out);
	assert_int_equal(lzma_easy_buffer_encode(1, LZMA_CHECK_CRC64, NULL, in, len, *out, &pos,
						 cap),
			 LZMA_OK);
	*outlen = pos;
}

static void test_decompress_bounds(void **state)
{
	size_t big = 80u << 20, outlen, zlen, i;
	unsigned char *zeros = calloc(1, big), *z;
	void *out;

	(void)state;
	assert_non_null(zeros);
	/* An xz bomb: 80 MiB of zeros in a few KiB. */
	xz_encode(zeros, big, &z, &zlen);
	assert_true(zlen < 100000);
	assert_int_equal(minidebuginfo_decompress(z, zlen, MINIDEBUGINFO_MAX_OUT, &out, &outlen),
			 -EFBIG);
	assert_null(out);
	/* Within the bound it decompresses exactly. */
	assert_int_equal(minidebuginfo_decompress(z, zlen, big, &out, &outlen), 0);
	assert_int_equal(outlen, big);
	assert_memory_equal(out, zeros, big);
	free(out);
	free(z);
	/* Small, with trailing garbage, truncated at every length. */
	for (i = 0; i < 1000; i++)
		zeros[i] = (unsigned char)(i * 7);
	xz_encode(zeros, 1000, &z, &zlen);
	assert_int_equal(minidebuginfo_decompress(z, zlen, 4096, &out, &outlen), 0);
	assert_int_equal(outlen, 1000);
	assert_memory_equal(out, zeros, 1000);
	free(out);
	assert_int_equal(minidebuginfo_decompress(z, zlen, 999, &out, &outlen), -EFBIG);
	z = realloc(z, zlen + 1);
	assert_non_null(z);
	z[zlen] = 0x42;
	assert_int_equal(minidebuginfo_decompress(z, zlen + 1, 4096, &out, &outlen), -EBADMSG);
	for (i = 0; i < zlen; i++) {
		int r = minidebuginfo_decompress(z, i, 4096, &out, &outlen);

		assert_int_equal(r, -EBADMSG);
		assert_null(out);
	}
	free(z);
	free(zeros);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stripped_alone),
		cmocka_unit_test(test_build_id_dir),
		cmocka_unit_test(test_build_id_mismatch),
		cmocka_unit_test(test_debuglink_places),
		cmocka_unit_test(test_debuglink_bad_crc),
		cmocka_unit_test(test_debuglink_malformed),
		cmocka_unit_test(test_container_root),
		cmocka_unit_test(test_symtab_without_dwarf),
		cmocka_unit_test(test_minidebuginfo),
		cmocka_unit_test(test_minidebuginfo_function),
		cmocka_unit_test(test_decompress_bounds),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
