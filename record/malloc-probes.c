/* malloc-probes.c: where `prof record --malloc` puts its probes. The
 * allocator is found among the files the target maps (/proc/PID/maps): a
 * jemalloc or tcmalloc first (it replaces the C library's malloc), else
 * the C library, else the program itself (a static binary with its
 * symbols). Its functions are found by symbol (.symtab, else .dynsym, as
 * `uprobe:PATH:SYMBOL` is): malloc, calloc, realloc, memalign,
 * aligned_alloc, posix_memalign (jemalloc's je_*, tcmalloc's tc_* when
 * the plain names are absent), each with a uprobe on its entry (event
 * "uprobe:malloc": the size arguments) and a uretprobe (event "uretprobe:malloc":
 * the address); with --leaks, free's entry and realloc's again (event
 * "uprobe:malloc:free": the block given back) attached all along, not in
 * windows, so that every sampled block's free is seen. Two names at one
 * address (glibc's aligned_alloc is memalign) are probed once.
 *
 * Launch mode (`-- CMD`): the command does not run yet, so the C library
 * is the one prof maps (the system's), or a jemalloc/tcmalloc in
 * LD_PRELOAD; a static command is probed in its own binary. */
#include "recorder.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/grow.h"

static const char *const fn_names[MALLOC_FN_N] = {
    [MALLOC_FN_MALLOC] = "malloc",
    [MALLOC_FN_CALLOC] = "calloc",
    [MALLOC_FN_REALLOC] = "realloc",
    [MALLOC_FN_MEMALIGN] = "memalign",
    [MALLOC_FN_POSIX_MEMALIGN] = "posix_memalign",
    [MALLOC_FN_FREE] = "free",
};

enum alloc_rank { RANK_NONE = 0, RANK_PROGRAM, RANK_LIBC, RANK_REPLACEMENT };

static enum alloc_rank rank_of(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (strstr(base, "jemalloc") || strstr(base, "tcmalloc"))
		return RANK_REPLACEMENT;
	if (!strncmp(base, "libc.so", 7) || !strncmp(base, "libc-", 5))
		return RANK_LIBC;
	return RANK_PROGRAM;
}

/* The file offset of NAME in path, or of its je_/tc_ spelling. 0 or
 * -ENOENT (*any: the file has symbols at all), -errno. */
static int find_fn(const char *path, const char *name, uint64_t *off, int *any)
{
	static const char *const prefix[] = {"", "je_", "tc_"};
	char sym[64];
	uint64_t size;
	int err = -ENOENT;

	*any = 0;
	for (size_t i = 0; i < 3 && err == -ENOENT; i++) {
		int a = 0;

		snprintf(sym, sizeof(sym), "%s%s", prefix[i], name);
		err = elf_symbol_file_offset(path, sym, 0, off, &size, &a);
		*any |= a;
	}
	return err;
}

/* Does the ELF file at path ask for a dynamic loader (PT_INTERP)? 1, 0
 * (static), or -errno. */
static int is_dynamic(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	FILE *f = fopen(path, "re");
	int dyn = 0;

	if (!f)
		return -errno;
	if (fread(&eh, sizeof(eh), 1, f) != 1 || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(ph)) {
		fclose(f);
		return -ENOEXEC;
	}
	for (unsigned i = 0; i < eh.e_phnum && !dyn; i++)
		if (fseek(f, (long)(eh.e_phoff + (uint64_t)i * sizeof(ph)), SEEK_SET) ||
		    fread(&ph, sizeof(ph), 1, f) != 1)
			break;
		else
			dyn = ph.p_type == PT_INTERP;
	fclose(f);
	return dyn;
}

/* Picks the allocator among pid's binaries (pid 0: prof's own, for a
 * launched command) into out: the best rank whose file defines malloc. */
static int pick_among(pid_t pid, char *out, size_t len, enum alloc_rank *best)
{
	struct probe_binary *bins;
	size_t n;
	int err = probe_binaries_of(pid ? pid : getpid(), &bins, &n);

	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		enum alloc_rank r = rank_of(bins[i].path);
		uint64_t off;
		int any;

		if (!pid && r == RANK_PROGRAM)
			continue; /* prof itself */
		if (r > *best && !find_fn(bins[i].open_path, "malloc", &off, &any)) {
			snprintf(out, len, "%s", bins[i].open_path);
			*best = r;
		}
	}
	probe_binaries_free(bins, n);
	return 0;
}

