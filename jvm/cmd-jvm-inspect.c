/* cmd-jvm-inspect.c: `prof jvm-inspect`, a hidden debugging command: what
 * prof reads of a running HotSpot JVM's own metadata from outside it
 * (hotspot.h): the gHotSpotVM* tables (--tables) or the code cache's
 * compiled methods with their code ranges, frame sizes and names (the
 * default; compare with `jcmd PID Compiler.codelist`). The JVM is not
 * stopped, signalled or attached to. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "jvm/hotspot.h"
#include "lib/cli.h"

static const char usage_text[] =
    "usage: prof jvm-inspect -p PID [--tables | --blobs]\n"
    "\n"
    "    -p, --pid PID    a running HotSpot JVM (17 and later)\n"
    "    --tables         print HotSpot's gHotSpotVM* tables as prof read them\n"
    "    --blobs          every code blob, not only compiled methods\n"
    "\n"
    "Prints one line per compiled method: CODE_BEGIN CODE_END FRAME_SIZE NAME,\n"
    "FRAME_SIZE in bytes, NAME as 'jcmd PID Compiler.codelist' prints it.\n";

static void print_tables(const struct vmstructs *vs)
{
	static const char *const what[4] = {"field", "type", "int", "long"};
	const char *type, *field;
	uint64_t v;
	int st;

	for (int t = 0; t < 4; t++)
		for (size_t i = 0; vmstructs__entry(vs, t, i, &type, &field, &st, &v); i++) {
			if (t == 0)
				printf("%s %s::%s %s 0x%" PRIx64 "\n", what[t], type, field,
				       st ? "static" : "offset", v);
			else
				printf("%s %s %" PRId64 "\n", what[t], type, (int64_t)v);
		}
}

struct listing {
	struct jvm_mem *m;
	const struct hs_layout *l;
	int all;
	uint64_t methods, unnamed;
};

static int print_blob(void *ctx, const struct hs_blob *b)
{
	struct listing *li = ctx;
	char name[HS_NAME_MAX];

	if (!b->is_nmethod && !li->all)
		return 0;
	if (b->is_nmethod) {
		li->methods++;
		if (hs_method_name(li->m, li->l, b->method, 1, name, sizeof(name))) {
			li->unnamed++;
			snprintf(name, sizeof(name), "[unreadable Method 0x%" PRIx64 "]",
				 b->method);
		}
	} else {
		snprintf(name, sizeof(name), "%s", b->name);
	}
	printf("0x%016" PRIx64 " 0x%016" PRIx64 " %d %s\n", b->code_begin, b->code_end,
	       b->frame_size * 8, name);
	return 0;
}

static int inspect(pid_t pid, int tables, int all)
{
	struct jvm_mem *m = malloc(sizeof(*m));
	struct vmstructs *vs = NULL;
	struct hs_layout l;
	struct prof_error e;
	struct listing li = {.m = m, .l = &l, .all = all};
	uint64_t skipped = 0;
	int err;

	if (!m) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	prof_error_clear(&e);
	jvm_mem__init(m, pid);
	err = vmstructs__read(m, &vs, &e);
	if (!err && tables)
		print_tables(vs);
	if (!err && !tables && !(err = hs_layout__init(&l, vs, &e))) {
		err = hs_codecache__each(m, &l, print_blob, &li, &skipped);
		if (err)
			prof_error_set(&e, err, NULL, "cannot read the code cache of process %d",
				       (int)pid);
	}
	/* The listing out first: stdout to a pipe is written in blocks, and
	 * the summary would land inside a line when both go to one file (CI
	 * saw "...0x00007f... 12prof jvm-inspect: ..."). */
	fflush(stdout);
	if (!err && !tables)
		fprintf(stderr,
			"prof jvm-inspect: %" PRIu64 " compiled methods, %" PRIu64
			" unnamed, %" PRIu64 " blobs skipped, %" PRIu64 " reads\n",
			li.methods, li.unnamed, skipped, m->reads);
	vmstructs__free(vs);
	free(m);
	if (err) {
		cli_error("%s", e.msg);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int cmd_jvm_inspect(int argc, char **argv, const struct prof_env *env)
{
	static const struct option longopts[] = {
	    {"pid", required_argument, NULL, 'p'},
	    {"tables", no_argument, NULL, 't'},
	    {"blobs", no_argument, NULL, 'b'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	uint64_t pid = 0;
	int c, tables = 0, all = 0;

	(void)env;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":p:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		case 'p':
			if (cli_parse_u64(optarg, 1, 0x3fffffff, &pid))
				return cli_usage_error("invalid PID '%s'", optarg);
			break;
		case 't':
			tables = 1;
			break;
		case 'b':
			all = 1;
			break;
		case ':':
			return cli_usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (!pid || optind < argc)
		return cli_usage_error("give -p PID");
	return inspect((pid_t)pid, tables, all);
}
