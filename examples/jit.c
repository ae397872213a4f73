/*
 * jit.c: a tiny "JIT" for the tests of JIT symbol maps: copies two small
 * machine-code loops into anonymous executable memory, writes
 * /tmp/perf-PID.map naming them as a JIT runtime would, and runs them.
 *
 *   usage: jit [SECONDS]      (default 3; fractions allowed)
 *
 * What a CPU profile of this program must show: nearly all samples in the
 * two generated loops, jit_loop_hot (about 3/4) and jit_loop_cold (about
 * 1/4), each named from the map with the JIT annotation, `jit_loop_hot_[j]`.
 *
 * The map is written before "ready PID" is printed on stderr and removed at
 * exit unless JIT_KEEP_MAP is set (a profiler reads it at the end of its
 * recording, which may be after we exited). Exits 0; 77 on a CPU it has no
 * code for (x86-64 and AArch64 only).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* uint64_t loop(uint64_t n): sums n, n-1, ..., 1. No calls, no data, no
 * relocations: it runs wherever it is copied. */
#if defined(__x86_64__)
static const unsigned char loop_code[] = {
	0x31, 0xc0,             /* xor  %eax,%eax */
	0x48, 0x01, 0xf8,       /* 1: add %rdi,%rax */
	0x48, 0xff, 0xcf,       /* dec  %rdi */
	0x75, 0xf8,             /* jnz  1b */
	0xc3,                   /* ret */
};
#elif defined(__aarch64__)
static const uint32_t loop_code[] = {
	0xaa0003e1, /* mov  x1, x0 */
	0xd2800000, /* mov  x0, #0 */
	0x8b010000, /* 1: add x0, x0, x1 */
	0xf1000421, /* subs x1, x1, #1 */
	0x54ffffc1, /* b.ne 1b */
	0xd65f03c0, /* ret */
};
#endif

#define SLOT 256 /* bytes between the two loops in the code page */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static char map_path[64];

static void remove_map(void)
{
	if (!getenv("JIT_KEEP_MAP"))
		unlink(map_path);
}

int main(int argc, char **argv)
{
#if defined(__x86_64__) || defined(__aarch64__)
	uint64_t (*hot)(uint64_t), (*cold)(uint64_t), until;
	double seconds = argc > 1 ? atof(argv[1]) : 3.0;
	volatile uint64_t sink = 0;
	unsigned char *code;
	FILE *map;

	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		perror("jit: mmap");
		return 1;
	}
	memcpy(code, loop_code, sizeof(loop_code));
	memcpy(code + SLOT, loop_code, sizeof(loop_code));
	/* W^X, as real JITs do: the kernel reports the mapping when it becomes
	 * executable. */
	if (mprotect(code, 4096, PROT_READ | PROT_EXEC)) {
		perror("jit: mprotect");
		return 1;
	}
	__builtin___clear_cache((char *)code, (char *)code + 4096);
	hot = (uint64_t(*)(uint64_t))(uintptr_t)code;
	cold = (uint64_t(*)(uint64_t))(uintptr_t)(code + SLOT);

	snprintf(map_path, sizeof(map_path), "/tmp/perf-%d.map", (int)getpid());
	map = fopen(map_path, "w");
	if (!map) {
		perror("jit: cannot write the perf map");
		return 1;
	}
	fprintf(map, "%lx %zx jit_loop_hot\n", (unsigned long)(uintptr_t)code, sizeof(loop_code));
	fprintf(map, "0x%lx 0x%zx jit_loop_cold\n", (unsigned long)(uintptr_t)(code + SLOT),
		sizeof(loop_code));
	if (fclose(map)) {
		perror("jit: cannot write the perf map");
		return 1;
	}
	atexit(remove_map);
	fprintf(stderr, "ready %d\n", (int)getpid());

	until = now_ns() + (uint64_t)(seconds * 1e9);
	while (now_ns() < until) {
		sink += hot(3000000);
		sink += cold(1000000);
	}
	return 0;
#else
	(void)argc;
	(void)argv;
	fprintf(stderr, "jit: no machine code for this CPU\n");
	return 77;
#endif
}
