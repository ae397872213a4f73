/* test-addr-spaces.c: the recorder's per-process address spaces
 * (record/addr-spaces.c) when records from different CPUs' rings are
 * handled out of time order: a child's mmap and exec records before the
 * FORK that created it (the child ran on another CPU than its parent), an
 * exec's record after the new program's mmaps. End to end, t0530 records
 * a program that bash forks and execs and checks its frames are named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "record/addr-spaces.h"

enum { PARENT = 100, CHILD = 101 };

/* Mapping ids index maps[]: each with the time it appeared. */
static struct rec_mapping maps[] = {
	{.start = 0x1000, .end = 0x2000, .time = 10}, /* 0: the parent's program */
	{.start = 0x8000, .end = 0x9000, .time = 11}, /* 1: the parent's libc */
	{.start = 0x1000, .end = 0x3000, .time = 60}, /* 2: the child's new program */
	{.start = 0x5000, .end = 0x6000, .time = 40}, /* 3: the child's own mmap */
	{.start = 0xa000, .end = 0xb000, .time = 70}, /* 4: the parent's, after the fork */
};
#define NMAPS (sizeof(maps) / sizeof(maps[0]))

static void add(struct addr_spaces *s, uint32_t pid, uint32_t id)
{
	assert_int_equal(addr_spaces__add(s, pid, maps[id].start, maps[id].end, id), 0);
}

static void parent_setup(struct addr_spaces *s)
{
	assert_int_equal(addr_spaces__init(s), 0);
	add(s, PARENT, 0);
	add(s, PARENT, 1);
}

/* In time order: fork at 30, exec at 50, the new program's mmap at 60. */
static void test_in_order(void **state)
{
	struct addr_spaces s;

	(void)state;
	parent_setup(&s);
	assert_int_equal(addr_spaces__fork(&s, PARENT, CHILD, 30, maps, NMAPS), 0);
	assert_int_equal(addr_spaces__find(&s, CHILD, 0x8800), 1);
	addr_spaces__clear_before(&s, CHILD, 50, maps, NMAPS);
	add(&s, CHILD, 2);
	assert_int_equal(addr_spaces__find(&s, CHILD, 0x2800), 2);
	assert_int_equal(addr_spaces__find(&s, CHILD, 0x8800), REC_NO_MAPPING);
	assert_int_equal(addr_spaces__find(&s, PARENT, 0x1800), 0);
	addr_spaces__release(&s);
}

/* The child's exec (50) and new program (60) handled before the fork (30):
 * the fork must not bring the parent's program back over the child's. */
static void test_fork_after_exec(void **state)
{
	struct addr_spaces s;

	(void)state;
	parent_setup(&s);
	addr_spaces__clear_before(&s, CHILD, 50, maps, NMAPS);
	add(&s, CHILD, 2);
	assert_int_equal(addr_spaces__fork(&s, PARENT, CHILD, 30, maps, NMAPS), 0);
	assert_int_equal(addr_spaces__find(&s, CHILD, 0x1800), 2);
	assert_int_equal(addr_spaces__find(&s, CHILD, 0x2800), 2);
	assert_int_equal(addr_spaces__find(&s, CHILD, 0x8800), REC_NO_MAPPING);
	addr_spaces__release(&s);
}

/* The new program's mmap (60) before the fork (30), the exec (50) last. */
static void test_exec_last(void **state)
{
	struct addr_spaces s;

	(void)state;
	parent_setup(&s);
	add(&s, CHILD, 2);
	assert_int_equal(addr_spaces__fork(&s, PARENT, CHILD, 30, maps, NMAPS), 0);
	addr_spaces__clear_before(&s, CHILD, 50, maps, NMAPS);
	assert_int_equal(addr_spaces__find(&s, CHILD, 0x1800), 2);
	assert_int_equal(addr_spaces__find(&s, CHILD, 0x8800), REC_NO_MAPPING);
	addr_spaces__release(&s);
}

/* No exec: the child's own mmap (40) handled before the fork (30) stays,
 * the parent's mappings from before the fork come in around it, and the
 * parent's mmap after the fork (70, handled before it too) stays out. */
static void test_own_mmap_before_fork(void **state)
{
	struct addr_spaces s;

	(void)state;
	parent_setup(&s);
	add(&s, PARENT, 4);
	add(&s, CHILD, 3);
	assert_int_equal(addr_spaces__fork(&s, PARENT, CHILD, 30, maps, NMAPS), 0);
	assert_int_equal(addr_spaces__find(&s, CHILD, 0x5800), 3);
	assert_int_equal(addr_spaces__find(&s, CHILD, 0x1800), 0);
	assert_int_equal(addr_spaces__find(&s, CHILD, 0x8800), 1);
	assert_int_equal(addr_spaces__find(&s, CHILD, 0xa800), REC_NO_MAPPING);
	addr_spaces__release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_fork_after_exec),
		cmocka_unit_test(test_exec_last),
		cmocka_unit_test(test_own_mmap_before_fork),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
