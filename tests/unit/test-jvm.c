/* test-jvm.c: jvm/ without a JVM: the Thread.print parser on a dump
 * captured from OpenJDK 17 here (with a thread named `idle "quoted" wörker
 * ✓`) and on hostile ones (quotes, newlines and fake fields in names, text
 * cut at every length); VM.flags; Java frame names; the reader's full
 * thread names (REC_THREAD_FULLNAME); the attach refusing a process that is
 * not a JVM without signalling it (a SIGQUIT would kill this test); the
 * java palette's interpreter colour. t0620-jvm.bats runs a real JVM. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jvm/jvm-internal.h"
#include "jvm/jvm.h"
#include "lib/rec-writer.h"
#include "lib/recording.h"
#include "svg/svg-internal.h"

/* Thread.print of examples/java/Service.java (OpenJDK 17.0.15), cut. */
static const char dump[] =
	"2026-11-21 13:24:53\n"
	"Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6-Debian-1deb12u1 mixed mode, sharing):\n"
	"\n"
	"Threads class SMR info:\n"
	"_java_thread_list=0x00007f65e0007d60, length=18, elements={\n"
	"0x00007f6670017ed0, 0x00007f66700f83c0, 0x00007f66700f97a0, 0x00007f6670101200,\n"
	"0x00007f66701025b0, 0x00007f66701039c0, 0x00007f6670105370, 0x00007f66701068a0,\n"
	"0x00007f6670107920, 0x00007f667010ec60, 0x00007f6670112370, 0x00007f6670150f30,\n"
	"0x00007f6670151fe0, 0x00007f6670152fe0, 0x00007f6670153fe0, 0x00007f6670154fd0,\n"
	"0x00007f6670156050, 0x00007f65e0006dd0\n"
	"}\n"
	"\n"
	"\"main\" #1 prio=5 os_prio=0 cpu=82.56ms elapsed=1.67s tid=0x00007f6670017ed0 nid=0x1942 in Object.wait()  [0x00007f667771e000]\n"
	"   java.lang.Thread.State: WAITING (on object monitor)\n"
	"\tat java.lang.Object.wait(java.base@17.0.15/Native Method)\n"
	"\t- waiting on <0x0000000690800000> (a java.lang.Thread)\n"
	"\tat java.lang.Thread.join(java.base@17.0.15/Thread.java:1313)\n"
	"\t- locked <0x0000000690800000> (a java.lang.Thread)\n"
	"\tat java.lang.Thread.join(java.base@17.0.15/Thread.java:1381)\n"
	"\tat Service.main(Service.java:186)\n"
	"\n"
	"\"Reference Handler\" #2 daemon prio=10 os_prio=0 cpu=0.44ms elapsed=1.65s tid=0x00007f66700f83c0 nid=0x1949 waiting on condition  [0x00007f6674214000]\n"
	"\"AsyncAppender-Worker-async-console-appender\" #15 prio=5 os_prio=0 cpu=154.22ms elapsed=1.54s tid=0x00007f6670153fe0 nid=0x1958 waiting on condition  [0x00007f664cb9d000]\n"
	"\"idle \"quoted\" w\xc3\xb6rker \xe2\x9c\x93\" #17 prio=5 os_prio=0 cpu=0.14ms elapsed=1.54s tid=0x00007f6670156050 nid=0x195a waiting on condition  [0x00007f664c99d000]\n"
	"\"VM Thread\" os_prio=0 cpu=3.14ms elapsed=1.65s tid=0x00007f66700f4430 nid=0x1948 runnable  \n"
	"\"GC Thread#0\" os_prio=0 cpu=5.60ms elapsed=1.67s tid=0x00007f6670041650 nid=0x1943 runnable  \n";

