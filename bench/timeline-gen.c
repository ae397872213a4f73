/*
 * timeline-gen.c: writes a synthetic recording with lib/rec-writer.h, for
 * bench/timeline.sh (`prof svg --timeline` at scale): THREADS threads
 * sampled at HZ for HOURS, each busy BUSY% of the time on average (a
 * daily wave, so the heatmap has a shape), its samples drawn from a few
 * hundred stacks of 8 to 20 frames over FUNCS functions (fixed seed, so
 * the same arguments give the same file). From INCIDENT_S for 120 s every
 * thread is busy in "slow_path", the moment one looks for.
 *
 *   timeline-gen OUT.data HOURS HZ THREADS BUSY% [FUNCS [INCIDENT_S]]
 *
 * Prints the samples written on stdout.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/rec-writer.h"

#define NSTACKS 400
#define BASE_NS 1000000000ull

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double uniform(void)
{
	return (double)(next_rand() >> 11) / 9007199254740992.0;
}

static int die(const char *what)
{
	fprintf(stderr, "timeline-gen: %s failed\n", what);
	return 1;
}

int main(int argc, char **argv)
{
	static const char *kinds[] = {"svc::handle_", "json::parse_", "db::query_",
				      "net::send_",   "cache::get_",  "log::write_",
				      "auth::check_", "tpl::render_"};
	struct rec_mapping map = {.start = 0x400000, .end = 0x4000000, .pid = 1000};
	uint32_t *frames, stacks[NSTACKS + 1], mid, tid0 = 1001;
	double hours, hz, busy;
	unsigned threads, funcs = 600, t, i;
	uint64_t incident = 3 * 3600 + 14 * 60, period, end, samples = 0, now;
	struct rec_writer *w;
	char buf[64];

	if (argc < 6) {
		fprintf(stderr, "usage: timeline-gen OUT.data HOURS HZ THREADS BUSY%% [FUNCS "
				"[INCIDENT_S]]\n");
		return 2;
	}
	hours = atof(argv[2]);
	hz = atof(argv[3]);
	threads = (unsigned)atoi(argv[4]);
	busy = atof(argv[5]) / 100;
	if (argc > 6)
		funcs = (unsigned)atoi(argv[6]);
	if (argc > 7)
		incident = strtoull(argv[7], NULL, 10);
	if (hours <= 0 || hz <= 0 || !threads || threads > 10000 || funcs < 10)
		return die("arguments");
	w = rec_writer__open(argv[1]);
	if (!w)
		return die("opening the output");
	snprintf(buf, sizeof(buf), "%g", hz);
	rec_writer__meta(w, "frequency", buf);
	rec_writer__meta(w, "cmdline", "timeline-gen");
	rec_writer__string(w, "/usr/bin/service", 16, &map.path);
	if (rec_writer__mapping(w, &map, &mid))
		return die("mapping");
	frames = malloc((funcs + 1) * sizeof(*frames));
	if (!frames)
		return die("malloc");
	for (i = 0; i <= funcs; i++) { /* frame `funcs` is slow_path */
		struct rec_symbol sym = {0};
		char name[64];
		int n = i == funcs ? snprintf(name, sizeof(name), "slow_path")
				   : snprintf(name, sizeof(name), "%s%u", kinds[i % 8], i);

		if (rec_writer__frame(w, 1000, 0x401000 + 64ull * i, REC_FRAME_CALLER, mid,
				      &frames[i]))
			return die("frame");
		sym.frame = frames[i];
		rec_writer__string(w, name, (size_t)n, &sym.name);
		if (rec_writer__symbol(w, &sym))
			return die("symbol");
	}
	for (i = 0; i <= NSTACKS; i++) { /* stacks[NSTACKS]: the incident's */
		unsigned depth = 8 + (unsigned)(next_rand() % 13), k;
		uint32_t id = 0;

		for (k = 0; k < depth; k++) {
			/* shallow frames from few functions, deep ones from many */
			unsigned f = k < 3 ? k : (unsigned)(next_rand() % (k < 6 ? 40 : funcs));

			if (i == NSTACKS && k == depth - 1)
				f = funcs;
			if (rec_writer__stack(w, id, frames[f], &id))
				return die("stack");
		}
		stacks[i] = id;
	}
	for (t = 0; t < threads; t++) {
		uint32_t name;

		snprintf(buf, sizeof(buf), "worker-%u", t);
		rec_writer__string(w, buf, strlen(buf), &name);
		if (rec_writer__thread(w, REC_THREAD_START, BASE_NS, 1000, tid0 + t, name))
			return die("thread");
	}
	period = (uint64_t)(1e9 / hz);
	end = (uint64_t)(hours * 3600e9);
	for (now = 0; now < end; now += period) {
		double s = (double)now / 1e9;
		/* a day's wave: from 0.2x to 1.8x the mean */
		double p = busy * (1 + 0.8 * sin(2 * M_PI * s / 86400.0));
		int inc = s >= (double)incident && s < (double)incident + 120;

		for (t = 0; t < threads; t++) {
			uint32_t st;

			if (!inc && uniform() >= p)
				continue;
			/* a skewed choice: low stacks are common */
			st = inc ? stacks[NSTACKS]
				 : stacks[(unsigned)(NSTACKS * uniform() * uniform())];
			if (rec_writer__sample(w, BASE_NS + now + t * 1000ull, tid0 + t, st,
					       (uint16_t)(t % 2), 0, 0))
				return die("sample");
			samples++;
		}
		if ((now / period) % 1000 == 0 && rec_writer__flush(w))
			return die("flush");
	}
	if (rec_writer__close(w))
		return die("close");
	printf("%llu\n", (unsigned long long)samples);
	free(frames);
	return 0;
}
