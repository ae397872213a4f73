/* input-many.c: several recordings as one input, or one cut to a time
 * range (see report-cli.h): -i given more than once, -i DIR (its *.data
 * recordings, such as `prof record --rotate` writes), --since and --until.
 * The recordings are read, sorted by start, merged and cut
 * (lib/rec-merge.h) into a recording the rest of input.c reads as if it
 * were the input. A corrupt file among several is skipped with a warning.
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

struct many {
	char **paths;
	size_t npaths, paths_cap;
	struct recording **recs;
	size_t nrecs, recs_cap;
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

/* Reads and parses one file; 1 when skipped (warned), 0, or an exit status. */
static int read_one(struct many *m, const char *path, recording_replay_fn replay)
{
	struct recording *r;
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
	if (GROW(m->recs, m->recs_cap, m->nrecs + 1) || !(r = calloc(1, sizeof(*r)))) {
		free(data);
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	err = recording__parse(r, data, size, msg, sizeof(msg));
	if (!err && r->nraw)
		err = recording__replay(r, replay, &samples, msg, sizeof(msg));
	if (err) {
		recording__release(r);
		free(r);
		if (err == -ENOMEM) {
			cli_error("out of memory reading %s", shown);
			return EXIT_FAIL;
		}
		cli_warn("skipped %s: it is corrupt: %s", shown, msg);
		return 1;
	}
	if (!r->complete)
		cli_warn("%s is incomplete (its recorder stopped at byte %zu before finishing); "
			 "reading what it holds", shown, r->cut_at);
	m->recs[m->nrecs++] = r;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	uint64_t x = rec_merge__start_mono(*(struct recording *const *)a);
	uint64_t y = rec_merge__start_mono(*(struct recording *const *)b);

	return x < y ? -1 : x > y;
}

static void many_release(struct many *m)
{
	for (size_t i = 0; i < m->npaths; i++)
		free(m->paths[i]);
	for (size_t i = 0; i < m->nrecs; i++) {
		recording__release(m->recs[i]);
		free(m->recs[i]);
	}
	free(m->paths);
	free(m->recs);
}

/* --since / --until of in against the earliest recording. */
static int parse_range(struct profile_input *in, const struct recording *first, uint64_t *since,
		       uint64_t *until)
{
	uint64_t mono = rec_merge__start_mono(first), wall = rec_merge__start_wall(first);
	const char *arg[2] = {in->since, in->until};
	uint64_t *out[2] = {since, until};

	for (int k = 0; k < 2; k++) {
		int err;

		if (!arg[k])
			continue;
		err = time_arg_parse(arg[k], mono, wall, out[k]);
		if (err == -ENODATA)
			return cli_usage_error("%s %s: %s does not say when it started in wall-clock "
					       "time: give seconds from its start", k ? "--until"
					       : "--since", arg[k], in->shown);
		if (err)
			return cli_usage_error("%s needs seconds from the start (30, 1.5), a time of "
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

	for (size_t i = 0; i < m->nrecs; i++)
		for (size_t k = 0; k < m->recs[i]->nsamples; k++) {
			uint64_t t = m->recs[i]->samples[k].time;

			a = t < a ? t : a;
			b = t > b ? t : b;
		}
	*lo = a == UINT64_MAX || a < base ? 0 : (double)(a - base) / 1e9;
	*hi = b < base ? 0 : (double)(b - base) / 1e9;
}

/* Merges m's recordings into in->data through a private temporary file. */
static int merge(struct profile_input *in, struct many *m, uint64_t since, uint64_t until)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_BUF], path[PATH_BUF + 16];
	uint64_t kept = 0;
	int err;

	snprintf(dir, sizeof(dir), "%s/prof-merge-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		cli_error("cannot make a temporary directory in %s: %s", tmp && *tmp ? tmp : "/tmp",
			  strerror(errno));
		return EXIT_FAIL;
	}
	snprintf(path, sizeof(path), "%s/merged.data", dir);
	err = rec_merge__write((const struct recording *const *)m->recs, m->nrecs, since, until,
			       path, &kept);
	if (!err)
		err = read_whole_file(path, &in->data, &in->size);
	unlink(path);
	rmdir(dir);
	if (err) {
		cli_error("cannot merge the recordings of %s: %s", in->shown, strerror(-err));
		return EXIT_FAIL;
	}
	if (!kept) {
		uint64_t base = rec_merge__start_mono(m->recs[0]);
		double lo, hi;

		span(m, base, &lo, &hi);
		cli_error("no samples in %s between %s and %s (its samples run from %.1f s to %.1f s "
			  "after its start)", in->shown, in->since ? in->since : "the start",
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
	for (i = 0; i < m.npaths && !rc; i++)
		if ((rc = read_one(&m, m.paths[i], in->replay)) == 1)
			rc = 0;
	if (!rc && !m.nrecs) {
		cli_error("%s: none of its %zu file%s could be read", in->shown, m.npaths,
			  m.npaths == 1 ? "" : "s");
		rc = EXIT_FAIL;
	}
	if (!rc) {
		qsort(m.recs, m.nrecs, sizeof(*m.recs), by_start);
		rc = parse_range(in, m.recs[0], &since, &until);
	}
	if (!rc)
		rc = merge(in, &m, since, until);
	many_release(&m);
	return rc;
}
