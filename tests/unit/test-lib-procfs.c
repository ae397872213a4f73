/* test-lib-procfs.c: unit tests of lib/procfs.c, the one reader of
 * /proc/PID files: status fields from hostile text (forged lines in a
 * name, overlong lines, NUL bytes, missing fields), bounded reads, maps
 * lines, the start time after a name holding ')', and the live files of
 * this test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "lib/procfs.h"

/* status text with the defaults procfs_status() would set for pid 100. */
static struct procfs_status parse(const char *text, size_t len)
{
	struct procfs_status st = {.tgid = 100, .nspid = 100};

	procfs_status_parse(text, len, &st);
	return st;
}

#define PARSE(lit) parse(lit, sizeof(lit) - 1)

static void test_status_fields(void **state)
{
	struct procfs_status st = PARSE("Name:\tjava\nUmask:\t0022\nState:\tS (sleeping)\n"
					"Tgid:\t4242\nPid:\t4243\nUid:\t1000\t1001\t1002\t1003\n"
					"Gid:\t50\t51\t52\t53\nNStgid:\t4242\t7\n"
					"NSpid:\t4243\t12\t8\nSigCgt:\t0000000000000004\n");

	(void)state;
	assert_int_equal(st.tgid, 4242);
	assert_int_equal(st.nspid, 8); /* the innermost namespace's */
	assert_int_equal(st.euid, 1001);
	assert_int_equal(st.egid, 51);
	assert_int_equal(st.sigcgt, 4); /* SIGQUIT caught */
	assert_int_equal(st.have, PROCFS_HAVE_TGID | PROCFS_HAVE_UID | PROCFS_HAVE_GID |
					  PROCFS_HAVE_SIGCGT | PROCFS_HAVE_NSPID);
}

static void test_status_missing_fields(void **state)
{
	struct procfs_status st;

	(void)state;
	st = PARSE("Name:\tx\nState:\tR\n");
	assert_int_equal(st.have, 0);
	assert_int_equal(st.tgid, 100);
	assert_int_equal(st.nspid, 100);
	st = PARSE("");
	assert_int_equal(st.have, 0);
	/* keys without (valid) values keep the defaults */
	st = PARSE("Tgid:\nUid:\t5\nGid:\nSigCgt:\tzz\nNSpid:\t\nTgid:\t-3\nTgid:\t0\n");
	assert_int_equal(st.tgid, 100);
	assert_int_equal(st.nspid, 100);
	assert_int_equal(st.have, 0);
	/* the last line without its newline still counts */
	st = PARSE("Tgid:\t77");
	assert_int_equal(st.tgid, 77);
	/* 0 and numbers past 32 bits are not pids */
	st = PARSE("NSpid:\t55\t0\t99999999999\n");
	assert_int_equal(st.nspid, 55);
}

/* The kernel escapes a newline in Name:, but a parser must not trust that:
 * forged lines come before the kernel's own, and the last one wins. */
static void test_status_forged_name(void **state)
{
	struct procfs_status st;

	(void)state;
	st = PARSE("Name:\tevil\nNSpid:\t1\nTgid:\t1\nUid:\t0\t0\n"
		   "Tgid:\t300\nUid:\t1000\t1000\t1000\t1000\nNSpid:\t300\t9\n");
	assert_int_equal(st.nspid, 9);
	assert_int_equal(st.tgid, 300);
	assert_int_equal(st.euid, 1000);
	/* a forged key inside a line is not at its start */
	st = PARSE("Name:\tx NSpid:\t1 Tgid:\t1\n");
	assert_int_equal(st.have, 0);
}

static void test_status_nul_bytes(void **state)
{
	struct procfs_status st;

	(void)state;
	/* a NUL ends its line early; the next line is read as usual */
	st = PARSE("Tgid:\t12\0" "99\nNSp\0id:\t4\nNSpid:\t5\0\t6\n");
	assert_int_equal(st.tgid, 12);
	assert_int_equal(st.nspid, 5);
	st = PARSE("\0\0\0\nTgid:\t8\n\0");
	assert_int_equal(st.tgid, 8);
}

