/* test-usdt.c: USDT probes: the argument spec parser on every operand form
 * gcc emits and on forms it must refuse; note descriptors cut at every
 * length; this test binary's own probes (with and without a semaphore),
 * read back from /proc/self/exe with their file offsets checked against
 * the bytes there (a probe site is a nop); HotSpot's probes in libjvm.so
 * when OpenJDK is installed; function symbols by name for uprobes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define _SDT_HAS_SEMAPHORES 1
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <unistd.h>

#include "symbolize/usdt.h"

#define LIBJVM "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so"

unsigned short unit_test_fire_semaphore __attribute__((section(".probes"), used));
unsigned short unit_test_plain_semaphore __attribute__((section(".probes"), used));

int usdt_test_target(int x);
__attribute__((noinline)) int usdt_test_target(int x)
{
	long big = (long)x << 40;

	DTRACE_PROBE3(unit_test, fire, x, big, 7);
	DTRACE_PROBE(unit_test, plain);
	return x + 1;
}

static void parse_ok(const char *spec, int n)
{
	struct usdt_arg a[USDT_MAX_ARGS];
	char err[128];
	int got = -1;

	assert_int_equal(usdt_parse_args(spec, a, &got, err, sizeof(err)), 0);
	assert_int_equal(got, n);
}

static void test_args_forms(void **state)
{
	struct usdt_arg a[USDT_MAX_ARGS];
	char err[128], buf[64];
	int n;

	(void)state;
	assert_int_equal(usdt_parse_args("-8@%rax 8@%rdx -4@%ecx -4@%ebx", a, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 4);
	assert_int_equal(a[0].kind, USDT_ARG_REG);
	assert_int_equal(a[0].reg, USDT_REG_AX);
	assert_int_equal(a[0].size, 8);
	assert_true(a[0].is_signed);
	assert_false(a[1].is_signed);
	assert_int_equal(a[2].reg, USDT_REG_CX);
	assert_int_equal(a[2].size, 4);
	assert_int_equal(a[3].reg, USDT_REG_BX);

	assert_int_equal(usdt_parse_args("1@%dil -2@%cx 1@%ah 8@%r13 -4@%r9d 2@%r10w 1@%r11b", a, &n,
					 err, sizeof(err)), 0);
	assert_int_equal(n, 7);
	assert_int_equal(a[0].reg, USDT_REG_DI);
	assert_int_equal(a[0].size, 1);
	assert_int_equal(a[2].shift, 8);
	assert_int_equal(a[3].reg, USDT_REG_R13);
	assert_int_equal(a[4].reg, USDT_REG_R9);
	assert_int_equal(a[4].size, 4);
	assert_int_equal(a[5].size, 2);
	assert_int_equal(a[6].size, 1);

	assert_int_equal(usdt_parse_args("-4@-60(%rbp) 8@152(%rbx) 8@(%rsp) 4@0x10(%rax,%rcx,4)",
					 a, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 4);
	assert_int_equal(a[0].kind, USDT_ARG_MEM);
	assert_int_equal(a[0].reg, USDT_REG_BP);
	assert_int_equal(a[0].value, -60);
	assert_int_equal(a[1].value, 152);
	assert_int_equal(a[2].value, 0);
	assert_int_equal(a[2].index, USDT_REG_NONE);
	assert_int_equal(a[3].index, USDT_REG_CX);
	assert_int_equal(a[3].scale, 4);
	assert_int_equal(a[3].value, 16);

	assert_int_equal(usdt_parse_args("-4@$-1 1@$0 8@$0x7fffffffffffffff", a, &n, err,
					 sizeof(err)), 0);
	assert_int_equal(a[0].kind, USDT_ARG_CONST);
	assert_int_equal(a[0].value, -1);
	assert_int_equal(a[2].value, INT64_MAX);

	/* Normalized text round-trips. */
	usdt_arg_format(&a[0], buf, sizeof(buf));
	assert_string_equal(buf, "-4@$-1");
	parse_ok("", 0);
	parse_ok("   ", 0);
	parse_ok("%eax", 1); /* old notes without sizes */
	assert_int_equal(usdt_parse_args("-4@-60(%rbp)", a, &n, err, sizeof(err)), 0);
	usdt_arg_format(&a[0], buf, sizeof(buf));
	assert_string_equal(buf, "-4@-60(%rbp)");
	assert_int_equal(usdt_parse_args("1@%ah", a, &n, err, sizeof(err)), 0);
	usdt_arg_format(&a[0], buf, sizeof(buf));
	assert_string_equal(buf, "1@%ah");
}

