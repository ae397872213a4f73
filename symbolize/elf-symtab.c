/* elf-symtab.c: one ELF binary's function symbols, for turning sampled
 * addresses into names (see symbolize.h).
 *
 * elf_symtab__load() reads .symtab and .dynsym with libelf, keeps the function
 * symbols, sorts them by address and drops aliases, so that a lookup is one
 * binary search. It also keeps the PT_LOAD segments (to turn a file offset
 * into a virtual address) and the GNU build-id.
 *
 * The file is untrusted: every index, offset and size read from it is checked
 * before use, and a file libelf cannot parse is ENOEXEC. The work is linear in
 * the size of the symbol and string tables plus one sort: one pass over each
 * table, and one memcpy of each string table that names a kept symbol (names
 * then cost no allocation and no strlen of their own).
 *
 * A stripped binary (no .symtab) takes its symbols from its separate debug
 * file (debuginfo.c) or, failing that, from its MiniDebugInfo
 * (.gnu_debugdata, minidebuginfo.c), merged with its .dynsym; its own
 * PT_LOAD segments and build-id are kept either way. A binary without
 * DWARF also notes its debug file, for the DWARF reader. */
#include "symbolize.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/grow.h"
#include "symbolize/debuginfo.h"
#include "symbolize/elf-file.h"

#define NAME_CMP_MAX 256 /* bytes of a name compared when choosing among aliases */
#define SCAN_BACK 8 /* symbols below the nearest one tried, for nested symbols */

/* Symbol tables by preference among aliases: the binary's .symtab, its
 * debug file's, its MiniDebugInfo's, then .dynsym. */
enum { TAB_SYMTAB, TAB_DEBUG, TAB_MINI, TAB_DYNSYM, NTABS };

/* The ELF files symbols are read from: the binary, its debug file, the
 * decompressed MiniDebugInfo image. */
enum { SRC_BIN, SRC_DEBUG, SRC_MINI, NSRCS };

static const char *const source_names[] = {
	[TAB_SYMTAB] = "symtab", [TAB_DEBUG] = "debuginfo",
	[TAB_MINI] = "minidebuginfo", [TAB_DYNSYM] = "dynsym",
};

struct sym {
	uint64_t addr, end; /* covers [addr, end) */
	size_t name;        /* offset in names */
};

struct segment {
	uint64_t offset, filesz, vaddr, memsz;
};

struct elf_symtab {
	struct sym *syms;
	size_t nsyms;
	char *names; /* the string tables of the kept symbols, copied */
	struct segment *segs;
	size_t nsegs;
	char build_id[ELF_BUILD_ID_HEX];
	char *debug_file; /* separate debug file found, or NULL */
	int source;       /* TAB_* of the best table read, or -1 */
};

/* A symbol as read, before sorting and the removal of aliases. */
struct cand {
	uint64_t addr, size;
	uint64_t sec_end;  /* end of its section's addresses; 0: unknown */
	const char *name;  /* in libelf's copy of the string table */
	uint32_t name_off; /* st_name */
	uint8_t table;     /* TAB_* */
	uint8_t notype;    /* STT_NOTYPE rather than a function type */
	uint8_t local, weak;
	uint8_t underscores; /* leading '_', up to 3 */
	uint8_t versioned;   /* "name@VERSION" (not "@@"): an old ABI's alias */
	uint8_t internal;    /* glibc's "__GI_name": a hidden alias for calls inside libc */
};

struct section_info {
	uint64_t addr, end;
	int exec;
};

struct strtab_view {
	const char *data;
	size_t size;  /* bytes in data */
	size_t limit; /* names must start below: after it there is no NUL */
	size_t base;  /* where it goes in elf_symtab.names, once copied */
	int used;
};

struct elf_src {
	Elf *elf;
	size_t shnum;
	struct section_info *secs;
	Elf_Scn *symtab, *dynsym;
	int has_dwarf; /* a .debug_info section with contents */
};

struct loader {
	struct elf_src src[NSRCS];
	struct cand *cands;
	size_t ncands, cands_cap;
	struct strtab_view strs[NTABS];
	int debug_fd;  /* SRC_DEBUG's file, or -1 */
	void *mini;    /* SRC_MINI's image */
};

