/* func-lines.c: the DWARF line rows of one function (see function.h), for
 * `prof annotate`'s source interleaving.
 *
 * libdw is asked once: dwarf_addrdie() finds the compilation unit holding
 * the function's first address, dwarf_getsrclines() gives that unit's line
 * table (sorted by address), and the rows inside [lo, hi), plus the last
 * one before lo, are copied out. A lookup is then a binary search. That is
 * the simple per-function path; the whole-binary line tables that
 * symbolize/ builds for many addresses can take its place.
 *
 * Where the DWARF is: the binary itself (a -g build), else a separate debug
 * file: the one given, or the build-id path /usr/lib/debug/.build-id/xx/
 * rest.debug (what Debian's -dbg and -dbgsym packages install). */
#include "symbolize/function.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/grow.h"

#define BUILD_ID_DIR "/usr/lib/debug/.build-id"

struct row {
	uint64_t addr;
	int line;      /* 0: no source position (end of sequence) */
	uint32_t file; /* index into files */
};

struct func_lines {
	struct row *rows;
	size_t nrows, rows_cap;
	char **files;
	size_t nfiles, files_cap;
	char *source; /* the file that held the DWARF */
};

static int add_file(struct func_lines *fl, const char *name, uint32_t *idx)
{
	size_t i;

	for (i = 0; i < fl->nfiles; i++) /* a function names a handful of files */
		if (!strcmp(fl->files[i], name)) {
			*idx = (uint32_t)i;
			return 0;
		}
	if (GROW(fl->files, fl->files_cap, fl->nfiles + 1))
		return -ENOMEM;
	fl->files[fl->nfiles] = strdup(name);
	if (!fl->files[fl->nfiles])
		return -ENOMEM;
	*idx = (uint32_t)fl->nfiles++;
	return 0;
}

/* A row's file: relative names are relative to the unit's compilation
 * directory (DWARF 5 tables name "examples/x.c" under dir 0). */
static int add_row(struct func_lines *fl, Dwarf_Line *l, uint64_t addr, const char *comp_dir)
{
	char joined[4096];
	const char *src;
	bool end = false;
	int lineno = 0;
	struct row *r;

	if (GROW(fl->rows, fl->rows_cap, fl->nrows + 1))
		return -ENOMEM;
	r = &fl->rows[fl->nrows];
	memset(r, 0, sizeof(*r));
	r->addr = addr;
	dwarf_lineendsequence(l, &end);
	src = dwarf_linesrc(l, NULL, NULL);
	if (!end && src && !dwarf_lineno(l, &lineno) && lineno > 0) {
		int err;

		if (src[0] != '/' && comp_dir && *comp_dir &&
		    (size_t)snprintf(joined, sizeof(joined), "%s/%s", comp_dir, src) <
			    sizeof(joined))
			src = joined;
		err = add_file(fl, src, &r->file);

		if (err)
			return err;
		r->line = lineno;
	}
	fl->nrows++;
	return 0;
}

/* Copies the rows of the unit holding lo that fall in [lo, hi), after the
 * row in force at lo (moved to lo). 0, -ENODATA, -ENOMEM. */
static int read_rows(struct func_lines *fl, Dwarf *dbg, uint64_t lo, uint64_t hi)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	Dwarf_Line *l;
	Dwarf_Addr a;
	Dwarf_Attribute attr;
	const char *comp_dir;
	size_t n, i, first = SIZE_MAX;
	int err;

	if (!dwarf_addrdie(dbg, lo, &cu) || dwarf_getsrclines(&cu, &lines, &n) || !n)
		return -ENODATA;
	comp_dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &attr));
	/* libdw sorts a unit's rows by address. */
	for (i = 0; i < n; i++) {
		l = dwarf_onesrcline(lines, i);
		if (!l || dwarf_lineaddr(l, &a))
			continue;
		if (a > lo)
			break;
		if (a < lo)
			first = i;
	}
	if (first != SIZE_MAX) {
		err = add_row(fl, dwarf_onesrcline(lines, first), lo, comp_dir);
		if (err)
			return err;
	}
	for (i = first == SIZE_MAX ? 0 : first + 1; i < n; i++) {
		l = dwarf_onesrcline(lines, i);
		if (!l || dwarf_lineaddr(l, &a) || a < lo)
			continue;
		if (a >= hi)
			break;
		err = add_row(fl, l, a, comp_dir);
		if (err)
			return err;
	}
	return fl->nrows ? 0 : -ENODATA;
}

/* Opens `file` with libdw and reads the rows. 0, -ENODATA (no DWARF or no
 * line info for lo), or the open's -errno. */
static int try_file(struct func_lines *fl, const char *file, uint64_t lo, uint64_t hi)
{
	Dwarf *dbg;
	int fd, err;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	dbg = dwarf_begin(fd, DWARF_C_READ);
	if (!dbg) {
		close(fd);
		return -ENODATA;
	}
	err = read_rows(fl, dbg, lo, hi);
	dwarf_end(dbg);
	close(fd);
	if (!err) {
		fl->source = strdup(file);
		if (!fl->source)
			err = -ENOMEM;
	}
	return err;
}

static void reset(struct func_lines *fl)
{
	size_t i;

	for (i = 0; i < fl->nfiles; i++)
		free(fl->files[i]);
	fl->nfiles = 0;
	fl->nrows = 0;
}

struct func_lines *func_lines__load(const char *path, const char *debug_path, const char *build_id,
				    uint64_t lo, uint64_t hi)
{
	struct func_lines *fl = calloc(1, sizeof(*fl));
	char byid[sizeof(BUILD_ID_DIR) + 160];
	int err;

	if (!fl)
		return NULL;
	err = try_file(fl, path, lo, hi);
	if (err && err != -ENOMEM && debug_path) {
		reset(fl);
		err = try_file(fl, debug_path, lo, hi);
	}
	if (err && err != -ENOMEM && build_id && strlen(build_id) > 2 && strlen(build_id) < 130 &&
	    !strchr(build_id, '/')) {
		reset(fl);
		snprintf(byid, sizeof(byid), "%s/%.2s/%s.debug", BUILD_ID_DIR, build_id,
			 build_id + 2);
		err = try_file(fl, byid, lo, hi);
	}
	if (err) {
		func_lines__free(fl);
		errno = -err == ENOENT ? ENODATA : -err;
		return NULL;
	}
	return fl;
}

void func_lines__free(struct func_lines *fl)
{
	if (!fl)
		return;
	reset(fl);
	free(fl->files);
	free(fl->rows);
	free(fl->source);
	free(fl);
}

int func_lines__lookup(const struct func_lines *fl, uint64_t addr, const char **file, int *line)
{
	size_t lo = 0, hi = fl->nrows;

	/* The last row at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fl->rows[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !fl->rows[lo - 1].line)
		return 0;
	*file = fl->files[fl->rows[lo - 1].file];
	*line = fl->rows[lo - 1].line;
	return 1;
}

const char *func_lines__source(const struct func_lines *fl)
{
	return fl->source;
}
