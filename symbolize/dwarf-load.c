/* dwarf-load.c: opens a binary's DWARF and has its line and inline-range
 * tables built, once (see dwarf.h; the tables are in dwarf-internal.h);
 * frees them.
 *
 * prof's own reader fills the tables first (dwarf-secs.c reads the
 * sections, dwarf-die.c the units, dwarf-lines.c the line programs,
 * dwarf-build.c puts them together). When it meets DWARF it does not
 * handle (dwz's alternate files, type-signature references...), the load
 * starts over with libdw (dwarf-libdw.c), which gives the same tables.
 * Then, whichever reader ran, dwarf-tables.c sorts them. In lazy mode the
 * load stops once the sections are read and dwarf-lazy.c reads units as
 * lookups need them.
 *
 * This file is the top of the reader: it calls the others, and none of
 * them calls it (only the lookup does, to finish a lazy load). */
#include "symbolize/dwarf.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/dwarf-internal.h"
#include "symbolize/elf-file.h"

/* 1 when the file has a section named one of names[] (NULL-terminated). */
static int has_section(Elf *elf, const char *const *names)
{
	size_t shstrndx, k;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		for (k = 0; name && names[k]; k++)
			if (!strcmp(name, names[k]))
				return 1;
	}
	return 0;
}

static int has_debug_info(Elf *elf)
{
	static const char *const names[] = {".debug_info", ".zdebug_info", NULL};

	return has_section(elf, names);
}

/* Empties the tables, for a second start with libdw. */
static void reset(struct dwarf_info *d)
{
	dwarf_lazy__free(d);
	d->nlines = d->nfuncs = d->nranges = d->nspans = d->nseqs = d->nseqs_sorted = 0;
	d->lines_sorted = 0;
	d->nunits = 0;
	strtab__release(&d->files);
	dwarf_secs__free(&d->secs);
	dwarf_split__free(d);
}

/* prof's own reader (dwarf-die.c); -ENOTSUP: use libdw's. */
static int load_own(struct dwarf_info *d)
{
	int err = dwarf_secs__read(d->elf, d->fd, &d->secs);

	if (err)
		return err;
	if (strtab__init(&d->files))
		return -ENOMEM;
	return dwarf_build__tables(d, &d->secs);
}

/* The sections for prof's own reader, to be read lazily (dwarf-lazy.c);
 * -ENOTSUP: load whole. DWARF with references to other files (dwz,
 * supplementary files) or type units is loaded whole: it uses forms the
 * reader leaves to libdw everywhere. */
static int load_lazy(struct dwarf_info *d)
{
	static const char *const whole[] = {".gnu_debugaltlink", ".debug_sup", ".debug_types",
					    NULL};
	int err;

	if (has_section(d->elf, whole))
		return -ENOTSUP;
	err = dwarf_secs__read(d->elf, d->fd, &d->secs);
	if (err)
		return err;
	return strtab__init(&d->files) ? -ENOMEM : 0;
}

static int load_libdw(struct dwarf_info *d)
{
	return has_debug_info(d->elf) ? dwarf_libdw__tables(d) : -ENODATA;
}

/* All units' tables: prof's reader, else libdw's walk (always with
 * PROF_DWARF_LIBDW), then sorted. */
static int load_whole(struct dwarf_info *d)
{
	int err = getenv("PROF_DWARF_LIBDW") ? -ENOTSUP : load_own(d);

	if (err == -ENOTSUP) {
		reset(d);
		err = load_libdw(d);
	}
	if (!err && !d->lines_sorted)
		err = dwarf_tables__sort_lines(d, 0, d->nlines);
	if (!err)
		err = dwarf_tables__nest_ranges(d, 0, d->nranges);
	dwarf_tables__sort_spans(d->spans, d->nspans);
	dwarf_tables__sort_spans(d->seqs, d->nseqs);
	d->nseqs_sorted = d->nseqs;
	return err;
}

/* The lazy load stops once the sections are read, .debug_info still
 * being inflated on its thread: the caller can do other work meanwhile
 * (addr2line.c reads the symbol tables); finish() reads the
 * unit DIEs when the tables are first needed. (PROF_DWARF_LIBDW: libdw
 * reads each unit as it is needed, after prof's reader found them.) */
static int load(struct dwarf_info *d, unsigned flags)
{
	int err;

	if (!(flags & DWARF_LOAD_LAZY))
		return load_whole(d);
	err = load_lazy(d);
	if (err == -ENOTSUP) {
		reset(d);
		return load_whole(d);
	}
	d->pending = !err;
	return err;
}