static int read_sections(struct elf_src *src)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(src->elf, &shstrndx))
		shstrndx = 0;
	src->secs = calloc(src->shnum ? src->shnum : 1, sizeof(*src->secs));
	if (!src->secs)
		return -ENOMEM;
	while ((scn = elf_nextscn(src->elf, scn))) {
		size_t i = elf_ndxscn(scn);
		const char *name;

		if (i >= src->shnum || !gelf_getshdr(scn, &sh))
			return -ENOEXEC;
		src->secs[i].addr = sh.sh_addr;
		src->secs[i].end = sh.sh_addr + sh.sh_size < sh.sh_addr ? UINT64_MAX
									  : sh.sh_addr + sh.sh_size;
		src->secs[i].exec = !!(sh.sh_flags & SHF_EXECINSTR);
		if (sh.sh_type == SHT_SYMTAB && !src->symtab)
			src->symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM && !src->dynsym)
			src->dynsym = scn;
		name = shstrndx ? elf_strptr(src->elf, shstrndx, sh.sh_name) : NULL;
		if (name && sh.sh_type == SHT_PROGBITS && sh.sh_size && !strcmp(name, ".debug_info"))
			src->has_dwarf = 1;
	}
	return 0;
}

/* Maps the string table that symbol table `scn` links to. A link that is not
 * a string table (as in separate debug files, where .dynstr is NOBITS) makes
 * the symbol table unusable, not the file. Returns 1, 0 (skip) or -errno. */
static int open_strtab(const struct elf_src *ld, Elf_Scn *scn, struct strtab_view *v)
{
	GElf_Shdr sh;
	Elf_Scn *str;
	Elf_Data *d;

	if (!gelf_getshdr(scn, &sh))
		return -ENOEXEC;
	if (sh.sh_link == 0 || sh.sh_link >= ld->shnum)
		return 0;
	str = elf_getscn(ld->elf, sh.sh_link);
	if (!str || !gelf_getshdr(str, &sh))
		return -ENOEXEC;
	if (sh.sh_type != SHT_STRTAB)
		return 0;
	d = elf_getdata(str, NULL);
	if (!d)
		return elf_last_error();
	if (!d->d_buf || !d->d_size)
		return 0;
	v->data = d->d_buf;
	v->size = d->d_size;
	/* Every name starting below the last NUL is terminated inside the
	 * table, so checking st_name < limit is all a symbol needs. */
	v->limit = v->size;
	while (v->limit && v->data[v->limit - 1] != '\0')
		v->limit--;
	return v->limit ? 1 : 0;
}

static int want_symbol(const struct elf_src *ld, const GElf_Sym *s, int *notype)
{
	int type = GELF_ST_TYPE(s->st_info);

	if (s->st_shndx == SHN_UNDEF || !s->st_name)
		return 0;
	*notype = type == STT_NOTYPE;
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return 1;
	/* Hand-written assembly often leaves functions untyped: take those
	 * that have a size and live in an executable section. */
	return type == STT_NOTYPE && s->st_size && s->st_shndx < ld->shnum &&
	       s->st_shndx < SHN_LORESERVE && ld->secs[s->st_shndx].exec;
}

/* Leading underscores, up to 3. */
static uint8_t underscores(const char *name)
{
	uint8_t k;

	for (k = 0; k < 3 && name[k] == '_'; k++)
		;
	return k;
}