static void test_thread_dump_real(void **state)
{
	struct jvm_thread *t;
	long n = jvm_parse_threads(dump, sizeof(dump) - 1, &t);

	(void)state;
	assert_int_equal(n, 6);
	assert_string_equal(t[0].name, "main");
	assert_int_equal(t[0].nid, 0x1942);
	assert_string_equal(t[1].name, "Reference Handler");
	assert_string_equal(t[2].name, "AsyncAppender-Worker-async-console-appender");
	assert_int_equal(t[2].nid, 0x1958);
	assert_string_equal(t[3].name, "idle \"quoted\" w\xc3\xb6rker \xe2\x9c\x93");
	assert_int_equal(t[3].len, strlen(t[3].name));
	assert_int_equal(t[3].nid, 0x195a);
	assert_string_equal(t[4].name, "VM Thread"); /* VM threads: no '#' */
	assert_int_equal(t[4].nid, 0x1948);
	assert_string_equal(t[5].name, "GC Thread#0");
	jvm_threads_free(t, (size_t)n);
}

static void test_thread_dump_hostile(void **state)
{
	/* A name with a newline, one that fakes the header's fields, a
	 * header without nid, an empty name, a nid too large. */
	static const char text[] =
		"\"two\nlines\" #3 prio=5 os_prio=0 tid=0x1 nid=0x10 runnable\n"
		"\"fake\" #9 prio=5 os_prio=0 nid=0x99 x\" #4 daemon prio=5 os_prio=0 tid=0x2 "
		"nid=0x11 waiting\n"
		"\"no nid\" #5 prio=5 os_prio=0 tid=0x3 runnable\n"
		"\"\" #6 prio=5 os_prio=0 tid=0x4 nid=0x12 runnable\n"
		"\"huge\" os_prio=0 tid=0x5 nid=0x1ffffffff runnable\n"
		"\tat \"quoted\" #7 prio=5 nid=0x13\n"
		"\"last\" os_prio=0 nid=0x14";
	struct jvm_thread *t;
	long n = jvm_parse_threads(text, sizeof(text) - 1, &t);
	size_t cut;

	(void)state;
	assert_int_equal(n, 4);
	assert_string_equal(t[0].name, "two\nlines");
	assert_int_equal(t[0].nid, 0x10);
	assert_string_equal(t[1].name, "fake\" #9 prio=5 os_prio=0 nid=0x99 x");
	assert_int_equal(t[1].nid, 0x11);
	assert_string_equal(t[2].name, "");
	assert_int_equal(t[2].nid, 0x12);
	assert_string_equal(t[3].name, "last");
	assert_int_equal(t[3].nid, 0x14);
	jvm_threads_free(t, (size_t)n);
	/* Every prefix of both dumps parses without reading past its end
	 * (ASan checks the copies). */
	for (cut = 0; cut <= sizeof(dump) - 1; cut++) {
		char *copy = malloc(cut ? cut : 1);

		memcpy(copy, dump, cut);
		n = jvm_parse_threads(copy, cut, &t);
		assert_true(n >= 0 && n <= 6);
		jvm_threads_free(t, (size_t)n);
		free(copy);
	}
}

static void test_thread_dump_long_name(void **state)
{
	size_t len = JVM_MAX_THREAD_NAME + 100, i;
	char *text = malloc(len + 64);
	struct jvm_thread *t;
	long n;

	(void)state;
	text[0] = '"';
	for (i = 1; i <= len; i++)
		text[i] = 'a' + (char)(i % 26);
	strcpy(text + len + 1, "\" #1 prio=5 os_prio=0 nid=0x20 x\n");
	/* On one line: found, and cut. */
	n = jvm_parse_threads(text, strlen(text), &t);
	assert_int_equal(n, 1);
	assert_int_equal(t[0].len, JVM_MAX_THREAD_NAME);
	assert_int_equal(t[0].nid, 0x20);
	jvm_threads_free(t, 1);
	/* Over several lines longer than the window: skipped, not misread. */
	text[JVM_MAX_THREAD_NAME + 50] = '\n';
	n = jvm_parse_threads(text, strlen(text), &t);
	assert_int_equal(n, 0);
	jvm_threads_free(t, 0);
	free(text);
}

