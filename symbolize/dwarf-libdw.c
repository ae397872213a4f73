/* dwarf-libdw.c: the DWARF tables read through libdw, for what prof's own
 * reader (dwarf-die.c) does not handle (dwz's alternate files,
 * type-signature references...) and with PROF_DWARF_LIBDW=1. The same
 * tables (the unit test checks it): one pass over the units, each unit's
 * line program decoded (dwarf-lines.c) and its rows appended to one array,
 * and its DIE tree walked, without recursion, for subprograms and inlined
 * subroutines that have code: each becomes a func (name, caller, call
 * site) and one range per address range. DIEs of types and variables are
 * skipped over, not entered. The tables are left unsorted (dwarf-tables.c
 * sorts them).
 *
 * Names are the DIE's linkage name, else its DW_AT_name, following
 * DW_AT_abstract_origin and DW_AT_specification (dwarf_attr_integrate), as
 * BFD does. */
#include <dwarf.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "symbolize/dwarf-internal.h"
#include "symbolize/dwarf-rules.h"

#define MAX_DEPTH 256          /* DIE nesting walked; deeper DIEs are skipped */
#define MAX_RANGES_PER_DIE 4096 /* a bound against hostile range lists */

/* What the walk needs to know about the unit being read. */
struct unit {
	Dwarf_Die cudie;
	int plain_names; /* a language whose DW_AT_name is the linkage name */
	struct dw_file_table files;
};

struct loader {
	struct dwarf_info *d;
	struct dw_sections secs;
	struct unit u;
};

static const char *die_string(Dwarf_Die *die, int at)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, at, &a) ? dwarf_formstring(&a) : NULL;
}

static int add_func(struct loader *ld, Dwarf_Die *die, int tag, uint32_t enclosing,
		    uint32_t *out)
{
	struct dwarf_info *d = ld->d;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	struct dw_func *f;
	uint32_t id = (uint32_t)d->nfuncs;
	size_t n = 0;
	const char *name;
	int err;

	*out = DWARF_NONE;
	if (d->nfuncs >= DWARF_NONE - 1)
		return 0;
	while (n < MAX_RANGES_PER_DIE && (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		if (GROW(d->ranges, d->ranges_cap, d->nranges + 1))
			return -ENOMEM;
		d->ranges[d->nranges].lo = lo;
		d->ranges[d->nranges].hi = hi;
		d->ranges[d->nranges].func = id;
		d->ranges[d->nranges].parent = DWARF_NONE;
		d->nranges++;
		n++;
	}
	if (!n)
		return 0; /* no code: a declaration or an abstract instance */
	f = dwarf_tables__new_func(d, n);
	if (!f)
		return -ENOMEM;
	name = die_string(die, DW_AT_linkage_name);
	if (!name)
		name = die_string(die, DW_AT_MIPS_linkage_name);
	if (name) {
		f->linkage = 1;
	} else {
		name = die_string(die, DW_AT_name);
		f->linkage = name && ld->u.plain_names;
	}
	f->name = name;
	if (tag == DW_TAG_inlined_subroutine) {
		Dwarf_Attribute a;
		Dwarf_Word w;

		f->inlined = 1;
		f->parent = enclosing;
		if (dwarf_attr(die, DW_AT_call_file, &a) && !dwarf_formudata(&a, &w)) {
			err = dwarf_lines__file(ld->d, &ld->u.files, w, &f->call_file);
			if (err)
				return err;
		}
		if (dwarf_attr(die, DW_AT_call_line, &a) && !dwarf_formudata(&a, &w))
			f->call_line = w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
	}
	*out = id;
	return 0;
}

struct level {
	Dwarf_Die die;
	uint32_t func; /* nearest enclosing function of this DIE */
};

/* Walks the unit's DIEs, depth first, entering only DIEs that can hold
 * functions with code. */
static int walk_unit(struct loader *ld)
{
	struct level *stack;
	size_t depth = 0;
	int err = 0;

	stack = malloc(MAX_DEPTH * sizeof(*stack));
	if (!stack)
		return -ENOMEM;
	if (dwarf_child(&ld->u.cudie, &stack[0].die) != 0)
		goto out;
	stack[0].func = DWARF_NONE;
	depth = 1;
	while (depth) {
		struct level *top = &stack[depth - 1];
		int tag = dwarf_tag(&top->die), enter = 0;
		uint32_t func = top->func;
		Dwarf_Die next;

		switch (tag) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_entry_point:
			err = add_func(ld, &top->die, tag, top->func, &func);
			if (err)
				goto out;
			/* Entered even without code: an abstract instance can
			 * hold a local class whose methods have code (a lambda's
			 * operator() in a template, say). */
			if (func == DWARF_NONE)
				func = top->func;
			enter = 1;
			break;
		default:
			enter = dwarf_tag_enters(tag);
			break;
		}
		if (enter && depth < MAX_DEPTH && dwarf_child(&top->die, &next) == 0) {
			stack[depth].die = next;
			stack[depth].func = func;
			depth++;
			continue;
		}
		/* Next sibling, or back up to the nearest level that has one. */
		while (depth) {
			top = &stack[depth - 1];
			if (dwarf_siblingof(&top->die, &next) == 0) {
				top->die = next;
				break;
			}
			depth--;
		}
	}
out:
	free(stack);
	return err;
}

