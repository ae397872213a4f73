/* test-unwind.c: unit tests of the CFI unwinder (symbolize/unwind.h) on
 * stacks of this very process: a known chain of functions captures its
 * registers and a copy of its stack the way the kernel does for
 * PERF_SAMPLE_REGS_USER / PERF_SAMPLE_STACK_USER, and the unwinder must
 * find the chain and go on to _start; the same copy cut at every size must
 * stop with "stack-cut" and never crash; copies and registers full of
 * garbage or mutated must never crash either. The frame-pointer leaf check
 * is tested on a frameless leaf and on a function with a frame. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/symbolize.h"
#include "symbolize/unwind.h"

#define STACK_MAX 65536
#define MAX_PCS	  512

/* ---- the process's mappings, as the recorder knows a target's ---- */
static struct map {
	char path[512];
	uint64_t start, end, pgoff;
} maps[512];
static size_t nmaps;
static uint64_t stack_top;

static void load_maps(void)
{
	char line[1024];
	FILE *f = fopen("/proc/self/maps", "r");

	assert_non_null(f);
	nmaps = 0;
	while (fgets(line, sizeof(line), f) && nmaps < 512) {
		unsigned long long s, e, off;
		char perms[8], path[512] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %511s", &s, &e, perms, &off, path) < 4)
			continue;
		if (!strcmp(path, "[stack]"))
			stack_top = e;
		if (perms[2] != 'x')
			continue;
		maps[nmaps] = (struct map){.start = s, .end = e, .pgoff = off};
		snprintf(maps[nmaps].path, sizeof(maps[nmaps].path), "%s", path);
		nmaps++;
	}
	fclose(f);
}

static int find_map(void *ctx, uint32_t pid, uint64_t addr, struct unwind_map *m)
{
	size_t i;

	(void)ctx;
	(void)pid;
	for (i = 0; i < nmaps; i++) {
		if (addr >= maps[i].start && addr < maps[i].end) {
			*m = (struct unwind_map){.path = maps[i].path,
						 .start = maps[i].start,
						 .end = maps[i].end,
						 .pgoff = maps[i].pgoff,
						 .id = (uint32_t)i};
			return 1;
		}
	}
	return 0;
}

/* ---- capturing: registers and stack bytes, as the kernel takes them ---- */
static struct capture {
	uint64_t rip, rsp, rbp, rbx, r12, r13, r14, r15;
	unsigned char stack[STACK_MAX];
	size_t size;
} cap;

static volatile uint64_t sink;

/* Copies [sp, sp + n) without ASan's checks: other frames' redzones are in
 * there, and reading them is what a stack copy does. */
__attribute__((no_sanitize("address"), noinline)) static void copy_stack(uint64_t sp)
{
	size_t n = stack_top > sp ? stack_top - sp : 0, i;
	const volatile unsigned char *src = (const volatile unsigned char *)(uintptr_t)sp;

	if (n > STACK_MAX)
		n = STACK_MAX;
	for (i = 0; i < n; i++)
		cap.stack[i] = src[i];
	cap.size = n;
}

/* All registers in one asm statement, so rip and rsp agree with the CFI. */
#define CAPTURE_REGS()                                                                             \
	__asm__ volatile("lea 0(%%rip), %%rax\n\tmov %%rax, %0\n\t"                                \
			 "mov %%rsp, %1\n\tmov %%rbp, %2\n\tmov %%rbx, %3\n\t"                     \
			 "mov %%r12, %4\n\tmov %%r13, %5\n\tmov %%r14, %6\n\tmov %%r15, %7"        \
			 : "=m"(cap.rip), "=m"(cap.rsp), "=m"(cap.rbp), "=m"(cap.rbx),             \
			   "=m"(cap.r12), "=m"(cap.r13), "=m"(cap.r14), "=m"(cap.r15)              \
			 :                                                                         \
			 : "rax", "memory")

