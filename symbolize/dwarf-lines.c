/* dwarf-lines.c: decodes one unit's DWARF line program (versions 2 to 5)
 * into line rows and a file table, the way BFD (binutils' dwarf2.c) does.
 *
 * libdw decodes line programs too, but addr2line's answers differ from
 * libdw's in ways that show: BFD starts each DWARF 5 sequence with file
 * entry 0 (the spec and libdw say 1; gas can make them different files),
 * keeps only the last of several rows at one address in a sequence, and
 * joins relative directories under DW_AT_comp_dir. So the program is read
 * here, bytes bounds-checked as they are read: a malformed program ends the
 * unit's rows, never the load. O(program size).
 *
 * Two steps, so that programs can be decoded before (and while) the units
 * that own them are read: dwarf_lines__decode() needs only the sections and
 * touches no shared state (rows name files by their entry in the program's
 * own table); dwarf_lines__emit() then joins the table's names under the
 * unit's DW_AT_comp_dir and appends the rows with file ids. */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "symbolize/dwarf-cursor.h"
#include "symbolize/dwarf-internal.h"

#define MAX_FORMATS 16

static const char *cstr(struct dw_cursor *c)
{
	const unsigned char *nul = memchr(c->p, 0, (size_t)(c->end - c->p));
	const char *s = (const char *)c->p;

	if (!nul) {
		c->bad = 1;
		c->p = c->end;
		return NULL;
	}
	c->p = nul + 1;
	return s;
}

static const char *str_at(const unsigned char *sec, size_t size, uint64_t off)
{
	if (!sec || off >= size || !memchr(sec + off, 0, size - off))
		return NULL;
	return (const char *)sec + off;
}

/* The header's tables while they are read (they end up in the
 * dw_program). */
struct table {
	int version;
	int offset_size;
	const char **dirs;
	size_t ndirs, dirs_cap;
	struct dw_entry *files;
	size_t nfiles, files_cap;
};

/* One DWARF 5 attribute value of an entry format: a string (path) or a
 * number (directory index); other content is skipped. */
static void form_value(struct dw_cursor *c, const struct dw_sections *s, int offset_size,
		       uint64_t form, const char **str, uint64_t *num)
{
	*str = NULL;
	*num = 0;
	switch (form) {
	case DW_FORM_string:
		*str = cstr(c);
		break;
	case DW_FORM_line_strp:
		*str = str_at(s->line_str, s->line_str_size, dw_rd(c, (size_t)offset_size));
		break;
	case DW_FORM_strp:
		*str = str_at(s->str, s->str_size, dw_rd(c, (size_t)offset_size));
		break;
	case DW_FORM_strx1:
		dw_rd(c, 1);
		break;
	case DW_FORM_strx2:
		dw_rd(c, 2);
		break;
	case DW_FORM_strx3:
		dw_rd(c, 3);
		break;
	case DW_FORM_strx4:
		dw_rd(c, 4);
		break;
	case DW_FORM_strx:
	case DW_FORM_udata:
		*num = dw_uleb(c);
		break;
	case DW_FORM_data1:
		*num = dw_rd(c, 1);
		break;
	case DW_FORM_data2:
		*num = dw_rd(c, 2);
		break;
	case DW_FORM_data4:
		*num = dw_rd(c, 4);
		break;
	case DW_FORM_data8:
		*num = dw_rd(c, 8);
		break;
	case DW_FORM_data16:
		dw_rd(c, 8);
		dw_rd(c, 8);
		break;
	case DW_FORM_block: {
		uint64_t n = dw_uleb(c);

		if (n > (uint64_t)(c->end - c->p))
			c->bad = 1;
		else
			c->p += n;
		break;
	}
	default:
		c->bad = 1; /* a form we cannot size: the rest is unreadable */
		break;
	}
}

/* DWARF 5 directory or file entries. */
static int read_v5_entries(struct dw_cursor *c, const struct dw_sections *s, struct table *t,
			   int files)
{
	uint64_t types[MAX_FORMATS], forms[MAX_FORMATS], count, i;
	unsigned nfmt = (unsigned)dw_rd(c, 1), k;

	if (nfmt > MAX_FORMATS)
		return -EBADMSG;
	for (k = 0; k < nfmt; k++) {
		types[k] = dw_uleb(c);
		forms[k] = dw_uleb(c);
	}
	count = dw_uleb(c);
	if (c->bad || count > (uint64_t)(c->end - c->p))
		return -EBADMSG; /* every entry takes at least a byte */
	for (i = 0; i < count && !c->bad; i++) {
		struct dw_entry e = {0};

		for (k = 0; k < nfmt; k++) {
			const char *str;
			uint64_t num;

			form_value(c, s, t->offset_size, forms[k], &str, &num);
			if (types[k] == DW_LNCT_path)
				e.name = str;
			else if (types[k] == DW_LNCT_directory_index)
				e.dir = num;
		}
		if (files) {
			if (GROW(t->files, t->files_cap, t->nfiles + 1))
				return -ENOMEM;
			t->files[t->nfiles++] = e;
		} else {
			if (GROW(t->dirs, t->dirs_cap, t->ndirs + 1))
				return -ENOMEM;
			t->dirs[t->ndirs++] = e.name;
		}
	}
	return c->bad ? -EBADMSG : 0;
}