static int find_allocator(struct recorder *rec, char *out, size_t len)
{
	const struct record_opts *o = rec->opts;
	enum alloc_rank best = RANK_NONE;
	char prog[PATH_BUF];
	const char *pre = getenv("LD_PRELOAD");
	uint64_t off;
	int any, err;

	if (o->npids) {
		err = pick_among(o->pids[0], out, len, &best);
		if (err == -ESRCH || err == -ENOENT)
			return prof_error_set(rec->err, -ESRCH, NULL, "no process %d",
					      (int)o->pids[0]);
		if (err)
			return prof_error_set(rec->err, err, NULL,
					      "cannot read process %d's mappings: %s",
					      (int)o->pids[0], strerror(-err));
		if (best == RANK_NONE)
			return prof_error_set(
			    rec->err, -ENOENT,
			    "a static binary needs its symbol table (not stripped) "
			    "for --malloc",
			    "no malloc in the files process %d maps (no C library, "
			    "and none of them has the symbol)",
			    (int)o->pids[0]);
		return 0;
	}
	if (probe_find_program(o->argv[0], prog, sizeof(prog)))
		return prof_error_set(rec->err, -ENOENT, NULL, "cannot find '%s'", o->argv[0]);
	if (is_dynamic(prog) == 0) {
		err = find_fn(prog, "malloc", &off, &any);
		if (err)
			return prof_error_set(
			    rec->err, -ENOENT,
			    "a static binary needs its symbol table (not stripped) "
			    "for --malloc",
			    "'%s' is static and has no malloc symbol", prog);
		snprintf(out, len, "%s", prog);
		return 0;
	}
	if (pre && (strstr(pre, "jemalloc") || strstr(pre, "tcmalloc"))) {
		size_t n = strcspn(pre, ": ");

		snprintf(out, len, "%.*s", (int)n, pre);
		if (!find_fn(out, "malloc", &off, &any))
			return 0;
	}
	err = pick_among(0, out, len, &best);
	if (err || best == RANK_NONE)
		return prof_error_set(rec->err, -ENOENT,
				      "attach to the running command with -p PID", "%s",
				      "cannot find the C library to probe");
	return 0;
}

static int add_def(struct probe_def **defs, size_t *n, size_t *cap, const char *path,
		   const char *event, enum probe_kind kind, enum probe_role role, int func,
		   uint64_t off)
{
	static const uint8_t arg_reg[3] = {USDT_REG_DI, USDT_REG_SI, USDT_REG_DX};
	struct probe_def *d;

	if (GROW(*defs, *cap, *n + 1))
		return -ENOMEM;
	d = &(*defs)[(*n)++];
	memset(d, 0, sizeof(*d));
	snprintf(d->event, sizeof(d->event), "%s", event);
	snprintf(d->path, sizeof(d->path), "%s", path);
	d->kind = kind;
	d->role = role;
	d->func = func;
	d->offset = off;
	d->continuous = role == PROBE_ROLE_FREE;
	/* System V: arguments in rdi, rsi, rdx; the result in rax */
	d->nargs = role == PROBE_ROLE_MALLOC ? 3 : 1;
	for (int k = 0; k < d->nargs; k++)
		d->arg[k] =
		    (struct usdt_arg){.kind = USDT_ARG_REG,
				      .size = 8,
				      .reg = kind == PROBE_URETPROBE ? USDT_REG_AX : arg_reg[k],
				      .index = USDT_REG_NONE};
	return 0;
}

