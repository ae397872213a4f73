/* cmd-symbolize.c: `prof symbolize`, the front end.
 *
 * With -e BINARY it is addr2line: the same flags, the same output byte for
 * byte (symbolize/addr2line.c does the work), addresses from the command
 * line or, when there are none, one per line from standard input, with
 * stdout flushed whenever the input runs dry, so it works as a coprocess. With -i RECORDING
 * and no -e it (re)symbolizes a recording (symbolize_recording_main(), in
 * resymbolize.c): addr2line's -i means "inlines" only together with -e. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "lib/cli.h"
#include "symbolize/addr2line.h"
#include "symbolize/debuginfo.h"
#include "symbolize/symbolize.h"

static const char usage_text[] =
	"usage: prof symbolize -e BINARY [-a] [-f] [-i] [-C] [-p] [-s] [ADDR...]\n"
	"   or: prof symbolize -i RECORDING [-o OUT] [--root DIR] [--debug-dir DIRS]\n"
	"                          [--kallsyms FILE] [--incomplete] [-q]\n"
	"\n"
	"With -e, prints the function, file and line of each address of BINARY,\n"
	"exactly as binutils' addr2line prints them with the same flags. Addresses\n"
	"are hexadecimal ELF virtual addresses ('0x' optional); with none given,\n"
	"they are read from standard input, one per line, and each answer is\n"
	"flushed at once. DWARF comes from BINARY, or from its separate debug file\n"
	"(by build-id or .gnu_debuglink, under $PROF_DEBUGINFO_DIRS or /usr/lib/debug).\n"
	"\n"
	"  -e, --exe BINARY     the ELF file the addresses belong to\n"
	"  -a, --addresses      print each address first (0x%016x)\n"
	"  -f, --functions      print function names\n"
	"  -i, --inlines        print the functions the address was inlined into\n"
	"  -C, --demangle       demangle C++ and Rust names\n"
	"  -p, --pretty-print   one line per address\n"
	"  -s, --basenames      file names without their directories\n"
	"  -h, --help           show this help\n"
	"\n"
	"With -i RECORDING and no -e, symbolizes a recording again (one made with\n"
	"--no-symbolize, or after debuginfo was installed): see\n"
	"'prof symbolize -i RECORDING --help'.\n";

static const struct option long_options[] = {
	{"exe", required_argument, NULL, 'e'},
	{"addresses", no_argument, NULL, 'a'},
	{"functions", no_argument, NULL, 'f'},
	{"inlines", no_argument, NULL, 'i'},
	{"demangle", no_argument, NULL, 'C'},
	{"pretty-print", no_argument, NULL, 'p'},
	{"basenames", no_argument, NULL, 's'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* Everything `prof symbolize -e` holds while it runs. */
struct symbolize_cmd {
	const char *binary;
	struct addr2line_opts opts;
	struct addr2line *a2l;
};

/* Is -i here a recording (no -e anywhere)? */
static int wants_recording(int argc, char **argv)
{
	int i, has_i = 0;

	for (i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (!strcmp(s, "--"))
			break;
		if (!strcmp(s, "-e") || !strncmp(s, "--exe", 5) ||
		    (s[0] == '-' && s[1] != '-' && strchr(s, 'e')))
			return 0;
		if (!strcmp(s, "-i") || !strcmp(s, "--input"))
			has_i = 1;
	}
	return has_i;
}

/* A command-line address: hex, "0x" optional, nothing else. */
static int parse_addr(const char *s, uint64_t *out)
{
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!*s || strspn(s, "0123456789abcdefABCDEF") != strlen(s) || strlen(s) > 16)
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 16);
	return errno || *end ? -EINVAL : 0;
}