static int read_symbols(struct loader *ld, const struct elf_src *src, Elf_Scn *scn, int table)
{
	struct strtab_view *v = &ld->strs[table];
	size_t entsize = gelf_fsize(src->elf, ELF_T_SYM, 1, EV_CURRENT);
	size_t i, n;
	Elf_Data *d;
	int r;

	r = open_strtab(src, scn, v);
	if (r <= 0)
		return r;
	d = elf_getdata(scn, NULL);
	if (!d)
		return elf_last_error();
	if (!entsize || d->d_type != ELF_T_SYM)
		return -ENOEXEC;
	n = d->d_size / entsize;
	if (n > INT_MAX) /* gelf_getsym() takes an int */
		return -ENOEXEC;
	if (GROW(ld->cands, ld->cands_cap, ld->ncands + n))
		return -ENOMEM;
	for (i = 1; i < n; i++) {
		struct cand *c = &ld->cands[ld->ncands];
		const char *name;
		int notype;
		GElf_Sym s;

		if (!gelf_getsym(d, (int)i, &s))
			return -ENOEXEC;
		if (!want_symbol(src, &s, &notype) || s.st_name >= v->limit)
			continue;
		name = v->data + s.st_name;
		if (!*name)
			continue;
		c->addr = s.st_value;
		c->size = s.st_size;
		c->sec_end = 0;
		if (s.st_shndx < src->shnum && s.st_shndx < SHN_LORESERVE &&
		    src->secs[s.st_shndx].end > s.st_value && src->secs[s.st_shndx].addr <= s.st_value)
			c->sec_end = src->secs[s.st_shndx].end;
		c->name = name;
		c->name_off = s.st_name;
		c->table = (uint8_t)table;
		c->notype = (uint8_t)notype;
		c->local = GELF_ST_BIND(s.st_info) == STB_LOCAL;
		c->weak = GELF_ST_BIND(s.st_info) == STB_WEAK;
		c->underscores = underscores(name);
		c->versioned = strchr(name, '@') && !strstr(name, "@@");
		c->internal = !strncmp(name, "__GI_", 5);
		ld->ncands++;
	}
	return 0;
}

/* Address order; among aliases at one address the best name comes first,
 * chosen as perf does (tools/perf/util/symbol.c, choose_best_symbol) so
 * that both tools name a function alike, with two differences that give
 * the names users call: after our own .symtab and typed functions first,
 * a sized symbol; a public name over a local one (libc's "write", where
 * perf, preferring any strong symbol to a weak one, says
 * "__GI___libc_write"); not glibc's internal "__GI_" alias (both local
 * in libc's debug file: "__lll_lock_wait", where perf says
 * "__GI___lll_lock_wait"); not weak ("__vdso_gettimeofday" over the weak
 * "gettimeofday"); fewest leading underscores ("malloc" over
 * "__libc_malloc"); a plain or default-version name over an old version's
 * alias ("free", where perf says "cfree@GLIBC_2.2.5"); then, as perf, the
 * longest ("__memmove_avx_unaligned_erms" over "__memcpy_avx_...", one
 * function), and by bytes so the choice does not depend on the order of
 * the file. */
static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;
	size_t la, lb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->table != b->table)
		return a->table - b->table;
	if (a->notype != b->notype)
		return a->notype - b->notype;
	if (!a->size != !b->size)
		return !a->size - !b->size;
	if (a->local != b->local)
		return a->local - b->local;
	if (a->internal != b->internal)
		return a->internal - b->internal;
	if (a->weak != b->weak)
		return a->weak - b->weak;
	if (a->underscores != b->underscores)
		return a->underscores - b->underscores;
	if (a->versioned != b->versioned)
		return a->versioned - b->versioned;
	la = strnlen(a->name, NAME_CMP_MAX);
	lb = strnlen(b->name, NAME_CMP_MAX);
	if (la != lb)
		return la > lb ? -1 : 1;
	return strncmp(a->name, b->name, NAME_CMP_MAX);
}

static int read_segments(Elf *elf, struct elf_symtab *t)
{
	size_t i, n, cap = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return -ENOEXEC;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph))
			return -ENOEXEC;
		if (ph.p_type != PT_LOAD || !ph.p_filesz || ph.p_offset + ph.p_filesz < ph.p_offset)
			continue;
		if (GROW(t->segs, cap, t->nsegs + 1))
			return -ENOMEM;
		t->segs[t->nsegs++] = (struct segment){
			.offset = ph.p_offset,
			.filesz = ph.p_filesz,
			.vaddr = ph.p_vaddr,
			.memsz = ph.p_memsz < ph.p_filesz ? ph.p_filesz : ph.p_memsz,
		};
	}
	return 0;
}

/* Ends an unsized symbol: at the next symbol, but not past its section;
 * the last one with no known section ends with its segment. */