/* Ends a lazy load: reads the unit DIEs, or the whole tables when the
 * lazy reader cannot; 0, or -errno (then the tables are empty). Later
 * calls return the same. */
static int finish(struct dwarf_info *d)
{
	int err;

	if (!d->pending)
		return d->failed;
	d->pending = 0;
	err = dwarf_lazy__open(d);
	if (err == -ENOTSUP) {
		reset(d);
		err = load_whole(d);
	}
	if (err) {
		reset(d); /* no tables: no answers */
		d->failed = err;
	}
	return err;
}

int dwarf_info__ready(struct dwarf_info *d)
{
	return d ? finish(d) : -EINVAL;
}

static struct dwarf_info *load_fd(int fd, const void *want_id, ssize_t want_len, unsigned flags)
{
	struct dwarf_info *d;
	int err = elf_fd_regular(fd, NULL);

	d = err ? NULL : calloc(1, sizeof(*d));
	if (!d) {
		close(fd);
		errno = err ? -err : ENOMEM;
		return NULL;
	}
	d->fd = fd;
	elf_version(EV_CURRENT);
	d->elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!d->elf || elf_kind(d->elf) != ELF_K_ELF) {
		err = ENOEXEC;
	} else if (want_len > 0) {
		const void *id;
		ssize_t len = dwelf_elf_gnu_build_id(d->elf, &id);

		err = len > 0 && (len != want_len || memcmp(id, want_id, (size_t)len)) ? ESTALE : 0;
	} else {
		err = 0;
	}
	if (!err)
		err = -load(d, flags);
	if (err) {
		dwarf_info__free(d);
		errno = err;
		return NULL;
	}
	return d;
}

struct dwarf_info *dwarf_info__load_fd(int fd)
{
	return load_fd(fd, NULL, 0, 0);
}

static struct dwarf_info *load_path(const char *path, unsigned flags)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	return fd < 0 ? NULL : load_fd(fd, NULL, 0, flags);
}

struct dwarf_info *dwarf_info__load(const char *path)
{
	return load_path(path, 0);
}

static struct dwarf_info *load_pair(const char *binary, const char *debugfile, unsigned flags)
{
	unsigned char id[64];
	ssize_t len = 0;
	int fd;

	if (binary) {
		fd = open(binary, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0) {
			Elf *elf;
			const void *p;

			elf_version(EV_CURRENT);
			elf = elf_begin(fd, ELF_C_READ, NULL);
			len = elf ? dwelf_elf_gnu_build_id(elf, &p) : -1;
			if (len > 0 && (size_t)len <= sizeof(id))
				memcpy(id, p, (size_t)len);
			else
				len = 0;
			elf_end(elf);
			close(fd);
		}
	}
	fd = open(debugfile, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	return fd < 0 ? NULL : load_fd(fd, id, len, flags);
}

struct dwarf_info *dwarf_info__load_pair(const char *binary, const char *debugfile)
{
	return load_pair(binary, debugfile, 0);
}

struct dwarf_info *dwarf_info__load_flags(const char *path, const char *debugfile, unsigned flags)
{
	return debugfile ? load_pair(path, debugfile, flags) : load_path(path, flags);
}

void dwarf_info__free(struct dwarf_info *d)
{
	if (!d)
		return;
	dwarf_lazy__free(d);
	if (d->dw)
		dwarf_end(d->dw);
	elf_end(d->elf);
	if (d->fd >= 0)
		close(d->fd);
	strtab__release(&d->files);
	dwarf_secs__free(&d->secs);
	dwarf_split__free(d);
	free(d->lines);
	free(d->funcs);
	free(d->ranges);
	free(d->ranges_tmp);
	free(d->spans);
	free(d->seqs);
	free(d);
}

size_t dwarf_info__nlines(struct dwarf_info *d)
{
	dwarf_info__ready(d);
	return d->nlines;
}

size_t dwarf_info__nranges(struct dwarf_info *d)
{
	dwarf_info__ready(d);
	return d->nranges;
}

size_t dwarf_info__nfuncs(struct dwarf_info *d)
{
	dwarf_info__ready(d);
	return d->nfuncs;
}

size_t dwarf_info__nunits(struct dwarf_info *d)
{
	dwarf_info__ready(d);
	return d->nunits;
}

size_t dwarf_info__split_missing(struct dwarf_info *d, const char **first)
{
	if (first)
		*first = NULL;
	if (!d || dwarf_info__ready(d))
		return 0;
	return dwarf_split__missing_count(d, first);
}
