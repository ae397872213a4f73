/* engine-defer.c: deferred processing (defer.c) as the run loop sees it:
 * decided at setup (after the sources that rule it out), the records kept
 * raw written at each flush, processed once sampling ends. The CPU engine
 * drains into it while it is on (engine-cpu.c). */
#include "engine.h"

static int defer_engine_setup(struct recorder *rec)
{
	defer_setup(rec);
	return 0;
}

const struct rec_engine rec_engine_defer = {
    .name = "defer",
    .setup = defer_engine_setup,
    .flush = defer_flush,
    .settle = defer_process,
    .release = defer_release,
};
