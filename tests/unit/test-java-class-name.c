/* test-java-class-name.c: HotSpot's internal class names in Java's spelling
 * (record/java-class-name.c): arrays of primitives and of classes at any depth,
 * hidden classes ("+0x<hex>" -> "/0x<hex>", only at the end), names that
 * are not descriptors kept, and output cut to the buffer. The expected
 * spellings are what Class.getName() and JFR 17 print for the same classes
 * (JavaAlloc names, tests/cli/t0611-alloc-jvm.bats). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "record/probes.h"

static void check(const char *in, const char *want)
{
	char out[256];
	size_t n = java_class_name(in, strlen(in), out, sizeof(out));

	assert_string_equal(out, want);
	assert_int_equal(n, strlen(want));
}

static void test_plain_and_arrays(void **state)
{
	(void)state;
	check("java/lang/String", "java.lang.String");
	check("[B", "byte[]");
	check("[[I", "int[][]");
	check("[[[J", "long[][][]");
	check("[Ljava/lang/String;", "java.lang.String[]");
	check("[[Ljava/lang/Object;", "java.lang.Object[][]");
	check("java/util/HashMap$Node", "java.util.HashMap$Node");
}

static void test_hidden_classes(void **state)
{
	(void)state;
	check("JavaAlloc$$Lambda$88+0x00007fef14007a08", "JavaAlloc$$Lambda$88/0x00007fef14007a08");
	check("a/b/Foo$$Lambda$14+0x0000000800c0b800", "a.b.Foo$$Lambda$14/0x0000000800c0b800");
	check("[La/Foo$$Lambda$1+0x800c0b800;", "a.Foo$$Lambda$1/0x800c0b800[]");
	/* '+' elsewhere is a legal character of a JVM class name */
	check("scala/a+b", "scala.a+b");
	check("x+0xzz", "x+0xzz");
	check("+0x", "+0x");
}

static void test_not_descriptors(void **state)
{
	(void)state;
	check("[", "[");
	check("[Q", "[Q");
	check("[Ljava/lang/String", "[Ljava.lang.String");
	check("", "");
}

static void test_cut(void **state)
{
	char out[8];

	(void)state;
	assert_int_equal(java_class_name("java/lang/String", 16, out, sizeof(out)), 7);
	assert_string_equal(out, "java.la");
	assert_int_equal(java_class_name("[[I", 3, out, 4), 3);
	assert_string_equal(out, "int");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plain_and_arrays),
	    cmocka_unit_test(test_hidden_classes),
	    cmocka_unit_test(test_not_descriptors),
	    cmocka_unit_test(test_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
