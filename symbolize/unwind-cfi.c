/* unwind-cfi.c: the unwinder's binaries and CFI rows (unwind.h).
 *
 * A binary is opened once per (device, inode) (the vdso once, from our own
 * process: the kernel maps the same image into every 64-bit process) and
 * its .eh_frame read through libdw; .debug_frame is tried when .eh_frame has
 * nothing for a pc. libdw's dwarf_cfi_addrframe() runs the CFI program from
 * the start of the function each time it is called, so its answer for a pc
 * is compiled once into an unw_row (rules of the CFA and of the seven
 * registers an unwind needs) and found again by a hash of (binary, vaddr):
 * work per frame after the first sight of a pc is O(1). */
#include "unwind-internal.h"

#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/grow.h"
#include "lib/path-buf.h"
#include "symbolize/vdso.h"

#define DELETED_SUFFIX	 " (deleted)"
#define MAX_OPS_PER_RULE 64
#define ENTRY_SLACK	 16 /* bytes after e_entry still "the entry point" */

const uint8_t unw_tracked[UNW_NTRACKED] = {
    UNWIND_RBX, UNWIND_RBP, UNWIND_R12, UNWIND_R13, UNWIND_R14, UNWIND_R15, UNWIND_RIP,
};

const char *unwind_status_name(enum unwind_status s)
{
	static const char *const names[UNWIND_NSTATUS] = {
	    "root",	  "stack-cut", "no-mapping",  "no-cfi",
	    "bad-memory", "bad-cfi",   "no-progress", "max-frames",
	};

	return (unsigned)s < UNWIND_NSTATUS ? names[s] : "unknown";
}

struct unwinder *unwinder__new(const struct unwind_opts *opts)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->opts = *opts;
	elf_version(EV_CURRENT);
	if (keymap__init(&u->by_file, 64) || keymap__init(&u->by_mapping, 256) ||
	    keymap__init(&u->row_ids, 4096)) {
		unwinder__free(u);
		errno = ENOMEM;
		return NULL;
	}
	return u;
}

static void binary_release(struct unw_binary *b)
{
	if (b->eh)
		dwarf_cfi_end(b->eh);
	if (b->dw)
		dwarf_end(b->dw);
	if (b->elf)
		elf_end(b->elf);
	if (b->fd >= 0)
		close(b->fd);
	free(b->image);
	free(b->segs);
}

void unwinder__free(struct unwinder *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->nbins; i++)
		binary_release(&u->bins[i]);
	free(u->bins);
	free(u->rows);
	free(u->ops);
	keymap__release(&u->by_file);
	keymap__release(&u->by_mapping);
	keymap__release(&u->row_ids);
	free(u);
}

void unwinder__stats(const struct unwinder *u, struct unwinder_stats *st)
{
	*st = u->st;
	st->rows = u->nrows;
}

/* Reads the PT_LOAD segments and the CFI of b->elf. 0, or -ENOEXEC for an
 * ELF that is not x86-64, -ENOMEM. */