int malloc_probes_add(struct recorder *rec, struct probe_def **defs, size_t *n, size_t *cap)
{
	static const char *const aliases[] = {"aligned_alloc"}; /* memalign's twin */
	char path[PATH_BUF];
	const char *shown = path;
	uint64_t offs[MALLOC_FN_N + 1];
	size_t noffs = 0, nfound = 0;
	int err = find_allocator(rec, path, sizeof(path)), any = 0;

	if (err)
		return err;
	for (int f = 0; f <= MALLOC_FN_N && !err; f++) {
		int fn = f == MALLOC_FN_N ? MALLOC_FN_MEMALIGN : f;
		const char *name = f == MALLOC_FN_N ? aliases[0] : fn_names[f];
		uint64_t off;
		size_t j;

		if (fn == MALLOC_FN_FREE && !rec->opts->leaks)
			continue;
		err = find_fn(path, name, &off, &any);
		if (err == -ENOENT) {
			err = 0;
			continue;
		}
		if (err)
			break;
		for (j = 0; j < noffs && offs[j] != off; j++)
			;
		if (j < noffs)
			continue; /* an alias probed already */
		offs[noffs++] = off;
		nfound += fn == MALLOC_FN_MALLOC;
		if (fn == MALLOC_FN_FREE) {
			err = add_def(defs, n, cap, path, "uprobe:malloc:free", PROBE_UPROBE,
				      PROBE_ROLE_FREE, fn, off);
			continue;
		}
		err = add_def(defs, n, cap, path, "uprobe:malloc", PROBE_UPROBE, PROBE_ROLE_MALLOC,
			      fn, off);
		/* the address, for --leaks only: a trap less per call without */
		if (!err && rec->opts->leaks)
			err = add_def(defs, n, cap, path, "uretprobe:malloc", PROBE_URETPROBE,
				      PROBE_ROLE_MALLOC_RET, fn, off);
		/* realloc gives its old block back: a free to see all along */
		if (!err && fn == MALLOC_FN_REALLOC && rec->opts->leaks)
			err = add_def(defs, n, cap, path, "uprobe:malloc:free", PROBE_UPROBE,
				      PROBE_ROLE_FREE, fn, off);
	}
	if (err == -ENOMEM)
		return prof_error_set(rec->err, err, NULL, "%s", "out of memory");
	if (err)
		return prof_error_set(rec->err, err, NULL, "cannot read '%s': %s", path,
				      strerror(-err));
	if (!nfound)
		return prof_error_set(rec->err, -ENOENT,
				      any ? NULL
					  : "install the library's unstripped build, or one that "
					    "keeps its .dynsym",
				      "no malloc symbol in '%s'%s", path,
				      any ? "" : " (it has no symbol table)");
	if (!rec->opts->quiet && getenv("PROF_DEBUG_MALLOC"))
		fprintf(stderr, "prof record: --malloc probes %s\n", path);
	/* as the process sees it, not /proc/PID/root/PATH */
	if (!strncmp(path, "/proc/", 6) && strstr(path, "/root/"))
		shown = strstr(path, "/root/") + 5;
	return rec_writer__meta(rec->w, "malloc-allocator", shown) ? -ENOMEM : 0;
}

void malloc_site_attr(struct probe_site *s)
{
	struct perf_event_attr *a = s->attr;
	unsigned r = s->def.arg[0].reg;

	if (s->def.role != PROBE_ROLE_MALLOC_RET && s->def.role != PROBE_ROLE_FREE)
		return;
	/* one register, no stack: the address is all these hits carry */
	a->exclude_callchain_user = 1;
	a->sample_type &= ~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	a->sample_type |= PERF_SAMPLE_REGS_USER;
	a->sample_regs_user = 1ULL << r;
	a->sample_stack_user = 0;
	memset(s->reg_pos, 0xff, sizeof(s->reg_pos));
	s->reg_pos[r] = 0;
	s->nregs = 1;
	s->regs_mask = a->sample_regs_user;
	s->stack_size = 0;
}

size_t malloc_site_pages(const struct probe_site *s)
{
	switch (s->def.role) {
	case PROBE_ROLE_MALLOC:
		return 1024; /* 4 MiB a CPU, as --alloc's: a stack per hit */
	case PROBE_ROLE_MALLOC_RET:
	case PROBE_ROLE_FREE:
		return 256; /* about 64 bytes a hit: 16k hits a quarter ring */
	default:
		return 0;
	}
}
