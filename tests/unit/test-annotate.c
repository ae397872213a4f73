/* test-annotate.c: the pieces of `prof annotate`: objdump's AT&T mnemonics
 * from capstone's, the disassembly of known bytes (examples/hotloop's
 * hot_function as gcc 12 -O2 compiles it), samples bucketed into
 * instructions, colour thresholds, the listing's exact text, and which
 * functions of a recording match and what they count (leaf, --children,
 * kernel names, several processes of one binary). */
#include <errno.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/rec-writer.h"
#include "lib/recording.h"
#include "report/annotate.h"
#include "symbolize/function.h"

static void att(const char *mn, const char *base, int reg, const char *want)
{
	char out[DISASM_MNEMONIC_MAX];

	disasm_att_mnemonic(mn, base, reg, out, sizeof(out));
	assert_string_equal(out, want);
}

static void test_att_mnemonics(void **state)
{
	(void)state;
	att("movq", "mov", 1, "mov");      /* mov %rdx,%rax */
	att("movq", "mov", 0, "movq");     /* movq $0x0,(%rax): size needed */
	att("callq", "call", 0, "call");   /* call *0x10(%rip): never a suffix */
	att("retq", "ret", 0, "ret");
	att("pushq", "push", 0, "push");
	att("lock cmpxchgl", "cmpxchg", 1, "lock cmpxchg");
	att("movzbl", "movzx", 1, "movzbl"); /* not base + suffix: kept */
	att("setl", "setl", 1, "setl");
	att("movabsq", "movabs", 1, "movabs");
	att("shrq", "shr", 1, "shr");
	att("nopl", "nop", 0, "nopl");
}

/* hot_function of examples/hotloop.c, gcc 12 -O2, at 0x1330. */
static const unsigned char hot_bytes[] = {
	0x48, 0x89, 0xd0,                                     /* mov %rdx,%rax */
	0x48, 0x8d, 0xb7, 0x00, 0x40, 0x00, 0x00,             /* lea 0x4000(%rdi),%rsi */
	0x48, 0xba, 0xb3, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, /* movabs */
	0x0f, 0x1f, 0x40, 0x00,                               /* nopl 0x0(%rax) */
	0x8b, 0x0f,                                           /* 1348: mov (%rdi),%ecx */
	0x48, 0x83, 0xc7, 0x04,                               /* add $0x4,%rdi */
	0x48, 0x31, 0xc1,                                     /* xor %rax,%rcx */
	0x48, 0xc1, 0xe8, 0x1d,                               /* shr $0x1d,%rax */
	0x48, 0x0f, 0xaf, 0xca,                               /* imul %rdx,%rcx */
	0x48, 0x01, 0xc8,                                     /* add %rcx,%rax */
	0x48, 0x39, 0xfe,                                     /* cmp %rdi,%rsi */
	0x75, 0xe7,                                           /* jne 1348 */
	0xc3,                                                 /* ret */
};

static void expect_insn(const struct disasm_insn *d, uint64_t addr, const char *mn,
			const char *ops)
{
	assert_int_equal(d->addr, addr);
	assert_string_equal(d->mnemonic, mn);
	assert_string_equal(d->operands, ops);
}

