/* resymbolize.c: `prof symbolize -i RECORDING [-o OUT]`, naming the frames
 * of a recording made with `prof record --no-symbolize`, or again after
 * debug files were installed.
 *
 * The recording is read and checked whole (lib/recording.c), copied record
 * by record into a new file through the writer (strings, frames and stacks
 * re-interned, ids remapped), and symbolize_recording() then runs on the
 * writer exactly as at the end of `prof record`. The old SYMBOLS records
 * are copied first, in their own chunks, and the new ones follow in later
 * chunks, so a frame the new run names gets the new name and a frame it
 * cannot name (its binary is gone) keeps the old one (docs/FORMAT.md:
 * later SYMBOLS win). Mappings without a build-id take the one recorded
 * as META "build-id:PATH", so a binary changed since is not used.
 *
 * The output goes to a new file next to the destination (0600, or the
 * input's mode when replacing it; lib/out-file.h), renamed over it only
 * when complete: a failure at any point leaves the input as it was. Memory: the input file, its parsed form and the writer's tables,
 * about three times the file. */
#include "symbolize.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/cli.h"
#include "lib/rec-writer.h"
#include "lib/recording.h"

#define DEFAULT_INPUT "prof.data"

static const char usage_text[] =
	"usage: prof symbolize -i RECORDING [-o OUT] [--root DIR] [--debug-dir DIRS]\n"
	"                      [--kallsyms FILE] [--incomplete] [-q]\n"
	"\n"
	"Names the frames of a recording made with 'prof record --no-symbolize', or\n"
	"names them again after debug files were installed: function names from\n"
	"symbol tables, separate debug files and MiniDebugInfo, JIT code from\n"
	"/tmp/perf-PID.map. Frames that cannot be named now keep the names they had.\n"
	"\n"
	"  -i, --input FILE     the recording (default: prof.data)\n"
	"  -o, --output FILE    write the result here (default: replace the input)\n"
	"      --root DIR       look for binaries and JIT maps under DIR (a copy of\n"
	"                       the profiled machine's files) and nowhere else\n"
	"      --debug-dir DIRS ':'-separated directories of debug files (default:\n"
	"                       $PROF_DEBUGINFO_DIRS, else /usr/lib/debug)\n"
	"      --kallsyms FILE  kernel symbols (default: /proc/kallsyms)\n"
	"      --incomplete     accept a recording whose recorder was killed (no end\n"
	"                       mark): what it holds is symbolized and closed\n"
	"  -q, --quiet          no summary line, no progress\n"
	"  -h, --help           show this help\n";

enum { OPT_ROOT = 256, OPT_DEBUG_DIR, OPT_KALLSYMS, OPT_INCOMPLETE };

