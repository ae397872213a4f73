/* dwarf-die.c: prof's own reader of .debug_info, for the few attributes
 * the tables need (see dwarf-internal.h), in place of libdw's DIE walk.
 *
 * It gives exactly what dwarf-libdw.c's libdw walk gives (same DIEs
 * entered, same functions in the same order, same ranges and names; the
 * unit test compares the two), at a fraction of the cost: libdw decodes
 * every attribute through a generic lookup per DIE and takes a lock per
 * abbreviation lookup, where here each abbreviation knows whether its
 * attributes have a fixed size (then a DIE that does not matter is skipped
 * in one step), and a subtree that does not matter is jumped over with
 * DW_AT_sibling when there is one.
 *
 * Per unit: its header, its abbreviation table (parsed once per offset and
 * unit shape, codes indexed directly), the unit DIE (language, comp_dir,
 * stmt_list, bases, ranges), then the DIEs in order; the line programs and
 * the assembly of the tables are dwarf-build.c's. .debug_info may still be
 * arriving (dwarf-secs.c inflates it on a thread): a unit is read once all
 * its bytes are there. Names follow DW_AT_abstract_origin / DW_AT_specification
 * as dwarf_attr_integrate() does (16 links at most), across units too.
 * Handles DWARF 2 to 5, address sizes 4 and 8, 32- and 64-bit DWARF.
 * Every read is bounds-checked: malformed data ends the unit (or the walk),
 * never the process. */
#include <dwarf.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "symbolize/dwarf-cursor.h"
#include "symbolize/dwarf-internal.h"
#include "symbolize/dwarf-rules.h"

#define MAX_DEPTH 256          /* as dwarf-libdw.c's walk */
#define MAX_RANGES_PER_DIE 4096
#define MAX_CHAIN 16            /* dwarf_attr_integrate()'s */
#define MAX_CODES (1u << 20)   /* abbreviation codes indexed directly */

/* An attribute specification of a parsed table, decoded once: which
 * struct die field keeps its value (SLOT_*, or SLOT_NONE), its form and,
 * when fixed, its size. */
struct aspec {
	int64_t implicit; /* DW_FORM_implicit_const's value */
	uint32_t form;
	int8_t size;      /* -1: it varies */
	uint8_t slot;
};

/* An abbreviation. Most DIEs are skipped by their fixed size without
 * reading them at all (a libc has 750,000 of them); the others are read
 * through the table's decoded specifications (struct aspec), or, for a
 * unit DIE read without its table (unit_abbrev()), from .debug_abbrev. */
struct abbrev {
	uint32_t attrs;   /* where its specifications start in .debug_abbrev */
	uint32_t n;       /* how many */
	uint32_t spec;    /* the first in its table's specs[] */
	int32_t fixed;    /* size of all its attributes, or -1 when it varies */
	int32_t sib_off;  /* where DW_AT_sibling's value is, when the ones
			     before it have fixed sizes; else -1 */
	uint16_t sib_form;
	uint16_t tag;
	uint8_t children;
	uint8_t sibling;  /* has DW_AT_sibling */
	uint8_t code;     /* has DW_AT_low_pc, DW_AT_high_pc or DW_AT_ranges */
	uint8_t decl;     /* DW_AT_declaration, DW_FORM_flag_present: a
			     declaration whatever the DIE says */
};

/* An abbreviation table as one unit shape reads it (fixed sizes depend on
 * the address and offset sizes). One allocation: ab[] then code[]. */
struct atable {
	uint64_t offset;
	uint8_t addr_size, offset_size, version;
	const unsigned char *sec, *sec_end; /* .debug_abbrev */
	struct abbrev *ab;
	size_t nab;
	uint32_t *code; /* code -> index + 1 (0: none) */
	size_t ncodes;
	struct aspec *specs; /* all abbreviations' (NULL: read them from sec) */
};

/* Iterates over an abbreviation's attribute specifications. */
struct specs {
	struct dw_cursor c;
	uint32_t left;
};

static void specs_start(struct specs *it, const struct atable *t, const struct abbrev *a)
{
	it->c.p = t->sec + a->attrs;
	it->c.end = t->sec_end;
	it->c.bad = 0;
	it->left = a->n;
}

static int specs_next(struct specs *it, uint32_t *at, uint32_t *form, int64_t *implicit)
{
	uint64_t a, f;

	if (!it->left)
		return 0;
	it->left--;
	a = dw_uleb(&it->c);
	f = dw_uleb(&it->c);
	*implicit = f == DW_FORM_implicit_const ? dw_sleb(&it->c) : 0;
	*at = a > UINT32_MAX ? UINT32_MAX : (uint32_t)a;
	*form = f > UINT32_MAX ? UINT32_MAX : (uint32_t)f;
	return !it->c.bad;
}

struct unit {
	uint64_t start, end; /* .debug_info offsets: header, end */
	uint64_t die;        /* the unit DIE */
	uint64_t abbrev_off;
	uint8_t version, addr_size, offset_size, type;
	int table;           /* index in reader.tables, -1 not yet */
	int table_bad;       /* its table cannot be read */
	uint64_t str_offsets_base, addr_base, rnglists_base, base;
	int have_bases;      /* the unit DIE was read for its bases */
	uint64_t dwo_id;     /* DWARF 5 skeleton and split units' header */
};

#define UNIT_BLOCK 1024 /* units are kept in blocks: pointers stay valid */

struct dw_reader {
	struct dwarf_info *d;
	struct dw_secs *s;
	struct unit **blocks;
	size_t nunits, blocks_cap;
	uint64_t next_unit; /* where the next unit header is */
	size_t ready;       /* bytes of .debug_info that may be read */
	struct atable *tables;
	size_t ntables, tables_cap;
	uint32_t *hash; /* table index + 1 by offset; 0 free */
	size_t hmask;
	struct abbrev *scratch_ab; /* a table being parsed */
	uint64_t *scratch_codes;
	size_t scratch_ab_cap, scratch_codes_cap;
	struct aspec *scratch_specs;
	size_t scratch_specs_cap;
	int plain_names;
	uint64_t (*cur_ranges)[2]; /* scratch for one DIE's ranges */
	size_t cur_ranges_cap;
	size_t next_index;  /* the next unit to read */
	struct memo *memo;     /* see func_name() */
	size_t nmemo, memo_mask;
	/* A reader of a .dwo's split unit (dwarf-split.c): the bases its
	 * skeleton gives, the dwo_id it must have. */
	int split;
	uint64_t split_addr_base, split_base, split_id;
};

static struct unit *unit_n(const struct dw_reader *r, size_t i)
{
	return &r->blocks[i / UNIT_BLOCK][i % UNIT_BLOCK];
}

/* A value as read: an unsigned number, or a pointer into a section. */
struct val {
	uint32_t form;
	uint64_t u;
	const unsigned char *ptr;
};

static int fixed_size(uint32_t form, const struct atable *t)
{
	switch (form) {
	case DW_FORM_flag_present:
	case DW_FORM_implicit_const:
		return 0;
	case DW_FORM_data1:
	case DW_FORM_ref1:
	case DW_FORM_flag:
	case DW_FORM_strx1:
	case DW_FORM_addrx1:
		return 1;
	case DW_FORM_data2:
	case DW_FORM_ref2:
	case DW_FORM_strx2:
	case DW_FORM_addrx2:
		return 2;
	case DW_FORM_strx3:
	case DW_FORM_addrx3:
		return 3;
	case DW_FORM_data4:
	case DW_FORM_ref4:
	case DW_FORM_strx4:
	case DW_FORM_addrx4:
	case DW_FORM_ref_sup4:
		return 4;
	case DW_FORM_data8:
	case DW_FORM_ref8:
	case DW_FORM_ref_sig8:
	case DW_FORM_ref_sup8:
		return 8;
	case DW_FORM_data16:
		return 16;
	case DW_FORM_addr:
		return t->addr_size;
	case DW_FORM_strp:
	case DW_FORM_line_strp:
	case DW_FORM_sec_offset:
	case DW_FORM_GNU_ref_alt:
	case DW_FORM_GNU_strp_alt:
	case DW_FORM_strp_sup:
		return t->offset_size;
	case DW_FORM_ref_addr:
		return t->version <= 2 ? t->addr_size : t->offset_size;
	default:
		return -1;
	}
}