static void test_disasm_hot_function(void **state)
{
	struct disasm_insn *v;
	size_t n;

	(void)state;
	assert_int_equal(disasm_function(hot_bytes, sizeof(hot_bytes), 0x1330, DISASM_ATT, &v, &n),
			 0);
	assert_int_equal(n, 13);
	expect_insn(&v[0], 0x1330, "mov", "%rdx,%rax");
	expect_insn(&v[1], 0x1333, "lea", "0x4000(%rdi),%rsi");
	expect_insn(&v[2], 0x133a, "movabs", "$0x100000001b3,%rdx");
	expect_insn(&v[3], 0x1344, "nopl", "(%rax)"); /* objdump: 0x0(%rax) */
	expect_insn(&v[4], 0x1348, "mov", "(%rdi),%ecx");
	expect_insn(&v[5], 0x134a, "add", "$0x4,%rdi");
	expect_insn(&v[7], 0x1351, "shr", "$0x1d,%rax");
	expect_insn(&v[8], 0x1355, "imul", "%rdx,%rcx");
	expect_insn(&v[11], 0x135f, "jne", "1348");
	assert_true(v[11].branch);
	assert_int_equal(v[11].target, 0x1348);
	expect_insn(&v[12], 0x1361, "ret", "");
	assert_false(v[12].branch);
	free(v);

	assert_int_equal(disasm_function(hot_bytes, sizeof(hot_bytes), 0x1330, DISASM_INTEL, &v,
					 &n),
			 0);
	expect_insn(&v[0], 0x1330, "mov", "rax,rdx");
	expect_insn(&v[1], 0x1333, "lea", "rsi,[rdi+0x4000]");
	expect_insn(&v[4], 0x1348, "mov", "ecx,DWORD PTR [rdi]");
	free(v);
}

static void test_disasm_operands(void **state)
{
	/* cmp $-1,%rax; mov (%rsi,%rcx),%eax; mov -8(%rbp),%rax */
	static const unsigned char code[] = {0x48, 0x83, 0xf8, 0xff, 0x8b, 0x04, 0x0e,
					     0x48, 0x8b, 0x45, 0xf8};
	struct disasm_insn *v;
	size_t n;

	(void)state;
	assert_int_equal(disasm_function(code, sizeof(code), 0, DISASM_ATT, &v, &n), 0);
	assert_int_equal(n, 3);
	expect_insn(&v[0], 0, "cmp", "$0xffffffffffffffff,%rax");
	expect_insn(&v[1], 4, "mov", "(%rsi,%rcx,1),%eax");
	expect_insn(&v[2], 7, "mov", "-0x8(%rbp),%rax");
	free(v);
	assert_int_equal(disasm_function(code, sizeof(code), 0, DISASM_INTEL, &v, &n), 0);
	expect_insn(&v[0], 0, "cmp", "rax,0xffffffffffffffff");
	expect_insn(&v[1], 4, "mov", "eax,DWORD PTR [rsi+rcx*1]");
	expect_insn(&v[2], 7, "mov", "rax,QWORD PTR [rbp-0x8]");
	free(v);
}

static void test_disasm_bad_bytes(void **state)
{
	/* 0x06 is not an instruction in 64-bit mode; a cut-off movabs at the
	 * end cannot be decoded either. */
	static const unsigned char code[] = {0x90, 0x06, 0xc3, 0x48, 0xba, 0x01};
	struct disasm_insn *v;
	size_t n;

	(void)state;
	assert_int_equal(disasm_function(code, sizeof(code), 0x10, DISASM_ATT, &v, &n), 0);
	assert_int_equal(n, 6);
	expect_insn(&v[0], 0x10, "nop", "");
	expect_insn(&v[1], 0x11, "(bad)", "");
	assert_false(v[1].valid);
	expect_insn(&v[2], 0x12, "ret", "");
	expect_insn(&v[3], 0x13, "(bad)", "");
	expect_insn(&v[5], 0x15, "(bad)", "");
	free(v);
	assert_int_equal(disasm_function(code, 0, 0, DISASM_ATT, &v, &n), 0);
	assert_int_equal(n, 0);
	free(v);
}

static const struct disasm_insn three[] = {
	{.addr = 0x1000, .size = 3, .valid = 1, .mnemonic = "mov", .operands = "%rdx,%rax"},
	{.addr = 0x1003, .size = 2, .valid = 1, .mnemonic = "jne", .operands = "1000",
	 .branch = 1, .target = 0x1000},
	{.addr = 0x1005, .size = 5, .valid = 1, .mnemonic = "call", .operands = "2000",
	 .branch = 1, .target = 0x2000},
	{.addr = 0x100a, .size = 1, .valid = 1, .mnemonic = "ret"},
};

