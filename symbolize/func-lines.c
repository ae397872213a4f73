/* func-lines.c: the source lines of one function (see function.h), for
 * `prof annotate`'s source interleaving.
 *
 * Not a line reader of its own: the rows come from the binary's
 * dwarf_info (dwarf.h), the tables `prof report --lines` and `prof
 * symbolize -e` answer from, with the DWARF found the same way (the
 * binary's own, else its separate debug file's). A lookup is the innermost
 * frame: the line-table row in force at the address. So one address gets
 * one file:line in `prof report --lines`, `prof annotate` and `prof
 * symbolize`.
 *
 * Loaded lazily, as `prof symbolize -e` loads it (DWARF_LOAD_LAZY, and
 * dwarf_info__lookup_bfd()): one function's lookups read only its unit,
 * not the whole DWARF of a large library. Inside a function the answers
 * are dwarf_info__lookup()'s (they differ only in the padding between
 * functions).
 *
 * The debug file is found by the caller (elf_symtab__debug_file(), i.e.
 * debuginfo.c's build-id and .gnu_debuglink search), not here. */
#include "symbolize/function.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/dwarf.h"

struct func_lines {
	struct dwarf_info *dwarf;
	unsigned char *decoded; /* per unit, for dwarf_info__lookup_bfd() */
	char *source;		/* the file that held the DWARF */
};

/* The DWARF of `path`, else of `debug_path`; *from says which. NULL +
 * errno (ENODATA: neither has DWARF). */
static struct dwarf_info *load(const char *path, const char *debug_path, const char **from)
{
	struct dwarf_info *d = dwarf_info__load_flags(path, NULL, DWARF_LOAD_LAZY);
	int err;

	*from = path;
	if (!d && errno == ENODATA && debug_path && *debug_path) {
		d = dwarf_info__load_flags(path, debug_path, DWARF_LOAD_LAZY);
		*from = debug_path;
	}
	err = d ? dwarf_info__ready(d) : 0;
	if (err) { /* unreadable after all */
		dwarf_info__free(d);
		errno = -err;
		return NULL;
	}
	return d;
}

struct func_lines *func_lines__load(const char *path, const char *debug_path, uint64_t lo)
{
	struct func_lines *fl = calloc(1, sizeof(*fl));
	const char *from, *file;
	int line, err = ENOMEM;

	if (!fl)
		return NULL;
	fl->dwarf = load(path, debug_path, &from);
	if (!fl->dwarf) {
		err = errno == ENOENT ? ENODATA : errno;
		goto fail;
	}
	fl->decoded = calloc(dwarf_info__nunits(fl->dwarf) + 1, 1);
	if (!fl->decoded)
		goto fail;
	if (!func_lines__lookup(fl, lo, &file, &line)) {
		err = ENODATA;
		goto fail;
	}
	fl->source = strdup(from);
	if (fl->source)
		return fl;
fail:
	func_lines__free(fl);
	errno = err;
	return NULL;
}

void func_lines__free(struct func_lines *fl)
{
	if (!fl)
		return;
	dwarf_info__free(fl->dwarf);
	free(fl->decoded);
	free(fl->source);
	free(fl);
}

int func_lines__lookup(struct func_lines *fl, uint64_t addr, const char **file, int *line)
{
	struct src_frame f;

	/* max 1: the innermost frame, whose file:line is the line table's. */
	if (!dwarf_info__lookup_bfd(fl->dwarf, addr, fl->decoded, &f, 1) || !f.file || !f.line ||
	    f.line > INT32_MAX)
		return 0;
	*file = f.file;
	*line = (int)f.line;
	return 1;
}

const char *func_lines__source(const struct func_lines *fl)
{
	return fl->source;
}
