/* test-report.c: the profile model of report/: filters and how they
 * compose, thread pools, the top table with recursion, and a recording
 * written with lib/rec-writer.h read back into exact folded text. */
#include <errno.h>
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
#include "report/report.h"

static void load_folded(struct profile *p, const char *text)
{
	struct folded_stats st;

	assert_int_equal(profile__init(p), 0);
	assert_int_equal(profile__from_folded(p, text, strlen(text), &st), 0);
	assert_int_equal(st.malformed, 0);
}

static char *folded(struct profile *p, enum profile_thread_root root)
{
	struct folded_opts o = {.thread_root = root};
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(profile__write_folded(p, &o, f), 0);
	fclose(f);
	return out;
}

static void assert_folded(struct profile *p, enum profile_thread_root root, const char *want)
{
	char *out = folded(p, root);

	assert_string_equal(out, want);
	free(out);
}

/* ---- filters ---- */

static const char filter_input[] = "dw-1;main;work;slow_path 4\n"
				   "dw-1;main;work;fast_path 6\n"
				   "dw-2;main;idle 10\n"
				   "logger;main;write;slow_path 3\n"
				   "logger;main;Idle 2\n";

struct fspec {
	enum profile_filter_kind kind;
	const char *re;
};

static char *filtered(const struct fspec *specs, size_t n, int icase, uint64_t *total)
{
	struct profile p;
	struct profile_filter f;
	char err[128];
	char *out;
	size_t i;

	load_folded(&p, filter_input);
	assert_int_equal(profile_filter__init(&f, icase), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(profile_filter__add_regex(&f, specs[i].kind, specs[i].re, err,
							   sizeof(err)),
				 0);
	assert_int_equal(profile__filter(&p, &f), 0);
	out = folded(&p, PROFILE_ROOT_NONE);
	if (total)
		*total = p.total;
	profile_filter__release(&f);
	profile__release(&p);
	return out;
}

#define FILTERED(want, icase, ...)                                                          \
	do {                                                                               \
		const struct fspec specs_[] = {__VA_ARGS__};                               \
		char *out_ = filtered(specs_, sizeof(specs_) / sizeof(specs_[0]), icase, NULL); \
		assert_string_equal(out_, want);                                           \
		free(out_);                                                                \
	} while (0)

static void test_filter_include_exclude(void **state)
{
	uint64_t total;
	char *out;

	(void)state;
	/* Unanchored, like grep -E. */
	FILTERED("dw-1;main;work;slow_path 4\nlogger;main;write;slow_path 3\n", 0,
		 {PROFILE_INCLUDE, "slow"});
	/* Repeated --include: any. */
	FILTERED("dw-1;main;work;fast_path 6\ndw-1;main;work;slow_path 4\n"
		 "logger;main;write;slow_path 3\n",
		 0, {PROFILE_INCLUDE, "slow"}, {PROFILE_INCLUDE, "^fast_path$"});
	/* --exclude drops any stack with a matching frame. */
	FILTERED("dw-1;main;work;fast_path 6\ndw-1;main;work;slow_path 4\n"
		 "logger;main;Idle 2\nlogger;main;write;slow_path 3\n",
		 0, {PROFILE_EXCLUDE, "^idle$"});
	FILTERED("dw-1;main;work;fast_path 6\ndw-1;main;work;slow_path 4\n"
		 "logger;main;write;slow_path 3\n",
		 1, {PROFILE_EXCLUDE, "^idle$"});
	/* Compose: include and not exclude and thread (the root here). */
	FILTERED("dw-1;main;work;slow_path 4\n", 0, {PROFILE_INCLUDE, "slow_path"},
		 {PROFILE_EXCLUDE, "write"}, {PROFILE_THREAD, "^dw-"});
	FILTERED("dw-2;main;idle 10\nlogger;main;Idle 2\n", 1, {PROFILE_THREAD, "^dw-2$"},
		 {PROFILE_THREAD, "LOGGER"}, {PROFILE_INCLUDE, "idle"});
	/* Nothing left: empty output, total 0 (what --grep turns into exit 1). */
	{
		const struct fspec s[] = {{PROFILE_INCLUDE, "no_such_function"}};

		out = filtered(s, 1, 0, &total);
		assert_string_equal(out, "");
		assert_int_equal(total, 0);
		free(out);
	}
}

static void test_filter_bad_regex(void **state)
{
	struct profile_filter f;
	char err[128] = "";

	(void)state;
	assert_int_equal(profile_filter__init(&f, 0), 0);
	assert_int_equal(profile_filter__add_regex(&f, PROFILE_INCLUDE, "a(b", err, sizeof(err)),
			 -EINVAL);
	assert_true(strlen(err) > 0);
	assert_int_equal(profile_filter__active(&f), 0);
	profile_filter__release(&f);
}

static void test_filter_regex_once_per_name(void **state)
{
	struct profile p;
	struct profile_filter f;
	char err[64];
	size_t i, evaluated = 0;

	(void)state;
	/* Many lines, few names: the cache holds one verdict per name. */
	assert_int_equal(profile__init(&p), 0);
	for (i = 0; i < 1000; i++) {
		struct folded_stats st;
		const char *line = i % 2 ? "a;b;c 1\n" : "a;b;d 1\n";

		assert_int_equal(profile__from_folded(&p, line, strlen(line), &st), 0);
	}
	assert_int_equal(profile_filter__init(&f, 0), 0);
	assert_int_equal(profile_filter__add_regex(&f, PROFILE_EXCLUDE, "^d$", err, sizeof(err)), 0);
	assert_int_equal(profile__filter(&p, &f), 0);
	assert_int_equal(p.total, 500);
	for (i = 0; i < f.match[PROFILE_EXCLUDE].cache_cap; i++)
		evaluated += f.match[PROFILE_EXCLUDE].cache[i] >= 0;
	assert_true(evaluated <= 4); /* a, b, c, d */
	profile_filter__release(&f);
	profile__release(&p);
}

/* ---- top ---- */

static void test_top_recursion(void **state)
{
	struct profile p;
	struct profile_top t;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	load_folded(&p, "main;f;f;f 3\n"
			"main;f;g;f;g 2\n"
			"main;h 1\n"
			"main 4\n");
	assert_int_equal(profile__top(&p, &t), 0);
	assert_int_equal(t.samples, 10);
	assert_int_equal(t.nrows, 4);
	/* Self descending, then name; total counts a function once per stack. */
	assert_string_equal(profile__name(&p, t.rows[0].name), "main");
	assert_int_equal(t.rows[0].self, 4);
	assert_int_equal(t.rows[0].total, 10);
	assert_string_equal(profile__name(&p, t.rows[1].name), "f");
	assert_int_equal(t.rows[1].self, 3);
	assert_int_equal(t.rows[1].total, 5);
	assert_string_equal(profile__name(&p, t.rows[2].name), "g");
	assert_int_equal(t.rows[2].self, 2);
	assert_int_equal(t.rows[2].total, 2);
	assert_string_equal(profile__name(&p, t.rows[3].name), "h");
	assert_int_equal(t.rows[3].self, 1);
	assert_int_equal(t.rows[3].total, 1);

	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(profile_top__write(&p, &t, 2, f), 0);
	fclose(f);
	assert_string_equal(out, "  self%   total%        self       total  function\n"
				 " 40.00%  100.00%           4          10  main\n"
				 " 30.00%   50.00%           3           5  f\n");
	free(out);
	profile_top__release(&t);
	profile__release(&p);
}

static void test_top_ties_by_name(void **state)
{
	struct profile p;
	struct profile_top t;

	(void)state;
	load_folded(&p, "r;b 2\nr;a 2\nr;c 1\n");
	assert_int_equal(profile__top(&p, &t), 0);
	assert_int_equal(t.nrows, 4);
	assert_string_equal(profile__name(&p, t.rows[0].name), "a");
	assert_string_equal(profile__name(&p, t.rows[1].name), "b");
	assert_string_equal(profile__name(&p, t.rows[2].name), "c");
	assert_string_equal(profile__name(&p, t.rows[3].name), "r");
	assert_int_equal(t.rows[3].self, 0);
	assert_int_equal(t.rows[3].total, 5);
	profile_top__release(&t);
	profile__release(&p);
}

/* ---- a recording, end to end ---- */

struct rec_fixture {
	char path[64];
	struct recording r;
};

static uint32_t str(struct rec_writer *w, const char *s)
{
	uint32_t id;

	assert_int_equal(rec_writer__string(w, s, strlen(s), &id), 0);
	return id;
}

static uint32_t frame(struct rec_writer *w, uint32_t pid, uint64_t addr, uint32_t flags,
		      uint32_t mapping, const char *sym)
{
	uint32_t id;

	assert_int_equal(rec_writer__frame(w, pid, addr, flags, mapping, &id), 0);
	if (sym) {
		struct rec_symbol s = {.frame = id, .name = str(w, sym)};

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

/* Writes the test recording; `finish` = 0 leaves it without an END chunk. */
static void write_recording(const char *path, int finish)
{
	struct rec_writer *w = rec_writer__open(path);
	struct rec_mapping app = {.start = 0x400000, .end = 0x500000, .pgoff = 0x1000, .pid = 100};
	struct rec_mapping vdso = {.start = 0x7fff0000, .end = 0x7fff2000, .pid = 100};
	struct rec_mapping kernel = {.start = 0xffffffff81000000ULL,
				     .end = 0xffffffff82000000ULL,
				     .flags = REC_MAPPING_KERNEL};
	uint32_t m_app, m_vdso, m_kernel;
	uint32_t f_main, f_work, f_unres, f_leaf, f_leaf2, f_nomap, f_ksys, f_kunres, f_vdso;
	uint32_t s1, s2, s3, s4, s5;

	assert_non_null(w);
	assert_int_equal(rec_writer__meta(w, "cmdline", "app"), 0);
	app.path = str(w, "/usr/bin/app");
	vdso.path = str(w, "[vdso]");
	kernel.path = str(w, "[kernel.kallsyms]");
	assert_int_equal(rec_writer__mapping(w, &app, &m_app), 0);
	assert_int_equal(rec_writer__mapping(w, &vdso, &m_vdso), 0);
	assert_int_equal(rec_writer__mapping(w, &kernel, &m_kernel), 0);

	/* Threads: 12 is renamed at 500; 13 is named only after its sample;
	 * 99 is never named. */
	assert_int_equal(rec_writer__thread(w, REC_THREAD_START, 0, 100, 11, str(w, "main")), 0);
	assert_int_equal(rec_writer__thread(w, REC_THREAD_START, 0, 100, 12, str(w, "dw-1")), 0);
	assert_int_equal(rec_writer__thread(w, REC_THREAD_NAME, 500, 100, 12, str(w, "dw-renamed")),
			 0);
	assert_int_equal(rec_writer__thread(w, REC_THREAD_START, 1000, 100, 13, str(w, "dw-2")), 0);
	assert_int_equal(rec_writer__thread(w, REC_THREAD_EXIT, 2000, 100, 13, 0), 0);

	f_main = frame(w, 100, 0x401000, REC_FRAME_CALLER, m_app, "main");
	f_work = frame(w, 100, 0x402000, REC_FRAME_CALLER, m_app, "work;it\n");
	/* Unresolved caller frame: shown at the return address 0x403010,
	 * file offset 0x403010 - 0x400000 + 0x1000. */
	f_unres = frame(w, 100, 0x40300f, REC_FRAME_CALLER, m_app, NULL);
	f_leaf = frame(w, 100, 0x404000, 0, m_app, "leaf");
	f_leaf2 = frame(w, 100, 0x404010, 0, m_app, "leaf");
	f_nomap = frame(w, 100, 0x7000, 0, REC_NO_MAPPING, NULL);
	f_ksys = frame(w, 0, 0xffffffff81001000ULL, REC_FRAME_KERNEL | REC_FRAME_CALLER, m_kernel,
		       "do_syscall_64");
	f_kunres = frame(w, 0, 0xffffffff81abc000ULL, REC_FRAME_KERNEL, REC_NO_MAPPING, NULL);
	f_vdso = frame(w, 100, 0x7fff0010, 0, m_vdso, NULL);

	s1 = stack(w, (uint32_t[]){f_main, f_work, f_leaf}, 3);
	s2 = stack(w, (uint32_t[]){f_main, f_work, f_unres, f_nomap}, 4);
	s3 = stack(w, (uint32_t[]){f_main, f_ksys, f_kunres}, 3);
	s4 = stack(w, (uint32_t[]){f_main, f_vdso}, 2);
	s5 = stack(w, (uint32_t[]){f_main, f_work, f_leaf2}, 3); /* same text as s1 */

	assert_int_equal(rec_writer__sample(w, 100, 11, s1, 0, 0, 0), 0);
	assert_int_equal(rec_writer__sample(w, 200, 11, s1, 1, 0, 0), 0);
	assert_int_equal(rec_writer__sample(w, 300, 11, s3, 0, 0, 0), 0);
	assert_int_equal(rec_writer__sample(w, 400, 11, s1, 0, 0, REC_SAMPLE_TRUNCATED), 0);
	assert_int_equal(rec_writer__sample(w, 500, 11, 0, 0, 0, 0), 0);
	assert_int_equal(rec_writer__sample(w, 100, 12, s1, 0, 0, 0), 0);
	assert_int_equal(rec_writer__sample(w, 500, 12, s1, 0, 0, 0), 0); /* at the rename */
	assert_int_equal(rec_writer__sample(w, 700, 12, s5, 0, 0, 0), 0);
	assert_int_equal(rec_writer__sample(w, 50, 13, s2, 0, 0, 0), 0);
	assert_int_equal(rec_writer__sample(w, 100, 99, s4, 0, 0, 0), 0);
	assert_int_equal(rec_writer__flush(w), 0);
	if (finish) {
		assert_int_equal(rec_writer__close(w), 0);
	} else {
		rec_writer__abandon(w);
	}
}

static void load_recording(struct rec_fixture *fx, int finish)
{
	unsigned char *data;
	size_t size;
	char err[256] = "";
	int fd;

	strcpy(fx->path, "/tmp/test-report-XXXXXX");
	fd = mkstemp(fx->path);
	assert_true(fd >= 0);
	close(fd);
	write_recording(fx->path, finish);
	assert_int_equal(read_whole_file(fx->path, &data, &size), 0);
	assert_true(recording_is_recording(data, size));
	assert_int_equal(recording__parse(&fx->r, data, size, err, sizeof(err)), 0);
	assert_int_equal(fx->r.complete, finish);
	assert_int_equal(fx->r.nsamples, 10);
}

static void unload_recording(struct rec_fixture *fx)
{
	recording__release(&fx->r);
	unlink(fx->path);
}

static void build(struct profile *p, const struct recording *r, enum profile_by by)
{
	struct profile_build_opts o = {.by = by};

	assert_int_equal(profile__init(p), 0);
	assert_int_equal(profile__from_recording(p, r, &o), 0);
}

static const char want_plain[] =
	"[no-stack] 1\n"
	"[truncated];main;work:it?;leaf 1\n"
	"main;[vdso+0x10] 1\n"
	"main;do_syscall_64_[k];[kernel.kallsyms+0xffffffff81abc000]_[k] 1\n"
	"main;work:it?;[app+0x4010];[unknown+0x7000] 1\n"
	"main;work:it?;leaf 5\n";

static void test_recording_plain(void **state)
{
	struct rec_fixture fx;
	struct profile p;

	(void)state;
	load_recording(&fx, 1);
	build(&p, &fx.r, PROFILE_BY_STACK);
	assert_int_equal(p.total, 10);
	assert_int_equal(p.has_threads, 0);
	assert_folded(&p, PROFILE_ROOT_NONE, want_plain);
	/* Thread roots are ignored without threads in the profile. */
	assert_folded(&p, PROFILE_ROOT_NAME, want_plain);
	profile__release(&p);
	/* By thread, without roots: the same text. */
	build(&p, &fx.r, PROFILE_BY_THREAD);
	assert_folded(&p, PROFILE_ROOT_NONE, want_plain);
	profile__release(&p);
	unload_recording(&fx);
}

static void test_recording_threads(void **state)
{
	struct rec_fixture fx;
	struct profile p;

	(void)state;
	load_recording(&fx, 1);
	build(&p, &fx.r, PROFILE_BY_THREAD);
	assert_int_equal(p.has_threads, 1);
	assert_folded(&p, PROFILE_ROOT_NAME,
		      "99;main;[vdso+0x10] 1\n"
		      "dw-1;main;work:it?;leaf 1\n"
		      "dw-2;main;work:it?;[app+0x4010];[unknown+0x7000] 1\n"
		      "dw-renamed;main;work:it?;leaf 2\n"
		      "main;[no-stack] 1\n"
		      "main;[truncated];main;work:it?;leaf 1\n"
		      "main;main;do_syscall_64_[k];[kernel.kallsyms+0xffffffff81abc000]_[k] 1\n"
		      "main;main;work:it?;leaf 2\n");
	assert_folded(&p, PROFILE_ROOT_NAME_TID,
		      "99/99;main;[vdso+0x10] 1\n"
		      "dw-1/12;main;work:it?;leaf 1\n"
		      "dw-2/13;main;work:it?;[app+0x4010];[unknown+0x7000] 1\n"
		      "dw-renamed/12;main;work:it?;leaf 2\n"
		      "main/11;[no-stack] 1\n"
		      "main/11;[truncated];main;work:it?;leaf 1\n"
		      "main/11;main;do_syscall_64_[k];[kernel.kallsyms+0xffffffff81abc000]_[k] 1\n"
		      "main/11;main;work:it?;leaf 2\n");
	assert_int_equal(profile__merge_pools(&p), 0);
	assert_folded(&p, PROFILE_ROOT_NAME,
		      "*;main;[vdso+0x10] 1\n"
		      "dw-*;main;work:it?;[app+0x4010];[unknown+0x7000] 1\n"
		      "dw-*;main;work:it?;leaf 1\n"
		      "dw-renamed;main;work:it?;leaf 2\n"
		      "main;[no-stack] 1\n"
		      "main;[truncated];main;work:it?;leaf 1\n"
		      "main;main;do_syscall_64_[k];[kernel.kallsyms+0xffffffff81abc000]_[k] 1\n"
		      "main;main;work:it?;leaf 2\n");
	profile__release(&p);
	unload_recording(&fx);
}

/* In time order (time-order.c): lanes by first sample (tid 13's, written
 * last, came first; ties by tid), a line per run of one stack in each, a
 * rename splitting a run; the writer merges neighbours with the same text
 * (s1 and s5). */
static void test_recording_time_order(void **state)
{
	struct profile_build_opts o = {.time_order = 1};
	struct folded_opts fo = {.thread_root = PROFILE_ROOT_NAME};
	struct rec_fixture fx;
	struct profile p;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	load_recording(&fx, 1);
	assert_int_equal(profile__init(&p), 0);
	assert_int_equal(profile__from_recording(&p, &fx.r, &o), 0);
	assert_int_equal(p.has_threads, 1);
	assert_int_equal(p.nentries, 9);
	assert_int_equal(p.total, 10);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(profile__write_chart(&p, &fo, f), 0);
	fclose(f);
	assert_string_equal(out, "dw-2;main;work:it?;[app+0x4010];[unknown+0x7000] 1\n"
				 "main;main;work:it?;leaf 2\n"
				 "main;main;do_syscall_64_[k];[kernel.kallsyms+0xffffffff81abc000]_[k] 1\n"
				 "main;[truncated];main;work:it?;leaf 1\n"
				 "main;[no-stack] 1\n"
				 "dw-1;main;work:it?;leaf 1\n"
				 "dw-renamed;main;work:it?;leaf 2\n"
				 "99;main;[vdso+0x10] 1\n");
	free(out);
	profile__release(&p);
	/* CPU samples only. */
	o.weight = PROFILE_WEIGHT_OFF_CPU;
	assert_int_equal(profile__init(&p), 0);
	assert_int_equal(profile__from_recording(&p, &fx.r, &o), -EINVAL);
	profile__release(&p);
	unload_recording(&fx);
}

static void test_recording_filters(void **state)
{
	struct rec_fixture fx;
	struct profile p;
	struct profile_filter f;
	char err[64];
	size_t i;

	(void)state;
	load_recording(&fx, 1);

	/* --pid: tid 99 was never seen starting, so its pid is unknown (0). */
	build(&p, &fx.r, PROFILE_BY_THREAD);
	assert_int_equal(profile_filter__init(&f, 0), 0);
	assert_int_equal(profile_filter__add_pid(&f, 100), 0);
	assert_int_equal(profile__filter(&p, &f), 0);
	assert_int_equal(p.total, 9);
	profile_filter__release(&f);
	profile__release(&p);

	/* --tid 12 --tid 13 --exclude '\[unknown' */
	build(&p, &fx.r, PROFILE_BY_THREAD);
	assert_int_equal(profile_filter__init(&f, 0), 0);
	assert_int_equal(profile_filter__add_tid(&f, 12), 0);
	assert_int_equal(profile_filter__add_tid(&f, 13), 0);
	assert_int_equal(profile_filter__add_regex(&f, PROFILE_EXCLUDE, "\\[unknown", err,
						   sizeof(err)),
			 0);
	assert_int_equal(profile__filter(&p, &f), 0);
	assert_folded(&p, PROFILE_ROOT_NAME,
		      "dw-1;main;work:it?;leaf 1\ndw-renamed;main;work:it?;leaf 2\n");
	for (i = 0; i < p.nentries; i++)
		assert_int_equal(p.entries[i].pid, 100);
	profile_filter__release(&f);
	profile__release(&p);

	/* --thread matches the name the thread had at the sample. */
	build(&p, &fx.r, PROFILE_BY_THREAD);
	assert_int_equal(profile_filter__init(&f, 0), 0);
	assert_int_equal(profile_filter__add_regex(&f, PROFILE_THREAD, "renamed|^9", err,
						   sizeof(err)),
			 0);
	assert_int_equal(profile__filter(&p, &f), 0);
	assert_folded(&p, PROFILE_ROOT_NONE, "main;[vdso+0x10] 1\nmain;work:it?;leaf 2\n");
	profile_filter__release(&f);
	profile__release(&p);

	/* --include on a kernel frame, top of what is left. */
	build(&p, &fx.r, PROFILE_BY_STACK);
	assert_int_equal(profile_filter__init(&f, 0), 0);
	assert_int_equal(profile_filter__add_regex(&f, PROFILE_INCLUDE, "_\\[k\\]$", err,
						   sizeof(err)),
			 0);
	assert_int_equal(profile__filter(&p, &f), 0);
	assert_int_equal(p.total, 1);
	profile_filter__release(&f);
	profile__release(&p);
	unload_recording(&fx);
}

static void test_recording_incomplete(void **state)
{
	struct rec_fixture fx;
	struct profile p;

	(void)state;
	load_recording(&fx, 0);
	assert_true(fx.r.cut_at > 0);
	build(&p, &fx.r, PROFILE_BY_STACK);
	assert_folded(&p, PROFILE_ROOT_NONE, want_plain);
	profile__release(&p);
	unload_recording(&fx);
}

static void test_recording_empty(void **state)
{
	struct recording r;
	struct profile p;
	struct rec_writer *w;
	unsigned char *data;
	size_t size;
	char path[] = "/tmp/test-report-XXXXXX", err[128];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	w = rec_writer__open(path);
	assert_non_null(w);
	assert_int_equal(rec_writer__close(w), 0);
	assert_int_equal(read_whole_file(path, &data, &size), 0);
	assert_int_equal(recording__parse(&r, data, size, err, sizeof(err)), 0);
	build(&p, &r, PROFILE_BY_THREAD);
	assert_int_equal(p.total, 0);
	assert_folded(&p, PROFILE_ROOT_NAME, "");
	profile__release(&p);
	recording__release(&r);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_include_exclude),
		cmocka_unit_test(test_filter_bad_regex),
		cmocka_unit_test(test_filter_regex_once_per_name),
		cmocka_unit_test(test_top_recursion),
		cmocka_unit_test(test_top_ties_by_name),
		cmocka_unit_test(test_recording_plain),
		cmocka_unit_test(test_recording_threads),
		cmocka_unit_test(test_recording_time_order),
		cmocka_unit_test(test_recording_filters),
		cmocka_unit_test(test_recording_incomplete),
		cmocka_unit_test(test_recording_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
