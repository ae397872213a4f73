/* test-symbolize-dwarf.c: the DWARF tables (symbolize/dwarf.h) on a small C
 * program compiled here with cc -O2 -g, whose inlined code is marked by
 * global asm labels at known source lines: the inline chain, its order
 * (innermost first), call sites, files and lines; DWARF 4 and 5; a binary
 * without DWARF; then the same file cut at many lengths and mutated a few
 * thousand times (loading must fail cleanly or give tables that look up
 * safely: run under ASan+UBSan). prof's own DWARF reader (dwarf-die.c)
 * against the libdw walk it replaces, table by table and lookup by lookup,
 * on these programs, a C++ one with zlib-compressed DWARF (the section
 * streaming path) and libc's debug file when libc6-dbg is installed; two
 * threads looking up in one whole load at once (dwarf.h says they may). Also
 * demangle() on C++, Rust legacy and Rust v0 names, and the INLINES chunk
 * through the writer and the reader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/rec-writer.h"
#include "lib/recording.h"
#include "symbolize/demangle.h"
#include "symbolize/dwarf-internal.h"
#include "symbolize/dwarf.h"

static char tmpdir[] = "/tmp/test-symbolize-dwarf.XXXXXX";
static char src[256], bin5[256], bin4[256], nodwarf[256], cxx[256];

/* Line numbers below are the source's, counted from 1. */
static const char program[] =
	"/* test program */\n"                                              /* 1 */
	"volatile int sink;\n"                                              /* 2 */
	"static inline __attribute__((always_inline)) void leaf(int x)\n"   /* 3 */
	"{\n"                                                               /* 4 */
	"\tsink += x;\n"                                                    /* 5 */
	"\t__asm__ volatile(\".globl mark_leaf\\nmark_leaf:\");\n"          /* 6 */
	"\tsink += x * 3;\n"                                                /* 7 */
	"}\n"                                                               /* 8 */
	"static inline __attribute__((always_inline)) void middle(int x)\n" /* 9 */
	"{\n"                                                               /* 10 */
	"\tsink ^= x;\n"                                                    /* 11 */
	"\tleaf(x + 1);\n"                                                  /* 12 */
	"\tsink ^= 7;\n"                                                    /* 13 */
	"}\n"                                                               /* 14 */
	"__attribute__((noinline)) void outer(int x)\n"                     /* 15 */
	"{\n"                                                               /* 16 */
	"\tsink = 1;\n"                                                     /* 17 */
	"\tmiddle(x);\n"                                                    /* 18 */
	"\t__asm__ volatile(\".globl mark_outer\\nmark_outer:\");\n"        /* 19 */
	"\tsink = 2;\n"                                                     /* 20 */
	"}\n"                                                               /* 21 */
	"int main(int argc, char **argv)\n"                                 /* 22 */
	"{\n"                                                               /* 23 */
	"\t(void)argv;\n"                                                   /* 24 */
	"\touter(argc);\n"                                                  /* 25 */
	"\treturn 0;\n"                                                     /* 26 */
	"}\n";                                                              /* 27 */

/* C++ with enough of the standard library for a .debug_info of several
 * hundred KB (so that, compressed, it streams in on a thread). */
static const char cxx_program[] =
	"#include <algorithm>\n#include <functional>\n#include <map>\n#include <sstream>\n"
	"#include <string>\n#include <vector>\n"
	"struct Item { int a; std::string s; };\n"
	"template <typename K> static std::map<K, std::vector<Item>> build(int n)\n"
	"{\n"
	"\tstd::map<K, std::vector<Item>> m;\n"
	"\tfor (int k = 0; k < n; k++) {\n"
	"\t\tstd::ostringstream os;\n"
	"\t\tos << k;\n"
	"\t\tm[K(k % 7)].push_back(Item{k, os.str()});\n"
	"\t}\n"
	"\tfor (auto &kv : m)\n"
	"\t\tstd::sort(kv.second.begin(), kv.second.end(),\n"
	"\t\t\t  [](const Item &x, const Item &y) { return x.s < y.s; });\n"
	"\treturn m;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\t(void)argv;\n"
	"\tstd::function<long(int)> f = [](int n) { return (long)build<long>(n).size(); };\n"
	"\treturn (int)(f(argc * 10) + (long)build<int>(argc).size() + "
	"(long)build<short>(argc).size());\n"
	"}\n";

