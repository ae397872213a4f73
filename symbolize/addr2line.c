/* addr2line.c: binutils addr2line's answers, rebuilt on prof's own tables
 * (see addr2line.h).
 *
 * What addr2line does, and what is copied here (binutils 2.40):
 * - An address is looked up only when an SHF_ALLOC section holds it (the
 *   first such section in header order); else "??" / "??:0".
 * - DWARF first (dwarf.h). Its innermost function's name is used when it is
 *   a linkage name (or a C name). Otherwise, the first time that function
 *   answers, BFD prints the nearest symbol's name instead (and its STT_FILE
 *   when DWARF has no file); when that symbol starts where the function's
 *   first range starts, the symbol's name replaces the DWARF name from then
 *   on (also where the function shows up as a caller); later lookups print
 *   the DWARF name. That state is kept here too, so a run of addresses
 *   prints what addr2line prints for the same run.
 * - When DWARF has a line but no function, the nearest symbol's name.
 * - Without a DWARF answer, the symbol table: the symbol with the highest
 *   value at or below the address in the same section, whatever its size,
 *   ignoring data, TLS, section and file symbols (BFD's elf_find_function
 *   with better_fit() for ties), with line 0 ("??:?" or "FILE:?").
 * - The symbols are .symtab's, or .dynsym's when .symtab is absent or
 *   empty, without version suffixes.
 * - With -i, callers are printed with the innermost line's discriminator
 *   (addr2line never resets it: a quirk kept for identical output).
 * Symbols that can answer are kept sorted by (section, value, table order),
 * so one binary search finds the group with the highest value, and
 * better_fit() is applied within that group in table order, as BFD's linear
 * scan would. */
#include "symbolize/addr2line.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/grow.h"
#include "symbolize/demangle.h"
#include "symbolize/dwarf.h"
#include "symbolize/elf-file.h"

#define MAX_FRAMES 128

struct a2l_section {
	uint64_t addr, size;
	size_t index;
};

struct a2l_sym {
	uint64_t value;
	uint64_t size;     /* st_size, or 1 when 0 (BFD's maybe_function_sym) */
	size_t section;    /* section header index */
	size_t order;      /* position in the symbol table */
	const char *name;
	const char *file;  /* STT_FILE name BFD would give, or NULL */
	int notype;
};

struct symtab {
	struct a2l_sym *syms;
	size_t nsyms, syms_cap;
};

struct text {
	char *p;
	size_t n, cap;
	int oom;
};

struct addr2line {
	int fd, debug_fd;
	Elf *elf, *debug_elf;
	struct dwarf_info *dwarf;
	struct a2l_section *secs;
	size_t nsecs, secs_cap;
	struct symtab main; /* the binary's */
	struct symtab debug; /* the separate debug file's, which BFD's DWARF
				reader uses instead when it read DWARF there */
	/* Per DWARF function: BFD's "is_linkage" set after its first lookup
	 * (settled) and the symbol name that replaced its DWARF name. The
	 * DWARF is read lazily, so functions are added as units are read. */
	unsigned char *settled;
	const char **renamed;
	size_t nfuncs;
	unsigned char *decoded; /* per unit: see dwarf_info__lookup_bfd() */
	struct text text;       /* the answer being put together */
};

static int read_sections(struct addr2line *a)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(a->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return -ENOEXEC;
		if (!(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
			continue;
		if (GROW(a->secs, a->secs_cap, a->nsecs + 1))
			return -ENOMEM;
		a->secs[a->nsecs].addr = sh.sh_addr;
		a->secs[a->nsecs].size = sh.sh_size;
		a->secs[a->nsecs].index = elf_ndxscn(scn);
		a->nsecs++;
	}
	return 0;
}

/* The symbol table addr2line reads: .symtab if it has a symbol, else
 * .dynsym. NULL when there is neither. */
static Elf_Scn *pick_symtab(Elf *elf, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr sh, dsh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize)
			continue;
		if (sh.sh_type == SHT_SYMTAB && sh.sh_size / sh.sh_entsize > 1) {
			*out = sh;
			return scn;
		}
		if (sh.sh_type == SHT_DYNSYM && !dyn) {
			dyn = scn;
			dsh = sh;
		}
	}
	if (dyn)
		*out = dsh;
	return dyn;
}

