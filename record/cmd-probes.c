/* cmd-probes.c: `prof probes`, listing the USDT probes of binaries or of
 * every object a process maps (symbolize/usdt.h reads the notes; probe-
 * binaries.c finds a process's files through /proc/PID/root). */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "lib/cli.h"
#include "lib/grow.h"
#include "lib/text-clean.h"
#include "probes.h"
#include "symbolize/usdt.h"

static const char usage_text[] =
	"usage: prof probes [--format table|tsv] BINARY...\n"
	"   or: prof probes [--format table|tsv] -p PID\n"
	"\n"
	"Lists the USDT probes (.note.stapsdt) of binaries, or of every object a\n"
	"running process maps: provider, name, address, semaphore (0: none) and\n"
	"argument specs. Probes are recorded with 'prof record -e usdt:PROVIDER:NAME'.\n"
	"\n"
	"  -p, --pid PID      the binaries PID maps (read through /proc/PID/root)\n"
	"      --format FMT   table (default: aligned columns) or tsv (tab-separated,\n"
	"                     with a header line, the binary and file offsets)\n"
	"  -h, --help         show this help\n";

struct row {
	const char *binary, *provider, *name, *args, *note;
	uint64_t address, semaphore, offset, sem_offset;
};

struct listing {
	struct row *rows;
	size_t n, cap;
	struct usdt_list *lists;
	size_t nlists;
	int tsv;
};

static int add_binary(struct listing *l, const char *shown, const char *open_path, int quiet_errors)
{
	struct usdt_list *list = &l->lists[l->nlists];
	int err = usdt_read_file(open_path, list);

	if (err) {
		if (quiet_errors)
			return 0;
		if (err == -ENOEXEC)
			cli_error("'%s' is not an ELF binary", shown);
		else
			cli_error("cannot read '%s': %s", shown, strerror(-err));
		return -1;
	}
	l->nlists++;
	for (size_t i = 0; i < list->n; i++) {
		const struct usdt_probe *p = &list->probes[i];
		struct row *r;

		if (GROW(l->rows, l->cap, l->n + 1)) {
			cli_error("out of memory");
			return -1;
		}
		r = &l->rows[l->n++];
		*r = (struct row){
			.binary = shown, .provider = p->provider, .name = p->name, .args = p->args,
			.note = p->nargs < 0 ? p->arg_error : NULL, .address = p->pc,
			.semaphore = p->semaphore, .offset = p->pc_offset, .sem_offset = p->sem_offset,
		};
	}
	return 0;
}

static size_t max_len(const struct listing *l, size_t off, size_t floor)
{
	size_t w = floor;

	for (size_t i = 0; i < l->n; i++) {
		const char *s = *(const char *const *)((const char *)&l->rows[i] + off);
		size_t n = strlen(s);

		if (n > w)
			w = n;
	}
	return w;
}

/* A name from a binary's notes or a path, cleaned (lib/text-clean.h: a
 * tab or an ESC in a probe name is '?'), then padded to `width` and
 * followed by `sep`. */
static void put_col(const char *s, int width, const char *sep)
{
	int n = (int)strlen(s);

	text_put(stdout, s);
	if (n < width)
		printf("%*s", width - n, "");
	fputs(sep, stdout);
}