static int run(const char *cmd)
{
	int rc = system(cmd);

	return rc == 0 ? 0 : -1;
}

/* The address of symbol `name` in `path` (from nm), or 0. */
static uint64_t sym_addr(const char *path, const char *name)
{
	char cmd[512], line[256];
	unsigned long long a = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm '%s'", path);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p)) {
		char type, sym[200];
		unsigned long long v;

		if (sscanf(line, "%llx %c %199s", &v, &type, sym) == 3 && !strcmp(sym, name))
			a = v;
	}
	pclose(p);
	return a;
}

static int group_setup(void **state)
{
	char cmd[2048];
	FILE *f;

	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(src, sizeof(src), "%s/prog.c", tmpdir);
	snprintf(bin5, sizeof(bin5), "%s/prog5", tmpdir);
	snprintf(bin4, sizeof(bin4), "%s/prog4", tmpdir);
	snprintf(nodwarf, sizeof(nodwarf), "%s/prog-nodwarf", tmpdir);
	f = fopen(src, "w");
	if (!f || fputs(program, f) < 0 || fclose(f))
		return -1;
	snprintf(cxx, sizeof(cxx), "%s/cxx.cpp", tmpdir);
	f = fopen(cxx, "w");
	if (!f || fputs(cxx_program, f) < 0 || fclose(f))
		return -1;
	snprintf(cmd, sizeof(cmd), "c++ -O2 -g -gz=zlib -o %s/cxx-z %s && c++ -O2 -g -o %s/cxx %s",
		 tmpdir, cxx, tmpdir, cxx);
	if (run(cmd))
		return -1;
	/* Three units of code (the same program, two with main renamed):
	 * for reading units ahead on a second thread. */
	snprintf(cmd, sizeof(cmd),
		 "c++ -O2 -g -c -Dmain=main1 -o %s/m1.o %s && c++ -O2 -g -c -Dmain=main2 -o %s/m2.o %s"
		 " && c++ -O2 -g -o %s/cxx-multi %s %s/m1.o %s/m2.o",
		 tmpdir, cxx, tmpdir, cxx, tmpdir, cxx, tmpdir, tmpdir);
	if (run(cmd))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "cc -O2 -g -gdwarf-5 -o %s %s && cc -O2 -g -gdwarf-4 -o %s %s && "
		 "cp %s %s && strip --strip-debug %s",
		 bin5, src, bin4, src, bin5, nodwarf, nodwarf);
	return run(cmd);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int group_teardown(void **state)
{
	(void)state;
	nftw(tmpdir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	return 0;
}

static void check_chain(const char *path)
{
	struct dwarf_info *d = dwarf_info__load(path);
	struct src_frame fr[8];
	uint64_t leaf = sym_addr(path, "mark_leaf"), out = sym_addr(path, "mark_outer");
	size_t n;

	assert_non_null(d);
	assert_true(leaf && out);
	assert_true(dwarf_info__nlines(d) > 10);
	assert_true(dwarf_info__nranges(d) >= 4);

	/* In leaf(), inlined into middle(), inlined into outer(). */
	n = dwarf_info__lookup(d, leaf, fr, 8);
	assert_int_equal(n, 3);
	assert_string_equal(fr[0].function, "leaf");
	assert_int_equal(fr[0].flags & (SRC_FRAME_LINKAGE | SRC_FRAME_INLINED),
			 SRC_FRAME_LINKAGE | SRC_FRAME_INLINED);
	assert_non_null(strstr(fr[0].file, "/prog.c"));
	assert_true(fr[0].line == 6 || fr[0].line == 7); /* the label's line, or the next */
	assert_string_equal(fr[1].function, "middle");
	assert_int_equal(fr[1].line, 12); /* where middle() calls leaf() */
	assert_non_null(strstr(fr[1].file, "/prog.c"));
	assert_string_equal(fr[2].function, "outer");
	assert_int_equal(fr[2].line, 18); /* where outer() calls middle() */
	assert_false(fr[2].flags & SRC_FRAME_INLINED);

	/* A shorter buffer keeps the innermost frames. */
	assert_int_equal(dwarf_info__lookup(d, leaf, fr, 1), 1);
	assert_string_equal(fr[0].function, "leaf");

	/* Outside any inlined code: just outer(). */
	n = dwarf_info__lookup(d, out, fr, 8);
	assert_int_equal(n, 1);
	assert_string_equal(fr[0].function, "outer");
	assert_true(fr[0].line >= 19 && fr[0].line <= 21);

	/* Nothing at address 0 or far away. */
	assert_int_equal(dwarf_info__lookup(d, 0, fr, 8), 0);
	assert_int_equal(dwarf_info__lookup(d, UINT64_MAX - 1, fr, 8), 0);
	dwarf_info__free(d);
}

static void test_inline_chain_dwarf5(void **state)
{
	(void)state;
	check_chain(bin5);
}

static void test_inline_chain_dwarf4(void **state)
{
	(void)state;
	check_chain(bin4);
}

static void test_no_dwarf(void **state)
{
	(void)state;
	errno = 0;
	assert_null(dwarf_info__load(nodwarf));
	assert_int_equal(errno, ENODATA);
	assert_null(dwarf_info__load("/nonexistent/file"));
	assert_int_equal(errno, ENOENT);
	assert_null(dwarf_info__load(src)); /* not ELF */
	assert_int_equal(errno, ENOEXEC);
	dwarf_info__free(NULL);
}

static void test_load_pair(void **state)
{
	struct dwarf_info *d;
	struct src_frame fr[4];
	char dbg[300], cmd[1024];

	(void)state;
	snprintf(dbg, sizeof(dbg), "%s/prog5.debug", tmpdir);
	snprintf(cmd, sizeof(cmd), "objcopy --only-keep-debug %s %s", bin5, dbg);
	assert_int_equal(run(cmd), 0);
	d = dwarf_info__load_pair(nodwarf, dbg);
	assert_non_null(d);
	assert_int_equal(dwarf_info__lookup(d, sym_addr(bin5, "mark_leaf"), fr, 4), 3);
	dwarf_info__free(d);
	/* A debug file of another build is refused. */
	errno = 0;
	assert_null(dwarf_info__load_pair(bin4, dbg));
	assert_int_equal(errno, ESTALE);
}

static unsigned char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return buf;
}

