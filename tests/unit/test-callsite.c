/* test-callsite.c: decoding the call before a return address
 * (record/callsite.c), on a fake address space: direct calls, calls
 * through a GOT slot, PLT stubs of the four forms (bound and not yet
 * bound), and what must give nothing (calls by register, unreadable
 * memory, bytes that only look like a call). The call-site leaf fix on a
 * real process is tested end to end in tests/cli/t0520-unwind.bats. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "record/callsite.h"

#define BASE 0x400000u
#define SIZE 0x1000u

/* A page of memory at BASE; reads outside it fail. */
struct space {
	uint8_t mem[SIZE];
	int reads;
};

static int read_space(void *ctx, uint64_t addr, void *buf, size_t n)
{
	struct space *s = ctx;

	s->reads++;
	if (addr < BASE || addr + n > BASE + SIZE || addr + n < addr)
		return -1;
	memcpy(buf, s->mem + (addr - BASE), n);
	return 0;
}

static void put(struct space *s, uint64_t addr, const void *bytes, size_t n)
{
	memcpy(s->mem + (addr - BASE), bytes, n);
}

static void put_rel32(struct space *s, uint64_t addr, int64_t v)
{
	int32_t r = (int32_t)v;

	put(s, addr, &r, 4);
}

static void put_u64(struct space *s, uint64_t addr, uint64_t v)
{
	put(s, addr, &v, 8);
}

static void test_direct_call(void **state)
{
	struct space s = {0};
	uint64_t call = BASE + 0x100, ra = call + 5, callee = BASE + 0x800;

	(void)state;
	put(&s, call, "\xe8", 1);
	put_rel32(&s, call + 1, (int64_t)callee - (int64_t)ra);
	assert_int_equal(callsite_target(ra, read_space, &s), callee);
	/* backwards too */
	callee = BASE + 0x10;
	put_rel32(&s, call + 1, (int64_t)callee - (int64_t)ra);
	assert_int_equal(callsite_target(ra, read_space, &s), callee);
}

static void test_call_through_got(void **state)
{
	struct space s = {0};
	uint64_t call = BASE + 0x200, ra = call + 6, slot = BASE + 0xf00, callee = BASE + 0x900;

	(void)state;
	put(&s, call, "\xff\x15", 2);
	put_rel32(&s, call + 2, (int64_t)slot - (int64_t)ra);
	put_u64(&s, slot, callee);
	assert_int_equal(callsite_target(ra, read_space, &s), callee);
	/* an empty slot names nothing */
	put_u64(&s, slot, 0);
	assert_int_equal(callsite_target(ra, read_space, &s), 0);
}

/* A direct call into a PLT stub of the given bytes (a jmp through a slot
 * whose disp32 is at stub + disp_at), the slot holding `bound`. */
static uint64_t call_stub(const char *stub_bytes, size_t n, size_t disp_at, uint64_t bound)
{
	struct space s = {0};
	uint64_t call = BASE + 0x100, ra = call + 5, stub = BASE + 0x400, slot = BASE + 0xe00;

	put(&s, call, "\xe8", 1);
	put_rel32(&s, call + 1, (int64_t)stub - (int64_t)ra);
	put(&s, stub, stub_bytes, n);
	put_rel32(&s, stub + disp_at, (int64_t)slot - (int64_t)(stub + disp_at + 4));
	put_u64(&s, slot, bound);
	return callsite_target(ra, read_space, &s);
}

static void test_plt_stubs(void **state)
{
	uint64_t callee = BASE + 0xa00;

	(void)state;
	assert_int_equal(call_stub("\xff\x25", 2, 2, callee), callee);
	assert_int_equal(call_stub("\xf2\xff\x25", 3, 3, callee), callee);
	assert_int_equal(call_stub("\xf3\x0f\x1e\xfa\xff\x25", 6, 6, callee), callee);
	assert_int_equal(call_stub("\xf3\x0f\x1e\xfa\xf2\xff\x25", 7, 7, callee), callee);
	/* not bound yet: the slot points back into the stub (its push); the
	 * stub itself is the answer */
	assert_int_equal(call_stub("\xff\x25", 2, 2, BASE + 0x406), BASE + 0x400);
	/* not a stub: a function's own first bytes */
	assert_int_equal(call_stub("\x55\x48\x89\xe5", 4, 4, callee), BASE + 0x400);
}

static void test_nothing_to_name(void **state)
{
	struct space s = {0};
	uint64_t ra = BASE + 0x300;

	(void)state;
	/* call *%rax (ff d0), call *0x10(%rax) (ff 50 10): by register */
	put(&s, ra - 2, "\xff\xd0", 2);
	assert_int_equal(callsite_target(ra, read_space, &s), 0);
	put(&s, ra - 3, "\xff\x50\x10", 3);
	assert_int_equal(callsite_target(ra, read_space, &s), 0);
	/* the bytes before ra cannot be read */
	assert_int_equal(callsite_target(BASE + 2, read_space, &s), 0);
	assert_int_equal(callsite_target(3, read_space, &s), 0);
	assert_int_equal(callsite_target(BASE + SIZE + 0x100, read_space, &s), 0);
	/* a call whose slot cannot be read */
	put(&s, ra - 6, "\xff\x15", 2);
	put_rel32(&s, ra - 4, 0x7fff0000);
	assert_int_equal(callsite_target(ra, read_space, &s), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_direct_call),
	    cmocka_unit_test(test_call_through_got),
	    cmocka_unit_test(test_plt_stubs),
	    cmocka_unit_test(test_nothing_to_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