static void free_table(struct atable *t)
{
	free(t->ab);
	free(t->specs);
}

static uint8_t attr_slot(uint64_t at);

static size_t hash(uint64_t x)
{
	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 32;
	return (size_t)x;
}

/* Parses the abbreviation table at `off` for unit u; its index or -1
 * (unreadable), -ENOMEM, -ENOTSUP (codes too sparse to index). */
static int load_table(struct dw_reader *r, const struct unit *u)
{
	const struct dw_sec *sec = &r->s->sec[DW_SEC_ABBREV];
	struct atable t = {.offset = u->abbrev_off, .addr_size = u->addr_size,
			   .offset_size = u->offset_size, .version = u->version};
	size_t i, slot, nspecs = 0;
	uint64_t maxcode = 0;
	struct dw_cursor c;

	/* Tables are kept in a hash of their offsets (open addressing, at
	 * most half full). */
	if (2 * (r->ntables + 1) > r->hmask + 1) {
		size_t n = 2 * (r->hmask + 1), k;
		uint32_t *h = calloc(n, sizeof(*h));

		if (!h)
			return -ENOMEM;
		for (k = 0; k < r->ntables; k++) {
			for (i = hash(r->tables[k].offset) & (n - 1); h[i]; i = (i + 1) & (n - 1))
				;
			h[i] = (uint32_t)k + 1;
		}
		free(r->hash);
		r->hash = h;
		r->hmask = n - 1;
	}
	for (i = hash(t.offset) & r->hmask; r->hash[i]; i = (i + 1) & r->hmask) {
		const struct atable *o = &r->tables[r->hash[i] - 1];

		if (o->offset == t.offset && o->addr_size == t.addr_size &&
		    o->offset_size == t.offset_size && (o->version <= 2) == (t.version <= 2))
			return (int)r->hash[i] - 1;
	}
	slot = i;
	if (!sec->p || u->abbrev_off >= sec->size)
		return -1;
	c.p = sec->p + u->abbrev_off;
	c.end = sec->p + sec->size;
	c.bad = 0;
	t.sec = sec->p;
	t.sec_end = c.end;
	for (;;) {
		uint64_t code = dw_uleb(&c), tag;
		struct abbrev a = {.sib_off = -1};
		int32_t fixed = 0;

		if (c.bad || !code)
			break;
		tag = dw_uleb(&c);
		a.children = (uint8_t)dw_rd(&c, 1);
		a.attrs = (uint32_t)(c.p - sec->p);
		a.spec = (uint32_t)nspecs;
		for (;;) {
			uint64_t at = dw_uleb(&c), form = dw_uleb(&c);
			struct aspec sp = {0};
			int fs;

			if (c.bad)
				break;
			if (!at && !form)
				break;
			if (form == DW_FORM_implicit_const)
				sp.implicit = dw_sleb(&c);
			a.n++;
			fs = form > UINT32_MAX ? -1 : fixed_size((uint32_t)form, &t);
			sp.form = form > UINT32_MAX ? UINT32_MAX : (uint32_t)form;
			sp.size = fs < 0 || fs > 127 ? -1 : (int8_t)fs;
			sp.slot = attr_slot(at);
			if (GROW(r->scratch_specs, r->scratch_specs_cap, nspecs + 1))
				return -ENOMEM;
			r->scratch_specs[nspecs++] = sp;
			if (fs < 0 || fixed < 0)
				fixed = -1;
			else
				fixed += fs;
			if (at == DW_AT_sibling && !a.sibling) {
				a.sibling = 1;
				if (fixed >= 0 && fs >= 0 && form <= 0xffff) {
					a.sib_off = fixed - fs;
					a.sib_form = (uint16_t)form;
				}
			}
			if (at == DW_AT_low_pc || at == DW_AT_high_pc || at == DW_AT_ranges)
				a.code = 1;
			if (at == DW_AT_declaration && form == DW_FORM_flag_present)
				a.decl = 1;
		}
		if (c.bad)
			break;
		a.tag = tag > 0xffff ? 0 : (uint16_t)tag;
		a.fixed = fixed;
		if (GROW(r->scratch_ab, r->scratch_ab_cap, t.nab + 1) ||
		    GROW(r->scratch_codes, r->scratch_codes_cap, t.nab + 1))
			return -ENOMEM;
		r->scratch_codes[t.nab] = code;
		r->scratch_ab[t.nab++] = a;
		if (code > maxcode)
			maxcode = code;
	}
	if (sec->size > UINT32_MAX)
		return -ENOTSUP;
	if (maxcode >= MAX_CODES)
		return -ENOTSUP;
	t.ncodes = (size_t)maxcode + 1;
	t.ab = malloc(t.nab * sizeof(*t.ab) + t.ncodes * sizeof(*t.code));
	t.specs = malloc((nspecs ? nspecs : 1) * sizeof(*t.specs));
	if (!t.ab || !t.specs) {
		free_table(&t);
		return -ENOMEM;
	}
	memcpy(t.specs, r->scratch_specs, nspecs * sizeof(*t.specs));
	memcpy(t.ab, r->scratch_ab, t.nab * sizeof(*t.ab));
	t.code = (uint32_t *)(t.ab + t.nab);
	memset(t.code, 0, t.ncodes * sizeof(*t.code));
	for (i = 0; i < t.nab; i++)
		if (!t.code[r->scratch_codes[i]]) /* the first of duplicate codes, as libdw */
			t.code[r->scratch_codes[i]] = (uint32_t)i + 1;
	if (GROW(r->tables, r->tables_cap, r->ntables + 1)) {
		free_table(&t);
		return -ENOMEM;
	}
	r->tables[r->ntables++] = t;
	r->hash[slot] = (uint32_t)r->ntables;
	return (int)r->ntables - 1;
}

/* Reads one attribute value. 0, or -ENOTSUP for a form this reader does
 * not follow; c->bad on malformed data. */