static void spit(const char *path, const unsigned char *buf, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* Loads a damaged copy: it fails with an errno, or looks up safely. */
static void load_damaged(const char *path, const uint64_t *addrs, size_t naddrs)
{
	struct dwarf_info *d = dwarf_info__load(path);
	struct src_frame fr[16];
	size_t i, n, k;

	if (!d) {
		assert_true(errno != 0);
		return;
	}
	for (i = 0; i < naddrs; i++) {
		n = dwarf_info__lookup(d, addrs[i], fr, 16);
		assert_true(n <= 16);
		for (k = 0; k < n; k++) {
			if (fr[k].function)
				assert_true(strlen(fr[k].function) < (1u << 20));
			if (fr[k].file)
				assert_true(strlen(fr[k].file) < (1u << 20));
		}
	}
	dwarf_info__free(d);
	/* The lazy load: units read by the lookups. */
	d = dwarf_info__load_flags(path, NULL, DWARF_LOAD_LAZY);
	if (d) {
		unsigned char *decoded = calloc(dwarf_info__nunits(d) + 1, 1);

		assert_non_null(decoded);
		for (i = 0; i < naddrs; i++) {
			n = dwarf_info__lookup_bfd(d, addrs[i], decoded, fr, 16);
			assert_true(n <= 16);
			for (k = 0; k < n; k++)
				if (fr[k].file)
					assert_true(strlen(fr[k].file) < (1u << 20));
		}
		free(decoded);
		dwarf_info__free(d);
	}
}

/* Loads `orig` cut at about 100 lengths, then with a few bytes changed,
 * `rounds` times: mostly in the second half of the file when `tail` (where
 * a linker puts the debug sections), else anywhere. */
static void damage(const char *orig_path, const uint64_t *addrs, size_t naddrs, int rounds,
		   int tail)
{
	char path[300];
	size_t size, cut, i;
	unsigned char *orig = slurp(orig_path, &size), *buf = malloc(size);
	unsigned seed = 12345;

	assert_non_null(buf);
	snprintf(path, sizeof(path), "%s/damaged", tmpdir);
	for (cut = 0; cut < size; cut += size / 97 + 1) {
		spit(path, orig, cut);
		load_damaged(path, addrs, naddrs);
	}
	for (i = 0; i < (size_t)rounds; i++) {
		int flips = 1 + (int)(rand_r(&seed) % 8), k;

		memcpy(buf, orig, size);
		for (k = 0; k < flips; k++) {
			size_t at = tail && rand_r(&seed) % 4 ? size / 2 + rand_r(&seed) % (size / 2)
							     : rand_r(&seed) % size;

			buf[at] = (unsigned char)rand_r(&seed);
		}
		spit(path, buf, size);
		load_damaged(path, addrs, naddrs);
	}
	free(buf);
	free(orig);
}

static void test_truncated_and_mutated(void **state)
{
	char path[300];
	uint64_t addrs[4] = {sym_addr(bin5, "mark_leaf"), sym_addr(bin5, "mark_outer"),
			     sym_addr(bin5, "main"), 0x1000};
	int rounds = getenv("DWARF_MUTATIONS") ? atoi(getenv("DWARF_MUTATIONS")) : 1500;

	(void)state;
	damage(bin5, addrs, 4, rounds, 1);
	/* zlib-compressed sections, .debug_info streamed in on a thread. */
	snprintf(path, sizeof(path), "%s/cxx-z", tmpdir);
	addrs[0] = sym_addr(path, "main");
	damage(path, addrs, 1, rounds / 3, 0);
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static void same_frames(const struct src_frame *a, size_t na, const struct src_frame *b,
			size_t nb, uint64_t addr)
{
	size_t k;

	if (na != nb)
		fail_msg("0x%llx: %zu frames vs libdw's %zu", (unsigned long long)addr, na, nb);
	for (k = 0; k < na; k++) {
		if (!same_str(a[k].function, b[k].function) || !same_str(a[k].file, b[k].file) ||
		    a[k].line != b[k].line || a[k].discriminator != b[k].discriminator ||
		    a[k].flags != b[k].flags || a[k].func != b[k].func ||
		    a[k].func_low != b[k].func_low)
			fail_msg("0x%llx frame %zu: %s %s:%u vs libdw's %s %s:%u",
				 (unsigned long long)addr, k, a[k].function ? a[k].function : "-",
				 a[k].file ? a[k].file : "-", a[k].line,
				 b[k].function ? b[k].function : "-", b[k].file ? b[k].file : "-",
				 b[k].line);
	}
}

static void lookup_both(struct dwarf_info *own, struct dwarf_info *dw, uint64_t addr,
			unsigned char *dec_own, unsigned char *dec_dw)
{
	struct src_frame a[64], b[64];
	size_t na, nb;

	na = dwarf_info__lookup(own, addr, a, 64);
	nb = dwarf_info__lookup(dw, addr, b, 64);
	same_frames(a, na, b, nb, addr);
	na = dwarf_info__lookup_bfd(own, addr, dec_own, a, 64);
	nb = dwarf_info__lookup_bfd(dw, addr, dec_dw, b, 64);
	same_frames(a, na, b, nb, addr);
}

/* Loads `path` with prof's reader and with libdw's walk: the same tables,
 * and the same answers at every range boundary and row address (and
 * around them). At most `limit` addresses of each kind. */
static void compare_readers(const char *path, size_t limit)
{
	struct dwarf_info *own, *dw;
	unsigned char *dec_own, *dec_dw;
	size_t i, step;

	unsetenv("PROF_DWARF_LIBDW");
	own = dwarf_info__load(path);
	setenv("PROF_DWARF_LIBDW", "1", 1);
	dw = dwarf_info__load(path);
	unsetenv("PROF_DWARF_LIBDW");
	assert_non_null(own);
	assert_non_null(dw);
	assert_true(dwarf_info__nlines(own) > 0);
	assert_int_equal(dwarf_info__nlines(own), dwarf_info__nlines(dw));
	assert_int_equal(dwarf_info__nranges(own), dwarf_info__nranges(dw));
	assert_int_equal(dwarf_info__nfuncs(own), dwarf_info__nfuncs(dw));
	assert_int_equal(dwarf_info__nunits(own), dwarf_info__nunits(dw));
	assert_int_equal(own->nspans, dw->nspans);
	assert_int_equal(own->nseqs, dw->nseqs);
	for (i = 0; i < own->nranges; i++) {
		assert_true(own->ranges[i].lo == dw->ranges[i].lo);
		assert_true(own->ranges[i].hi == dw->ranges[i].hi);
		assert_int_equal(own->ranges[i].func, dw->ranges[i].func);
		assert_int_equal(own->ranges[i].parent, dw->ranges[i].parent);
	}
	for (i = 0; i < own->nlines; i++) {
		assert_true(own->lines[i].addr == dw->lines[i].addr);
		assert_int_equal(own->lines[i].line, dw->lines[i].line);
		assert_int_equal(own->lines[i].end, dw->lines[i].end);
	}
	dec_own = calloc(own->nunits + 1, 1);
	dec_dw = calloc(dw->nunits + 1, 1);
	assert_non_null(dec_own);
	assert_non_null(dec_dw);
	step = own->nranges / limit + 1;
	for (i = 0; i < own->nranges; i += step) {
		lookup_both(own, dw, own->ranges[i].lo, dec_own, dec_dw);
		lookup_both(own, dw, own->ranges[i].hi - 1, dec_own, dec_dw);
		lookup_both(own, dw, own->ranges[i].hi, dec_own, dec_dw);
	}
	step = own->nlines / limit + 1;
	for (i = 0; i < own->nlines; i += step) {
		lookup_both(own, dw, own->lines[i].addr, dec_own, dec_dw);
		lookup_both(own, dw, own->lines[i].addr + 1, dec_own, dec_dw);
	}
	free(dec_own);
	free(dec_dw);
	dwarf_info__free(own);
	dwarf_info__free(dw);
}

/* The lazy load (units read as lookups land in them, dwarf-lazy.c)
 * against the whole one: the same frames for the same run of addresses
 * (every range boundary and row address of the whole tables, in a
 * scrambled order, so that units are read in no particular order), except
 * the func indexes, which count in the order units are read. With
 * `libdw`, the lazy load's units are read by libdw (its way out when
 * prof's reader gives up on a unit). With `ahead`, the addresses are
 * announced (dwarf_info__prefetch(), 500 at a time, as prof symbolize
 * does per buffer of its input) so that units are read ahead on a second
 * thread: then the lazy tables must also be exactly those of a lazy load
 * without read-ahead, func indexes included. */
static void compare_tables(struct dwarf_info *a, struct dwarf_info *b)
{
	size_t i;

	assert_int_equal(a->nfuncs, b->nfuncs);
	assert_int_equal(a->nranges, b->nranges);
	assert_int_equal(a->nlines, b->nlines);
	assert_int_equal(a->nseqs, b->nseqs);
	for (i = 0; i < a->nfuncs; i++) {
		/* Names point into each load's own mapping. */
		assert_int_equal(!a->funcs[i].name, !b->funcs[i].name);
		if (a->funcs[i].name)
			assert_string_equal(a->funcs[i].name, b->funcs[i].name);
		assert_int_equal(a->funcs[i].parent, b->funcs[i].parent);
		assert_int_equal(a->funcs[i].call_file, b->funcs[i].call_file);
		assert_int_equal(a->funcs[i].call_line, b->funcs[i].call_line);
		assert_true(a->funcs[i].low == b->funcs[i].low);
		assert_int_equal(a->funcs[i].linkage, b->funcs[i].linkage);
		assert_int_equal(a->funcs[i].inlined, b->funcs[i].inlined);
	}
	assert_memory_equal(a->ranges, b->ranges, a->nranges * sizeof(*a->ranges));
	assert_memory_equal(a->lines, b->lines, a->nlines * sizeof(*a->lines));
	assert_memory_equal(a->seqs, b->seqs, a->nseqs * sizeof(*a->seqs));
}

static void compare_lazy(const char *path, size_t limit, int libdw, int ahead)
{
	struct dwarf_info *whole = dwarf_info__load(path), *lazy, *plain = NULL;
	unsigned char *dec_w, *dec_l, *dec_p = NULL;
	uint64_t *addrs = NULL;
	size_t n = 0, i, step, k;

	if (libdw)
		setenv("PROF_DWARF_LIBDW", "1", 1);
	lazy = dwarf_info__load_flags(path, NULL, DWARF_LOAD_LAZY);
	if (ahead)
		plain = dwarf_info__load_flags(path, NULL, DWARF_LOAD_LAZY);
	unsetenv("PROF_DWARF_LIBDW");
	assert_non_null(whole);
	assert_non_null(lazy);
	assert_int_equal(dwarf_info__ready(lazy), 0);
	assert_non_null(lazy->lazy); /* not loaded whole after all */
	addrs = malloc((4 * limit + 8) * sizeof(*addrs));
	assert_non_null(addrs);
	step = whole->nranges / limit + 1;
	for (i = 0; i < whole->nranges; i += step) {
		addrs[n++] = whole->ranges[i].lo;
		addrs[n++] = whole->ranges[i].hi;
	}
	step = whole->nlines / limit + 1;
	for (i = 0; i < whole->nlines; i += step) {
		addrs[n++] = whole->lines[i].addr;
		addrs[n++] = whole->lines[i].addr + 1;
	}
	for (i = n; i > 1; i--) { /* a fixed scramble */
		uint64_t t;

		k = (size_t)((i * 2654435761u) % i);
		t = addrs[i - 1];
		addrs[i - 1] = addrs[k];
		addrs[k] = t;
	}
	dec_w = calloc(dwarf_info__nunits(whole) + 1, 1);
	dec_l = calloc(dwarf_info__nunits(lazy) + 1, 1);
	assert_non_null(dec_w);
	assert_non_null(dec_l);
	if (ahead) {
		dec_p = calloc(dwarf_info__nunits(plain) + 1, 1);
		assert_non_null(dec_p);
	}
	for (i = 0; i < n; i++) {
		struct src_frame a[64], b[64], c[64];
		size_t na, nb, nc;

		if (ahead && i % 500 == 0)
			dwarf_info__prefetch(lazy, addrs + i, n - i < 500 ? n - i : 500);
		na = dwarf_info__lookup_bfd(lazy, addrs[i], dec_l, a, 64);
		nb = dwarf_info__lookup_bfd(whole, addrs[i], dec_w, b, 64);
		if (ahead) {
			nc = dwarf_info__lookup_bfd(plain, addrs[i], dec_p, c, 64);
			same_frames(a, na, c, nc, addrs[i]); /* func indexes too */
		}
		for (k = 0; k < na && k < nb; k++)
			a[k].func = b[k].func;
		same_frames(a, na, b, nb, addrs[i]);
	}
	if (ahead) {
		compare_tables(lazy, plain);
		free(dec_p);
		dwarf_info__free(plain);
	}
	assert_int_equal(dwarf_info__failed(lazy), 0);
	/* Every unit read in the end: as many functions as the whole load. */
	assert_true(dwarf_info__nfuncs(lazy) <= dwarf_info__nfuncs(whole));
	free(dec_w);
	free(dec_l);
	free(addrs);
	dwarf_info__free(whole);
	dwarf_info__free(lazy);
}

/* libc's separate debug file, when libc6-dbg is installed: path or 0. */
static int libc_debug_file(char *path, size_t len)
{
	FILE *p = popen("readelf -n /lib/x86_64-linux-gnu/libc.so.6 2>/dev/null | "
			"awk '/Build ID/ { print $3 }'", "r");
	char id[130] = "";
	int ok = 0;

	if (!p)
		return 0;
	if (fgets(id, sizeof(id), p) && strlen(id) > 3) {
		id[strcspn(id, "\n")] = '\0';
		snprintf(path, len, "/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2);
		ok = !access(path, R_OK);
	}
	pclose(p);
	return ok;
}

static void test_lazy_matches_whole(void **state)
{
	char path[300];
	int libdw;

	(void)state;
	for (libdw = 0; libdw < 2; libdw++) {
		compare_lazy(bin5, 100000, libdw, 0);
		compare_lazy(bin4, 100000, libdw, 0);
		snprintf(path, sizeof(path), "%s/cxx", tmpdir);
		compare_lazy(path, 20000, libdw, 0);
		snprintf(path, sizeof(path), "%s/cxx-z", tmpdir);
		compare_lazy(path, 20000, libdw, 0);
		if (libc_debug_file(path, sizeof(path)))
			compare_lazy(path, 3000, libdw, 0);
	}
	/* Read ahead on a second thread (prof's reader only: libdw's units
	 * are not read ahead). */
	compare_lazy(bin5, 100000, 0, 1);
	compare_lazy(bin4, 100000, 0, 1);
	snprintf(path, sizeof(path), "%s/cxx", tmpdir);
	compare_lazy(path, 20000, 0, 1);
	snprintf(path, sizeof(path), "%s/cxx-z", tmpdir);
	compare_lazy(path, 20000, 0, 1);
	snprintf(path, sizeof(path), "%s/cxx-multi", tmpdir);
	compare_lazy(path, 20000, 0, 0);
	compare_lazy(path, 20000, 0, 1);
	if (libc_debug_file(path, sizeof(path)))
		compare_lazy(path, 3000, 0, 1);
}

/* dwarf.h's promise: once a whole load is ready, several threads may look
 * up in it at once (the lookups only read). Two threads look up every range
 * boundary and row address of the C++ program, in turn, and must each get
 * what one thread got alone (checked after the join: cmocka's asserts are
 * the main thread's). Under ASan/UBSan a write by a lookup would show as a
 * mismatch or a race-corrupted answer. */
struct lookup_run {
	struct dwarf_info *d;
	const uint64_t *addrs;
	const size_t *nframes; /* what one thread alone got */
	const struct src_frame *frames;
	size_t n, mismatches;
};

static void *lookup_all(void *arg)
{
	struct lookup_run *r = arg;
	size_t i, k;

	for (i = 0; i < r->n; i++) {
		struct src_frame fr[8];
		size_t n = dwarf_info__lookup(r->d, r->addrs[i], fr, 8);
		const struct src_frame *want = &r->frames[i * 8];

		if (n != r->nframes[i]) {
			r->mismatches++;
			continue;
		}
		for (k = 0; k < n; k++)
			if (!same_str(fr[k].function, want[k].function) ||
			    !same_str(fr[k].file, want[k].file) || fr[k].line != want[k].line ||
			    fr[k].func != want[k].func)
				r->mismatches++;
	}
	return NULL;
}

static void test_concurrent_whole_lookups(void **state)
{
	struct lookup_run runs[2];
	pthread_t th[2];
	struct dwarf_info *d;
	struct src_frame *frames;
	uint64_t *addrs;
	size_t *nframes, n = 0, i, t;
	char path[300];

	(void)state;
	snprintf(path, sizeof(path), "%s/cxx", tmpdir);
	d = dwarf_info__load(path);
	assert_non_null(d);
	assert_int_equal(dwarf_info__ready(d), 0);
	addrs = malloc((2 * d->nranges + d->nlines + 1) * sizeof(*addrs));
	assert_non_null(addrs);
	for (i = 0; i < d->nranges; i++) {
		addrs[n++] = d->ranges[i].lo;
		addrs[n++] = d->ranges[i].hi - 1;
	}
	for (i = 0; i < d->nlines; i++)
		addrs[n++] = d->lines[i].addr;
	nframes = malloc((n + 1) * sizeof(*nframes));
	frames = calloc(n * 8 + 1, sizeof(*frames));
	assert_non_null(nframes);
	assert_non_null(frames);
	for (i = 0; i < n; i++)
		nframes[i] = dwarf_info__lookup(d, addrs[i], &frames[i * 8], 8);
	for (t = 0; t < 2; t++) {
		runs[t] = (struct lookup_run){d, addrs, nframes, frames, n, 0};
		assert_int_equal(pthread_create(&th[t], NULL, lookup_all, &runs[t]), 0);
	}
	for (t = 0; t < 2; t++) {
		assert_int_equal(pthread_join(th[t], NULL), 0);
		assert_int_equal(runs[t].mismatches, 0);
	}
	assert_true(n > 1000);
	free(frames);
	free(nframes);
	free(addrs);
	dwarf_info__free(d);
}

static void test_own_reader_matches_libdw(void **state)
{
	const char *libc_dbg = "/usr/lib/debug/.build-id";
	char path[300];
	FILE *p;

	(void)state;
	compare_readers(bin5, 100000);
	compare_readers(bin4, 100000);
	snprintf(path, sizeof(path), "%s/cxx", tmpdir);
	compare_readers(path, 100000);
	snprintf(path, sizeof(path), "%s/cxx-z", tmpdir);
	compare_readers(path, 100000);
	/* libc's separate debug file, when libc6-dbg is there: every kind of
	 * unit a real library has, and compressed sections. */
	p = popen("readelf -n /lib/x86_64-linux-gnu/libc.so.6 2>/dev/null | "
		  "awk '/Build ID/ { print $3 }'", "r");
	if (p) {
		char id[130] = "";

		if (fgets(id, sizeof(id), p) && strlen(id) > 3) {
			id[strcspn(id, "\n")] = '\0';
			snprintf(path, sizeof(path), "%s/%.2s/%s.debug", libc_dbg, id, id + 2);
			if (!access(path, R_OK))
				compare_readers(path, 3000);
		}
		pclose(p);
	}
}

static void test_demangle(void **state)
{
	char *s;

	(void)state;
	s = demangle("_ZN6shapes5mixer4nextEv");
	assert_string_equal(s, "shapes::mixer::next()");
	free(s);
	s = demangle("_ZN3foo3barE@plt");
	assert_string_equal(s, "foo::bar@plt");
	free(s);
	s = demangle("_ZN4core3fmt5write17h0123456789abcdefE"); /* Rust legacy */
	assert_string_equal(s, "core::fmt::write");
	free(s);
	s = demangle("_RNvCs15kBYyAo9fc_7mycrate4main"); /* Rust v0 */
	assert_string_equal(s, "mycrate::main");
	free(s);
	assert_null(demangle("main"));
	assert_null(demangle("_Z"));
	assert_null(demangle(""));
	assert_null(demangle(NULL));
}

static void test_inlines_chunk(void **state)
{
	char path[300];
	struct rec_writer *w;
	struct recording r;
	unsigned char *data;
	size_t size;
	uint32_t f1, f2, names[3], file;
	char err[256];
	int i;

	(void)state;
	snprintf(path, sizeof(path), "%s/rec.data", tmpdir);
	w = rec_writer__open(path);
	assert_non_null(w);
	assert_int_equal(rec_writer__frame(w, 1, 0x1000, 0, REC_NO_MAPPING, &f1), 0);
	assert_int_equal(rec_writer__frame(w, 1, 0x2000, 0, REC_NO_MAPPING, &f2), 0);
	assert_int_equal(rec_writer__string(w, "inner", 5, &names[0]), 0);
	assert_int_equal(rec_writer__string(w, "mid", 3, &names[1]), 0);
	assert_int_equal(rec_writer__string(w, "outer", 5, &names[2]), 0);
	assert_int_equal(rec_writer__string(w, "/src/a.c", 8, &file), 0);
	for (i = 0; i < 3; i++) {
		struct rec_inline in = {f2, names[i], file, 10u + (uint32_t)i};

		assert_int_equal(rec_writer__inline(w, &in), 0);
	}
	{
		struct rec_inline in = {f1, names[2], 0, 0};

		assert_int_equal(rec_writer__inline(w, &in), 0);
	}
	assert_int_equal(rec_writer__close(w), 0);

	assert_int_equal(read_whole_file(path, &data, &size), 0);
	memset(&r, 0, sizeof(r));
	assert_int_equal(recording__parse(&r, data, size, err, sizeof(err)), 0);
	assert_int_equal(r.ninlines, 4);
	assert_true(r.inline_of_cap >= 2);
	assert_int_equal(r.inline_of[f2].count, 3);
	assert_int_equal(r.inline_of[f1].count, 1);
	assert_string_equal(recording__str(&r, r.inlines[r.inline_of[f2].first].name), "inner");
	assert_int_equal(r.inlines[r.inline_of[f2].first + 2].line, 12);
	recording__release(&r);

	/* A record naming a frame that does not exist is refused. */
	w = rec_writer__open(path);
	assert_non_null(w);
	{
		struct rec_inline in = {7, 0, 0, 0};

		assert_int_equal(rec_writer__inline(w, &in), 0);
	}
	assert_int_equal(rec_writer__close(w), 0);
	assert_int_equal(read_whole_file(path, &data, &size), 0);
	memset(&r, 0, sizeof(r));
	assert_int_equal(recording__parse(&r, data, size, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "inline record for undefined frame"));
	recording__release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inline_chain_dwarf5),
		cmocka_unit_test(test_inline_chain_dwarf4),
		cmocka_unit_test(test_no_dwarf),
		cmocka_unit_test(test_load_pair),
		cmocka_unit_test(test_truncated_and_mutated),
		cmocka_unit_test(test_own_reader_matches_libdw),
		cmocka_unit_test(test_lazy_matches_whole),
		cmocka_unit_test(test_concurrent_whole_lookups),
		cmocka_unit_test(test_demangle),
		cmocka_unit_test(test_inlines_chunk),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
