/* test-perf-script.c: the perf script reader (report/perf-script.c) on
 * captured snippets of `perf script` output, default and -F variants: the
 * folded stacks stackcollapse-perf.pl --all makes of them, roots, symbol
 * tidying, kernel/JIT/inline marks, events, periods, malformed lines, and
 * detection against folded text. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/formats.h"

/* Folds `in` and returns the folded text with thread roots (malloc'ed). */
static char *fold(const char *in, const struct perf_script_opts *o, struct perf_script_stats *st)
{
	struct profile p;
	struct perf_script_stats dummy;
	struct folded_opts fo = {.thread_root = PROFILE_ROOT_NAME};
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(profile__init(&p), 0);
	assert_int_equal(profile__from_perf_script(&p, in, strlen(in), o, st ? st : &dummy), 0);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(profile__write_folded(&p, &fo, f), 0);
	fclose(f);
	profile__release(&p);
	return out;
}

static void check(const char *in, const struct perf_script_opts *o, const char *want)
{
	char *out = fold(in, o, NULL);

	assert_string_equal(out, want);
	free(out);
}

static const char default_text[] =
	"alpha  3583 23642.936040:    2004008 cpu-clock:ppp: \n"
	"\t            1215 burn_alpha+0x1c (/work/build/examples/threads)\n"
	"\t            132e alpha_inner+0x2e (/work/build/examples/threads)\n"
	"\t           891f5 start_thread+0x305 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
	"\n"
	"alpha  3583 23642.938039:    2004008 cpu-clock:ppp: \n"
	"\t            1229 burn_alpha+0x30 (/work/build/examples/threads)\n"
	"\t            132e alpha_inner+0x2e (/work/build/examples/threads)\n"
	"\t           891f5 start_thread+0x305 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
	"\n"
	"pool-2  3586 23642.948897:    2004008 cpu-clock:ppp: \n"
	"\tffffffff821f5b65 irqentry_exit_to_user_mode+0x105 ([kernel.kallsyms])\n"
	"\t            12a1 pool_burn+0x2c (/work/build/examples/threads)\n"
	"\t           891f5 [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
	"\t               0 [unknown] ([unknown])\n"
	"\n";

static void test_default_output(void **state)
{
	struct perf_script_stats st;
	char *out;

	(void)state;
	/* Weighed by their periods, as stackcollapse-perf.pl weighs them. */
	out = fold(default_text, NULL, &st);
	assert_string_equal(out, "alpha;start_thread;alpha_inner;burn_alpha 4008016\n"
				 "pool-2;[unknown];[libc.so.6];pool_burn;"
				 "irqentry_exit_to_user_mode_[k] 2004008\n");
	assert_int_equal(st.samples, 3);
	assert_int_equal(st.weighed, 3);
	free(out);
	out = fold(default_text, &(struct perf_script_opts){.period = PERF_SCRIPT_WEIGHT_SAMPLES},
		   &st);
	assert_string_equal(out, "alpha;start_thread;alpha_inner;burn_alpha 2\n"
				 "pool-2;[unknown];[libc.so.6];pool_burn;"
				 "irqentry_exit_to_user_mode_[k] 1\n");
	assert_int_equal(st.malformed, 0);
	assert_string_equal(st.event, "cpu-clock:ppp");
	free(out);
}