/* The section's bytes, decompressed if needed; NULL when absent. */
static const unsigned char *section_bytes(Elf *elf, const char *want, size_t *size)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *data;

	*size = 0;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, want))
			continue;
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			return NULL;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			return NULL;
		*size = data->d_size;
		return data->d_buf;
	}
	return NULL;
}

/* The sections the line-program reader needs (dwarf-lines.c). */
static void raw_sections(Elf *elf, struct dw_sections *s)
{
	s->line = section_bytes(elf, ".debug_line", &s->line_size);
	s->line_str = section_bytes(elf, ".debug_line_str", &s->line_str_size);
	s->str = section_bytes(elf, ".debug_str", &s->str_size);
}

/* The unit DIE's ranges, through libdw. */
static int unit_spans(struct loader *ld, Dwarf_Die *cudie, size_t lines_from,
		      size_t ranges_from)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	uint64_t (*cu)[2] = NULL;
	size_t n = 0, cap = 0;
	int err = 0;

	while (n < MAX_RANGES_PER_DIE && (off = dwarf_ranges(cudie, off, &base, &lo, &hi)) > 0) {
		if (GROW(cu, cap, n + 1)) {
			free(cu);
			return -ENOMEM;
		}
		cu[n][0] = lo;
		cu[n][1] = hi;
		n++;
	}
	err = dwarf_tables__unit_spans(ld->d, (const uint64_t(*)[2])cu, n,
				       ld->d->lines + lines_from, ld->d->nlines - lines_from,
				       ranges_from, ld->d->nranges);
	free(cu);
	return err;
}

/* The unit's rows (appended in program order) and its funcs and ranges. */
static int unit_tables(struct loader *ld, Dwarf_Die *cudie)
{
	struct unit *u = &ld->u;
	Dwarf_Attribute a;
	Dwarf_Word stmt;
	const char *comp_dir;
	int err = 0;

	memset(u, 0, sizeof(*u));
	u->cudie = *cudie;
	u->plain_names = dwarf_plain_language((uint64_t)dwarf_srclang(cudie));
	comp_dir = dwarf_attr(cudie, DW_AT_comp_dir, &a) ? dwarf_formstring(&a) : NULL;
	if (dwarf_attr(cudie, DW_AT_stmt_list, &a) && !dwarf_formudata(&a, &stmt)) {
		err = dwarf_lines__read(ld->d, &ld->secs, stmt, comp_dir, &u->files);
		if (err == -EBADMSG)
			err = 0; /* keep the rows read; the unit's functions still count */
	}
	if (!err)
		err = walk_unit(ld);
	free(u->files.ids);
	u->files.ids = NULL;
	return err;
}

static int read_unit(struct loader *ld, Dwarf_Die *cudie)
{
	size_t lines_from = ld->d->nlines, ranges_from = ld->d->nranges;
	int err = unit_tables(ld, cudie);

	return err ? err : unit_spans(ld, cudie, lines_from, ranges_from);
}

int dwarf_libdw__unit(struct dwarf_info *d, uint64_t die_off, struct dw_unit_info *out)
{
	struct loader ld = {.d = d};
	Dwarf_Die cudie;
	int err;

	if (!d->dw)
		d->dw = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
	if (!d->dw || !dwarf_offdie(d->dw, die_off, &cudie))
		return -ENOEXEC;
	raw_sections(d->elf, &ld.secs);
	memset(out, 0, sizeof(*out));
	out->funcs_from = d->nfuncs;
	out->ranges_from = d->nranges;
	err = unit_tables(&ld, &cudie);
	out->funcs_to = d->nfuncs;
	out->ranges_to = d->nranges;
	return err;
}

int dwarf_libdw__tables(struct dwarf_info *d)
{
	struct loader ld = {.d = d};
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t unit_type;
	Dwarf_Die cudie, subdie;
	int err = 0, rc;

	d->dw = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
	if (!d->dw)
		return -ENOEXEC;
	if (strtab__init(&d->files))
		return -ENOMEM;
	raw_sections(d->elf, &ld.secs);
	while (!err && (rc = dwarf_get_units(d->dw, cu, &next, &version, &unit_type, &cudie,
					      &subdie)) == 0) {
		cu = next;
		switch (unit_type) {
		case DW_UT_compile:
		case DW_UT_partial:
			err = read_unit(&ld, &cudie);
			break;
		default:
			/* Type units hold no code. Split DWARF is read by prof's
			 * own reader only (dwarf-split.c). */
			break;
		}
	}
	(void)version;
	return err;
}