static void print(const struct listing *l, int show_binary)
{
	if (l->tsv) {
		printf("binary\tprovider\tname\taddress\tsemaphore\toffset\tsemaphore_offset\targs\n");
		for (size_t i = 0; i < l->n; i++) {
			const struct row *r = &l->rows[i];

			put_col(r->binary, 0, "\t");
			put_col(r->provider, 0, "\t");
			put_col(r->name, 0, "\t");
			printf("0x%" PRIx64 "\t0x%" PRIx64 "\t0x%" PRIx64 "\t0x%" PRIx64 "\t",
			       r->address, r->semaphore, r->offset, r->sem_offset);
			put_col(r->args, 0, "\n");
		}
		return;
	}
	int wb = (int)max_len(l, offsetof(struct row, binary), 6);
	int wp = (int)max_len(l, offsetof(struct row, provider), 8);
	int wn = (int)max_len(l, offsetof(struct row, name), 4);

	if (show_binary)
		printf("%-*s  ", wb, "BINARY");
	printf("%-*s  %-*s  %18s  %18s  %s\n", wp, "PROVIDER", wn, "NAME", "ADDRESS", "SEMAPHORE",
	       "ARGS");
	for (size_t i = 0; i < l->n; i++) {
		const struct row *r = &l->rows[i];

		if (show_binary)
			put_col(r->binary, wb, "  ");
		put_col(r->provider, wp, "  ");
		put_col(r->name, wn, "  ");
		printf("%#18" PRIx64 "  %#18" PRIx64 "  ", r->address, r->semaphore);
		put_col(r->args, 0, "");
		if (r->note) {
			fputs("  [not decodable: ", stdout);
			put_col(r->note, 0, "]");
		}
		putchar('\n');
	}
}

static int list_pid(struct listing *l, const char *arg, char ***shown_out, size_t *nshown)
{
	uint64_t v;
	struct probe_binary *bins;
	size_t n;
	int err;

	if (cli_parse_u64(arg, 1, 0x3fffffff, &v))
		return cli_usage_error("invalid PID '%s'", arg);
	err = probe_binaries_of((pid_t)v, &bins, &n);
	if (err == -ESRCH || err == -ENOENT) {
		cli_error("no such process: %s", arg);
		return EXIT_FAIL;
	}
	if (err) {
		cli_error("cannot read the mappings of process %s: %s", arg, strerror(-err));
		return EXIT_FAIL;
	}
	l->lists = calloc(n ? n : 1, sizeof(*l->lists));
	*shown_out = calloc(n ? n : 1, sizeof(char *));
	if (!l->lists || !*shown_out) {
		probe_binaries_free(bins, n);
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	*nshown = n;
	for (size_t i = 0; i < n; i++) {
		(*shown_out)[i] = bins[i].path;
		bins[i].path = NULL;
		/* A binary that went away or is unreadable has no probes to show. */
		if (add_binary(l, (*shown_out)[i], bins[i].open_path, 1)) {
			probe_binaries_free(bins, n);
			return EXIT_FAIL;
		}
	}
	probe_binaries_free(bins, n);
	return 0;
}

int cmd_probes(int argc, char **argv, const struct prof_env *env)
{
	static const struct option longopts[] = {
		{"pid", required_argument, NULL, 'p'},
		{"format", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct listing l = {0};
	const char *pid = NULL;
	char **shown = NULL;
	size_t nshown = 0;
	int c, rc = EXIT_OK;

	(void)env; /* no recording is read */
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":p:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			pid = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "tsv"))
				l.tsv = 1;
			else if (strcmp(optarg, "table"))
				return cli_usage_error("invalid --format '%s' (table or tsv)", optarg);
			break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		case ':':
			return cli_usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (!pid && optind >= argc)
		return cli_usage_error("give a binary, or -p PID");
	if (pid && optind < argc)
		return cli_usage_error("give binaries or -p PID, not both");
	if (pid) {
		rc = list_pid(&l, pid, &shown, &nshown);
		if (!rc)
			print(&l, 1);
	} else {
		l.lists = calloc((size_t)(argc - optind), sizeof(*l.lists));
		if (!l.lists) {
			cli_error("out of memory");
			return EXIT_FAIL;
		}
		for (int i = optind; i < argc && !rc; i++)
			if (add_binary(&l, argv[i], argv[i], 0))
				rc = EXIT_FAIL;
		if (!rc)
			print(&l, argc - optind > 1);
	}
	if (shown) {
		for (size_t i = 0; i < nshown; i++)
			free(shown[i]);
		free(shown);
	}
	for (size_t i = 0; i < l.nlists; i++)
		usdt_list__release(&l.lists[i]);
	free(l.lists);
	free(l.rows);
	if (!rc && fflush(stdout)) {
		cli_error("cannot write the list: %s", strerror(errno));
		return EXIT_FAIL;
	}
	return rc;
}