/* A leaf without a frame of its own (gcc omits it in a leaf that needs no
 * stack, -fno-omit-frame-pointer or not): the copy happens in the caller,
 * whose frame is below nothing we need. */
__attribute__((noinline)) static void capture_leaf(void)
{
	CAPTURE_REGS();
}

/* A function with a frame: it calls out after capturing. */
__attribute__((noinline)) static void capture_framed(void)
{
	CAPTURE_REGS();
	copy_stack(cap.rsp);
	sink += (uint64_t)getpid();
}

__attribute__((noinline)) static void chain_c(int leaf)
{
	if (leaf) {
		capture_leaf();
		/* capture_leaf's frame was only its return address, at
		 * cap.rsp: the call to copy_stack puts its own there, also
		 * into this function, and leaves the frames above alone. */
		copy_stack(cap.rsp);
	} else {
		capture_framed();
	}
	sink++;
}

__attribute__((noinline)) static void chain_b(int leaf)
{
	chain_c(leaf);
	sink++;
}

__attribute__((noinline)) static void chain_a(int leaf)
{
	chain_b(leaf);
	sink++;
}

static void regs_of_capture(struct unwind_regs *r)
{
	memset(r, 0, sizeof(*r));
	r->r[UNWIND_RIP] = cap.rip;
	r->r[UNWIND_RSP] = cap.rsp;
	r->r[UNWIND_RBP] = cap.rbp;
	r->r[UNWIND_RBX] = cap.rbx;
	r->r[UNWIND_R12] = cap.r12;
	r->r[UNWIND_R13] = cap.r13;
	r->r[UNWIND_R14] = cap.r14;
	r->r[UNWIND_R15] = cap.r15;
	r->valid = 1u << UNWIND_RIP | 1u << UNWIND_RSP | 1u << UNWIND_RBP | 1u << UNWIND_RBX |
		   1u << UNWIND_R12 | 1u << UNWIND_R13 | 1u << UNWIND_R14 | 1u << UNWIND_R15;
}

static struct unwinder *new_unwinder(void)
{
	struct unwind_opts o = {.find_map = find_map};
	struct unwinder *u;

	load_maps();
	u = unwinder__new(&o);
	assert_non_null(u);
	return u;
}

/* The function name of a pc of this binary (a return address: pc - 1). */
static const char *name_of(struct elf_symtab *t, uint64_t pc, int ret)
{
	struct unwind_map m;
	const char *name;
	uint64_t off;

	if (!find_map(NULL, 0, pc - (ret ? 1 : 0), &m))
		return "?";
	if (!strstr(m.path, "test-unwind"))
		return m.path;
	if (!elf_symtab__lookup_offset(t, pc - (ret ? 1 : 0) - m.start + m.pgoff, &name, &off))
		return "??";
	return name;
}

static void test_unwinds_real_stack_to_root(void **state)
{
	struct unwinder *u = new_unwinder();
	struct elf_symtab *t = elf_symtab__load("/proc/self/exe");
	struct unwind_regs r;
	struct unwind_stack st;
	uint64_t pcs[MAX_PCS];
	size_t n, i;
	enum unwind_status s;
	const char *want[] = {"capture_framed", "chain_c", "chain_b", "chain_a",
			      "test_unwinds_real_stack_to_root"};

	(void)state;
	assert_non_null(t);
	chain_a(0);
	regs_of_capture(&r);
	st = (struct unwind_stack){.start = cap.rsp, .data = cap.stack, .size = cap.size};
	s = unwinder__unwind(u, 1, &r, &st, pcs, MAX_PCS, &n);
	assert_string_equal(unwind_status_name(s), "root");
	assert_true(n > 6);
	for (i = 0; i < 5; i++)
		assert_string_equal(name_of(t, pcs[i], i > 0), want[i]);
	/* Through cmocka and libc to the end: _start's CFI says so. */
	assert_string_equal(name_of(t, pcs[n - 1], 1), "_start");
	elf_symtab__free(t);
	unwinder__free(u);
}