static void test_flags(void **state)
{
	static const char flags[] =
		"-XX:CICompilerCount=2 -XX:+PreserveFramePointer -XX:-UseLargePages\n"
		"-XX:+DTraceAllocProbes -XX:-DTraceAllocProbes -XX:+UseG1GC ";

	(void)state;
	assert_int_equal(jvm_flags_value(flags, sizeof(flags) - 1, "PreserveFramePointer"), 1);
	assert_int_equal(jvm_flags_value(flags, sizeof(flags) - 1, "UseLargePages"), 0);
	assert_int_equal(jvm_flags_value(flags, sizeof(flags) - 1, "DTraceAllocProbes"), 0);
	assert_int_equal(jvm_flags_value(flags, sizeof(flags) - 1, "UseG1"), -ENOENT);
	assert_int_equal(jvm_flags_value(flags, sizeof(flags) - 1, "CICompilerCount"), -ENOENT);
	assert_int_equal(jvm_flags_value("", 0, "X"), -ENOENT);
}

static void clean_is(const char *in, int sig, const char *want)
{
	char out[256];
	size_t n = jvm_clean_name(in, strlen(in), sig, out, sizeof(out));

	assert_string_equal(out, want);
	assert_int_equal(n, strlen(want));
}

static void test_clean_names(void **state)
{
	char small[8];

	(void)state;
	clean_is("int java.lang.String.hashCode()", 0, "java.lang.String.hashCode");
	clean_is("java.lang.Object java.util.HashMap.get(java.lang.Object)", 0,
		 "java.util.HashMap.get");
	clean_is("java.lang.Object java.util.HashMap.get(java.lang.Object)", 1,
		 "java.util.HashMap.get(java.lang.Object)");
	clean_is("void Service$Handler.<init>(int)", 0, "Service$Handler.<init>");
	clean_is("void Service$$Lambda$19/0x00007f3448005668.run()", 0, "Service$$Lambda$19.run");
	clean_is("void java.util.DualPivotQuicksort.sort(java.util.DualPivotQuicksort$Sorter, "
		 "long[], int, int, int)", 0, "java.util.DualPivotQuicksort.sort");
	clean_is("Ljava/util/HashMap;::get", 0, "java.util.HashMap.get");
	clean_is("Ljava/util/HashMap;::get(Ljava/lang/Object;)", 0, "java.util.HashMap.get");
	clean_is("java/util/HashMap.get", 0, "java.util.HashMap.get");
	clean_is("StubRoutines (1)", 0, "StubRoutines");
	clean_is("Interpreter", 0, "Interpreter");
	clean_is("I2C/C2I adapters", 0, "I2C/C2I adapters");
	/* Not HotSpot's: unchanged. */
	clean_is("LazyCompile:*main /app/index.js:12", 0, "LazyCompile:*main /app/index.js:12");
	clean_is("jit_fn_3", 0, "jit_fn_3");
	clean_is("f (x)", 0, "f (x)");
	clean_is("()", 0, "()");
	clean_is("", 0, "");
	/* Cut to the buffer. */
	assert_int_equal(jvm_clean_name("int a.b.c()", 11, 0, small, sizeof(small)), 5);
	assert_string_equal(small, "a.b.c");
	assert_int_equal(jvm_clean_name("java/lang/Object.wait", 21, 0, small, sizeof(small)), 7);
	assert_string_equal(small, "java.la");
}

