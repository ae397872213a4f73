/* dwarf-split.c: split DWARF (gcc/clang -gsplit-dwarf). The binary keeps
 * only a skeleton unit per compile unit (its address ranges, line table,
 * DW_AT_addr_base and the name of a .dwo file); the unit's DIEs are in the
 * .dwo file, or in a package of them, BINARY.dwp (binutils' dwp, llvm-dwp).
 *
 * This file finds the split unit's sections for a skeleton and hands them
 * to dwarf-die.c as a struct dw_secs, so that the split unit is read by
 * the same reader as any unit: .debug_info.dwo, .debug_abbrev.dwo,
 * .debug_str.dwo, .debug_str_offsets.dwo and .debug_rnglists.dwo from the
 * .dwo (in a .dwp: the unit's contributions, found by its dwo_id in
 * .debug_cu_index, as slices), and, from the binary itself, .debug_addr
 * (DW_FORM_addrx / DW_FORM_GNU_addr_index go through the skeleton's
 * DW_AT_addr_base into it) and, for GNU DWARF 4 split units, .debug_ranges
 * from the skeleton's DW_AT_GNU_ranges_base on. As in elfutils' libdw
 * (__libdw_find_split_unit), a relative .dwo name is looked for under the
 * skeleton's DW_AT_comp_dir, then beside the binary; then BINARY.dwp.
 *
 * Opened files stay open and mapped until dwarf_split__free(): function
 * names point into them. Skeletons whose split unit cannot be found (or
 * whose dwo_id does not match) are counted once each, for the note the
 * commands print (dwarf_info__split_missing()). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/grow.h"
#include "symbolize/dwarf-cursor.h"
#include "symbolize/dwarf-internal.h"

/* An opened .dwo or .dwp file (fd < 0: it was not there). */
struct split_file {
	char *path;
	int fd;
	Elf *elf;
	struct dw_sec info, abbrev, str, str_offsets, rnglists, cu_index;
};

struct dw_split {
	struct split_file *files;
	size_t nfiles, files_cap;
	size_t dwp; /* BINARY.dwp's index in files + 1, once looked for */
	int dwp_tried;
	char *binary; /* the binary's path, from /proc/self/fd (NULL: unknown) */
	int binary_tried;
	uint64_t *seen; /* dwo_ids counted as missing, open addressing (+1) */
	size_t nseen, seen_mask;
	size_t missing;
	char *first_missing;
};

static struct dw_split *split_of(struct dwarf_info *d)
{
	if (!d->split)
		d->split = calloc(1, sizeof(*d->split));
	return d->split;
}

static void read_sec(Elf_Scn *scn, struct dw_sec *out)
{
	GElf_Shdr sh;
	Elf_Data *data;

	if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
		return;
	if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf)
		return;
	out->p = data->d_buf;
	out->size = data->d_size;
}

/* Opens `path` as a .dwo/.dwp and finds its sections; the entry is kept
 * (also when the file is not there). NULL only for -ENOMEM. */
static struct split_file *open_file(struct dw_split *sp, const char *path)
{
	struct split_file *f;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	size_t i;

	for (i = sp->nfiles; i-- > 0;)
		if (!strcmp(sp->files[i].path, path))
			return &sp->files[i];
	if (GROW(sp->files, sp->files_cap, sp->nfiles + 1))
		return NULL;
	f = &sp->files[sp->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	sp->nfiles++;
	f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (f->fd < 0)
		return f;
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || elf_getshdrstrndx(f->elf, &shstrndx)) {
		elf_end(f->elf);
		f->elf = NULL;
		return f;
	}
	while ((scn = elf_nextscn(f->elf, scn))) {
		static const struct {
			const char *name;
			size_t off;
		} want[] = {
			{".debug_info.dwo", offsetof(struct split_file, info)},
			{".debug_abbrev.dwo", offsetof(struct split_file, abbrev)},
			{".debug_str.dwo", offsetof(struct split_file, str)},
			{".debug_str_offsets.dwo", offsetof(struct split_file, str_offsets)},
			{".debug_rnglists.dwo", offsetof(struct split_file, rnglists)},
			{".debug_cu_index", offsetof(struct split_file, cu_index)},
		};
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(f->elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
			if (!strcmp(name, want[i].name))
				read_sec(scn, (struct dw_sec *)((char *)f + want[i].off));
	}
	return f;
}

static const char *binary_path(struct dwarf_info *d, struct dw_split *sp)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;

	if (sp->binary_tried)
		return sp->binary;
	sp->binary_tried = 1;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", d->fd);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0 || buf[0] != '/')
		return NULL;
	buf[n] = '\0';
	sp->binary = strdup(buf);
	return sp->binary;
}

/* A slice of `whole` (a .dwp section) at [off, off + size): empty when it
 * does not lie inside. */
