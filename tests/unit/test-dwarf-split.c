/* test-dwarf-split.c: split DWARF (symbolize/dwarf-split.c). A .dwp
 * package's .debug_cu_index lookup on hand-made indexes (DWARF 5 and GNU
 * version 2; found, absent, and every truncation and many mutations of the
 * index, which must never read outside it: run under ASan). Then a small C
 * program compiled here with -gsplit-dwarf (DWARF 5 and 4): its inlined
 * function comes out of the .dwo with its call site; the .dwo deleted, it
 * is counted once as missing; the .dwo mutated a thousand times, loading
 * and looking up every address never crashes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/dwarf-internal.h"

/* Little-endian writers into a byte buffer. */
static unsigned char *put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		*p++ = (unsigned char)(v >> (8 * i));
	return p;
}

static unsigned char *put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		*p++ = (unsigned char)(v >> (8 * i));
	return p;
}

#define ID_A 0x1111222233334444ULL
#define ID_B 0x5555666677778888ULL

/* An index of two units, 4 slots, columns INFO, ABBREV, STR_OFFSETS and
 * (DWARF 5) RNGLISTS or (GNU v2) LOC (5): unit A at row 1, B at row 2. */
static size_t make_index(unsigned char *buf, int version)
{
	static const uint32_t cols5[4] = {1, 3, 6, 8}, cols2[4] = {1, 3, 6, 5};
	const uint32_t *cols = version == 5 ? cols5 : cols2;
	uint64_t sigs[4] = {0, 0, 0, 0};
	uint32_t rows[4] = {0, 0, 0, 0};
	unsigned char *p = buf;
	int i;

	sigs[ID_A & 3] = ID_A;
	rows[ID_A & 3] = 1;
	/* ID_B collides with ID_A's slot (both end in ...4 and ...8 & 3 = 0):
	 * it goes to the next slot by the step of its upper half. */
	{
		uint64_t h = ID_B & 3, step = ((ID_B >> 32) & 3) | 1;

		while (rows[h])
			h = (h + step) & 3;
		sigs[h] = ID_B;
		rows[h] = 2;
	}
	p = put32(p, (uint32_t)version);
	p = put32(p, 4); /* columns */
	p = put32(p, 2); /* units */
	p = put32(p, 4); /* slots */
	for (i = 0; i < 4; i++)
		p = put64(p, sigs[i]);
	for (i = 0; i < 4; i++)
		p = put32(p, rows[i]);
	for (i = 0; i < 4; i++)
		p = put32(p, cols[i]);
	/* Offsets: unit A at 0 of each section, B at 100. */
	for (i = 0; i < 4; i++)
		p = put32(p, 0);
	for (i = 0; i < 4; i++)
		p = put32(p, 100);
	/* Sizes: A 100 each, B 50. */
	for (i = 0; i < 4; i++)
		p = put32(p, 100);
	for (i = 0; i < 4; i++)
		p = put32(p, 50);
	return (size_t)(p - buf);
}

static unsigned char sections[4][200];

static void whole_secs(struct dw_sec whole[4])
{
	for (int i = 0; i < 4; i++)
		whole[i] = (struct dw_sec){sections[i], sizeof(sections[i])};
}

static void test_dwp_index(void **state)
{
	unsigned char buf[512];
	struct dw_sec whole[4], out[4], idx;
	int version;

	(void)state;
	whole_secs(whole);
	for (version = 2; version <= 5; version += 3) {
		idx = (struct dw_sec){buf, make_index(buf, version)};
		assert_int_equal(dwarf_split__dwp_unit(&idx, ID_A, whole, out), 0);
		assert_ptr_equal(out[0].p, sections[0]);
		assert_int_equal(out[0].size, 100);
		assert_ptr_equal(out[2].p, sections[2]);
		assert_int_equal(dwarf_split__dwp_unit(&idx, ID_B, whole, out), 0);
		assert_ptr_equal(out[0].p, sections[0] + 100);
		assert_int_equal(out[0].size, 50);
		assert_ptr_equal(out[1].p, sections[1] + 100);
		if (version == 5) {
			assert_ptr_equal(out[3].p, sections[3] + 100);
		} else {
			assert_null(out[3].p); /* GNU v2 has no rnglists column */
		}
		assert_int_equal(dwarf_split__dwp_unit(&idx, 0x42, whole, out), 1);
	}
}

/* Every truncation and random mutations: answers or 1, reads inside the
 * index and hands out slices inside the sections. */
static void test_dwp_index_hostile(void **state)
{
	unsigned char buf[512], *copy;
	struct dw_sec whole[4], out[4], idx;
	size_t n = make_index(buf, 5), len, i;
	unsigned seed = 7;
	int k, rc;

	(void)state;
	whole_secs(whole);
	for (len = 0; len <= n; len++) {
		copy = malloc(len ? len : 1);
		assert_non_null(copy);
		memcpy(copy, buf, len);
		idx = (struct dw_sec){copy, len};
		rc = dwarf_split__dwp_unit(&idx, ID_B, whole, out);
		assert_true(rc == 0 || rc == 1);
		assert_true(rc == 1 || len == n);
		free(copy);
	}
	for (k = 0; k < 5000; k++) {
		copy = malloc(n);
		assert_non_null(copy);
		memcpy(copy, buf, n);
		for (i = 0; i < 4; i++) {
			seed = seed * 1103515245u + 12345u;
			copy[(seed >> 8) % n] = (unsigned char)(seed >> 20);
		}
		idx = (struct dw_sec){copy, n};
		if (dwarf_split__dwp_unit(&idx, k & 1 ? ID_A : ID_B, whole, out) == 0) {
			for (i = 0; i < 4; i++) {
				if (!out[i].p)
					continue;
				assert_true(out[i].p >= sections[i]);
				assert_true(out[i].p + out[i].size <= sections[i] + sizeof(sections[i]));
			}
		}
		free(copy);
	}
}