static void test_bucket(void **state)
{
	const struct annot_hit hits[] = {
		{.off = 0, .count = 5},  /* start of the first */
		{.off = 2, .count = 1},  /* inside the first (a caller frame: ret - 1) */
		{.off = 4, .count = 7},  /* inside the second */
		{.off = 9, .count = 2},  /* last byte of the third */
		{.off = 11, .count = 3}, /* past the end */
	};
	uint64_t counts[4], outside;

	(void)state;
	annot_bucket(three, 4, 0x1000, hits, 5, counts, &outside);
	assert_int_equal(counts[0], 6);
	assert_int_equal(counts[1], 7);
	assert_int_equal(counts[2], 2);
	assert_int_equal(counts[3], 0);
	assert_int_equal(outside, 3);
	/* No instructions: everything is outside. */
	annot_bucket(three, 0, 0x1000, hits, 5, counts, &outside);
	assert_int_equal(outside, 18);
}

static void test_colour(void **state)
{
	(void)state;
	assert_string_equal(annot_colour(100.0), "\033[31m");
	assert_string_equal(annot_colour(5.0), "\033[31m");
	assert_string_equal(annot_colour(4.99), "\033[32m");
	assert_string_equal(annot_colour(0.5), "\033[32m");
	assert_null(annot_colour(0.49));
	assert_null(annot_colour(0.0));
}

static int fake_targets(void *arg, uint64_t vaddr, const char **name, uint64_t *off)
{
	(void)arg;
	if (vaddr < 0x2000 || vaddr >= 0x2100)
		return 0;
	*name = "callee";
	*off = vaddr - 0x2000;
	return 1;
}

static char *listing(uint64_t *counts, uint64_t samples, int colour)
{
	struct elf_function fn = {.vaddr = 0x1000, .size = 11};
	struct annot_listing l = {
		.name = "f",
		.binary = "/bin/app",
		.event = "cpu-clock",
		.samples = samples,
		.total = 200,
		.fn = &fn,
		.insns = three,
		.counts = counts,
		.n = 4,
		.target_name = fake_targets,
		.colour = colour,
	};
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(annot_write(f, &l), 0);
	fclose(f);
	return out;
}

static void test_listing_text(void **state)
{
	uint64_t counts[4] = {3, 0, 96, 1};
	char *out;

	(void)state;
	out = listing(counts, 100, 0);
	assert_string_equal(out,
			    "f  /bin/app\n"
			    "  100 samples: 50.00% of 200 cpu-clock samples; 11 bytes at 0x1000; "
			    "AT&T syntax\n"
			    "  source lines: none (no DWARF line info found)\n"
			    "\n"
			    " Percent   Samples   Address  Instruction\n"
			    "   3.00%         3      1000: mov    %rdx,%rax\n"
			    "                        1003: jne    1000 <f>\n"
			    "  96.00%        96      1005: call   2000 <callee>\n"
			    "   1.00%         1      100a: ret\n");
	free(out);
	/* Colours wrap the rows with samples only: red from 5%, green below. */
	out = listing(counts, 100, 1);
	assert_non_null(strstr(out, "\033[32m   3.00%         3      1000: mov    %rdx,%rax\033[m\n"));
	assert_non_null(strstr(out, "\n                        1003: jne    1000 <f>\n"));
	assert_non_null(strstr(out, "\033[31m  96.00%        96      1005: call"));
	assert_non_null(strstr(out, "\033[32m   1.00%"));
	free(out);
}

static void test_edit_distance(void **state)
{
	(void)state;
	assert_int_equal(annot_edit_distance("hot_function", "hot_function", 3), 0);
	assert_int_equal(annot_edit_distance("hot_function", "hot_fucntion", 3), 2);
	assert_int_equal(annot_edit_distance("hot_function", "Hot_Function", 3), 0);
	assert_int_equal(annot_edit_distance("abc", "xyzabcdef", 3), 4); /* stops at limit + 1 */
	assert_int_equal(annot_edit_distance("", "ab", 3), 2);
}

/* ---- a recording ---- */

static uint32_t str(struct rec_writer *w, const char *s)
{
	uint32_t id;

	assert_int_equal(rec_writer__string(w, s, strlen(s), &id), 0);
	return id;
}