static void test_status_long_lines(void **state)
{
	size_t pad = 3 * PROCFS_LINE_MAX, n;
	char *text = malloc(pad + 256);
	struct procfs_status st = {.tgid = 100, .nspid = 100};

	(void)state;
	assert_non_null(text);
	/* a long Groups: line, then the fields */
	n = (size_t)sprintf(text, "Groups:\t");
	memset(text + n, '1', pad);
	n += pad;
	n += (size_t)sprintf(text + n, "\nNSpid:\t77\t3\n");
	procfs_status_parse(text, n, &st);
	assert_int_equal(st.nspid, 3);

	/* an overlong line is skipped whole: what lies past any cut of it
	 * (at 511, 1023, 4095 bytes: fgets' and read's sizes) is not a line */
	st.nspid = 100;
	st.have = 0;
	n = (size_t)sprintf(text, "Name:\t");
	memset(text + n, 'x', pad);
	memcpy(text + 511, "NSpid:\t1", 8);
	memcpy(text + 1023, "NSpid:\t1", 8);
	n += pad;
	n += (size_t)sprintf(text + n, "NSpid:\t1\n");
	procfs_status_parse(text, n, &st);
	assert_int_equal(st.nspid, 100);
	assert_int_equal(st.have, 0);

	/* a line of exactly PROCFS_LINE_MAX - 1 bytes is still read */
	memset(text, ' ', PROCFS_LINE_MAX);
	memcpy(text, "NSpid:", 6);
	memcpy(text + PROCFS_LINE_MAX - 3, "42", 2);
	text[PROCFS_LINE_MAX - 1] = '\n';
	procfs_status_parse(text, PROCFS_LINE_MAX, &st);
	assert_int_equal(st.nspid, 42);
	/* one byte more, and it is not */
	st.nspid = 100;
	memset(text, ' ', PROCFS_LINE_MAX + 1);
	memcpy(text, "NSpid:", 6);
	memcpy(text + PROCFS_LINE_MAX - 2, "42", 2);
	text[PROCFS_LINE_MAX] = '\n';
	procfs_status_parse(text, PROCFS_LINE_MAX + 1, &st);
	assert_int_equal(st.nspid, 100);
	free(text);
}

static void test_read_bounded(void **state)
{
	char path[] = "/tmp/test-procfs-XXXXXX", data[10000], *buf;
	int fd = mkstemp(path);
	size_t len, i;

	(void)state;
	assert_true(fd >= 0);
	for (i = 0; i < sizeof(data); i++)
		data[i] = (char)(i % 7 ? 'a' + i % 26 : 0); /* NULs in it */
	assert_int_equal(write(fd, data, sizeof(data)), (ssize_t)sizeof(data));
	close(fd);

	assert_int_equal(procfs_read(path, 100, &buf, &len), 0);
	assert_int_equal(len, 100);
	assert_memory_equal(buf, data, 100);
	assert_int_equal(buf[100], '\0');
	free(buf);
	assert_int_equal(procfs_read(path, 1 << 20, &buf, &len), 0);
	assert_int_equal(len, sizeof(data));
	assert_memory_equal(buf, data, sizeof(data));
	assert_int_equal(buf[len], '\0');
	free(buf);
	assert_int_equal(procfs_read(path, 0, &buf, &len), 0);
	assert_int_equal(len, 0);
	assert_int_equal(buf[0], '\0');
	free(buf);
	unlink(path);
	assert_int_equal(procfs_read(path, 100, &buf, &len), -ENOENT);
	assert_null(buf);
	assert_int_equal(len, 0);
}

static void test_parse_map(void **state)
{
	static struct procfs_map m;
	char *line = malloc(sizeof(m.path) + 200);
	size_t n;

	(void)state;
	assert_non_null(line);
	assert_int_equal(procfs_parse_map("7f10a0000000-7f10a0021000 r-xp 00002000 08:01 1234"
					  "                       /opt/a b/libjvm.so (deleted)\n",
					  &m),
			 0);
	assert_int_equal(m.start, 0x7f10a0000000);
	assert_int_equal(m.end, 0x7f10a0021000);
	assert_int_equal(m.pgoff, 0x2000);
	assert_string_equal(m.perms, "r-xp");
	assert_string_equal(m.path, "/opt/a b/libjvm.so (deleted)");
	assert_int_equal(procfs_parse_map("00400000-00401000 rw-p 00000000 00:00 0 \n", &m), 0);
	assert_string_equal(m.path, ""); /* anonymous */
	assert_int_equal(procfs_parse_map("7ffd1000-7ffd3000 r-xp 00000000 00:00 0  [vdso]", &m),
			 0);
	assert_string_equal(m.path, "[vdso]");
	assert_int_equal(procfs_parse_map("not a maps line", &m), -EINVAL);
	assert_int_equal(procfs_parse_map("1000-2000 r-xp", &m), -EINVAL);
	assert_int_equal(procfs_parse_map("", &m), -EINVAL);
	/* a path longer than the buffer is cut, never overrun */
	n = (size_t)sprintf(line, "1000-2000 r-xp 00000000 08:01 1 /");
	memset(line + n, 'p', sizeof(m.path) + 100);
	line[n + sizeof(m.path) + 100] = '\0';
	assert_int_equal(procfs_parse_map(line, &m), 0);
	assert_int_equal(strlen(m.path), sizeof(m.path) - 1);
	free(line);
}

