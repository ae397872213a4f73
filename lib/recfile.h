/* recfile.h: the on-disk layout of a prof recording (docs/FORMAT.md).
 *
 * A recording is a file header followed by chunks. Each chunk is a 16-byte
 * header and a payload with a CRC-32 over it. Chunks are appended and
 * written out at least once a second, so a recorder killed at any moment
 * leaves a file that reads up to its last complete chunk. Records inside
 * chunks refer only to things defined earlier in the file (strings, frames,
 * stacks), which is what makes every prefix of chunks self-consistent.
 *
 * All integers are little-endian; record structs are packed and naturally
 * aligned, so the layout is the same on every compiler. */
#ifndef PROF_RECFILE_H
#define PROF_RECFILE_H

#include <stdint.h>

#define REC_MAGIC "PROFREC\x01"
#define REC_MAGIC_LEN 8
#define REC_VERSION 1

struct rec_file_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size; /* sizeof(struct rec_file_header), for growth */
};

enum rec_chunk_type {
	REC_CHUNK_META = 1,     /* "key\0value\0" pairs */
	REC_CHUNK_STRINGS = 2,  /* (u32 len, bytes) each; ids continue from before */
	REC_CHUNK_THREADS = 3,  /* struct rec_thread_event[] */
	REC_CHUNK_MAPPINGS = 4, /* struct rec_mapping[]; ids continue */
	REC_CHUNK_FRAMES = 5,   /* struct rec_frame[]; ids continue */
	REC_CHUNK_STACKS = 6,   /* struct rec_stack_node[]; ids continue (0 = empty stack) */
	REC_CHUNK_SAMPLES = 7,  /* u64 base time, then struct rec_sample[] */
	REC_CHUNK_SYMBOLS = 8,  /* struct rec_symbol[] */
	REC_CHUNK_STATS = 9,    /* struct rec_stat[]: counters, last value wins */
	REC_CHUNK_EVENTS = 10,  /* struct rec_event_desc[]; ids continue */
	REC_CHUNK_END = 11,     /* empty: the recorder finished cleanly */
	REC_CHUNK_SCHED = 12,   /* u64 base time, then struct rec_sched[] */
	REC_CHUNK_INLINES = 13, /* struct rec_inline[]: inline chains, source lines */
	REC_CHUNK_ARGS = 14,    /* probe arguments per sample: lib/rec-args.h */
	/* perf records as the kernel wrote them into the rings, not processed
	 * yet (a deferred recording, docs/FORMAT.md): only in a file whose
	 * recorder was killed while deferring; readers replay them. */
	REC_CHUNK_RAW = 15,
	/* u32 errno: the recorder stopped writing on this error (ENOSPC: the
	 * disk filled) after cutting the file back to its last complete chunk.
	 * Readers say so instead of "killed"; the writer's side is pending
	 * (docs/FORMAT.md). */
	REC_CHUNK_STOP = 16,
};

struct rec_chunk_header {
	uint32_t type;
	uint32_t size;  /* payload bytes */
	uint32_t crc;   /* zlib crc32 of the payload */
	uint32_t count; /* records in the payload (for STRINGS: strings) */
};

enum rec_thread_kind {
	REC_THREAD_START = 1, /* thread exists (seen at attach, or created) */
	REC_THREAD_NAME = 2,  /* thread (re)named: comm */
	REC_THREAD_EXIT = 3,
	/* The thread's full name (a JVM's Thread.print, hotspot:thread__start):
	 * it replaces every START/NAME name of the same (pid, tid) that is the
	 * kernel's truncation of it (equal, or REC_KERNEL_NAME_MAX bytes and a
	 * prefix). A later kernel rename to something else keeps its name. */
	REC_THREAD_FULLNAME = 4,
};

/* Thread names in the kernel: TASK_COMM_LEN - 1 bytes. */
#define REC_KERNEL_NAME_MAX 15

struct rec_thread_event {
	uint64_t time; /* ns, CLOCK_MONOTONIC */
	uint32_t pid;
	uint32_t tid;
	uint32_t kind;
	uint32_t name; /* string id (REC_THREAD_START, _NAME and _FULLNAME) */
};

#define REC_MAPPING_KERNEL 1u /* the kernel image / modules */

struct rec_mapping {
	uint64_t start, end, pgoff;
	uint64_t time;   /* when it appeared */
	uint32_t pid;
	uint32_t path;   /* string id */
	uint32_t build_id; /* string id of the hex build-id, 0 if unknown */
	uint32_t flags;
};

#define REC_NO_MAPPING 0xffffffffu

#define REC_FRAME_KERNEL 1u
#define REC_FRAME_CALLER 2u /* address is a return address minus one */
/* Bits 16-31: the JIT epoch of a frame in a process's JIT code (0 in files
 * before it): frames at one address in different epochs are different
 * frames, each named by the code there then (docs/FORMAT.md). */