static int add_file(struct table *t, const char *name, uint64_t dir)
{
	if (GROW(t->files, t->files_cap, t->nfiles + 1))
		return -ENOMEM;
	t->files[t->nfiles].name = name;
	t->files[t->nfiles].dir = dir;
	t->nfiles++;
	return 0;
}

static int is_abs(const char *p)
{
	return p && p[0] == '/';
}

/* BFD's concat_filename() for the stored entry `i` (already 0-based). */
static int join(struct dwarf_info *d, const struct dw_program *t, const char *comp_dir, size_t i,
		uint32_t *id)
{
	const char *name = t->files[i].name, *subdir = NULL, *dir = NULL;
	uint64_t dnum = t->files[i].dir;
	char small[1024], *buf = small;
	size_t len;
	int err;

	if (!name)
		return strtab__intern(&d->files, "<unknown>", 9, id);
	if (is_abs(name))
		return strtab__intern(&d->files, name, strlen(name), id);
	if (t->version < 5)
		dnum--; /* 0 (no directory) wraps and matches nothing */
	if (dnum < t->ndirs)
		subdir = t->dirs[dnum];
	if (!subdir || !is_abs(subdir))
		dir = comp_dir;
	if (!dir) {
		dir = subdir;
		subdir = NULL;
	}
	if (!dir)
		return strtab__intern(&d->files, name, strlen(name), id);
	len = strlen(dir) + 1 + (subdir ? strlen(subdir) + 1 : 0) + strlen(name);
	if (len >= sizeof(small)) {
		buf = malloc(len + 1);
		if (!buf)
			return -ENOMEM;
	}
	if (subdir)
		snprintf(buf, len + 1, "%s/%s/%s", dir, subdir, name);
	else
		snprintf(buf, len + 1, "%s/%s", dir, name);
	err = strtab__intern(&d->files, buf, len, id);
	if (buf != small)
		free(buf);
	return err;
}

int dwarf_lines__file(struct dwarf_info *d, const struct dw_file_table *files, uint64_t num,
		      uint32_t *id)
{
	if (!files->v5) {
		if (num == 0)
			return strtab__intern(&d->files, "<unknown>", 9, id);
		num--;
	}
	if (num >= files->n)
		return strtab__intern(&d->files, "<unknown>", 9, id);
	*id = files->ids[num];
	return 0;
}

/* Appends a row; like BFD, a row at the address of the sequence's last row
 * replaces it. */
static int emit(struct dw_rows *rows, size_t seq_start, uint64_t addr, uint32_t file,
		uint64_t line, uint64_t disc, int end)
{
	struct dw_line *row;

	/* Rows at the address where their sequence ends can never be found
	 * (BFD looks up below the end only): the end row takes their place. */
	if (rows->n > seq_start && rows->v[rows->n - 1].addr == addr &&
	    (rows->v[rows->n - 1].end == (uint32_t)end || end)) {
		row = &rows->v[rows->n - 1];
	} else {
		if (rows->n >= rows->cap && GROW(rows->v, rows->cap, rows->n + 1))
			return -ENOMEM;
		row = &rows->v[rows->n++];
	}
	row->addr = addr;
	row->file = file;
	row->line = line > UINT32_MAX ? UINT32_MAX : (uint32_t)line;
	row->discriminator = disc > UINT32_MAX ? UINT32_MAX : (uint32_t)disc;
	row->end = (uint32_t)end;
	return 0;
}

/* A row's file: entry `num` of the table as it is now (DW_LNE_define_file
 * may add entries later), resolved as dwarf_lines__file() would. */
static uint32_t raw_file(const struct table *t, uint64_t num)
{
	if (t->version < 5) {
		if (num == 0)
			return DW_FILE_UNKNOWN;
		num--;
	}
	if (num >= t->nfiles || num >= DW_FILE_UNKNOWN - 1)
		return DW_FILE_UNKNOWN;
	return (uint32_t)num + 1;
}

