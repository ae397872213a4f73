/* test-perf-map.c: JIT symbol maps (/tmp/perf-PID.map): the parser on good,
 * odd and hostile lines, cut at every length; the ownership rule; finding
 * the map of a live process (this one) and under a root; and
 * symbolize_recording() naming frames in anonymous memory from it, flagged
 * as JIT, or refusing a map it must not trust, with a notice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/rec-writer.h"
#include "lib/recording.h"
#include "symbolize/perf-map.h"
#include "symbolize/symbolize.h"

static char tmpdir[] = "/tmp/test-perf-map.XXXXXX";
static char self_map[64]; /* /tmp/perf-<our pid>.map, removed at the end */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int group_setup(void **state)
{
	(void)state;
	snprintf(self_map, sizeof(self_map), "/tmp/perf-%d.map", (int)getpid());
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	unlink(self_map);
	return nftw(tmpdir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static struct perf_map *parse(const char *text)
{
	struct perf_map *m = perf_map__parse(text, strlen(text));

	assert_non_null(m);
	return m;
}

static void expect(const struct perf_map *m, uint64_t addr, const char *want, uint64_t want_off)
{
	const char *name = NULL;
	uint64_t off = 0;
	int found = perf_map__lookup(m, addr, &name, &off);

	if (!want) {
		if (found)
			fail_msg("0x%llx: expected nothing, got %s", (unsigned long long)addr, name);
		return;
	}
	if (!found)
		fail_msg("0x%llx: expected %s, got nothing", (unsigned long long)addr, want);
	assert_string_equal(name, want);
	assert_int_equal(off, want_off);
}

static void test_parse(void **state)
{
	struct perf_map *m;

	(void)state;
	m = parse("7f0000001000 100 LFoo;::bar\n"
		  "0x7f0000002000 0x40 Interpreter\r\n"
		  "\n"
		  "7F0000003000 10 java.lang.String::hashCode (Ljava/lang/String;)I\n"
		  "7f0000004000 0 zero-size\n"
		  "7f0000005000 10\n"
		  "7f0000006000 10 \n"
		  "garbage line\n"
		  "7f0000007000 zz bad size\n"
		  "ffffffffffffff00 1000 wraps\n"
		  "1ffffffffffffffff 10 too big\n"
		  "7f0000008000\t10 tab\n"
		  "7f0000009000 10 last-without-newline");
	assert_int_equal(perf_map__count(m), 4);
	assert_int_equal(perf_map__skipped(m), 8);
	expect(m, 0x7f0000001000, "LFoo;::bar", 0);
	expect(m, 0x7f00000010ff, "LFoo;::bar", 0xff);
	expect(m, 0x7f0000001100, NULL, 0);
	expect(m, 0x7f0000000fff, NULL, 0);
	expect(m, 0x7f0000002020, "Interpreter", 0x20);
	expect(m, 0x7f0000003004, "java.lang.String::hashCode (Ljava/lang/String;)I", 4);
	expect(m, 0x7f0000004000, NULL, 0);
	expect(m, 0x7f0000009000, "last-without-newline", 0);
	expect(m, 0, NULL, 0);
	expect(m, UINT64_MAX, NULL, 0);
	perf_map__free(m);

	m = parse("");
	assert_int_equal(perf_map__count(m), 0);
	expect(m, 0x1000, NULL, 0);
	perf_map__free(m);
}

/* Code caches reuse memory: of overlapping entries the later line wins. */
static void test_later_wins(void **state)
{
	struct perf_map *m;

	(void)state;
	m = parse("1000 100 old\n"
		  "2000 1000 big-old\n"
		  "1000 100 new\n"
		  "2400 100 inner-new\n"
		  "3000 10 a\n"
		  "3000 20 b\n");
	assert_int_equal(perf_map__count(m), 4); /* old and a replaced */
	expect(m, 0x1010, "new", 0x10);
	expect(m, 0x2010, "big-old", 0x10);
	expect(m, 0x2410, "inner-new", 0x10);
	expect(m, 0x2510, "big-old", 0x510);
	expect(m, 0x3018, "b", 0x18);
	perf_map__free(m);
	/* ...and an older entry inside a newer one does not win either. */
	m = parse("2400 100 inner-old\n2000 1000 big-new\n");
	expect(m, 0x2410, "big-new", 0x410);
	perf_map__free(m);
}

static void test_hostile(void **state)
{
	char *text, name[PERF_MAP_MAX_NAME + 100];
	struct perf_map *m;
	size_t len, i;

	(void)state;
	/* A very long name is cut. */
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	len = strlen(name) + 64;
	text = malloc(len);
	assert_non_null(text);
	snprintf(text, len, "1000 10 %s\n", name);
	m = parse(text);
	{
		const char *got;
		uint64_t off;

		assert_int_equal(perf_map__lookup(m, 0x1000, &got, &off), 1);
		assert_int_equal(strlen(got), PERF_MAP_MAX_NAME);
	}
	perf_map__free(m);
	free(text);
	/* A NUL inside a line: the line is skipped, the next one read. */
	{
		static const char nul[] = "1000 10 a\0b\n2000 10 ok\n";

		m = perf_map__parse(nul, sizeof(nul) - 1);
		assert_non_null(m);
		assert_int_equal(perf_map__count(m), 1);
		expect(m, 0x2000, "ok", 0);
		perf_map__free(m);
	}
	/* Every prefix of a map parses, and never finds more than it holds. */
	{
		static const char full[] = "0x7f0000001000 0x100 first one\n"
					   "7f0000002000 40 second\r\n"
					   "7f0000003000 8 third";

		for (i = 0; i <= sizeof(full) - 1; i++) {
			m = perf_map__parse(full, i);
			assert_non_null(m);
			assert_true(perf_map__count(m) <= 3);
			perf_map__free(m);
		}
	}
}

static void test_check(void **state)
{
	struct stat st;

	(void)state;
	memset(&st, 0, sizeof(st));
	st.st_mode = S_IFREG | 0644;
	st.st_uid = 0;
	assert_int_equal(perf_map__check(&st, 1000, (uid_t)-1), PERF_MAP_OK);
	st.st_uid = 1000;
	assert_int_equal(perf_map__check(&st, 1000, (uid_t)-1), PERF_MAP_OK);
	assert_int_equal(perf_map__check(&st, 0, (uid_t)-1), PERF_MAP_NOT_OWNED);
	assert_int_equal(perf_map__check(&st, 0, 1000), PERF_MAP_OK); /* the JVM's own user */
	assert_int_equal(perf_map__check(&st, 0, 1001), PERF_MAP_NOT_OWNED);
	st.st_mode = S_IFREG | 0666;
	assert_int_equal(perf_map__check(&st, 1000, (uid_t)-1), PERF_MAP_WRITABLE);
	st.st_mode = S_IFREG | 0664; /* group-writable: as umask 002 leaves it */
	assert_int_equal(perf_map__check(&st, 1000, (uid_t)-1), PERF_MAP_OK);
	st.st_mode = S_IFLNK | 0777;
	assert_int_equal(perf_map__check(&st, 1000, (uid_t)-1), PERF_MAP_NOT_REGULAR);
	st.st_mode = S_IFIFO | 0600;
	assert_int_equal(perf_map__check(&st, 1000, (uid_t)-1), PERF_MAP_NOT_REGULAR);
}

/* Under a root prefix: ROOT/tmp/perf-PID.map, checked on the open file. */
static void test_load_under_root(void **state)
{
	char root[256], dir[300], path[512], got[4096];
	struct perf_map *m;

	(void)state;
	snprintf(root, sizeof(root), "%s/root", tmpdir);
	snprintf(dir, sizeof(dir), "%s/tmp", root);
	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/perf-77.map", dir);

	assert_int_equal(perf_map__load_pid(77, root, &m, got, sizeof(got)), PERF_MAP_MISSING);
	assert_null(m);
	write_file(path, "1000 10 jitted\n", 0644);
	assert_int_equal(perf_map__load_pid(77, root, &m, got, sizeof(got)), PERF_MAP_OK);
	assert_string_equal(got, path);
	expect(m, 0x1008, "jitted", 8);
	perf_map__free(m);

	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(perf_map__load_pid(77, root, &m, got, sizeof(got)), PERF_MAP_WRITABLE);
	assert_null(m);
	assert_int_equal(chmod(path, 0644), 0);
	if (geteuid() == 0) {
		assert_int_equal(chown(path, 4242, 4242), 0);
		assert_int_equal(perf_map__load_pid(77, root, &m, got, sizeof(got)),
				 PERF_MAP_NOT_OWNED);
		assert_null(m);
		assert_int_equal(chown(path, 0, 0), 0);
	}
	/* A symlink is not followed, even to a good file. */
	{
		char link[512];

		snprintf(link, sizeof(link), "%s/perf-78.map", dir);
		assert_int_equal(symlink(path, link), 0);
		assert_int_equal(perf_map__load_pid(78, root, &m, got, sizeof(got)),
				 PERF_MAP_NOT_REGULAR);
		assert_null(m);
	}
	/* A directory. */
	snprintf(path, sizeof(path), "%s/perf-79.map", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(perf_map__load_pid(79, root, &m, got, sizeof(got)),
			 PERF_MAP_NOT_REGULAR);
}

/* A live process (this one): /proc/PID/root/tmp/perf-NSPID.map. */
static void test_load_live(void **state)
{
	char got[4096];
	struct perf_map *m;

	(void)state;
	assert_int_equal(perf_map__nspid((uint32_t)getpid()), (uint32_t)getpid());
	assert_int_equal(perf_map__nspid(0x7ffffff0), 0x7ffffff0); /* no such process */
	unlink(self_map);
	assert_int_equal(perf_map__load_pid((uint32_t)getpid(), NULL, &m, got, sizeof(got)),
			 PERF_MAP_MISSING);
	write_file(self_map, "0x5000 0x100 live_jit\n", 0644);
	assert_int_equal(perf_map__load_pid((uint32_t)getpid(), NULL, &m, got, sizeof(got)),
			 PERF_MAP_OK);
	expect(m, 0x50ff, "live_jit", 0xff);
	perf_map__free(m);
}

/* symbolize_recording(): frames in anonymous memory, and frames whose
 * mapping was never seen, named from the map and flagged as JIT. */
static void test_symbolize_jit(void **state)
{
	struct symbolize_stats st;
	struct rec_writer *w;
	struct rec_mapping mp = {.start = 0x5000, .end = 0x6000, .pid = (uint32_t)getpid()};
	struct recording r;
	char path[256], err[256];
	unsigned char *data;
	size_t size;
	uint32_t anon, f[4];

	(void)state;
	snprintf(path, sizeof(path), "%s/jit.rec", tmpdir);
	write_file(self_map, "0x5000 0x100 live_jit\n0x7000 0x10 other_jit\n", 0644);
	w = rec_writer__open(path);
	assert_non_null(w);
	assert_int_equal(rec_writer__string(w, "//anon", 6, &mp.path), 0);
	assert_int_equal(rec_writer__mapping(w, &mp, &anon), 0);
	assert_int_equal(rec_writer__frame(w, (uint32_t)getpid(), 0x5010, 0, anon, &f[0]), 0);
	assert_int_equal(rec_writer__frame(w, (uint32_t)getpid(), 0x5800, 0, anon, &f[1]), 0);
	assert_int_equal(rec_writer__frame(w, (uint32_t)getpid(), 0x7004, REC_FRAME_CALLER,
					   REC_NO_MAPPING, &f[2]), 0);
	assert_int_equal(rec_writer__frame(w, 0x7ffffff0, 0x5010, 0, REC_NO_MAPPING, &f[3]), 0);
	assert_int_equal(symbolize_recording(w, &(struct symbolize_opts){.kallsyms_path = "/dev/null"},
					     &st), 0);
	assert_int_equal(st.jit_resolved, 2);
	assert_int_equal(st.resolved, 2);
	assert_int_equal(st.unresolved, 2);
	assert_int_equal(st.perf_maps, 1);
	assert_int_equal(st.perf_maps_ignored, 0);
	assert_string_equal(st.notice, "");
	assert_int_equal(rec_writer__close(w), 0);

	assert_int_equal(read_whole_file(path, &data, &size), 0);
	assert_int_equal(recording__parse(&r, data, size, err, sizeof(err)), 0);
	assert_string_equal(recording__str(&r, r.symbols[f[0]].name), "live_jit");
	assert_int_equal(r.symbols[f[0]].offset, 0x10);
	assert_int_equal(r.symbols[f[0]].flags, REC_SYMBOL_JIT);
	assert_int_equal(r.symbols[f[1]].name, 0);
	assert_string_equal(recording__str(&r, r.symbols[f[2]].name), "other_jit");
	assert_int_equal(r.symbols[f[2]].flags, REC_SYMBOL_JIT);
	assert_int_equal(r.symbols[f[3]].name, 0);
	recording__release(&r);

	/* World-writable: refused, with a notice naming the file. */
	assert_int_equal(chmod(self_map, 0666), 0);
	w = rec_writer__open(path);
	assert_non_null(w);
	assert_int_equal(rec_writer__frame(w, (uint32_t)getpid(), 0x5010, 0, REC_NO_MAPPING, &f[0]),
			 0);
	assert_int_equal(symbolize_recording(w, NULL, &st), 0);
	assert_int_equal(st.resolved, 0);
	assert_int_equal(st.perf_maps, 0);
	assert_int_equal(st.perf_maps_ignored, 1);
	assert_non_null(strstr(st.notice, "writable by others"));
	assert_non_null(strstr(st.notice, "perf-"));
	rec_writer__abandon(w);
	unlink(self_map);
}

/* The caps: more than PERF_MAP_MAX_ENTRIES lines, or a file longer than
 * PERF_MAP_MAX_BYTES, is read only that far and says it was cut; read from
 * a file in pieces, a map parses as the same text in memory does (a line
 * longer than a piece too). */
static void test_caps(void **state)
{
	size_t n = PERF_MAP_MAX_ENTRIES + 10, len = 0, i;
	char *text = malloc(n * 16), *long_line;
	char root[256], dir[300], path[512], got[4096];
	struct perf_map *m;
	FILE *f;

	(void)state;
	assert_non_null(text);
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "%zx 1 f\n", i + 1);
	m = perf_map__parse(text, len);
	assert_non_null(m);
	assert_int_equal(perf_map__count(m), PERF_MAP_MAX_ENTRIES);
	assert_int_equal(perf_map__cut(m), len);
	perf_map__free(m);
	m = perf_map__parse(text, 6 * 1000);
	assert_int_equal(perf_map__cut(m), 0);
	perf_map__free(m);
	free(text);

	snprintf(root, sizeof(root), "%s/caps", tmpdir);
	snprintf(dir, sizeof(dir), "%s/tmp", root);
	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/perf-78.map", dir);
	/* A 100 KB line (longer than a read), then a good line. */
	long_line = malloc(100000 + 1);
	assert_non_null(long_line);
	memset(long_line, 'x', 100000);
	memcpy(long_line, "2000 10 ", 8);
	long_line[100000] = '\0';
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n3000 10 after_long\n4000 10 last_without_newline", long_line);
	assert_int_equal(fclose(f), 0);
	free(long_line);
	assert_int_equal(perf_map__load_pid(78, root, &m, got, sizeof(got)), PERF_MAP_OK);
	assert_int_equal(perf_map__count(m), 3);
	assert_int_equal(perf_map__cut(m), 0);
	{
		const char *name;
		uint64_t off;

		assert_int_equal(perf_map__lookup(m, 0x2000, &name, &off), 1);
		assert_int_equal(strlen(name), PERF_MAP_MAX_NAME);
	}
	expect(m, 0x3004, "after_long", 4);
	expect(m, 0x4000, "last_without_newline", 0);
	perf_map__free(m);

	/* Past PERF_MAP_MAX_BYTES (a sparse file: a hole, then a line): cut. */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("1000 10 first\n", f);
	assert_int_equal(fseeko(f, (off_t)PERF_MAP_MAX_BYTES + 100, SEEK_SET), 0);
	fputs("\n5000 10 past_the_cap\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(perf_map__load_pid(78, root, &m, got, sizeof(got)), PERF_MAP_OK);
	assert_true(perf_map__cut(m) > PERF_MAP_MAX_BYTES);
	expect(m, 0x1000, "first", 0);
	expect(m, 0x5000, NULL, 0);
	perf_map__free(m);
	unlink(path);
}

/* A map written before its process started is an earlier process's. */
static void test_stale(void **state)
{
	const int64_t s = 1000000000LL;
	struct stat st;

	(void)state;
	memset(&st, 0, sizeof(st));
	st.st_mtim.tv_sec = 1000;
	/* Started at 1000 s: written then, or after, is its own. */
	assert_int_equal(perf_map__stale(&st, 1000 * s, 5 * s), 0);
	assert_int_equal(perf_map__stale(&st, 990 * s, 5 * s), 0);
	/* Started 1 h after it was written: stale. */
	assert_int_equal(perf_map__stale(&st, 4600 * s, 5 * s), 1);
	/* Within the slack: 1 s, plus 0.1% of how long the process ran. */
	assert_int_equal(perf_map__stale(&st, 1000 * s + s / 2, 5 * s), 0);
	assert_int_equal(perf_map__stale(&st, 1002 * s, 5 * s), 1);
	assert_int_equal(perf_map__stale(&st, 1002 * s, 30 * 86400 * s), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_later_wins),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_load_under_root),
		cmocka_unit_test(test_load_live),
		cmocka_unit_test(test_symbolize_jit),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
