/* cmd-svg.c: `prof svg`, the front end: its options, then the input half
 * shared with `prof report` (report/input.c: a recording or folded text,
 * the model, the filters), then svg__write() into a file or standard
 * output, and the palette file read before and saved after. The only
 * place in svg/ that prints or exits. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "lib/cli.h"
#include "lib/out-file.h"
#include "lib/recording.h"
#include "report/diff.h"
#include "report/report-cli.h"
#include "svg/svg.h"

static const char usage_head[] =
	"usage: prof svg [-i FILE] [-o OUT.svg] [--threads | --tids] [--merge-pools]\n"
	"                [--title TEXT] [--subtitle TEXT] [--width PX] [--height PX]\n"
	"                [--font-size PX] [--font FAMILY] [--minwidth PX|PCT%]\n"
	"                [--colors hot|mem|io|java] [--palette-file FILE] [--inverted]\n"
	"                [--reverse] [--countname NAME] [--sort alpha|weight]\n"
	"                [--off-cpu | --wall] [--lines] [--flamechart]\n"
	"                [--include RE]... [--exclude RE]... [--grep RE]...\n"
	"                [--thread RE]... [--pid N]... [--tid N]... [--ignore-case]\n"
	"                [--diff [--negate] [--diff-colors self|inclusive] [OLD NEW]]\n"
	"       prof svg --timeline [-i FILE] [-o OUT.svg] [--threads | --tids] [filters]\n"
	"\n"
	"Draws the stacks of a recording or of folded text as a flamegraph: one\n"
	"self-contained SVG to hover, zoom and search in a browser.\n"
	"\n"
	"input:\n"
	"  -i, --input FILE   a recording or folded text; '-' is standard input\n"
	"                     (default: standard input if it is a pipe or a file,\n"
	"                     else prof.data)\n"
	"\n"
	"output:\n"
	"  -o, --output FILE  where the SVG goes (default: standard output, unless\n"
	"                     it is a terminal)\n"
	"  --threads          a root per thread, named after it\n"
	"  --tids             like --threads, as NAME/TID (one root per thread)\n"
	"  --merge-pools      collapse digit runs in thread names into '*'\n"
	"                     (dw-12, dw-13 -> dw-*); implies --threads\n"
	"\n"
	"drawing:\n"
	"  --title TEXT       the title (default: Flame Graph, or Icicle Graph;\n"
	"                     Off-CPU Time Flame Graph, Wall-Clock Flame Graph)\n"
	"  --subtitle TEXT    a second line under the title\n"
	"  --width PX         a fixed width (default: the window's width)\n"
	"  --height PX        the height of a frame (default: 16)\n"
	"  --font-size PX     the font size (default: 12)\n"
	"  --font FAMILY      the font family (default: Verdana)\n"
	"  --minwidth PX|PCT%\n"
	"                     leave out frames narrower than this, in pixels or in %\n"
	"                     of the total (default: 0.1 px, as flamegraph.pl);\n"
	"                     their time stays in their parent's width, and the\n"
	"                     search counts them\n"
	"  --colors PALETTE   hot (default; io with --off-cpu), mem (allocations),\n"
	"                     io (off-CPU), or java (Java, JIT _[j], inlined _[i],\n"
	"                     C++, kernel _[k] and native frames each in their\n"
	"                     own hue)\n"
	"  --palette-file FILE\n"
	"                     take colors from FILE (NAME->rgb(R,G,B) lines, as\n"
	"                     flamegraph.pl's palette.map) and add the new names to\n"
	"                     it, so graphs share their colors\n"
	"  --inverted         an icicle graph: the root at the top\n"
	"  --reverse          merge stacks from the leaf: leaf functions at the\n"
	"                     root, their callers above them\n"
	"  --countname NAME   what a count is (default: samples; us with --off-cpu\n"
	"                     and --wall): bytes, us, ...\n"
	"  --sort ORDER       siblings by name: alpha (default, as FlameGraph), or\n"
	"                     by count, heaviest first: weight\n"
	"  --flamechart       a flame chart: time left to right, not merged by name\n"
	"                     (a frame continues only the same frame of the line\n"
	"                     before); of a recording, a lane per thread (by first\n"
	"                     sample), each in its samples' time order; of folded\n"
	"                     text, the lines as given\n"
	"  --timeline         a heatmap of a recording's samples, a column per second\n"
	"                     and a row per fraction of it; drag across cells to see\n"
	"                     that time range's flamegraph in the page\n"
	"\n"
	"differential flamegraph:\n"
	"  --diff OLD NEW     what changed from OLD to NEW (recordings or folded\n"
	"                     text): widths from NEW, red grew, blue shrank (the\n"
	"                     deeper, the more), OLD scaled to NEW's total; stacks\n"
	"                     gone from NEW keep their OLD width, outlined\n"
	"  --diff             the same from a two-column file ('prof diff' output,\n"
	"                     \"stack OLD NEW\"), counts as they are\n"
	"  --negate           widths from OLD instead (NEW scaled to OLD's total)\n"
	"  --diff-colors self|inclusive\n"
	"                     color by each frame's self change (default, as\n"
	"                     flamegraph.pl) or by its change with its callees\n"
	"\n";
/* ...then profile_input_weight_help, a blank line, profile_input_filter_help,
 * then: */