static int binary_setup(struct unw_binary *b)
{
	GElf_Ehdr eh;
	size_t n, i, cap = 0;

	if (elf_kind(b->elf) != ELF_K_ELF || !gelf_getehdr(b->elf, &eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64 ||
	    elf_getphdrnum(b->elf, &n))
		return -ENOEXEC;
	b->entry = eh.e_entry;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(b->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (GROW(b->segs, cap, b->nsegs + 1))
			return -ENOMEM;
		b->segs[b->nsegs++] = (struct unw_seg){
		    .off = ph.p_offset,
		    .filesz = ph.p_filesz,
		    .vaddr = ph.p_vaddr,
		};
	}
	b->eh = dwarf_getcfi_elf(b->elf);
	return 0;
}

static int add_binary(struct unwinder *u, struct unw_binary *b, uint32_t *idx)
{
	if (GROW(u->bins, u->bins_cap, u->nbins + 1))
		return -ENOMEM;
	u->bins[u->nbins] = *b;
	*idx = (uint32_t)u->nbins++;
	u->st.binaries++;
	return 0;
}

/* Our own vdso (vdso.c), which is the target's too. Index + 1, or 0. */
static uint32_t vdso_binary(struct unwinder *u)
{
	struct unw_binary b = {.fd = -1};
	const void *img;
	size_t size, map_size;
	uint32_t idx;

	if (u->vdso_tried)
		return u->vdso_bin;
	u->vdso_tried = 1;
	if (vdso_image(&img, &size, &map_size) || !(b.image = malloc(size)))
		return 0;
	memcpy(b.image, img, size);
	b.elf = elf_memory(b.image, size);
	if (!b.elf || binary_setup(&b) || add_binary(u, &b, &idx)) {
		binary_release(&b);
		return 0;
	}
	u->vdso_bin = idx + 1;
	return u->vdso_bin;
}

/* Paths in /proc/PID/maps that name no file we could open. */
static int pseudo_path(const char *p)
{
	return p[0] != '/' || !strncmp(p, "//anon", 6) || !strncmp(p, "/memfd:", 7) ||
	       !strncmp(p, "/dev/", 5) || !strncmp(p, "/SYSV", 5) ||
	       !strncmp(p, "/anon_hugepage", 14);
}

static int open_file(const struct unwinder *u, uint32_t pid, const char *path)
{
	char clean[4096], file[PATH_BUF];
	size_t len = strlen(path), sl = strlen(DELETED_SUFFIX);
	int fd;

	if (len >= sizeof(clean))
		return -1;
	memcpy(clean, path, len + 1);
	if (len > sl && !strcmp(clean + len - sl, DELETED_SUFFIX))
		clean[len - sl] = '\0';
	if (u->opts.root_prefix) {
		snprintf(file, sizeof(file), "%s%s", u->opts.root_prefix, clean);
		return open(file, O_RDONLY | O_CLOEXEC);
	}
	snprintf(file, sizeof(file), "/proc/%u/root%s", (unsigned)pid, clean);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	return fd >= 0 ? fd : open(clean, O_RDONLY | O_CLOEXEC);
}

/* The binary of mapping m: index + 1, or 0 when it cannot be read. */
static uint32_t binary_for(struct unwinder *u, uint32_t pid, const struct unwind_map *m)
{
	struct unw_binary b = {.fd = -1};
	struct stat st;
	uint32_t v, idx;

	if (keymap__get(&u->by_mapping, m->id, 0, &v))
		return v;
	v = 0;
	if (!strcmp(m->path, "[vdso]")) {
		v = vdso_binary(u);
	} else if (!pseudo_path(m->path)) {
		b.fd = open_file(u, pid, m->path);
		if (b.fd >= 0 && !fstat(b.fd, &st) && S_ISREG(st.st_mode)) {
			if (keymap__get(&u->by_file, st.st_dev, st.st_ino, &v)) {
				v++;
			} else {
				b.elf = elf_begin(b.fd, ELF_C_READ, NULL);
				if (b.elf && !binary_setup(&b) && !add_binary(u, &b, &idx)) {
					v = idx + 1;
					b.fd = -1; /* now owned by u->bins */
					keymap__put(&u->by_file, st.st_dev, st.st_ino, idx, NULL);
				} else {
					binary_release(&b);
					b.fd = -1;
				}
			}
		}
		if (b.fd >= 0)
			close(b.fd);
		if (!v)
			u->st.binaries_missing++;
	}
	keymap__set(&u->by_mapping, m->id, 0, v);
	return v;
}

static int vaddr_of(const struct unw_binary *b, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < b->nsegs; i++) {
		if (off >= b->segs[i].off && off - b->segs[i].off < b->segs[i].filesz) {
			*vaddr = off - b->segs[i].off + b->segs[i].vaddr;
			return 1;
		}
	}
	return 0;
}

/* Copies ops into the pool; the rule refers to them. 0 or -1. */
static int keep_ops(struct unwinder *u, struct unw_rule *r, const Dwarf_Op *ops, size_t n)
{
	size_t i;

	if (n > MAX_OPS_PER_RULE || u->nops + n > UINT32_MAX ||
	    GROW(u->ops, u->ops_cap, u->nops + n))
		return -1;
	r->ops = (uint32_t)u->nops;
	r->nops = (uint16_t)n;
	for (i = 0; i < n; i++)
		u->ops[u->nops++] = (struct unw_op){
		    .atom = ops[i].atom,
		    .n1 = ops[i].number,
		    .n2 = ops[i].number2,
		};
	return 0;
}

static int compile_cfa(struct unwinder *u, Dwarf_Frame *fr, struct unw_rule *r)
{
	Dwarf_Op *ops;
	size_t n;

	if (dwarf_frame_cfa(fr, &ops, &n) || !n)
		return -1;
	if (n == 1 && ops[0].atom == DW_OP_bregx && ops[0].number < UNWIND_NREGS) {
		*r = (struct unw_rule){
		    .kind = UNW_REG, .reg = (uint8_t)ops[0].number, .off = (int64_t)ops[0].number2};
		return 0;
	}
	r->kind = UNW_VAL_EXPR;
	return keep_ops(u, r, ops, n);
}

static int compile_reg(struct unwinder *u, Dwarf_Frame *fr, int regno, struct unw_rule *r)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	int val = 0;

	if (dwarf_frame_register(fr, regno, mem, &ops, &n))
		return -1;
	if (!n) {
		r->kind = ops ? UNW_UNDEF : UNW_SAME;
		return 0;
	}
	if (ops[n - 1].atom == DW_OP_stack_value) {
		val = 1;
		n--;
	}
	if (n >= 1 && n <= 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	    (n == 1 || ops[1].atom == DW_OP_plus_uconst)) {
		r->kind = val ? UNW_VAL_CFA : UNW_AT_CFA;
		r->off = n == 2 ? (int64_t)ops[1].number : 0;
		return 0;
	}
	r->kind = val ? UNW_VAL_EXPR : UNW_AT_EXPR;
	return keep_ops(u, r, ops, n);
}