static void test_roots_and_period(void **state)
{
	static const char text[] = "V8 WorkerThread 100/101 [000] 5.000001:     250 cycles: \n"
				   "\t1 f (/a)\n\n"
				   "V8 WorkerThread 100/101 [000] 5.000002:     750 cycles: \n"
				   "\t2 f (/a)\n";
	struct perf_script_opts o = {.root = PERF_SCRIPT_ROOT_TID,
				     .period = PERF_SCRIPT_WEIGHT_SAMPLES};

	(void)state;
	check(text, NULL, "V8_WorkerThread;f 1000\n");
	check(text, &o, "V8_WorkerThread-100/101;f 2\n");
	o.root = PERF_SCRIPT_ROOT_PID;
	o.period = PERF_SCRIPT_WEIGHT_PERIOD;
	check(text, &o, "V8_WorkerThread-100;f 1000\n");
	/* No pid in the text: "?". */
	o.root = PERF_SCRIPT_ROOT_TID;
	o.period = PERF_SCRIPT_WEIGHT_DEFAULT;
	check("java 25607 4794564.109216: cycles: \n\t1 f (/a)\n", &o, "java-?/25607;f 1\n");
	/* "0/0" is a tid alone to stackcollapse-perf.pl (`not $tid`). */
	check("swapper 0/0 [000] 1.5: 7 cycles: \n\t1 f (/a)\n", &o, "swapper-?/0;f 7\n");
	/* Its period regex wants a ':' before the period (a time): without
	 * one the sample counts 1 by default, its period with --period. */
	check("a 1/2 7 cycles: \n\t1 f (/a)\n", &o, "a-1/2;f 1\n");
	o.period = PERF_SCRIPT_WEIGHT_PERIOD;
	check("a 1/2 7 cycles: \n\t1 f (/a)\n", &o, "a-1/2;f 7\n");
}

static void test_symbol_tidying(void **state)
{
	static const char text[] =
		"java 7 1.5: cpu-clock: \n"
		"\t1 Lorg/mozilla/Foo;.call(Lorg/Bar;)V (/tmp/perf-7.map)\n"
		"\t2 ns::f(int, char const*) const+0x10 (/bin/x)\n"
		"\t3 ns::(anonymous namespace)::g(int) (/bin/x)\n"
		"\t3 (comm) (/bin/x)\n"
		"\t4 net/http.(*Client).Do (/bin/go)\n"
		"\t5 say \"hi\"'s (/tmp/jitted-12-34.so)\n"
		"\t6 outer->inner (/bin/x)\n"
		"\t7 ([unknown]) (/bin/x)\n"
		"\tffffffff8103ce3b native_safe_halt (/lib/modules/6.1/build/vmlinux)\n";

	(void)state;
	/* Leaf is the first frame line; "->" parts: outer, then inner_[i]. */
	check(text, NULL,
	      "java;native_safe_halt_[k];outer;inner_[i];say his_[j];net/http.(*Client).Do;"
	      "ns::(anonymous namespace)::g;ns::f;org/mozilla/Foo:.call_[j] 1\n");
}

/* The reader fed in chunks cut anywhere (inside lines, inside "\r\n",
 * the last line without '\n') folds as the whole text does; what it
 * keeps does not point into a chunk (each is wiped after feeding). */
static void test_chunks(void **state)
{
	static const char tail[] = "java 7 cycles:\r\n"
				   "7f72 LBusy;::main (/tmp/perf-7.map)\r\n\r\n"
				   "java 7 cycles:\n\t1 [unknown] (/tmp/perf-7.map)";
	char text[2048], *want, *got;
	size_t len, step, i;
	struct perf_script_stats st0;

	(void)state;
	/* The tail's event, "cycles", is not the first: its samples are
	 * skipped, the same way in every cut. */
	snprintf(text, sizeof(text), "%s%s", default_text, tail);
	len = strlen(text);
	want = fold(text, NULL, &st0);
	assert_int_equal(st0.samples, 3);
	assert_int_equal(st0.other_events, 2);
	for (step = 1; step <= 64; step += step < 8 ? 1 : 13) {
		struct profile p;
		struct perf_script_stats st;
		struct perf_script_reader *r;
		struct folded_opts fo = {.thread_root = PROFILE_ROOT_NAME};
		size_t n = 0;
		FILE *f;

		got = NULL;
		assert_int_equal(profile__init(&p), 0);
		assert_int_equal(perf_script_reader__new(&r, &p, NULL, &st), 0);
		for (i = 0; i < len; i += step) {
			char chunk[64];
			size_t k = len - i < step ? len - i : step;

			memcpy(chunk, text + i, k);
			assert_int_equal(perf_script_reader__feed(r, chunk, k), 0);
			memset(chunk, 'x', sizeof(chunk));
		}
		assert_int_equal(perf_script_reader__finish(r), 0);
		perf_script_reader__free(r);
		assert_int_equal(st.samples, st0.samples);
		assert_int_equal(st.other_events, st0.other_events);
		assert_int_equal(st.lines, st0.lines);
		f = open_memstream(&got, &n);
		assert_int_equal(profile__write_folded(&p, &fo, f), 0);
		fclose(f);
		profile__release(&p);
		assert_string_equal(got, want);
		free(got);
	}
	free(want);
	perf_script_reader__free(NULL);
}