static uint32_t frame(struct rec_writer *w, uint32_t pid, uint64_t addr, uint32_t flags,
		      uint32_t mapping, const char *sym, uint32_t off)
{
	uint32_t id;

	assert_int_equal(rec_writer__frame(w, pid, addr, flags, mapping, &id), 0);
	if (sym) {
		struct rec_symbol s = {.frame = id, .name = str(w, sym), .offset = off};

		assert_int_equal(rec_writer__symbol(w, &s), 0);
	}
	return id;
}

static uint32_t stack(struct rec_writer *w, const uint32_t *frames, size_t n)
{
	uint32_t id = 0;
	size_t i;

	for (i = 0; i < n; i++)
		assert_int_equal(rec_writer__stack(w, id, frames[i], &id), 0);
	return id;
}

/* Two processes (100, 200) map /bin/app at different addresses; hot is
 * at file offset 0x1100 (0x100 into the mapping at pgoff 0x1000). */
static void make_recording(struct recording *r)
{
	char path[] = "/tmp/test-annotate-XXXXXX", err[256];
	int fd = mkstemp(path);
	struct rec_writer *w;
	struct rec_mapping a = {.start = 0x400000, .end = 0x500000, .pgoff = 0x1000, .pid = 100};
	struct rec_mapping b = {.start = 0x800000, .end = 0x900000, .pgoff = 0x1000, .pid = 200};
	struct rec_mapping k = {.start = 0xffffffff81000000ULL, .end = 0xffffffff82000000ULL,
				.flags = REC_MAPPING_KERNEL};
	struct rec_event_desc cpu = {.type = 1}, sw = {.type = 2};
	uint32_t ma, mb, mk, ev, f_main, f_hot, f_hot2, f_hot_b, f_ret, f_k, s1, s2, s3, s4, s5;
	unsigned char *data;
	size_t size;

	assert_true(fd >= 0);
	close(fd);
	w = rec_writer__open(path);
	assert_non_null(w);
	cpu.name = str(w, "cpu-clock");
	sw.name = str(w, "sched:sched_switch");
	assert_int_equal(rec_writer__event(w, &cpu, &ev), 0);
	assert_int_equal(rec_writer__event(w, &sw, &ev), 0);
	a.path = b.path = str(w, "/bin/app");
	k.path = str(w, "[kernel.kallsyms]");
	assert_int_equal(rec_writer__mapping(w, &a, &ma), 0);
	assert_int_equal(rec_writer__mapping(w, &b, &mb), 0);
	assert_int_equal(rec_writer__mapping(w, &k, &mk), 0);
	f_main = frame(w, 100, 0x400020, REC_FRAME_CALLER, ma, "main", 0x20);
	f_hot = frame(w, 100, 0x400108, 0, ma, "hot", 0x8);
	f_hot2 = frame(w, 100, 0x400110, 0, ma, "hot", 0x10);
	f_hot_b = frame(w, 200, 0x800108, 0, mb, "hot", 0x8); /* same place, other process */
	f_ret = frame(w, 100, 0x400104, REC_FRAME_CALLER, ma, "hot", 0x4); /* hot calls */
	f_k = frame(w, 0, 0xffffffff81000050ULL, REC_FRAME_KERNEL, mk, "hot", 0x10);
	s1 = stack(w, (uint32_t[]){f_main, f_hot}, 2);
	s2 = stack(w, (uint32_t[]){f_main, f_hot2}, 2);
	s3 = stack(w, (uint32_t[]){f_main, f_hot_b}, 2);
	s4 = stack(w, (uint32_t[]){f_main, f_ret, f_k}, 3);
	s5 = stack(w, (uint32_t[]){f_main}, 1);
	for (int i = 0; i < 5; i++)
		assert_int_equal(rec_writer__sample(w, 10 + i, 11, s1, 0, 0, 0), 0);
	assert_int_equal(rec_writer__sample(w, 20, 11, s2, 0, 0, 0), 0);
	assert_int_equal(rec_writer__sample(w, 21, 21, s3, 0, 0, 0), 0);
	assert_int_equal(rec_writer__sample(w, 22, 11, s4, 0, 0, 0), 0);
	assert_int_equal(rec_writer__sample(w, 23, 11, s5, 0, 0, 0), 0);
	assert_int_equal(rec_writer__sample(w, 24, 11, s1, 0, 1, 0), 0); /* a tracepoint's */
	assert_int_equal(rec_writer__close(w), 0);
	assert_int_equal(read_whole_file(path, &data, &size), 0);
	unlink(path);
	memset(r, 0, sizeof(*r));
	assert_int_equal(recording__parse(r, data, size, err, sizeof(err)), 0);
}

