/* annotate-out.c: the listing `prof annotate` prints (see annotate.h):
 * samples bucketed into instructions, source lines between them, colours
 * for the hottest rows.
 *
 * Layout (docs/prof-annotate.md):
 *
 *   hot_function  /path/to/binary
 *     1990 samples: 99.50% of 2000 cpu-clock samples; 50 bytes at 0x1330; AT&T
 *     source lines: DWARF of /path/to/binary
 *
 *    Percent   Samples   Address  Instruction
 *                                 hotloop.c:38  sum = (sum ^ v[i]) ...
 *     31.21%       621      1348: mov    (%rdi),%ecx
 *
 * Rows without samples leave both count columns blank, so the hot ones
 * stand out even without colour. */
#include "report/annotate.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/text-clean.h"

#define RESET "\033[m"
#define RED "\033[31m"
#define GREEN "\033[32m"
#define MAX_SOURCE_BYTES (64u << 20) /* a source file read at most */
#define ROW_INDENT 30 /* where addresses end and source headers start */

void annot_bucket(const struct disasm_insn *insns, size_t n, uint64_t vaddr,
		  const struct annot_hit *hits, size_t nhits, uint64_t *counts, uint64_t *outside)
{
	size_t h;

	memset(counts, 0, n * sizeof(*counts));
	*outside = 0;
	for (h = 0; h < nhits; h++) {
		uint64_t a = vaddr + hits[h].off;
		size_t lo = 0, hi = n;

		/* The last instruction starting at or below a. */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (insns[mid].addr <= a)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && a - insns[lo - 1].addr < insns[lo - 1].size)
			counts[lo - 1] += hits[h].count;
		else
			*outside += hits[h].count;
	}
}

const char *annot_colour(double pct)
{
	if (pct >= 5.0)
		return RED;
	if (pct >= 0.5)
		return GREEN;
	return NULL;
}

/* ---- source files ---- */

struct source_file {
	char *path;
	char *text;   /* NULL: unreadable */
	size_t *line; /* offsets of line starts; line[i] is line i + 1 */
	size_t nlines;
};

struct annot_sources {
	struct source_file *files;
	size_t n, cap;
};

struct annot_sources *annot_sources__new(void)
{
	return calloc(1, sizeof(struct annot_sources));
}

void annot_sources__free(struct annot_sources *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		free(s->files[i].path);
		free(s->files[i].text);
		free(s->files[i].line);
	}
	free(s->files);
	free(s);
}

/* Reads a file whole and indexes its lines (NUL-terminating each). */
static void load_source(struct source_file *f)
{
	FILE *in = fopen(f->path, "rb");
	size_t len = 0, cap = 0, i, lcap = 0;
	char *buf = NULL;

	if (!in)
		return;
	for (;;) {
		size_t got;

		if (len + 4096 + 1 > cap && GROW(buf, cap, len + 4096 + 1))
			goto fail;
		got = fread(buf + len, 1, cap - len - 1, in);
		len += got;
		if (!got || len > MAX_SOURCE_BYTES)
			break;
	}
	if (ferror(in) || len > MAX_SOURCE_BYTES)
		goto fail;
	buf[len] = '\0';
	for (i = 0; i <= len; i++) {
		if (i == len && (!len || buf[len - 1] == '\0'))
			break; /* no empty line after a final newline */
		if (!i || buf[i - 1] == '\0') {
			if (GROW(f->line, lcap, f->nlines + 1))
				goto fail;
			f->line[f->nlines++] = i;
		}
		if (buf[i] == '\n')
			buf[i] = '\0';
	}
	fclose(in);
	f->text = buf;
	return;
fail:
	fclose(in);
	free(buf);
	free(f->line);
	f->line = NULL;
	f->nlines = 0;
}

const char *annot_sources__line(struct annot_sources *s, const char *file, int line)
{
	struct source_file *f = NULL;
	const char *t;
	size_t i;

	for (i = 0; i < s->n; i++) /* a function's lines come from a few files */
		if (!strcmp(s->files[i].path, file))
			f = &s->files[i];
	if (!f) {
		if (GROW(s->files, s->cap, s->n + 1))
			return NULL;
		f = &s->files[s->n];
		memset(f, 0, sizeof(*f));
		f->path = strdup(file);
		if (!f->path)
			return NULL;
		s->n++;
		load_source(f);
	}
	if (!f->text || line < 1 || (size_t)line > f->nlines)
		return NULL;
	t = f->text + f->line[line - 1];
	while (*t == ' ' || *t == '\t')
		t++;
	return t;
}