static int run_program(struct dw_rows *rows, struct dw_cursor *c, struct table *t,
		       const unsigned char *std_lens, unsigned opcode_base, unsigned min_inst,
		       int line_base, unsigned line_range)
{
	int err = 0;

	while (c->p < c->end && !c->bad && !err) {
		/* A sequence: BFD starts it with entry 0 in DWARF 5, 1 before. */
		uint64_t addr = 0, line = 1, disc = 0;
		uint32_t file = 0;
		size_t seq_start = rows->n;
		int end = 0;

		if (t->nfiles)
			file = raw_file(t, t->version >= 5 ? 0 : 1);
		while (!end && c->p < c->end && !c->bad && !err) {
			unsigned op = *c->p++;

			if (op >= opcode_base) {
				unsigned adj = op - opcode_base;

				addr += (uint64_t)min_inst * (adj / line_range);
				line += (uint64_t)(int64_t)(line_base + (int)(adj % line_range));
				err = emit(rows, seq_start, addr, file, line, disc, 0);
				disc = 0;
				continue;
			}
			switch (op) {
			case 0: {
				uint64_t len = dw_uleb(c);
				const unsigned char *next;
				unsigned sub;

				if (c->bad || !len || len > (uint64_t)(c->end - c->p)) {
					c->bad = 1;
					break;
				}
				next = c->p + len;
				sub = (unsigned)dw_rd(c, 1);
				if (sub == DW_LNE_end_sequence) {
					err = emit(rows, seq_start, addr, file, line, disc, 1);
					end = 1;
				} else if (sub == DW_LNE_set_address) {
					addr = dw_rd(c, len - 1 > 8 ? 8 : (size_t)(len - 1));
				} else if (sub == DW_LNE_define_file) {
					const char *name = cstr(c);
					uint64_t dir = dw_uleb(c);

					err = add_file(t, name, dir);
				} else if (sub == DW_LNE_set_discriminator) {
					disc = dw_uleb(c);
				}
				c->p = next;
				break;
			}
			case DW_LNS_copy:
				err = emit(rows, seq_start, addr, file, line, disc, 0);
				disc = 0;
				break;
			case DW_LNS_advance_pc:
				addr += min_inst * dw_uleb(c);
				break;
			case DW_LNS_advance_line:
				line += (uint64_t)dw_sleb(c);
				break;
			case DW_LNS_set_file:
				file = raw_file(t, dw_uleb(c));
				break;
			case DW_LNS_const_add_pc:
				addr += (uint64_t)min_inst * ((255 - opcode_base) / line_range);
				break;
			case DW_LNS_fixed_advance_pc:
				addr += dw_rd(c, 2);
				break;
			default: {
				unsigned k;

				/* set_column, negate_stmt, basic_block, prologue_end,
				 * epilogue_begin, set_isa and unknown ones: skip their
				 * operands. */
				for (k = 0; k < std_lens[op - 1]; k++)
					dw_uleb(c);
				break;
			}
			}
		}
	}
	return err ? err : c->bad ? -EBADMSG : 0;
}

int dwarf_lines__decode(const struct dw_sections *s, uint64_t offset, struct dw_rows *rows,
			struct dw_program *p, uint64_t *next)
{
	struct table t = {.offset_size = 4};
	struct dw_cursor c, hdr;
	uint64_t unit_len, header_len;
	unsigned min_inst, line_range, opcode_base;
	int line_base, err;
	const unsigned char *std_lens;