static struct dw_sec slice(struct dw_sec whole, uint64_t off, uint64_t size)
{
	struct dw_sec s = {NULL, 0};

	if (whole.p && off <= whole.size && size <= whole.size - off) {
		s.p = whole.p + off;
		s.size = (size_t)size;
	}
	return s;
}

/* DW_SECT_* column numbers of .debug_cu_index (DWARF 5; the GNU version 2
 * index numbers INFO, ABBREV, STR_OFFSETS the same way and has no
 * RNGLISTS). */
enum { SECT_INFO = 1, SECT_ABBREV = 3, SECT_STR_OFFSETS = 6, SECT_RNGLISTS = 8 };

/* The unit with `id` in a .dwp: its contributions as slices of the
 * package's sections. 0, or 1 when the index does not have it. */
int dwarf_split__dwp_unit(const struct dw_sec *index, uint64_t id, const struct dw_sec whole[4],
			  struct dw_sec out[4])
{
	struct dw_cursor c = {.p = index->p, .end = index->p + index->size};
	uint64_t version, ncols, nunits, nslots, h, step, row = 0, k;
	const unsigned char *sigs, *rows, *cols, *offs, *sizes;
	int which[4] = {SECT_INFO, SECT_ABBREV, SECT_STR_OFFSETS, SECT_RNGLISTS};
	int col;

	if (!index->p)
		return 1;
	version = dw_rd(&c, 4) & 0xffff;
	ncols = dw_rd(&c, 4);
	nunits = dw_rd(&c, 4);
	nslots = dw_rd(&c, 4);
	if (c.bad || (version != 2 && version != 5) || !nslots || (nslots & (nslots - 1)) ||
	    nslots > index->size / 12 || ncols > 64 || nunits > index->size / 8)
		return 1;
	sigs = c.p;
	rows = sigs + nslots * 8;
	cols = rows + nslots * 4;
	offs = cols + ncols * 4;
	sizes = offs + nunits * ncols * 4;
	if ((size_t)(c.end - c.p) < nslots * 12 + ncols * 4 + 2 * nunits * ncols * 4)
		return 1;
	h = id & (nslots - 1);
	step = ((id >> 32) & (nslots - 1)) | 1;
	for (k = 0; k < nslots; k++, h = (h + step) & (nslots - 1)) {
		struct dw_cursor s = {.p = sigs + h * 8, .end = sigs + h * 8 + 8};
		struct dw_cursor r = {.p = rows + h * 4, .end = rows + h * 4 + 4};
		uint64_t sig = dw_rd(&s, 8), n = dw_rd(&r, 4);

		if (!n)
			return 1;
		if (sig == id) {
			row = n;
			break;
		}
	}
	if (!row || row > nunits)
		return 1;
	for (col = 0; col < 4; col++)
		out[col] = (struct dw_sec){NULL, 0};
	for (k = 0; k < ncols; k++) {
		struct dw_cursor cc = {.p = cols + k * 4, .end = cols + k * 4 + 4};
		struct dw_cursor oc = {.p = offs + ((row - 1) * ncols + k) * 4, .end = sizes};
		struct dw_cursor sc = {.p = sizes + ((row - 1) * ncols + k) * 4, .end = c.end};
		uint64_t sect = dw_rd(&cc, 4), off = dw_rd(&oc, 4), size = dw_rd(&sc, 4);

		if (version == 2 && sect == SECT_RNGLISTS)
			continue; /* GNU's DW_SECT_MACRO */
		for (col = 0; col < 4; col++)
			if ((uint64_t)which[col] == sect)
				out[col] = slice(whole[col], off, size);
	}
	return out[0].p ? 0 : 1;
}

/* The sections of the unit in file f (a .dwo, or a .dwp when `dwp`). */
static int file_secs(const struct split_file *f, int dwp, const struct dw_split_ref *ref,
		     const struct dw_secs *main, struct dw_secs *out)
{
	struct dw_sec whole[4] = {f->info, f->abbrev, f->str_offsets, f->rnglists}, part[4];

	if (!f->elf || !f->info.p)
		return 1;
	memset(out, 0, sizeof(*out));
	if (dwp) {
		if (!ref->have_id || dwarf_split__dwp_unit(&f->cu_index, ref->dwo_id, whole, part))
			return 1;
	} else {
		memcpy(part, whole, sizeof(part));
	}
	out->sec[DW_SEC_INFO] = part[0];
	out->sec[DW_SEC_ABBREV] = part[1];
	out->sec[DW_SEC_STR_OFFSETS] = part[2];
	out->sec[DW_SEC_RNGLISTS] = part[3];
	out->sec[DW_SEC_STR] = f->str;
	out->sec[DW_SEC_ADDR] = main->sec[DW_SEC_ADDR];
	out->sec[DW_SEC_RANGES] = slice(main->sec[DW_SEC_RANGES], ref->ranges_base,
					main->sec[DW_SEC_RANGES].size >= ref->ranges_base
						? main->sec[DW_SEC_RANGES].size - ref->ranges_base
						: 0);
	return 0;
}