static const struct option long_options[] = {
	{"input", required_argument, NULL, 'i'},
	{"output", required_argument, NULL, 'o'},
	{"root", required_argument, NULL, OPT_ROOT},
	{"debug-dir", required_argument, NULL, OPT_DEBUG_DIR},
	{"kallsyms", required_argument, NULL, OPT_KALLSYMS},
	{"incomplete", no_argument, NULL, OPT_INCOMPLETE},
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* Everything `prof symbolize -i` holds while it runs. */
struct resym {
	recording_replay_fn replay; /* for a killed recorder's file */
	const char *input, *output;
	int quiet, incomplete;
	struct symbolize_opts sopts;

	struct recording r;
	struct rec_writer *w;
	uint32_t *strmap;   /* old string id -> new, 0: not interned yet */
	uint32_t *framemap; /* old frame id -> new */
	uint32_t *stackmap; /* old stack node id -> new */

	int progress;       /* stderr is a terminal */
	struct timespec last;
};

/* The new id of old string `id` (interned on first use). */
static int str_id(struct resym *c, uint32_t id, uint32_t *out)
{
	if (!id || id >= c->r.nstrs) {
		*out = 0;
		return 0;
	}
	if (!c->strmap[id]) {
		int err = rec_writer__string(c->w, c->r.strs[id], c->r.lens[id], &c->strmap[id]);

		if (err)
			return err;
	}
	*out = c->strmap[id];
	return 0;
}

/* META entries, each key once (its last value): a recording symbolized
 * several times does not pile up copies. "symbolized" is written anew. */
static int copy_meta(struct resym *c)
{
	size_t i, j;
	int err = 0;

	for (i = 0; i < c->r.nmeta && !err; i++) {
		const struct rec_meta_entry *e = &c->r.meta[i];

		if (!strcmp(e->key, "symbolized"))
			continue;
		for (j = i + 1; j < c->r.nmeta; j++)
			if (!strcmp(c->r.meta[j].key, e->key))
				break;
		if (j == c->r.nmeta)
			err = rec_writer__meta(c->w, e->key, e->value);
	}
	return err;
}

static int copy_mappings(struct resym *c)
{
	char key[PATH_MAX + 16];
	size_t i;
	uint32_t id;
	int err = 0;

	for (i = 0; i < c->r.nmappings && !err; i++) {
		struct rec_mapping m = c->r.mappings[i];
		uint32_t old_bid = m.build_id;

		err = str_id(c, m.path, &m.path);
		if (!err)
			err = str_id(c, old_bid, &m.build_id);
		if (!err && !m.build_id &&
		    (size_t)snprintf(key, sizeof(key), "build-id:%s",
				     recording__str(&c->r, c->r.mappings[i].path)) < sizeof(key)) {
			const char *bid = recording__meta(&c->r, key);

			if (bid && *bid)
				err = rec_writer__string(c->w, bid, strlen(bid), &m.build_id);
		}
		if (!err)
			err = rec_writer__mapping(c->w, &m, &id); /* ids stay in order */
	}
	return err;
}

static int copy_frames_and_stacks(struct resym *c)
{
	size_t i;
	int err = 0;

	for (i = 0; i < c->r.nframes && !err; i++) {
		const struct rec_frame *f = &c->r.frames[i];

		err = rec_writer__frame(c->w, f->pid, f->addr, f->flags, f->mapping,
					&c->framemap[i]);
	}
	c->stackmap[0] = 0;
	for (i = 1; i < c->r.nstacks && !err; i++) {
		const struct rec_stack_node *n = &c->r.stacks[i];

		/* The reader checked parent < i and frame < nframes. */
		err = rec_writer__stack(c->w, c->stackmap[n->parent], c->framemap[n->frame],
					&c->stackmap[i]);
	}
	return err;
}

static int copy_events_threads(struct resym *c)
{
	size_t i;
	uint32_t id;
	int err = 0;

	for (i = 0; i < c->r.nevents && !err; i++) {
		struct rec_event_desc ev = c->r.events[i];

		err = str_id(c, ev.name, &ev.name);
		if (!err)
			err = rec_writer__event(c->w, &ev, &id);
	}
	for (i = 0; i < c->r.nthreads && !err; i++) {
		const struct rec_thread_event *t = &c->r.threads[i];
		uint32_t name;

		err = str_id(c, t->name, &name);
		if (!err)
			err = rec_writer__thread(c->w, t->kind, t->time, t->pid, t->tid, name);
	}
	return err;
}

/* A probe sample's arguments (ARGS), string ids renumbered. */
static int copy_args(struct resym *c, size_t sample)
{
	const struct rec_args_ref *a = recording__args(&c->r, sample);
	int64_t vals[16];
	int err = 0;

	if (!a || a->n > 16)
		return 0;
	for (unsigned k = 0; k < a->n && !err; k++) {
		uint32_t id;

		vals[k] = c->r.argvals[a->first + k];
		if ((a->strmask >> k) & 1) {
			err = str_id(c, (uint32_t)vals[k], &id);
			vals[k] = id;
		}
	}
	return err ? err : rec_writer__args(c->w, sample, a->n, a->strmask, vals);
}

static int copy_samples_sched(struct resym *c)
{
	size_t i;
	int err = 0;

	for (i = 0; i < c->r.nsamples && !err; i++) {
		const struct rec_sample_full *s = &c->r.samples[i];

		err = rec_writer__sample(c->w, s->time, s->tid, c->stackmap[s->stack], s->cpu,
					 s->event, s->flags);
		if (!err)
			err = copy_args(c, i);
	}
	for (i = 0; i < c->r.nsched && !err; i++) {
		const struct rec_sched_full *s = &c->r.sched[i];
		uint32_t arg = s->arg;

		if (s->kind == REC_SCHED_TASK)
			err = str_id(c, s->arg, &arg);
		if (!err)
			err = rec_writer__sched(c->w, s->time, s->tid, arg, s->cpu, s->kind,
						s->state);
	}
	return err;
}

/* The old SYMBOLS records, straight from the file's chunks in file order
 * (the parsed view keeps one per frame; the chunks keep every record, in
 * case a frame has several). The parser vouched for every chunk before
 * the point where it stopped. */
static int copy_symbols(struct resym *c)
{
	size_t off = sizeof(struct rec_file_header), end = c->r.size;
	int err = 0;

	if (!c->r.complete && c->r.cut_at)
		end = c->r.cut_at;
	while (!err && end - off >= sizeof(struct rec_chunk_header)) {
		struct rec_chunk_header h;
		size_t i;

		memcpy(&h, c->r.data + off, sizeof(h));
		if (h.size > end - off - sizeof(h))
			break;
		if (h.type == REC_CHUNK_SYMBOLS && h.size == (size_t)h.count * sizeof(struct rec_symbol)) {
			for (i = 0; i < h.count && !err; i++) {
				struct rec_symbol s;

				memcpy(&s, c->r.data + off + sizeof(h) + i * sizeof(s), sizeof(s));
				if (s.frame >= c->r.nframes || !s.name)
					continue;
				s.frame = c->framemap[s.frame];
				err = str_id(c, s.name, &s.name);
				if (!err)
					err = rec_writer__symbol(c->w, &s);
			}
		}
		if (h.type == REC_CHUNK_END)
			break;
		off += sizeof(h) + h.size;
	}
	return err;
}

static int copy_stats(struct resym *c)
{
	size_t i;
	int err = 0;

	for (i = 0; i < c->r.nstats && !err; i++)
		err = rec_writer__stat(c->w, recording__str(&c->r, c->r.stats[i].key),
				       c->r.stats[i].value);
	return err;
}

static void progress(void *arg, size_t done, size_t total)
{
	struct resym *c = arg;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (done < total && (now.tv_sec - c->last.tv_sec) * 1000000000L +
				    (now.tv_nsec - c->last.tv_nsec) < 100000000L)
		return; /* at most ten updates a second */
	c->last = now;
	fprintf(stderr, "\rprof symbolize: %zu/%zu frames (%zu%%)", done, total,
		total ? done * 100 / total : 100);
	if (done >= total)
		fputc('\n', stderr);
}

/* Copies the recording into c->w, then symbolizes. 0 or -errno. */
static int rewrite(struct resym *c, struct symbolize_stats *ss)
{
	int err;

	c->strmap = calloc(c->r.nstrs ? c->r.nstrs : 1, sizeof(*c->strmap));
	c->framemap = calloc(c->r.nframes ? c->r.nframes : 1, sizeof(*c->framemap));
	c->stackmap = calloc(c->r.nstacks ? c->r.nstacks : 1, sizeof(*c->stackmap));
	if (!c->strmap || !c->framemap || !c->stackmap)
		return -ENOMEM;
	err = copy_meta(c);
	if (!err)
		err = copy_events_threads(c);
	if (!err)
		err = copy_mappings(c);
	if (!err)
		err = copy_frames_and_stacks(c);
	if (!err)
		err = copy_samples_sched(c);
	if (!err)
		err = copy_symbols(c);
	if (!err)
		err = copy_stats(c);
	/* The old symbols in chunks of their own: the new ones come later. */
	if (!err)
		err = rec_writer__flush(c->w);
	if (!err) {
		if (c->progress) {
			c->sopts.progress = progress;
			c->sopts.progress_arg = c;
			clock_gettime(CLOCK_MONOTONIC, &c->last);
			c->last.tv_sec -= 1; /* show the first step at once */
		}
		err = symbolize_recording(c->w, &c->sopts, ss);
	}
	if (!err)
		err = rec_writer__stat(c->w, "frames-resolved", ss->resolved);
	if (!err)
		err = rec_writer__stat(c->w, "frames-unresolved", ss->unresolved);
	if (!err)
		err = rec_writer__stat(c->w, "binaries-missing", ss->binaries_missing);
	if (!err)
		err = rec_writer__meta(c->w, "symbolized", "yes");
	return err;
}

static int parse_options(struct resym *c, int argc, char **argv)
{
	int opt;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":i:o:qh", long_options, NULL)) != -1) {
		switch (opt) {
		case 'i':
			c->input = optarg;
			break;
		case 'o':
			c->output = optarg;
			break;
		case 'q':
			c->quiet = 1;
			break;
		case OPT_ROOT:
			c->sopts.root_prefix = optarg;
			break;
		case OPT_DEBUG_DIR:
			c->sopts.debug_dirs = optarg;
			break;
		case OPT_KALLSYMS:
			c->sopts.kallsyms_path = optarg;
			break;
		case OPT_INCOMPLETE:
			c->incomplete = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return -1;
		case ':':
			return cli_usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc) {
		if (c->input || optind + 1 < argc)
			return cli_usage_error("unexpected argument '%s'", argv[optind]);
		c->input = argv[optind]; /* `prof symbolize prof.data` */
	}
	if (!c->input)
		c->input = DEFAULT_INPUT;
	if (!strcmp(c->input, "-"))
		return cli_usage_error("the recording must be a file, not standard input");
	if (!c->output)
		c->output = c->input;
	return 0;
}