	memset(p, 0, sizeof(*p));
	p->offset = offset;
	p->from = rows->n;
	*next = 0;
	if (!s->line || offset >= s->line_size)
		return -EBADMSG;
	c.p = s->line + offset;
	c.end = s->line + s->line_size;
	c.bad = 0;
	unit_len = dw_rd(&c, 4);
	if (unit_len == 0xffffffff) {
		unit_len = dw_rd(&c, 8);
		t.offset_size = 8;
	}
	if (c.bad || unit_len > (uint64_t)(c.end - c.p))
		return -EBADMSG;
	c.end = c.p + unit_len;
	*next = (uint64_t)(c.end - s->line);
	t.version = (int)dw_rd(&c, 2);
	if (t.version < 2 || t.version > 5)
		return -EBADMSG;
	if (t.version >= 5)
		dw_rd(&c, 2); /* address_size, segment_selector_size */
	header_len = dw_rd(&c, (size_t)t.offset_size);
	if (c.bad || header_len > (uint64_t)(c.end - c.p))
		return -EBADMSG;
	hdr.p = c.p;
	hdr.end = c.p + header_len;
	hdr.bad = 0;
	c.p = hdr.end; /* the program */
	min_inst = (unsigned)dw_rd(&hdr, 1);
	if (t.version >= 4)
		dw_rd(&hdr, 1); /* maximum_operations_per_instruction: 1 on x86 */
	dw_rd(&hdr, 1);         /* default_is_stmt */
	line_base = (int)(int8_t)dw_rd(&hdr, 1);
	line_range = (unsigned)dw_rd(&hdr, 1);
	opcode_base = (unsigned)dw_rd(&hdr, 1);
	if (hdr.bad || !line_range || !opcode_base ||
	    (size_t)(hdr.end - hdr.p) < opcode_base - 1)
		return -EBADMSG;
	std_lens = hdr.p;
	hdr.p += opcode_base - 1;
	if (t.version >= 5) {
		err = read_v5_entries(&hdr, s, &t, 0);
		if (!err)
			err = read_v5_entries(&hdr, s, &t, 1);
	} else {
		const char *name;

		err = 0;
		while (!err && (name = cstr(&hdr)) && *name) {
			if (GROW(t.dirs, t.dirs_cap, t.ndirs + 1))
				err = -ENOMEM;
			else
				t.dirs[t.ndirs++] = name;
		}
		while (!err && (name = cstr(&hdr)) && *name) {
			uint64_t dir = dw_uleb(&hdr);

			dw_uleb(&hdr); /* mtime */
			dw_uleb(&hdr); /* length */
			err = add_file(&t, name, dir);
		}
		if (!err && hdr.bad)
			err = -EBADMSG;
	}
	if (!err) {
		p->version = t.version; /* the file table counts from here on */
		err = run_program(rows, &c, &t, std_lens, opcode_base, min_inst, line_base,
				  line_range);
	}
	p->n = rows->n - p->from;
	if (p->version) {
		p->dirs = t.dirs;
		p->ndirs = t.ndirs;
		p->files = t.files;
		p->nfiles = t.nfiles;
	} else {
		free(t.dirs);
		free(t.files);
	}
	return err;
}

void dwarf_lines__release(struct dw_program *p)
{
	free(p->dirs);
	free(p->files);
	p->dirs = NULL;
	p->files = NULL;
}

int dwarf_lines__files(struct dwarf_info *d, const struct dw_program *p, const char *comp_dir,
		       struct dw_file_table *files)
{
	size_t i;
	int err;

	free(files->ids);
	memset(files, 0, sizeof(*files));
	if (!p->version)
		return 0;
	files->ids = malloc((p->nfiles ? p->nfiles : 1) * sizeof(*files->ids));
	if (!files->ids)
		return -ENOMEM;
	files->n = p->nfiles;
	files->v5 = p->version >= 5;
	for (i = 0; i < p->nfiles; i++) {
		err = join(d, p, comp_dir, i, &files->ids[i]);
		if (err)
			return err;
	}
	return 0;
}

int dwarf_lines__emit(struct dwarf_info *d, const struct dw_line *rows, const struct dw_program *p,
		      const char *comp_dir, struct dw_file_table *files)
{
	uint32_t unknown = 0;
	size_t i;
	int err;

	err = dwarf_lines__files(d, p, comp_dir, files);
	if (err)
		return err;
	if (p->n && d->nlines + p->n > d->lines_cap &&
	    GROW(d->lines, d->lines_cap, d->nlines + p->n))
		return -ENOMEM;
	for (i = 0; i < p->n; i++) {
		struct dw_line *out = &d->lines[d->nlines++];

		*out = rows[p->from + i];
		if (out->file == DW_FILE_UNKNOWN) {
			if (!unknown) {
				err = strtab__intern(&d->files, "<unknown>", 9, &unknown);
				if (err)
					return err;
			}
			out->file = unknown;
		} else if (out->file) {
			out->file = files->ids[out->file - 1];
		}
	}
	return 0;
}

int dwarf_lines__read(struct dwarf_info *d, const struct dw_sections *s, uint64_t offset,
		      const char *comp_dir, struct dw_file_table *files)
{
	struct dw_rows rows = {0};
	struct dw_program p;
	uint64_t next;
	int err, err2;

	err = dwarf_lines__decode(s, offset, &rows, &p, &next);
	err2 = err == -ENOMEM ? 0 : dwarf_lines__emit(d, rows.v, &p, comp_dir, files);
	dwarf_lines__release(&p);
	free(rows.v);
	return err2 ? err2 : err;
}