static int parse_options(struct symbolize_cmd *c, int argc, char **argv)
{
	/* The flags that only shape the answers, in the order of `flags`. */
	static const char flag_opts[] = "afiCps";
	int *const flags[] = {&c->opts.addresses, &c->opts.functions, &c->opts.inlines,
			      &c->opts.demangle,  &c->opts.pretty,    &c->opts.basenames};
	const char *flag;
	int opt;

	optind = 0; /* glibc: reinitialize (cmd_symbolize may run more than once) */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":e:afiCpsh", long_options, NULL)) != -1) {
		flag = opt > 0 ? strchr(flag_opts, opt) : NULL;
		if (flag) {
			*flags[flag - flag_opts] = 1;
			continue;
		}
		switch (opt) {
		case 'e':
			c->binary = optarg;
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
	if (!c->binary)
		return cli_usage_error("say which binary the addresses belong to with -e BINARY");
	return 0;
}

/* Split DWARF whose .dwo files are gone: said once, on stderr. */
static void split_note(const struct addr2line *a)
{
	const char *first;
	size_t n = addr2line__split_missing(a, &first);

	if (!n)
		return;
	cli_warn("split DWARF: %zu %s .dwo files not found (first: %s)", n,
		 n == 1 ? "unit's" : "units'", first ? first : "?");
	cli_hint("their functions get no inlined frames: keep the .dwo files where the "
		 "build wrote them or beside the binary, or pack them into BINARY.dwp");
}

/* The separate debug file of c->binary, found as everything else in prof
 * finds one (debuginfo.c: build-id, then .gnu_debuglink, under
 * $PROF_DEBUGINFO_DIRS or /usr/lib/debug), so that an address gets the
 * same file:line here as in `prof report --lines` and `prof annotate`.
 * The binary is looked up by its real path, as addr2line does (a
 * .gnu_debuglink is searched for beside the file a symlink points to, and
 * under the debug directories at that file's absolute path). 1 or 0. */
static int find_debugfile(const struct symbolize_cmd *c, char *out, size_t len)
{
	char real[PATH_MAX];
	const char *path = realpath(c->binary, real) ? real : c->binary;

	return !debuginfo_find(path, NULL, out, len);
}

static int open_binary(struct symbolize_cmd *c)
{
	char debugfile[PATH_MAX];
	int derr;

	c->a2l = addr2line__open(c->binary, NULL, &derr);
	if (c->a2l && derr == ENODATA && find_debugfile(c, debugfile, sizeof(debugfile))) {
		struct addr2line *with_debug = addr2line__open(c->binary, debugfile, &derr);

		if (with_debug && !derr) {
			addr2line__free(c->a2l);
			c->a2l = with_debug;
		} else {
			addr2line__free(with_debug);
		}
	}
	if (c->a2l) {
		split_note(c->a2l);
		return 0;
	}
	if (errno == ENOEXEC) {
		cli_error("'%s' is not an ELF file", c->binary);
		cli_hint("give the executable or shared library the addresses come from");
	} else {
		cli_error("cannot open '%s': %s", c->binary, strerror(errno));
	}
	return EXIT_FAIL;
}

static int answer(struct symbolize_cmd *c, uint64_t pc)
{
	if (addr2line__print(c->a2l, pc, &c->opts, stdout)) {
		cli_error("cannot write the output: %s", strerror(errno ? errno : EIO));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

static int flush_out(void)
{
	if (fflush(stdout)) {
		cli_error("cannot write the output: %s", strerror(errno));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Addresses from stdin, one per line, read as addr2line reads them
 * (strtoull base 16: "0x" optional, leading blanks skipped, junk is 0).
 * Input is read with read(2) and the answers to every complete line it
 * brought are flushed before reading again: a coprocess that writes one
 * line and waits gets its answer at once, and a pipe full of addresses
 * costs one write per buffer, not one per address. The addresses of a
 * buffer are parsed first and given to addr2line__prefetch(), which reads
 * the DWARF units they need on the other CPU meanwhile. */
static int from_stdin(struct symbolize_cmd *c)
{
	char buf[65536 + 1];
	uint64_t pcs[sizeof(buf) / 2];
	size_t have = 0;
	int rc = EXIT_OK;

	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf + have, sizeof(buf) - 1 - have);
		size_t start = 0, i, npcs;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			cli_error("cannot read addresses: %s", strerror(errno));
			return EXIT_FAIL;
		}
		if (n == 0) {
			if (have) { /* a last line without a newline */
				buf[have] = '\0';
				rc = answer(c, strtoull(buf, NULL, 16));
			}
			return rc == EXIT_OK ? flush_out() : rc;
		}
		have += (size_t)n;
		npcs = 0;
		for (i = 0; i < have; i++) {
			if (buf[i] != '\n')
				continue;
			buf[i] = '\0';
			pcs[npcs++] = strtoull(buf + start, NULL, 16);
			start = i + 1;
		}
		addr2line__prefetch(c->a2l, pcs, npcs);
		for (i = 0; i < npcs && rc == EXIT_OK; i++)
			rc = answer(c, pcs[i]);
		if (rc == EXIT_OK)
			rc = flush_out();
		if (rc != EXIT_OK)
			return rc;
		if (start == 0 && have == sizeof(buf) - 1)
			start = have; /* a line longer than the buffer: dropped */
		memmove(buf, buf + start, have - start);
		have -= start;
	}
}

int cmd_symbolize(int argc, char **argv, const struct prof_env *env)
{
	struct symbolize_cmd c = {0};
	uint64_t *addrs = NULL;
	int rc, i, n;

	if (wants_recording(argc, argv))
		return symbolize_recording_main(argc, argv, env->replay);
	rc = parse_options(&c, argc, argv);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	/* Check every address before printing anything. */
	n = argc - optind;
	addrs = calloc(n > 0 ? (size_t)n : 1, sizeof(*addrs));
	if (!addrs) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	for (i = 0; i < n; i++) {
		if (parse_addr(argv[optind + i], &addrs[i])) {
			free(addrs);
			return cli_usage_error("'%s' is not a hexadecimal address",
					       argv[optind + i]);
		}
	}
	rc = open_binary(&c);
	if (rc == EXIT_OK)
		addr2line__prefetch(c.a2l, addrs, (size_t)n);
	if (rc == EXIT_OK) {
		if (!n)
			rc = from_stdin(&c);
		for (i = 0; i < n && rc == EXIT_OK; i++)
			rc = answer(&c, addrs[i]);
		if (n && rc == EXIT_OK)
			rc = flush_out();
	}
	addr2line__free(c.a2l);
	free(addrs);
	return rc;
}