/* Writes a recording with these thread events, reads it back. */
static void thread_names_after(struct recording *r, const char *path)
{
	struct rec_writer *w = rec_writer__open(path);
	static const char *const names[] = {"", "AsyncAppender-W", "renamed", "java",
					    "AsyncAppender-Worker-async-console-appender", "main",
					    "short", "shorter-than-15", "other-pid-full-name-x"};
	uint32_t id[9];
	unsigned char *data;
	size_t size, i;
	char err[256];

	assert_non_null(w);
	for (i = 1; i < 9; i++)
		assert_int_equal(rec_writer__string(w, names[i], strlen(names[i]), &id[i]), 0);
	/* tid 11: truncated kernel name, later renamed to something else */
	assert_int_equal(rec_writer__thread(w, REC_THREAD_START, 100, 10, 11, id[1]), 0);
	assert_int_equal(rec_writer__thread(w, REC_THREAD_NAME, 200, 10, 11, id[2]), 0);
	/* tid 10: "java" is not a truncation of "main", but the kernel saw no
	 * rename: the JVM's end-of-recording name wins (the launcher's name
	 * for the thread Java calls main) */
	assert_int_equal(rec_writer__thread(w, REC_THREAD_START, 100, 10, 10, id[3]), 0);
	/* tid 12: a short kernel name, a full name it is a prefix of but not
	 * the 15-byte truncation, no rename the kernel saw: renamed by another
	 * thread, the full name wins */
	assert_int_equal(rec_writer__thread(w, REC_THREAD_START, 100, 10, 12, id[6]), 0);
	/* tid 11 in another process: not renamed by pid 10's full name */
	assert_int_equal(rec_writer__thread(w, REC_THREAD_START, 100, 20, 11, id[1]), 0);
	assert_int_equal(rec_writer__thread(w, REC_THREAD_FULLNAME, 300, 10, 11, id[4]), 0);
	assert_int_equal(rec_writer__thread(w, REC_THREAD_FULLNAME, 300, 10, 10, id[5]), 0);
	assert_int_equal(rec_writer__thread(w, REC_THREAD_FULLNAME, 300, 10, 12, id[7]), 0);
	assert_int_equal(rec_writer__close(w), 0);
	assert_int_equal(read_whole_file(path, &data, &size), 0);
	assert_int_equal(recording__parse(r, data, size, err, sizeof(err)), 0);
}

static void test_full_names(void **state)
{
	char path[] = "/tmp/test-jvm.XXXXXX";
	int fd = mkstemp(path);
	struct recording r;
	size_t i, seen = 0;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	thread_names_after(&r, path);
	for (i = 0; i < r.nthreads; i++) {
		const struct rec_thread_event *t = &r.threads[i];
		const char *name = recording__str(&r, t->name);

		if (t->kind == REC_THREAD_FULLNAME)
			continue;
		seen++;
		if (t->pid == 10 && t->tid == 11 && t->kind == REC_THREAD_START)
			assert_string_equal(name, "AsyncAppender-Worker-async-console-appender");
		else if (t->pid == 10 && t->tid == 11)
			assert_string_equal(name, "renamed");
		else if (t->tid == 10)
			assert_string_equal(name, "main");
		else if (t->tid == 12)
			assert_string_equal(name, "shorter-than-15");
		else
			assert_string_equal(name, "AsyncAppender-W");
	}
	assert_int_equal(seen, 5);
	recording__release(&r);
	unlink(path);
}

static void test_not_a_jvm(void **state)
{
	struct prof_error err;
	char *out = (char *)"x";
	size_t len = 1;

	(void)state;
	/* This test process maps no libjvm.so: refused before any signal
	 * (SIGQUIT would end the test here). */
	assert_int_equal(jvm_is_jvm(getpid()), 0);
	assert_int_equal(jvm_jcmd(getpid(), "VM.version", NULL, &out, &len, &err), -ENOEXEC);
	assert_null(out);
	assert_non_null(strstr(err.msg, "not a JVM"));
	assert_int_equal(jvm_has_flag(getpid(), "PreserveFramePointer"), -ENOEXEC);
	assert_int_equal(jvm_option_set(getpid(), "-XX:+PreserveFramePointer"), 0);
	/* A pid that does not exist. */
	assert_int_equal(jvm_is_jvm(0x3ffffff0), -ESRCH);
}

#define S(x) ((char *)(x)) /* argv and envp want char *, -Wwrite-strings */

/* A process whose command line and environment hold JVM options (a shell
 * that sleeps: it is never signalled). "sh -s OPTIONS..." reads its script
 * ("sleep 5") from stdin, so that its arguments are all options, as the
 * java launcher reads them up to the main class. */