static int join(char *buf, size_t len, const char *dir, size_t dirlen, const char *name)
{
	int n = snprintf(buf, len, "%.*s/%s", (int)dirlen, dir, name);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int dwarf_split__secs(struct dwarf_info *d, const struct dw_secs *main,
		      const struct dw_split_ref *ref, struct dw_secs *out)
{
	struct dw_split *sp = split_of(d);
	const char *bin, *slash, *name = ref->dwo_name;
	char path[PATH_MAX];
	struct split_file *f;

	if (!sp)
		return -ENOMEM;
	bin = binary_path(d, sp);
	if (name && *name) {
		/* Absolute, else under comp_dir, else beside the binary (its
		 * path as given, then its base name). */
		const char *tries[3] = {NULL, NULL, NULL};
		char alt[2][PATH_MAX];
		int i;

		if (name[0] == '/') {
			tries[0] = name;
		} else {
			if (ref->comp_dir && *ref->comp_dir &&
			    !join(alt[0], sizeof(alt[0]), ref->comp_dir, strlen(ref->comp_dir), name))
				tries[0] = alt[0];
			if (bin && (slash = strrchr(bin, '/'))) {
				const char *base = strrchr(name, '/');

				if (!join(alt[1], sizeof(alt[1]), bin, (size_t)(slash - bin),
					  base ? base + 1 : name))
					tries[1] = alt[1];
			}
		}
		for (i = 0; i < 3; i++) {
			if (!tries[i])
				continue;
			f = open_file(sp, tries[i]);
			if (!f)
				return -ENOMEM;
			if (!file_secs(f, 0, ref, main, out))
				return 0;
		}
	}
	if (!sp->dwp_tried && bin) {
		sp->dwp_tried = 1;
		if (snprintf(path, sizeof(path), "%s.dwp", bin) < (int)sizeof(path)) {
			f = open_file(sp, path);
			if (!f)
				return -ENOMEM;
			/* Later open_file() calls may move the array. */
			sp->dwp = (size_t)(f - sp->files) + 1;
		}
	}
	if (sp->dwp && !file_secs(&sp->files[sp->dwp - 1], 1, ref, main, out))
		return 0;
	return 1;
}

int dwarf_split__missing(struct dwarf_info *d, const struct dw_split_ref *ref)
{
	struct dw_split *sp = split_of(d);
	uint64_t key = ref->dwo_id + 1;
	size_t i;

	if (!sp)
		return -ENOMEM;
	if (2 * (sp->nseen + 1) > sp->seen_mask + 1) {
		size_t n = sp->seen_mask ? 2 * (sp->seen_mask + 1) : 64, k;
		uint64_t *t = calloc(n, sizeof(*t));

		if (!t)
			return -ENOMEM;
		for (k = 0; sp->seen && k <= sp->seen_mask; k++) {
			if (!sp->seen[k])
				continue;
			for (i = (sp->seen[k] * 0x9e3779b97f4a7c15ULL >> 20) & (n - 1); t[i];
			     i = (i + 1) & (n - 1))
				;
			t[i] = sp->seen[k];
		}
		free(sp->seen);
		sp->seen = t;
		sp->seen_mask = n - 1;
	}
	if (!key)
		key = 1;
	for (i = (key * 0x9e3779b97f4a7c15ULL >> 20) & sp->seen_mask; sp->seen[i];
	     i = (i + 1) & sp->seen_mask)
		if (sp->seen[i] == key)
			return 0;
	sp->seen[i] = key;
	sp->nseen++;
	sp->missing++;
	if (!sp->first_missing) {
		char buf[PATH_MAX];
		const char *name = ref->dwo_name && *ref->dwo_name ? ref->dwo_name : "?";

		if (name[0] != '/' && ref->comp_dir && *ref->comp_dir &&
		    !join(buf, sizeof(buf), ref->comp_dir, strlen(ref->comp_dir), name))
			name = buf;
		sp->first_missing = strdup(name);
	}
	return 0;
}

void dwarf_split__free(struct dwarf_info *d)
{
	struct dw_split *sp = d->split;
	size_t i;

	if (!sp)
		return;
	for (i = 0; i < sp->nfiles; i++) {
		elf_end(sp->files[i].elf);
		if (sp->files[i].fd >= 0)
			close(sp->files[i].fd);
		free(sp->files[i].path);
	}
	free(sp->files);
	free(sp->binary);
	free(sp->seen);
	free(sp->first_missing);
	free(sp);
	d->split = NULL;
}

size_t dwarf_split__missing_count(const struct dwarf_info *d, const char **first)
{
	if (first)
		*first = d->split ? d->split->first_missing : NULL;
	return d->split ? d->split->missing : 0;
}