static int read_form(struct dw_cursor *c, const struct unit *u, uint32_t form, int64_t implicit,
		     struct val *v)
{
	int depth = 0;

again:
	v->form = form;
	v->ptr = NULL;
	v->u = 0;
	switch (form) {
	case DW_FORM_addr:
		v->u = dw_rd(c, u->addr_size);
		break;
	case DW_FORM_data1:
	case DW_FORM_ref1:
	case DW_FORM_flag:
	case DW_FORM_strx1:
	case DW_FORM_addrx1:
		v->u = dw_rd(c, 1);
		break;
	case DW_FORM_data2:
	case DW_FORM_ref2:
	case DW_FORM_strx2:
	case DW_FORM_addrx2:
		v->u = dw_rd(c, 2);
		break;
	case DW_FORM_strx3:
	case DW_FORM_addrx3:
		v->u = dw_rd(c, 3);
		break;
	case DW_FORM_data4:
	case DW_FORM_ref4:
	case DW_FORM_strx4:
	case DW_FORM_addrx4:
		v->u = dw_rd(c, 4);
		break;
	case DW_FORM_data8:
	case DW_FORM_ref8:
	case DW_FORM_ref_sig8:
		v->u = dw_rd(c, 8);
		break;
	case DW_FORM_data16:
		dw_skip(c, 16);
		break;
	case DW_FORM_sdata:
		v->u = (uint64_t)dw_sleb(c);
		break;
	case DW_FORM_udata:
	case DW_FORM_ref_udata:
	case DW_FORM_strx:
	case DW_FORM_addrx:
	case DW_FORM_loclistx:
	case DW_FORM_rnglistx:
	case DW_FORM_GNU_addr_index:
	case DW_FORM_GNU_str_index:
		v->u = dw_uleb(c);
		break;
	case DW_FORM_string:
		v->ptr = c->p;
		{
			const unsigned char *nul = memchr(c->p, 0, (size_t)(c->end - c->p));

			if (!nul) {
				c->bad = 1;
				c->p = c->end;
				v->ptr = NULL;
			} else {
				c->p = nul + 1;
			}
		}
		break;
	case DW_FORM_strp:
	case DW_FORM_line_strp:
	case DW_FORM_sec_offset:
		v->u = dw_rd(c, u->offset_size);
		break;
	case DW_FORM_ref_addr:
		v->u = dw_rd(c, u->version <= 2 ? u->addr_size : u->offset_size);
		break;
	case DW_FORM_flag_present:
		v->u = 1;
		break;
	case DW_FORM_implicit_const:
		v->u = (uint64_t)implicit;
		break;
	case DW_FORM_block1:
		dw_skip(c, dw_rd(c, 1));
		break;
	case DW_FORM_block2:
		dw_skip(c, dw_rd(c, 2));
		break;
	case DW_FORM_block4:
		dw_skip(c, dw_rd(c, 4));
		break;
	case DW_FORM_block:
	case DW_FORM_exprloc:
		dw_skip(c, dw_uleb(c));
		break;
	case DW_FORM_indirect:
		form = (uint32_t)dw_uleb(c);
		if (c->bad || ++depth > 4 || form == DW_FORM_implicit_const)
			return c->bad ? 0 : -ENOTSUP;
		goto again;
	default:
		/* dwz's alternate file (GNU_ref_alt, GNU_strp_alt), supplementary
		 * files, unknown forms: libdw's business. */
		return -ENOTSUP;
	}
	return 0;
}

static int skip_attrs(struct dw_cursor *c, const struct unit *u, const struct atable *t,
		      const struct abbrev *a)
{
	struct specs it;
	struct val v;
	uint32_t at, form;
	int64_t imp;
	int err;

	if (a->fixed >= 0) {
		dw_skip(c, (uint64_t)a->fixed);
		return 0;
	}
	if (t->specs) {
		const struct aspec *sp = t->specs + a->spec, *end = sp + a->n;

		for (; sp < end && !c->bad; sp++) {
			if (sp->size >= 0) {
				dw_skip(c, (uint64_t)sp->size);
				continue;
			}
			err = read_form(c, u, sp->form, sp->implicit, &v);
			if (err)
				return err;
		}
		return 0;
	}
	specs_start(&it, t, a);
	while (!c->bad && specs_next(&it, &at, &form, &imp)) {
		err = read_form(c, u, form, imp, &v);
		if (err)
			return err;
	}
	return 0;
}

static const struct abbrev *abbrev_of(const struct atable *t, uint64_t code)
{
	if (code >= t->ncodes || !t->code[code])
		return NULL;
	return &t->ab[t->code[code] - 1];
}

/* The attributes a function DIE (or a unit DIE) is read for. */
struct die {
	const struct abbrev *ab;
	struct val low, high, ranges, linkage, mips, name, origin, spec, call_file, call_line,
		sibling, lang, comp_dir, stmt, str_off, addr_base, rng_base, entry_pc, dwo_id,
		dwo_name;
	unsigned has; /* HAS_* bits */
};

enum {
	HAS_LOW = 1 << 0, HAS_HIGH = 1 << 1, HAS_RANGES = 1 << 2, HAS_LINKAGE = 1 << 3,
	HAS_MIPS = 1 << 4, HAS_NAME = 1 << 5, HAS_ORIGIN = 1 << 6, HAS_SPEC = 1 << 7,
	HAS_CALL_FILE = 1 << 8, HAS_CALL_LINE = 1 << 9, HAS_SIBLING = 1 << 10,
	HAS_LANG = 1 << 11, HAS_COMP_DIR = 1 << 12, HAS_STMT = 1 << 13, HAS_STR_OFF = 1 << 14,
	HAS_ADDR_BASE = 1 << 15, HAS_RNG_BASE = 1 << 16, HAS_ENTRY_PC = 1 << 17,
	HAS_DWO_ID = 1 << 18, HAS_DWO_NAME = 1 << 19,
};

/* The field of struct die an attribute goes to: slot k is HAS_* bit
 * 1 << k, at die_slots[k]. */
#define SLOT_NONE 0xff
static const size_t die_slots[] = {
	offsetof(struct die, low), offsetof(struct die, high), offsetof(struct die, ranges),
	offsetof(struct die, linkage), offsetof(struct die, mips), offsetof(struct die, name),
	offsetof(struct die, origin), offsetof(struct die, spec), offsetof(struct die, call_file),
	offsetof(struct die, call_line), offsetof(struct die, sibling), offsetof(struct die, lang),
	offsetof(struct die, comp_dir), offsetof(struct die, stmt), offsetof(struct die, str_off),
	offsetof(struct die, addr_base), offsetof(struct die, rng_base),
	offsetof(struct die, entry_pc), offsetof(struct die, dwo_id),
};

static uint8_t attr_slot(uint64_t at)
{
	switch (at) {
	case DW_AT_low_pc: return 0;
	case DW_AT_high_pc: return 1;
	case DW_AT_ranges: return 2;
	case DW_AT_linkage_name: return 3;
	case DW_AT_MIPS_linkage_name: return 4;
	case DW_AT_name: return 5;
	case DW_AT_abstract_origin: return 6;
	case DW_AT_specification: return 7;
	case DW_AT_call_file: return 8;
	case DW_AT_call_line: return 9;
	case DW_AT_sibling: return 10;
	case DW_AT_language: return 11;
	case DW_AT_comp_dir: return 12;
	case DW_AT_stmt_list: return 13;
	case DW_AT_str_offsets_base: return 14;
	case DW_AT_addr_base:
	case DW_AT_GNU_addr_base: return 15;
	case DW_AT_rnglists_base: return 16;
	case DW_AT_entry_pc: return 17;
	case DW_AT_GNU_dwo_id: return 18;
	default: return SLOT_NONE;
	}
}

/* Reads all attributes of the DIE whose abbreviation is `a`, keeping the
 * ones struct die names (the first of duplicates, as libdw's dwarf_attr). */