static pid_t spawn_with(char *const argv[], char *const envp[])
{
	posix_spawn_file_actions_t fa;
	char script[] = "/tmp/test-jvm-sh.XXXXXX";
	int sfd = mkstemp(script);
	pid_t pid;

	char path[64], buf[8] = "";
	int i;

	posix_spawnattr_t at;

	/* Its own process group, so that killing the group also ends its
	 * sleep, which would otherwise hold our stdout open for 5 s. */
	assert_int_equal(posix_spawnattr_init(&at), 0);
	assert_int_equal(posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP), 0);
	assert_true(sfd >= 0);
	assert_int_equal(write(sfd, "sleep 5\n", 8), 8);
	close(sfd);
	assert_int_equal(posix_spawn_file_actions_init(&fa), 0);
	assert_int_equal(posix_spawn_file_actions_addopen(&fa, 0, script, O_RDONLY, 0), 0);
	assert_int_equal(posix_spawn(&pid, "/bin/sh", &fa, &at, argv, envp), 0);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	/* Until it has exec'ed (its command line is "sh\0-s..."), up to 10 s. */
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	for (i = 0; i < 1000 && memcmp(buf, "sh\0-s", 5); i++) {
		FILE *f = fopen(path, "r");

		memset(buf, 0, sizeof(buf));
		if (f) {
			if (fread(buf, 1, sizeof(buf), f) == 0)
				buf[0] = '\0';
			fclose(f);
		}
		if (memcmp(buf, "sh\0-s", 5))
			usleep(10000);
	}
	unlink(script); /* open as its stdin */
	return pid;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Options in files: an @argfile (quotes, a comment), a -XX:Flags= file
 * (applied first: overridden), a -XX:VMOptionsFile=, JDK_JAVA_OPTIONS's
 * @argfile; options after the main class are the program's; a named file
 * that cannot be read makes the answer unknown. */
static void test_option_files(void **state)
{
	char *a1[] = {S("sh"), S("-s"), S("--"), S("@/tmp/test-jvm-opts.args"), NULL};
	char *a2[] = {S("sh"), S("-s"), S("--"), S("-XX:Flags=/tmp/test-jvm-opts.flags"), NULL};
	char *a3[] = {S("sh"), S("-s"), S("--"), S("-XX:Flags=/tmp/test-jvm-opts.flags"),
		      S("-XX:VMOptionsFile=/tmp/test-jvm-opts.vm"), NULL};
	char *a4[] = {S("sh"), S("-s"), S("--"), S("-cp"), S("@x"), S("Main"),
		      S("-XX:+DisableAttachMechanism"), NULL};
	char *a5[] = {S("sh"), S("-s"), S("--"), S("@/tmp/test-jvm-opts.missing"), NULL};
	char *a6[] = {S("sh"), S("-s"), S("--"), NULL};
	char *env[] = {S("JDK_JAVA_OPTIONS='@/tmp/test-jvm-opts.args'"), NULL};
	char *none[] = {NULL};
	pid_t p[6];
	int i;

	(void)state;
	write_text("/tmp/test-jvm-opts.args", "# a comment\n-Xmx1g \"-XX:+DisableAttachMechanism\"\n");
	write_text("/tmp/test-jvm-opts.flags", "# HotSpot's flags file\n+DisableAttachMechanism\n");
	write_text("/tmp/test-jvm-opts.vm", "-XX:-DisableAttachMechanism -Xss1m\n");
	p[0] = spawn_with(a1, none);
	p[1] = spawn_with(a2, none);
	p[2] = spawn_with(a3, none);
	p[3] = spawn_with(a4, none);
	p[4] = spawn_with(a5, none);
	p[5] = spawn_with(a6, env);
	assert_int_equal(jvm_option_refuses_attach(p[0]), 1);
	assert_int_equal(jvm_option_refuses_attach(p[1]), 1);
	assert_int_equal(jvm_option_refuses_attach(p[2]), 0);
	assert_int_equal(jvm_option_refuses_attach(p[3]), 0);
	assert_int_equal(jvm_option_refuses_attach(p[4]), -EIO);
	assert_int_equal(jvm_option_refuses_attach(p[5]), 1);
	for (i = 0; i < 6; i++) {
		kill(-p[i], SIGKILL);
		waitpid(p[i], NULL, 0);
	}
	unlink("/tmp/test-jvm-opts.args");
	unlink("/tmp/test-jvm-opts.flags");
	unlink("/tmp/test-jvm-opts.vm");
}