static int sym_cmp(const void *pa, const void *pb)
{
	const struct a2l_sym *a = pa, *b = pb;

	if (a->section != b->section)
		return a->section < b->section ? -1 : 1;
	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static int read_symbols(Elf *elf, struct symtab *tab)
{
	enum { NOTHING_SEEN, SYMBOL_SEEN, FILE_AFTER_SYMBOL } state = NOTHING_SEEN;
	const char *file = NULL;
	Elf_Scn *scn;
	Elf_Data *data;
	GElf_Shdr sh;
	size_t i, n;

	scn = pick_symtab(elf, &sh);
	if (!scn)
		return 0;
	data = elf_getdata(scn, NULL);
	if (!data || !sh.sh_entsize)
		return 0;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 1; i < n; i++) {
		GElf_Sym s;
		const char *name;
		int type, bind;

		if (!gelf_getsym(data, (int)i, &s))
			break;
		name = elf_strptr(elf, sh.sh_link, s.st_name);
		type = GELF_ST_TYPE(s.st_info);
		bind = GELF_ST_BIND(s.st_info);
		if (type == STT_FILE) {
			file = name;
			if (state == SYMBOL_SEEN)
				state = FILE_AFTER_SYMBOL;
			continue;
		}
		if (state == NOTHING_SEEN)
			state = SYMBOL_SEEN;
		if (!name || type == STT_SECTION || type == STT_OBJECT || type == STT_COMMON ||
		    type == STT_TLS || s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE)
			continue;
		if (!s.st_size && bind == STB_LOCAL && type == STT_NOTYPE &&
		    GELF_ST_VISIBILITY(s.st_other) == STV_HIDDEN)
			continue; /* annobin's markers, not functions */
		if (GROW(tab->syms, tab->syms_cap, tab->nsyms + 1))
			return -ENOMEM;
		tab->syms[tab->nsyms] = (struct a2l_sym){
			.value = s.st_value,
			.size = s.st_size ? s.st_size : 1,
			.section = s.st_shndx,
			.order = i,
			.name = name,
			.file = file && (bind == STB_LOCAL || state != FILE_AFTER_SYMBOL) ? file
											   : NULL,
			.notype = type == STT_NOTYPE,
		};
		tab->nsyms++;
	}
	if (tab->nsyms)
		qsort(tab->syms, tab->nsyms, sizeof(*tab->syms), sym_cmp);
	return 0;
}

/* Grows the per-function state to the functions read so far. */
static int track_funcs(struct addr2line *a)
{
	size_t n = dwarf_info__nfuncs(a->dwarf), cap = a->nfuncs;
	unsigned char *settled;
	const char **renamed;

	if (n && n <= cap)
		return 0;
	cap = cap ? cap : 1024;
	while (cap < n)
		cap *= 2;
	settled = realloc(a->settled, cap);
	if (!settled)
		return -ENOMEM;
	a->settled = settled;
	renamed = realloc(a->renamed, cap * sizeof(*renamed));
	if (!renamed)
		return -ENOMEM;
	a->renamed = renamed;
	memset(a->settled + a->nfuncs, 0, cap - a->nfuncs);
	memset(a->renamed + a->nfuncs, 0, (cap - a->nfuncs) * sizeof(*renamed));
	a->nfuncs = cap;
	return 0;
}

struct addr2line *addr2line__open(const char *binary, const char *debugfile, int *dwarf_errno)
{
	struct addr2line *a;
	int err;