static void test_find_leaf(void **state)
{
	struct annot_opts o = {.symbol = "hot", .event = -1};
	struct annot_set set;
	struct recording r;
	struct annot_func *f;

	(void)state;
	make_recording(&r);
	assert_int_equal(annot_set__build(&set, &r, &o), 0);
	assert_int_equal(set.total, 9); /* the tracepoint's sample is left out */
	/* User "hot" (both processes: one function) and kernel "hot". */
	assert_int_equal(set.nfuncs, 2);
	f = &set.funcs[0];
	assert_false(f->kernel);
	assert_int_equal(f->start, 0x1100);
	assert_int_equal(f->samples, 7);
	assert_int_equal(f->nhits, 2);
	assert_int_equal(f->hits[0].off, 0x8);
	assert_int_equal(f->hits[0].count, 6);
	assert_int_equal(f->hits[1].off, 0x10);
	assert_int_equal(f->hits[1].count, 1);
	f = &set.funcs[1];
	assert_true(f->kernel);
	assert_int_equal(f->start, 0xffffffff81000040ULL);
	assert_int_equal(f->samples, 1);
	annot_set__release(&set);

	/* "hot_[k]": the kernel one only. */
	o.symbol = "hot_[k]";
	assert_int_equal(annot_set__build(&set, &r, &o), 0);
	assert_int_equal(set.nfuncs, 1);
	assert_true(set.funcs[0].kernel);
	annot_set__release(&set);

	/* --event: only the tracepoint's sample. */
	o.symbol = "hot";
	o.event = 1;
	assert_int_equal(annot_set__build(&set, &r, &o), 0);
	assert_int_equal(set.total, 1);
	assert_int_equal(set.funcs[0].samples, 1);
	annot_set__release(&set);
	recording__release(&r);
}

static void test_find_children(void **state)
{
	struct annot_opts o = {.symbol = "main", .event = -1};
	struct annot_set set;
	struct recording r;

	(void)state;
	make_recording(&r);
	assert_int_equal(annot_set__build(&set, &r, &o), 0);
	assert_int_equal(set.nfuncs, 1);
	assert_int_equal(set.funcs[0].samples, 1); /* leaf only: s5 */
	annot_set__release(&set);

	o.children = 1;
	assert_int_equal(annot_set__build(&set, &r, &o), 0);
	assert_int_equal(set.funcs[0].samples, 9);
	assert_int_equal(set.funcs[0].nhits, 1);
	assert_int_equal(set.funcs[0].hits[0].off, 0x20);
	annot_set__release(&set);

	/* hot with --children: its call site (offset 4) counts s4 once. */
	o.symbol = "hot";
	assert_int_equal(annot_set__build(&set, &r, &o), 0);
	assert_int_equal(set.funcs[0].samples, 8);
	assert_int_equal(set.funcs[0].nhits, 3);
	assert_int_equal(set.funcs[0].hits[0].off, 0x4);
	assert_int_equal(set.funcs[0].hits[0].count, 1);
	annot_set__release(&set);
	recording__release(&r);
}