static void refuse(const char *spec, const char *why)
{
	struct usdt_arg a[USDT_MAX_ARGS];
	char err[128];
	int n;

	assert_int_equal(usdt_parse_args(spec, a, &n, err, sizeof(err)), -EINVAL);
	if (!strstr(err, why))
		fail_msg("'%s': '%s' does not say '%s'", spec, err, why);
}

static void test_args_refused(void **state)
{
	(void)state;
	refuse("8@counter(%rip)", "symbol-relative");
	refuse("8@16(%rip)", "rip-relative");
	refuse("4@%xmm0", "unknown register");
	refuse("3@%eax", "size must be");
	refuse("x@%eax", "size is not a number");
	refuse("8@", "no operand");
	refuse("8@$abc", "constant");
	refuse("8@-8(%rbp", "malformed");
	refuse("8@-8(%ebp)", "base register");
	refuse("8@(%rax,%rbx,3)", "scale");
	refuse("8@%rip", "not a value");
	refuse("1@%a 1@%b 1@%c 1@%d 1@%e 1@%f 1@%g 1@%h 1@%i 1@%j 1@%k 1@%l 1@%m", "unknown");
	refuse("1@$1 1@$1 1@$1 1@$1 1@$1 1@$1 1@$1 1@$1 1@$1 1@$1 1@$1 1@$1 1@$1",
	       "more than 12");
}

static void test_note_desc_cut(void **state)
{
	unsigned char desc[128];
	struct usdt_probe p;
	uint64_t addr[3] = {0x1234, 0x2000, 0x4050};
	size_t len;

	(void)state;
	memcpy(desc, addr, 24);
	memcpy(desc + 24, "prov\0name\0-4@%eax 8@$1\0", 24);
	len = 24 + 23; /* up to the spec's NUL */
	assert_int_equal(usdt_parse_note_desc(desc, len, 8, &p), 0);
	assert_string_equal(p.provider, "prov");
	assert_string_equal(p.name, "name");
	assert_int_equal(p.nargs, 2);
	assert_int_equal(p.pc, 0x1234);
	assert_int_equal(p.semaphore, 0x4050);
	/* Every shorter descriptor is refused, never read past. */
	for (size_t cut = 0; cut < len; cut++) {
		unsigned char *copy = malloc(cut ? cut : 1);

		memcpy(copy, desc, cut);
		assert_int_equal(usdt_parse_note_desc(copy, cut, 8, &p), -EBADMSG);
		free(copy);
	}
	assert_int_equal(usdt_parse_note_desc(desc, len, 3, &p), -EBADMSG);
	/* An unparsable spec keeps the probe, flagged. */
	memcpy(desc + 24, "prov\0name\0-4@%xmm1\0", 20);
	assert_int_equal(usdt_parse_note_desc(desc, 44, 8, &p), 0);
	assert_int_equal(p.nargs, -1);
	assert_non_null(strstr(p.arg_error, "unknown register"));
}

static const struct usdt_probe *find(const struct usdt_list *l, const char *prov,
				     const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->probes[i].provider, prov) && !strcmp(l->probes[i].name, name))
			return &l->probes[i];
	return NULL;
}