static void test_cut_copies_stop_cleanly(void **state)
{
	struct unwinder *u = new_unwinder();
	struct unwind_regs r;
	struct unwind_stack st;
	uint64_t full[MAX_PCS], pcs[MAX_PCS];
	size_t nfull, n, size;
	enum unwind_status s;

	(void)state;
	chain_a(0);
	regs_of_capture(&r);
	st = (struct unwind_stack){.start = cap.rsp, .data = cap.stack, .size = cap.size};
	assert_int_equal(unwinder__unwind(u, 1, &r, &st, full, MAX_PCS, &nfull), UNWIND_OK_ROOT);
	for (size = 0; size <= cap.size; size += 8) {
		st.size = size;
		st.cut = 1;
		s = unwinder__unwind(u, 1, &r, &st, pcs, MAX_PCS, &n);
		assert_true(s == UNWIND_STACK_CUT || s == UNWIND_OK_ROOT);
		assert_true(n >= 1 && n <= nfull);
		assert_memory_equal(pcs, full, n * sizeof(pcs[0]));
		if (s == UNWIND_OK_ROOT)
			assert_int_equal(n, nfull);
	}
	/* Not cut (the copy reached the end of the stack): a read past it
	 * is a bad read, not a cut. */
	st.size = 64;
	st.cut = 0;
	s = unwinder__unwind(u, 1, &r, &st, pcs, MAX_PCS, &n);
	assert_int_equal(s, UNWIND_BAD_MEMORY);
	/* A full array. */
	st.size = cap.size;
	assert_int_equal(unwinder__unwind(u, 1, &r, &st, pcs, 3, &n), UNWIND_MAX_FRAMES);
	assert_int_equal(n, 3);
	unwinder__free(u);
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void test_garbage_never_crashes(void **state)
{
	struct unwinder *u = new_unwinder();
	static unsigned char junk[STACK_MAX];
	struct unwind_regs r, good;
	struct unwind_stack st;
	uint64_t pcs[MAX_PCS], x = 0x9e3779b97f4a7c15ULL;
	size_t n, i, k, counts[UNWIND_NSTATUS] = {0};
	enum unwind_status s;

	(void)state;
	chain_a(0);
	regs_of_capture(&good);
	/* Mutated copies of the real stack, with real registers: pcs that
	 * are in real code, CFAs that point anywhere. */
	for (i = 0; i < 3000; i++) {
		size_t len = cap.size < 4096 ? cap.size : 4096;

		memcpy(junk, cap.stack, cap.size);
		for (k = 0; k < 1 + xorshift(&x) % 8; k++)
			junk[xorshift(&x) % len] = (unsigned char)xorshift(&x);
		r = good;
		if (i % 7 == 0)
			r.r[UNWIND_RSP] += (xorshift(&x) % 64) * 8;
		st = (struct unwind_stack){
		    .start = cap.rsp, .data = junk, .size = cap.size, .cut = (int)(i & 1)};
		s = unwinder__unwind(u, 1, &r, &st, pcs, MAX_PCS, &n);
		assert_true((unsigned)s < UNWIND_NSTATUS);
		assert_true(n <= MAX_PCS);
		counts[s]++;
		(void)unwinder__leaf_return(u, 1, &r, &st, &pcs[0]);
	}
	/* Random registers and bytes, with pcs pointed into real code now
	 * and then. */
	for (i = 0; i < 3000; i++) {
		size_t len = xorshift(&x) % 2048;

		for (k = 0; k < len; k++)
			junk[k] = (unsigned char)xorshift(&x);
		for (k = 0; k < UNWIND_NREGS; k++)
			r.r[k] = xorshift(&x);
		r.valid = (uint32_t)xorshift(&x) | 1u << UNWIND_RIP | 1u << UNWIND_RSP;
		if (i & 1)
			r.r[UNWIND_RIP] = maps[xorshift(&x) % nmaps].start + xorshift(&x) % 4096;
		st = (struct unwind_stack){
		    .start = r.r[UNWIND_RSP], .data = junk, .size = len, .cut = (int)(i & 2)};
		s = unwinder__unwind(u, 1, &r, &st, pcs, MAX_PCS, &n);
		assert_true((unsigned)s < UNWIND_NSTATUS);
		(void)unwinder__leaf_return(u, 1, &r, &st, &pcs[0]);
	}
	/* Some mutations still unwind to the root, some do not. */
	assert_true(counts[UNWIND_OK_ROOT] > 0);
	assert_true(counts[UNWIND_OK_ROOT] < 3000);
	unwinder__free(u);
}

static void test_leaf_return(void **state)
{
	struct unwinder *u = new_unwinder();
	struct elf_symtab *t = elf_symtab__load("/proc/self/exe");
	struct unwind_regs r;
	struct unwind_stack st;
	uint64_t ra = 0;

	(void)state;
	assert_non_null(t);
	/* Frameless: the return address is at rsp, into chain_c. */
	chain_a(1);
	regs_of_capture(&r);
	st = (struct unwind_stack){.start = cap.rsp, .data = cap.stack, .size = 256, .cut = 1};
	assert_string_equal(name_of(t, cap.rip, 0), "capture_leaf");
	assert_int_equal(unwinder__leaf_return(u, 1, &r, &st, &ra), 1);
	assert_string_equal(name_of(t, ra, 1), "chain_c");
	/* Too small a copy: nothing known, nothing claimed. */
	st.size = 0;
	assert_int_equal(unwinder__leaf_return(u, 1, &r, &st, &ra), 0);
	/* A frame set up: the frame-pointer walk needs no help. */
	chain_a(0);
	regs_of_capture(&r);
	st = (struct unwind_stack){.start = cap.rsp, .data = cap.stack, .size = 256, .cut = 1};
	assert_int_equal(unwinder__leaf_return(u, 1, &r, &st, &ra), 0);
	/* No rbp: nothing to decide with. */
	r.valid &= ~(1u << UNWIND_RBP);
	assert_int_equal(unwinder__leaf_return(u, 1, &r, &st, &ra), 0);
	elf_symtab__free(t);
	unwinder__free(u);
}

static void test_unknown_code(void **state)
{
	struct unwinder *u = new_unwinder();
	struct unwind_regs r;
	struct unwind_stack st;
	uint64_t pcs[8];
	size_t n;

	(void)state;
	chain_a(0);
	regs_of_capture(&r);
	st = (struct unwind_stack){.start = cap.rsp, .data = cap.stack, .size = cap.size};
	/* In no mapping (JIT code, say): followed through rbp when it points
	 * into the copy, which the frame of capture_framed does. */
	r.r[UNWIND_RIP] = 0x10;
	assert_int_not_equal(unwinder__unwind(u, 1, &r, &st, pcs, 8, &n), UNWIND_NO_MAPPING);
	assert_true(n > 1);
	r.valid &= ~(1u << UNWIND_RBP);
	assert_int_equal(unwinder__unwind(u, 1, &r, &st, pcs, 8, &n), UNWIND_NO_MAPPING);
	assert_int_equal(n, 1);
	r.valid &= ~(1u << UNWIND_RSP);
	assert_int_equal(unwinder__unwind(u, 1, &r, &st, pcs, 8, &n), UNWIND_BAD_CFI);
	assert_string_equal(unwind_status_name(UNWIND_STACK_CUT), "stack-cut");
	unwinder__free(u);
	unwinder__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_unwinds_real_stack_to_root),
	    cmocka_unit_test(test_cut_copies_stop_cleanly),
	    cmocka_unit_test(test_garbage_never_crashes),
	    cmocka_unit_test(test_leaf_return),
	    cmocka_unit_test(test_unknown_code),
	};

	return cmocka_run_group_tests_name("unwind", tests, NULL, NULL);
}
