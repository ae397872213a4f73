/* annotate.h: inside report/: the model of `prof annotate` (cmd-annotate.c):
 * which functions of a recording match a name, their samples per address
 * (annotate-find.c), and the annotated listing: samples bucketed into
 * instructions, source lines interleaved, colours (annotate-out.c).
 *
 * Conventions as in report.h: 0 or -errno, nothing prints except the
 * writer, which writes to the FILE * it is given. */
#ifndef PROF_REPORT_ANNOTATE_H
#define PROF_REPORT_ANNOTATE_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/keymap.h"
#include "lib/recording.h"
#include "symbolize/function.h"

/* Samples at one offset of a function. */
struct annot_hit {
	uint64_t off; /* from the function's first byte */
	uint64_t count;
};

/* One function of a recording: one symbol name in one binary (all the
 * processes that mapped the binary together), or in the kernel. */
struct annot_func {
	uint32_t name;    /* recording string id of the symbol */
	uint32_t mapping; /* a mapping of the binary (pid, path, build-id);
			     REC_NO_MAPPING for the kernel */
	int kernel;
	uint64_t start;   /* file offset of the first byte; kernel: address */
	uint64_t samples; /* samples counted in it, once per sample */
	struct annot_hit *hits; /* sorted by offset, one per offset */
	size_t nhits, hits_cap;
};

struct annot_opts {
	const char *symbol;   /* the exact name; "NAME_[k]" means kernel only */
	const regex_t *regex; /* instead of symbol: names matching it */
	int children;         /* count a sample in every function on its stack,
				 not only in its leaf's */
	int event;            /* event id, or -1: every CPU event */
};

struct annot_set {
	struct annot_func *funcs; /* by samples, descending; then name */
	size_t nfuncs, funcs_cap;
	uint64_t total;           /* samples of the chosen event(s) */
	size_t symbols;           /* frames with a symbol in the recording */
	struct keymap index;      /* internal: (name, path) x start -> func */
};

/* Finds the functions of `r` that match and counts their samples by
 * offset. Frames are matched by their SYMBOLS record: a recording without
 * symbols matches nothing (set->symbols is 0). Work: one pass over the
 * frames, one over the samples, one walk per unique stack. 0 or -ENOMEM. */
int annot_set__build(struct annot_set *set, const struct recording *r,
		     const struct annot_opts *opts);
void annot_set__release(struct annot_set *set);

/* Up to `max` symbol names of `r` close to `name` (a prefix or substring
 * of each other, ignoring case, or an edit distance of at most a third of
 * the name, at least 2), closest first: recording string ids into ids[]. Returns the
 * number found. */
size_t annot_close_names(const struct recording *r, const char *name, uint32_t *ids, size_t max);
/* Levenshtein distance of two strings, stopping above `limit` (returns
 * limit + 1 then). */
size_t annot_edit_distance(const char *a, const char *b, size_t limit);

/* ---- the listing (annotate-out.c) ---- */

/* Adds each hit to the instruction holding its address (the largest
 * instruction start at or below it, when the address is inside that
 * instruction): counts[i] for insns[i]. Hits beyond the instructions go to
 * *outside. `vaddr` is the function's first byte (offsets are from it). */
void annot_bucket(const struct disasm_insn *insns, size_t n, uint64_t vaddr,
		  const struct annot_hit *hits, size_t nhits, uint64_t *counts, uint64_t *outside);

/* The ANSI colour of a row with `pct` percent of the function's samples,
 * as perf annotate: red from 5%, green from 0.5%, else NULL (none). */
const char *annot_colour(double pct);

/* Source text of files, read once each. */
struct annot_sources;
struct annot_sources *annot_sources__new(void);
void annot_sources__free(struct annot_sources *s);
/* Line `line` of `file` without its leading blanks and newline, or NULL
 * when the file cannot be read or is shorter. Owned by s. */
const char *annot_sources__line(struct annot_sources *s, const char *file, int line);

struct annot_listing {
	const char *name;      /* the function */
	const char *binary;    /* the file it was read from */
	const char *event;     /* "cpu-clock", ... */
	uint64_t samples;      /* in the function */
	uint64_t total;        /* in the recording */
	const struct elf_function *fn;
	const struct disasm_insn *insns;
	const uint64_t *counts; /* per instruction */
	size_t n;
	enum disasm_syntax syntax;
	struct func_lines *lines;      /* NULL: no source lines */
	int source_off;                /* --no-source (else: none found) */
	struct annot_sources *sources; /* for the lines' text; may be NULL */
	/* Names call targets outside the function ("<memcpy+0x10>"); may be
	 * NULL. Returns 1 and fills name/off, else 0. */
	int (*target_name)(void *arg, uint64_t vaddr, const char **name, uint64_t *off);
	void *target_arg;
	int colour;      /* ANSI colours */
	int children;    /* counts include callers' frames */
};

/* Writes the annotated function: a header, then per instruction its
 * percentage of the function's samples, its samples (both blank when 0),
 * address, mnemonic and operands as objdump prints them; a "file:line
 * text" line before each instruction whose source line differs from the
 * one before. 0 or -errno of the write. */
int annot_write(FILE *out, const struct annot_listing *l);

/* The per-offset listing of a kernel function (no disassembly): the
 * header, then one row per sampled offset. */
int annot_write_kernel(FILE *out, const char *name, const char *event,
		       const struct annot_func *f, uint64_t total, int colour);

#endif