static uint64_t unsized_end(const struct elf_symtab *t, const struct cand *c,
			    const struct cand *next)
{
	uint64_t end = next ? next->addr : UINT64_MAX;
	size_t i;

	if (c->sec_end && c->sec_end < end)
		end = c->sec_end;
	if (end != UINT64_MAX)
		return end;
	for (i = 0; i < t->nsegs; i++) {
		const struct segment *s = &t->segs[i];

		if (c->addr >= s->vaddr && c->addr - s->vaddr < s->memsz)
			return s->vaddr + s->memsz;
	}
	return c->addr; /* covers nothing */
}

static int build_table(struct loader *ld, struct elf_symtab *t)
{
	size_t i, n = 0, total = 0;
	struct cand *c = ld->cands;

	if (ld->ncands)
		qsort(c, ld->ncands, sizeof(*c), cand_cmp);
	/* Keep the first (best) of each address; a sized alias lends its
	 * size to an unsized winner. */
	for (i = 0; i < ld->ncands; i++) {
		if (n && c[n - 1].addr == c[i].addr) {
			if (!c[n - 1].size)
				c[n - 1].size = c[i].size;
			if (!c[n - 1].sec_end)
				c[n - 1].sec_end = c[i].sec_end;
			continue;
		}
		c[n++] = c[i];
		ld->strs[c[i].table].used = 1;
	}
	for (i = 0; i < NTABS; i++) {
		if (!ld->strs[i].used)
			continue;
		ld->strs[i].base = total;
		total += ld->strs[i].limit;
	}
	t->names = malloc(total ? total : 1);
	t->syms = malloc((n ? n : 1) * sizeof(*t->syms));
	if (!t->names || !t->syms)
		return -ENOMEM;
	for (i = 0; i < NTABS; i++)
		if (ld->strs[i].used)
			memcpy(t->names + ld->strs[i].base, ld->strs[i].data, ld->strs[i].limit);
	for (i = 0; i < n; i++) {
		struct sym *s = &t->syms[i];

		s->addr = c[i].addr;
		s->name = ld->strs[c[i].table].base + c[i].name_off;
		if (c[i].size)
			s->end = c[i].addr + c[i].size < c[i].addr ? UINT64_MAX
								    : c[i].addr + c[i].size;
		else
			s->end = unsized_end(t, &c[i], i + 1 < n ? &c[i + 1] : NULL);
	}
	t->nsyms = n;
	return 0;
}

/* Do `n` headers of `size` bytes at `off` lie inside the file? */
static int fits(uint64_t off, size_t n, size_t size, uint64_t file_size)
{
	if (!n)
		return 1;
	if (!size || off > file_size || n > (file_size - off) / size)
		return 0;
	return 1;
}

/* Checks the headers of src->elf against the file's size and reads its
 * sections. 0, -ENOEXEC, -ENOMEM. */
static int open_src(struct elf_src *src, uint64_t file_size)
{
	size_t phnum;
	GElf_Ehdr eh;

	if (elf_kind(src->elf) != ELF_K_ELF || !gelf_getehdr(src->elf, &eh))
		return -ENOEXEC;
	if (elf_getshdrnum(src->elf, &src->shnum) || elf_getphdrnum(src->elf, &phnum))
		return -ENOEXEC;
	/* libelf quietly shows no sections when their headers run past the
	 * end of the file (a truncated copy): that is a corrupt file. */
	if ((eh.e_shnum && src->shnum != eh.e_shnum) ||
	    (eh.e_phnum != PN_XNUM && phnum != eh.e_phnum) ||
	    !fits(eh.e_shoff, src->shnum, gelf_fsize(src->elf, ELF_T_SHDR, 1, EV_CURRENT),
		  file_size) ||
	    !fits(eh.e_phoff, phnum, gelf_fsize(src->elf, ELF_T_PHDR, 1, EV_CURRENT), file_size))
		return -ENOEXEC;
	return read_sections(src);
}

/* Reads the .symtab of an extra source (debug file, MiniDebugInfo) into
 * table `table`. A source that turns out unreadable is dropped with every
 * symbol taken from it: it must never cost the binary's own symbols.
 * Returns 1 when it gave symbols, 0, or -ENOMEM. */