/* As stackcollapse-perf.pl: Java's 'L' goes with --pids/--tids too (its
 * `$pname =~ m/^java/`), an unknown symbol in a perf map is "[perf-N.map]"
 * marked JIT, and frame lines after a header need no indentation ("LBusy;"
 * has no '/': kept). */
static void test_java_jit_unindented(void **state)
{
	static const char text[] = "java 7/8 1.5: cycles: \n"
				   "\t1 Lorg/Foo;.run (/tmp/perf-7.map)\n"
				   "\t2 [unknown] (/tmp/perf-7.map)\n\n"
				   "java 7 cycles:\n"
				   "ffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])\n"
				   "7f722d12e1d4 LBusy;::main (/tmp/perf-7.map)\n"
				   "7f72432b4e9a start_thread (/lib/libpthread-2.15.so)\n\n";
	struct perf_script_opts o = {.root = PERF_SCRIPT_ROOT_PID};

	(void)state;
	check(text, &o,
	      "java-7;[perf-7.map]_[j];org/Foo:.run_[j] 1\n"
	      "java-?;start_thread;LBusy:::main_[j];native_write_msr_safe_[k] 1\n");
	assert_true(perf_script_detect(strstr(text, "java 7 "), strlen(strstr(text, "java 7 "))));
}

static void test_formats_without_fields(void **state)
{
	(void)state;
	/* -F comm,tid,ip,sym: no DSO (kernel by address), no event. */
	check("alpha  3583 \n\t            1215 burn_alpha\n\tffffffff81000e06 asm_irq\n\n", NULL,
	      "alpha;asm_irq_[k];burn_alpha 1\n");
	/* -F ip,sym: no header at all; -F srcline lines are skipped. */
	check("\n\t1215 burn_alpha\n  threads.c:52\n\t132e alpha_inner\n  ??:0\n\n", NULL,
	      "alpha_inner;burn_alpha 1\n");
	/* No callchain: the ip on the header line; no blank lines. */
	check("a 1 1.000001: 1 cpu-clock: 7f12 f+0x3 (/lib/x.so)\n"
	      "a 1 1.000002: 1 cpu-clock: 7f13 f+0x4 (/lib/x.so)\n"
	      "a 1 1.000003: 1 cpu-clock: \n",
	      NULL, "a;[no-stack] 1\na;f 2\n");
}

static void test_events_and_bad_lines(void **state)
{
	static const char text[] = "# ========\n# cmdline : /usr/bin/perf record -g\n"
				   "a 1 1.0: cpu-clock: \n\t1 f (/x)\n\n"
				   "a 1 1.1: task-clock: \n\t1 g (/x)\n\n"
				   "!!! garbage\n\t1 h (/x)\n\n"
				   "a 1 1.2: cpu-clock: \n\tnot-hex f (/x)\n\t2 f (/x)";
	struct perf_script_stats st;
	char *out = fold(text, NULL, &st);

	(void)state;
	assert_string_equal(out, "a;f 2\n"); /* the last, unterminated sample counts */
	assert_int_equal(st.samples, 2);
	assert_int_equal(st.other_events, 1);
	assert_string_equal(st.other_event, "task-clock");
	assert_int_equal(st.malformed, 2);
	assert_int_equal(st.first_malformed, 9);
	free(out);
}