#define REC_FRAME_EPOCH_SHIFT 16
#define REC_FRAME_EPOCH_MAX 0xffffu

struct rec_frame {
	uint64_t addr;    /* in the address space of `pid` (0: kernel) */
	uint32_t pid;
	uint32_t mapping; /* mapping id or REC_NO_MAPPING */
	uint32_t flags;
	uint32_t reserved;
};

/* A stack is a node of a prefix tree: id = (parent, frame), root first.
 * Node 0 is the empty stack; the first node in the file has id 1. */
struct rec_stack_node {
	uint32_t parent;
	uint32_t frame;
};

#define REC_SAMPLE_TRUNCATED 1u /* the kernel cut the callchain */
#define REC_SAMPLE_NO_KERNEL 2u /* kernel part not available */

struct rec_sample {
	uint32_t dt;    /* ns after the chunk's base time */
	uint32_t tid;
	uint32_t stack; /* stack node id (the leaf) */
	uint16_t cpu;
	uint8_t event;  /* event id */
	uint8_t flags;
};

#define REC_SYMBOL_UNRESOLVED 1u
#define REC_SYMBOL_JIT 2u /* from a JIT map (/tmp/perf-PID.map): shown as name_[j] */

struct rec_symbol {
	uint32_t frame;
	uint32_t name;   /* string id */
	uint32_t offset; /* address - symbol start, saturated */
	uint32_t flags;
};

/* The source view of a frame (from DWARF): its chain of inlined functions,
 * INNERMOST FIRST, the last record being the function itself (the out-of-
 * line one the frame's address belongs to). The records of one frame are
 * consecutive in a chunk. A frame with one record just gains its source
 * line; with k > 1, readers show k frames. */
struct rec_inline {
	uint32_t frame;
	uint32_t name; /* string id, demangled */
	uint32_t file; /* string id; 0 = unknown */
	uint32_t line; /* 0 = unknown */
};

/* Scheduler events of the target threads (prof record --sched). Records of
 * different CPUs arrive in drain order, not time order: readers sort. */
enum rec_sched_kind {
	REC_SCHED_OUT = 1,  /* tid switched out on cpu: state; arg = next tid */
	REC_SCHED_IN = 2,   /* tid switched in on cpu */
	REC_SCHED_WAKE = 3, /* tid woken: arg = waker tid (0: idle/irq); cpu = where it will run */
	REC_SCHED_INIT = 4, /* tid's state when its recording began (from /proc) */
	REC_SCHED_TASK = 5, /* names a task seen as next or waker: tid, arg = string id */
};

/* Task states, as sched_switch's prev_state reports them. */
enum rec_sched_state {
	REC_STATE_RUNNING = 0,   /* R: on CPU or runnable (INIT), or yielded (OUT) */
	REC_STATE_PREEMPTED = 1, /* R+: preempted while runnable */
	REC_STATE_SLEEPING = 2,  /* S: interruptible sleep (locks, queues, poll) */
	REC_STATE_DISK = 3,      /* D: uninterruptible (usually I/O) */
	REC_STATE_STOPPED = 4,   /* T/t: stopped or traced */
	REC_STATE_DEAD = 5,      /* X/Z: exiting */
	REC_STATE_IDLE = 6,      /* I: idle kernel thread; P: parked */
	REC_STATE_OTHER = 7,
	REC_STATE_COUNT
};

struct rec_sched {
	uint32_t dt;   /* ns after the chunk's base time */
	uint32_t tid;
	uint32_t arg;  /* see rec_sched_kind */
	uint16_t cpu;
	uint8_t kind;  /* enum rec_sched_kind */
	uint8_t state; /* enum rec_sched_state (OUT, INIT) */
};

struct rec_stat {
	uint32_t key; /* string id of the counter's name */
	uint32_t reserved;
	uint64_t value;
};

struct rec_event_desc {
	uint32_t name;   /* string id, e.g. "cpu-clock" */
	uint32_t type;   /* perf_event_attr.type */
	uint64_t config;
	uint64_t freq;   /* Hz, 0 if period-based */
	uint64_t period;
};

_Static_assert(sizeof(struct rec_file_header) == 16, "layout");
_Static_assert(sizeof(struct rec_chunk_header) == 16, "layout");
_Static_assert(sizeof(struct rec_thread_event) == 24, "layout");
_Static_assert(sizeof(struct rec_mapping) == 48, "layout");
_Static_assert(sizeof(struct rec_frame) == 24, "layout");
_Static_assert(sizeof(struct rec_stack_node) == 8, "layout");
_Static_assert(sizeof(struct rec_sample) == 16, "layout");
_Static_assert(sizeof(struct rec_symbol) == 16, "layout");
_Static_assert(sizeof(struct rec_inline) == 16, "layout");
_Static_assert(sizeof(struct rec_stat) == 16, "layout");
_Static_assert(sizeof(struct rec_sched) == 16, "layout");
_Static_assert(sizeof(struct rec_event_desc) == 32, "layout");

#endif
