/* input-many.c: several recordings as one input, or one cut to a time
 * range (see report-cli.h): -i given more than once, -i DIR (its *.data
 * recordings, such as `prof record --rotate` writes), --since and --until.
 * The recordings are read once to learn their starts (and which read at
 * all), sorted by start, then read again one at a time, merged and cut
 * (lib/rec-merge.h) into a recording the rest of input.c reads as if it
 * were the input: one input file in memory at a time, whatever their
 * number. A corrupt file among several is skipped with a warning.
 * Like input.c, it prints its errors and returns exit statuses. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/cli.h"
#include "lib/grow.h"
#include "lib/rec-merge.h"
#include "lib/recording.h"
#include "report/report-cli.h"
#include "report/time-arg.h"

/* Bounds what one command reads: a day of one-minute files is 1440. */
#define MANY_MAX_FILES 100000

/* A recording that read well in the first pass. */
struct many_file {
	const char *path;
	uint64_t mono, wall;  /* its start (rec_merge__start_*) */
	uint64_t first, last; /* its samples' times (first > last: none) */
};

struct many {
	char **paths;
	size_t npaths, paths_cap;
	struct many_file *files;
	size_t nfiles, files_cap;
};

static int is_dir(const char *path)
{
	struct stat st;

	return strcmp(path, "-") && !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int add_path(struct many *m, const char *dir, const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *p;

	if (m->npaths >= MANY_MAX_FILES)
		return -E2BIG;
	if (GROW(m->paths, m->paths_cap, m->npaths + 1) || !(p = malloc(len)))
		return -ENOMEM;
	snprintf(p, len, "%s%s%s", dir, *dir ? "/" : "", name);
	m->paths[m->npaths++] = p;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's regular *.data files (not symlinks, not dot files), by name. */
static int list_dir(struct many *m, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t first = m->npaths;
	int err = 0;

	if (!d)
		return -errno;
	while (!err && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct stat st;

		if (e->d_name[0] == '.' || len < 6 || strcmp(e->d_name + len - 5, ".data"))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		err = add_path(m, dir, e->d_name);
	}
	closedir(d);
	if (!err && m->npaths > first)
		qsort(m->paths + first, m->npaths - first, sizeof(*m->paths), by_name);
	return err;
}

/* Reads and parses path into r (RAW chunks processed when `replay`); 1
 * when skipped (warned), 0, or an exit status. */
static int read_one(const char *path, struct recording *r, recording_replay_fn replay)
{
	unsigned char *data;
	size_t size;
	char shown[PROFILE_SHOWN_MAX], msg[512];
	uint64_t samples = 0;
	int err;

	profile_input_name(shown, sizeof(shown), path);
	err = read_whole_file(path, &data, &size);
	if (err) {
		cli_warn("skipped %s: %s", shown, strerror(-err));
		return 1;
	}
	if (!recording_is_recording(data, size)) {
		free(data);
		cli_warn("skipped %s: not a recording", shown);
		return 1;
	}
	err = recording__parse(r, data, size, msg, sizeof(msg));
	if (!err && r->nraw && replay)
		err = recording__replay(r, replay, &samples, msg, sizeof(msg));
	if (err) {
		recording__release(r);
		if (err == -ENOMEM) {
			cli_error("out of memory reading %s", shown);
			return EXIT_FAIL;
		}
		cli_warn("skipped %s: it is corrupt: %s", shown, msg);
		return 1;
	}
	if (!r->complete && !replay)
		cli_warn("%s is incomplete (its recorder stopped at byte %zu before finishing); "
			 "reading what it holds",
			 shown, r->cut_at);
	return 0;
}

/* The first pass: which files read, their starts and sample times; one
 * file in memory at a time. 0 or an exit status. */
static int survey(struct many *m)
{
	for (size_t i = 0; i < m->npaths; i++) {
		struct recording r;
		struct many_file f = {.path = m->paths[i], .first = UINT64_MAX};
		int rc;

		memset(&r, 0, sizeof(r));
		rc = read_one(m->paths[i], &r, NULL);
		if (rc == 1)
			continue;
		if (rc)
			return rc;
		f.mono = rec_merge__start_mono(&r);
		f.wall = rec_merge__start_wall(&r);
		for (size_t k = 0; k < r.nsamples; k++) {
			f.first = r.samples[k].time < f.first ? r.samples[k].time : f.first;
			f.last = r.samples[k].time > f.last ? r.samples[k].time : f.last;
		}
		recording__release(&r);
		if (GROW(m->files, m->files_cap, m->nfiles + 1)) {
			cli_error("out of memory");
			return EXIT_FAIL;
		}
		m->files[m->nfiles++] = f;
	}
	return 0;
}

static int by_start(const void *a, const void *b)
{
	uint64_t x = ((const struct many_file *)a)->mono, y = ((const struct many_file *)b)->mono;

	return x < y ? -1 : x > y;
}

static void many_release(struct many *m)
{
	for (size_t i = 0; i < m->npaths; i++)
		free(m->paths[i]);
	free(m->paths);
	free(m->files);
}

/* --since / --until of in against the earliest recording. */
static int parse_range(struct profile_input *in, const struct many_file *first, uint64_t *since,
		       uint64_t *until)
{
	uint64_t mono = first->mono, wall = first->wall;
	const char *arg[2] = {in->since, in->until};
	uint64_t *out[2] = {since, until};

	for (int k = 0; k < 2; k++) {
		int err;

		if (!arg[k])
			continue;
		err = time_arg_parse(arg[k], mono, wall, out[k]);
		if (err == -ENODATA)
			return cli_usage_error(
			    "%s %s: %s does not say when it started in wall-clock "
			    "time: give seconds from its start",
			    k ? "--until" : "--since", arg[k], in->shown);
		if (err)
			return cli_usage_error(
			    "%s needs seconds from the start (30, 1.5), a time of "
			    "day (03:14, 03:14:05) or an ISO time, not '%s'",
			    k ? "--until" : "--since", arg[k]);
	}
	if (*since >= *until)
		return cli_usage_error("--since %s is not before --until %s", in->since, in->until);
	return 0;
}

/* The covered range of the samples, in seconds from the first start. */
static void span(const struct many *m, uint64_t base, double *lo, double *hi)
{
	uint64_t a = UINT64_MAX, b = 0;

	for (size_t i = 0; i < m->nfiles; i++) {
		a = m->files[i].first < a ? m->files[i].first : a;
		b = m->files[i].last > b ? m->files[i].last : b;
	}
	*lo = a == UINT64_MAX || a < base ? 0 : (double)(a - base) / 1e9;
	*hi = b < base ? 0 : (double)(b - base) / 1e9;
}

/* The second pass: each file read again and added, then released. */
static int add_all(struct profile_input *in, struct many *m, struct rec_merge *mg, uint64_t since,
		   uint64_t until, uint64_t *kept)
{
	for (size_t i = 0; i < m->nfiles; i++) {
		struct recording r;
		int rc, err;

		memset(&r, 0, sizeof(r));
		rc = read_one(m->files[i].path, &r, in->replay);
		if (rc == 1)
			continue;
		if (rc)
			return rc;
		err = rec_merge__add(mg, &r, since, until, kept);
		recording__release(&r);
		if (err) {
			cli_error("cannot merge the recordings of %s: %s", in->shown,
				  strerror(-err));
			return EXIT_FAIL;
		}
	}
	return 0;
}

/* Merges m's recordings into in->data through a private temporary file. */
static int merge(struct profile_input *in, struct many *m, uint64_t since, uint64_t until)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_BUF], path[PATH_BUF + 16];
	struct rec_merge *mg;
	uint64_t kept = 0;
	int rc, err = 0;

	snprintf(dir, sizeof(dir), "%s/prof-merge-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		cli_error("cannot make a temporary directory in %s: %s", tmp && *tmp ? tmp : "/tmp",
			  strerror(errno));
		return EXIT_FAIL;
	}
	snprintf(path, sizeof(path), "%s/merged.data", dir);
	mg = rec_merge__new(path);
	if (!mg)
		err = -errno;
	rc = err ? 0 : add_all(in, m, mg, since, until, &kept);
	if (mg && rc)
		rec_merge__discard(mg);
	else if (mg)
		err = rec_merge__finish(mg);
	if (!rc && !err)
		err = read_whole_file(path, &in->data, &in->size);
	unlink(path);
	rmdir(dir);
	if (rc)
		return rc;
	if (err) {
		cli_error("cannot merge the recordings of %s: %s", in->shown, strerror(-err));
		return EXIT_FAIL;
	}
	if (!kept) {
		double lo, hi;

		span(m, m->files[0].mono, &lo, &hi);
		cli_error(
		    "no samples in %s between %s and %s (its samples run from %.1f s to %.1f s "
		    "after its start)",
		    in->shown, in->since ? in->since : "the start",
		    in->until ? in->until : "the end", lo, hi);
		return EXIT_FAIL;
	}
	in->preloaded = 1;
	return 0;
}

