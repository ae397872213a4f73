/* engine-probes.c: the probe source (-e usdt:/uprobe:/uretprobe:, --alloc,
 * --malloc): uprobe events on every target thread, each site in rings of
 * its own, attached in windows (probe-events.c, probe-windows.c,
 * malloc-probes.c; decoded by probe-decode.c, malloc-decode.c). */
#include "engine.h"

static int probes_engine_open_thread(struct recorder *rec, pid_t tid)
{
	return rec->probes.on ? probes_open_thread(rec, tid) : 0;
}

/* Closing the probes removes their breakpoints. */
static void probes_stop(struct recorder *rec)
{
	probes_close_all(rec);
	probes_wait_closed();
}

const struct rec_engine rec_engine_probes = {
    .name = "probes",
    .setup = probes_setup, /* nothing when no probe is asked for */
    .open_thread = probes_engine_open_thread,
    .tick_ms = probes_tick,
    .drain = probes_drain,
    .stop = probes_stop,
    .write_stats = probes_write_stats,
    .release = probes_release,
};