static int read_attrs(struct dw_cursor *c, const struct unit *u, const struct atable *t,
		      const struct abbrev *a, struct die *die)
{
	struct specs it;
	uint32_t at, form;
	int64_t imp;
	int err;

	die->ab = a;
	die->has = 0;
	if (t->specs) {
		const struct aspec *sp = t->specs + a->spec, *end = sp + a->n;

		for (; sp < end && !c->bad; sp++) {
			struct val v;
			unsigned bit;

			if (sp->slot == SLOT_NONE && sp->size >= 0) {
				dw_skip(c, (uint64_t)sp->size);
				continue;
			}
			err = read_form(c, u, sp->form, sp->implicit, &v);
			if (err)
				return err;
			if (sp->slot == SLOT_NONE)
				continue;
			bit = 1u << sp->slot;
			if (!(die->has & bit)) {
				memcpy((char *)die + die_slots[sp->slot], &v, sizeof(v));
				die->has |= bit;
			}
		}
		return 0;
	}
	specs_start(&it, t, a);
	while (!c->bad && specs_next(&it, &at, &form, &imp)) {
		struct val v, *slot;
		unsigned bit;

		err = read_form(c, u, form, imp, &v);
		if (err)
			return err;
		switch (at) {
		case DW_AT_low_pc: slot = &die->low; bit = HAS_LOW; break;
		case DW_AT_high_pc: slot = &die->high; bit = HAS_HIGH; break;
		case DW_AT_ranges: slot = &die->ranges; bit = HAS_RANGES; break;
		case DW_AT_linkage_name: slot = &die->linkage; bit = HAS_LINKAGE; break;
		case DW_AT_MIPS_linkage_name: slot = &die->mips; bit = HAS_MIPS; break;
		case DW_AT_name: slot = &die->name; bit = HAS_NAME; break;
		case DW_AT_abstract_origin: slot = &die->origin; bit = HAS_ORIGIN; break;
		case DW_AT_specification: slot = &die->spec; bit = HAS_SPEC; break;
		case DW_AT_call_file: slot = &die->call_file; bit = HAS_CALL_FILE; break;
		case DW_AT_call_line: slot = &die->call_line; bit = HAS_CALL_LINE; break;
		case DW_AT_sibling: slot = &die->sibling; bit = HAS_SIBLING; break;
		case DW_AT_language: slot = &die->lang; bit = HAS_LANG; break;
		case DW_AT_comp_dir: slot = &die->comp_dir; bit = HAS_COMP_DIR; break;
		case DW_AT_stmt_list: slot = &die->stmt; bit = HAS_STMT; break;
		case DW_AT_str_offsets_base: slot = &die->str_off; bit = HAS_STR_OFF; break;
		case DW_AT_addr_base:
		case DW_AT_GNU_addr_base: slot = &die->addr_base; bit = HAS_ADDR_BASE; break;
		case DW_AT_rnglists_base:
		case DW_AT_GNU_ranges_base: slot = &die->rng_base; bit = HAS_RNG_BASE; break;
		case DW_AT_entry_pc: slot = &die->entry_pc; bit = HAS_ENTRY_PC; break;
		case DW_AT_GNU_dwo_id: slot = &die->dwo_id; bit = HAS_DWO_ID; break;
		case DW_AT_dwo_name:
		case DW_AT_GNU_dwo_name: slot = &die->dwo_name; bit = HAS_DWO_NAME; break;
		default: continue;
		}
		if (!(die->has & bit)) {
			*slot = v;
			die->has |= bit;
		}
	}
	return 0;
}

/* dwarf_formstring(): NULL for forms that are not strings or point
 * nowhere. */
static const char *str_of(const struct dw_reader *r, const struct unit *u, const struct val *v)
{
	const struct dw_sec *sec;
	uint64_t off = v->u;

	switch (v->form) {
	case DW_FORM_string:
		return (const char *)v->ptr;
	case DW_FORM_strp:
		sec = &r->s->sec[DW_SEC_STR];
		break;
	case DW_FORM_line_strp:
		sec = &r->s->sec[DW_SEC_LINE_STR];
		break;
	case DW_FORM_strx:
	case DW_FORM_strx1:
	case DW_FORM_strx2:
	case DW_FORM_strx3:
	case DW_FORM_strx4:
	case DW_FORM_GNU_str_index: {
		const struct dw_sec *so = &r->s->sec[DW_SEC_STR_OFFSETS];
		uint64_t at = u->str_offsets_base + off * u->offset_size;
		struct dw_cursor c;

		if (!so->p || off > so->size || at > so->size)
			return NULL;
		c.p = so->p + at;
		c.end = so->p + so->size;
		c.bad = 0;
		off = dw_rd(&c, u->offset_size);
		if (c.bad)
			return NULL;
		sec = &r->s->sec[DW_SEC_STR];
		break;
	}
	default:
		return NULL;
	}
	if (!sec->p || off >= sec->size)
		return NULL;
	/* A section that ends with a NUL terminates every string in it (the
	 * usual case: no scan of long C++ names); else look for one. */
	if (sec->p[sec->size - 1] && !memchr(sec->p + off, 0, sec->size - off))
		return NULL;
	return (const char *)sec->p + off;
}

/* dwarf_formaddr(): 0, or -1 when the value is not an address. */
static int addr_of(const struct dw_reader *r, const struct unit *u, const struct val *v,
		   uint64_t *out)
{
	const struct dw_sec *sec = &r->s->sec[DW_SEC_ADDR];
	uint64_t at;
	struct dw_cursor c;

	switch (v->form) {
	case DW_FORM_addr:
		*out = v->u;
		return 0;
	case DW_FORM_addrx:
	case DW_FORM_addrx1:
	case DW_FORM_addrx2:
	case DW_FORM_addrx3:
	case DW_FORM_addrx4:
	case DW_FORM_GNU_addr_index:
		at = u->addr_base + v->u * u->addr_size;
		if (!sec->p || v->u > sec->size || at > sec->size)
			return -1;
		c.p = sec->p + at;
		c.end = sec->p + sec->size;
		c.bad = 0;
		*out = dw_rd(&c, u->addr_size);
		return c.bad ? -1 : 0;
	default:
		return -1;
	}
}

/* dwarf_formudata() for the forms that carry a number. */
static int udata_of(const struct val *v, uint64_t *out)
{
	switch (v->form) {
	case DW_FORM_data1:
	case DW_FORM_data2:
	case DW_FORM_data4:
	case DW_FORM_data8:
	case DW_FORM_udata:
	case DW_FORM_sdata:
	case DW_FORM_implicit_const:
	case DW_FORM_sec_offset:
		*out = v->u;
		return 0;
	default:
		return -1;
	}
}

static int add_range(struct dw_reader *r, size_t *n, uint64_t lo, uint64_t hi)
{
	if (GROW(r->cur_ranges, r->cur_ranges_cap, *n + 1))
		return -ENOMEM;
	r->cur_ranges[*n][0] = lo;
	r->cur_ranges[*n][1] = hi;
	(*n)++;
	return 0;
}

/* A .debug_ranges list (DWARF 2 to 4). */
static int ranges_v4(struct dw_reader *r, const struct unit *u, uint64_t off, size_t *n)
{
	const struct dw_sec *sec = &r->s->sec[DW_SEC_RANGES];
	uint64_t base = u->base, top = u->addr_size == 8 ? UINT64_MAX : UINT32_MAX;
	struct dw_cursor c;
	int err;

	if (!sec->p || off >= sec->size)
		return 0;
	c.p = sec->p + off;
	c.end = sec->p + sec->size;
	c.bad = 0;
	while (*n < MAX_RANGES_PER_DIE) {
		uint64_t a = dw_rd(&c, u->addr_size), b = dw_rd(&c, u->addr_size);

		if (c.bad || (!a && !b))
			break;
		if (a == top) {
			base = b;
			continue;
		}
		err = add_range(r, n, base + a, base + b);
		if (err)
			return err;
	}
	return 0;
}

static int index_addr(const struct dw_reader *r, const struct unit *u, uint64_t idx, uint64_t *out)
{
	struct val v = {.form = DW_FORM_addrx, .u = idx};

	return addr_of(r, u, &v, out);
}

