/* cmd-annotate.c: `prof annotate`, the front end: options, reading the
 * recording, choosing the function(s), finding each one's binary (the file
 * that was recorded, checked by build-id) and its debug file (as the
 * recording's symbolizer finds it: elf_symtab__load_opts()), then the
 * listing of annotate-out.c. With the other front ends and report-cli.h's
 * files, the only places in report/ that print. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "commands.h"
#include "lib/cli.h"
#include "lib/recording.h"
#include "lib/text-clean.h"
#include "report/annotate.h"
#include "report/report-cli.h"
#include "report/user-regex.h"
#include "symbolize/function.h"
#include "symbolize/symbolize.h"

#define DEFAULT_INPUT "prof.data"
#define DELETED_SUFFIX " (deleted)"
#define MAX_LISTED 10     /* other matches named on stderr */
#define MAX_CLOSE 5       /* close names suggested */
#define MAX_PATHS_SEARCHED 64

static const char usage_text[] =
	"usage: prof annotate [-i FILE] [-r] [--all] [--children] [--event NAME]\n"
	"                     [--stdio] [--color[=WHEN]] [-s | --no-source]\n"
	"                     [-M att|intel] SYMBOL\n"
	"\n"
	"Prints the disassembly of the function SYMBOL with the samples of each\n"
	"instruction (its share of the function's samples), the hottest in colour\n"
	"on a terminal, and source lines between them when the binary has DWARF\n"
	"line info. The code is read from the binary that was recorded.\n"
	"\n"
	"  -i, --input FILE   the recording (default: prof.data)\n"
	"  -r, --regex        SYMBOL is a POSIX extended regex (unanchored)\n"
	"  --all              annotate every matching function, hottest first\n"
	"                     (default: only the hottest; the others are listed)\n"
	"  --children         count samples in the function's callers' frames too\n"
	"                     (a caller's sample is on its call instruction)\n"
	"  --event NAME       count the samples of event NAME (default: the CPU\n"
	"                     events, e.g. cpu-clock)\n"
	"  --stdio            plain text output (the only kind; for perf users)\n"
	"  --color[=WHEN]     colour the hottest rows: auto (on a terminal, the\n"
	"                     default), always, never\n"
	"  -s, --source       interleave source lines (the default when the\n"
	"                     binary has DWARF line info; warns when it has none)\n"
	"  --no-source        instructions only\n"
	"  -M, --syntax S     att (as objdump -d, the default) or intel\n"
	"  -h, --help         show this help\n";

enum {
	OPT_ALL = 256,
	OPT_CHILDREN,
	OPT_EVENT,
	OPT_STDIO,
	OPT_COLOR,
	OPT_NO_SOURCE,
};