static void test_find_regex_and_close(void **state)
{
	struct annot_opts o = {.event = -1};
	struct annot_set set;
	struct recording r;
	regex_t re;
	uint32_t ids[4];
	size_t n;

	(void)state;
	make_recording(&r);
	assert_int_equal(regcomp(&re, "^(ma|ho)", REG_EXTENDED | REG_NOSUB), 0);
	o.regex = &re;
	assert_int_equal(annot_set__build(&set, &r, &o), 0);
	assert_int_equal(set.nfuncs, 3);
	assert_string_equal(recording__str(&r, set.funcs[0].name), "hot"); /* hottest first */
	annot_set__release(&set);
	regfree(&re);

	o.regex = NULL;
	o.symbol = "nothere";
	assert_int_equal(annot_set__build(&set, &r, &o), 0);
	assert_int_equal(set.nfuncs, 0);
	assert_int_equal(set.symbols, 6);
	annot_set__release(&set);

	n = annot_close_names(&r, "hto", ids, 4);
	assert_int_equal(n, 1);
	assert_string_equal(recording__str(&r, ids[0]), "hot");
	n = annot_close_names(&r, "MAI", ids, 4); /* a prefix, any case */
	assert_int_equal(n, 1);
	assert_string_equal(recording__str(&r, ids[0]), "main");
	assert_int_equal(annot_close_names(&r, "zzzzzzzz", ids, 4), 0);
	recording__release(&r);
}

static void test_sources(void **state)
{
	char path[] = "/tmp/test-annotate-src-XXXXXX";
	int fd = mkstemp(path);
	struct annot_sources *s = annot_sources__new();
	static const char text[] = "int x;\n\tfor (;;)\n  \x1b[31m\n";

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	assert_non_null(s);
	assert_string_equal(annot_sources__line(s, path, 1), "int x;");
	assert_string_equal(annot_sources__line(s, path, 2), "for (;;)");
	assert_string_equal(annot_sources__line(s, path, 3), "\x1b[31m");
	assert_null(annot_sources__line(s, path, 4));
	assert_null(annot_sources__line(s, path, 0));
	assert_null(annot_sources__line(s, "/nonexistent/file.c", 1));
	annot_sources__free(s);
	unlink(path);
}

/* ---- the real thing: this test program's own code ---- */

/* Finds test_colour (a local function: .symtab only) in this very binary,
 * by name, then by name and a file offset inside it; its bytes are the
 * ones in the file; its source lines are in this file. */