static const char usage_tail[] = "\n"
				 "  -h, --help         show this help\n";

enum {
	OPT_TITLE = PROFILE_OPT_END,
	OPT_SUBTITLE,
	OPT_WIDTH,
	OPT_HEIGHT,
	OPT_FONT_SIZE,
	OPT_FONT,
	OPT_MINWIDTH,
	OPT_COLORS,
	OPT_PALETTE_FILE,
	OPT_INVERTED,
	OPT_REVERSE,
	OPT_COUNTNAME,
	OPT_SORT,
	OPT_DIFF,
	OPT_NEGATE,
	OPT_DIFF_COLORS,
	OPT_FLAMECHART,
	OPT_TIMELINE,
};

static const struct option long_options[] = {
	PROFILE_INPUT_LONG_OPTIONS,
	PROFILE_WEIGHT_LONG_OPTIONS,
	{"output", required_argument, NULL, 'o'},
	{"help", no_argument, NULL, 'h'},
	{"title", required_argument, NULL, OPT_TITLE},
	{"subtitle", required_argument, NULL, OPT_SUBTITLE},
	{"width", required_argument, NULL, OPT_WIDTH},
	{"height", required_argument, NULL, OPT_HEIGHT},
	{"font-size", required_argument, NULL, OPT_FONT_SIZE},
	{"font", required_argument, NULL, OPT_FONT},
	{"minwidth", required_argument, NULL, OPT_MINWIDTH},
	{"colors", required_argument, NULL, OPT_COLORS},
	{"palette-file", required_argument, NULL, OPT_PALETTE_FILE},
	{"inverted", no_argument, NULL, OPT_INVERTED},
	{"reverse", no_argument, NULL, OPT_REVERSE},
	{"countname", required_argument, NULL, OPT_COUNTNAME},
	{"sort", required_argument, NULL, OPT_SORT},
	{"diff", no_argument, NULL, OPT_DIFF},
	{"negate", no_argument, NULL, OPT_NEGATE},
	{"diff-colors", required_argument, NULL, OPT_DIFF_COLORS},
	{"flamechart", no_argument, NULL, OPT_FLAMECHART},
	{"timeline", no_argument, NULL, OPT_TIMELINE},
	{NULL, 0, NULL, 0},
};

/* Everything `prof svg` holds while it runs. */
struct svg_cmd {
	struct profile_input in; /* options, input, the filtered profile */
	struct svg_opts opts;
	const char *output;       /* NULL or "-": standard output */
	const char *palette_file; /* NULL: none */
	int colors_given;         /* --colors: not the default of the weight */
	int timeline;             /* --timeline: the heatmap page (timeline.c) */
	struct svg_palette_map *palette;
	struct profile_line *lines;
	size_t nlines;
	struct profile_output out; /* -o FILE: made new, named when written whole */

	/* --diff: NEW is `in`, OLD is `old` (same options), joined in `diff`. */
	int is_diff, negate;
	int inclusive, inclusive_given; /* --diff-colors */
	const char *old_path; /* OLD given as an argument; NULL: a two-column input */
	struct profile_input old;
	struct profile_diff diff;
	struct svg_diff sd;
};

static int parse_minwidth(struct svg_opts *o, const char *arg)
{
	size_t len = strlen(arg);
	char num[64];

	if (len && arg[len - 1] == '%') {
		if (len >= sizeof(num))
			return -EINVAL;
		memcpy(num, arg, len - 1);
		num[len - 1] = '\0';
		o->minwidth_unit = SVG_MINWIDTH_PERCENT;
		return cli_parse_double(num, 0, 100, &o->minwidth);
	}
	o->minwidth_unit = SVG_MINWIDTH_PX;
	return cli_parse_double(arg, 0, 1e6, &o->minwidth);
}