/* A .debug_rnglists list (DWARF 5). */
static int ranges_v5(struct dw_reader *r, const struct unit *u, uint64_t off, size_t *n)
{
	const struct dw_sec *sec = &r->s->sec[DW_SEC_RNGLISTS];
	uint64_t base = u->base;
	struct dw_cursor c;
	int err;

	if (!sec->p || off >= sec->size)
		return 0;
	c.p = sec->p + off;
	c.end = sec->p + sec->size;
	c.bad = 0;
	while (*n < MAX_RANGES_PER_DIE && !c.bad) {
		unsigned kind = (unsigned)dw_rd(&c, 1);
		uint64_t a, b;

		if (c.bad || kind == DW_RLE_end_of_list)
			break;
		switch (kind) {
		case DW_RLE_base_addressx:
			if (index_addr(r, u, dw_uleb(&c), &base))
				return 0;
			continue;
		case DW_RLE_startx_endx:
			a = dw_uleb(&c);
			b = dw_uleb(&c);
			if (index_addr(r, u, a, &a) || index_addr(r, u, b, &b))
				return 0;
			break;
		case DW_RLE_startx_length:
			a = dw_uleb(&c);
			b = dw_uleb(&c);
			if (index_addr(r, u, a, &a))
				return 0;
			b += a;
			break;
		case DW_RLE_offset_pair:
			a = base + dw_uleb(&c);
			b = base + dw_uleb(&c);
			break;
		case DW_RLE_base_address:
			base = dw_rd(&c, u->addr_size);
			continue;
		case DW_RLE_start_end:
			a = dw_rd(&c, u->addr_size);
			b = dw_rd(&c, u->addr_size);
			break;
		case DW_RLE_start_length:
			a = dw_rd(&c, u->addr_size);
			b = a + dw_uleb(&c);
			break;
		default:
			return 0; /* malformed: the ranges so far */
		}
		if (c.bad)
			break;
		err = add_range(r, n, a, b);
		if (err)
			return err;
	}
	return 0;
}

/* dwarf_ranges() over the whole DIE: r->cur_ranges[0..*n]. */
static int die_ranges(struct dw_reader *r, const struct unit *u, const struct die *die, size_t *n)
{
	uint64_t lo, hi, off;

	*n = 0;
	if ((die->has & (HAS_LOW | HAS_HIGH)) == (HAS_LOW | HAS_HIGH) &&
	    !addr_of(r, u, &die->low, &lo)) {
		if (!addr_of(r, u, &die->high, &hi))
			return add_range(r, n, lo, hi);
		if (!udata_of(&die->high, &hi))
			return add_range(r, n, lo, lo + hi);
	}
	if (!(die->has & HAS_RANGES))
		return 0;
	if (die->ranges.form == DW_FORM_rnglistx) {
		const struct dw_sec *sec = &r->s->sec[DW_SEC_RNGLISTS];
		uint64_t at = u->rnglists_base + die->ranges.u * u->offset_size;
		struct dw_cursor c;

		if (!sec->p || die->ranges.u > sec->size || at > sec->size)
			return 0;
		c.p = sec->p + at;
		c.end = sec->p + sec->size;
		c.bad = 0;
		off = dw_rd(&c, u->offset_size);
		if (c.bad)
			return 0;
		return ranges_v5(r, u, u->rnglists_base + off, n);
	}
	if (udata_of(&die->ranges, &off))
		return 0;
	return u->version >= 5 ? ranges_v5(r, u, off, n) : ranges_v4(r, u, off, n);
}

static int next_header(struct dw_reader *r);

/* The unit holding .debug_info offset `off`, reading unit headers up to
 * it (which waits for the bytes) when needed. */
static const struct unit *unit_at(struct dw_reader *r, uint64_t off)
{
	size_t lo = 0, hi;

	while (!r->nunits || off >= unit_n(r, r->nunits - 1)->end)
		if (next_header(r) <= 0)
			break;
	hi = r->nunits;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (unit_n(r, mid)->start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || off >= unit_n(r, lo - 1)->end)
		return NULL;
	return unit_n(r, lo - 1);
}

static int unit_bases(struct dw_reader *r, struct unit *u);

/* Parses the unit's abbreviation table, once: 0, 1 (unreadable), <0. */
static int unit_table(struct dw_reader *r, struct unit *u)
{
	int err;

	if (u->table >= 0)
		return 0;
	if (u->table_bad)
		return 1;
	err = load_table(r, u);
	if (err < -1)
		return err;
	if (err < 0) {
		u->table_bad = 1;
		return 1;
	}
	u->table = err;
	return 0;
}

/* The abbreviation `code` of the unit's table, for its unit DIE: from the
 * parsed table, else by reading the table only up to that code into *tmp
 * and *ab (the lazy mode reads thousands of unit DIEs and, of their
 * tables, only the first entry as a rule). 0, or 1 when there is none. */
static int unit_abbrev(struct dw_reader *r, const struct unit *u, uint64_t code, struct atable *tmp,
		       struct abbrev *ab, const struct atable **t, const struct abbrev **a)
{
	const struct dw_sec *sec = &r->s->sec[DW_SEC_ABBREV];
	struct dw_cursor c;

	if (u->table >= 0) {
		*t = &r->tables[u->table];
		*a = abbrev_of(*t, code);
		return *a ? 0 : 1;
	}
	if (!sec->p || u->abbrev_off >= sec->size || sec->size > UINT32_MAX)
		return 1;
	*tmp = (struct atable){.offset = u->abbrev_off, .addr_size = u->addr_size,
			       .offset_size = u->offset_size, .version = u->version,
			       .sec = sec->p, .sec_end = sec->p + sec->size};
	c.p = sec->p + u->abbrev_off;
	c.end = tmp->sec_end;
	c.bad = 0;
	for (;;) {
		uint64_t this = dw_uleb(&c), tag, at, form;

		if (c.bad || !this)
			return 1;
		tag = dw_uleb(&c);
		*ab = (struct abbrev){.fixed = -1, .sib_off = -1,
				      .tag = tag > 0xffff ? 0 : (uint16_t)tag};
		ab->children = (uint8_t)dw_rd(&c, 1);
		ab->attrs = (uint32_t)(c.p - sec->p);
		for (;;) {
			at = dw_uleb(&c);
			form = dw_uleb(&c);
			if (c.bad)
				return 1;
			if (!at && !form)
				break;
			if (form == DW_FORM_implicit_const)
				dw_sleb(&c);
			ab->n++;
		}
		if (this == code) {
			*t = tmp;
			*a = ab;
			return 0;
		}
	}
}

/* The DIE at .debug_info offset `off`, with its unit; 0, 1 when there is
 * none (as dwarf_formref_die failing), <0 errors. */
static int die_at(struct dw_reader *r, uint64_t off, const struct unit **uout, struct die *die)
{
	const struct dw_sec *info = &r->s->sec[DW_SEC_INFO];
	struct unit *u = (struct unit *)unit_at(r, off);
	const struct atable *t;
	const struct abbrev *a;
	struct dw_cursor c;
	uint64_t code;
	int err;

	if (!u || off < u->die)
		return 1;
	if (!u->have_bases) {
		err = unit_bases(r, u);
		if (err)
			return err;
	}
	err = unit_table(r, u);
	if (err)
		return err;
	t = &r->tables[u->table];
	c.p = info->p + off;
	c.end = info->p + u->end;
	c.bad = 0;
	code = dw_uleb(&c);
	a = c.bad ? NULL : abbrev_of(t, code);
	if (!a)
		return 1;
	err = read_attrs(&c, u, t, a, die);
	if (err)
		return err;
	*uout = u;
	return c.bad ? 1 : 0;
}

/* Where a reference points: 0, 1 (nowhere), -ENOTSUP. */
static int ref_target(const struct unit *u, const struct val *v, uint64_t *off)
{
	switch (v->form) {
	case DW_FORM_ref1:
	case DW_FORM_ref2:
	case DW_FORM_ref4:
	case DW_FORM_ref8:
	case DW_FORM_ref_udata:
		if (v->u >= u->end - u->start)
			return 1;
		*off = u->start + v->u;
		return 0;
	case DW_FORM_ref_addr:
		*off = v->u;
		return 0;
	case DW_FORM_ref_sig8:
		return -ENOTSUP; /* a type unit: libdw's business */
	default:
		return 1;
	}
}

/* The DIE a reference points to: 0, 1 (none), <0. */
static int follow(struct dw_reader *r, const struct unit *u, const struct val *v,
		  const struct unit **uout, struct die *die)
{
	uint64_t off;
	int rc = ref_target(u, v, &off);

	return rc ? rc : die_at(r, off, uout, die);
}