static int read_extra(struct loader *ld, int srcid, uint64_t size, int table)
{
	struct elf_src *src = &ld->src[srcid];
	size_t before = ld->ncands;
	int err = open_src(src, size);

	if (!err && src->symtab)
		err = read_symbols(ld, src, src->symtab, table);
	if (err == -ENOMEM)
		return err;
	if (err) {
		ld->ncands = before;
		memset(&ld->strs[table], 0, sizeof(ld->strs[table]));
	}
	return ld->ncands > before;
}

/* The separate debug file: noted for a binary without DWARF, read for
 * symbols when the binary has no .symtab. 1 (symbols read), 0, -ENOMEM. */
static int load_debug_file(struct loader *ld, struct elf_symtab *t,
			   const struct elf_symtab_opts *o, const char *path)
{
	struct elf_src *bin = &ld->src[SRC_BIN];
	struct debuginfo_query q = {.binary = path, .root = o->root, .dirs = o->debug_dirs,
				    .build_id = t->build_id};
	char found[PATH_MAX];
	struct debuglink link;
	uint64_t size;
	int err;

	if (debuginfo_read_debuglink(bin->elf, &link))
		q.link = &link;
	err = debuginfo_locate(&q, found, sizeof(found));
	if (err)
		return err == -ENOMEM ? err : 0;
	t->debug_file = strdup(found);
	if (!t->debug_file)
		return -ENOMEM;
	if (bin->symtab)
		return 0;
	ld->debug_fd = open(found, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (ld->debug_fd < 0 || elf_fd_regular(ld->debug_fd, &size))
		return 0;
	ld->src[SRC_DEBUG].elf = elf_begin(ld->debug_fd, ELF_C_READ, NULL);
	if (!ld->src[SRC_DEBUG].elf)
		return 0;
	return read_extra(ld, SRC_DEBUG, size, TAB_DEBUG);
}

/* .gnu_debugdata: decompressed (bounded) and read for symbols. 0/-ENOMEM. */
static int load_minidebuginfo(struct loader *ld)
{
	size_t len;
	int err = minidebuginfo_open(ld->src[SRC_BIN].elf, &ld->src[SRC_MINI].elf, &ld->mini,
				     &len);

	if (err <= 0)
		return err;
	err = read_extra(ld, SRC_MINI, len, TAB_MINI);
	return err < 0 ? err : 0;
}

static int load_elf(struct loader *ld, struct elf_symtab *t, uint64_t file_size,
		    const char *path, const struct elf_symtab_opts *o)
{
	struct elf_src *bin = &ld->src[SRC_BIN];
	int err, i, got_debug = 0;

	err = open_src(bin, file_size);
	if (!err)
		err = read_segments(bin->elf, t);
	if (!err && bin->symtab)
		err = read_symbols(ld, bin, bin->symtab, TAB_SYMTAB);
	if (!err && bin->dynsym)
		err = read_symbols(ld, bin, bin->dynsym, TAB_DYNSYM);
	if (err)
		return err;
	elf_build_id_hex(bin->elf, t->build_id);
	if (!o->no_debuginfo && (!bin->symtab || !bin->has_dwarf)) {
		err = load_debug_file(ld, t, o, path);
		if (err < 0)
			return err;
		got_debug = err;
	}
	if (!o->no_debuginfo && !bin->symtab && !got_debug) {
		err = load_minidebuginfo(ld);
		if (err)
			return err;
	}
	err = build_table(ld, t);
	t->source = -1;
	for (i = 0; i < NTABS && t->source < 0; i++)
		if (ld->strs[i].used)
			t->source = i;
	return err;
}

struct elf_symtab *elf_symtab__load(const char *path)
{
	return elf_symtab__load_opts(path, NULL);
}

/* Reads the symbols of `elf` (a file of `size` bytes at `path`, or an
 * image in memory with no path: then no debug file is looked for) and ends
 * it. The table, or NULL with errno set. */
static struct elf_symtab *load_from(Elf *elf, uint64_t size, const char *path,
				    const struct elf_symtab_opts *o)
{
	struct elf_symtab *t = calloc(1, sizeof(*t));
	struct loader ld;
	int err, i;

	memset(&ld, 0, sizeof(ld));
	ld.debug_fd = -1;
	ld.src[SRC_BIN].elf = elf;
	if (!t)
		err = -ENOMEM;
	else
		err = elf ? load_elf(&ld, t, size, path, o) : elf_last_error();
	for (i = 0; i < NSRCS; i++) {
		elf_end(ld.src[i].elf);
		free(ld.src[i].secs);
	}
	if (ld.debug_fd >= 0)
		close(ld.debug_fd);
	free(ld.mini);
	free(ld.cands);
	if (err) {
		elf_symtab__free(t);
		errno = -err;
		return NULL;
	}
	return t;
}

struct elf_symtab *elf_symtab__load_opts(const char *path, const struct elf_symtab_opts *opts)
{
	static const struct elf_symtab_opts defaults;
	const struct elf_symtab_opts *o = opts ? opts : &defaults;
	struct elf_symtab *t;
	uint64_t size;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	err = elf_fd_regular(fd, &size);
	if (err) {
		close(fd);
		errno = -err;
		return NULL;
	}
	/* ELF_C_READ, not _MMAP: libelf reads what we ask for with pread, so
	 * a file truncated under us is an error, not a SIGBUS. */
	elf_version(EV_CURRENT);
	t = load_from(elf_begin(fd, ELF_C_READ, NULL), size, path, o);
	err = errno;
	close(fd);
	errno = err;
	return t;
}

struct elf_symtab *elf_symtab__load_image(const void *image, size_t size)
{
	static const struct elf_symtab_opts only_image = {.no_debuginfo = 1};

	elf_version(EV_CURRENT);
	/* elf_memory() takes a non-const buffer but only reads it (ELF_C_READ). */
	return load_from(elf_memory((char *)(uintptr_t)image, size), size, NULL, &only_image);
}

const char *elf_symtab__debug_file(const struct elf_symtab *t)
{
	return t->debug_file ? t->debug_file : "";
}

const char *elf_symtab__source(const struct elf_symtab *t)
{
	return t->source >= 0 && t->source < NTABS ? source_names[t->source] : "none";
}

void elf_symtab__free(struct elf_symtab *t)
{
	if (!t)
		return;
	free(t->syms);
	free(t->names);
	free(t->segs);
	free(t->debug_file);
	free(t);
}

int elf_symtab__lookup_vaddr(const struct elf_symtab *t, uint64_t vaddr, const char **name,
			     uint64_t *sym_off)
{
	size_t lo = 0, hi = t->nsyms, i;

	/* lo = the first symbol above vaddr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Usually the nearest symbol below covers vaddr or nothing does; a
	 * few more are tried for a function with a symbol nested inside it. */
	for (i = lo; i > 0 && lo - i < SCAN_BACK; i--) {
		const struct sym *s = &t->syms[i - 1];

		if (vaddr < s->end) {
			*name = t->names + s->name;
			*sym_off = vaddr - s->addr;
			return 1;
		}
	}
	return 0;
}

int elf_symtab__offset_to_vaddr(const struct elf_symtab *t, uint64_t file_offset,
				uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < t->nsegs; i++) {
		const struct segment *s = &t->segs[i];

		if (file_offset >= s->offset && file_offset - s->offset < s->filesz) {
			*vaddr = file_offset - s->offset + s->vaddr;
			return 1;
		}
	}
	return 0;
}

int elf_symtab__lookup_offset(const struct elf_symtab *t, uint64_t file_offset,
			      const char **name, uint64_t *sym_off)
{
	uint64_t vaddr;

	if (!elf_symtab__offset_to_vaddr(t, file_offset, &vaddr))
		return 0;
	return elf_symtab__lookup_vaddr(t, vaddr, name, sym_off);
}

const char *elf_symtab__build_id(const struct elf_symtab *t)
{
	return t->build_id;
}

size_t elf_symtab__count(const struct elf_symtab *t)
{
	return t->nsyms;
}
