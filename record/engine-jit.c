/* engine-jit.c: the JIT maps asked for while recording (jit-snapshots.c)
 * as the run loop sees them: a wish to wake at the next ask, its counters,
 * and the timeline freed at the end. Off with --no-symbolize (nothing would
 * name frames from the maps) and with --jit-every 0 (the end's ask only,
 * jvm-step.c). */
#include "engine.h"

static int jit_wanted(const struct recorder *rec)
{
	return !rec->opts->no_symbolize && rec->opts->jit_every_ns != RECORD_JIT_END_ONLY;
}

static void jit_release(struct recorder *rec)
{
	jit_snapshots_release(&rec->jit);
}

const struct rec_engine rec_engine_jit = {
    .name = "jit",
    .wanted = jit_wanted,
    .tick_ms = jit_snapshots_tick,
    .write_stats = jit_snapshots_write_stats,
    .release = jit_release,
};