/* The function's name: DW_AT_linkage_name, else DW_AT_MIPS_linkage_name,
 * else DW_AT_name, each searched along the abstract_origin/specification
 * chain (dwarf_attr_integrate), `chain` links at most. *kind: 1 linkage,
 * 2 name, 0 none. */
static int name_chain(struct dw_reader *r, const struct unit *u, const struct die *die, int chain,
		      const char **name, int *kind)
{
	const char *found[3] = {NULL, NULL, NULL};
	int have[3] = {0, 0, 0}, err, i;
	struct die cur = *die, next;
	const struct unit *cu = u;

	for (;;) {
		static const unsigned bits[3] = {HAS_LINKAGE, HAS_MIPS, HAS_NAME};
		const struct val *vals[3] = {&cur.linkage, &cur.mips, &cur.name};
		const struct val *ref;

		for (i = 0; i < 3; i++) {
			if (!have[i] && (cur.has & bits[i])) {
				have[i] = 1;
				found[i] = str_of(r, cu, vals[i]);
			}
		}
		if (have[0] && have[1] && have[2])
			break;
		if (cur.has & HAS_ORIGIN)
			ref = &cur.origin;
		else if (cur.has & HAS_SPEC)
			ref = &cur.spec;
		else
			break;
		err = follow(r, cu, ref, &cu, &next);
		if (err < 0)
			return err;
		if (err || chain-- == 0)
			break;
		cur = next;
	}
	/* An attribute whose string cannot be read counts as absent (the
	 * libdw walk's die_string() gives NULL, and it tries the next). */
	*kind = 0;
	*name = NULL;
	for (i = 0; i < 3; i++) {
		if (found[i]) {
			*name = found[i];
			*kind = i < 2 ? 1 : 2;
			return 0;
		}
	}
	return 0;
}

/* A name found through a DIE's first reference, by the DIE it points to. */
struct memo {
	uint64_t off; /* + 1; 0: free */
	const char *name;
	int kind;
};

/* The memo is a bounded cache: at most MEMO_MAX slots (384 KB), emptied
 * when full. References point into their own unit as a rule, so little is
 * lost, and a table that stays this small keeps its pages and lines warm:
 * grown without bound (a 9-unit C++ build: 65,536 slots, 1.5 MB, probed at
 * random) it cost 1,000 page faults and 4% of the run. */
#define MEMO_MAX ((size_t)1 << 14)

static struct memo *memo_slot(struct dw_reader *r, uint64_t off)
{
	size_t i;

	if (2 * (r->nmemo + 1) > r->memo_mask + 1 && r->memo_mask + 1 >= MEMO_MAX) {
		/* Full: a bounded cache, emptied (its pages stay warm). */
		memset(r->memo, 0, (r->memo_mask + 1) * sizeof(*r->memo));
		r->nmemo = 0;
	}
	if (2 * (r->nmemo + 1) > r->memo_mask + 1) {
		size_t n = r->memo_mask ? 2 * (r->memo_mask + 1) : 1024, k;
		struct memo *m = calloc(n, sizeof(*m));

		if (!m)
			return NULL;
		for (k = 0; r->memo && k <= r->memo_mask; k++) {
			if (!r->memo[k].off)
				continue;
			for (i = hash(r->memo[k].off) & (n - 1); m[i].off; i = (i + 1) & (n - 1))
				;
			m[i] = r->memo[k];
		}
		free(r->memo);
		r->memo = m;
		r->memo_mask = n - 1;
	}
	for (i = hash(off + 1) & r->memo_mask; r->memo[i].off && r->memo[i].off != off + 1;
	     i = (i + 1) & r->memo_mask)
		;
	return &r->memo[i];
}

/* name_chain() from a function DIE. Concrete inlined copies name no name
 * of their own but point at the abstract instance they copy, often
 * thousands of times: what that reference leads to is remembered. */
static int func_name(struct dw_reader *r, const struct unit *u, const struct die *die,
		     const char **name, int *kind)
{
	const struct val *ref = die->has & HAS_ORIGIN ? &die->origin : &die->spec;
	const struct unit *tu;
	struct memo *m;
	struct die target;
	uint64_t off;
	int rc;

	if ((die->has & (HAS_LINKAGE | HAS_MIPS | HAS_NAME)) ||
	    !(die->has & (HAS_ORIGIN | HAS_SPEC)))
		return name_chain(r, u, die, MAX_CHAIN, name, kind);
	rc = ref_target(u, ref, &off);
	if (rc) {
		*name = NULL;
		*kind = 0;
		return rc < 0 ? rc : 0;
	}
	m = memo_slot(r, off);
	if (!m)
		return -ENOMEM;
	if (m->off) {
		*name = m->name;
		*kind = m->kind;
		return 0;
	}
	rc = die_at(r, off, &tu, &target);
	if (rc < 0)
		return rc;
	*name = NULL;
	*kind = 0;
	/* One link spent on the way there, as in name_chain(). */
	if (!rc) {
		rc = name_chain(r, tu, &target, MAX_CHAIN - 1, name, kind);
		if (rc)
			return rc;
	}
	m = memo_slot(r, off); /* die_at() may not move the memo, but be sure */
	if (!m)
		return -ENOMEM;
	if (!m->off)
		r->nmemo++;
	*m = (struct memo){.off = off + 1, .name = *name, .kind = *kind};
	return 0;
}

/* dwarf-libdw.c's add_func(), on our DIE. */
static int add_func(struct dw_reader *r, const struct unit *u, const struct die *die, int tag,
		    uint32_t enclosing, uint32_t *out)
{
	struct dwarf_info *d = r->d;
	uint32_t id = (uint32_t)d->nfuncs;
	struct dw_func *f;
	const char *name;
	uint64_t w;
	size_t n, i, kept = 0;
	int err, kind;

	*out = DWARF_NONE;
	if (d->nfuncs >= DWARF_NONE - 1)
		return 0;
	err = die_ranges(r, u, die, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		if (r->cur_ranges[i][1] <= r->cur_ranges[i][0])
			continue;
		if (GROW(d->ranges, d->ranges_cap, d->nranges + 1))
			return -ENOMEM;
		d->ranges[d->nranges++] = (struct dw_range){.lo = r->cur_ranges[i][0],
							    .hi = r->cur_ranges[i][1],
							    .func = id,
							    .parent = DWARF_NONE};
		kept++;
	}
	if (!kept)
		return 0;
	err = func_name(r, u, die, &name, &kind);
	if (err)
		return err;
	f = dwarf_tables__new_func(d, kept);
	if (!f)
		return -ENOMEM;
	f->name = name;
	f->linkage = kind == 1 || (kind == 2 && name && r->plain_names);
	if (tag == DW_TAG_inlined_subroutine) {
		f->inlined = 1;
		f->parent = enclosing;
		/* The number, + 1; phase two makes it a file id. */
		if ((die->has & HAS_CALL_FILE) && !udata_of(&die->call_file, &w))
			f->call_file = w >= UINT32_MAX - 1 ? UINT32_MAX : (uint32_t)w + 1;
		if ((die->has & HAS_CALL_LINE) && !udata_of(&die->call_line, &w))
			f->call_line = w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
	}
	*out = id;
	return 0;
}

/* Skips the children of a DIE (which has some): to the entry after the
 * null entry that ends them. */
static int skip_children(struct dw_cursor *c, const struct unit *u, const struct atable *t)
{
	size_t level = 1;
	int err;

	while (level && !c->bad && c->p < c->end) {
		uint64_t code = dw_uleb(c);
		const struct abbrev *a;

		if (!code) {
			level--;
			continue;
		}
		a = abbrev_of(t, code);
		if (!a) {
			c->bad = 1;
			break;
		}
		err = skip_attrs(c, u, t, a);
		if (err)
			return err;
		if (a->children)
			level++;
	}
	return 0;
}

