/* dwarf-rules.h: what both DWARF readers (prof's, dwarf-die.c, and libdw's
 * walk, dwarf-libdw.c) keep of a DIE, following BFD: which languages name
 * functions by their symbols, which DIEs are entered in search of
 * functions. Inline, for the DIE walks' inner loops. Internal to
 * symbolize/. */
#ifndef PROF_SYMBOLIZE_DWARF_RULES_H
#define PROF_SYMBOLIZE_DWARF_RULES_H

#include <dwarf.h>
#include <stdint.h>

/* BFD's mangle_style() == 0 for a unit's DW_AT_language: DW_AT_name is
 * then the symbol's name (C, Pascal, assembler...). Every other language
 * (C++, Rust, D, Fortran 90+, unknown) gets the symbol table's name when
 * only DW_AT_name is known. */
static inline int dwarf_plain_language(uint64_t lang)
{
	switch (lang) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_Cobol74:
	case DW_LANG_Cobol85:
	case DW_LANG_Fortran77:
	case DW_LANG_Pascal83:
	case DW_LANG_PLI:
	case DW_LANG_C99:
	case DW_LANG_UPC:
	case DW_LANG_C11:
	case DW_LANG_Mips_Assembler:
		return 1;
	default:
		return 0;
	}
}

/* 1 for a DIE other than a function's that can hold functions with code
 * (a block, a namespace, a class's methods): the walks enter it. */
static inline int dwarf_tag_enters(int tag)
{
	switch (tag) {
	case DW_TAG_lexical_block:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_with_stmt:
		return 1;
	default:
		return 0;
	}
}

#endif
