/* flight.h: the flight recorder (prof record --ring, internal to record/):
 * the last N seconds of samples, scheduler records and thread events kept
 * in memory, in a ring of one-second buckets (flight-ring.c), fed by a sink
 * behind the writer's (a tee: the ids are the writer's); the writer holds
 * the interned tables (rec_writer__hold). A save (flight-save.c) forks: the
 * child turns its copy of the writer into a new file, adds the window's
 * records, symbolizes and closes it, while the parent goes on sampling.
 * The engine (engine-flight.c) starts saves on SIGUSR1, on
 * record_request_save() and at the end.
 *
 * Bounds: at most FLIGHT_MAX_BYTES of records (past it, new records are
 * dropped and counted until the oldest second leaves the ring), at most
 * FLIGHT_MAX_THREADS threads remembered (more: their names are not kept). */
#ifndef PROF_RECORD_FLIGHT_H
#define PROF_RECORD_FLIGHT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/keymap.h"
#include "sink.h"

#define FLIGHT_MAX_BYTES (256ULL << 20)
#define FLIGHT_MAX_THREADS 65536
#define FLIGHT_BUCKET_NS 1000000000ULL
#define FLIGHT_REASON_MAX 256

/* One sample or scheduler record, 16 bytes: dt from its bucket's start. */
struct flight_rec {
	uint32_t dt, tid;
	uint32_t arg;      /* a sample's stack node, a sched record's arg */
	uint16_t cpu;
	uint8_t x, y;      /* event and flags, or kind and state */
};

struct flight_bucket {
	uint64_t index;    /* the second it holds (n since the start) */
	struct flight_rec *samples, *sched;
	size_t nsamples, samples_cap, nsched, sched_cap;
};

struct flight_thread {
	uint32_t pid, tid, name; /* name: the writer's string id */
	uint64_t time;           /* of the name */
	uint64_t exit;           /* 0: alive */
};

struct flight {
	struct rec_sink sink;      /* behind the writer's, through tee */
	struct rec_sink_tee tee;
	uint64_t start_ns, ring_ns;
	struct flight_bucket *buckets;
	size_t nbuckets;
	uint64_t cur;              /* the latest second seen */
	uint64_t bytes;            /* capacity of every bucket's arrays */
	uint64_t dropped;          /* records not kept (memory cap, too old) */
	struct flight_thread *threads;
	size_t nthreads, threads_cap;
	struct keymap thread_index; /* tid -> index in threads */
	/* saves */
	const char *output;        /* names are made from it */
	pid_t child;               /* the save being written, 0: none */
	char pending[FLIGHT_REASON_MAX]; /* a save to start ("": none) */
	uint64_t pending_to;       /* its window's end: when it was asked for */
	uint64_t saves, failures;
	int err;                   /* first allocation failure */
	int said;                  /* the line saying it runs was printed */
};

/* flight-ring.c: 0 or -ENOMEM; release frees what fl holds. */
int flight__init(struct flight *fl, uint64_t start_ns, uint64_t ring_ns);
void flight__release(struct flight *fl);
/* Calls fn on each record of the ring in [from, to), bucket by bucket
 * (each bucket's samples, then its scheduler records); stops at the first
 * nonzero return and returns it. */
typedef int (*flight_rec_fn)(void *ctx, int sched, uint64_t time, const struct flight_rec *r);
int flight__each(const struct flight *fl, uint64_t from, uint64_t to, flight_rec_fn fn, void *ctx);

/* flight-save.c (with record_ring_name, record.h): starts a save of the
 * window ending at `to` (monotonic ns, at most now: a save asked for while
 * the one before was written still ends where it was asked), `reason` in
 * its meta: forks a child that writes it and prints its line (or its
 * error), and returns at once (0 or -errno: the fork failed). */
struct recorder;
int flight_save_start(struct recorder *rec, const char *reason, uint64_t to);
/* Reaps the save's child if it is done (wait: until it is); counts it. */
void flight_save_reap(struct flight *fl, int wait);

#endif