/* The unit's DIEs after the unit DIE, in order, as dwarf-libdw.c's
 * walk_unit() visits them. */
static int walk(struct dw_reader *r, const struct unit *u, const struct atable *t,
		struct dw_cursor *c)
{
	uint32_t *funcs;
	size_t depth = 1;
	int err = 0;

	funcs = malloc(MAX_DEPTH * sizeof(*funcs));
	if (!funcs)
		return -ENOMEM;
	funcs[0] = DWARF_NONE;
	while (depth && !c->bad && c->p < c->end) {
		const unsigned char *at = c->p;
		uint64_t code = dw_uleb(c);
		const struct abbrev *a;
		uint32_t func = funcs[depth - 1];
		int enter = 0, is_func;

		if (!code) {
			depth--;
			continue;
		}
		a = abbrev_of(t, code);
		if (!a)
			break;
		is_func = a->tag == DW_TAG_subprogram || a->tag == DW_TAG_inlined_subroutine ||
			  a->tag == DW_TAG_entry_point;
		/* A subtree that cannot hold code is jumped over, as
		 * dwarf_siblingof() does: any DIE not entered, and a function
		 * declaration (its children are its parameters; an abstract
		 * instance, also without code, is entered: see below). */
		if (a->children && a->sibling &&
		    (is_func ? !a->code && a->decl : !dwarf_tag_enters((int)a->tag))) {
			struct die die;

			if (a->sib_off >= 0) {
				struct dw_cursor sc = {.p = c->p + a->sib_off, .end = c->end};

				die.sibling.form = 0;
				err = read_form(&sc, u, a->sib_form, 0, &die.sibling);
				if (sc.bad)
					c->bad = 1;
			} else {
				err = read_attrs(c, u, t, a, &die);
			}
			if (!err && !c->bad) {
				uint64_t to = die.sibling.u;

				if (die.sibling.form == DW_FORM_ref_addr)
					to -= u->start;
				if (to <= (uint64_t)(at - (r->s->sec[DW_SEC_INFO].p + u->start)) ||
				    to >= u->end - u->start) {
					c->bad = 1; /* backwards or out of the unit */
				} else {
					c->p = r->s->sec[DW_SEC_INFO].p + u->start + to;
				}
			}
			if (err)
				break;
			continue;
		}
		if (is_func && !a->code) {
			/* A declaration or an abstract instance: no code, but
			 * entered all the same (see dwarf-libdw.c). */
			err = skip_attrs(c, u, t, a);
			enter = 1;
		} else if (is_func) {
			struct die die;

			err = read_attrs(c, u, t, a, &die);
			if (!err && !c->bad)
				err = add_func(r, u, &die, (int)a->tag, funcs[depth - 1], &func);
			if (err)
				break;
			if (func == DWARF_NONE)
				func = funcs[depth - 1];
			enter = 1;
		} else if (dwarf_tag_enters((int)a->tag)) {
			err = skip_attrs(c, u, t, a);
			enter = 1;
		} else {
			err = skip_attrs(c, u, t, a);
		}
		if (err)
			break;
		if (!a->children)
			continue;
		if (enter && depth < MAX_DEPTH) {
			funcs[depth++] = func;
			continue;
		}
		err = skip_children(c, u, t);
		if (err)
			break;
	}
	free(funcs);
	return err;
}

/* Reads the unit DIE for the bases (str_offsets, addr, rnglists, the base
 * address) that decoding the unit's attributes needs. */
static int unit_bases(struct dw_reader *r, struct unit *u)
{
	const struct dw_sec *info = &r->s->sec[DW_SEC_INFO];
	const struct atable *t;
	const struct abbrev *a;
	struct atable tmp;
	struct abbrev ab;
	struct die die;
	struct dw_cursor c;
	uint64_t code;
	int err;

	u->have_bases = 1;
	c.p = info->p + u->die;
	c.end = info->p + u->end;
	c.bad = 0;
	code = dw_uleb(&c);
	if (c.bad || unit_abbrev(r, u, code, &tmp, &ab, &t, &a))
		return 0;
	err = read_attrs(&c, u, t, a, &die);
	if (err)
		return err;
	if (u->version >= 5 && !(die.has & HAS_STR_OFF))
		u->str_offsets_base = u->offset_size == 8 ? 16 : 8;
	if (die.has & HAS_STR_OFF)
		udata_of(&die.str_off, &u->str_offsets_base);
	if (die.has & HAS_ADDR_BASE)
		udata_of(&die.addr_base, &u->addr_base);
	if (die.has & HAS_RNG_BASE)
		udata_of(&die.rng_base, &u->rnglists_base);
	if (r->split) {
		/* A split unit: addresses and the base are its skeleton's; its
		 * rnglistx index starts after .debug_rnglists.dwo's header. */
		u->addr_base = r->split_addr_base;
		if (!(die.has & HAS_RNG_BASE))
			u->rnglists_base = u->offset_size == 8 ? 20 : 12;
	}
	if (!(die.has & HAS_LOW) || addr_of(r, u, &die.low, &u->base)) {
		if (!(die.has & HAS_ENTRY_PC) || addr_of(r, u, &die.entry_pc, &u->base))
			u->base = r->split ? r->split_base : 0;
	}
	return 0;
}

static int read_unit(struct dw_reader *r, struct unit *u, struct dw_unit_info *out, int walk_dies);

/* A skeleton unit's split unit (split DWARF): found by dwarf-split.c, read
 * by a reader of its own over the .dwo's sections, its funcs and ranges
 * appended to d as the unit's. Without `walk_dies`, only whether it is
 * there (for the count of missing ones). A split unit that cannot be
 * found or read leaves the unit without funcs: 0 all the same. */
static int split_unit(struct dw_reader *r, const struct unit *u, const struct die *die,
		      int walk_dies, struct dw_unit_info *out)
{
	struct dw_split_ref ref = {0};
	struct dw_unit_info su;
	struct dw_reader *sr;
	struct dw_secs secs;
	size_t funcs_from, ranges_from;
	int rc, found = 0;

	if (die->has & HAS_DWO_NAME)
		ref.dwo_name = str_of(r, u, &die->dwo_name);
	if (die->has & HAS_COMP_DIR)
		ref.comp_dir = str_of(r, u, &die->comp_dir);
	if (u->version >= 5) {
		ref.dwo_id = u->dwo_id;
		ref.have_id = 1;
	} else if (die->has & HAS_DWO_ID) {
		ref.dwo_id = die->dwo_id.u;
		ref.have_id = 1;
		ref.ranges_base = u->rnglists_base; /* DW_AT_GNU_ranges_base */
	}
	rc = dwarf_split__secs(r->d, r->s, &ref, &secs);
	if (rc < 0)
		return rc;
	if (rc)
		return dwarf_split__missing(r->d, &ref);
	funcs_from = r->d->nfuncs;
	ranges_from = r->d->nranges;
	rc = dwarf_die__open(r->d, &secs, &sr);
	if (!rc) {
		sr->split = 1;
		sr->split_addr_base = u->addr_base;
		sr->split_base = u->base;
		sr->split_id = ref.dwo_id;
		/* The unit with the skeleton's dwo_id (read_unit() says 2 for
		 * the others): only its DIE, unless walking. */
		while (!found && (rc = next_header(sr)) > 0) {
			rc = read_unit(sr, unit_n(sr, sr->nunits - 1), &su, walk_dies);
			if (rc < 0)
				break;
			found = rc == 0;
			rc = 0;
		}
		if (found)
			out->plain_names = su.plain_names;
	}
	dwarf_die__close(sr);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0) {
		/* A form the reader leaves to libdw (type-unit references
		 * from -fdebug-types-section...): not the whole binary's
		 * load, only this unit's inlines are lost. */
		r->d->nfuncs = funcs_from;
		r->d->nranges = ranges_from;
		return 0;
	}
	return found ? 0 : dwarf_split__missing(r->d, &ref);
}