/* The reader's error (and st.bad_line) for `in`, with --period. */
static int fold_error(const char *in, struct perf_script_stats *st)
{
	struct perf_script_opts o = {.period = 1};
	struct profile p;
	int err;

	assert_int_equal(profile__init(&p), 0);
	err = profile__from_perf_script(&p, in, strlen(in), &o, st);
	profile__release(&p);
	return err;
}

/* Periods sum exactly or fail (never saturate); ids above pid_t's range
 * fail (never become 4294967295); the line is reported. */
static void test_number_limits(void **state)
{
	struct perf_script_stats st;
	char *out;

	(void)state;
	assert_int_equal(fold_error("a 1/1 1.0: 18446744073709551615 cpu-clock: \n\t1 f (/x)\n\n"
				    "a 1/1 1.1: 1 cpu-clock: \n\t1 f (/x)\n\n",
				    &st),
			 -EOVERFLOW);
	assert_int_equal(st.bad_line, 4);
	/* Two stacks whose sum overflows: the total counts, not one stack. */
	assert_int_equal(fold_error("a 1/1 1.0: 18446744073709551615 cpu-clock: \n\t1 f (/x)\n\n"
				    "a 1/1 1.1: 1 cpu-clock: \n\t1 g (/x)\n\n",
				    &st),
			 -EOVERFLOW);
	assert_int_equal(fold_error("a 1/1 1.0: 18446744073709551616 cpu-clock: \n\t1 f (/x)\n",
				    &st),
			 -EOVERFLOW);
	assert_int_equal(st.bad_line, 1);
	assert_int_equal(fold_error("a 4294967301/5 1.0: 1 cpu-clock: \n\t1 f (/x)\n", &st),
			 -ERANGE);
	assert_int_equal(st.bad_line, 1);
	assert_int_equal(fold_error("a 1 1.0: 1 cpu-clock: \n\t1 f (/x)\n\n"
				    "a 5/2147483648 1.0: 1 cpu-clock: \n\t1 f (/x)\n",
				    &st),
			 -ERANGE);
	assert_int_equal(st.bad_line, 4);
	assert_int_equal(fold_error("a 99999999999999999999999 1.0: 1 cpu-clock: \n\t1 f (/x)\n",
				    &st),
			 -ERANGE);
	/* The largest values that fit still count exactly. */
	out = fold("a 2147483647/2147483647 1.0: 18446744073709551614 cpu-clock: \n\t1 f (/x)\n\n"
		   "a 2147483647/2147483647 1.1: 1 cpu-clock: \n\t1 f (/x)\n",
		   &(struct perf_script_opts){.root = PERF_SCRIPT_ROOT_TID, .period = 1}, &st);
	assert_string_equal(out, "a-2147483647/2147483647;f 18446744073709551615\n");
	free(out);
}

static void test_detect(void **state)
{
	(void)state;
	assert_true(perf_script_detect(default_text, strlen(default_text)));
	assert_true(perf_script_detect("a 1 1.000001: 1 cpu-clock: 7f f (/x)\n", 37));
	assert_true(perf_script_detect("# header\n\n\t1215 burn_alpha\n", 27));
	assert_false(perf_script_detect("main;foo 3\nmain;bar 4\n", 22));
	assert_false(perf_script_detect("a b;c d 12\n", 11));
	assert_false(perf_script_detect("", 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_output),
		cmocka_unit_test(test_roots_and_period),
		cmocka_unit_test(test_java_jit_unindented),
		cmocka_unit_test(test_chunks),
		cmocka_unit_test(test_symbol_tidying),
		cmocka_unit_test(test_formats_without_fields),
		cmocka_unit_test(test_events_and_bad_lines),
		cmocka_unit_test(test_number_limits),
		cmocka_unit_test(test_detect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