static int count_exec(void *ctx, const struct procfs_map *m)
{
	if (m->perms[2] == 'x')
		++*(int *)ctx;
	return 0;
}

static int stop_at_first(void *ctx, const struct procfs_map *m)
{
	(void)m;
	++*(int *)ctx;
	return 7;
}

static void test_each_map(void **state)
{
	int n = 0;

	(void)state;
	assert_int_equal(procfs_each_map(getpid(), count_exec, &n), 0);
	assert_true(n > 0); /* this test's own code */
	n = 0;
	assert_int_equal(procfs_each_map(getpid(), stop_at_first, &n), 7);
	assert_int_equal(n, 1);
	assert_int_equal(procfs_each_map(0x3ffffff0, count_exec, &n), -ESRCH);
}

static void test_stat_start(void **state)
{
	unsigned long long t = 0;

	(void)state;
	assert_int_equal(procfs_stat_start("42 (java) S 1 42 42 0 -1 4194560 100 0 0 0 5 3 0 0 "
					   "20 0 9 0 123456 1000 200 ...",
					   &t),
			 0);
	assert_int_equal(t, 123456);
	/* a name holding ") " and numbers: counted from the last ')' */
	assert_int_equal(procfs_stat_start("42 () 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 "
					   "18 19 20 21) S 1 42 42 0 -1 4194560 100 0 0 0 5 3 "
					   "0 0 20 0 9 0 654321 1000",
					   &t),
			 0);
	assert_int_equal(t, 654321);
	assert_int_equal(procfs_stat_start("42 (x) S 1 2 3", &t), -EIO);
	assert_int_equal(procfs_stat_start("no parenthesis at all", &t), -EIO);
	assert_int_equal(procfs_stat_start("", &t), -EIO);
}

static void test_live_process(void **state)
{
	struct procfs_status st;
	unsigned long long t;
	pid_t *tids, me = getpid();
	size_t n, i;
	int found = 0;

	(void)state;
	assert_int_equal(procfs_status(me, 0, &st), 0);
	assert_int_equal(st.tgid, me);
	assert_int_equal(st.nspid, (uint32_t)me); /* /proc is this namespace's */
	assert_int_equal(st.euid, geteuid());
	assert_int_equal(st.egid, getegid());
	assert_int_equal(procfs_status(me, me, &st), 0);
	assert_int_equal(st.tgid, me);
	assert_int_equal(procfs_status(0x3ffffff0, 0, &st), -ESRCH);
	assert_int_equal(st.tgid, 0x3ffffff0);
	assert_int_equal(st.nspid, 0x3ffffff0);
	assert_int_equal(procfs_status(me, 0x3ffffff0, &st), -ESRCH);
	assert_int_equal(st.nspid, 0x3ffffff0);

	assert_int_equal(procfs_list_tids(me, &tids, &n), 0);
	for (i = 0; i < n; i++)
		found |= tids[i] == me;
	assert_true(found);
	free(tids);
	assert_int_equal(procfs_list_tids(0x3ffffff0, &tids, &n), -ESRCH);
	assert_null(tids);
	assert_int_equal(n, 0);

	assert_int_equal(procfs_start_ticks(me, &t), 0);
	assert_int_equal(procfs_start_ticks(0x3ffffff0, &t), -ESRCH);
}

/* The owner of a thread picks its name: newlines and all. */
static void test_thread_name(void **state)
{
	char old[17] = "", buf[64];
	struct procfs_status st;
	pid_t me = getpid();

	(void)state;
	assert_int_equal(prctl(PR_GET_NAME, old), 0);
	assert_int_equal(prctl(PR_SET_NAME, "ab\nNSpid:\t1\n"), 0);
	assert_int_equal(procfs_thread_name(me, me, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "ab\nNSpid:\t1"); /* only the trailing newline goes */
	assert_int_equal(procfs_status(me, me, &st), 0);
	assert_int_equal(st.nspid, (uint32_t)me);
	assert_int_equal(procfs_thread_name(me, me, buf, 3), 0);
	assert_string_equal(buf, "ab"); /* cut at len - 1 */
	assert_int_equal(procfs_thread_name(me, 0x3ffffff0, buf, sizeof(buf)), -ENOENT);
	prctl(PR_SET_NAME, old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_fields),
		cmocka_unit_test(test_status_missing_fields),
		cmocka_unit_test(test_status_forged_name),
		cmocka_unit_test(test_status_nul_bytes),
		cmocka_unit_test(test_status_long_lines),
		cmocka_unit_test(test_read_bounded),
		cmocka_unit_test(test_parse_map),
		cmocka_unit_test(test_each_map),
		cmocka_unit_test(test_stat_start),
		cmocka_unit_test(test_live_process),
		cmocka_unit_test(test_thread_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