/* Reads a unit: its DIE, then, when `walk_dies`, its DIEs (the walk). 0
 * (*out filled), 2 (not a unit of code), 1 (stop: libdw would not go on
 * either), <0. */
static int read_unit(struct dw_reader *r, struct unit *u, struct dw_unit_info *out, int walk_dies)
{
	struct dwarf_info *d = r->d;
	const struct dw_sec *info = &r->s->sec[DW_SEC_INFO];
	const struct atable *t;
	const struct abbrev *a;
	struct atable tmp;
	struct abbrev ab;
	struct die die;
	struct dw_cursor c;
	uint64_t lang, code;
	size_t n = 0;
	int err, skeleton = 0;

	memset(out, 0, sizeof(*out));
	out->funcs_from = d->nfuncs;
	out->ranges_from = d->nranges;
	if (!u->have_bases) {
		err = unit_bases(r, u);
		if (err)
			return err;
	}
	c.p = info->p + u->die;
	c.end = info->p + u->end;
	c.bad = 0;
	code = dw_uleb(&c);
	if (c.bad || unit_abbrev(r, u, code, &tmp, &ab, &t, &a))
		return 1;
	err = read_attrs(&c, u, t, a, &die);
	if (err)
		return err;
	if (c.bad)
		return 1;
	/* libdw's unit types, from the unit DIE before DWARF 5. A split
	 * reader reads the split unit with its skeleton's dwo_id only. */
	if (u->version < 5) {
		if (a->tag == DW_TAG_type_unit)
			return 2;
		if (r->split && (!(die.has & HAS_DWO_ID) || die.dwo_id.u != r->split_id))
			return 2;
		if (!r->split && (a->tag == DW_TAG_skeleton_unit || (die.has & HAS_DWO_ID)))
			skeleton = 1;
	} else if (r->split) {
		if (u->type != DW_UT_split_compile || u->dwo_id != r->split_id)
			return 2;
	} else if (u->type == DW_UT_skeleton) {
		skeleton = 1;
	} else if (u->type != DW_UT_compile && u->type != DW_UT_partial) {
		return 2;
	}
	r->plain_names = (die.has & HAS_LANG) && !udata_of(&die.lang, &lang) &&
			 dwarf_plain_language(lang);
	if (die.has & HAS_COMP_DIR)
		out->comp_dir = str_of(r, u, &die.comp_dir);
	out->has_stmt = (die.has & HAS_STMT) && !udata_of(&die.stmt, &out->stmt);
	out->plain_names = r->plain_names;
	if (skeleton) {
		err = split_unit(r, u, &die, walk_dies, out);
	} else if (a->children && walk_dies) {
		err = unit_table(r, u);
		if (err)
			return err;
		err = walk(r, u, &r->tables[u->table], &c);
	}
	if (!err)
		err = die_ranges(r, u, &die, &n);
	if (err)
		return err;
	out->cu = (const uint64_t(*)[2])r->cur_ranges;
	out->ncu = n;
	out->funcs_to = d->nfuncs;
	out->ranges_to = d->nranges;
	return 0;
}

/* Waits for .debug_info up to `end`; 1 when it is there. */
static int need(struct dw_reader *r, uint64_t end)
{
	if (end > r->ready)
		r->ready = dwarf_secs__ready(r->s, (size_t)end);
	return end <= r->ready;
}

/* Reads the next unit header, once the whole unit is there. 1, 0 (no
 * more units), <0. */
static int next_header(struct dw_reader *r)
{
	const struct dw_sec *info = &r->s->sec[DW_SEC_INFO];
	uint64_t off = r->next_unit, len;
	struct unit u = {.start = off, .table = -1};
	struct dw_cursor c;

	if (off >= info->size || info->size - off < 11 || !need(r, off + 11))
		return 0;
	c.p = info->p + off;
	c.end = info->p + r->ready;
	c.bad = 0;
	len = dw_rd(&c, 4);
	u.offset_size = 4;
	if (len == 0xffffffff) {
		if (!need(r, off + 12))
			return 0;
		c.end = info->p + r->ready;
		len = dw_rd(&c, 8);
		u.offset_size = 8;
	}
	if (c.bad || len < 2 || len > info->size - (uint64_t)(c.p - info->p))
		return 0;
	u.end = (uint64_t)(c.p - info->p) + len;
	if (!need(r, u.end))
		return 0;
	c.end = info->p + u.end;
	u.version = (uint8_t)dw_rd(&c, 2);
	if (u.version < 2 || u.version > 5)
		return 0;
	if (u.version >= 5) {
		u.type = (uint8_t)dw_rd(&c, 1);
		u.addr_size = (uint8_t)dw_rd(&c, 1);
		u.abbrev_off = dw_rd(&c, u.offset_size);
		if (u.type == DW_UT_skeleton || u.type == DW_UT_split_compile)
			u.dwo_id = dw_rd(&c, 8);
		else if (u.type == DW_UT_type || u.type == DW_UT_split_type)
			dw_rd(&c, 8 + u.offset_size);
	} else {
		u.type = DW_UT_compile;
		u.abbrev_off = dw_rd(&c, u.offset_size);
		u.addr_size = (uint8_t)dw_rd(&c, 1);
	}
	if (c.bad)
		return 0;
	if (u.addr_size != 4 && u.addr_size != 8)
		return -ENOTSUP;
	u.die = (uint64_t)(c.p - info->p);
	if (r->nunits % UNIT_BLOCK == 0) {
		size_t b = r->nunits / UNIT_BLOCK;

		if (GROW(r->blocks, r->blocks_cap, b + 1))
			return -ENOMEM;
		r->blocks[b] = malloc(UNIT_BLOCK * sizeof(**r->blocks));
		if (!r->blocks[b])
			return -ENOMEM;
	}
	*unit_n(r, r->nunits++) = u;
	r->next_unit = u.end;
	return 1;
}

int dwarf_die__open(struct dwarf_info *d, struct dw_secs *s, struct dw_reader **out)
{
	struct dw_reader *r = calloc(1, sizeof(*r));

	*out = r;
	if (!r)
		return -ENOMEM;
	r->d = d;
	r->s = s;
	r->hash = calloc(16, sizeof(*r->hash));
	r->hmask = 15;
	return r->hash ? 0 : -ENOMEM;
}

int dwarf_die__next(struct dw_reader *r, struct dw_unit_info *out)
{
	int rc;

	for (;;) {
		if (r->next_index == r->nunits) {
			rc = next_header(r);
			if (rc <= 0)
				return rc;
		}
		rc = read_unit(r, unit_n(r, r->next_index++), out, 1);
		if (rc == 2)
			continue;
		return rc == 1 ? 0 : rc < 0 ? rc : 1;
	}
}

int dwarf_die__scan(struct dw_reader *r, size_t *nunits)
{
	int rc;

	while ((rc = next_header(r)) > 0)
		;
	*nunits = r->nunits;
	return rc;
}

int dwarf_die__unit(struct dw_reader *r, size_t i, int walk_dies, struct dw_unit_info *out)
{
	if (i >= r->nunits)
		return 1;
	return read_unit(r, unit_n(r, i), out, walk_dies);
}

uint64_t dwarf_die__unit_die(const struct dw_reader *r, size_t i)
{
	return i < r->nunits ? unit_n(r, i)->die : 0;
}

void dwarf_die__close(struct dw_reader *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->ntables; i++)
		free_table(&r->tables[i]);
	free(r->tables);
	free(r->hash);
	free(r->scratch_ab);
	free(r->scratch_codes);
	free(r->scratch_specs);
	free(r->memo);
	for (i = 0; i * UNIT_BLOCK < r->nunits; i++)
		free(r->blocks[i]);
	free(r->blocks);
	free(r->cur_ranges);
	free(r);
}