static void test_self_function(void **state)
{
	struct elf_function fn, again;
	struct func_lines *fl;
	struct disasm_insn *v;
	const char *file;
	size_t n;
	int line;

	(void)state;
	assert_int_equal(elf_function__load(&fn, "/proc/self/exe", NULL, "test_colour",
					    ELF_FUNCTION_ANY),
			 0);
	assert_true(fn.size > 16);
	assert_false(fn.from_dynsym);
	assert_true(strlen(fn.build_id) >= 16);
	assert_int_equal(elf_function__load(&again, "/proc/self/exe", NULL, "test_colour",
					    fn.file_off + fn.size - 1),
			 0);
	assert_int_equal(again.vaddr, fn.vaddr);
	assert_memory_equal(again.code, fn.code, fn.size);
	elf_function__release(&again);
	/* An offset outside it: no such function there. */
	assert_int_equal(elf_function__load(&again, "/proc/self/exe", NULL, "test_colour",
					    fn.file_off + fn.size),
			 -ESRCH);
	elf_function__release(&again);
	assert_int_equal(elf_function__load(&again, "/proc/self/exe", NULL, "no_such_function_x",
					    ELF_FUNCTION_ANY),
			 -ESRCH);
	elf_function__release(&again);
	assert_int_equal(elf_function__load(&again, "/nonexistent", NULL, "f", ELF_FUNCTION_ANY),
			 -ENOENT);
	elf_function__release(&again);

	assert_int_equal(disasm_function(fn.code, fn.size, fn.vaddr, DISASM_ATT, &v, &n), 0);
	assert_true(n > 4);
	assert_int_equal(v[n - 1].addr + v[n - 1].size, fn.vaddr + fn.size);
	fl = func_lines__load("/proc/self/exe", NULL, fn.vaddr);
	assert_non_null(fl);
	assert_true(func_lines__lookup(fl, v[0].addr, &file, &line));
	assert_non_null(strstr(file, "test-annotate.c"));
	assert_true(line > 0);
	func_lines__free(fl);
	free(v);
	elf_function__release(&fn);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* This binary, copied and damaged a few bytes at a time (mostly in its
 * headers, where libelf and libdw look first): loading, disassembling
 * and line lookups fail cleanly or work, never crash (run under ASan in
 * the suite). */
static void test_damaged_binary(void **state)
{
	char path[] = "/tmp/test-annotate-elf-XXXXXX";
	unsigned char *data;
	size_t size, iter, ok = 0;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(read_whole_file("/proc/self/exe", &data, &size), 0);
	assert_int_equal(write(fd, data, size), (ssize_t)size);
	for (iter = 0; iter < 1500; iter++) {
		size_t pos[6], k, nk = 1 + rng() % 6;
		unsigned char old[6];
		struct elf_function fn;
		struct func_lines *fl;

		for (k = 0; k < nk; k++) {
			size_t r = rng() % 4;

			pos[k] = r < 2 ? rng() % 4096 : r == 2 ? size - 1 - rng() % 8192 : rng() % size;
			old[k] = data[pos[k]];
			assert_int_equal(pwrite(fd, &(unsigned char){(unsigned char)rng()}, 1,
						(off_t)pos[k]),
					 1);
		}
		if (!elf_function__load(&fn, path, NULL, "test_colour", ELF_FUNCTION_ANY)) {
			struct disasm_insn *v;
			size_t n;

			ok++;
			assert_true(fn.size <= ELF_FUNCTION_MAX_SIZE);
			if (!disasm_function(fn.code, fn.size, fn.vaddr, DISASM_ATT, &v, &n))
				free(v);
			fl = func_lines__load(path, NULL, fn.vaddr);
			if (fl) {
				const char *file;
				int line;

				(void)func_lines__lookup(fl, fn.vaddr, &file, &line);
				func_lines__free(fl);
			}
		}
		elf_function__release(&fn);
		for (k = nk; k-- > 0;)
			assert_int_equal(pwrite(fd, &old[k], 1, (off_t)pos[k]), 1);
	}
	assert_true(ok > 150); /* the test reached past the header checks */
	close(fd);
	unlink(path);
	free(data);
}

static void test_kernel_listing(void **state)
{
	struct annot_hit hits[] = {{.off = 0x10, .count = 3}, {.off = 0x93, .count = 1}};
	struct annot_func f = {.kernel = 1, .start = 0xffffffff81000000ULL, .samples = 4,
			       .hits = hits, .nhits = 2};
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	(void)state;
	assert_non_null(m);
	assert_int_equal(annot_write_kernel(m, "do_it", "cpu-clock", &f, 8, 0), 0);
	fclose(m);
	assert_string_equal(out,
			    "do_it  [kernel]\n"
			    "  4 samples: 50.00% of 8 cpu-clock samples; at 0xffffffff81000000; no "
			    "disassembly (prof annotate does not read the kernel image)\n"
			    "\n"
			    " Percent   Samples           Address  Offset\n"
			    "  75.00%         3  ffffffff81000010  do_it+0x10\n"
			    "  25.00%         1  ffffffff81000093  do_it+0x93\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_att_mnemonics),
		cmocka_unit_test(test_disasm_hot_function),
		cmocka_unit_test(test_disasm_operands),
		cmocka_unit_test(test_disasm_bad_bytes),
		cmocka_unit_test(test_bucket),
		cmocka_unit_test(test_colour),
		cmocka_unit_test(test_listing_text),
		cmocka_unit_test(test_edit_distance),
		cmocka_unit_test(test_find_leaf),
		cmocka_unit_test(test_find_children),
		cmocka_unit_test(test_find_regex_and_close),
		cmocka_unit_test(test_sources),
		cmocka_unit_test(test_self_function),
		cmocka_unit_test(test_damaged_binary),
		cmocka_unit_test(test_kernel_listing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