int profile_input__load_many(struct profile_input *in)
{
	struct many m = {0};
	uint64_t since = 0, until = UINT64_MAX;
	size_t i, ndirs = 0;
	int rc = 0, err;

	for (i = 0; i < in->ninputs && !rc; i++) {
		if (is_dir(in->inputs[i])) {
			ndirs++;
			err = list_dir(&m, in->inputs[i]);
		} else {
			err = add_path(&m, "", in->inputs[i]);
		}
		if (err == -E2BIG)
			rc = cli_usage_error("more than %d recordings to read", MANY_MAX_FILES);
		else if (err) {
			cli_error("cannot read '%s': %s", in->inputs[i], strerror(-err));
			rc = EXIT_FAIL;
		}
	}
	if (!rc && ndirs && !m.npaths) {
		cli_error("%s holds no recordings (*.data)", in->shown);
		cli_hint("make some with 'prof record --rotate SECONDS -o DIR/'");
		rc = EXIT_FAIL;
	}
	if (!rc)
		rc = survey(&m);
	if (!rc && !m.nfiles) {
		cli_error("%s: none of its %zu file%s could be read", in->shown, m.npaths,
			  m.npaths == 1 ? "" : "s");
		rc = EXIT_FAIL;
	}
	if (!rc) {
		qsort(m.files, m.nfiles, sizeof(*m.files), by_start);
		rc = parse_range(in, &m.files[0], &since, &until);
	}
	if (!rc)
		rc = merge(in, &m, since, until);
	many_release(&m);
	return rc;
}