static const struct option long_options[] = {
	{"input", required_argument, NULL, 'i'},
	{"regex", no_argument, NULL, 'r'},
	{"all", no_argument, NULL, OPT_ALL},
	{"children", no_argument, NULL, OPT_CHILDREN},
	{"event", required_argument, NULL, OPT_EVENT},
	{"stdio", no_argument, NULL, OPT_STDIO},
	{"color", optional_argument, NULL, OPT_COLOR},
	{"colour", optional_argument, NULL, OPT_COLOR},
	{"source", no_argument, NULL, 's'},
	{"no-source", no_argument, NULL, OPT_NO_SOURCE},
	{"syntax", required_argument, NULL, 'M'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

enum tristate { AUTO = 0, ON, OFF };

/* Everything `prof annotate` holds while it runs. */
struct annotate_cmd {
	recording_replay_fn replay; /* struct prof_env's */
	const char *input;
	char shown[PROFILE_SHOWN_MAX]; /* the input as messages name it */
	const char *symbol;
	int regex, all, children;
	const char *event_name;
	enum tristate colour, source;
	enum disasm_syntax syntax;

	struct recording rec;
	int have_rec;
	regex_t re;
	int have_re;
	struct annot_set set;
	const char *event_shown; /* for the header */
	struct annot_sources *sources;
};

static int parse_options(struct annotate_cmd *c, int argc, char **argv)
{
	int opt;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":i:rsM:h", long_options, NULL)) != -1) {
		switch (opt) {
		case 'i':
			c->input = optarg;
			break;
		case 'r':
			c->regex = 1;
			break;
		case OPT_ALL:
			c->all = 1;
			break;
		case OPT_CHILDREN:
			c->children = 1;
			break;
		case OPT_EVENT:
			c->event_name = optarg;
			break;
		case OPT_STDIO:
			break;
		case OPT_COLOR:
			if (!optarg || !strcmp(optarg, "always"))
				c->colour = ON;
			else if (!strcmp(optarg, "never"))
				c->colour = OFF;
			else if (!strcmp(optarg, "auto"))
				c->colour = AUTO;
			else
				return cli_usage_error("--color takes auto, always or never, not '%s'",
						       optarg);
			break;
		case 's':
			c->source = ON;
			break;
		case OPT_NO_SOURCE:
			c->source = OFF;
			break;
		case 'M':
			if (!strcasecmp(optarg, "att") || !strcasecmp(optarg, "at&t"))
				c->syntax = DISASM_ATT;
			else if (!strcasecmp(optarg, "intel"))
				c->syntax = DISASM_INTEL;
			else
				return cli_usage_error("-M takes att or intel, not '%s'", optarg);
			break;
		case 'h':
			fputs(usage_text, stdout);
			return fflush(stdout) ? EXIT_FAIL : -1;
		case ':':
			return cli_usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("which function? name it: prof annotate SYMBOL");
	if (optind + 1 < argc)
		return cli_usage_error("one SYMBOL only, not '%s' too (use -r 'a|b' for several)",
				       argv[optind + 1]);
	c->symbol = argv[optind];
	if (!*c->symbol)
		return cli_usage_error("the SYMBOL is empty");
	if (!c->input)
		c->input = DEFAULT_INPUT;
	profile_input_name(c->shown, sizeof(c->shown), c->input);
	return 0;
}

static int load_recording(struct annotate_cmd *c)
{
	unsigned char *data;
	size_t size;

	if (profile_input_read(c->input, c->shown, "record one with 'prof record', or name it with -i",
			       &data, &size))
		return EXIT_FAIL;
	if (!recording_is_recording(data, size)) {
		free(data);
		cli_error("%s is not a recording", c->shown);
		cli_hint("prof annotate reads what 'prof record' writes, not folded text");
		return EXIT_FAIL;
	}
	c->have_rec = 1;
	if (profile_input__parse_recording(&c->rec, data, size, c->shown, c->replay))
		return EXIT_FAIL;
	if (!c->rec.nsamples) {
		cli_error("%s holds no samples", c->shown);
		return EXIT_FAIL;
	}
	return 0;
}

/* Picks the event: --event NAME, else every CPU event. */
static int choose_event(struct annotate_cmd *c, int *event)
{
	const struct recording *r = &c->rec;
	size_t i;

	*event = -1;
	c->event_shown = "CPU";
	if (!c->event_name) {
		for (i = 0; i < r->nevents; i++)
			if (recording__event_is_cpu(r, (unsigned)i)) {
				c->event_shown = recording__str(r, r->events[i].name);
				break;
			}
		return 0;
	}
	for (i = 0; i < r->nevents && i < 256; i++)
		if (!strcmp(recording__str(r, r->events[i].name), c->event_name)) {
			*event = (int)i;
			c->event_shown = c->event_name;
			return 0;
		}
	cli_error("%s has no event '%s'", c->shown, c->event_name);
	if (r->nevents) {
		fprintf(stderr, "hint: its events:");
		for (i = 0; i < r->nevents; i++) {
			fputc(' ', stderr);
			text_put(stderr, recording__str(r, r->events[i].name));
		}
		fputc('\n', stderr);
	}
	return EXIT_FAIL;
}

static const char *func_name(const struct annotate_cmd *c, const struct annot_func *f)
{
	return recording__str(&c->rec, f->name);
}

static const char *func_path(const struct annotate_cmd *c, const struct annot_func *f)
{
	if (f->kernel || f->mapping >= c->rec.nmappings)
		return "[kernel]";
	return recording__str(&c->rec, c->rec.mappings[f->mapping].path);
}

/* The build-id the recording knows for mapping m: its own, else the META
 * entry "build-id:PATH" that the symbolizer wrote; "" when unknown. */
static const char *recorded_build_id(const struct annotate_cmd *c, const struct rec_mapping *m)
{
	const char *path = recording__str(&c->rec, m->path), *v;
	char key[PATH_MAX + 16];

	if (m->build_id)
		return recording__str(&c->rec, m->build_id);
	if ((size_t)snprintf(key, sizeof(key), "build-id:%s", path) >= sizeof(key))
		return "";
	v = recording__meta(&c->rec, key);
	return v ? v : "";
}

/* Finds the file of mapping m that is the binary that was recorded:
 * /proc/PID/root/PATH while the process lives (its own mount namespace;
 * then *root is "/proc/PID/root", where its debug files are looked for
 * first), else PATH (*root ""); with a recorded build-id, the file's must
 * match. Returns 0 and fills file, or an exit status after printing why
 * not. */
static int find_binary(struct annotate_cmd *c, const struct annot_func *f, char *file, size_t len,
		       char root[32])
{
	const struct rec_mapping *m = &c->rec.mappings[f->mapping];
	const char *path = recording__str(&c->rec, m->path);
	const char *want = recorded_build_id(c, m);
	char clean[PATH_MAX], cand[2][PATH_MAX + 32], found_id[160] = "", build_id[160];
	size_t plen = strlen(path), slen = strlen(DELETED_SUFFIX), i;
	int ncand = 0, err = -ENOENT, changed = 0;

	if (path[0] != '/' || plen >= sizeof(clean)) {
		cli_error("'%s' is in %s, which is no file: there is no code to read", func_name(c, f),
			  path);
		return EXIT_FAIL;
	}
	memcpy(clean, path, plen + 1);
	if (plen > slen && !strcmp(clean + plen - slen, DELETED_SUFFIX))
		clean[plen - slen] = '\0';
	if (m->pid)
		snprintf(cand[ncand++], sizeof(cand[0]), "/proc/%u/root%s", (unsigned)m->pid, clean);
	snprintf(cand[ncand++], sizeof(cand[0]), "%s", clean);
	for (i = 0; i < (size_t)ncand; i++) {
		int e = elf_file_build_id(cand[i], build_id, sizeof(build_id));

		if (e) {
			if (err == -ENOENT || e == -ENOTSUP || e == -ENOEXEC)
				err = e;
			continue;
		}
		if (*want && strcasecmp(want, build_id)) {
			changed = 1;
			snprintf(found_id, sizeof(found_id), "%s", build_id);
			continue;
		}
		if (strlen(cand[i]) >= len)
			continue;
		memcpy(file, cand[i], strlen(cand[i]) + 1);
		root[0] = '\0';
		if (m->pid && !i)
			snprintf(root, 32, "/proc/%u/root", (unsigned)m->pid);
		return 0;
	}
	if (changed) {
		cli_error("'%s' has changed since it was recorded (build-id %s, recorded %s): "
			  "its code is not what ran",
			  clean, found_id, want);
		cli_hint("annotate where the recorded binary is, or restore it");
	} else if (err == -ENOTSUP) {
		cli_error("cannot disassemble '%s': prof annotate reads x86-64 ELF files only",
			  clean);
	} else if (err == -ENOEXEC) {
		cli_error("'%s' is not an ELF file prof can read", clean);
	} else {
		cli_error("cannot read '%s' for '%s': %s", clean, func_name(c, f), strerror(-err));
		if (err == -ENOENT)
			cli_hint("prof annotate reads the code from the binary that was recorded: "
				 "run it where that binary is");
	}
	return EXIT_FAIL;
}

/* The symbol table of the binary at `file` (under `root` when not ""),
 * loaded as the recording's symbolizer loads it: missing symbols from its
 * debug file (debuginfo.c: build-id and .gnu_debuglink under
 * $PROF_DEBUGINFO_DIRS or /usr/lib/debug, the container's root first) or
 * its MiniDebugInfo. *debug: that debug file's path, or NULL. NULL when
 * the file cannot be read as a symbol table (annotate goes on without). */
static struct elf_symtab *load_symtab(const char *file, const char *root, const char **debug)
{
	struct elf_symtab_opts o = {.root = root && *root ? root : NULL};
	struct elf_symtab *t = elf_symtab__load_opts(file, &o);

	*debug = t && *elf_symtab__debug_file(t) ? elf_symtab__debug_file(t) : NULL;
	return t;
}

/* Names call targets through the binary's symbol table. */
static int target_name(void *arg, uint64_t vaddr, const char **name, uint64_t *off)
{
	const struct elf_symtab *t = arg;

	return t && elf_symtab__lookup_vaddr(t, vaddr, name, off);
}

static int write_failed(int err)
{
	cli_error("cannot write the listing: %s", strerror(-err));
	return EXIT_FAIL;
}

static int annotate_kernel(struct annotate_cmd *c, const struct annot_func *f, int colour)
{
	int err = annot_write_kernel(stdout, func_name(c, f), c->event_shown, f, c->set.total,
				     colour);

	return err ? write_failed(err) : 0;
}

static int annotate_user(struct annotate_cmd *c, const struct annot_func *f, int colour)
{
	char file[PATH_MAX + 32], root[32];
	const char *debug;
	struct elf_function fn;
	struct disasm_insn *insns = NULL;
	uint64_t *counts = NULL, outside = 0;
	struct func_lines *lines = NULL;
	struct elf_symtab *tab;
	size_t n = 0;
	int rc, err;

	memset(&fn, 0, sizeof(fn));
	rc = find_binary(c, f, file, sizeof(file), root);
	if (rc)
		return rc;
	tab = load_symtab(file, root, &debug);
	err = elf_function__load(&fn, file, debug, func_name(c, f), f->start);
	if (err) {
		rc = EXIT_FAIL;
		if (err == -ESRCH)
			cli_error("no function '%s' at file offset 0x%" PRIx64 " in '%s'",
				  func_name(c, f), f->start, file);
		else
			cli_error("cannot read '%s' from '%s': %s", func_name(c, f), file,
				  strerror(-err));
		goto out;
	}
	err = disasm_function(fn.code, fn.size, fn.vaddr, c->syntax, &insns, &n);
	counts = calloc(n ? n : 1, sizeof(*counts));
	if (err || !counts) {
		cli_error("cannot disassemble '%s': %s", func_name(c, f),
			  strerror(err ? -err : ENOMEM));
		rc = EXIT_FAIL;
		goto out;
	}
	annot_bucket(insns, n, fn.vaddr, f->hits, f->nhits, counts, &outside);
	if (outside)
		cli_warn("%" PRIu64 " samples of '%s' fall outside its %" PRIu64
			 " bytes in '%s' (a symbol of the wrong size?)",
			 outside, func_name(c, f), fn.size, file);
	if (c->source != OFF) {
		lines = func_lines__load(file, debug, fn.vaddr);
		if (!lines && c->source == ON)
			cli_warn("no source lines for '%s': '%s' has no DWARF line info, and no "
				 "debug file was found",
				 func_name(c, f), file);
	}
	{
		struct annot_listing l = {
			.name = func_name(c, f),
			.binary = func_path(c, f),
			.event = c->event_shown,
			.samples = f->samples,
			.total = c->set.total,
			.fn = &fn,
			.insns = insns,
			.counts = counts,
			.n = n,
			.syntax = c->syntax,
			.lines = lines,
			.source_off = c->source == OFF,
			.sources = c->sources,
			.target_name = target_name,
			.target_arg = tab,
			.colour = colour,
			.children = c->children,
		};

		err = annot_write(stdout, &l);
		rc = err ? write_failed(err) : 0;
	}
out:
	elf_symtab__free(tab);
	func_lines__free(lines);
	free(counts);
	free(insns);
	elf_function__release(&fn);
	return rc;
}

/* Nothing matched with samples: tell apart a function that exists but has
 * no samples from a name that is nowhere, and suggest close names. */
static int explain_no_match(struct annotate_cmd *c)
{
	const struct recording *r = &c->rec;
	uint32_t close[MAX_CLOSE];
	size_t i, nclose, searched = 0;

	if (!c->set.symbols) {
		cli_error("%s has no symbols (recorded with --no-symbolize?)", c->shown);
		cli_hint("symbolize it first: prof symbolize -i %s", c->input);
		return EXIT_FAIL;
	}
	if (c->set.nfuncs) {
		cli_error("'%s' has no %s samples of its own in %s", c->symbol, c->event_shown,
			  c->shown);
		if (!c->children)
			cli_hint("it is on the stacks as a caller: --children counts those samples");
		return EXIT_FAIL;
	}
	/* In a binary of the recording, but never sampled? */
	for (i = 0; !c->regex && i < r->nmappings && searched < MAX_PATHS_SEARCHED; i++) {
		const char *path = recording__str(r, r->mappings[i].path), *debug;
		struct elf_symtab *tab;
		struct elf_function fn;
		size_t j;
		int dup = 0, err;

		if (path[0] != '/' || (r->mappings[i].flags & REC_MAPPING_KERNEL))
			continue;
		for (j = 0; j < i && !dup; j++)
			dup = r->mappings[j].path == r->mappings[i].path;
		if (dup)
			continue;
		searched++;
		err = elf_function__load(&fn, path, NULL, c->symbol, ELF_FUNCTION_ANY);
		if (err == -ESRCH) { /* a stripped binary: in its debug file? */
			elf_function__release(&fn);
			tab = load_symtab(path, NULL, &debug);
			if (debug)
				err = elf_function__load(&fn, path, debug, c->symbol,
							 ELF_FUNCTION_ANY);
			elf_symtab__free(tab);
		}
		if (!err) {
			elf_function__release(&fn);
			cli_error("'%s' has no samples in %s (it is in '%s')", c->symbol, c->shown,
				  path);
			cli_hint("the hottest functions: prof report -i %s --top 20", c->input);
			return EXIT_FAIL;
		}
		elf_function__release(&fn);
	}
	cli_error("no function %s '%s' in %s", c->regex ? "matches" : "named", c->symbol,
		  c->shown);
	nclose = c->regex ? 0 : annot_close_names(r, c->symbol, close, MAX_CLOSE);
	if (nclose) {
		fprintf(stderr, "hint: close names:");
		for (i = 0; i < nclose; i++) {
			fputc(' ', stderr);
			text_put(stderr, recording__str(r, close[i]));
		}
		fputc('\n', stderr);
	} else {
		cli_hint("the hottest functions: prof report -i %s --top 20", c->input);
	}
	return EXIT_FAIL;
}

static void list_others(struct annotate_cmd *c, size_t nmatched)
{
	size_t i;

	cli_warn("%zu functions match '%s'; showing the hottest (--all shows each one):",
		 nmatched, c->symbol);
	for (i = 0; i < nmatched && i < MAX_LISTED; i++) {
		const struct annot_func *f = &c->set.funcs[i];

		fprintf(stderr, "  %8" PRIu64 " sample%s  ", f->samples, f->samples == 1 ? " " : "s");
		text_put(stderr, func_name(c, f));
		fputs("  ", stderr);
		text_put(stderr, func_path(c, f));
		fputc('\n', stderr);
	}
	if (nmatched > MAX_LISTED)
		fprintf(stderr, "  ... and %zu more\n", nmatched - MAX_LISTED);
}

static int run(struct annotate_cmd *c, int argc, char **argv)
{
	struct annot_opts o = {0};
	size_t i, nmatched = 0;
	int rc, colour, status = 0;

	rc = parse_options(c, argc, argv);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	if (c->regex) {
		char msg[256];
		int e = user_regcomp(&c->re, c->symbol, REG_EXTENDED | REG_NOSUB, msg, sizeof(msg));

		if (e) {
			return cli_usage_error("invalid regular expression '%s': %s", c->symbol,
					       msg);
		}
		c->have_re = 1;
		o.regex = &c->re;
	}
	rc = load_recording(c);
	if (!rc)
		rc = choose_event(c, &o.event);
	if (rc)
		return rc;
	o.symbol = c->symbol;
	o.children = c->children;
	if (annot_set__build(&c->set, &c->rec, &o)) {
		cli_error("out of memory reading the samples of %s", c->shown);
		return EXIT_FAIL;
	}
	while (nmatched < c->set.nfuncs && c->set.funcs[nmatched].samples)
		nmatched++;
	if (!nmatched)
		return explain_no_match(c);
	if (nmatched > 1 && !c->all)
		list_others(c, nmatched);
	colour = c->colour == ON || (c->colour == AUTO && isatty(1));
	c->sources = annot_sources__new();
	if (!c->sources) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	for (i = 0; i < (c->all ? nmatched : 1); i++) {
		const struct annot_func *f = &c->set.funcs[i];

		if (i)
			fputc('\n', stdout);
		rc = f->kernel ? annotate_kernel(c, f, colour) : annotate_user(c, f, colour);
		if (rc)
			status = rc;
		fflush(stdout);
	}
	return status;
}

int cmd_annotate(int argc, char **argv, const struct prof_env *env)
{
	struct annotate_cmd c;
	int rc;

	memset(&c, 0, sizeof(c));
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	c.replay = env->replay;
	rc = run(&c, argc, argv);
	annot_set__release(&c.set);
	annot_sources__free(c.sources);
	if (c.have_re)
		regfree(&c.re);
	if (c.have_rec)
		recording__release(&c.rec);
	return rc;
}