/* ---- the listing ---- */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void write_header(FILE *out, const struct annot_listing *l)
{
	char event[128];

	/* Names come from the target's binary and the recording: printed
	 * through text_put() (lib/text-clean.h), as every name below. */
	text_put(out, l->name);
	fputs("  ", out);
	text_put(out, l->binary);
	fprintf(out, "\n  %" PRIu64 " samples: %.2f%% of %" PRIu64 " %s samples%s; %" PRIu64
		     " bytes at 0x%" PRIx64 "; %s syntax%s\n",
		l->samples, l->total ? 100.0 * (double)l->samples / (double)l->total : 0.0,
		l->total, text_clean_copy(event, sizeof(event), l->event), l->children ? ", with callers" : "", l->fn->size,
		l->fn->vaddr, l->syntax == DISASM_INTEL ? "Intel" : "AT&T",
		l->fn->truncated ? " (cut at 16 MiB)" : "");
	if (l->fn->from_dynsym)
		fprintf(out, "  symbol from .dynsym (no .symtab entry for it: a stripped binary)\n");
	if (l->lines) {
		fputs("  source lines: DWARF of ", out);
		text_put(out, func_lines__source(l->lines));
		fputc('\n', out);
	} else if (l->source_off)
		fprintf(out, "  source lines: off\n");
	else
		fprintf(out, "  source lines: none (no DWARF line info found)\n");
	fprintf(out, "\n%8s  %8s  %8s  %s\n", "Percent", "Samples", "Address", "Instruction");
}

static void write_operands(FILE *out, const struct annot_listing *l, const struct disasm_insn *d)
{
	const struct elf_function *fn = l->fn;
	const char *name;
	uint64_t off;

	text_put(out, d->operands);
	if (!d->branch)
		return;
	if (d->target >= fn->vaddr && d->target - fn->vaddr < fn->size) {
		off = d->target - fn->vaddr;
		name = l->name;
	} else if (!l->target_name || !l->target_name(l->target_arg, d->target, &name, &off)) {
		return;
	}
	fputs(" <", out);
	text_put(out, name);
	if (off)
		fprintf(out, "+0x%" PRIx64, off);
	fputc('>', out);
}

static void write_source(FILE *out, const struct annot_listing *l, const char *file, int line)
{
	const char *text = l->sources ? annot_sources__line(l->sources, file, line) : NULL;

	fprintf(out, "%*s", ROW_INDENT, "");
	text_put(out, base_name(file));
	fprintf(out, ":%d", line);
	if (text && *text) {
		fputs("  ", out);
		text_put(out, text);
	}
	fputc('\n', out);
}

int annot_write(FILE *out, const struct annot_listing *l)
{
	const char *last_file = NULL;
	int last_line = -1;
	size_t i;

	write_header(out, l);
	for (i = 0; i < l->n; i++) {
		const struct disasm_insn *d = &l->insns[i];
		double pct = l->samples ? 100.0 * (double)l->counts[i] / (double)l->samples : 0.0;
		const char *colour = l->colour && l->counts[i] ? annot_colour(pct) : NULL;
		const char *file;
		char mnem[64];
		int line;

		if (l->lines && func_lines__lookup(l->lines, d->addr, &file, &line) &&
		    (!last_file || strcmp(file, last_file) || line != last_line)) {
			write_source(out, l, file, line);
			last_file = file;
			last_line = line;
		}
		if (colour)
			fputs(colour, out);
		if (l->counts[i])
			fprintf(out, "%7.2f%%  %8" PRIu64 "  ", pct, l->counts[i]);
		else
			fprintf(out, "%8s  %8s  ", "", "");
		fprintf(out, "%8" PRIx64 ": ", d->addr);
		if (*d->operands) {
			fprintf(out, "%-6s ", text_clean_copy(mnem, sizeof(mnem), d->mnemonic));
			write_operands(out, l, d);
		} else {
			text_put(out, d->mnemonic);
		}
		if (colour)
			fputs(RESET, out);
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}

int annot_write_kernel(FILE *out, const char *name, const char *event,
		       const struct annot_func *f, uint64_t total, int colour)
{
	char ev[128];
	size_t i;

	/* Kernel symbols are root's, but the name may come from a recording. */
	text_put(out, name);
	fputs("  [kernel]\n", out);
	fprintf(out, "  %" PRIu64 " samples: %.2f%% of %" PRIu64 " %s samples; at 0x%" PRIx64
		     "; no disassembly (prof annotate does not read the kernel image)\n",
		f->samples, total ? 100.0 * (double)f->samples / (double)total : 0.0, total,
		text_clean_copy(ev, sizeof(ev), event), f->start);
	fprintf(out, "\n%8s  %8s  %16s  %s\n", "Percent", "Samples", "Address", "Offset");
	for (i = 0; i < f->nhits; i++) {
		const struct annot_hit *h = &f->hits[i];
		double pct = f->samples ? 100.0 * (double)h->count / (double)f->samples : 0.0;
		const char *c = colour ? annot_colour(pct) : NULL;

		fprintf(out, "%s%7.2f%%  %8" PRIu64 "  %16" PRIx64 "  ", c ? c : "", pct, h->count,
			f->start + h->off);
		text_put(out, name);
		fprintf(out, "+0x%" PRIx64 "%s\n", h->off, c ? RESET : "");
	}
	return ferror(out) ? -EIO : 0;
}