static Dwarf_CFI *debug_cfi(struct unw_binary *b)
{
	if (!b->dbg_tried) {
		b->dbg_tried = 1;
		if (b->elf && (b->dw = dwarf_begin_elf(b->elf, DWARF_C_READ, NULL)))
			b->dbg = dwarf_getcfi(b->dw);
	}
	return b->dbg;
}

/* Fills *row from the CFI of b at vaddr; row->no_cfi when there is none. */
static void compile_row(struct unwinder *u, struct unw_binary *b, uint64_t vaddr,
			struct unw_row *row)
{
	Dwarf_Frame *fr = NULL;
	Dwarf_CFI *dbg;
	bool signal = false;
	size_t i;

	memset(row, 0, sizeof(*row));
	if (!b->eh || dwarf_cfi_addrframe(b->eh, vaddr, &fr)) {
		fr = NULL;
		dbg = debug_cfi(b);
		if (!dbg || dwarf_cfi_addrframe(dbg, vaddr, &fr))
			fr = NULL;
	}
	if (!fr) {
		row->no_cfi = 1;
		/* The return address of the entry point's first call (ld.so:
		 * "mov %rsp,%rdi; call _dl_start"). */
		row->entry = b->entry && vaddr >= b->entry && vaddr - b->entry < ENTRY_SLACK;
		return;
	}
	if (dwarf_frame_info(fr, NULL, NULL, &signal) != UNWIND_RIP ||
	    compile_cfa(u, fr, &row->cfa)) {
		row->no_cfi = 1;
		free(fr);
		return;
	}
	row->signal = signal;
	for (i = 0; i < UNW_NTRACKED; i++)
		if (compile_reg(u, fr, unw_tracked[i], &row->regs[i]))
			row->regs[i].kind = UNW_UNDEF;
	free(fr);
}

static const struct unw_row *find_row(struct unwinder *u, uint32_t pid, uint64_t pc,
				     enum unwind_status *status);

const struct unw_row *unw_find_row(struct unwinder *u, uint32_t pid, uint64_t pc,
				   enum unwind_status *status)
{
	const struct unw_row *row;
	struct unw_memo *me;
	uint64_t gen;

	if (!u->opts.map_generation)
		return find_row(u, pid, pc, status);
	gen = *u->opts.map_generation;
	me = &u->memo[(keymap_mix64(pc ^ (uint64_t)pid << 48)) & (UNW_MEMO_SIZE - 1)];
	if (me->used && me->pc == pc && me->pid == pid && me->generation == gen) {
		*status = (enum unwind_status)me->status;
		return me->row ? &u->rows[me->row - 1] : NULL;
	}
	row = find_row(u, pid, pc, status);
	if (!row && *status == UNWIND_BAD_CFI)
		return NULL; /* out of memory: ask again next time */
	*me = (struct unw_memo){
	    .pc = pc, .generation = gen, .pid = pid,
	    .row = row ? (uint32_t)(row - u->rows) + 1 : 0,
	    .status = row ? 0 : (uint8_t)*status, .used = 1,
	};
	return row;
}

static const struct unw_row *find_row(struct unwinder *u, uint32_t pid, uint64_t pc,
				     enum unwind_status *status)
{
	struct unwind_map m;
	struct unw_binary *b;
	uint64_t vaddr;
	uint32_t bin, id;

	if (!u->opts.find_map(u->opts.ctx, pid, pc, &m) || pc < m.start || pc >= m.end) {
		*status = UNWIND_NO_MAPPING;
		return NULL;
	}
	bin = binary_for(u, pid, &m);
	if (!bin) {
		*status = UNWIND_NO_CFI;
		return NULL;
	}
	b = &u->bins[bin - 1];
	if (!vaddr_of(b, pc - m.start + m.pgoff, &vaddr)) {
		*status = UNWIND_NO_CFI;
		return NULL;
	}
	if (keymap__get(&u->row_ids, bin, vaddr, &id))
		return &u->rows[id];
	if (u->nrows >= UINT32_MAX - 1 || GROW(u->rows, u->rows_cap, u->nrows + 1) ||
	    keymap__put(&u->row_ids, bin, vaddr, (uint32_t)u->nrows, NULL) < 0) {
		*status = UNWIND_BAD_CFI;
		return NULL;
	}
	compile_row(u, b, vaddr, &u->rows[u->nrows]);
	return &u->rows[u->nrows++];
}