static const char program[] =
	"static volatile int sink;\n"
	"static inline __attribute__((always_inline)) int twice(int x)\n"
	"{\n"
	"\treturn x * 2 + sink;\n"
	"}\n"
	"__attribute__((noinline)) int outer(int x)\n"
	"{\n"
	"\treturn twice(x) + 1;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\t(void)argv;\n"
	"\treturn outer(argc);\n"
	"}\n";

static char dir[] = "/tmp/test-dwarf-split.XXXXXX";

static int build(const char *flags)
{
	char cmd[1024];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s/s.c", dir);
	f = fopen(cmd, "w");
	if (!f)
		return -1;
	fputs(program, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cd '%s' && cc -O2 -g -gsplit-dwarf %s -o s s.c", dir, flags);
	return system(cmd) == 0 ? 0 : -1;
}

/* The address of `outer` (from nm). */
static uint64_t outer_addr(void)
{
	char cmd[512], line[256];
	unsigned long long a = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm '%s/s'", dir);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p)) {
		char type, name[128];

		if (sscanf(line, "%llx %c %127s", &a, &type, name) == 3 && !strcmp(name, "outer"))
			break;
		a = 0;
	}
	pclose(p);
	return a;
}

/* The inlined twice() in outer(), from the .dwo; nothing missing. */
static void check_inline(const char *path)
{
	struct dwarf_info *d = dwarf_info__load(path);
	struct src_frame fr[8];
	uint64_t at = outer_addr();
	const char *first;
	size_t n = 0, off;
	int found = 0;

	assert_non_null(d);
	assert_int_not_equal(at, 0);
	for (off = 0; off < 32 && !found; off++) {
		n = dwarf_info__lookup(d, at + off, fr, 8);
		found = n == 2 && fr[0].function && !strcmp(fr[0].function, "twice");
	}
	assert_true(found);
	assert_true(fr[0].flags & SRC_FRAME_INLINED);
	assert_string_equal(fr[1].function, "outer");
	assert_int_equal(fr[1].line, 8); /* the call site: return twice(x) + 1 */
	assert_int_equal(dwarf_info__split_missing(d, &first), 0);
	assert_null(first);
	dwarf_info__free(d);
}

static void test_split_program(void **state)
{
	char path[256], dwo[256];
	const char *first;
	struct dwarf_info *d;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s", dir);
	snprintf(dwo, sizeof(dwo), "%s/s.dwo", dir);
	assert_int_equal(build("-gdwarf-5"), 0);
	check_inline(path);
	assert_int_equal(build("-gdwarf-4"), 0);
	check_inline(path);
	/* Without its .dwo: counted once, lines from the skeleton still. */
	assert_int_equal(unlink(dwo), 0);
	d = dwarf_info__load(path);
	assert_non_null(d);
	assert_int_equal(dwarf_info__split_missing(d, &first), 1);
	assert_string_equal(first, dwo);
	assert_true(dwarf_info__nlines(d) > 0);
	dwarf_info__free(d);
}

/* The DWARF 5 .dwo mutated: loads fail or give tables that look up
 * safely (ASan checks the reads). */
static void test_split_mutated(void **state)
{
	char path[256], dwo[256], saved[256], cmd[1024];
	unsigned char *bytes;
	unsigned seed = 11;
	size_t size, i;
	uint64_t at;
	FILE *f;
	int k;

	(void)state;
	snprintf(path, sizeof(path), "%s/s", dir);
	snprintf(dwo, sizeof(dwo), "%s/s.dwo", dir);
	snprintf(saved, sizeof(saved), "%s/saved.dwo", dir);
	assert_int_equal(build("-gdwarf-5"), 0);
	at = outer_addr();
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", dwo, saved);
	assert_int_equal(system(cmd), 0);
	f = fopen(saved, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = (size_t)ftell(f);
	rewind(f);
	bytes = malloc(size);
	assert_non_null(bytes);
	assert_int_equal(fread(bytes, 1, size, f), size);
	fclose(f);
	for (k = 0; k < 300; k++) {
		unsigned char *m = malloc(size);
		struct dwarf_info *d;
		struct src_frame fr[8];
		uint64_t a;

		assert_non_null(m);
		memcpy(m, bytes, size);
		for (i = 0; i < 8; i++) {
			seed = seed * 1103515245u + 12345u;
			/* Past the ELF header and section table's usual spot:
			 * the DWARF. */
			m[64 + (seed >> 8) % (size > 1024 ? size - 1024 : 1)] =
				(unsigned char)(seed >> 20);
		}
		f = fopen(dwo, "wb");
		assert_non_null(f);
		fwrite(m, 1, size, f);
		fclose(f);
		d = dwarf_info__load(path);
		for (a = at - 64; d && a < at + 128; a++)
			dwarf_info__lookup(d, a, fr, 8);
		dwarf_info__free(d);
		free(m);
	}
	free(bytes);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dwp_index),
		cmocka_unit_test(test_dwp_index_hostile),
		cmocka_unit_test(test_split_program),
		cmocka_unit_test(test_split_mutated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
