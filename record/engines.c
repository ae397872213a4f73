/* engines.c: the recorder's sources (engine.h), in the order each step
 * walks them: the CPU rings are drained first (in CPU-wide mode they teach
 * the decoder the new threads); the probes come before the scheduler, as
 * their events were registered and their stats written before it was an
 * engine; the JIT maps asked for while recording after them, then the
 * flight recorder's ring (--ring, which follows the stream they make);
 * deferral is decided once the others are set up. A new source:
 * its engine-NAME.c, and one line here. */
#include "engine.h"

const struct rec_engine *const rec_engines[] = {
    &rec_engine_cpu,
    &rec_engine_probes,
    &rec_engine_sched,
    &rec_engine_jit,
    &rec_engine_flight,
    &rec_engine_defer,
};

const size_t rec_nengines = sizeof(rec_engines) / sizeof(rec_engines[0]);