/* The output's mode: a recording is 0600 (it may have held raw stack
 * bytes); one replaced in place keeps the permissions it had. */
static mode_t output_mode(const struct resym *c)
{
	struct stat st;

	if (strcmp(c->output, c->input) || stat(c->input, &st))
		return 0600;
	return st.st_mode & 0777;
}

static int run(struct resym *c)
{
	struct symbolize_stats ss;
	unsigned char *data;
	char reason[256];
	size_t size;
	int err;

	err = read_whole_file(c->input, &data, &size);
	if (err) {
		cli_error("cannot read '%s': %s", c->input, strerror(-err));
		return EXIT_FAIL;
	}
	err = recording__parse(&c->r, data, size, reason, sizeof(reason));
	if (err == -ENOMEM) {
		cli_error("out of memory reading '%s'", c->input);
		return EXIT_FAIL;
	}
	if (err) {
		cli_error("'%s' is not a usable recording: %s", c->input, reason);
		cli_hint("nothing was written; 'prof report' reads what a damaged file holds");
		return EXIT_FAIL;
	}
	if (!c->r.complete && !c->incomplete) {
		cli_error("'%s' is incomplete: it ends at byte %zu of %zu without an end mark",
			  c->input, c->r.cut_at, c->r.size);
		cli_hint("its recorder was killed or the disk filled; to symbolize what it "
			 "holds, add --incomplete");
		return EXIT_FAIL;
	}
	if (c->r.nraw) {
		/* A recorder killed while deferring: its records processed as
		 * the recorder would have, then symbolized like any other. */
		size_t nraw = c->r.nraw;
		uint64_t samples = 0;

		if (recording__replay(&c->r, c->replay, &samples, reason, sizeof(reason))) {
			cli_error("'%s': cannot process the kernel records its recorder left: %s",
				  c->input, reason);
			return EXIT_FAIL;
		}
		if (!c->quiet)
			fprintf(stderr, "prof symbolize: processed the %zu chunk%s of kernel records "
				"its recorder left (%llu samples)\n", nraw, nraw == 1 ? "" : "s",
				(unsigned long long)samples);
	}
	/* A new file beside the output, named so by the close (lib/out-file.h). */
	c->w = rec_writer__create(c->output, output_mode(c));
	if (!c->w) {
		err = -errno;
		goto fail;
	}
	c->progress = !c->quiet && isatty(STDERR_FILENO);
	memset(&ss, 0, sizeof(ss));
	err = rewrite(c, &ss);
	if (err) {
		rec_writer__discard(c->w);
		c->w = NULL;
		goto fail;
	}
	err = rec_writer__close(c->w);
	c->w = NULL;
	if (err)
		goto fail;
	if (ss.notice[0])
		cli_warn("%s", ss.notice);
	if (ss.kernel_hidden)
		cli_warn("kernel symbols are hidden (kernel.kptr_restrict): kernel frames keep "
			 "raw addresses");
	if (!c->quiet)
		fprintf(stderr,
			"prof symbolize: %zu of %zu frames named (%zu from JIT maps), %zu binaries "
			"read (%zu through debug files), %zu missing; wrote '%s'\n",
			ss.resolved, ss.frames, ss.jit_resolved, ss.binaries, ss.debuginfo,
			ss.binaries_missing, c->output);
	return EXIT_OK;
fail:
	cli_error("cannot write '%s': %s", c->output, strerror(-err));
	cli_hint("'%s' was left as it was", c->input);
	return EXIT_FAIL;
}

int symbolize_recording_main(int argc, char **argv, recording_replay_fn replay)
{
	struct resym c;
	int rc;

	memset(&c, 0, sizeof(c));
	c.replay = replay;
	rc = parse_options(&c, argc, argv);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	rc = run(&c);
	if (c.w)
		rec_writer__discard(c.w);
	recording__release(&c.r);
	free(c.strmap);
	free(c.framemap);
	free(c.stackmap);
	return rc;
}