static void test_own_probes(void **state)
{
	struct usdt_list l;
	const struct usdt_probe *fire, *plain;
	unsigned char byte;
	FILE *f;

	(void)state;
	assert_int_equal(usdt_test_target(1), 2);
	assert_int_equal(usdt_read_file("/proc/self/exe", &l), 0);
	fire = find(&l, "unit_test", "fire");
	plain = find(&l, "unit_test", "plain");
	assert_non_null(fire);
	assert_non_null(plain);
	assert_int_equal(fire->nargs, 3);
	assert_int_equal(fire->arg[0].size, 4);
	assert_true(fire->arg[0].is_signed);
	assert_int_equal(fire->arg[1].size, 8);
	assert_int_equal(fire->arg[2].kind, USDT_ARG_CONST);
	assert_int_equal(fire->arg[2].value, 7);
	assert_int_equal(plain->nargs, 0);
	/* The semaphores are the variables above: their link-time addresses
	 * relative to the probe's are what the running program sees. */
	assert_int_not_equal(fire->semaphore, 0);
	assert_int_equal((int64_t)(fire->semaphore - plain->semaphore),
			 (intptr_t)&unit_test_fire_semaphore - (intptr_t)&unit_test_plain_semaphore);
	assert_int_not_equal(fire->sem_offset, 0);
	/* The probe site is a nop (0x90) at its file offset. */
	f = fopen("/proc/self/exe", "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, (long)fire->pc_offset, SEEK_SET), 0);
	assert_int_equal(fread(&byte, 1, 1, f), 1);
	fclose(f);
	assert_int_equal(byte, 0x90);
	usdt_list__release(&l);
}

static void test_libjvm(void **state)
{
	struct usdt_list l;
	const struct usdt_probe *p;

	(void)state;
	if (access(LIBJVM, R_OK))
		skip();
	assert_int_equal(usdt_read_file(LIBJVM, &l), 0);
	assert_true(l.n > 100);
	p = find(&l, "hotspot", "object__alloc");
	assert_non_null(p);
	assert_int_equal(p->nargs, 4);
	assert_int_equal(p->arg[1].size, 8);  /* class name pointer */
	assert_int_equal(p->arg[2].size, 4);  /* its length */
	assert_int_equal(p->semaphore, 0);    /* HotSpot gates with flags, not semaphores */
	p = find(&l, "hotspot", "thread__start");
	assert_non_null(p);
	assert_int_equal(p->nargs, 5);
	assert_int_equal(p->arg[1].kind, USDT_ARG_MEM);
	assert_int_equal(p->arg[1].reg, USDT_REG_BP);
	for (size_t i = 0; i < l.n; i++)
		if (l.probes[i].nargs < 0)
			fail_msg("%s:%s: %s", l.probes[i].provider, l.probes[i].name,
				 l.probes[i].arg_error);
	usdt_list__release(&l);
}

static void test_symbols(void **state)
{
	uint64_t off, size;
	int any;
	unsigned char byte;
	FILE *f;

	(void)state;
	assert_int_equal(elf_symbol_file_offset("/proc/self/exe", "usdt_test_target", 0, &off,
						&size, &any), 0);
	assert_true(size > 0);
	f = fopen("/proc/self/exe", "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, (long)off, SEEK_SET), 0);
	assert_int_equal(fread(&byte, 1, 1, f), 1);
	fclose(f);
	/* The function's first byte, as the process sees it. */
	assert_int_equal(byte, *(const unsigned char *)(uintptr_t)usdt_test_target);
	assert_int_equal(elf_symbol_file_offset("/proc/self/exe", "usdt_test_target", size, &off,
						&size, &any), -ERANGE);
	assert_int_equal(elf_symbol_file_offset("/proc/self/exe", "no_such_function_here", 0,
						&off, &size, &any), -ENOENT);
	assert_true(any);
	assert_int_equal(elf_symbol_file_offset("/nonexistent/x", "f", 0, &off, &size, &any),
			 -ENOENT);
	assert_int_equal(elf_symbol_file_offset("/proc/self/status", "f", 0, &off, &size, &any),
			 -ENOEXEC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args_forms),
		cmocka_unit_test(test_args_refused),
		cmocka_unit_test(test_note_desc_cut),
		cmocka_unit_test(test_own_probes),
		cmocka_unit_test(test_libjvm),
		cmocka_unit_test(test_symbols),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