static void test_option_set(void **state)
{
	char *a1[] = {S("sh"), S("-s"), S("--"), S("-XX:+PreserveFramePointer"), NULL};
	char *a2[] = {S("sh"), S("-s"), S("--"), S("-XX:+PreserveFramePointer"),
		      S("-XX:-PreserveFramePointer"), NULL};
	char *env[] = {S("JAVA_TOOL_OPTIONS=-Xmx1g -XX:+DisableAttachMechanism"),
		       S("_JAVA_OPTIONS=-XX:-PreserveFramePointer"), NULL};
	char *none[] = {NULL};
	pid_t p1 = spawn_with(a1, none), p2 = spawn_with(a2, none), p3 = spawn_with(a1, env);

	(void)state;
	assert_int_equal(jvm_option_set(p1, "-XX:+PreserveFramePointer"), 1);
	assert_int_equal(jvm_option_set(p1, "-XX:+PreserveFrame"), 0);
	assert_int_equal(jvm_option_set(p2, "-XX:+PreserveFramePointer"), 0);
	assert_int_equal(jvm_option_set(p3, "-XX:+DisableAttachMechanism"), 1);
	/* _JAVA_OPTIONS comes after the command line */
	assert_int_equal(jvm_option_set(p3, "-XX:+PreserveFramePointer"), 0);
	/* not JVMs: refused without a signal (they still run) */
	assert_int_equal(jvm_is_jvm(p1), 0);
	assert_int_equal(kill(p1, 0), 0);
	kill(-p1, SIGKILL);
	kill(-p2, SIGKILL);
	kill(-p3, SIGKILL);
	waitpid(p1, NULL, 0);
	waitpid(p2, NULL, 0);
	waitpid(p3, NULL, 0);
}

static void test_tid_map_self(void **state)
{
	struct jvm_tid_map m = {0};

	(void)state;
	/* Not in a pid namespace of our own: namespaced tid = tid. */
	assert_int_equal(jvm_tid_map_lookup(&m, getpid(), (uint32_t)getpid()), getpid());
	assert_int_equal(jvm_tid_map_lookup(&m, getpid(), 0x3ffffff0), 0);
	jvm_tid_map_release(&m);
}

static void test_interpreter_colour(void **state)
{
	uint32_t interp = svg_palette_color(SVG_PALETTE_JAVA, "Interpreter_[j]", 15);
	uint32_t jit = svg_palette_color(SVG_PALETTE_JAVA, "java.util.HashMap.get_[j]", 25);
	unsigned lum_i = (interp >> 16) + (interp >> 8 & 0xff) + (interp & 0xff);
	unsigned lum_j = (jit >> 16) + (jit >> 8 & 0xff) + (jit & 0xff);

	(void)state;
	/* Both greenish (green the largest part), the interpreter far paler. */
	assert_true((interp >> 8 & 0xff) >= (interp >> 16) && (jit >> 8 & 0xff) > (jit >> 16));
	assert_true(lum_i > lum_j + 120);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thread_dump_real),
		cmocka_unit_test(test_thread_dump_hostile),
		cmocka_unit_test(test_thread_dump_long_name),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_clean_names),
		cmocka_unit_test(test_full_names),
		cmocka_unit_test(test_not_a_jvm),
		cmocka_unit_test(test_option_set),
	    cmocka_unit_test(test_option_files),
		cmocka_unit_test(test_tid_map_self),
		cmocka_unit_test(test_interpreter_colour),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