/* The script finds counts in titles as "(COUNT NAME, P%)". */
static int countname_ok(const char *s)
{
	size_t len = strlen(s), i;

	if (!len || len > 64)
		return 0;
	for (i = 0; i < len; i++)
		if (strchr("(),", s[i]) || (unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return 1;
}

static int own_option(void *cmd, int opt, const char *arg)
{
	struct svg_cmd *c = cmd;
	struct svg_opts *o = &c->opts;
	uint64_t v;

	switch (opt) {
	case 'o':
		c->output = arg;
		break;
	case OPT_TITLE:
		o->title = arg;
		break;
	case OPT_SUBTITLE:
		o->subtitle = arg;
		break;
	case OPT_WIDTH:
		if (cli_parse_u64(arg, 100, 1000000, &v))
			return cli_usage_error("--width needs pixels from 100 to 1000000, not '%s'",
					       arg);
		o->width = (unsigned)v;
		break;
	case OPT_HEIGHT:
		if (cli_parse_u64(arg, 2, 1000, &v))
			return cli_usage_error("--height needs a frame height from 2 to 1000 pixels, "
					       "not '%s'",
					       arg);
		o->frame_height = (unsigned)v;
		break;
	case OPT_FONT_SIZE:
		if (cli_parse_double(arg, 1, 500, &o->font_size))
			return cli_usage_error("--font-size needs pixels from 1 to 500, not '%s'",
					       arg);
		break;
	case OPT_FONT:
		if (!*arg || strlen(arg) > 256)
			return cli_usage_error("--font needs a font family name");
		o->font = arg;
		break;
	case OPT_MINWIDTH:
		if (parse_minwidth(o, arg))
			return cli_usage_error("--minwidth needs pixels (0.5) or a percentage of the "
					       "total (0.1%%), not '%s'",
					       arg);
		break;
	case OPT_COLORS:
		c->colors_given = 1;
		if (!strcmp(arg, "hot"))
			o->palette = SVG_PALETTE_HOT;
		else if (!strcmp(arg, "mem"))
			o->palette = SVG_PALETTE_MEM;
		else if (!strcmp(arg, "io"))
			o->palette = SVG_PALETTE_IO;
		else if (!strcmp(arg, "java"))
			o->palette = SVG_PALETTE_JAVA;
		else
			return cli_usage_error("--colors takes hot, mem, io or java, not '%s'", arg);
		break;
	case OPT_PALETTE_FILE:
		c->palette_file = arg;
		break;
	case OPT_INVERTED:
		o->inverted = 1;
		break;
	case OPT_REVERSE:
		o->reverse = 1;
		break;
	case OPT_FLAMECHART:
		o->flamechart = 1;
		break;
	case OPT_TIMELINE:
		c->timeline = 1;
		break;
	case OPT_COUNTNAME:
		if (!countname_ok(arg))
			return cli_usage_error("--countname needs a short name without '(', ')' or "
					       "',', not '%s'",
					       arg);
		o->countname = arg;
		break;
	case OPT_DIFF:
		c->is_diff = 1;
		break;
	case OPT_NEGATE:
		c->negate = 1;
		break;
	case OPT_DIFF_COLORS:
		if (strcmp(arg, "self") && strcmp(arg, "inclusive"))
			return cli_usage_error("--diff-colors needs self or inclusive, not '%s'", arg);
		c->inclusive = !strcmp(arg, "inclusive");
		c->inclusive_given = 1;
		break;
	case OPT_SORT:
		if (!strcmp(arg, "alpha"))
			o->sort = SVG_SORT_ALPHA;
		else if (!strcmp(arg, "weight"))
			o->sort = SVG_SORT_WEIGHT;
		else
			return cli_usage_error("--sort takes alpha or weight, not '%s'", arg);
		break;
	default:
		return -1;
	}
	return 0;
}

/* Off-CPU and wall-clock graphs count microseconds; off-CPU ones are blue
 * (flamegraph.pl's io palette) unless --colors says otherwise. */
static void weight_defaults(struct svg_cmd *c)
{
	struct svg_opts *o = &c->opts;

	if (c->in.probe.malloc) { /* native allocations (estimates) */
		if (!o->title)
			o->title = c->in.probe.leaks ? "Leak Flame Graph" : "Allocation Flame Graph";
		if (!o->countname)
			o->countname = c->in.probe.weight_samples ? "samples"
				       : c->in.probe.weight_set && !c->in.probe.weight_bytes
					   ? "calls"
					   : "bytes"; /* the default, set later by resolve */
		if (!c->colors_given)
			o->palette = SVG_PALETTE_MEM;
		return;
	}
	if (c->in.probe.alloc) { /* JVM allocations: the mem palette */
		if (!o->title)
			o->title = "Allocation Flame Graph";
		if (!o->countname)
			o->countname = c->in.probe.weight_bytes ? "bytes" : "allocations";
		if (!c->colors_given)
			o->palette = SVG_PALETTE_MEM;
		return;
	}
	if (c->in.weight == PROFILE_WEIGHT_CPU)
		return;
	if (!o->countname)
		o->countname = "us";
	if (c->in.weight == PROFILE_WEIGHT_OFF_CPU) {
		if (!o->title)
			o->title = "Off-CPU Time Flame Graph";
		if (!c->colors_given)
			o->palette = SVG_PALETTE_IO;
	} else if (!o->title) {
		o->title = "Wall-Clock Flame Graph";
	}
}

/* A differential graph says what it shows unless --title/--subtitle do. */
static void diff_defaults(struct svg_cmd *c)
{
	struct svg_opts *o = &c->opts;

	if (!c->is_diff)
		return;
	if (!o->title)
		o->title = "Differential Flame Graph";
	if (!o->subtitle)
		o->subtitle = c->negate ? "widths: OLD; red: more in NEW, blue: less"
					: "widths: NEW; red: more in NEW, blue: less";
}

/* --timeline: CPU samples by time, with their cells; the flamegraph
 * options that shape a single graph do not apply. */
static int timeline_options(struct svg_cmd *c)
{
	const struct svg_opts *o = &c->opts;
	const char *opt = c->is_diff				? "--diff"
			  : o->flamechart			? "--flamechart"
			  : c->in.weight == PROFILE_WEIGHT_OFF_CPU ? "--off-cpu"
			  : c->in.weight == PROFILE_WEIGHT_WALL	? "--wall"
			  : c->in.probe.alloc || c->in.probe.malloc ? "--alloc"
			  : c->in.event_name			? "--event"
			  : o->inverted				? "--inverted"
			  : o->reverse				? "--reverse"
			  : c->palette_file			? "--palette-file"
			  : c->colors_given			? "--colors"
			  : o->frame_height			? "--height"
			  : o->width				? "--width"
			  : o->minwidth_unit			? "--minwidth"
			  : o->sort				? "--sort"
			  : c->in.lines				? "--lines"
								: NULL;

	if (opt)
		return cli_usage_error("--timeline draws CPU samples over time: not with %s", opt);
	c->in.time_order = 1;
	c->in.cell_ns = SVG_TIMELINE_CELL_NS;
	return 0;
}

static int parse_options(struct svg_cmd *c, int argc, char **argv,
			 recording_replay_fn replay)
{
	static const struct profile_cli cli = {
		":i:o:h", long_options, usage_head, usage_tail, own_option,
	};
	int rc = profile_input__parse_options(&c->in, argc, argv, &cli, c, replay);

	if (rc)
		return rc;
	if (c->is_diff && argc - optind == 2 && !c->in.input) {
		c->old_path = argv[optind];
		c->in.input = argv[optind + 1];
		optind += 2;
		if (!strcmp(c->old_path, "-") && !strcmp(c->in.input, "-"))
			return cli_usage_error("OLD and NEW cannot both be standard input");
	}
	if (optind < argc)
		return cli_usage_error(c->is_diff ? "--diff takes OLD NEW (two inputs, no -i), or one "
						    "two-column input: unexpected '%s'"
						  : "unexpected argument '%s' (the input goes after -i)",
				       argv[optind]);
	if (c->opts.flamechart && (c->is_diff || c->opts.sort != SVG_SORT_ALPHA))
		return cli_usage_error("--flamechart keeps the lines' order: not with %s",
				       c->is_diff ? "--diff" : "--sort");
	if (c->opts.flamechart && !c->opts.title)
		c->opts.title = "Flame Chart";
	if ((c->negate || c->inclusive_given) && !c->is_diff)
		return cli_usage_error("%s goes with --diff", c->negate ? "--negate" : "--diff-colors");
	if (c->is_diff && (c->colors_given || c->palette_file))
		return cli_usage_error("--colors and --palette-file do not apply to --diff: its "
				       "colors show the change");
	profile_input__options_done(&c->in);
	if (c->opts.flamechart && (rc = profile_input__flamechart(&c->in)))
		return rc;
	if (c->timeline && (rc = timeline_options(c)))
		return rc;
	weight_defaults(c);
	diff_defaults(c);
	if (c->output && !strcmp(c->output, "-"))
		c->output = NULL;
	if (!c->output && isatty(1))
		return cli_usage_error("not writing an SVG to a terminal: give -o FILE or "
				       "redirect standard output");
	return 0;
}

static int read_palette(struct svg_cmd *c)
{
	unsigned char *data = NULL;
	size_t size = 0, bad;
	int err;

	c->palette = svg_palette_map__new();
	if (!c->palette) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	c->opts.colors = c->palette;
	err = read_whole_file(c->palette_file, &data, &size);
	if (err == -ENOENT)
		return 0; /* made when saved */
	if (err) {
		cli_error("cannot read palette file '%s': %s", c->palette_file, strerror(-err));
		return EXIT_FAIL;
	}
	err = svg_palette_map__read(c->palette, (const char *)data, size, &bad);
	free(data);
	if (err == -ENOMEM) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	if (err) {
		cli_error("palette file '%s': line %zu is not 'NAME->rgb(R,G,B)'", c->palette_file,
			  bad);
		return EXIT_FAIL;
	}
	return 0;
}

/* Writes the palette file through a new file and a rename (lib/out-file.h),
 * so a failure never leaves it half written. */
static int save_palette(struct svg_cmd *c)
{
	struct out_file of;
	FILE *f = out_file__fopen(&of, c->palette_file);
	int err, cerr;

	if (!f) {
		cli_error("cannot save palette file '%s': %s", c->palette_file, strerror(errno));
		return EXIT_FAIL;
	}
	err = svg_palette_map__write(c->palette, f);
	cerr = out_file__fclose(&of, f, !err);
	if (!err)
		err = cerr;
	if (err) {
		cli_error("cannot save palette file '%s': %s", c->palette_file, strerror(-err));
		return EXIT_FAIL;
	}
	return 0;
}

/* --diff: OLD, from its own input or from the other column of a
 * two-column input (whose bytes `in` kept). */
static int load_old(struct svg_cmd *c)
{
	struct profile_input *in = &c->in;
	int rc;

	if (!c->old_path && !in->two_column)
		return cli_usage_error("--diff needs OLD NEW, or a two-column input ('prof diff "
				       "OLD NEW' output); %s is not one",
				       in->shown);
	rc = profile_input__clone(&c->old, in, c->old_path ? c->old_path : in->input);
	if (rc || c->old_path)
		return rc ? rc : profile_input__load(&c->old);
	c->old.column = DIFF_COLUMN_OLD;
	c->old.data = malloc(in->size + 1);
	if (!c->old.data) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	memcpy(c->old.data, in->data, in->size);
	c->old.size = in->size;
	c->old.preloaded = 1;
	return profile_input__load(&c->old);
}

/* Empty input is an error, not an empty-looking graph. */
static int check_not_empty(struct svg_cmd *c)
{
	struct profile_input *in = &c->in;

	if (in->prof.total || (c->is_diff && c->old.prof.total))
		return 0;
	if (in->loaded_total)
		cli_error("nothing to draw: the filters left none of the %llu %s of %s",
			  (unsigned long long)in->loaded_total,
			  in->weight == PROFILE_WEIGHT_CPU ? "samples" : "microseconds", in->shown);
	else if (in->is_recording && in->weight == PROFILE_WEIGHT_OFF_CPU)
		cli_error("nothing to draw: %s holds no off-CPU stacks", in->shown);
	else if (in->is_recording)
		cli_error("nothing to draw: %s holds no samples", in->shown);
	else
		cli_error("nothing to draw: %s holds no stacks with a count", in->shown);
	return EXIT_FAIL;
}


/* A flame chart says it is time-ordered, unless --subtitle does. */
static void chart_subtitle(struct svg_cmd *c)
{
	if (!c->opts.flamechart || c->opts.subtitle)
		return;
	c->opts.subtitle = c->in.is_recording
				   ? "Time-ordered: a lane per thread, left to right by time; "
				     "widths are samples (time off CPU takes none)"
				   : "Time-ordered: the input's lines left to right as given";
}

/* After the output was closed with err (a failure leaves no partial
 * file, and an old one as it was): 0, or EXIT_FAIL after saying why. */
static int written(struct svg_cmd *c, int err, const char *what)
{
	const char *shown = c->output ? c->output : "standard output";

	if (!err)
		return 0;
	if (err == -ENOMEM)
		cli_error("out of memory drawing the %s", what);
	else if (err == -EINVAL)
		cli_error("nothing to draw in %s", c->in.shown);
	else if (err == -E2BIG)
		cli_error("%s spans more than 1,000,000 seconds, more columns than a timeline "
			  "draws",
			  c->in.shown);
	else
		cli_error("cannot write the SVG to %s%s%s: %s", c->output ? "'" : "", shown,
			  c->output ? "'" : "", strerror(-err));
	return EXIT_FAIL;
}

static int draw(struct svg_cmd *c)
{
	struct folded_opts fo = {.thread_root = c->in.roots};
	struct svg_stats st = {0};
	int err;

	if (c->is_diff) {
		/* OLD NEW are scaled to one total; a two-column input was. */
		err = profile_diff__build(&c->diff, &c->in.prof, &c->old.prof, &fo);
		if (err == -EOVERFLOW) {
			cli_error("the counts of OLD and NEW do not fit 64 bits on one decimal "
				  "scale");
			return EXIT_FAIL;
		}
		if (err || svg_diff__lines(&c->diff, !c->old_path, c->negate, &c->sd, &c->lines,
					   &c->nlines)) {
			cli_error("out of memory");
			return EXIT_FAIL;
		}
		c->sd.inclusive = c->inclusive;
		c->opts.diff = &c->sd;
	} else if (profile__lines(&c->in.prof, /* the tree merges and orders lines; a
						  flame chart keeps the entries' (time) order */
				  &(struct folded_opts){.thread_root = c->in.roots, .any_order = 1},
				  &c->lines, &c->nlines)) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	err = profile_output__open(&c->out, c->output);
	if (err) {
		cli_error("cannot create '%s': %s", c->output, strerror(-err));
		return EXIT_FAIL;
	}
	err = svg__write(&c->in.prof, c->lines, c->nlines, &c->opts, c->out.fp, &st);
	if (!err && st.cut_row)
		cli_warn("stacks cut at depth %zu (the page says so): no real profile is that "
			 "deep", st.cut_row);
	return written(c, profile_output__close(&c->out, err), "flamegraph");
}

/* --timeline: the heatmap page of a recording. */
static int draw_timeline(struct svg_cmd *c)
{
	const char *freq = recording__meta(&c->in.rec, "frequency");
	struct svg_timeline_stats st;
	int err;

	if (!c->in.is_recording) {
		cli_error("--timeline needs a recording (its samples' times); %s is not one",
			  c->in.shown);
		return EXIT_FAIL;
	}
	err = profile_output__open(&c->out, c->output);
	if (err) {
		cli_error("cannot create '%s': %s", c->output, strerror(-err));
		return EXIT_FAIL;
	}
	err = svg__write_timeline(&c->in.prof, c->in.roots, freq ? atof(freq) : 0, &c->opts,
				  c->out.fp, &st);
	return written(c, profile_output__close(&c->out, err), "timeline");
}

static int run(struct svg_cmd *c, int argc, char **argv, const struct prof_env *env)
{
	int rc;

	rc = parse_options(c, argc, argv, env->replay);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	if (c->palette_file && (rc = read_palette(c)))
		return rc;
	rc = profile_input__load(&c->in);
	if (!rc && c->is_diff)
		rc = load_old(c);
	if (rc)
		return rc;
	rc = check_not_empty(c);
	if (rc)
		return rc;
	if (c->timeline)
		return draw_timeline(c);
	chart_subtitle(c);
	rc = draw(c);
	if (rc)
		return rc;
	if (c->palette && svg_palette_map__changed(c->palette))
		return save_palette(c);
	return EXIT_OK;
}

int cmd_svg(int argc, char **argv, const struct prof_env *env)
{
	struct svg_cmd c;
	int rc;

	memset(&c, 0, sizeof(c));
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	rc = run(&c, argc, argv, env);
	profile_output__close(&c.out, -ECANCELED);
	free(c.lines);
	svg_diff__release(&c.sd);
	profile_diff__release(&c.diff);
	profile_input__release(&c.old);
	svg_palette_map__free(c.palette);
	profile_input__release(&c.in);
	return rc;
}