	*dwarf_errno = 0;
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->debug_fd = -1;
	a->fd = open(binary, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	err = a->fd < 0 ? errno : -elf_fd_regular(a->fd, NULL);
	if (err)
		goto fail;
	elf_version(EV_CURRENT);
	a->elf = elf_begin(a->fd, ELF_C_READ, NULL);
	if (!a->elf || elf_kind(a->elf) != ELF_K_ELF) {
		err = ENOEXEC;
		goto fail;
	}
	/* The DWARF first, lazily, as addr2line: a run of addresses in a few
	 * functions reads only their units. Its load returns while a thread
	 * still inflates .debug_info: the symbol tables are read meanwhile. */
	a->dwarf = dwarf_info__load_flags(binary, debugfile, DWARF_LOAD_LAZY);
	if (!a->dwarf) {
		*dwarf_errno = errno;
		if (errno == ENOMEM) {
			err = ENOMEM;
			goto fail;
		}
	}
	err = -read_sections(a);
	if (!err)
		err = -read_symbols(a->elf, &a->main);
	if (err)
		goto fail;
	if (debugfile) {
		a->debug_fd = open(debugfile, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		a->debug_elf = a->debug_fd >= 0 ? elf_begin(a->debug_fd, ELF_C_READ, NULL) : NULL;
		if (a->debug_elf && elf_kind(a->debug_elf) == ELF_K_ELF &&
		    read_symbols(a->debug_elf, &a->debug) == -ENOMEM) {
			err = ENOMEM;
			goto fail;
		}
	}
	if (a->dwarf && (err = -dwarf_info__ready(a->dwarf))) {
		/* Unreadable after all: as if there were none. */
		*dwarf_errno = err;
		dwarf_info__free(a->dwarf);
		a->dwarf = NULL;
		if (err == ENOMEM)
			goto fail;
		err = 0;
	}
	if (a->dwarf) {
		size_t n = dwarf_info__nunits(a->dwarf);

		a->decoded = calloc(n ? n : 1, 1);
		if (!a->decoded || track_funcs(a)) {
			err = ENOMEM;
			goto fail;
		}
	}
	return a;
fail:
	addr2line__free(a);
	errno = err;
	return NULL;
}

size_t addr2line__split_missing(const struct addr2line *a, const char **first)
{
	*first = NULL;
	return a->dwarf ? dwarf_info__split_missing(a->dwarf, first) : 0;
}

void addr2line__free(struct addr2line *a)
{
	if (!a)
		return;
	dwarf_info__free(a->dwarf);
	elf_end(a->elf);
	elf_end(a->debug_elf);
	if (a->fd >= 0)
		close(a->fd);
	if (a->debug_fd >= 0)
		close(a->debug_fd);
	free(a->secs);
	free(a->main.syms);
	free(a->debug.syms);
	free(a->settled);
	free(a->renamed);
	free(a->decoded);
	free(a->text.p);
	free(a);
}

static const struct a2l_section *find_section(const struct addr2line *a, uint64_t pc)
{
	size_t i;

	for (i = 0; i < a->nsecs; i++)
		if (pc >= a->secs[i].addr && pc - a->secs[i].addr < a->secs[i].size)
			return &a->secs[i];
	return NULL;
}

/* BFD's better_fit() among symbols with the same value, `sym` against the
 * best so far. */
static int better_fit(const struct a2l_sym *best, const struct a2l_sym *sym, uint64_t pc)
{
	if (best->value + best->size <= pc)
		return sym->size > best->size; /* the one reaching further */
	if (sym->value + sym->size > pc) {
		if (best->notype != sym->notype)
			return best->notype; /* a typed symbol over a NOTYPE one */
		return sym->size < best->size;
	}
	return 0;
}

/* The function symbol BFD names for pc in section `sec`, or NULL. */
static const struct a2l_sym *nearest(const struct symtab *t, size_t sec, uint64_t pc)
{
	const struct a2l_sym *best;
	size_t lo = 0, hi = t->nsyms, first, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct a2l_sym *s = &t->syms[mid];

		if (s->section < sec || (s->section == sec && s->value <= pc))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || t->syms[lo - 1].section != sec)
		return NULL;
	first = lo - 1;
	while (first && t->syms[first - 1].section == sec &&
	       t->syms[first - 1].value == t->syms[lo - 1].value)
		first--;
	best = &t->syms[first];
	for (i = first + 1; i < lo; i++)
		if (better_fit(best, &t->syms[i], pc))
			best = &t->syms[i];
	return best;
}

/* The symbols of the file the DWARF came from first (a separate debug
 * file keeps the full .symtab and its STT_FILE names), then the binary's. */
static const struct a2l_sym *find_function(const struct addr2line *a, size_t sec, uint64_t pc)
{
	const struct a2l_sym *s = a->dwarf ? nearest(&a->debug, sec, pc) : NULL;

	return s ? s : nearest(&a->main, sec, pc);
}

/* One address's answer is put together in a->text and written with one
 * fwrite(): a run prints several lines per address, and stdio's per-call
 * lock and format parsing were a tenth of a run. */
static void put_mem(struct text *t, const char *p, size_t len)
{
	if (t->oom)
		return;
	if (t->n + len > t->cap) {
		size_t cap = t->cap ? t->cap : 4096;
		char *q;

		while (cap < t->n + len)
			cap *= 2;
		q = realloc(t->p, cap);
		if (!q) {
			t->oom = 1;
			return;
		}
		t->p = q;
		t->cap = cap;
	}
	memcpy(t->p + t->n, p, len);
	t->n += len;
}

static void put_str(struct text *t, const char *str)
{
	put_mem(t, str, strlen(str));
}

static void put_u32(struct text *t, uint32_t v)
{
	char buf[10];
	size_t i = sizeof(buf);

	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put_mem(t, buf + i, sizeof(buf) - i);
}

static void print_name(struct text *t, const char *name, const struct addr2line_opts *o)
{
	char *d = NULL;

	if (!name || !*name)
		name = "??";
	else if (o->demangle)
		d = demangle(name);
	put_str(t, d ? d : name);
	free(d);
}

static void print_location(struct text *t, const char *file, uint32_t line, uint32_t disc,
			   const struct addr2line_opts *o)
{
	if (o->basenames && file) {
		const char *slash = strrchr(file, '/');

		if (slash)
			file = slash + 1;
	}
	put_str(t, file ? file : "??");
	if (!line) {
		put_str(t, ":?\n");
		return;
	}
	put_mem(t, ":", 1);
	put_u32(t, line);
	if (disc) {
		put_str(t, " (discriminator ");
		put_u32(t, disc);
		put_mem(t, ")", 1);
	}
	put_mem(t, "\n", 1);
}

void addr2line__prefetch(struct addr2line *a, const uint64_t *pcs, size_t n)
{
	size_t i;

	if (!a->dwarf)
		return;
	/* Only addresses addr2line__print() asks DWARF about. */
	for (i = 0; i < n; i++)
		if (find_section(a, pcs[i]))
			dwarf_info__prefetch(a->dwarf, &pcs[i], 1);
}

int addr2line__print(struct addr2line *a, uint64_t pc, const struct addr2line_opts *o,
		     FILE *out)
{
	struct src_frame frames[MAX_FRAMES];
	const struct a2l_section *sec;
	const struct a2l_sym *sym = NULL;
	const char *name = NULL, *file = NULL;
	uint32_t line = 0, disc = 0;
	size_t n = 0, k;
	int found = 0;
	struct text *t = &a->text;

	if (o->addresses) {
		fprintf(out, "0x%016" PRIx64, pc);
		fputs(o->pretty ? ": " : "\n", out);
	}
	sec = find_section(a, pc);
	if (sec && a->dwarf) {
		n = dwarf_info__lookup_bfd(a->dwarf, pc, a->decoded, frames, MAX_FRAMES);
		if (dwarf_info__failed(a->dwarf) || track_funcs(a))
			return -ENOMEM;
	}
	if (n && frames[0].func != UINT32_MAX) {
		uint32_t f = frames[0].func;

		name = frames[0].function;
		file = frames[0].file;
		if (!(frames[0].flags & SRC_FRAME_LINKAGE) && !a->settled[f]) {
			sym = find_function(a, sec->index, pc);
			if (sym && !file)
				file = sym->file;
			if (sym && sym->value == frames[0].func_low)
				a->renamed[f] = sym->name;
			a->settled[f] = 1;
			if (sym)
				name = sym->name; /* this time only, unless renamed */
		} else if (a->renamed[f]) {
			name = a->renamed[f];
		}
	} else if (sec) {
		file = n ? frames[0].file : NULL;
		sym = find_function(a, sec->index, pc);
		if (sym) {
			name = sym->name;
			if (!file)
				file = sym->file;
		}
	}
	if (n) {
		line = frames[0].line;
		disc = frames[0].discriminator;
	}
	found = n || sym;
	if (!found) {
		if (o->functions)
			fputs(o->pretty ? "?? " : "??\n", out);
		fputs("??:0\n", out);
		return ferror(out) ? -EIO : 0;
	}
	t->n = 0;
	for (k = 0;; k++) {
		if (o->functions) {
			print_name(t, name, o);
			put_str(t, o->pretty ? " at " : "\n");
		}
		print_location(t, file, line, disc, o);
		if (!o->inlines || k + 1 >= n)
			break;
		name = frames[k + 1].function;
		if (a->renamed[frames[k + 1].func])
			name = a->renamed[frames[k + 1].func];
		file = frames[k + 1].file;
		line = frames[k + 1].line;
		if (o->pretty)
			put_str(t, " (inlined by) ");
	}
	if (t->oom)
		return -ENOMEM;
	fwrite_unlocked(t->p, 1, t->n, out);
	return ferror(out) ? -EIO : 0;
}
